#include "storage/cpus.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "bench/error.hpp"
#include "bench/sysinfo.hpp"

namespace mlbench::storage {
void check_cpus_option(std::string_view option) {
  if (option == "auto" || option == "none") return;
  if (parse_cpu_list(option).empty())
    throw UsageError(fmt::format("--cpus: '{}' is not auto, none or a CPU list such as 0,2,4-7", option));
}

std::vector<int> pin_cpus(std::string_view option, const std::vector<int>& allowed,
                          const std::vector<int>& node_cpus) {
  check_cpus_option(option);
  if (option == "none") return {};
  auto is_allowed = [&](int c) { return std::find(allowed.begin(), allowed.end(), c) != allowed.end(); };
  if (option == "auto") {
    std::vector<int> local;
    for (int c : node_cpus)
      if (is_allowed(c)) local.push_back(c);
    return local.empty() ? allowed : local;
  }
  auto list = parse_cpu_list(option);
  for (int c : list) {
    if (!is_allowed(c)) {
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

std::vector<int> disk_node_cpus(const std::string& disk) {
  if (disk.empty() || disk.find('/') != std::string::npos) return {};
  const std::filesystem::path dev = std::filesystem::path("/sys/block") / disk / "device";
  // NVMe: device → the controller, whose device is the PCI function; SCSI/SATA and virtio: one level.
  const SysReader sys;
  for (const auto& p : {dev / "numa_node", dev / "device" / "numa_node"}) {
    auto node = sys.read_int(p);
    if (!node || *node < 0) continue;
    auto cpus = sys.read(fmt::format("/sys/devices/system/node/node{}/cpulist", *node));
    return cpus ? parse_cpu_list(*cpus) : std::vector<int>{};
  }
  return {};
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
