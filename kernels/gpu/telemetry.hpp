// GPU telemetry: NVML loaded at run time with dlopen (no NVML headers or library at build time), a side
// thread sampling clocks, power, temperature and throttle reasons every 20 ms while a case runs, and the
// min/median/max summary that goes into Result::telemetry with a warning when the GPU throttled.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
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
  // ECC errors since the driver loaded (volatile), corrected or uncorrected; nullopt without ECC.
  std::optional<std::uint64_t> ecc_errors(Device d, bool uncorrected) const;
  // Inventory fields ECC, power limit, persistence mode, PCIe link, driver version; missing ones left out.
  nlohmann::json inventory(Device d) const;
  std::string driver_version() const;

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
