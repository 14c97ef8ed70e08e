// Host inventory: the `host` block of every report and `mlbench sysinfo`.
//
// Every /sys and /proc read goes through SysReader, whose root is configurable so that tests run on fixture
// trees in tests/data/. A field that cannot be read is left out and a line is added to `notes` — never a
// crash.
//
// Keys (all optional except hostname/kernel/os/cpu/memory/numa/block_devices/raid/nics/gpus/notes):
//   hostname, kernel, os
//   cpu:    {model, vendor, sockets, cores, threads, caches:[{level, type, size_bytes, shared_cpu_count}],
//            llc_bytes (one LLC instance), llc_total_bytes (all instances), governor, flags:[avx2, avx512f,
//            ...], core_cpus:[first logical CPU of each physical core]}
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

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace mlbench {

class SysReader {
 public:
  explicit SysReader(std::filesystem::path root = "/") : root_(std::move(root)) {}
  // Whole file under the root ("/proc/meminfo" → root/proc/meminfo), trailing newline stripped, bytes that
  // are not UTF-8 replaced by U+FFFD (the text goes into JSON).
  std::optional<std::string> read(const std::filesystem::path& abs) const;
  std::optional<long long> read_int(const std::filesystem::path& abs) const;
  // Entry names, sorted; names that are not UTF-8 are left out (they could be neither reported nor re-read).
  std::vector<std::string> list(const std::filesystem::path& abs_dir) const;
  // Whole file as bytes, nothing stripped (binary tables such as the SMBIOS one).
  std::optional<std::string> read_bytes(const std::filesystem::path& abs) const;
  bool exists(const std::filesystem::path& abs) const;
  std::filesystem::path resolve(const std::filesystem::path& abs) const;  // root-relative path
  const std::filesystem::path& root() const { return root_; }

 private:
  std::filesystem::path root_;
};

// Fills `gpus` (and may add to `notes`); provided by the GPU layer when built with CUDA.
using GpuInventoryFn = nlohmann::json (*)(nlohmann::json& notes);

// The whole inventory. GPUs come from `gpus` when given (builtin_host_info() passes the CUDA runtime + NVML
// provider of this build; fixture tests pass none, and `gpus` is then an empty list).
nlohmann::json collect_host_info(const SysReader& reader, GpuInventoryFn gpus = nullptr);

// Small typed helpers, pure or reader-based, shared with the probes (storage.io, host.membw).

// Per-direction bandwidth (B/s) of a PCIe link of `width` lanes at `gts` GT/s per lane, after line encoding
// (8b/10b at 2.5 and 5 GT/s, 128b/130b at 8-32 GT/s, 242B/256B FLIT at 64 GT/s); nullopt for another rate.
std::optional<double> pcie_bandwidth(double gts, int width);
// The PCIe link of the PCI function whose sysfs folder is `pci`: {speed_gts, width, bandwidth} as trained
// now, plus max_speed_gts, max_width, max_bandwidth when readable (an idle link may run below its maximum:
// GPUs retrain to full speed under load); nullopt when the current link is not readable.
std::optional<nlohmann::json> pcie_link_info(const SysReader& reader, const std::filesystem::path& pci);
// "16.0 GT/s PCIe" / "8 GT/s" → GT/s; nullopt for "Unknown" or garbage.
std::optional<double> parse_pcie_speed(std::string_view text);
// "0-3,8,10-11" → {0,1,2,3,8,10,11}; an empty list for an empty or malformed string, or one naming CPU 65536
// or more CPUs.
std::vector<int> parse_cpu_list(std::string_view text);
// /proc/interrupts → interrupts serviced so far per IRQ number, summed over the CPU columns (named rows such
// as NMI: are left out).
std::map<int, std::uint64_t> parse_interrupt_counts(std::string_view text);
// /proc/PID/smaps → the AnonHugePages of the mapping holding address `addr`, in bytes; nullopt when no
// mapping holds it or its block has no such line (huge pages off in the kernel).
std::optional<std::uint64_t> parse_smaps_anon_huge(std::string_view smaps, std::uint64_t addr);
// sysfs cache sizes: "48K", "1024K", "32M", "512" → bytes.
std::optional<std::uint64_t> parse_cache_size(std::string_view text);
// DIMMs (SMBIOS type 17, populated slots only) of a raw SMBIOS/DMI table as /sys/firmware/dmi/tables/DMI
// holds it: [{locator, size_bytes, speed_mts (configured, else rated), type}]. Truncated input ends the walk.
nlohmann::json parse_smbios_memory_devices(std::string_view table);
// One entry of `block_devices` for /sys/block/<name> (model, sizes, PCIe link and its bandwidth, queues,
// partitions, holders, mountpoints); what cannot be read is left out and explained in `notes`.
nlohmann::json block_device_info(const SysReader& reader, const std::string& name, nlohmann::json& notes);

}  // namespace mlbench
