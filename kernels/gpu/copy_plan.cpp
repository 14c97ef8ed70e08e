// gpu.copy's plan: host-device and peer-to-peer cases, the bytes a case moves, the PCIe peak, and its
// options.
#include <array>

#include <fmt/format.h>

#include "base/units.hpp"
#include "bench/sysinfo.hpp"
#include "kernels/gpu/copy_plan.hpp"

namespace mlbench::gpu {

namespace {

// The --paths values, short for the CopyPath names reports use.
constexpr EnumName<CopyPath> kPathOptionNames[] = {{CopyPath::copy_engine, "ce"},
                                                   {CopyPath::sm_kernel, "sm"}};
static_assert(names_cover(kPathOptionNames));

constexpr OptionSpec kOptions[] = {
    {.name = "directions",
     .type = OptionType::choices,
     .def = "h2d,d2h,bidir",
     .choices = [] { return choices_of(kCopyDirectionNames); },
     .help = "Copy directions"},
    {.name = "memory",
     .type = OptionType::choices,
     .def = "pinned,pageable",
     .choices =
         [] {
           return std::vector<std::string_view>{"pinned", "pageable"};
         },
     .help = "Host memory"},
    {.name = "paths",
     .type = OptionType::choices,
     .def = "ce,sm",
     .choices = [] { return choices_of(kPathOptionNames); },
     .help = "ce (copy engine), sm (SM kernel)"},
    {.name = "size",
     .type = OptionType::size,
     .def = "256M; full: 1G",
     .unit = "B",
     .help = "Bytes per copy (at least 1M, a multiple of 16), e.g. 256M"},
    kDevicesOption,
};

struct CopyPlanOptions {
  std::vector<CopyDirection> directions;
  std::vector<bool> pinned;
  std::vector<CopyPath> paths;
  std::optional<std::uint64_t> size;
};

CopyPlanOptions parse_copy_options(const Json& options, const OptionSource& source) {
  const auto values = parse_options(kOptions, options, source);
  CopyPlanOptions out;
  for (const auto& d : values.get<std::vector<std::string>>("directions"))
    out.directions.push_back(*value_of(kCopyDirectionNames, d));
  for (const auto& m : values.get<std::vector<std::string>>("memory")) out.pinned.push_back(m == "pinned");
  for (const auto& p : values.get<std::vector<std::string>>("paths"))
    out.paths.push_back(*value_of(kPathOptionNames, p));
  out.size = values.given<std::uint64_t>("size");
  if (out.size && (*out.size < (1ull << 20) || *out.size % 16 != 0)) {
    throw UsageError(fmt::format("{} {}: copies must be at least 1 MiB and a multiple of 16 bytes",
                                 values.name("size"), *out.size));
  }
  return out;
}

}  // namespace

std::span<const OptionSpec> copy_options() { return kOptions; }

void validate_copy_options(const Json& options, const OptionSource& source) {
  parse_copy_options(options, source);
}

std::vector<CopyCase> plan_copy(const Json& options, Profile profile, const std::vector<DeviceFacts>& devices,
                                const OptionSource& source) {
  auto opts = parse_copy_options(options, source);
  auto selected = select_devices(options, profile, static_cast<int>(devices.size()), source);
  const std::uint64_t bytes = opts.size.value_or(profile == Profile::full ? (1ull << 30) : (256ull << 20));
  std::vector<CopyCase> out;
  for (int dev : selected) {
    check_fits(2 * bytes, devices.at(dev), fmt::format("gpu.copy of {}", format_bytes(bytes)),
               fmt::format("use a smaller {}", source.name("size")));
    for (auto dir : opts.directions) {
      for (bool pinned : opts.pinned) {
        for (auto path : opts.paths) {
          // An SM kernel reaches host memory only through a pinned, mapped allocation.
          if (path == CopyPath::sm_kernel && !pinned) continue;
          out.push_back({"host", {dev}, dir, pinned, path, bytes});
        }
      }
    }
  }
  if (selected.size() >= 2) {
    for (auto dir : opts.directions)
      out.push_back({"all", selected, dir, true, CopyPath::copy_engine, bytes});
    out.push_back({"p2p", selected, CopyDirection::bidir, false, CopyPath::copy_engine, bytes});
  }
  return out;
}

double copy_bytes(const CopyCase& c) {
  return static_cast<double>(c.bytes) * (c.direction == CopyDirection::bidir ? 2.0 : 1.0);
}

std::optional<double> pcie_peak(const Json& gpu) {
  if (!gpu.contains("pcie") || !gpu["pcie"].is_object()) return std::nullopt;
  const Json& link = gpu["pcie"];
  if (link.contains("max_bandwidth") && link["max_bandwidth"].is_number()) {
    return link["max_bandwidth"].get<double>();
  }
  if (link.contains("max_gen") && link.contains("max_width") && link["max_gen"].is_number_integer() &&
      link["max_width"].is_number_integer()) {
    static constexpr std::array<double, 7> kGtsOfGen{0, 2.5, 5, 8, 16, 32, 64};  // GT/s per lane, Gen1..Gen6
    const auto gen = link["max_gen"].get<int>();
    if (gen >= 1 && gen < static_cast<int>(kGtsOfGen.size())) {
      return pcie_bandwidth(kGtsOfGen[static_cast<std::size_t>(gen)], link["max_width"].get<int>());
    }
  }
  return std::nullopt;
}

}  // namespace mlbench::gpu
