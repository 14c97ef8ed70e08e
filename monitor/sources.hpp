// `mlbench monitor`'s telemetry sources: each Source reads one kind of counter into a plain Snapshot, so the
// exposition, rates and ratios are computed from two Snapshots and tested on fixture trees without the
// hardware. Method: the kernel's own cumulative counters (/proc/diskstats, /sys/class/net/*/statistics and
// /sys/class/infiniband/*/ports/*/counters through bench/net_counters, /proc/stat, /proc/meminfo) read
// through SysReader, whose root is "/" on the machine and a fixture folder in tests; per GPU NVML through
// kernels/gpu/telemetry (dlopen at run time), the GPUs listed from /proc/driver/nvidia/gpus/*/information;
// XID events from the kernel log's "NVRM: Xid" lines (/dev/kmsg). A source that cannot be read throws
// Error: the monitor counts it and its series vanish for that sample.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/net_counters.hpp"
#include "bench/sysinfo_reader.hpp"
#include "kernels/gpu/telemetry.hpp"

namespace mlbench::monitor {

struct DiskCounters {
  std::string device;  // "nvme0n1"
  std::uint64_t reads = 0, writes = 0, read_bytes = 0, write_bytes = 0;
  double busy_seconds = 0;  // time the device had I/O in flight
};

struct CpuCounters {
  double busy_seconds = 0, idle_seconds = 0, iowait_seconds = 0;  // all CPUs together
};

struct MemoryGauges {
  double total_bytes = 0, available_bytes = 0;
};

// One GPU's reading: the telemetry sample and what NVML reports beside it (absent when it does not).
struct GpuSample {
  gpu::TelemetrySample telemetry;
  std::optional<double> utilisation;                            // 0-1
  std::optional<std::uint64_t> ecc_corrected, ecc_uncorrected;  // volatile counts
};

struct GpuReading {
  std::string device;  // "gpu0", by PCI bus order
  std::string uuid;
  gpu::TelemetrySample sample;
  std::optional<double> utilisation;
  std::optional<std::uint64_t> ecc_corrected, ecc_uncorrected;
};

// XID events counted per GPU and XID number since the exporter started reading the kernel log.
struct XidCount {
  std::string device;  // "gpu0", or the PCI address when it is not a listed GPU
  int xid = 0;
  std::uint64_t count = 0;
};

struct Snapshot {
  double time_s = 0;  // steady clock
  std::vector<DiskCounters> disks;
  std::vector<LinkCounters> links;
  std::optional<CpuCounters> cpu;
  std::optional<MemoryGauges> memory;
  std::vector<GpuReading> gpus;
  std::vector<XidCount> xids;
};

class Source {
 public:
  virtual ~Source() = default;
  virtual const char* name() const = 0;  // the `source` label of mlbench_monitor_errors_total
  // Adds this source's readings to `into`; throws Error when the source cannot be read at all.
  virtual void sample(Snapshot& into) = 0;
  // The devices this source reported in `s` (a device that was there before and is gone counts as an error).
  virtual std::vector<std::string> devices(const Snapshot& s) const = 0;
};

// Whole block devices (those in /sys/block, not loop/ram/zram) from /proc/diskstats; sectors are 512 bytes.
std::unique_ptr<Source> make_disk_source(SysReader reader);
// Every interface but lo from /sys/class/net/*/statistics (bench/net_counters, shared with net.nccl).
std::unique_ptr<Source> make_net_source(SysReader reader);
// Every port of /sys/class/infiniband/*/ports/*/counters (port_*_data counts 4-byte words;
// bench/net_counters).
std::unique_ptr<Source> make_infiniband_source(SysReader reader);
// /proc/stat's "cpu" line (USER_HZ ticks) and /proc/meminfo's MemTotal/MemAvailable.
std::unique_ptr<Source> make_cpu_memory_source(SysReader reader, double ticks_per_second);

// Reads one GPU by UUID; nullopt when it does not answer (fallen off the bus).
using GpuReader = std::function<std::optional<GpuSample>(const std::string& uuid)>;
// Gives the reader, or throws Error naming why it cannot (NVML missing).
using GpuReaderFactory = std::function<GpuReader()>;
// GPUs listed from /proc/driver/nvidia/gpus/<bus id>/information ("GPU UUID:" lines), read through the reader
// `open` gives, asked for the first time GPUs are listed (a node without NVIDIA GPUs needs no NVML; one with
// GPUs and no NVML is a failing source).
std::unique_ptr<Source> make_gpu_source(SysReader reader, GpuReaderFactory open);
// The NVML reader; throws Error naming why when NVML cannot be loaded.
GpuReader nvml_gpu_reader();

// "NVRM: Xid (PCI:0000:01:00): 79, pid=..., GPU has fallen off the bus." (a /dev/kmsg record
// "6,1234,5678,-;NVRM: ..." or a dmesg line) → {"0000:01:00", 79}; nullopt for any other line.
struct XidEvent {
  std::string pci;  // domain:bus:device, lower case
  int xid = 0;
};
std::optional<XidEvent> parse_xid_line(std::string_view line);
// NVIDIA XID events from the kernel log (/dev/kmsg, needs root or CAP_SYSLOG), read from the start of the
// ring buffer and then as they come; opened once NVIDIA GPUs are listed (a node without them has no XIDs).
std::unique_ptr<Source> make_xid_source(SysReader reader);

// Every real source on the root of `reader`.
std::vector<std::unique_ptr<Source>> default_sources(const SysReader& reader);

}  // namespace mlbench::monitor
