// Host inventory from /sys, /proc, /etc/os-release and the SMBIOS table, all read through SysReader.
//
// Sources: CPU identity from /proc/cpuinfo, topology from /sys/devices/system/cpu/cpuN/topology, caches from
// cpu0/cache/indexN, NUMA from /sys/devices/system/node, memory from /proc/meminfo, DIMMs from SMBIOS type 17
// (root only), block devices from /sys/block (NVMe PCIe link from the controller's PCI function), md arrays
// from /proc/mdstat and /sys/block/mdX/md, NICs from /sys/class/net and /sys/class/infiniband. Every reader
// step tolerates a missing or malformed file: the field is left out and `notes` says why.
#include "bench/sysinfo.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include <fmt/format.h>

#include "base/utf8.hpp"

namespace mlbench {

using Json = nlohmann::json;

std::filesystem::path SysReader::resolve(const std::filesystem::path& abs) const {
  return root_ / abs.relative_path();
}

std::optional<std::string> SysReader::read(const std::filesystem::path& abs) const {
  auto bytes = read_bytes(abs);
  if (!bytes) return std::nullopt;
  std::string s = to_valid_utf8(*bytes);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

std::optional<std::string> SysReader::read_bytes(const std::filesystem::path& abs) const {
  std::ifstream in(resolve(abs), std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return ss.str();
}

bool SysReader::exists(const std::filesystem::path& abs) const {
  std::error_code ec;
  return std::filesystem::exists(resolve(abs), ec);
}

std::optional<long long> SysReader::read_int(const std::filesystem::path& abs) const {
  auto s = read(abs);
  if (!s) return std::nullopt;
  try {
    std::size_t pos = 0;
    long long v = std::stoll(*s, &pos, 0);
    return v;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::vector<std::string> SysReader::list(const std::filesystem::path& abs_dir) const {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(resolve(abs_dir), ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    auto name = it->path().filename().string();
    if (invalid_utf8_at(name) == std::string::npos) out.push_back(std::move(name));
  }
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::vector<std::string> split_words(std::string_view text) {
  std::vector<std::string> words;
  std::istringstream in{std::string(text)};
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

template <typename T>
std::optional<T> parse_number(std::string_view s) {
  s = trim(s);
  T v{};
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr == s.data()) return std::nullopt;
  return v;
}

bool starts_with_digits(std::string_view s, std::string_view prefix) {
  if (s.size() <= prefix.size() || s.substr(0, prefix.size()) != prefix) return false;
  return std::all_of(s.begin() + static_cast<std::ptrdiff_t>(prefix.size()), s.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

int suffix_number(std::string_view s, std::string_view prefix) {
  return parse_number<int>(s.substr(prefix.size())).value_or(-1);
}

// "key : value" blocks (/proc/cpuinfo, /proc/meminfo, os-release with '='): first occurrence wins.
std::map<std::string, std::string> parse_key_values(std::string_view text, char sep) {
  std::map<std::string, std::string> kv;
  for (const auto& line : split_lines(text)) {
    auto pos = line.find(sep);
    if (pos == std::string::npos) continue;
    std::string key(trim(std::string_view(line).substr(0, pos)));
    std::string value(trim(std::string_view(line).substr(pos + 1)));
    kv.emplace(std::move(key), std::move(value));
  }
  return kv;
}

// "/proc/meminfo"-style "12345 kB" → bytes.
std::optional<std::uint64_t> parse_kb(const std::string& value) {
  auto words = split_words(value);
  if (words.empty()) return std::nullopt;
  auto n = parse_number<std::uint64_t>(words[0]);
  if (!n) return std::nullopt;
  return words.size() > 1 && words[1] == "kB" ? *n * 1024 : *n;
}

void note(Json& notes, std::string text) { notes.push_back(std::move(text)); }

// The CPU features that change what the compute and memory probes can do.
constexpr std::array kFlagsOfInterest{"sse4_2",   "avx",      "avx2",        "fma",         "avx512f",
                                      "avx512bw", "avx512vl", "avx512_bf16", "avx512_fp16", "amx_tile",
                                      "amx_bf16", "amx_int8", "sha_ni",      "aes",         "sve",
                                      "sve2",     "asimd"};

struct CpuTopo {
  int cpu;
  int package;
  int core;
};

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

void collect_memory(const SysReader& reader, Json& mem, Json& notes) {
  if (auto text = reader.read("/proc/meminfo")) {
    auto kv = parse_key_values(*text, ':');
    auto get = [&](const char* key) -> std::optional<std::uint64_t> {
      auto it = kv.find(key);
      return it == kv.end() ? std::nullopt : parse_kb(it->second);
    };
    if (auto v = get("MemTotal")) mem["total_bytes"] = *v;
    if (auto v = get("MemAvailable")) mem["available_bytes"] = *v;
    auto hp_size = get("Hugepagesize");
    auto hp_total = get("HugePages_Total");
    auto hp_free = get("HugePages_Free");
    if (hp_size && hp_total && hp_free) {
      mem["hugepages"] = Json{{"size_bytes", *hp_size}, {"total", *hp_total}, {"free", *hp_free}};
    }
    if (!mem.contains("total_bytes")) note(notes, "memory: no MemTotal in /proc/meminfo");
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
    mem["theoretical_bandwidth"] = static_cast<double>(dimms.size()) * *slowest * 1e6 * 8.0;
  } else {
    note(notes, "memory: no DIMM speed in SMBIOS; theoretical bandwidth unknown");
  }
}

std::optional<std::uint64_t> node_memory(const SysReader& reader, int node) {
  auto text = reader.read(fmt::format("/sys/devices/system/node/node{}/meminfo", node));
  if (!text) return std::nullopt;
  for (const auto& line : split_lines(*text)) {
    auto pos = line.find("MemTotal:");
    if (pos != std::string::npos) return parse_kb(line.substr(pos + 9));
  }
  return std::nullopt;
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
    if (host["memory"].contains("total_bytes")) n["memory_bytes"] = host["memory"]["total_bytes"];
    nodes.push_back(std::move(n));
    note(notes, "numa: /sys/devices/system/node absent; assuming one node holding every CPU and all memory");
  }
  host["numa"] = nodes;
}

void collect_os(const SysReader& reader, Json& host, Json& notes) {
  if (auto h = reader.read("/proc/sys/kernel/hostname")) {
    host["hostname"] = *h;
  } else {
    note(notes, "hostname: /proc/sys/kernel/hostname not readable");
  }
  if (auto k = reader.read("/proc/sys/kernel/osrelease")) {
    host["kernel"] = *k;
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
      host["os"] = v;
    }
  }
  if (!host.contains("os")) note(notes, "os: no PRETTY_NAME in /etc/os-release");
}

// Block devices that are not storage: loop devices, RAM disks, compressed swap.
bool is_virtual_block(std::string_view name) {
  for (std::string_view p : {"loop", "ram", "zram"}) {
    if (name.substr(0, p.size()) == p) return true;
  }
  return false;
}

// Transport per device-name prefix; NVMe reads its controller's own `transport` file instead.
constexpr std::array<std::pair<std::string_view, std::string_view>, 7> kTransportByPrefix{{
    {"nvme", "pcie"},
    {"sd", "scsi"},
    {"vd", "virtio"},
    {"md", "md"},
    {"dm-", "device-mapper"},
    {"mmcblk", "mmc"},
    {"xvd", "xen"},
}};

std::vector<std::string> mount_table(const SysReader& reader, const std::string& dev) {
  std::vector<std::string> out;
  auto text = reader.read("/proc/self/mounts");
  if (!text) return out;
  for (const auto& line : split_lines(*text)) {
    auto words = split_words(line);
    if (words.size() >= 2 && words[0] == dev) out.push_back(words[1]);
  }
  return out;
}

}  // namespace

std::optional<double> pcie_bandwidth(double gts, int width) {
  struct Rate {
    double gts;
    double efficiency;  // payload bits per transferred bit
  };
  static constexpr std::array<Rate, 6> kRates{{
      {2.5, 8.0 / 10.0},      // Gen1
      {5.0, 8.0 / 10.0},      // Gen2
      {8.0, 128.0 / 130.0},   // Gen3
      {16.0, 128.0 / 130.0},  // Gen4
      {32.0, 128.0 / 130.0},  // Gen5
      {64.0, 242.0 / 256.0},  // Gen6 FLIT mode (PAM4)
  }};
  if (width <= 0) return std::nullopt;
  for (const auto& r : kRates) {
    if (std::abs(r.gts - gts) < 1e-6) return r.gts * 1e9 * r.efficiency * width / 8.0;
  }
  return std::nullopt;
}

std::optional<double> parse_pcie_speed(std::string_view text) {
  auto words = split_words(text);
  if (words.size() < 2 || words[1] != "GT/s") return std::nullopt;
  auto v = parse_number<double>(words[0]);
  if (!v || *v <= 0) return std::nullopt;
  return v;
}

std::vector<int> parse_cpu_list(std::string_view text) {
  // Far above any kernel's NR_CPUS (8192): a larger list is garbage, and expanding it would exhaust memory.
  constexpr int kMaxCpus = 1 << 16;
  std::vector<int> out;
  text = trim(text);
  while (!text.empty()) {
    auto comma = text.find(',');
    auto item = trim(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    auto dash = item.find('-');
    auto lo = parse_number<int>(item.substr(0, dash));
    auto hi = dash == std::string_view::npos ? lo : parse_number<int>(item.substr(dash + 1));
    if (!lo || !hi || *hi < *lo || *lo < 0 || *hi >= kMaxCpus || std::ssize(out) + (*hi - *lo) >= kMaxCpus) {
      return {};
    }
    for (int c = *lo; c <= *hi; ++c) out.push_back(c);
  }
  return out;
}

std::map<int, std::uint64_t> parse_interrupt_counts(std::string_view text) {
  std::map<int, std::uint64_t> out;
  for (const auto& line : split_lines(text)) {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    auto name = trim(std::string_view(line).substr(0, colon));
    auto irq = starts_with_digits(name, "") ? parse_number<int>(name) : std::nullopt;
    if (!irq) continue;
    std::uint64_t sum = 0;
    // The CPU columns, up to the first word (the interrupt controller).
    for (const auto& w : split_words(std::string_view(line).substr(colon + 1))) {
      auto n = starts_with_digits(w, "") ? parse_number<std::uint64_t>(w) : std::nullopt;
      if (!n) break;
      sum += *n;
    }
    out[*irq] = sum;
  }
  return out;
}

std::optional<std::uint64_t> parse_smaps_anon_huge(std::string_view smaps, std::uint64_t addr) {
  bool inside = false;
  for (const auto& line : split_lines(smaps)) {
    auto words = split_words(line);
    if (words.empty()) continue;
    const std::string_view first = words[0];
    if (first.back() != ':') {  // a mapping's header: "start-end perms offset dev inode [name]", hex bounds
      auto dash = first.find('-');
      std::uint64_t lo = 0, hi = 0;
      auto hex = [](std::string_view t, std::uint64_t& v) {
        auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v, 16);
        return ec == std::errc() && ptr == t.data() + t.size() && !t.empty();
      };
      inside = dash != std::string_view::npos && hex(first.substr(0, dash), lo) &&
               hex(first.substr(dash + 1), hi) && lo <= addr && addr < hi;
    } else if (inside && first == "AnonHugePages:") {
      return parse_kb(std::string(std::string_view(line).substr(line.find(':') + 1)));
    }
  }
  return std::nullopt;
}

std::optional<std::uint64_t> parse_cache_size(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  std::uint64_t mult = 1;
  switch (text.back()) {
    case 'K':
      mult = 1024;
      break;
    case 'M':
      mult = 1024 * 1024;
      break;
    case 'G':
      mult = 1024ULL * 1024 * 1024;
      break;
    default:
      break;
  }
  if (mult != 1) text.remove_suffix(1);
  auto v = parse_number<std::uint64_t>(text);
  if (!v) return std::nullopt;
  return *v * mult;
}

Json parse_smbios_memory_devices(std::string_view table) {
  // SMBIOS 3.x, type 17 "Memory Device" offsets.
  constexpr std::size_t kSize = 0x0C, kLocator = 0x10, kType = 0x12, kSpeed = 0x15, kExtSize = 0x1C,
                        kConfSpeed = 0x20, kExtSpeed = 0x54, kExtConfSpeed = 0x58;
  static const std::map<int, std::string> kMemoryTypes{
      {0x12, "DDR"},    {0x13, "DDR2"},   {0x18, "DDR3"},   {0x1A, "DDR4"}, {0x1B, "LPDDR"},
      {0x1C, "LPDDR2"}, {0x1D, "LPDDR3"}, {0x1E, "LPDDR4"}, {0x20, "HBM"},  {0x21, "HBM2"},
      {0x22, "DDR5"},   {0x23, "LPDDR5"}, {0x24, "HBM3"}};
  auto u8 = [&](std::size_t at) { return static_cast<std::uint8_t>(table[at]); };
  auto u16 = [&](std::size_t at) { return static_cast<std::uint32_t>(u8(at) | (u8(at + 1) << 8)); };
  auto u32 = [&](std::size_t at) { return u16(at) | (u16(at + 2) << 16); };

  Json out = Json::array();
  std::size_t pos = 0;
  while (pos + 4 <= table.size()) {
    std::uint8_t type = u8(pos);
    std::size_t len = u8(pos + 1);
    if (len < 4 || pos + len > table.size()) break;
    // The formatted area is followed by NUL-terminated strings and one extra NUL.
    std::vector<std::string> strings;
    std::size_t s = pos + len;
    while (s < table.size() && table[s] != '\0') {
      auto end = table.find('\0', s);
      if (end == std::string_view::npos) end = table.size();
      strings.emplace_back(table.substr(s, end - s));
      s = end + 1;
    }
    std::size_t next = (strings.empty() ? s + 2 : s + 1);
    auto str = [&](std::size_t at) -> std::optional<std::string> {
      std::size_t i = at < len ? u8(pos + at) : 0;
      if (i == 0 || i > strings.size()) return std::nullopt;
      return to_valid_utf8(trim(strings[i - 1]));
    };
    if (type == 127) break;
    if (type == 17 && len > kSpeed + 1) {
      std::uint64_t size = 0;
      std::uint32_t raw = u16(pos + kSize);
      if (raw == 0x7FFF && len >= kExtSize + 4) {
        size = static_cast<std::uint64_t>(u32(pos + kExtSize) & 0x7FFFFFFFu) << 20;
      } else if (raw != 0 && raw != 0xFFFF) {
        size = (raw & 0x8000u) != 0 ? static_cast<std::uint64_t>(raw & 0x7FFFu) << 10
                                    : static_cast<std::uint64_t>(raw) << 20;
      }
      if (size > 0) {
        Json d{{"size_bytes", size}};
        if (auto loc = str(kLocator)) d["locator"] = *loc;
        auto it = kMemoryTypes.find(u8(pos + kType));
        if (it != kMemoryTypes.end()) d["type"] = it->second;
        std::uint32_t speed = 0;
        if (len >= kConfSpeed + 2) speed = u16(pos + kConfSpeed);
        if (speed == 0xFFFF && len >= kExtConfSpeed + 4) speed = u32(pos + kExtConfSpeed);
        if (speed == 0 || speed == 0xFFFF) {
          speed = u16(pos + kSpeed);
          if (speed == 0xFFFF && len >= kExtSpeed + 4) speed = u32(pos + kExtSpeed);
        }
        if (speed != 0 && speed != 0xFFFF) d["speed_mts"] = speed;
        out.push_back(std::move(d));
      }
    }
    pos = next;
  }
  return out;
}

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

Json block_device_info(const SysReader& reader, const std::string& name, Json& notes) {
  auto base = std::filesystem::path("/sys/block") / name;
  Json d{{"name", name}};
  auto model = reader.read(base / "device/model");
  if (model) d["model"] = std::string(trim(*model));
  if (auto sectors = reader.read_int(base / "size")) {
    d["size_bytes"] = *sectors * 512;  // sysfs counts 512-byte sectors whatever the logical block size
  } else {
    note(notes, fmt::format("{}: size not readable", name));
  }
  if (auto v = reader.read_int(base / "queue/logical_block_size")) d["logical_block_size"] = *v;
  if (auto v = reader.read_int(base / "queue/physical_block_size")) d["physical_block_size"] = *v;
  if (auto v = reader.read_int(base / "queue/rotational")) d["rotational"] = *v != 0;

  bool nvme = name.rfind("nvme", 0) == 0;
  for (const auto& [prefix, transport] : kTransportByPrefix) {
    if (name.rfind(prefix, 0) == 0) d["transport"] = std::string(transport);
  }
  if (nvme) {
    if (auto t = reader.read(base / "device/transport")) d["transport"] = *t;
    // /sys/block/nvmeXnY/device is the controller; its `device` is the PCI function holding the link files.
    if (auto link = pcie_link_info(reader, base / "device/device")) {
      const Json& l = *link;
      if (l.contains("max_speed_gts") &&
          (l["max_speed_gts"] > l["speed_gts"] || l["max_width"] > l["width"])) {
        note(notes, fmt::format("{}: PCIe link runs below its maximum ({} GT/s x{} of {} GT/s x{})", name,
                                l["speed_gts"].get<double>(), l["width"].get<int>(),
                                l["max_speed_gts"].get<double>(), l["max_width"].get<int>()));
      }
      d["pcie"] = std::move(*link);
    } else if (d.value("transport", "") == "pcie") {
      note(notes, fmt::format("{}: PCIe link speed/width not readable", name));
    }
    if (auto pq = reader.read_int("/sys/module/nvme/parameters/poll_queues")) {
      d["nvme_poll_queues"] = *pq;
    }
  }
  auto mq = reader.list(base / "mq");
  if (!mq.empty()) d["hw_queues"] = mq.size();

  Json partitions = Json::array();
  std::vector<std::string> devs{name};
  for (const auto& e : reader.list(base)) {
    if (e.rfind(name, 0) == 0 && reader.exists(base / e / "partition")) {
      partitions.push_back(e);
      devs.push_back(e);
    }
  }
  d["partitions"] = partitions;
  d["holders"] = reader.list(base / "holders");
  Json mounts = Json::array();
  for (const auto& dev : devs) {
    for (auto& m : mount_table(reader, "/dev/" + dev)) mounts.push_back(std::move(m));
  }
  d["mountpoints"] = mounts;
  if (!model && !nvme && name.rfind("md", 0) != 0 && name.rfind("dm-", 0) != 0) {
    note(notes, fmt::format("{}: no model in sysfs", name));
  }
  return d;
}

namespace {

void collect_block(const SysReader& reader, Json& host, Json& notes) {
  Json devices = Json::array();
  auto names = reader.list("/sys/block");
  if (names.empty()) note(notes, "block_devices: /sys/block is empty or not readable");
  for (const auto& name : names) {
    if (is_virtual_block(name)) continue;
    devices.push_back(block_device_info(reader, name, notes));
  }
  host["block_devices"] = devices;
}

void collect_raid(const SysReader& reader, Json& host, Json& notes) {
  Json arrays = Json::array();
  auto mdstat = reader.read("/proc/mdstat");
  if (!mdstat) {
    host["raid"] = arrays;
    return;
  }
  for (const auto& line : split_lines(*mdstat)) {
    auto words = split_words(line);
    // "md0 : active raid0 nvme1n1[1] nvme0n1[0]"
    if (words.size() < 3 || words[1] != ":" || words[0].rfind("md", 0) != 0) continue;
    const std::string& name = words[0];
    auto md = std::filesystem::path("/sys/block") / name / "md";
    Json a{{"name", name}};
    if (words.size() > 3) a["state"] = words[2];
    std::vector<std::string> members;
    for (std::size_t i = 3; i < words.size(); ++i) {
      const auto& w = words[i];
      auto bracket = w.find('[');
      if (bracket == std::string::npos) {
        if (w.rfind("raid", 0) == 0 || w == "linear") a["level"] = w;
        continue;
      }
      members.push_back(w.substr(0, bracket));
    }
    if (auto level = reader.read(md / "level")) a["level"] = *level;
    auto slaves = reader.list(std::filesystem::path("/sys/block") / name / "slaves");
    if (!slaves.empty()) members = slaves;
    std::sort(members.begin(), members.end());
    a["members"] = members;
    if (auto chunk = reader.read_int(md / "chunk_size"); chunk && *chunk > 0) {
      a["chunk_bytes"] = *chunk;
    } else if (a.value("level", "") != "raid1") {
      note(notes, fmt::format("{}: chunk size not readable from {}", name, (md / "chunk_size").string()));
    }
    if (auto sectors = reader.read_int(std::filesystem::path("/sys/block") / name / "size")) {
      a["size_bytes"] = *sectors * 512;
    }
    if (!a.contains("level")) note(notes, fmt::format("{}: RAID level unknown", name));
    arrays.push_back(std::move(a));
  }
  host["raid"] = arrays;
}

std::optional<std::string> uevent_value(const SysReader& reader, const std::filesystem::path& uevent,
                                        const std::string& key) {
  auto text = reader.read(uevent);
  if (!text) return std::nullopt;
  auto kv = parse_key_values(*text, '=');
  auto it = kv.find(key);
  if (it == kv.end()) return std::nullopt;
  return it->second;
}

// "400 Gb/sec (4X NDR)" → 400; "4: ACTIVE" → "ACTIVE".
Json infiniband_port(const SysReader& reader, const std::string& hca, const std::string& port) {
  auto base = std::filesystem::path("/sys/class/infiniband") / hca / "ports" / port;
  Json ib{{"device", hca}, {"port", parse_number<int>(port).value_or(0)}};
  if (auto rate = reader.read(base / "rate")) {
    auto words = split_words(*rate);
    if (!words.empty()) {
      if (auto v = parse_number<double>(words[0])) ib["rate_gbps"] = *v;
    }
  }
  if (auto state = reader.read(base / "state")) {
    auto colon = state->find(':');
    ib["state"] = std::string(trim(colon == std::string::npos ? *state : state->substr(colon + 1)));
  }
  if (auto ll = reader.read(base / "link_layer")) ib["link_layer"] = *ll;
  return ib;
}

void collect_nics(const SysReader& reader, Json& host, Json& notes) {
  Json nics = Json::array();
  std::map<std::string, std::size_t> by_name;
  for (const auto& name : reader.list("/sys/class/net")) {
    if (name == "lo") continue;
    auto base = std::filesystem::path("/sys/class/net") / name;
    Json n{{"name", name}};
    bool physical = reader.exists(base / "device");
    n["virtual"] = !physical;
    if (physical) {
      if (auto drv = uevent_value(reader, base / "device/uevent", "DRIVER")) n["driver"] = *drv;
    }
    if (auto mtu = reader.read_int(base / "mtu")) n["mtu"] = *mtu;
    if (auto state = reader.read(base / "operstate")) n["operstate"] = *state;
    // Reading `speed` fails (EINVAL) or gives -1 when the link is down or the driver does not report it.
    if (auto speed = reader.read_int(base / "speed"); speed && *speed > 0) {
      n["speed_mbps"] = *speed;
    } else if (physical) {
      note(notes, fmt::format("{}: link speed unknown (link down or not reported by the driver)", name));
    }
    by_name[name] = nics.size();
    nics.push_back(std::move(n));
  }
  for (const auto& hca : reader.list("/sys/class/infiniband")) {
    auto ports = reader.list(std::filesystem::path("/sys/class/infiniband") / hca / "ports");
    auto netdevs = reader.list(std::filesystem::path("/sys/class/infiniband") / hca / "device/net");
    for (const auto& port : ports) {
      Json ib = infiniband_port(reader, hca, port);
      int port_no = ib["port"].get<int>();
      // A netdev's dev_port is 0-based; a single-netdev HCA maps its only port.
      std::optional<std::string> owner;
      for (const auto& nd : netdevs) {
        auto dev_port = reader.read_int(std::filesystem::path("/sys/class/net") / nd / "dev_port");
        if ((dev_port && *dev_port + 1 == port_no) || (!dev_port && netdevs.size() == 1)) owner = nd;
      }
      if (owner && by_name.count(*owner) != 0) {
        nics[by_name[*owner]]["infiniband"] = std::move(ib);
      } else {
        Json n{{"name", fmt::format("{}/{}", hca, port)}, {"virtual", false}, {"infiniband", std::move(ib)}};
        if (auto drv = uevent_value(
                reader, std::filesystem::path("/sys/class/infiniband") / hca / "device/uevent", "DRIVER")) {
          n["driver"] = *drv;
        }
        nics.push_back(std::move(n));
      }
    }
  }
  if (nics.empty()) note(notes, "nics: no network interface besides lo under /sys/class/net");
  host["nics"] = nics;
}

}  // namespace

Json collect_host_info(const SysReader& reader, GpuInventoryFn gpus) {
  Json host{{"cpu", Json::object()},          {"memory", Json::object()}, {"numa", Json::array()},
            {"block_devices", Json::array()}, {"raid", Json::array()},    {"nics", Json::array()},
            {"gpus", Json::array()},          {"notes", Json::array()}};
  Json& notes = host["notes"];
  collect_os(reader, host, notes);
  collect_cpu(reader, host["cpu"], notes);
  collect_memory(reader, host["memory"], notes);
  collect_numa(reader, host, notes);
  collect_block(reader, host, notes);
  collect_raid(reader, host, notes);
  collect_nics(reader, host, notes);
  if (gpus != nullptr) host["gpus"] = gpus(notes);
  return host;
}

}  // namespace mlbench
