// The burn-in's telemetry: per GPU every second the clocks, power, temperatures, utilisation, clock-event
// (throttle) reasons and the error counters (ECC, retired pages, row remaps, PCIe replays and link, NVLink),
// plus XID events from NVML's event set and the kernel log, and the host's CPU, memory and disks. The readers
// sit behind GpuTelemetry so that the verdict, the throttle accounting, the decimation and the event parsing
// are tested with a fixture reader; the real one is NVML (dlopen, kernels/gpu/telemetry) and /dev/kmsg
// (monitor/sources).
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "report/report.hpp"
#include "report/report_burnin.hpp"

namespace mlbench::burnin {

// One reading of one GPU. Gauges are nullopt / 0 when NVML does not report them; counters are cumulative.
struct GpuCounters {
  double sm_clock_hz = 0, memory_clock_hz = 0, power_w = 0, temperature_c = 0;
  std::optional<double> memory_temperature_c, utilisation;  // HBM temperature; busy share 0-1
  std::uint64_t clock_event_reasons = 0;  // nvmlClocksEventReasons bits (kernels/gpu/telemetry)
  std::optional<std::uint64_t> ecc_sbe_volatile, ecc_dbe_volatile, ecc_sbe_aggregate, ecc_dbe_aggregate;
  std::optional<std::uint64_t> retired_pages_sbe, retired_pages_dbe;
  std::optional<bool> retired_pages_pending;
  std::optional<std::uint64_t> remapped_rows_correctable, remapped_rows_uncorrectable;
  std::optional<bool> row_remap_pending, row_remap_failed;
  std::optional<std::uint64_t> pcie_replays;
  std::optional<int> pcie_gen, pcie_width, pcie_gen_max, pcie_width_max;
  std::optional<std::uint64_t> nvlink_errors;  // CRC, replay and recovery counts summed over the links
  // NVML violation counters (nvmlDeviceGetViolationStatus): seconds held back per policy, cumulative.
  std::map<std::string, double> violation_seconds;
};
nlohmann::json to_json(const GpuCounters& c);  // the counters, for the report's before/after snapshots

struct GpuId {
  std::string device;  // "gpu0", by PCI bus order
  std::string uuid, pci, name;
};

// A telemetry source. Called from the sampler's one thread.
class GpuTelemetry {
 public:
  virtual ~GpuTelemetry() = default;
  virtual std::vector<GpuId> gpus() = 0;
  // One reading; nullopt when the GPU does not answer (fallen off the bus).
  virtual std::optional<GpuCounters> read(const GpuId& gpu) = 0;
  // XID and other events since the last call; time_s left 0 (the sampler stamps them).
  virtual std::vector<burnin_report::Event> events() = 0;
};

// NVML (loaded with dlopen) and the kernel log's "NVRM: Xid" lines when /dev/kmsg is readable; a node without
// NVIDIA GPUs or NVML gives an empty list and `why` says why.
std::unique_ptr<GpuTelemetry> make_nvml_telemetry(std::string* why = nullptr);
// A recorded script (tests, and runs replayed from a file): {"gpus": [{device, uuid, pci, name}],
// "samples": [{"gpu0": {counters...} | null, ...}, ...], "events": [[{kind, device, code, text}], ...]}; each
// read() of a GPU takes its next sample (the last one repeats), each events() call the next list.
std::unique_ptr<GpuTelemetry> make_fixture_telemetry(const nlohmann::json& script);

// What the sampler kept for one GPU.
struct GpuRecord {
  GpuId id;
  burnin_report::Timeline timeline;                // full resolution; decimated when written
  std::map<std::string, double> throttle_seconds;  // clock-event reason name -> seconds it was set
  std::optional<GpuCounters> before, after;        // first and last reading
  std::optional<GpuCounters> peak_load;  // the reading with the highest power (PCIe link under load)
  bool lost = false;                     // stopped answering at some point
};

struct HostRecord {
  burnin_report::Timeline timeline;  // cpu_busy, memory_used_bytes, disk_read_bps, disk_write_bps
};

// Samples every GPU and the host every `interval` on a side thread between start() and stop(), stamping
// samples and events with seconds since `origin`.
class Sampler {
 public:
  Sampler(std::unique_ptr<GpuTelemetry> gpus, std::filesystem::path sys_root,
          std::chrono::steady_clock::time_point origin,
          std::chrono::milliseconds interval = std::chrono::milliseconds(1000));
  ~Sampler();
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  void start();
  void stop();
  // Takes one sample now on the caller's thread (tests drive the sampler this way, without start()).
  void sample_once();
  // The same, stamped `time_s` seconds since origin (tests space samples without waiting).
  void sample_at(double time_s);

  const std::vector<GpuId>& gpus() const;
  std::vector<GpuRecord> gpu_records() const;
  HostRecord host_record() const;
  std::vector<burnin_report::Event> events() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace mlbench::burnin
