// The HBM pattern test's region: chunked allocation and release (hbm_pattern.hpp says why and how).
#include "kernels/gpu/hbm_pattern.hpp"

#include <fmt/format.h>

#include "base/units.hpp"
#include "kernels/gpu/cuda_util.hpp"

namespace mlbench::gpu {

HbmPatternRegion::HbmPatternRegion(int device, std::uint64_t bytes) : device_(device) {
  DeviceGuard guard(device);
  const std::uint64_t target = bytes / kHbmChunkAlign * kHbmChunkAlign;
  std::uint64_t chunk = target;
  try {
    while (bytes_ < target && chunk >= kHbmMinChunk) {
      const std::uint64_t size = std::min(chunk, target - bytes_);
      void* p = nullptr;
      const cudaError_t rc = cudaMalloc(&p, size);
      if (rc == cudaErrorMemoryAllocation) {
        cudaGetLastError();  // not sticky, but the runtime keeps it as the last error: clear it
        chunk = chunk / 2 / kHbmChunkAlign * kHbmChunkAlign;
        continue;
      }
      MLBENCH_CHECK_CUDA(rc);
      chunks_.push_back(HbmChunk{static_cast<std::uint64_t*>(p), size / 8, bytes_ / 8});
      bytes_ += size;
    }
  } catch (...) {
    for (const auto& c : chunks_) cudaFree(c.words);
    throw;
  }
  if (chunks_.empty()) {
    throw Error(fmt::format("GPU {}: could not allocate even {} of device memory for the pattern test",
                            device, format_bytes(static_cast<double>(kHbmMinChunk))));
  }
}

HbmPatternRegion::~HbmPatternRegion() {
  int previous = 0;
  const bool switched =
      cudaGetDevice(&previous) == cudaSuccess && previous != device_ && cudaSetDevice(device_) == cudaSuccess;
  for (const auto& c : chunks_) cudaFree(c.words);
  if (switched) cudaSetDevice(previous);
}

}  // namespace mlbench::gpu
