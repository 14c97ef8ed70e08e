// CPU and NUMA: identity and flags from /proc/cpuinfo, topology from /sys/devices/system/cpu/cpuN/topology,
// caches from cpu0/cache/indexN, the governor from cpufreq, nodes from /sys/devices/system/node.
#include "bench/sysinfo_collect.hpp"

#include <algorithm>
#include <array>
#include <filesystem>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "bench/sysinfo_parse.hpp"

namespace mlbench {

using namespace sysparse;
using Json = nlohmann::json;

namespace {

// The CPU features that change what the compute and memory probes can do; `hypervisor` marks a VM, whose
// cache sizes may not be the host's.
constexpr std::array kFlagsOfInterest{"sse4_2",   "avx",      "avx2",        "fma",         "avx512f",
                                      "avx512bw", "avx512vl", "avx512_bf16", "avx512_fp16", "amx_tile",
                                      "amx_bf16", "amx_int8", "sha_ni",      "aes",         "sve",
                                      "sve2",     "asimd",    "hypervisor"};

struct CpuTopo {
  int cpu;
  int package;
  int core;
};

std::optional<std::uint64_t> node_memory(const SysReader& reader, int node) {
  auto text = reader.read(fmt::format("/sys/devices/system/node/node{}/meminfo", node));
  if (!text) return std::nullopt;
  for (const auto& line : split_lines(*text)) {
    auto pos = line.find("MemTotal:");
    if (pos != std::string::npos) return parse_kb(line.substr(pos + 9));
  }
  return std::nullopt;
}

}  // namespace

void collect_cpu(const SysReader& reader, Json& cpu, Json& notes) {
  std::map<std::string, std::string> info;
  if (auto text = reader.read("/proc/cpuinfo")) {
    // The first processor block describes the model; later blocks repeat it.
    auto end = text->find("\n\n");
    info = parse_key_values(std::string_view(*text).substr(0, end), ':');
  } else {
    note(notes, "cpu: /proc/cpuinfo not readable; model, vendor and flags unknown");
  }
  if (auto it = info.find("model name"); it != info.end()) cpu["model"] = it->second;
  if (auto it = info.find("vendor_id"); it != info.end()) cpu["vendor"] = it->second;
  if (!cpu.contains("model")) note(notes, "cpu: no 'model name' in /proc/cpuinfo");
  auto flags_it = info.find("flags");
  if (flags_it == info.end()) flags_it = info.find("Features");  // arm64 names it so
  if (flags_it != info.end()) {
    auto words = split_words(flags_it->second);
    std::set<std::string> have(words.begin(), words.end());
    Json flags = Json::array();
    for (const char* f : kFlagsOfInterest) {
      if (have.count(f) != 0) flags.push_back(f);
    }
    cpu["flags"] = flags;
  }

  std::vector<int> online;
  if (auto s = reader.read("/sys/devices/system/cpu/online")) online = parse_cpu_list(*s);
  if (online.empty()) {
    for (const auto& e : reader.list("/sys/devices/system/cpu")) {
      if (starts_with_digits(e, "cpu")) online.push_back(suffix_number(e, "cpu"));
    }
    std::sort(online.begin(), online.end());
  }
  if (online.empty()) {
    note(notes, "cpu: no CPUs listed under /sys/devices/system/cpu; sockets, cores and threads unknown");
    return;
  }
  cpu["threads"] = online.size();

  std::vector<CpuTopo> topo;
  for (int c : online) {
    auto base = std::filesystem::path(fmt::format("/sys/devices/system/cpu/cpu{}/topology", c));
    auto pkg = reader.read_int(base / "physical_package_id");
    auto core = reader.read_int(base / "core_id");
    if (!pkg || !core) {
      topo.clear();
      break;
    }
    topo.push_back({c, static_cast<int>(*pkg), static_cast<int>(*core)});
  }
  if (topo.empty()) {
    note(notes, "cpu: topology (physical_package_id/core_id) not readable; sockets and cores unknown");
  } else {
    std::set<int> packages;
    std::map<std::pair<int, int>, int> first_cpu_of_core;
    for (const auto& t : topo) {
      packages.insert(t.package);
      first_cpu_of_core.emplace(std::make_pair(t.package, t.core), t.cpu);
    }
    cpu["sockets"] = packages.size();
    cpu["cores"] = first_cpu_of_core.size();
    std::vector<int> core_cpus;
    for (const auto& [_, c] : first_cpu_of_core) core_cpus.push_back(c);
    std::sort(core_cpus.begin(), core_cpus.end());
    cpu["core_cpus"] = core_cpus;
  }

  auto cache_dir = std::filesystem::path(fmt::format("/sys/devices/system/cpu/cpu{}/cache", online.front()));
  Json caches = Json::array();
  for (const auto& idx : reader.list(cache_dir)) {
    if (!starts_with_digits(idx, "index")) continue;
    auto level = reader.read_int(cache_dir / idx / "level");
    auto type = reader.read(cache_dir / idx / "type");
    auto size_text = reader.read(cache_dir / idx / "size");
    auto size = size_text ? parse_cache_size(*size_text) : std::nullopt;
    if (!level || !type || !size) continue;
    Json c{{"level", *level}, {"type", *type}, {"size_bytes", *size}};
    if (auto shared = reader.read(cache_dir / idx / "shared_cpu_list")) {
      auto n = parse_cpu_list(*shared).size();
      if (n > 0) c["shared_cpu_count"] = n;
    }
    caches.push_back(std::move(c));
  }
  if (caches.empty()) {
    note(notes, fmt::format("cpu: no cache description under {}; llc_bytes unknown", cache_dir.string()));
  } else {
    cpu["caches"] = caches;
    const Json* llc = nullptr;
    for (const auto& c : caches) {
      if (c["type"] == "Instruction") continue;
      if (llc == nullptr || c["level"].get<int>() > (*llc)["level"].get<int>()) llc = &c;
    }
    if (llc != nullptr) {
      auto bytes = (*llc)["size_bytes"].get<std::uint64_t>();
      cpu["llc_bytes"] = bytes;
      // Instances = threads / threads sharing one LLC, rounded up (a partly offline last slice still counts).
      auto shared = llc->value("shared_cpu_count", std::size_t{0});
      if (shared > 0) cpu["llc_total_bytes"] = bytes * ((online.size() + shared - 1) / shared);
    }
  }

  auto gov_path = fmt::format("/sys/devices/system/cpu/cpu{}/cpufreq/scaling_governor", online.front());
  if (auto g = reader.read(gov_path)) {
    cpu["governor"] = *g;
  } else {
    note(notes, "cpu: no cpufreq governor (no cpufreq driver, e.g. in a VM); clocks may float");
  }
}

void collect_numa(const SysReader& reader, Json& host, Json& notes) {
  Json nodes = Json::array();
  for (const auto& e : reader.list("/sys/devices/system/node")) {
    if (!starts_with_digits(e, "node")) continue;
    int id = suffix_number(e, "node");
    Json n{{"node", id}, {"cpus", Json::array()}};
    if (auto cpus = reader.read(fmt::format("/sys/devices/system/node/{}/cpulist", e))) {
      n["cpus"] = parse_cpu_list(*cpus);
    }
    if (auto m = node_memory(reader, id)) {
      n["memory_bytes"] = *m;
    } else {
      note(notes, fmt::format("numa: node{} memory not readable", id));
    }
    nodes.push_back(std::move(n));
  }
  std::sort(nodes.begin(), nodes.end(),
            [](const Json& a, const Json& b) { return a["node"].get<int>() < b["node"].get<int>(); });
  if (nodes.empty()) {
    // A kernel without NUMA support still has one memory domain: describe it so placement logic has a node.
    Json n{{"node", 0}, {"cpus", Json::array()}};
    if (auto online = reader.read("/sys/devices/system/cpu/online")) n["cpus"] = parse_cpu_list(*online);
    if (host[kMemoryKey].contains(kTotalBytesKey)) n["memory_bytes"] = host[kMemoryKey][kTotalBytesKey];
    nodes.push_back(std::move(n));
    note(notes, "numa: /sys/devices/system/node absent; assuming one node holding every CPU and all memory");
  }
  host[kNumaKey] = nodes;
}

}  // namespace mlbench
