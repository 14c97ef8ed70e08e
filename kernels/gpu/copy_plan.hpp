// Host-side plan of gpu.copy (host<->device and peer copies): directions, paths, the option table, case
// planning, bytes per case and the PCIe peak. Plain C++ (no CUDA) so the CPU tests cover it; copy_plan.cpp
// implements it, copy_probe.cpp runs what it decides.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/gpu/plan.hpp"

namespace mlbench::gpu {

enum class CopyDirection { h2d, d2h, bidir };
inline constexpr EnumName<CopyDirection> kCopyDirectionNames[] = {
    {CopyDirection::h2d, "h2d"}, {CopyDirection::d2h, "d2h"}, {CopyDirection::bidir, "bidir"}};
static_assert(names_cover(kCopyDirectionNames));
inline std::string_view to_string(CopyDirection d) { return name_of(kCopyDirectionNames, d); }

enum class CopyPath { copy_engine, sm_kernel };
inline constexpr EnumName<CopyPath> kCopyPathNames[] = {{CopyPath::copy_engine, "copy_engine"},
                                                        {CopyPath::sm_kernel, "sm_kernel"}};
static_assert(names_cover(kCopyPathNames));
inline std::string_view to_string(CopyPath p) { return name_of(kCopyPathNames, p); }

struct CopyCase {
  std::string kind;  // "host" (one GPU), "all" (every selected GPU at once), "p2p" (matrix)
  std::vector<int> devices;
  CopyDirection direction = CopyDirection::h2d;
  bool pinned = true;
  CopyPath path = CopyPath::copy_engine;
  std::uint64_t bytes = 0;
};
std::span<const OptionSpec> copy_options();  // directions, memory, paths, size, devices
void validate_copy_options(const Json& options, const OptionSource& source = {});
std::vector<CopyCase> plan_copy(const Json& options, Profile profile, const std::vector<DeviceFacts>& devices,
                                const OptionSource& source = {});
// Bytes a copy case moves per repetition and device (bidirectional moves the buffer both ways).
double copy_bytes(const CopyCase& c);
// Per-direction PCIe peak of a GPU from its inventory entry: the link's maximum (sysfs max_link_*, else
// NVML's max generation and width), since an idle GPU's link often trains down to Gen1 until it is loaded;
// nullopt when no maximum is known.
std::optional<double> pcie_peak(const Json& gpu);

}  // namespace mlbench::gpu
