// Host entry points of the CUDA kernels in gpu_kernels.cu. Each launches on `stream` and returns the launch
// status (cudaGetLastError) for the caller to check with MLBENCH_CHECK_CUDA.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "kernels/gpu/kinds.hpp"

namespace mlbench::gpu {

// Uniform random values in [-1, 1) (int8: integers in [-64, 64]) from a counter hash: full-entropy inputs.
cudaError_t fill_random(void* dst, Storage s, std::size_t count, std::uint64_t seed, int grid,
                        cudaStream_t stream);
// One value everywhere (FP32), e.g. the FP8 scale factors.
cudaError_t fill_f32(float* dst, float value, std::size_t count, cudaStream_t stream);

// gpu.hbm: three FP64 arrays of n elements (n even), 16-byte (double2) accesses, grid-stride loops.
struct HbmArrays {
  double* a = nullptr;
  double* b = nullptr;
  double* c = nullptr;
  double* partial = nullptr;  // one per block: dot and read sums
  std::size_t n = 0;
  int grid = 0;
};
inline constexpr int kHbmBlock = 256;
// Resident blocks per SM of kernel `k` at kHbmBlock threads (its own occupancy: the kernels differ in
// registers, so one kernel's figure would give another a second, partial wave); hbm_plan.hpp resident_grid
// turns it into the grid.
cudaError_t hbm_blocks_per_sm(HbmKernel k, int* blocks_per_sm);
cudaError_t hbm_init(const HbmArrays& arr, cudaStream_t stream);
cudaError_t hbm_launch(HbmKernel k, const HbmArrays& arr, cudaStream_t stream);
// Elements of x[0..n) with |x - expected| > tol·|expected|, counted on the device into *count (device
// memory).
cudaError_t count_mismatches(const double* x, std::size_t n, double expected, double tol,
                             unsigned long long* count, cudaStream_t stream);

// gpu.copy: SM copy kernel (16-byte loads/stores; src or dst may be mapped pinned host memory).
cudaError_t sm_copy(void* dst, const void* src, std::size_t bytes, int grid, cudaStream_t stream);
// Pattern fill and check of 64-bit words on the device (kinds.hpp pattern_word).
cudaError_t fill_pattern_device(std::uint64_t* dst, std::size_t words, std::uint64_t seed, int grid,
                                cudaStream_t stream);
cudaError_t count_pattern_mismatches_device(const std::uint64_t* data, std::size_t words, std::uint64_t seed,
                                            unsigned long long* count, int grid, cudaStream_t stream);

}  // namespace mlbench::gpu
