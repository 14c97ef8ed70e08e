// Host inventory: the `host` block of every report and `mlbench sysinfo`.
//
// Every /sys and /proc read goes through SysReader, whose root is configurable so that tests run on fixture
// trees in tests/data/. A field that cannot be read is left out and a line is added to `notes` — never a
// crash.
//
// Keys (all optional except hostname/kernel/os/cpu/memory/numa/block_devices/raid/nics/gpus/notes):
//   hostname, kernel, os
//   cpu:    {model, vendor, sockets, cores, threads, caches:[{level, type, size_bytes, shared_cpu_count}],
//            llc_bytes, governor, flags:[avx2, avx512f, ...]}
//   memory: {total_bytes, available_bytes, hugepages:{size_bytes, total, free}, transparent_hugepage,
//            dimms:[{size_bytes, speed_mts, type}], channels, theoretical_bandwidth (B/s)}
//   numa:   [{node, cpus:[...], memory_bytes}]
//   block_devices: [{name, model, size_bytes, logical_block_size, physical_block_size, rotational, transport,
//            pcie:{speed_gts, width, max_speed_gts, max_width, bandwidth (B/s per direction)},
//            hw_queues, nvme_poll_queues, mountpoints:[...], holders:[...]}]
//   raid:   [{name, level, members:[...], chunk_bytes, size_bytes}]
//   nics:   [{name, driver, speed_mbps, mtu, infiniband:{rate_gbps, state}}]
//   gpus:   [{index, name, uuid, compute_capability, sms, memory_bytes, sm_clock_hz, memory_clock_hz,
//            bus_width_bits, l2_bytes, pcie:{gen, width}, driver_version, runtime_version,
//            ecc, power_limit_w, persistence_mode}]
//   notes:  ["why a field is missing", ...]
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mlbench {

class SysReader {
 public:
  explicit SysReader(std::filesystem::path root = "/") : root_(std::move(root)) {}
  // Whole file under the root ("/proc/meminfo" → root/proc/meminfo), trailing newline stripped.
  std::optional<std::string> read(const std::filesystem::path& abs) const;
  std::optional<long long> read_int(const std::filesystem::path& abs) const;
  std::vector<std::string> list(const std::filesystem::path& abs_dir) const;  // entry names, sorted
  std::filesystem::path resolve(const std::filesystem::path& abs) const;      // root-relative path
  const std::filesystem::path& root() const { return root_; }

 private:
  std::filesystem::path root_;
};

// Fills `gpus` (and may add to `notes`); provided by the GPU layer when built with CUDA.
using GpuInventoryFn = nlohmann::json (*)(nlohmann::json& notes);

// The whole inventory. GPUs come from `gpus` when given (builtin_host_info() passes the CUDA runtime + NVML
// provider of this build; fixture tests pass none, and `gpus` is then an empty list).
nlohmann::json collect_host_info(const SysReader& reader, GpuInventoryFn gpus = nullptr);

}  // namespace mlbench
