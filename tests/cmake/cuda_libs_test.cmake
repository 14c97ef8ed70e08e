# Driver of the cuda_libs configure test: makes the fake prefix tree under WORK (empty files: find_library
# checks only that a file exists), then configures the cuda_libs project on it in a fresh build folder.
# Usage: cmake -DMLBENCH_SOURCE_DIR=<repo> -DWORK=<folder> -P cuda_libs_test.cmake
file(REMOVE_RECURSE ${WORK})
set(fake ${WORK}/fake)
foreach(file
    cuda/include/cuda_runtime_api.h
    cuda/include/cublasLt.h
    cuda/lib64/libcudart.so.13
    cuda/lib64/libcublasLt.so.13
    site-packages/nvidia/cu13/include/cublasLt.h
    site-packages/nvidia/cu13/lib/libcublasLt.so.13
    site-packages/nvidia/cudnn/include/cudnn.h
    site-packages/nvidia/cudnn/lib/libcudnn.so.9
    site-packages/nvidia/cudnn/lib/libcudnn_graph.so.9
    site-packages/nvidia/nccl/include/nccl.h
    site-packages/nvidia/nccl/lib/libnccl.so.2
    site-packages/nvidia/old/lib/libcudnn.so.8)
  file(WRITE ${fake}/${file} "")
endforeach()
execute_process(
  COMMAND ${CMAKE_COMMAND} -S ${MLBENCH_SOURCE_DIR}/tests/cmake/cuda_libs -B ${WORK}/build
          -DMLBENCH_SOURCE_DIR=${MLBENCH_SOURCE_DIR} -DFAKE=${fake}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cuda_libs configure test failed (exit ${rc})")
endif()
