// Kernels of the burn-in's HBM pattern test (hbm_pattern.hpp): write one pass's pattern over a chunk, and
// read the chunk back, counting every word that differs from the pattern.
//
// Both are grid-stride loops over pairs of 64-bit words, 16 bytes (ulonglong2) per thread access, over a grid
// of (resident blocks per SM × SMs). The check keeps its count in a register and adds it to the chunk's tally
// with one atomicAdd per thread that found any; a bad word also claims one of the first
// kHbmRecordedBadWords slots (hbm_pattern_math.hpp hbm_check_word). The expected words come from the same
// MLBENCH_HD function the CPU tests call.
// Checked with nvcc 13.0 `-Xptxas -v` for sm_80, sm_90 and sm_100: both kernels 0 bytes stack frame, 0 spill
// stores/loads (the build keeps -warn-spills on); registers: write 14 / 16 / 17, check 29 / 30 / 32. The PTX
// (sm_90) shows the loops as ld.global.nc.v2.u64 and st.global.v2.u64: 16-byte accesses.
#include "kernels/gpu/hbm_pattern.hpp"

namespace mlbench::gpu {
namespace {

constexpr int kPatternBlock = 256;

__global__ void __launch_bounds__(kPatternBlock)
    hbm_pattern_write_kernel(ulonglong2* __restrict__ dst, std::uint64_t pairs, std::uint64_t first_word,
                             HbmPass pass) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < pairs;
       i += stride) {
    const std::uint64_t word = first_word + 2 * i;
    dst[i] = make_ulonglong2(hbm_pattern_word(pass, word), hbm_pattern_word(pass, word + 1));
  }
}

__global__ void __launch_bounds__(kPatternBlock)
    hbm_pattern_check_kernel(const ulonglong2* __restrict__ src, std::uint64_t pairs,
                             std::uint64_t first_word, HbmPass pass, HbmPatternCounters* counters) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  unsigned long long bad = 0;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < pairs;
       i += stride) {
    const ulonglong2 v = src[i];
    const std::uint64_t word = first_word + 2 * i;
    const auto address = reinterpret_cast<std::uint64_t>(src + i);
    bad += hbm_check_word(pass, word, address, v.x, counters);
    bad += hbm_check_word(pass, word + 1, address + 8, v.y, counters);
  }
  if (bad) atomicAdd(&counters->bad_words, bad);
}

}  // namespace

cudaError_t hbm_pattern_grid(int sms, int* grid) {
  int per_sm = 0;
  const cudaError_t rc =
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, hbm_pattern_check_kernel, kPatternBlock, 0);
  if (rc != cudaSuccess) return rc;
  *grid = sms * (per_sm > 0 ? per_sm : 1);
  return cudaSuccess;
}

cudaError_t hbm_pattern_write(const HbmChunk& chunk, const HbmPass& pass, int grid, cudaStream_t stream) {
  hbm_pattern_write_kernel<<<grid, kPatternBlock, 0, stream>>>(reinterpret_cast<ulonglong2*>(chunk.words),
                                                               chunk.count / 2, chunk.first_word, pass);
  return cudaGetLastError();
}

cudaError_t hbm_pattern_check(const HbmChunk& chunk, const HbmPass& pass, HbmPatternCounters* counters,
                              int grid, cudaStream_t stream) {
  hbm_pattern_check_kernel<<<grid, kPatternBlock, 0, stream>>>(
      reinterpret_cast<const ulonglong2*>(chunk.words), chunk.count / 2, chunk.first_word, pass, counters);
  return cudaGetLastError();
}

}  // namespace mlbench::gpu
