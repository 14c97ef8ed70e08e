#include "network/nccl_kernels.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

#include "kernels/gpu/cuda_util.hpp"

namespace mlbench::net {
namespace {

template <typename T>
__device__ T from_int(std::int64_t v) {
  if constexpr (std::is_same_v<T, __half>) {
    return __float2half(static_cast<float>(v));
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __float2bfloat16(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

template <typename T>
__device__ float to_float(T v) {
  if constexpr (std::is_same_v<T, __half>) {
    return __half2float(v);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __bfloat162float(v);
  } else {
    return static_cast<float>(v);
  }
}

template <typename T>
__global__ void fill_kernel(T* buf, std::uint64_t n, bool sentinel, int rank, int ranks,
                            std::int64_t modulus) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    buf[i] = from_int<T>(sentinel ? -1 : input_value(rank, i, ranks, modulus));
  }
}

template <typename T>
__global__ void check_kernel(const T* buf, std::uint64_t n, Collective op, std::uint64_t count, int rank,
                             int ranks, std::int64_t modulus, unsigned long long* wrong) {
  unsigned long long local = 0;
  for (std::uint64_t j = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; j < n;
       j += std::uint64_t{gridDim.x} * blockDim.x) {
    std::int64_t e = expected_value(op, j, count, rank, ranks, modulus);
    if (e >= 0 && to_float(buf[j]) != static_cast<float>(e)) ++local;
  }
  if (local != 0) atomicAdd(wrong, local);
}

constexpr int kThreads = 256;

unsigned grid_for(std::uint64_t n) {
  std::uint64_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 4096 ? (blocks == 0 ? 1 : blocks) : 4096);
}

template <typename F>
void dispatch(DataType t, F&& f) {
  switch (t) {
    case DataType::float32:
      f(float{});
      break;
    case DataType::bf16:
      f(__nv_bfloat16{});
      break;
    case DataType::half:
      f(__half{});
      break;
    case DataType::int8:
      f(std::int8_t{});
      break;
  }
}

}  // namespace

void fill_sentinel(DataType t, void* buf, std::uint64_t n, cudaStream_t stream) {
  dispatch(t, [&](auto tag) {
    using T = decltype(tag);
    fill_kernel<T><<<grid_for(n), kThreads, 0, stream>>>(static_cast<T*>(buf), n, true, 0, 1, 1);
  });
  MLBENCH_CHECK_CUDA(cudaGetLastError());
}

void fill_input(DataType t, void* buf, std::uint64_t n, int rank, int ranks, std::int64_t modulus,
                cudaStream_t stream) {
  dispatch(t, [&](auto tag) {
    using T = decltype(tag);
    fill_kernel<T>
        <<<grid_for(n), kThreads, 0, stream>>>(static_cast<T*>(buf), n, false, rank, ranks, modulus);
  });
  MLBENCH_CHECK_CUDA(cudaGetLastError());
}

void count_wrong(DataType t, const void* buf, std::uint64_t n, Collective op, std::uint64_t count, int rank,
                 int ranks, std::int64_t modulus, unsigned long long* wrong, cudaStream_t stream) {
  dispatch(t, [&](auto tag) {
    using T = decltype(tag);
    check_kernel<T><<<grid_for(n), kThreads, 0, stream>>>(static_cast<const T*>(buf), n, op, count, rank,
                                                          ranks, modulus, wrong);
  });
  MLBENCH_CHECK_CUDA(cudaGetLastError());
}

}  // namespace mlbench::net
