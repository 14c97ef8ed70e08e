// GPU telemetry: NVML loaded at run time with dlopen (no NVML headers or library at build time), a side
// thread sampling clocks, power, temperature and throttle reasons every 20 ms while a case runs, and the
// min/median/max summary that goes into Result::telemetry with a warning when the GPU throttled.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace mlbench::gpu {

struct TelemetrySample {
  double sm_clock_hz = 0, memory_clock_hz = 0, power_w = 0, temperature_c = 0;
  std::uint64_t throttle_reasons = 0;  // nvmlClocksEventReasons bits
};

// Names of the set throttle-reason bits ("sw_power_cap", "hw_thermal_slowdown", ...).
std::vector<std::string> throttle_reason_names(std::uint64_t bits);
// Reasons that lower clocks under load (power caps, thermal and hardware slowdowns); idle, application-clock
// and sync-boost bits are not throttling.
bool is_throttling(std::uint64_t bits);

struct TelemetrySummary {
  nlohmann::json json = nlohmann::json::object();  // {sm_clock_hz: {min, median, max}, ..., samples: n}
  std::optional<std::string> warning;              // set when the GPU throttled during the case
};
TelemetrySummary summarize_telemetry(const std::vector<TelemetrySample>& samples);

// The few NVML entry points mlbench uses, resolved from libnvidia-ml.so.1.
class Nvml {
 public:
  using Device = struct NvmlDeviceOpaque*;
  // The process-wide instance, or nullptr when NVML cannot be loaded or initialised (`why` says why).
  static Nvml* get(std::string* why = nullptr);

  std::optional<Device> device_by_uuid(const std::string& uuid) const;
  std::optional<TelemetrySample> sample(Device d) const;
  // GPU busy share over the driver's last sample period (0-1); nullopt when NVML does not report it.
  std::optional<double> utilisation(Device d) const;
  // ECC errors, corrected (single-bit) or uncorrected (double-bit), since the driver loaded (volatile) or
  // over the GPU's life (aggregate); nullopt without ECC.
  std::optional<std::uint64_t> ecc_errors(Device d, bool uncorrected, bool aggregate = false) const;
  // Inventory fields ECC, power limit, persistence mode, PCIe link, driver version; missing ones left out.
  nlohmann::json inventory(Device d) const;
  std::string driver_version() const;

  // The burn-in's counters. Each entry point is optional: nullopt (or an empty map) when the library lacks it
  // or the GPU reports NVML_ERROR_NOT_SUPPORTED (or any other failure).
  // Every GPU NVML lists, in its index order (nvmlDeviceGetCount_v2, nvmlDeviceGetHandleByIndex_v2).
  std::vector<Device> devices() const;
  struct Identity {
    std::string name, uuid;
    std::string pci;  // nvmlPciInfo_t::busId, "00000000:01:00.0"
  };
  std::optional<Identity> identity(Device d) const;
  // HBM temperature in °C (nvmlDeviceGetFieldValues, NVML_FI_DEV_MEMORY_TEMP).
  std::optional<double> memory_temperature(Device d) const;
  // Pages retired for multiple single-bit errors (double_bit false) or for a double-bit error, pending ones
  // included (nvmlDeviceGetRetiredPages's size query).
  std::optional<std::uint64_t> retired_pages(Device d, bool double_bit) const;
  std::optional<bool> retired_pages_pending(Device d) const;
  struct RemappedRows {
    std::uint64_t correctable = 0, uncorrectable = 0;
    bool pending = false, failed = false;
  };
  std::optional<RemappedRows> remapped_rows(Device d) const;
  std::optional<std::uint64_t> pcie_replays(Device d) const;
  struct PcieLink {
    std::optional<int> gen, width, max_gen, max_width;
  };
  PcieLink pcie_link(Device d) const;
  // CRC FLIT, CRC DATA, replay and recovery errors summed over the NVLinks (0..17, up to the first one NVML
  // does not know); nullopt on a GPU without NVLink.
  std::optional<std::uint64_t> nvlink_errors(Device d) const;
  // Seconds the GPU was held below application clocks per policy ("power", "thermal", "sync_boost",
  // "board_limit", "low_utilization", "reliability"), cumulative (nvmlDeviceGetViolationStatus).
  std::map<std::string, double> violation_seconds(Device d) const;

  struct Xid {
    Device device;
    int xid = 0;
  };
  // XID critical errors through an NVML event set, registered on the GPUs given; freed on destruction.
  class XidEvents {
   public:
    ~XidEvents();
    XidEvents(const XidEvents&) = delete;
    XidEvents& operator=(const XidEvents&) = delete;
    // The XIDs waiting now (nvmlEventSetWait_v2 with timeout 0, until it times out).
    std::vector<Xid> poll();

   private:
    friend class Nvml;
    XidEvents(const Nvml* nvml, void* set) : nvml_(nvml), set_(set) {}
    const Nvml* nvml_;
    void* set_;  // nvmlEventSet_t
  };
  // nullptr when the library has no event sets or no GPU accepts XID events.
  std::unique_ptr<XidEvents> xid_events(const std::vector<Device>& devices) const;

  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;
  ~Nvml();

 private:
  Nvml() = default;
  struct Api;
  void* lib_ = nullptr;
  Api* api_ = nullptr;
  bool initialised_ = false;
};

// Samples `source` every `interval` on a side thread from start() until stop() or destruction.
class TelemetrySampler {
 public:
  using Source = std::function<std::optional<TelemetrySample>()>;
  explicit TelemetrySampler(Source source,
                            std::chrono::milliseconds interval = std::chrono::milliseconds(20));
  ~TelemetrySampler();
  TelemetrySampler(const TelemetrySampler&) = delete;
  TelemetrySampler& operator=(const TelemetrySampler&) = delete;

  void start();
  std::vector<TelemetrySample> stop();  // joins the thread; samples taken since start()

 private:
  Source source_;
  std::chrono::milliseconds interval_;
  std::atomic<bool> running_{false};
  std::thread thread_;
  std::vector<TelemetrySample> samples_;
};

}  // namespace mlbench::gpu
