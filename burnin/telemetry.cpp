// The burn-in's sampler and its fixture reader. Every `interval` the sampler reads each GPU into its timeline
// and accounts the clock-event reasons (the interval since the previous sample goes to each reason set in the
// later one), keeps the first, last and highest-power readings, and turns a GPU that stops answering into one
// "lost" event; the host's CPU busy share, memory in use and whole-disk byte rates come from two consecutive
// snapshots of `mlbench monitor`'s own procfs sources (monitor/sources), so the two commands count alike.
#include "burnin/telemetry.hpp"

#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <limits>
#include <set>
#include <type_traits>

#include "base/error.hpp"
#include "kernels/gpu/telemetry.hpp"
#include "monitor/sources.hpp"

namespace mlbench::burnin {

using burnin_report::Event;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

template <typename T>
struct is_optional : std::false_type {};
template <typename T>
struct is_optional<std::optional<T>> : std::true_type {};

// Every field of GpuCounters with its JSON key: the one list to_json and the fixture reader share.
template <typename C, typename F>
void for_each_field(C& c, F&& f) {
  f("sm_clock_hz", c.sm_clock_hz);
  f("memory_clock_hz", c.memory_clock_hz);
  f("power_w", c.power_w);
  f("temperature_c", c.temperature_c);
  f("memory_temperature_c", c.memory_temperature_c);
  f("utilisation", c.utilisation);
  f("clock_event_reasons", c.clock_event_reasons);
  f("ecc_sbe_volatile", c.ecc_sbe_volatile);
  f("ecc_dbe_volatile", c.ecc_dbe_volatile);
  f("ecc_sbe_aggregate", c.ecc_sbe_aggregate);
  f("ecc_dbe_aggregate", c.ecc_dbe_aggregate);
  f("retired_pages_sbe", c.retired_pages_sbe);
  f("retired_pages_dbe", c.retired_pages_dbe);
  f("retired_pages_pending", c.retired_pages_pending);
  f("remapped_rows_correctable", c.remapped_rows_correctable);
  f("remapped_rows_uncorrectable", c.remapped_rows_uncorrectable);
  f("row_remap_pending", c.row_remap_pending);
  f("row_remap_failed", c.row_remap_failed);
  f("pcie_replays", c.pcie_replays);
  f("pcie_gen", c.pcie_gen);
  f("pcie_width", c.pcie_width);
  f("pcie_gen_max", c.pcie_gen_max);
  f("pcie_width_max", c.pcie_width_max);
  f("nvlink_errors", c.nvlink_errors);
  f("violation_seconds", c.violation_seconds);
}

GpuCounters counters_from_json(const Json& j) {
  if (!j.is_object())
    throw UsageError("telemetry script: a GPU's sample must be an object of counters or null");
  GpuCounters c;
  for_each_field(c, [&j](const char* key, auto& field) {
    if (!j.contains(key) || j[key].is_null()) return;
    using T = std::remove_reference_t<decltype(field)>;
    try {
      if constexpr (is_optional<T>::value) {
        field = j[key].get<typename T::value_type>();
      } else {
        field = j[key].get<T>();
      }
    } catch (const nlohmann::json::exception&) {
      throw UsageError(
          fmt::format("telemetry script: counter '{}' has the wrong type ({})", key, j[key].dump()));
    }
  });
  return c;
}

const Json& array_member(const Json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_array())
    throw UsageError(fmt::format("telemetry script: '{}' must be an array", key));
  return j[key];
}

class FixtureTelemetry final : public GpuTelemetry {
 public:
  explicit FixtureTelemetry(const Json& script) {
    for (const auto& g : array_member(script, "gpus")) {
      auto text = [&g](const char* key) {
        if (!g.is_object() || !g.contains(key) || !g[key].is_string())
          throw UsageError(fmt::format("telemetry script: every GPU needs the string '{}'", key));
        return g[key].get<std::string>();
      };
      ids_.push_back({text("device"), text("uuid"), text("pci"), text("name")});
    }
    for (const auto& s : array_member(script, "samples")) {
      if (!s.is_object()) throw UsageError("telemetry script: each sample must be an object keyed by device");
      std::map<std::string, std::optional<GpuCounters>> sample;
      for (const auto& [device, counters] : s.items())
        sample[device] = counters.is_null() ? std::nullopt : std::optional(counters_from_json(counters));
      samples_.push_back(std::move(sample));
    }
    if (script.contains("events")) {
      for (const auto& list : array_member(script, "events")) {
        if (!list.is_array()) throw UsageError("telemetry script: 'events' must be an array of arrays");
        std::vector<Event> events;
        for (Json e : list) {
          if (e.is_object() && !e.contains("time_s")) e["time_s"] = 0;
          try {
            events.push_back(burnin_report::event_from_json(e));
          } catch (const Error& err) {
            throw UsageError(fmt::format("telemetry script: {}", err.what()));
          }
        }
        events_.push_back(std::move(events));
      }
    }
  }

  std::vector<GpuId> gpus() override { return ids_; }

  // A device the sample does not name does not answer in it.
  std::optional<GpuCounters> read(const GpuId& gpu) override {
    if (samples_.empty()) return std::nullopt;
    std::size_t& next = next_[gpu.device];
    const auto& sample = samples_[std::min(next, samples_.size() - 1)];
    ++next;
    auto it = sample.find(gpu.device);
    return it == sample.end() ? std::nullopt : it->second;
  }

  std::vector<Event> events() override {
    return calls_ < events_.size() ? events_[calls_++] : std::vector<Event>{};
  }

 private:
  std::vector<GpuId> ids_;
  std::vector<std::map<std::string, std::optional<GpuCounters>>> samples_;
  std::vector<std::vector<Event>> events_;
  std::map<std::string, std::size_t> next_;
  std::size_t calls_ = 0;
};

// The GPU timeline's series, in the order they are appended.
std::vector<std::pair<std::string, double>> gpu_values(const std::optional<GpuCounters>& c) {
  auto opt = [](const std::optional<double>& v) { return v.value_or(kNaN); };
  if (!c) {
    return {{"sm_clock_hz", kNaN},   {"memory_clock_hz", kNaN},      {"power_w", kNaN},
            {"temperature_c", kNaN}, {"memory_temperature_c", kNaN}, {"utilisation", kNaN}};
  }
  return {{"sm_clock_hz", c->sm_clock_hz},
          {"memory_clock_hz", c->memory_clock_hz},
          {"power_w", c->power_w},
          {"temperature_c", c->temperature_c},
          {"memory_temperature_c", opt(c->memory_temperature_c)},
          {"utilisation", opt(c->utilisation)}};
}

// Sums a counter over the whole disks present in both snapshots; a counter that went back (a drive replaced)
// adds nothing.
double disk_bytes_delta(const monitor::Snapshot& prev, const monitor::Snapshot& cur,
                        std::uint64_t monitor::DiskCounters::*field) {
  double sum = 0;
  for (const auto& d : cur.disks) {
    for (const auto& p : prev.disks) {
      if (p.device == d.device && d.*field >= p.*field) sum += static_cast<double>(d.*field - p.*field);
    }
  }
  return sum;
}

}  // namespace

Json to_json(const GpuCounters& c) {
  Json j = Json::object();
  for_each_field(c, [&j](const char* key, const auto& field) {
    using T = std::remove_cvref_t<decltype(field)>;
    if constexpr (is_optional<T>::value) {
      if (field) j[key] = *field;
    } else {
      j[key] = field;
    }
  });
  return j;
}

std::unique_ptr<GpuTelemetry> make_fixture_telemetry(const Json& script) {
  return std::make_unique<FixtureTelemetry>(script);
}

struct Sampler::State {
  std::unique_ptr<GpuTelemetry> telemetry;
  std::unique_ptr<monitor::Source> cpu_memory, disks;
  std::chrono::steady_clock::time_point origin;
  std::chrono::milliseconds interval;
  std::vector<GpuId> ids;

  std::mutex sampling;  // one sample at a time (the thread and sample_once)
  // Between samples, under `sampling`: per GPU the previous sample's time, whether it answered, the throttle
  // reasons already announced; the host sources' last good snapshots.
  std::vector<std::optional<double>> last_time;
  std::vector<bool> answering;
  std::vector<std::set<std::string>> throttles_seen;
  std::optional<monitor::Snapshot> last_cpu, last_disks;

  mutable std::mutex data;  // what readers see
  std::vector<GpuRecord> records;
  HostRecord host;
  std::vector<Event> events;

  std::mutex run_mutex;
  std::condition_variable wake;
  bool running = false;
  std::thread thread;

  // One host source's snapshot, or nullopt when it throws.
  static std::optional<monitor::Snapshot> snapshot(monitor::Source& source, double time_s) {
    monitor::Snapshot s;
    s.time_s = time_s;
    try {
      source.sample(s);
    } catch (const std::exception&) {
      return std::nullopt;
    }
    return s;
  }

  std::vector<std::pair<std::string, double>> host_values(double t) {
    double busy = kNaN, used = kNaN, read_bps = kNaN, write_bps = kNaN;
    if (auto cur = snapshot(*cpu_memory, t)) {
      if (cur->memory) used = cur->memory->total_bytes - cur->memory->available_bytes;
      if (last_cpu && last_cpu->cpu && cur->cpu) {
        const auto &a = *last_cpu->cpu, &b = *cur->cpu;
        double total = (b.busy_seconds + b.idle_seconds + b.iowait_seconds) -
                       (a.busy_seconds + a.idle_seconds + a.iowait_seconds);
        if (total > 0) busy = (b.busy_seconds - a.busy_seconds) / total;
      }
      last_cpu = std::move(cur);
    }
    if (auto cur = snapshot(*disks, t)) {
      if (last_disks && t > last_disks->time_s) {
        double dt = t - last_disks->time_s;
        read_bps = disk_bytes_delta(*last_disks, *cur, &monitor::DiskCounters::read_bytes) / dt;
        write_bps = disk_bytes_delta(*last_disks, *cur, &monitor::DiskCounters::write_bytes) / dt;
      }
      last_disks = std::move(cur);
    }
    return {{"cpu_busy", busy},
            {"memory_used_bytes", used},
            {"disk_read_bps", read_bps},
            {"disk_write_bps", write_bps}};
  }

  void sample(double t) {
    std::lock_guard<std::mutex> one(sampling);
    std::vector<std::optional<GpuCounters>> readings;
    for (const auto& id : ids) readings.push_back(telemetry->read(id));
    auto source_events = telemetry->events();
    auto host_sample = host_values(t);

    std::lock_guard<std::mutex> lock(data);
    for (std::size_t i = 0; i < ids.size(); ++i) {
      GpuRecord& r = records[i];
      const auto& c = readings[i];
      r.timeline.append(t, gpu_values(c));
      if (c) {
        if (last_time[i]) {
          double dt = std::max(0.0, t - *last_time[i]);
          for (const auto& name : gpu::throttle_reason_names(c->clock_event_reasons))
            r.throttle_seconds[name] += dt;
        }
        for (std::uint64_t bit = 1; bit != 0; bit <<= 1) {
          if (!(c->clock_event_reasons & bit) || !gpu::is_throttling(bit)) continue;
          auto name = gpu::throttle_reason_names(bit).front();
          if (throttles_seen[i].insert(name).second) {
            events.push_back({t, ids[i].device, "throttle", 0,
                              fmt::format("{} started: SM clock {:.0f} MHz, {:.0f} W, {:.0f} °C", name,
                                          c->sm_clock_hz / 1e6, c->power_w, c->temperature_c)});
          }
        }
        if (!r.before) r.before = c;
        r.after = c;
        if (!r.peak_load || c->power_w > r.peak_load->power_w) r.peak_load = c;
        answering[i] = true;
      } else {
        r.lost = true;
        if (answering[i]) events.push_back({t, ids[i].device, "lost", 0, "the GPU stopped answering NVML"});
        answering[i] = false;
      }
      last_time[i] = t;
    }
    for (auto& e : source_events) {
      e.time_s = t;
      events.push_back(std::move(e));
    }
    host.timeline.append(t, host_sample);
  }
};

Sampler::Sampler(std::unique_ptr<GpuTelemetry> gpus, std::filesystem::path sys_root,
                 std::chrono::steady_clock::time_point origin, std::chrono::milliseconds interval)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.telemetry = std::move(gpus);
  s.cpu_memory =
      monitor::make_cpu_memory_source(SysReader(sys_root), static_cast<double>(sysconf(_SC_CLK_TCK)));
  s.disks = monitor::make_disk_source(SysReader(sys_root));
  s.origin = origin;
  s.interval = interval;
  s.ids = s.telemetry->gpus();
  for (const auto& id : s.ids) {
    GpuRecord r;
    r.id = id;
    s.records.push_back(std::move(r));
  }
  s.last_time.resize(s.ids.size());
  s.answering.assign(s.ids.size(), true);
  s.throttles_seen.resize(s.ids.size());
}

Sampler::~Sampler() { stop(); }

void Sampler::start() {
  State& s = *state_;
  {
    std::lock_guard<std::mutex> lock(s.run_mutex);
    if (s.running) return;
    s.running = true;
  }
  s.thread = std::thread([this, &s] {
    auto next = std::chrono::steady_clock::now();
    for (;;) {
      try {
        sample_once();
      } catch (const std::exception&) {
        // A reader that throws loses this one sample; the burn-in goes on.
      }
      next += s.interval;
      std::unique_lock<std::mutex> lock(s.run_mutex);
      if (s.wake.wait_until(lock, next, [&s] { return !s.running; })) return;
    }
  });
}

void Sampler::stop() {
  State& s = *state_;
  {
    std::lock_guard<std::mutex> lock(s.run_mutex);
    s.running = false;
  }
  s.wake.notify_all();
  if (s.thread.joinable()) s.thread.join();
}

void Sampler::sample_once() {
  sample_at(std::chrono::duration<double>(std::chrono::steady_clock::now() - state_->origin).count());
}

void Sampler::sample_at(double time_s) { state_->sample(time_s); }

const std::vector<GpuId>& Sampler::gpus() const { return state_->ids; }

std::vector<GpuRecord> Sampler::gpu_records() const {
  std::lock_guard<std::mutex> lock(state_->data);
  return state_->records;
}

HostRecord Sampler::host_record() const {
  std::lock_guard<std::mutex> lock(state_->data);
  return state_->host;
}

std::vector<Event> Sampler::events() const {
  std::lock_guard<std::mutex> lock(state_->data);
  return state_->events;
}

}  // namespace mlbench::burnin
