// The host inventory: the operating system here, then each subsystem's collector in turn
// (bench/sysinfo_collect.hpp), all reading through SysReader. Every collector tolerates a missing or
// malformed file: the field is left out and `notes` says why.
#include "bench/sysinfo.hpp"

#include "bench/host_view.hpp"
#include "bench/sysinfo_collect.hpp"
#include "bench/sysinfo_parse.hpp"

namespace mlbench {

using namespace sysparse;
using Json = nlohmann::json;

void collect_os(const SysReader& reader, Json& host, Json& notes) {
  if (auto h = reader.read("/proc/sys/kernel/hostname")) {
    host[kHostnameKey] = *h;
  } else {
    note(notes, "hostname: /proc/sys/kernel/hostname not readable");
  }
  if (auto k = reader.read("/proc/sys/kernel/osrelease")) {
    host[kKernelKey] = *k;
  } else {
    note(notes, "kernel: /proc/sys/kernel/osrelease not readable");
  }
  auto release = reader.read("/etc/os-release");
  if (!release) release = reader.read("/usr/lib/os-release");
  if (release) {
    auto kv = parse_key_values(*release, '=');
    auto it = kv.find("PRETTY_NAME");
    if (it != kv.end()) {
      std::string v = it->second;
      // Quoted or not; an unmatched quote stays (cutting the last byte could split a UTF-8 sequence).
      if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front())
        v = v.substr(1, v.size() - 2);
      host[kOsKey] = v;
    }
  }
  if (!host.contains(kOsKey)) note(notes, "os: no PRETTY_NAME in /etc/os-release");
}

Json collect_host_info(const SysReader& reader, GpuInventoryFn gpus) {
  Json host = Json::object();
  for (const auto& b : kInventoryBlocks) host[b.key] = b.list ? Json::array() : Json::object();
  Json& notes = host[kNotesKey];
  collect_os(reader, host, notes);
  collect_cpu(reader, host[kCpuKey], notes);
  collect_memory(reader, host[kMemoryKey], notes);
  collect_numa(reader, host, notes);
  collect_block(reader, host, notes);
  collect_raid(reader, host, notes);
  collect_nics(reader, host, notes);
  if (gpus != nullptr) host[kGpusKey] = gpus(notes);
  return host;
}

}  // namespace mlbench
