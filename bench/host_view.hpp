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

// The inventory's top-level blocks (bench/sysinfo.hpp lists what each holds): a mapping or a list. The
// collector starts each one empty of its kind; the strings (hostname, kernel, os) are written when readable.
struct InventoryBlock {
  std::string_view key;
  bool list;  // false: a mapping
};
inline constexpr std::string_view kHostnameKey = "hostname";
inline constexpr std::string_view kKernelKey = "kernel";
inline constexpr std::string_view kOsKey = "os";
inline constexpr InventoryBlock kInventoryBlocks[] = {
    {"cpu", false}, {"memory", false}, {"numa", true}, {"block_devices", true},
    {"raid", true}, {"nics", true},    {"gpus", true}, {"notes", true},
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
