// The host inventory's typed view: every block looked up once by its name in kInventoryBlocks.
#include "bench/host_view.hpp"

#include <cstddef>
#include <iterator>

namespace mlbench {
namespace {

using Json = nlohmann::json;

const Json kEmptyMapping = Json::object();
const Json kEmptyList = Json::array();

constexpr std::size_t index_of(std::string_view key) {
  for (std::size_t i = 0; i < std::size(kInventoryBlocks); ++i)
    if (kInventoryBlocks[i].key == key) return i;
  return std::size(kInventoryBlocks);  // not a block: fails the compile where it is a constant expression
}

// `host`'s block `key` when it has the block's kind, else an empty one of that kind.
template <std::size_t I>
const Json& block(const Json& host) {
  static_assert(I < std::size(kInventoryBlocks), "not a block of kInventoryBlocks");
  const InventoryBlock& b = kInventoryBlocks[I];
  const Json& empty = b.list ? kEmptyList : kEmptyMapping;
  if (!host.is_object()) return empty;
  auto it = host.find(b.key);
  if (it == host.end() || (b.list ? !it->is_array() : !it->is_object())) return empty;
  return *it;
}

std::string text(const Json& host, std::string_view key) {
  if (!host.is_object()) return "";
  auto it = host.find(key);
  return it != host.end() && it->is_string() ? it->get<std::string>() : "";
}

std::optional<double> number(const Json& block, std::string_view key) {
  auto it = block.find(key);
  if (it == block.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

}  // namespace

HostView::HostView(const Json& host)
    : hostname(text(host, kHostnameKey)),
      kernel(text(host, kKernelKey)),
      os(text(host, kOsKey)),
      cpu(block<index_of("cpu")>(host)),
      memory(block<index_of("memory")>(host)),
      numa(block<index_of("numa")>(host)),
      block_devices(block<index_of("block_devices")>(host)),
      raid(block<index_of("raid")>(host)),
      nics(block<index_of("nics")>(host)),
      gpus(block<index_of("gpus")>(host)),
      notes(block<index_of("notes")>(host)),
      memory_total_bytes(number(memory, kTotalBytesKey)),
      memory_available_bytes(number(memory, kAvailableBytesKey)),
      memory_theoretical_bandwidth(number(memory, kTheoreticalBandwidthKey)) {}

}  // namespace mlbench
