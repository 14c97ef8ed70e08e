#include "kernels/gpu/telemetry.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <memory>
#include <mutex>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/stats.hpp"

namespace mlbench::gpu {
namespace {

// nvmlClocksEventReasons bits (nvml.h), named as mlbench reports them.
struct ReasonBit {
  std::uint64_t bit;
  const char* name;
  bool throttling;
};
constexpr ReasonBit kReasons[] = {
    {0x1, "gpu_idle", false},
    {0x2, "applications_clocks_setting", false},
    {0x4, "sw_power_cap", true},
    {0x8, "hw_slowdown", true},
    {0x10, "sync_boost", false},
    {0x20, "sw_thermal_slowdown", true},
    {0x40, "hw_thermal_slowdown", true},
    {0x80, "hw_power_brake_slowdown", true},
    {0x100, "display_clock_setting", false},
};

nlohmann::json min_median_max(std::vector<double> v) {
  auto s = compute_stats(v);
  return {{"min", s.min}, {"median", s.median}, {"max", s.max}};
}

// nvml.h constants used below.
constexpr int kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;
constexpr int kNvmlClockMem = 2;
constexpr int kNvmlTemperatureGpu = 0;

}  // namespace

std::vector<std::string> throttle_reason_names(std::uint64_t bits) {
  std::vector<std::string> out;
  std::uint64_t known = 0;
  for (const auto& r : kReasons) {
    known |= r.bit;
    if (bits & r.bit) out.emplace_back(r.name);
  }
  if (bits & ~known) out.push_back(fmt::format("other_0x{:x}", bits & ~known));
  return out;
}

bool is_throttling(std::uint64_t bits) {
  for (const auto& r : kReasons) {
    if (r.throttling && (bits & r.bit)) return true;
  }
  return false;
}

TelemetrySummary summarize_telemetry(const std::vector<TelemetrySample>& samples) {
  TelemetrySummary out;
  out.json["samples"] = samples.size();
  if (samples.empty()) return out;
  auto field = [&](double TelemetrySample::*m) {
    std::vector<double> v;
    for (const auto& s : samples) v.push_back(s.*m);
    return min_median_max(std::move(v));
  };
  out.json["sm_clock_hz"] = field(&TelemetrySample::sm_clock_hz);
  out.json["memory_clock_hz"] = field(&TelemetrySample::memory_clock_hz);
  out.json["power_w"] = field(&TelemetrySample::power_w);
  out.json["temperature_c"] = field(&TelemetrySample::temperature_c);
  std::uint64_t all = 0;
  std::size_t throttled = 0;
  for (const auto& s : samples) {
    all |= s.throttle_reasons;
    if (is_throttling(s.throttle_reasons)) ++throttled;
  }
  out.json["throttle_reasons"] = throttle_reason_names(all);
  out.json["throttled_fraction"] = static_cast<double>(throttled) / static_cast<double>(samples.size());
  if (throttled > 0) {
    std::vector<std::string> active;
    for (const auto& name : throttle_reason_names(all)) {
      for (const auto& r : kReasons) {
        if (r.throttling && name == r.name) active.push_back(name);
      }
    }
    out.warning = fmt::format("the GPU throttled during {:.0f}% of the case ({}); SM clock {:.0f}-{:.0f} MHz",
                              100.0 * static_cast<double>(throttled) / static_cast<double>(samples.size()),
                              fmt::join(active, ", "), out.json["sm_clock_hz"]["min"].get<double>() / 1e6,
                              out.json["sm_clock_hz"]["max"].get<double>() / 1e6);
  }
  return out;
}

// ---- NVML
// --------------------------------------------------------------------------------------------------

struct Nvml::Api {
  using Dev = Nvml::Device;
  int (*init)();
  int (*shutdown)();
  const char* (*error_string)(int);
  int (*by_uuid)(const char*, Dev*);
  int (*clock)(Dev, int, unsigned*);
  int (*power)(Dev, unsigned*);
  int (*temperature)(Dev, int, unsigned*);
  int (*reasons)(Dev, unsigned long long*);
  int (*ecc)(Dev, int*, int*);
  int (*power_limit)(Dev, unsigned*);
  int (*persistence)(Dev, int*);
  int (*driver)(char*, unsigned);
  int (*pcie_gen)(Dev, unsigned*);
  int (*pcie_width)(Dev, unsigned*);
  int (*pcie_max_gen)(Dev, unsigned*);
  int (*pcie_max_width)(Dev, unsigned*);
  int (*utilization)(Dev, unsigned*);  // nvmlUtilization_t {gpu, memory}: two unsigned
  int (*ecc_total)(Dev, int, int, unsigned long long*);
};

Nvml* Nvml::get(std::string* why) {
  static std::once_flag once;
  static std::unique_ptr<Nvml> instance;
  static std::string failure;
  std::call_once(once, [] {
    std::unique_ptr<Nvml> n(new Nvml());
    n->lib_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!n->lib_) {
      const char* err = dlerror();
      failure = fmt::format("NVML not available: {}", err ? err : "dlopen failed");
      return;
    }
    auto api = std::make_unique<Api>();
    std::string missing;
    auto sym = [&](auto& fn, std::initializer_list<const char*> names, bool required = true) {
      for (const char* name : names) {
        if (void* p = dlsym(n->lib_, name)) {
          fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
          return;
        }
      }
      fn = nullptr;
      if (required) missing += fmt::format(" {}", *names.begin());
    };
    sym(api->init, {"nvmlInit_v2", "nvmlInit"});
    sym(api->shutdown, {"nvmlShutdown"});
    sym(api->error_string, {"nvmlErrorString"});
    sym(api->by_uuid, {"nvmlDeviceGetHandleByUUID"});
    sym(api->clock, {"nvmlDeviceGetClockInfo"});
    sym(api->power, {"nvmlDeviceGetPowerUsage"});
    sym(api->temperature, {"nvmlDeviceGetTemperature"});
    sym(api->reasons,
        {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"});
    sym(api->ecc, {"nvmlDeviceGetEccMode"}, false);
    sym(api->power_limit, {"nvmlDeviceGetPowerManagementLimit"}, false);
    sym(api->persistence, {"nvmlDeviceGetPersistenceMode"}, false);
    sym(api->driver, {"nvmlSystemGetDriverVersion"}, false);
    sym(api->pcie_gen, {"nvmlDeviceGetCurrPcieLinkGeneration"}, false);
    sym(api->pcie_width, {"nvmlDeviceGetCurrPcieLinkWidth"}, false);
    sym(api->pcie_max_gen, {"nvmlDeviceGetMaxPcieLinkGeneration"}, false);
    sym(api->pcie_max_width, {"nvmlDeviceGetMaxPcieLinkWidth"}, false);
    sym(api->utilization, {"nvmlDeviceGetUtilizationRates"}, false);
    sym(api->ecc_total, {"nvmlDeviceGetTotalEccErrors"}, false);
    if (!missing.empty()) {
      failure = fmt::format("NVML lacks{}", missing);
      return;
    }
    n->api_ = api.release();
    int rc = n->api_->init();
    if (rc != kNvmlSuccess) {
      failure = fmt::format("nvmlInit failed: {} ({})", n->api_->error_string(rc), rc);
      return;
    }
    n->initialised_ = true;
    instance = std::move(n);
  });
  if (!instance && why) *why = failure;
  return instance.get();
}

Nvml::~Nvml() {
  if (initialised_) api_->shutdown();
  delete api_;
  if (lib_) dlclose(lib_);
}

std::optional<Nvml::Device> Nvml::device_by_uuid(const std::string& uuid) const {
  Device d = nullptr;
  if (api_->by_uuid(uuid.c_str(), &d) != kNvmlSuccess) return std::nullopt;
  return d;
}

std::optional<TelemetrySample> Nvml::sample(Device d) const {
  unsigned sm = 0, mem = 0, mw = 0, temp = 0;
  unsigned long long reasons = 0;
  if (api_->clock(d, kNvmlClockSm, &sm) != kNvmlSuccess ||
      api_->clock(d, kNvmlClockMem, &mem) != kNvmlSuccess || api_->power(d, &mw) != kNvmlSuccess ||
      api_->temperature(d, kNvmlTemperatureGpu, &temp) != kNvmlSuccess ||
      api_->reasons(d, &reasons) != kNvmlSuccess) {
    return std::nullopt;
  }
  return TelemetrySample{sm * 1e6, mem * 1e6, mw / 1e3, static_cast<double>(temp), reasons};
}

std::optional<double> Nvml::utilisation(Device d) const {
  unsigned rates[2] = {};
  if (!api_->utilization || api_->utilization(d, rates) != kNvmlSuccess) return std::nullopt;
  return rates[0] / 100.0;
}

std::optional<std::uint64_t> Nvml::ecc_errors(Device d, bool uncorrected) const {
  constexpr int kVolatileEcc = 0;  // nvmlEccCounterType_t; nvmlMemoryErrorType_t: 0 corrected, 1 uncorrected
  unsigned long long n = 0;
  if (!api_->ecc_total || api_->ecc_total(d, uncorrected ? 1 : 0, kVolatileEcc, &n) != kNvmlSuccess)
    return std::nullopt;
  return n;
}

nlohmann::json Nvml::inventory(Device d) const {
  nlohmann::json j = nlohmann::json::object();
  int current = 0, pending = 0;
  if (api_->ecc && api_->ecc(d, &current, &pending) == kNvmlSuccess) j["ecc"] = current != 0;
  unsigned v = 0;
  if (api_->power_limit && api_->power_limit(d, &v) == kNvmlSuccess) j["power_limit_w"] = v / 1e3;
  if (api_->persistence && api_->persistence(d, &current) == kNvmlSuccess)
    j["persistence_mode"] = current != 0;
  unsigned gen = 0, width = 0;
  if (api_->pcie_gen && api_->pcie_width && api_->pcie_gen(d, &gen) == kNvmlSuccess &&
      api_->pcie_width(d, &width) == kNvmlSuccess) {
    j["pcie"] = {{"gen", gen}, {"width", width}};
    if (api_->pcie_max_gen && api_->pcie_max_width && api_->pcie_max_gen(d, &gen) == kNvmlSuccess &&
        api_->pcie_max_width(d, &width) == kNvmlSuccess) {
      j["pcie"]["max_gen"] = gen;
      j["pcie"]["max_width"] = width;
    }
  }
  return j;
}

std::string Nvml::driver_version() const {
  char buf[96] = {};
  if (!api_->driver || api_->driver(buf, sizeof buf) != kNvmlSuccess) return "";
  return buf;
}

// ---- sampler
// -------------------------------------------------------------------------------------------------

TelemetrySampler::TelemetrySampler(Source source, std::chrono::milliseconds interval)
    : source_(std::move(source)), interval_(interval) {}

TelemetrySampler::~TelemetrySampler() { stop(); }

void TelemetrySampler::start() {
  stop();
  samples_.clear();
  running_ = true;
  thread_ = std::thread([this] {
    auto next = std::chrono::steady_clock::now();
    while (running_.load()) {
      if (auto s = source_()) samples_.push_back(*s);
      next += interval_;
      std::this_thread::sleep_until(next);
    }
  });
}

std::vector<TelemetrySample> TelemetrySampler::stop() {
  running_ = false;
  if (thread_.joinable()) thread_.join();
  return samples_;
}

}  // namespace mlbench::gpu
