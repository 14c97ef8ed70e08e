#include "kernels/gpu/telemetry.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <utility>

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
constexpr int kNvmlErrorInvalidArgument = 2;
constexpr int kNvmlErrorNotSupported = 3;
constexpr int kNvmlErrorInsufficientSize = 7;
constexpr int kNvmlClockSm = 1;
constexpr int kNvmlClockMem = 2;
constexpr int kNvmlTemperatureGpu = 0;
constexpr unsigned kNvmlFiDevMemoryTemp = 82;                       // NVML_FI_DEV_MEMORY_TEMP
constexpr unsigned long long kNvmlEventTypeXidCriticalError = 0x8;  // nvmlEventTypeXidCriticalError
constexpr unsigned kNvmlNvlinkMaxLinks = 18;                        // NVML_NVLINK_MAX_LINKS
// nvmlNvLinkErrorCounter_t: DL_REPLAY 0, DL_RECOVERY 1, DL_CRC_FLIT 2, DL_CRC_DATA 3.
constexpr int kNvlinkErrorCounters[] = {0, 1, 2, 3};
// nvmlPerfPolicyType_t values 0-5, named as mlbench reports them.
constexpr std::pair<int, const char*> kViolationPolicies[] = {{0, "power"},           {1, "thermal"},
                                                              {2, "sync_boost"},      {3, "board_limit"},
                                                              {4, "low_utilization"}, {5, "reliability"}};

// nvml.h structs, field for field.
struct NvmlPciInfo {       // nvmlPciInfo_t
  char bus_id_legacy[16];  // NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE
  unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];  // NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE
};
static_assert(sizeof(NvmlPciInfo) == 68);
union NvmlValue {  // nvmlValue_t
  double d;
  int si;
  unsigned ui;
  unsigned long ul;
  unsigned long long ull;
  long long sll;
  unsigned short us;
};
struct NvmlFieldValue {  // nvmlFieldValue_t
  unsigned field_id, scope_id;
  long long timestamp, latency_usec;
  int value_type;  // nvmlValueType_t
  int nvml_return;
  NvmlValue value;
};
static_assert(sizeof(NvmlFieldValue) == 40);
struct NvmlEventData {  // nvmlEventData_t
  Nvml::Device device;
  unsigned long long event_type, event_data;
  unsigned gpu_instance_id, compute_instance_id;
};
static_assert(sizeof(NvmlEventData) == 32);
struct NvmlViolationTime {  // nvmlViolationTime_t
  unsigned long long reference_time_us, violation_time_ns;
};

// nvmlValue_t read by its nvmlValueType_t (DOUBLE 0, UNSIGNED_INT 1, UNSIGNED_LONG 2, UNSIGNED_LONG_LONG 3,
// SIGNED_LONG_LONG 4, SIGNED_INT 5, UNSIGNED_SHORT 6).
std::optional<double> field_value(const NvmlFieldValue& f) {
  switch (f.value_type) {
    case 0:
      return f.value.d;
    case 1:
      return static_cast<double>(f.value.ui);
    case 2:
      return static_cast<double>(f.value.ul);
    case 3:
      return static_cast<double>(f.value.ull);
    case 4:
      return static_cast<double>(f.value.sll);
    case 5:
      return static_cast<double>(f.value.si);
    case 6:
      return static_cast<double>(f.value.us);
    default:
      return std::nullopt;
  }
}

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
  int (*count)(unsigned*);
  int (*by_index)(unsigned, Dev*);
  int (*name)(Dev, char*, unsigned);
  int (*uuid)(Dev, char*, unsigned);
  int (*pci_info)(Dev, NvmlPciInfo*);
  int (*field_values)(Dev, int, NvmlFieldValue*);
  int (*retired_pages)(Dev, int, unsigned*, unsigned long long*);
  int (*retired_pending)(Dev, int*);
  int (*remapped_rows)(Dev, unsigned*, unsigned*, unsigned*, unsigned*);
  int (*pcie_replays)(Dev, unsigned*);
  int (*nvlink_errors)(Dev, unsigned, int, unsigned long long*);
  int (*violation)(Dev, int, NvmlViolationTime*);
  int (*event_set_create)(void**);
  int (*register_events)(Dev, unsigned long long, void*);
  int (*event_set_wait)(void*, NvmlEventData*, unsigned);
  int (*event_set_free)(void*);
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
    sym(api->count, {"nvmlDeviceGetCount_v2"}, false);
    sym(api->by_index, {"nvmlDeviceGetHandleByIndex_v2"}, false);
    sym(api->name, {"nvmlDeviceGetName"}, false);
    sym(api->uuid, {"nvmlDeviceGetUUID"}, false);
    sym(api->pci_info, {"nvmlDeviceGetPciInfo_v3"}, false);
    sym(api->field_values, {"nvmlDeviceGetFieldValues"}, false);
    sym(api->retired_pages, {"nvmlDeviceGetRetiredPages"}, false);
    sym(api->retired_pending, {"nvmlDeviceGetRetiredPagesPendingStatus"}, false);
    sym(api->remapped_rows, {"nvmlDeviceGetRemappedRows"}, false);
    sym(api->pcie_replays, {"nvmlDeviceGetPcieReplayCounter"}, false);
    sym(api->nvlink_errors, {"nvmlDeviceGetNvLinkErrorCounter"}, false);
    sym(api->violation, {"nvmlDeviceGetViolationStatus"}, false);
    sym(api->event_set_create, {"nvmlEventSetCreate"}, false);
    sym(api->register_events, {"nvmlDeviceRegisterEvents"}, false);
    sym(api->event_set_wait, {"nvmlEventSetWait_v2"}, false);
    sym(api->event_set_free, {"nvmlEventSetFree"}, false);
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

std::optional<std::uint64_t> Nvml::ecc_errors(Device d, bool uncorrected, bool aggregate) const {
  // nvmlMemoryErrorType_t: 0 corrected, 1 uncorrected; nvmlEccCounterType_t: 0 volatile, 1 aggregate.
  unsigned long long n = 0;
  if (!api_->ecc_total || api_->ecc_total(d, uncorrected ? 1 : 0, aggregate ? 1 : 0, &n) != kNvmlSuccess)
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
  auto link = pcie_link(d);
  if (link.gen && link.width) {
    j["pcie"] = {{"gen", *link.gen}, {"width", *link.width}};
    if (link.max_gen && link.max_width) {
      j["pcie"]["max_gen"] = *link.max_gen;
      j["pcie"]["max_width"] = *link.max_width;
    }
  }
  return j;
}

std::vector<Nvml::Device> Nvml::devices() const {
  std::vector<Device> out;
  unsigned n = 0;
  if (!api_->count || !api_->by_index || api_->count(&n) != kNvmlSuccess) return out;
  for (unsigned i = 0; i < n; ++i) {
    Device d = nullptr;
    if (api_->by_index(i, &d) == kNvmlSuccess) out.push_back(d);
  }
  return out;
}

std::optional<Nvml::Identity> Nvml::identity(Device d) const {
  char name[96] = {}, uuid[96] = {};  // NVML_DEVICE_NAME_V2_BUFFER_SIZE, NVML_DEVICE_UUID_V2_BUFFER_SIZE
  if (!api_->uuid || api_->uuid(d, uuid, sizeof uuid) != kNvmlSuccess) return std::nullopt;
  Identity id;
  id.uuid = uuid;
  if (api_->name && api_->name(d, name, sizeof name) == kNvmlSuccess) id.name = name;
  NvmlPciInfo pci{};
  if (api_->pci_info && api_->pci_info(d, &pci) == kNvmlSuccess) {
    pci.bus_id[sizeof pci.bus_id - 1] = '\0';
    id.pci = pci.bus_id;
  }
  return id;
}

std::optional<double> Nvml::memory_temperature(Device d) const {
  NvmlFieldValue f{};
  f.field_id = kNvmlFiDevMemoryTemp;
  if (!api_->field_values || api_->field_values(d, 1, &f) != kNvmlSuccess || f.nvml_return != kNvmlSuccess)
    return std::nullopt;
  return field_value(f);
}

std::optional<std::uint64_t> Nvml::retired_pages(Device d, bool double_bit) const {
  // nvmlPageRetirementCause_t: 0 multiple single-bit errors, 1 a double-bit error. A count of 0 asks for the
  // size only: NVML answers SUCCESS when there are none, INSUFFICIENT_SIZE with the count otherwise.
  unsigned count = 0;
  if (!api_->retired_pages) return std::nullopt;
  int rc = api_->retired_pages(d, double_bit ? 1 : 0, &count, nullptr);
  if (rc != kNvmlSuccess && rc != kNvmlErrorInsufficientSize) return std::nullopt;
  return count;
}

std::optional<bool> Nvml::retired_pages_pending(Device d) const {
  int pending = 0;  // nvmlEnableState_t
  if (!api_->retired_pending || api_->retired_pending(d, &pending) != kNvmlSuccess) return std::nullopt;
  return pending != 0;
}

std::optional<Nvml::RemappedRows> Nvml::remapped_rows(Device d) const {
  unsigned corr = 0, unc = 0, pending = 0, failed = 0;
  if (!api_->remapped_rows || api_->remapped_rows(d, &corr, &unc, &pending, &failed) != kNvmlSuccess)
    return std::nullopt;
  return RemappedRows{corr, unc, pending != 0, failed != 0};
}

std::optional<std::uint64_t> Nvml::pcie_replays(Device d) const {
  unsigned n = 0;
  if (!api_->pcie_replays || api_->pcie_replays(d, &n) != kNvmlSuccess) return std::nullopt;
  return n;
}

Nvml::PcieLink Nvml::pcie_link(Device d) const {
  auto get = [d](int (*fn)(Device, unsigned*)) -> std::optional<int> {
    unsigned v = 0;
    if (!fn || fn(d, &v) != kNvmlSuccess) return std::nullopt;
    return static_cast<int>(v);
  };
  return {get(api_->pcie_gen), get(api_->pcie_width), get(api_->pcie_max_gen), get(api_->pcie_max_width)};
}

std::optional<std::uint64_t> Nvml::nvlink_errors(Device d) const {
  if (!api_->nvlink_errors) return std::nullopt;
  std::optional<std::uint64_t> total;
  for (unsigned link = 0; link < kNvmlNvlinkMaxLinks; ++link) {
    for (int counter : kNvlinkErrorCounters) {
      unsigned long long v = 0;
      int rc = api_->nvlink_errors(d, link, counter, &v);
      if (rc == kNvmlErrorNotSupported || rc == kNvmlErrorInvalidArgument) return total;  // no such link
      if (rc == kNvmlSuccess) total = total.value_or(0) + v;
    }
  }
  return total;
}

std::map<std::string, double> Nvml::violation_seconds(Device d) const {
  std::map<std::string, double> out;
  if (!api_->violation) return out;
  for (const auto& [policy, name] : kViolationPolicies) {
    NvmlViolationTime t{};
    if (api_->violation(d, policy, &t) == kNvmlSuccess)
      out[name] = static_cast<double>(t.violation_time_ns) / 1e9;
  }
  return out;
}

std::unique_ptr<Nvml::XidEvents> Nvml::xid_events(const std::vector<Device>& devices) const {
  if (!api_->event_set_create || !api_->register_events || !api_->event_set_wait || !api_->event_set_free)
    return nullptr;
  void* set = nullptr;
  if (api_->event_set_create(&set) != kNvmlSuccess) return nullptr;
  bool any = false;
  for (Device d : devices)
    any = api_->register_events(d, kNvmlEventTypeXidCriticalError, set) == kNvmlSuccess || any;
  if (!any) {
    api_->event_set_free(set);
    return nullptr;
  }
  return std::unique_ptr<XidEvents>(new XidEvents(this, set));
}

Nvml::XidEvents::~XidEvents() { nvml_->api_->event_set_free(set_); }

std::vector<Nvml::Xid> Nvml::XidEvents::poll() {
  std::vector<Xid> out;
  NvmlEventData e{};
  // Bounded: a GPU in an XID storm cannot hold the sampler here.
  for (int i = 0; i < 1000 && nvml_->api_->event_set_wait(set_, &e, 0) == kNvmlSuccess; ++i) {
    if (e.event_type & kNvmlEventTypeXidCriticalError)
      out.push_back({e.device, static_cast<int>(e.event_data)});
  }
  return out;
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
