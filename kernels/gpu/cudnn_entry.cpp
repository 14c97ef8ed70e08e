// The cuDNN entry points gpu.conv calls, each forwarding to the function of the same name in libcudnn.so.N,
// which is loaded at the first call (lazy_library.hpp) instead of being linked: `mlbench` then starts on a
// host without cuDNN, where gpu.conv is skipped (cudnn_libs.hpp cudnn_load_problem says why). The signatures
// are cuDNN's own (cudnn_graph.h, cudnn_ops.h, cudnn_cnn.h); a mismatch fails to compile against them.
#include <cudnn.h>
#include <fmt/format.h>

#include "kernels/gpu/lazy_library.hpp"

namespace {

mlbench::gpu::LazyLibrary& cudnn_library() {
  static mlbench::gpu::LazyLibrary lib(fmt::format("libcudnn.so.{}", CUDNN_MAJOR),
                                       fmt::format("cuDNN {}", CUDNN_MAJOR));
  return lib;
}

}  // namespace

// The deprecated legacy convolution API is what gpu.conv measures (conv_probe.cpp says why).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#define MLBENCH_FORWARD(ret, name, params, args)                                             \
  extern "C" ret name params {                                                               \
    static const auto fn = reinterpret_cast<decltype(&name)>(cudnn_library().symbol(#name)); \
    return fn args;                                                                          \
  }
MLBENCH_FORWARD(cudnnStatus_t, cudnnCreate, (cudnnHandle_t * handle), (handle))
MLBENCH_FORWARD(cudnnStatus_t, cudnnDestroy, (cudnnHandle_t handle), (handle))
MLBENCH_FORWARD(cudnnStatus_t, cudnnSetStream, (cudnnHandle_t handle, cudaStream_t streamId),
                (handle, streamId))
MLBENCH_FORWARD(size_t, cudnnGetVersion, (void), ())
MLBENCH_FORWARD(const char*, cudnnGetErrorString, (cudnnStatus_t status), (status))
MLBENCH_FORWARD(cudnnStatus_t, cudnnCreateTensorDescriptor, (cudnnTensorDescriptor_t * tensorDesc),
                (tensorDesc))
MLBENCH_FORWARD(cudnnStatus_t, cudnnDestroyTensorDescriptor, (cudnnTensorDescriptor_t tensorDesc),
                (tensorDesc))
MLBENCH_FORWARD(cudnnStatus_t, cudnnSetTensor4dDescriptor,
                (cudnnTensorDescriptor_t tensorDesc, cudnnTensorFormat_t format, cudnnDataType_t dataType,
                 int n, int c, int h, int w),
                (tensorDesc, format, dataType, n, c, h, w))
MLBENCH_FORWARD(cudnnStatus_t, cudnnCreateFilterDescriptor, (cudnnFilterDescriptor_t * filterDesc),
                (filterDesc))
MLBENCH_FORWARD(cudnnStatus_t, cudnnDestroyFilterDescriptor, (cudnnFilterDescriptor_t filterDesc),
                (filterDesc))
MLBENCH_FORWARD(cudnnStatus_t, cudnnSetFilter4dDescriptor,
                (cudnnFilterDescriptor_t filterDesc, cudnnDataType_t dataType, cudnnTensorFormat_t format,
                 int k, int c, int h, int w),
                (filterDesc, dataType, format, k, c, h, w))
MLBENCH_FORWARD(cudnnStatus_t, cudnnCreateConvolutionDescriptor, (cudnnConvolutionDescriptor_t * convDesc),
                (convDesc))
MLBENCH_FORWARD(cudnnStatus_t, cudnnDestroyConvolutionDescriptor, (cudnnConvolutionDescriptor_t convDesc),
                (convDesc))
MLBENCH_FORWARD(cudnnStatus_t, cudnnSetConvolution2dDescriptor,
                (cudnnConvolutionDescriptor_t convDesc, int pad_h, int pad_w, int u, int v, int dilation_h,
                 int dilation_w, cudnnConvolutionMode_t mode, cudnnDataType_t computeType),
                (convDesc, pad_h, pad_w, u, v, dilation_h, dilation_w, mode, computeType))
MLBENCH_FORWARD(cudnnStatus_t, cudnnGetConvolution2dForwardOutputDim,
                (const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t inputTensorDesc,
                 const cudnnFilterDescriptor_t filterDesc, int* n, int* c, int* h, int* w),
                (convDesc, inputTensorDesc, filterDesc, n, c, h, w))
MLBENCH_FORWARD(cudnnStatus_t, cudnnSetConvolutionMathType,
                (cudnnConvolutionDescriptor_t convDesc, cudnnMathType_t mathType), (convDesc, mathType))
MLBENCH_FORWARD(cudnnStatus_t, cudnnFindConvolutionForwardAlgorithmEx,
                (cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const void* x,
                 const cudnnFilterDescriptor_t wDesc, const void* w,
                 const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t yDesc, void* y,
                 const int requestedAlgoCount, int* returnedAlgoCount,
                 cudnnConvolutionFwdAlgoPerf_t* perfResults, void* workSpace, size_t workSpaceSizeInBytes),
                (handle, xDesc, x, wDesc, w, convDesc, yDesc, y, requestedAlgoCount, returnedAlgoCount,
                 perfResults, workSpace, workSpaceSizeInBytes))
MLBENCH_FORWARD(cudnnStatus_t, cudnnFindConvolutionBackwardDataAlgorithmEx,
                (cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc, const void* w,
                 const cudnnTensorDescriptor_t dyDesc, const void* dy,
                 const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc, void* dx,
                 const int requestedAlgoCount, int* returnedAlgoCount,
                 cudnnConvolutionBwdDataAlgoPerf_t* perfResults, void* workSpace,
                 size_t workSpaceSizeInBytes),
                (handle, wDesc, w, dyDesc, dy, convDesc, dxDesc, dx, requestedAlgoCount, returnedAlgoCount,
                 perfResults, workSpace, workSpaceSizeInBytes))
MLBENCH_FORWARD(cudnnStatus_t, cudnnFindConvolutionBackwardFilterAlgorithmEx,
                (cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const void* x,
                 const cudnnTensorDescriptor_t dyDesc, const void* y,
                 const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t dwDesc, void* dw,
                 const int requestedAlgoCount, int* returnedAlgoCount,
                 cudnnConvolutionBwdFilterAlgoPerf_t* perfResults, void* workSpace,
                 size_t workSpaceSizeInBytes),
                (handle, xDesc, x, dyDesc, y, convDesc, dwDesc, dw, requestedAlgoCount, returnedAlgoCount,
                 perfResults, workSpace, workSpaceSizeInBytes))
MLBENCH_FORWARD(cudnnStatus_t, cudnnConvolutionForward,
                (cudnnHandle_t handle, const void* alpha, const cudnnTensorDescriptor_t xDesc, const void* x,
                 const cudnnFilterDescriptor_t wDesc, const void* w,
                 const cudnnConvolutionDescriptor_t convDesc, cudnnConvolutionFwdAlgo_t algo, void* workSpace,
                 size_t workSpaceSizeInBytes, const void* beta, const cudnnTensorDescriptor_t yDesc, void* y),
                (handle, alpha, xDesc, x, wDesc, w, convDesc, algo, workSpace, workSpaceSizeInBytes, beta,
                 yDesc, y))
MLBENCH_FORWARD(cudnnStatus_t, cudnnConvolutionBackwardData,
                (cudnnHandle_t handle, const void* alpha, const cudnnFilterDescriptor_t wDesc, const void* w,
                 const cudnnTensorDescriptor_t dyDesc, const void* dy,
                 const cudnnConvolutionDescriptor_t convDesc, cudnnConvolutionBwdDataAlgo_t algo,
                 void* workSpace, size_t workSpaceSizeInBytes, const void* beta,
                 const cudnnTensorDescriptor_t dxDesc, void* dx),
                (handle, alpha, wDesc, w, dyDesc, dy, convDesc, algo, workSpace, workSpaceSizeInBytes, beta,
                 dxDesc, dx))
MLBENCH_FORWARD(cudnnStatus_t, cudnnConvolutionBackwardFilter,
                (cudnnHandle_t handle, const void* alpha, const cudnnTensorDescriptor_t xDesc, const void* x,
                 const cudnnTensorDescriptor_t dyDesc, const void* dy,
                 const cudnnConvolutionDescriptor_t convDesc, cudnnConvolutionBwdFilterAlgo_t algo,
                 void* workSpace, size_t workSpaceSizeInBytes, const void* beta,
                 const cudnnFilterDescriptor_t dwDesc, void* dw),
                (handle, alpha, xDesc, x, dyDesc, dy, convDesc, algo, workSpace, workSpaceSizeInBytes, beta,
                 dwDesc, dw))
#undef MLBENCH_FORWARD
#pragma GCC diagnostic pop
