// Host-side plan of gpu.hbm (BabelStream-style kernels): the kernel table, bytes moved per launch, the values
// a run must leave in the arrays, the default array size, the option table and case planning. Plain C++ (no
// CUDA) so the CPU tests cover it; hbm_plan.cpp implements it, hbm_probe.cpp runs what it decides.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/gpu/plan.hpp"

namespace mlbench::gpu {

struct HbmKernelSpec {
  HbmKernel kernel;
  std::string_view name;
  int reads, writes;  // arrays read and written per element
};
const std::vector<HbmKernelSpec>& hbm_kernel_table();
const HbmKernelSpec& hbm_kernel_spec(std::string_view name);  // UsageError

inline constexpr int kHbmArrays = 3;
inline constexpr std::uint64_t kHbmElementBytes = 8;  // FP64, BabelStream's default

// Bytes moved by one launch over arrays of `array_bytes` each (cudaMemcpy D2D counts read + write).
double hbm_bytes(const HbmKernelSpec& k, std::uint64_t array_bytes);

// The values a, b, c hold (and the dot/read sum) after `launches` launches of one kernel from the initial
// values; the device run is checked against these.
struct HbmValues {
  double a = kHbmInitA, b = kHbmInitB, c = kHbmInitC;
  double sum = 0;  // dot: Σ a·b; read: Σ a — over all elements
};
HbmValues hbm_expected(HbmKernel k, std::int64_t launches, std::uint64_t elements);

struct HbmCase {
  int device = 0;
  const HbmKernelSpec* kernel = nullptr;
  std::uint64_t array_bytes = 0;
};

// Default array size: free/8 clamped to [4·L2, cap], a multiple of 1 MiB; the cap is 1 GiB in quick, 2 GiB
// otherwise.
// The grid of a grid-stride kernel that fills the GPU in exactly one wave: SMs × the kernel's own resident
// blocks per SM (at least one each). A grid sized from another kernel's occupancy would run
// ⌈grid / (SMs × blocks_per_sm)⌉ waves, the last one partial.
int resident_grid(int sms, int blocks_per_sm);

std::uint64_t default_hbm_array_bytes(const DeviceFacts& d, Profile profile);
std::span<const OptionSpec> hbm_options();  // kernels, size, devices
void validate_hbm_options(const Json& options, const OptionSource& source = {});
std::vector<HbmCase> plan_hbm(const Json& options, Profile profile, const std::vector<DeviceFacts>& devices,
                              const OptionSource& source = {});

}  // namespace mlbench::gpu
