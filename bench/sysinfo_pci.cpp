// PCIe links of PCI functions in sysfs (current_link_* and max_link_*): NVMe drives here, GPUs in
// kernels/gpu/inventory.cpp.
#include "bench/sysinfo.hpp"

#include <filesystem>

#include "bench/sysinfo_parse.hpp"

namespace mlbench {

using Json = nlohmann::json;

namespace {

struct PcieLink {
  double gts = 0;
  int width = 0;
};

// `kind` is "current" or "max": <pci>/<kind>_link_speed and <pci>/<kind>_link_width.
std::optional<PcieLink> read_pcie_link(const SysReader& reader, const std::filesystem::path& pci,
                                       const std::string& kind) {
  auto speed_text = reader.read(pci / (kind + "_link_speed"));
  auto width = reader.read_int(pci / (kind + "_link_width"));
  if (!speed_text || !width || *width <= 0) return std::nullopt;
  auto gts = parse_pcie_speed(*speed_text);
  if (!gts) return std::nullopt;
  return PcieLink{*gts, static_cast<int>(*width)};
}

}  // namespace

std::optional<Json> pcie_link_info(const SysReader& reader, const std::filesystem::path& pci) {
  auto current = read_pcie_link(reader, pci, "current");
  if (!current) return std::nullopt;
  Json link{{"speed_gts", current->gts}, {"width", current->width}};
  if (auto bw = pcie_bandwidth(current->gts, current->width)) link["bandwidth"] = *bw;
  if (auto max = read_pcie_link(reader, pci, "max")) {
    link["max_speed_gts"] = max->gts;
    link["max_width"] = max->width;
    if (auto bw = pcie_bandwidth(max->gts, max->width)) link["max_bandwidth"] = *bw;
  }
  return link;
}

}  // namespace mlbench
