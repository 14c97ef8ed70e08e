// The host inventory's typed view: every block looked up once by its name in kInventoryBlocks.
#include "bench/host_view.hpp"

#include <algorithm>
#include <iterator>

namespace mlbench {
namespace {

using Json = nlohmann::json;

const Json kEmptyMapping = Json::object();
const Json kEmptyList = Json::array();

// `host`'s block `key` (a row of kInventoryBlocks) when it has the block's kind, else an empty one of that
// kind.
const Json& block(const Json& host, std::string_view key) {
  const auto* b = std::find_if(std::begin(kInventoryBlocks), std::end(kInventoryBlocks),
                               [key](const InventoryBlock& row) { return row.key == key; });
  const bool list = b != std::end(kInventoryBlocks) && b->list;
  const Json& empty = list ? kEmptyList : kEmptyMapping;
  if (!host.is_object()) return empty;
  auto it = host.find(key);
  if (it == host.end() || (list ? !it->is_array() : !it->is_object())) return empty;
  return *it;
}

std::string text(const Json& host, std::string_view key) {
  if (!host.is_object()) return "";
  auto it = host.find(key);
  return it != host.end() && it->is_string() ? it->get<std::string>() : "";
}

std::optional<double> number(const Json& mapping, std::string_view key) {
  auto it = mapping.find(key);
  if (it == mapping.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

}  // namespace

HostView::HostView(const Json& host)
    : hostname(text(host, kHostnameKey)),
      kernel(text(host, kKernelKey)),
      os(text(host, kOsKey)),
      cpu(block(host, kCpuKey)),
      memory(block(host, kMemoryKey)),
      numa(block(host, kNumaKey)),
      block_devices(block(host, kBlockDevicesKey)),
      raid(block(host, kRaidKey)),
      nics(block(host, kNicsKey)),
      gpus(block(host, kGpusKey)),
      notes(block(host, kNotesKey)),
      memory_total_bytes(number(memory, kTotalBytesKey)),
      memory_available_bytes(number(memory, kAvailableBytesKey)),
      memory_theoretical_bandwidth(number(memory, kTheoreticalBandwidthKey)) {}

}  // namespace mlbench
