// Status check for the NCCL calls of the collectives probe: throws mlbench::Error with the call, file:line
// and NCCL's error name and message (destructors ignore statuses instead). CUDA runtime calls use the one
// CUDA check, MLBENCH_CHECK_CUDA (kernels/gpu/cuda_util.hpp).
#pragma once

#include <nccl.h>

#include <fmt/format.h>

#include "base/error.hpp"

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
