// The burn-in's HBM pattern test (burnin/gpu_phases.cpp, phase "hbm"): a region of device memory covering a
// share of the free memory, written pass after pass with the patterns of hbm_pattern_math.hpp and read back
// word by word on the device. hbm_pattern.cpp allocates the region, hbm_pattern.cu holds the kernels.
//
// The region is one cudaMalloc when one fits, else chunks: a failed allocation (cudaErrorMemoryAllocation,
// e.g. a fragmented heap or another process's memory) halves the chunk size, down to kHbmMinChunk, until the
// target is held or nothing of that size is left. Chunks are whole multiples of kHbmChunkAlign (16-byte
// vector accesses); word indices run on across chunks, so the patterns see one region.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/gpu/hbm_pattern_math.hpp"

namespace mlbench::gpu {

inline constexpr std::uint64_t kHbmChunkAlign = 2ull << 20;
inline constexpr std::uint64_t kHbmMinChunk = 64ull << 20;

// One chunk of the region as the kernels see it.
struct HbmChunk {
  std::uint64_t* words = nullptr;
  std::uint64_t count = 0;       // 64-bit words, even
  std::uint64_t first_word = 0;  // index of words[0] in the region
};

// Launch-status entry points of hbm_pattern.cu (each returns cudaGetLastError after its launch).
// Blocks for the pattern kernels on a device of `sms` SMs: resident blocks per SM × SMs.
cudaError_t hbm_pattern_grid(int sms, int* grid);
cudaError_t hbm_pattern_write(const HbmChunk& chunk, const HbmPass& pass, int grid, cudaStream_t stream);
// Adds the chunk's bad words to *counters (device memory, zeroed by the caller before the first chunk).
cudaError_t hbm_pattern_check(const HbmChunk& chunk, const HbmPass& pass, HbmPatternCounters* counters,
                              int grid, cudaStream_t stream);

// The tested region on one device: allocated on construction, freed on destruction (on that device).
class HbmPatternRegion {
 public:
  // About `bytes` (rounded down to kHbmChunkAlign) on `device`; throws Error on any CUDA error other than
  // running out of memory, and when not even one kHbmMinChunk could be allocated.
  HbmPatternRegion(int device, std::uint64_t bytes);
  ~HbmPatternRegion();
  HbmPatternRegion(const HbmPatternRegion&) = delete;
  HbmPatternRegion& operator=(const HbmPatternRegion&) = delete;

  const std::vector<HbmChunk>& chunks() const { return chunks_; }
  std::uint64_t bytes() const { return bytes_; }

 private:
  int device_ = 0;
  std::vector<HbmChunk> chunks_;
  std::uint64_t bytes_ = 0;
};

}  // namespace mlbench::gpu
