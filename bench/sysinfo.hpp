// Host inventory: the `host` block of every report and `mlbench sysinfo`.
//
// Every /sys and /proc read goes through SysReader (bench/sysinfo_reader.hpp), whose root is configurable so
// that tests run on fixture trees in tests/data/; the text goes to the pure parsers of
// bench/sysinfo_parse.hpp; one collector per subsystem (bench/sysinfo_collect.hpp) fills its block. A field
// that cannot be read is left out and a line is added to `notes` — never a crash.
//
// Keys (all optional except hostname/kernel/os/cpu/memory/numa/block_devices/raid/nics/gpus/notes):
//   hostname, kernel, os
//   cpu:    {model, vendor, sockets, cores, threads, caches:[{level, type, size_bytes, shared_cpu_count}],
//            llc_bytes (one LLC instance), llc_total_bytes (all instances), governor, flags:[avx2, avx512f,
//            ..., hypervisor (a VM)], core_cpus:[first logical CPU of each physical core]}
//   memory: {total_bytes, available_bytes, hugepages:{size_bytes, total, free}, transparent_hugepage,
//            dimms:[{locator, size_bytes, speed_mts, type}], channels, theoretical_bandwidth (B/s)}
//   numa:   [{node, cpus:[...], memory_bytes}]
//   block_devices: [{name, model, size_bytes, logical_block_size, physical_block_size, rotational, transport,
//            pcie:{speed_gts, width, max_speed_gts, max_width, bandwidth, max_bandwidth (B/s per direction)},
//            hw_queues, nvme_poll_queues, partitions:[...], mountpoints:[...], holders:[...]}]
//   raid:   [{name, level, members:[...], chunk_bytes, size_bytes}]
//   nics:   [{name, driver, speed_mbps, mtu, operstate, virtual,
//            infiniband:{device, port, rate_gbps, state, link_layer}}]
//   gpus:   [{index, name, uuid, compute_capability, sms, memory_bytes, sm_clock_hz, memory_clock_hz,
//            bus_width_bits, l2_bytes, pcie:{speed_gts, width, bandwidth, max_speed_gts, max_width,
//            max_bandwidth from sysfs; gen, width, max_gen, max_width from NVML}, driver_version,
//            runtime_version, ecc, power_limit_w, persistence_mode}]
//   notes:  ["why a field is missing", ...]
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "bench/sysinfo_parse.hpp"
#include "bench/sysinfo_reader.hpp"

namespace mlbench {

// Fills `gpus` (and may add to `notes`); provided by the GPU layer when built with CUDA.
using GpuInventoryFn = nlohmann::json (*)(nlohmann::json& notes);

// The whole inventory. GPUs come from `gpus` when given (builtin_host_info() passes the CUDA runtime + NVML
// provider of this build; fixture tests pass none, and `gpus` is then an empty list).
nlohmann::json collect_host_info(const SysReader& reader, GpuInventoryFn gpus = nullptr);

// Reader-based helpers shared with the probes (storage.io, the GPU inventory).

// The PCIe link of the PCI function whose sysfs folder is `pci`: {speed_gts, width, bandwidth} as trained
// now, plus max_speed_gts, max_width, max_bandwidth when readable (an idle link may run below its maximum:
// GPUs retrain to full speed under load); nullopt when the current link is not readable.
std::optional<nlohmann::json> pcie_link_info(const SysReader& reader, const std::filesystem::path& pci);
// One entry of `block_devices` for /sys/block/<name> (model, sizes, PCIe link and its bandwidth, queues,
// partitions, holders, mountpoints); what cannot be read is left out and explained in `notes`.
nlohmann::json block_device_info(const SysReader& reader, const std::string& name, nlohmann::json& notes);

}  // namespace mlbench
