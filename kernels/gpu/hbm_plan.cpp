// gpu.hbm's plan: the BabelStream kernel table and byte counts, the values a run must leave, the array size,
// and its options.
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/units.hpp"
#include "kernels/gpu/hbm_plan.hpp"

namespace mlbench::gpu {

const std::vector<HbmKernelSpec>& hbm_kernel_table() {
  // BabelStream byte weights: arrays read + written per element.
  static const std::vector<HbmKernelSpec> table = {
      {HbmKernel::copy, "copy", 1, 1},     {HbmKernel::scale, "scale", 1, 1},
      {HbmKernel::add, "add", 2, 1},       {HbmKernel::triad, "triad", 2, 1},
      {HbmKernel::dot, "dot", 2, 0},       {HbmKernel::nstream, "nstream", 3, 1},
      {HbmKernel::read, "read", 1, 0},     {HbmKernel::write, "write", 0, 1},
      {HbmKernel::memcpy, "memcpy", 1, 1},
  };
  return table;
}

const HbmKernelSpec& hbm_kernel_spec(std::string_view name) {
  for (const auto& k : hbm_kernel_table()) {
    if (k.name == name) return k;
  }
  std::vector<std::string_view> names;
  for (const auto& k : hbm_kernel_table()) names.push_back(k.name);
  throw UsageError(fmt::format("unknown HBM kernel '{}' (use {})", name, fmt::join(names, ", ")));
}

double hbm_bytes(const HbmKernelSpec& k, std::uint64_t array_bytes) {
  return static_cast<double>(k.reads + k.writes) * static_cast<double>(array_bytes);
}

HbmValues hbm_expected(HbmKernel k, std::int64_t launches, std::uint64_t elements) {
  HbmValues v;
  const double n = static_cast<double>(elements);
  if (launches <= 0) return v;
  switch (k) {
    case HbmKernel::copy:
    case HbmKernel::memcpy:
      v.c = v.a;
      break;
    case HbmKernel::scale:
      v.b = kHbmScalar * v.c;
      break;
    case HbmKernel::add:
      v.c = v.a + v.b;
      break;
    case HbmKernel::triad:
      v.a = v.b + kHbmScalar * v.c;
      break;
    case HbmKernel::nstream:
      for (std::int64_t i = 0; i < launches; ++i) v.a += v.b + kHbmScalar * v.c;
      break;
    case HbmKernel::dot:
      v.sum = n * v.a * v.b;
      break;
    case HbmKernel::read:
      v.sum = n * v.a;
      break;
    case HbmKernel::write:
      v.a = kHbmWriteValue;
      break;
  }
  return v;
}

int resident_grid(int sms, int blocks_per_sm) { return std::max(sms, 1) * std::max(blocks_per_sm, 1); }

std::uint64_t default_hbm_array_bytes(const DeviceFacts& d, Profile profile) {
  const std::uint64_t cap = profile == Profile::quick ? (1ull << 30) : (2ull << 30);
  const std::uint64_t floor = std::max<std::uint64_t>(4 * d.l2_bytes, 64ull << 20);
  auto bytes = std::clamp(d.free_bytes / 8, floor, std::max(cap, floor));
  return bytes / (1ull << 20) * (1ull << 20);
}

namespace {

constexpr OptionSpec kOptions[] = {
    {.name = "kernels",
     .type = OptionType::choices,
     .def = "all",
     .choices =
         [] {
           std::vector<std::string_view> names;
           for (const auto& k : hbm_kernel_table()) names.push_back(k.name);
           return names;
         },
     .help = "Kernels"},
    {.name = "size",
     .type = OptionType::size,
     .def = "free/8 within [4x L2, 2 GiB]; quick: within [4x L2, 1 GiB]",
     .unit = "B",
     .help = "Bytes per array (at least 1M, a multiple of 16), e.g. 2G"},
    kDevicesOption,
};

struct HbmPlanOptions {
  std::vector<const HbmKernelSpec*> kernels;
  std::optional<std::uint64_t> size;
};

HbmPlanOptions parse_hbm_options(const Json& options, const OptionSource& source) {
  const auto values = parse_options(kOptions, options, source);
  HbmPlanOptions out;
  if (auto names = values.given<std::vector<std::string>>("kernels")) {
    for (const auto& k : *names) out.kernels.push_back(&hbm_kernel_spec(k));
  } else {
    for (const auto& k : hbm_kernel_table()) out.kernels.push_back(&k);
  }
  out.size = values.given<std::uint64_t>("size");
  if (out.size && (*out.size < (1ull << 20) || *out.size % 16 != 0)) {
    throw UsageError(fmt::format("{} {}: each array must be at least 1 MiB and a multiple of 16 bytes",
                                 values.name("size"), *out.size));
  }
  return out;
}

}  // namespace

std::span<const OptionSpec> hbm_options() { return kOptions; }

void validate_hbm_options(const Json& options, const OptionSource& source) {
  parse_hbm_options(options, source);
}

std::vector<HbmCase> plan_hbm(const Json& options, Profile profile, const std::vector<DeviceFacts>& devices,
                              const OptionSource& source) {
  auto opts = parse_hbm_options(options, source);
  std::vector<HbmCase> out;
  for (int dev : select_devices(options, profile, static_cast<int>(devices.size()), source)) {
    const auto& d = devices.at(dev);
    auto bytes = opts.size ? *opts.size : default_hbm_array_bytes(d, profile);
    check_fits(kHbmArrays * bytes, d,
               fmt::format("gpu.hbm with {} arrays of {}", kHbmArrays, format_bytes(bytes)),
               fmt::format("use a smaller {}", source.name("size")));
    for (const auto* k : opts.kernels) out.push_back({dev, k, bytes});
  }
  return out;
}

}  // namespace mlbench::gpu
