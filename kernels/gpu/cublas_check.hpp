// The cuBLASLt status check: throws mlbench::Error naming the call, file:line and cuBLASLt's status name and
// message. Apart from cuda_util.hpp so the CUDA base (mlbench_cuda) needs no cuBLASLt.
#pragma once

#include <cublasLt.h>

#include <fmt/format.h>

#include "base/error.hpp"

#define MLBENCH_CHECK_CUBLAS(call)                                                                  \
  do {                                                                                              \
    cublasStatus_t mlbench_cublas_rc_ = (call);                                                     \
    if (mlbench_cublas_rc_ != CUBLAS_STATUS_SUCCESS) {                                              \
      ::mlbench::throw_call_error(#call, __FILE__, __LINE__,                                        \
                                  fmt::format("{} ({})", cublasLtGetStatusName(mlbench_cublas_rc_), \
                                              cublasLtGetStatusString(mlbench_cublas_rc_)));        \
    }                                                                                               \
  } while (0)
