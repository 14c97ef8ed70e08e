# Dependency detection. Required libraries come from the system (Debian packages); optional backends are
# detected, reported in the configure summary and recorded as MLBENCH_HAS_* in the generated config header.
# Extra search prefixes (a private prefix of unpacked .deb files, Python wheel folders nvidia/*/) can be given
# in MLBENCH_EXTRA_PREFIXES (a CMake list).

set(MLBENCH_EXTRA_PREFIXES "" CACHE STRING "Extra prefixes searched for headers and libraries")
list(APPEND CMAKE_PREFIX_PATH ${MLBENCH_EXTRA_PREFIXES})

find_package(fmt REQUIRED)
find_package(CLI11 REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(yaml-cpp REQUIRED)
# GoogleTest and Google Benchmark build only the tests and the micro-benchmarks (scripts/setup-debian-tests.sh
# installs them); mlbench itself builds without them, and the top CMakeLists.txt says what is left out.
find_package(GTest)
find_package(benchmark)
find_package(Threads REQUIRED)
find_package(PkgConfig REQUIRED)
# libcrypto: HMAC-SHA256 of the TCP rendezvous' challenge-response (network/bootstrap.hpp); libssl: serve.llm's
# https (serve/client.hpp).
find_package(OpenSSL REQUIRED COMPONENTS Crypto SSL)

# yaml-cpp 0.7 exports the target "yaml-cpp"; newer releases add the namespaced "yaml-cpp::yaml-cpp".
if(NOT TARGET yaml-cpp::yaml-cpp)
  add_library(yaml-cpp::yaml-cpp ALIAS yaml-cpp)
endif()

foreach(feature CUDA CUDNN NCCL URING XLSX MPI BLKID)
  set(MLBENCH_HAS_${feature} 0)
  set(MLBENCH_${feature}_DETAIL "")
endforeach()

include(${CMAKE_CURRENT_LIST_DIR}/CudaLibs.cmake)

# --- CUDA toolkit (nvcc, cudart, cuBLASLt) -------------------------------------------------------------------
if(MLBENCH_ENABLE_CUDA)
  include(CheckLanguage)
  if(NOT DEFINED CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # Explicit architectures (never "native": configure must work without a GPU): Ampere, Hopper, Blackwell
    # data-centre parts as SASS, plus PTX of the newest for forward compatibility.
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 80-real 90-real 100-real 100-virtual)
    endif()
    enable_language(CUDA)
    # CMake 3.25 knows no CUDA20 dialect flags for nvcc; the .cu files (kernels only) need only C++17, host code
    # that calls the libraries is .cpp and C++20.
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit)
    # FindCUDAToolkit looks only for an unversioned libcublasLt.so; a toolkit or wheel with only
    # libcublasLt.so.<major> gets the same target here.
    if(CUDAToolkit_FOUND AND NOT TARGET CUDA::cublasLt)
      mlbench_find_cuda_lib(MLBENCH_CUBLASLT CUDA::cublasLt cublasLt.h cublasLt ${CUDAToolkit_VERSION_MAJOR})
    endif()
    if(CUDAToolkit_FOUND AND TARGET CUDA::cublasLt AND TARGET CUDA::cudart)
      set(MLBENCH_HAS_CUDA 1)
      get_target_property(cublaslt_location CUDA::cublasLt IMPORTED_LOCATION)
      set(MLBENCH_CUDA_DETAIL
          "(CUDA ${CUDAToolkit_VERSION}, cuBLASLt ${cublaslt_location}, archs ${CMAKE_CUDA_ARCHITECTURES})")
    elseif(NOT CUDAToolkit_FOUND)
      set(MLBENCH_CUDA_DETAIL "(nvcc found but FindCUDAToolkit found no toolkit with cudart)")
    else()
      set(MLBENCH_CUDA_DETAIL "(nvcc found but cuBLASLt missing: ${MLBENCH_CUBLASLT_DETAIL})")
    endif()
  else()
    set(MLBENCH_CUDA_DETAIL "(no nvcc found)")
  endif()
else()
  set(MLBENCH_CUDA_DETAIL "(disabled)")
endif()

if(MLBENCH_HAS_CUDA AND MLBENCH_ENABLE_CUDNN)
  mlbench_find_cuda_lib(MLBENCH_CUDNN mlbench::cudnn cudnn.h cudnn 9)
  set(MLBENCH_HAS_CUDNN ${MLBENCH_CUDNN_FOUND})
endif()
if(MLBENCH_HAS_CUDA AND MLBENCH_ENABLE_NCCL)
  mlbench_find_cuda_lib(MLBENCH_NCCL mlbench::nccl nccl.h nccl 2)
  set(MLBENCH_HAS_NCCL ${MLBENCH_NCCL_FOUND})
endif()

# --- liburing, libxlsxwriter, libblkid (pkg-config) ------------------------------------------------------------
if(MLBENCH_ENABLE_URING)
  pkg_check_modules(URING IMPORTED_TARGET liburing)
  if(URING_FOUND)
    set(MLBENCH_HAS_URING 1)
    set(MLBENCH_URING_DETAIL "(liburing ${URING_VERSION})")
  endif()
endif()
if(MLBENCH_ENABLE_XLSX)
  pkg_check_modules(XLSX IMPORTED_TARGET xlsxwriter)
  if(XLSX_FOUND)
    set(MLBENCH_HAS_XLSX 1)
    set(MLBENCH_XLSX_DETAIL "(libxlsxwriter ${XLSX_VERSION})")
  endif()
endif()
if(MLBENCH_ENABLE_BLKID)
  pkg_check_modules(BLKID IMPORTED_TARGET blkid)
  if(BLKID_FOUND)
    set(MLBENCH_HAS_BLKID 1)
    set(MLBENCH_BLKID_DETAIL "(libblkid ${BLKID_VERSION})")
  endif()
endif()

# --- MPI ------------------------------------------------------------------------------------------------------
if(MLBENCH_ENABLE_MPI)
  find_package(MPI COMPONENTS CXX QUIET)
  if(MPI_CXX_FOUND)
    set(MLBENCH_HAS_MPI 1)
    set(MLBENCH_MPI_DETAIL "(MPI ${MPI_CXX_VERSION})")
  endif()
endif()
