// Small enums and the copy pattern shared by host code and the .cu kernels (kept free of heavy headers so
// nvcc compiles the kernels quickly).
#pragma once

#include <cstdint>

#include "kernels/gpu/hd.hpp"

namespace mlbench::gpu {

// The STREAM-family kernels of gpu.hbm (plus cudaMemcpy device-to-device).
enum class HbmKernel { copy, scale, add, triad, dot, nstream, read, write, memcpy };
// The values the kernels start from and use (BabelStream's): the arrays a, b, c are initialised to these, the
// scale/triad/nstream scalar and the write kernel's value. hbm_expected (hbm_plan.hpp) checks a run with
// them.
inline constexpr double kHbmInitA = 0.1, kHbmInitB = 0.2, kHbmInitC = 0.3;
inline constexpr double kHbmScalar = 0.4;
inline constexpr double kHbmWriteValue = 0.5;

// Element storage of GEMM/convolution operands: fp32/tf32 (float), fp16, bf16, FP8 E4M3, int8, int32.
enum class Storage { f32, f16, bf16, e4m3, i8, i32 };

// 64-bit words a copy moves: a hash (splitmix64) of the word index and a seed, identical on host and device.
MLBENCH_HD inline std::uint64_t pattern_word(std::uint64_t i, std::uint64_t seed) {
  std::uint64_t z = i + seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace mlbench::gpu
