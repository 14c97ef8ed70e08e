// Status checks for the CUDA runtime and NCCL calls of the collectives probe: throw mlbench::Error with the
// call, file:line and the library's error name and message (destructors ignore statuses instead).
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "bench/error.hpp"

#define MLBENCH_NET_CUDA_CHECK(call)                                                               \
  do {                                                                                             \
    cudaError_t mlbench_st_ = (call);                                                              \
    if (mlbench_st_ != cudaSuccess) {                                                              \
      ::mlbench::throw_call_error(                                                                 \
          #call, __FILE__, __LINE__,                                                               \
          fmt::format("{} ({})", cudaGetErrorName(mlbench_st_), cudaGetErrorString(mlbench_st_))); \
    }                                                                                              \
  } while (0)

// ncclInProgress is not an error on a non-blocking communicator: completion is awaited separately.
#define MLBENCH_NCCL_CHECK(call)                                                               \
  do {                                                                                         \
    ncclResult_t mlbench_st_ = (call);                                                         \
    if (mlbench_st_ != ncclSuccess && mlbench_st_ != ncclInProgress) {                         \
      ::mlbench::throw_call_error(                                                             \
          #call, __FILE__, __LINE__,                                                           \
          fmt::format("{} ({})", ncclGetErrorString(mlbench_st_), ncclGetLastError(nullptr))); \
    }                                                                                          \
  } while (0)
