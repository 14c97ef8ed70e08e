// Memory: sizes and huge pages from /proc/meminfo, transparent huge pages from sysfs, DIMMs from the SMBIOS
// table (type 17; only root may read it), and the theoretical bandwidth they give.
#include "bench/sysinfo_collect.hpp"

#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>

#include "bench/sysinfo_parse.hpp"

namespace mlbench {

using namespace sysparse;
using Json = nlohmann::json;

void collect_memory(const SysReader& reader, Json& mem, Json& notes) {
  if (auto text = reader.read("/proc/meminfo")) {
    auto kv = parse_key_values(*text, ':');
    auto get = [&](const char* key) -> std::optional<std::uint64_t> {
      auto it = kv.find(key);
      return it == kv.end() ? std::nullopt : parse_kb(it->second);
    };
    if (auto v = get("MemTotal")) mem[kTotalBytesKey] = *v;
    if (auto v = get("MemAvailable")) mem[kAvailableBytesKey] = *v;
    auto hp_size = get("Hugepagesize");
    auto hp_total = get("HugePages_Total");
    auto hp_free = get("HugePages_Free");
    if (hp_size && hp_total && hp_free) {
      mem["hugepages"] = Json{{"size_bytes", *hp_size}, {"total", *hp_total}, {"free", *hp_free}};
    }
    if (!mem.contains(kTotalBytesKey)) note(notes, "memory: no MemTotal in /proc/meminfo");
  } else {
    note(notes, "memory: /proc/meminfo not readable; total and available memory unknown");
  }
  if (auto thp = reader.read("/sys/kernel/mm/transparent_hugepage/enabled")) {
    auto open = thp->find('[');
    auto close = thp->find(']');
    if (open != std::string::npos && close != std::string::npos && close > open) {
      mem["transparent_hugepage"] = thp->substr(open + 1, close - open - 1);
    }
  }

  const char* dmi = "/sys/firmware/dmi/tables/DMI";
  auto table = reader.read_bytes(dmi);
  if (!table) {
    // Only root may read the table: "needs root" is the fix only for someone who is not.
    const char* why = !reader.exists(dmi) ? "absent, as in many VMs"
                      : ::geteuid() != 0  ? "not readable: it needs root"
                                          : "not readable";
    note(notes,
         fmt::format("memory: SMBIOS table {} {}; DIMM speed, channels and theoretical bandwidth unknown",
                     dmi, why));
    return;
  }
  auto dimms = parse_smbios_memory_devices(*table);
  if (dimms.empty()) {
    note(notes, "memory: the SMBIOS table lists no populated memory device; theoretical bandwidth unknown");
    return;
  }
  mem["dimms"] = dimms;
  std::optional<double> slowest;
  for (const auto& d : dimms) {
    if (!d.contains("speed_mts")) continue;
    double s = d["speed_mts"].get<double>();
    slowest = slowest ? std::min(*slowest, s) : s;
  }
  // One DIMM per channel is how bandwidth-oriented servers are populated; with two per channel this
  // over-counts channels, so the assumption is stated rather than hidden.
  mem["channels"] = dimms.size();
  note(notes, "memory: channels = populated DIMMs (assumes one DIMM per channel)");
  if (slowest) {
    mem[kTheoreticalBandwidthKey] = static_cast<double>(dimms.size()) * *slowest * 1e6 * 8.0;
  } else {
    note(notes, "memory: no DIMM speed in SMBIOS; theoretical bandwidth unknown");
  }
}

}  // namespace mlbench
