// `mlbench monitor`'s state and exposition: the sources' Snapshots, the counters and gauges in the Prometheus
// text format (through reports/prometheus's PromWriter, shared with `export --format prometheus`) and, with a
// baseline report, each live rate as a ratio of what this node measured.
//
// Names follow the Prometheus rules (base units, `_total` on counters, `_info` for metadata, one HELP/TYPE
// per family) and every label value is a device, a source or a fixed reason name, so the series are bounded
// by the hardware. Memory is bounded too: two Snapshots and per-device counters, pruned when a device
// vanishes. Clock-event (throttle) seconds are accumulated from the sampled reason bits: each interval's
// length is added to every reason set at its end (the resolution is the sampling interval).
//
// Ratios (mlbench_utilisation_ratio{resource,device}): the live rate between the last two Snapshots over the
// report's maximum for that device — storage_read/storage_write (bytes/s), storage_read_iops/
// storage_write_iops (completed reads/writes per second from /proc/diskstats), network_rx/network_tx (the
// NIC's or InfiniBand port's bytes/s) — and gpu_power (the last sample over the highest sampled power). The
// ceilings are what this node measured, not datasheet figures, so a ratio near 1 means "as fast as it went
// under mlbench". Host-memory bandwidth has no ratio: Linux exposes no live memory-bandwidth counter in
// procfs or sysfs (it needs the uncore PMU), so only memory use is exported.
//
// The bottleneck rule (mlbench_bottleneck{resource}): storage or network is the bottleneck when any of its
// ratios is at least kSaturatedRatio while every GPU idles (NVML's gpu_idle reason, utilisation under
// kIdleUtilisation, or power under kIdlePowerRatio of the measured maximum) — the job waits on input or on
// its peers; each is emitted only when the baseline has a ceiling of that kind, and is 0 when no GPU is read
// (a node without GPUs, or NVML missing: nothing shows them idle). NCCL's kernels spin while they wait on the
// network, so a network-bound GPU shows high utilisation and no gpu_idle reason; it counts as idle through
// its power (spinning draws little), which needs the baseline's power ceiling. A GPU is power- or
// thermal-throttled when those clock-event reasons are set.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "monitor/sources.hpp"
#include "report/report.hpp"
#include "reports/inputs.hpp"
#include "reports/prometheus.hpp"

namespace mlbench::monitor {

inline constexpr double kSaturatedRatio = 0.8;
inline constexpr double kIdlePowerRatio = 0.5;
inline constexpr double kIdleUtilisation = 0.1;
// A NIC's rate in a net.nccl result is a ceiling only when it carried at least this share of the busiest
// NIC's bytes in the same window: the others (a management port's ssh and scrapes) carried background
// traffic, and its few kB/s as a "ceiling" would make every idle moment look saturated.
inline constexpr double kNicCarrierShare = 0.1;

// The node's measured ceilings from a report, each the maximum over the report's results: storage.io
// bandwidth and IOPS per raw device (results of one target /dev/NAME; read/randread and write/randwrite give
// `bandwidth` and `iops`, randrw its `read_iops` and `write_iops`), each NIC's and InfiniBand port's receive
// and transmit rate during net.nccl's timed loops (info.nic_rates, recorded when the world spans nodes) and
// each GPU's highest sampled power (a probe's telemetry power_w max).
struct Ceilings {
  std::map<std::string, double> storage_read_bytes_per_second, storage_write_bytes_per_second;
  std::map<std::string, double> storage_read_iops, storage_write_iops;
  std::map<std::string, double> network_rx_bytes_per_second,
      network_tx_bytes_per_second;                // "eth0", "mlx5_0/1"
  std::map<std::string, double> gpu_power_watts;  // by "gpuN"
  // No ceiling of any kind: the reports give no ratio and no storage or network bottleneck.
  bool empty() const;
};
Ceilings ceilings_from_report(const Report& report);
// The same over several reports of the node (a `mlbench run` and a multi-node `mlbench nccl`, say): each
// ceiling the maximum over all of them.
Ceilings ceilings_from_reports(const std::vector<NamedReport>& reports);

class Monitor {
 public:
  using Log = std::function<void(const std::string&)>;
  Monitor(std::vector<std::unique_ptr<Source>> sources, std::optional<Ceilings> ceilings, Log log);

  // Reads every source at steady time `now_s`: a source that throws is counted and logged once until it
  // recovers; a device that was there last time and is gone is counted and logged once.
  void sample(double now_s);
  std::string exposition() const;

  const Snapshot& current() const { return cur_; }

 private:
  void account_clock_events();
  void add_ratios_and_bottlenecks(PromWriter& w) const;

  std::vector<std::unique_ptr<Source>> sources_;
  std::optional<Ceilings> ceilings_;
  Log log_;
  Snapshot prev_, cur_;
  bool have_prev_ = false;
  std::uint64_t samples_ = 0;
  std::map<std::string, double> errors_;                     // by source name
  std::set<std::string> failing_;                            // sources whose last sample threw
  std::map<std::string, std::vector<std::string>> devices_;  // by source name, as last seen
  std::map<std::string, std::map<std::string, double>> clock_event_seconds_;  // gpu → reason → seconds
};

// `--textfile`: each exposition, with mlbench_textfile_write_errors_total, replaces the file atomically
// (write_text_atomic). A write that fails (a full disk, a read-only or unwritable folder) leaves the last
// good file in place, the convention of node_exporter's textfile collector, whose node_textfile_mtime_seconds
// shows its age; it logs one line when the failure is new (the same reason again is not repeated each
// interval), the next interval tries again, and the first write that succeeds logs that it recovered.
class TextfileWriter {
 public:
  TextfileWriter(std::filesystem::path path, Monitor::Log log);
  // True when the file now holds `exposition`.
  bool write(const std::string& exposition);

 private:
  std::filesystem::path path_;
  Monitor::Log log_;
  std::uint64_t errors_ = 0;
  std::string failing_;  // the last failure's message; empty while writes succeed
};

}  // namespace mlbench::monitor
