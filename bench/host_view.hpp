// The host inventory's typed view: its blocks read once, by the names collect_host_info() writes them under
// (kInventoryBlocks, the one table of those names), each of the type it has. The inventory is JSON because
// it travels in every report; a report read back may come from another version or be edited, so the view
// takes a missing or mistyped block as empty (an absent figure as nullopt) instead of every reader testing
// contains() and is_array() itself.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace mlbench {

// The inventory's top-level keys (bench/sysinfo.hpp lists what each holds): the collectors write by them,
// HostView reads by them. The strings are written when readable.
inline constexpr std::string_view kHostnameKey = "hostname";
inline constexpr std::string_view kKernelKey = "kernel";
inline constexpr std::string_view kOsKey = "os";
inline constexpr std::string_view kCpuKey = "cpu";
inline constexpr std::string_view kMemoryKey = "memory";
inline constexpr std::string_view kNumaKey = "numa";
inline constexpr std::string_view kBlockDevicesKey = "block_devices";
inline constexpr std::string_view kRaidKey = "raid";
inline constexpr std::string_view kNicsKey = "nics";
inline constexpr std::string_view kGpusKey = "gpus";
inline constexpr std::string_view kNotesKey = "notes";
// The blocks, each a mapping or a list: the collector starts each one empty of its kind.
struct InventoryBlock {
  std::string_view key;
  bool list;  // false: a mapping
};
inline constexpr InventoryBlock kInventoryBlocks[] = {
    {kCpuKey, false}, {kMemoryKey, false}, {kNumaKey, true}, {kBlockDevicesKey, true},
    {kRaidKey, true}, {kNicsKey, true},    {kGpusKey, true}, {kNotesKey, true},
};
// memory's figures the probes, the summary and sizing read.
inline constexpr std::string_view kTotalBytesKey = "total_bytes";
inline constexpr std::string_view kAvailableBytesKey = "available_bytes";
inline constexpr std::string_view kTheoreticalBandwidthKey = "theoretical_bandwidth";

// A view of `host`, which must outlive it (the blocks are references into it).
struct HostView {
  explicit HostView(const nlohmann::json& host);

  std::string hostname, kernel, os;  // empty when absent
  const nlohmann::json& cpu;         // a mapping, {} when absent
  const nlohmann::json& memory;      // a mapping, {} when absent
  const nlohmann::json& numa;        // the lists: [] when absent
  const nlohmann::json& block_devices;
  const nlohmann::json& raid;
  const nlohmann::json& nics;
  const nlohmann::json& gpus;
  const nlohmann::json& notes;
  // memory's figures in bytes and B/s; nullopt when absent or not a number.
  std::optional<double> memory_total_bytes, memory_available_bytes, memory_theoretical_bandwidth;
};

}  // namespace mlbench
