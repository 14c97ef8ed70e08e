#include "storage/cpus.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"
#include "bench/sysinfo.hpp"

namespace mlbench::storage {
namespace fs = std::filesystem;
namespace {

bool all_digits(std::string_view s) {
  return !s.empty() && s.size() < 10 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

void check_cpus_option(std::string_view option) {
  if (option == "auto" || option == "none") return;
  if (parse_cpu_list(option).empty())
    throw UsageError(fmt::format("--cpus: '{}' is not auto, none or a CPU list such as 0,2,4-7", option));
}

std::vector<int> pin_cpus(std::string_view option, const std::vector<int>& allowed,
                          const std::vector<int>& node_cpus, const std::vector<int>& irq_cpus) {
  check_cpus_option(option);
  if (option == "none") return {};
  auto in = [](const std::vector<int>& v, int c) { return std::find(v.begin(), v.end(), c) != v.end(); };
  if (option == "auto") {
    std::vector<int> base;
    for (int c : node_cpus)
      if (in(allowed, c)) base.push_back(c);
    if (base.empty()) base = allowed;
    std::stable_partition(base.begin(), base.end(), [&](int c) { return in(irq_cpus, c); });
    return base;
  }
  auto list = parse_cpu_list(option);
  for (int c : list) {
    if (!in(allowed, c)) {
      throw UsageError(
          fmt::format("--cpus: CPU {} is not available to this process (it may use {}); "
                      "name those CPUs, or use --cpus auto",
                      c, fmt::join(allowed, ",")));
    }
  }
  return list;
}

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> out;
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return out;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) out.push_back(c);
  return out;
}

std::vector<int> disk_node_cpus(const std::string& disk, const SysReader& sys) {
  if (disk.empty() || disk.find('/') != std::string::npos) return {};
  const fs::path dev = fs::path("/sys/block") / disk / "device";
  // NVMe: device → the controller, whose device is the PCI function; SCSI/SATA and virtio: one level.
  for (const auto& p : {dev / "numa_node", dev / "device" / "numa_node"}) {
    auto node = sys.read_int(p);
    if (!node || *node < 0) continue;
    auto cpus = sys.read(fmt::format("/sys/devices/system/node/node{}/cpulist", *node));
    return cpus ? parse_cpu_list(*cpus) : std::vector<int>{};
  }
  return {};
}

std::vector<int> busy_irqs(const std::vector<int>& irqs, const std::map<int, std::uint64_t>& counts) {
  std::uint64_t most = 0;
  for (int i : irqs)
    if (auto it = counts.find(i); it != counts.end()) most = std::max(most, it->second);
  std::vector<int> out;
  for (int i : irqs) {
    auto it = counts.find(i);
    if (most > 0 && it != counts.end() && it->second > 0 && it->second >= most / 100) out.push_back(i);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<int> disk_irq_cpus(const std::string& disk, const SysReader& sys) {
  if (disk.empty() || disk.find('/') != std::string::npos) return {};
  auto dev = sys.canonical(fs::path("/sys/block") / disk / "device");
  if (!dev) return {};
  fs::path p = *dev;
  // Up to the PCI function: the first ancestor with an msi_irqs folder.
  while (p.has_relative_path() && !sys.exists(p / "msi_irqs")) p = p.parent_path();
  if (!sys.exists(p / "msi_irqs")) return {};
  std::vector<int> irqs;
  for (const auto& name : sys.list(p / "msi_irqs"))
    if (all_digits(name)) irqs.push_back(std::stoi(name));
  auto text = sys.read("/proc/interrupts");
  if (!text) return {};
  std::set<int> cpus;
  for (int irq : busy_irqs(irqs, parse_interrupt_counts(*text))) {
    auto list = sys.read(fmt::format("/proc/irq/{}/effective_affinity_list", irq));
    if (!list) list = sys.read(fmt::format("/proc/irq/{}/smp_affinity_list", irq));
    if (list)
      for (int c : parse_cpu_list(*list)) cpus.insert(c);
  }
  return {cpus.begin(), cpus.end()};
}

std::string pin_this_thread(int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE) return fmt::format("CPU {} is out of range", cpu);
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  int rc = ::pthread_setaffinity_np(::pthread_self(), sizeof set, &set);
  return rc == 0 ? "" : std::strerror(rc);
}

}  // namespace mlbench::storage
