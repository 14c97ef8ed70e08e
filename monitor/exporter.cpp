#include "monitor/exporter.hpp"

#include <algorithm>
#include <filesystem>

#include "base/error.hpp"
#include "mlbench_config.hpp"

namespace mlbench::monitor {
namespace {

using Type = PromWriter::Type;

std::string label(const char* name, const std::string& value) {
  return fmt::format("{}=\"{}\"", name, prometheus_escape(value));
}

// The same device in an earlier Snapshot.
const DiskCounters* find_before(const Snapshot& s, const DiskCounters& d) {
  for (const auto& x : s.disks)
    if (x.device == d.device) return &x;
  return nullptr;
}
const LinkCounters* find_before(const Snapshot& s, const LinkCounters& l) {
  for (const auto& x : s.links)
    if (x.device == l.device && x.kind == l.kind) return &x;
  return nullptr;
}

bool reason_set(std::uint64_t bits, const char* reason) {
  for (const auto& n : gpu::throttle_reason_names(bits))
    if (n == reason) return true;
  return false;
}

void keep_max(std::map<std::string, double>& m, const std::string& key, double v) {
  auto [it, inserted] = m.emplace(key, v);
  if (!inserted) it->second = std::max(it->second, v);
}

// Each of the report's measured maxima into `c`, kept where it is higher than what `c` holds.
void add_ceilings(Ceilings& c, const Report& report) {
  for (const auto& r : report.results) {
    if (r.status != Status::ok || !r.params.is_object()) continue;
    if (r.probe == "storage.io" && r.params.contains("target") && r.params.contains("rw")) {
      const Json& t = r.params["target"];
      std::vector<std::string> targets;
      if (t.is_string()) targets.push_back(t.get<std::string>());
      if (t.is_array())
        for (const auto& x : t)
          if (x.is_string()) targets.push_back(x.get<std::string>());
      // One raw device: a job over several divides its bandwidth between them.
      if (targets.size() != 1 || !targets[0].starts_with("/dev/")) continue;
      std::string dev = std::filesystem::path(targets[0]).filename().string();
      std::string rw = r.params["rw"].is_string() ? r.params["rw"].get<std::string>() : "";
      auto take = [&r, &dev](std::map<std::string, double>& ceiling, const char* metric) {
        const Metric* m = r.metric(metric);
        if (m && std::isfinite(m->value)) keep_max(ceiling, dev, m->value);
      };
      if (rw == "read" || rw == "randread") {
        take(c.storage_read_bytes_per_second, "bandwidth");
        take(c.storage_read_iops, "iops");
      }
      if (rw == "write" || rw == "randwrite") {
        take(c.storage_write_bytes_per_second, "bandwidth");
        take(c.storage_write_iops, "iops");
      }
      if (rw == "randrw") {
        take(c.storage_read_iops, "read_iops");
        take(c.storage_write_iops, "write_iops");
      }
    }
    if (r.probe == "net.nccl" && r.info.is_object() && r.info.contains("nic_rates") &&
        r.info["nic_rates"].is_object()) {
      auto rate_of = [](const Json& rate, const char* key) {
        return rate.is_object() && rate.contains(key) && rate[key].is_number() ? rate[key].get<double>()
                                                                               : 0.0;
      };
      double busiest = 0;
      for (const auto& entry : r.info["nic_rates"].items())
        busiest = std::max(busiest, rate_of(entry.value(), "rx_bytes_per_second") +
                                        rate_of(entry.value(), "tx_bytes_per_second"));
      for (const auto& entry : r.info["nic_rates"].items()) {
        const double rx = rate_of(entry.value(), "rx_bytes_per_second");
        const double tx = rate_of(entry.value(), "tx_bytes_per_second");
        // A NIC that carried background traffic beside the collective's (ssh, scrapes) measured no ceiling.
        if (rx + tx <= 0 || rx + tx < kNicCarrierShare * busiest) continue;
        if (rx > 0) keep_max(c.network_rx_bytes_per_second, entry.key(), rx);
        if (tx > 0) keep_max(c.network_tx_bytes_per_second, entry.key(), tx);
      }
    }
    if (r.params.contains("device") && r.params["device"].is_number_integer() && r.telemetry.is_object() &&
        r.telemetry.contains("power_w") && r.telemetry["power_w"].contains("max")) {
      keep_max(c.gpu_power_watts, fmt::format("gpu{}", r.params["device"].get<long long>()),
               r.telemetry["power_w"]["max"].get<double>());
    }
  }
}

}  // namespace

bool Ceilings::empty() const {
  return storage_read_bytes_per_second.empty() && storage_write_bytes_per_second.empty() &&
         storage_read_iops.empty() && storage_write_iops.empty() && network_rx_bytes_per_second.empty() &&
         network_tx_bytes_per_second.empty() && gpu_power_watts.empty();
}

Ceilings ceilings_from_report(const Report& report) {
  Ceilings c;
  add_ceilings(c, report);
  return c;
}

Ceilings ceilings_from_reports(const std::vector<NamedReport>& reports) {
  Ceilings c;
  for (const auto& named : reports) add_ceilings(c, named.report);
  return c;
}

Monitor::Monitor(std::vector<std::unique_ptr<Source>> sources, std::optional<Ceilings> ceilings, Log log)
    : sources_(std::move(sources)), ceilings_(std::move(ceilings)), log_(std::move(log)) {
  for (const auto& s : sources_) errors_[s->name()] = 0;
}

void Monitor::sample(double now_s) {
  Snapshot next;
  next.time_s = now_s;
  for (const auto& src : sources_) {
    const std::string name = src->name();
    Snapshot part;
    try {
      src->sample(part);
    } catch (const std::exception& e) {
      errors_[name] += 1;
      if (failing_.insert(name).second)
        log_(fmt::format("source {} failed, its series vanish: {}", name, e.what()));
      devices_[name].clear();
      continue;
    }
    if (failing_.erase(name)) log_(fmt::format("source {} is back", name));
    auto now_devices = src->devices(part);
    for (const auto& d : devices_[name]) {
      if (std::find(now_devices.begin(), now_devices.end(), d) != now_devices.end()) continue;
      errors_[name] += 1;
      log_(fmt::format("{} vanished from source {}; its series vanish", d, name));
    }
    devices_[name] = std::move(now_devices);
    std::move(part.disks.begin(), part.disks.end(), std::back_inserter(next.disks));
    std::move(part.links.begin(), part.links.end(), std::back_inserter(next.links));
    std::move(part.gpus.begin(), part.gpus.end(), std::back_inserter(next.gpus));
    std::move(part.xids.begin(), part.xids.end(), std::back_inserter(next.xids));
    if (part.cpu) next.cpu = part.cpu;
    if (part.memory) next.memory = part.memory;
  }
  prev_ = std::move(cur_);
  cur_ = std::move(next);
  have_prev_ = samples_ > 0;
  ++samples_;
  account_clock_events();
}

void Monitor::account_clock_events() {
  std::map<std::string, std::map<std::string, double>> kept;
  for (const auto& g : cur_.gpus) {
    auto& reasons = kept[g.device];
    if (auto it = clock_event_seconds_.find(g.device); it != clock_event_seconds_.end()) reasons = it->second;
    bool was_there = std::any_of(prev_.gpus.begin(), prev_.gpus.end(),
                                 [&g](const GpuReading& p) { return p.device == g.device; });
    double dt = have_prev_ && was_there ? cur_.time_s - prev_.time_s : 0;
    for (const auto& reason : gpu::throttle_reason_names(g.sample.throttle_reasons)) reasons[reason] += dt;
  }
  clock_event_seconds_ = std::move(kept);  // a GPU that is gone takes its counters with it
}

std::string Monitor::exposition() const {
  PromWriter w;
  w.add("mlbench_monitor_info", Type::gauge, "mlbench monitor metadata: 1, with the exporter's version",
        label("version", MLBENCH_VERSION), 1);
  w.add("mlbench_monitor_samples_total", Type::counter, "Samples of every source since the exporter started",
        "", static_cast<double>(samples_));
  for (const auto& [source, n] : errors_)
    w.add("mlbench_monitor_errors_total", Type::counter,
          "Samples in which a source could not be read or one of its devices vanished",
          label("source", source), n);
  for (const auto& d : cur_.disks) {
    std::string l = label("device", d.device);
    w.add("mlbench_storage_reads_total", Type::counter, "Completed reads (/proc/diskstats)", l,
          static_cast<double>(d.reads));
    w.add("mlbench_storage_writes_total", Type::counter, "Completed writes (/proc/diskstats)", l,
          static_cast<double>(d.writes));
    w.add("mlbench_storage_read_bytes_total", Type::counter, "Bytes read (/proc/diskstats sectors x 512)", l,
          static_cast<double>(d.read_bytes));
    w.add("mlbench_storage_written_bytes_total", Type::counter,
          "Bytes written (/proc/diskstats sectors x 512)", l, static_cast<double>(d.write_bytes));
    w.add("mlbench_storage_busy_seconds_total", Type::counter, "Time the device had I/O in flight", l,
          d.busy_seconds);
  }
  for (const auto& n : cur_.links) {
    std::string l = label("device", n.device) + "," + label("kind", n.kind);
    w.add("mlbench_network_receive_bytes_total", Type::counter,
          "Bytes received by the NIC or InfiniBand port", l, static_cast<double>(n.rx_bytes));
    w.add("mlbench_network_transmit_bytes_total", Type::counter, "Bytes sent by the NIC or InfiniBand port",
          l, static_cast<double>(n.tx_bytes));
    w.add("mlbench_network_receive_errors_total", Type::counter,
          "Receive errors (InfiniBand: port_rcv_errors)", l, static_cast<double>(n.rx_errors));
    w.add("mlbench_network_transmit_errors_total", Type::counter,
          "Transmit errors (InfiniBand: port_xmit_discards)", l, static_cast<double>(n.tx_errors));
  }
  if (cur_.cpu) {
    const char* help = "CPU time of all CPUs together by mode (busy is everything but idle and iowait)";
    w.add("mlbench_cpu_seconds_total", Type::counter, help, label("mode", "busy"), cur_.cpu->busy_seconds);
    w.add("mlbench_cpu_seconds_total", Type::counter, help, label("mode", "idle"), cur_.cpu->idle_seconds);
    w.add("mlbench_cpu_seconds_total", Type::counter, help, label("mode", "iowait"),
          cur_.cpu->iowait_seconds);
  }
  if (cur_.memory) {
    w.add("mlbench_memory_total_bytes", Type::gauge, "Host memory (MemTotal)", "", cur_.memory->total_bytes);
    w.add("mlbench_memory_available_bytes", Type::gauge,
          "Host memory available without swapping (MemAvailable)", "", cur_.memory->available_bytes);
  }
  for (const auto& g : cur_.gpus) {
    std::string l = label("device", g.device);
    w.add("mlbench_gpu_info", Type::gauge, "1 per GPU, with its UUID", l + "," + label("uuid", g.uuid), 1);
    w.add("mlbench_gpu_sm_clock_hertz", Type::gauge, "SM clock", l, g.sample.sm_clock_hz);
    w.add("mlbench_gpu_memory_clock_hertz", Type::gauge, "Memory clock", l, g.sample.memory_clock_hz);
    w.add("mlbench_gpu_power_watts", Type::gauge, "Power draw", l, g.sample.power_w);
    w.add("mlbench_gpu_temperature_celsius", Type::gauge, "GPU temperature", l, g.sample.temperature_c);
    if (g.utilisation)
      w.add("mlbench_gpu_utilisation_ratio", Type::gauge,
            "Share of the driver's sample period with a kernel running (NVML utilisation, 0-1)", l,
            *g.utilisation);
    const char* ecc_help = "ECC errors since the driver loaded (NVML volatile counts) by type";
    if (g.ecc_corrected)
      w.add("mlbench_gpu_ecc_errors_total", Type::counter, ecc_help, l + "," + label("type", "corrected"),
            static_cast<double>(*g.ecc_corrected));
    if (g.ecc_uncorrected)
      w.add("mlbench_gpu_ecc_errors_total", Type::counter, ecc_help, l + "," + label("type", "uncorrected"),
            static_cast<double>(*g.ecc_uncorrected));
    if (auto it = clock_event_seconds_.find(g.device); it != clock_event_seconds_.end()) {
      for (const auto& [reason, seconds] : it->second)
        w.add(
            "mlbench_gpu_clock_event_seconds_total", Type::counter,
            "Seconds with each NVML clock-event (throttle) reason set, at the sampling interval's resolution",
            l + "," + label("reason", reason), seconds);
    }
  }
  for (const auto& x : cur_.xids)
    w.add("mlbench_gpu_xid_errors_total", Type::counter,
          "NVIDIA XID events in the kernel log (NVRM: Xid) by GPU and XID number",
          label("device", x.device) + "," + label("xid", std::to_string(x.xid)),
          static_cast<double>(x.count));
  add_ratios_and_bottlenecks(w);
  return w.text();
}

void Monitor::add_ratios_and_bottlenecks(PromWriter& w) const {
  bool power_throttled = false, thermal_throttled = false;
  for (const auto& g : cur_.gpus) {
    auto bits = g.sample.throttle_reasons;
    power_throttled |= reason_set(bits, "sw_power_cap") || reason_set(bits, "hw_power_brake_slowdown");
    thermal_throttled |= reason_set(bits, "sw_thermal_slowdown") || reason_set(bits, "hw_thermal_slowdown");
  }
  const std::string bottleneck_help = fmt::format(
      "1 when the resource holds the node back: storage or the network at {} or more of its measured ceiling "
      "while every GPU idles, or the GPUs power- or thermal-throttled",
      kSaturatedRatio);
  if (!cur_.gpus.empty()) {
    w.add("mlbench_bottleneck", Type::gauge, bottleneck_help, label("resource", "gpu_power"),
          power_throttled);
    w.add("mlbench_bottleneck", Type::gauge, bottleneck_help, label("resource", "gpu_thermal"),
          thermal_throttled);
  }
  if (!ceilings_) return;
  const char* ratio_help =
      "Live rate over the node's measured ceiling from the --baseline reports, by resource: storage_read and "
      "storage_write (bytes/s), storage_read_iops and storage_write_iops (I/Os per second), network_rx and "
      "network_tx (bytes/s), gpu_power (watts); 0-1, above 1 when the live rate beats the measurement";
  auto add_ratio = [&w, ratio_help](const char* resource, const std::string& device, double ratio) {
    w.add("mlbench_utilisation_ratio", Type::gauge, ratio_help,
          label("resource", resource) + "," + label("device", device), ratio);
  };
  // No GPU readings (none on this node, or NVML missing) cannot show GPUs idling: no bottleneck is named.
  bool gpus_idle = !cur_.gpus.empty();
  for (const auto& g : cur_.gpus) {
    bool idle = reason_set(g.sample.throttle_reasons, "gpu_idle") ||
                (g.utilisation && *g.utilisation < kIdleUtilisation);
    if (auto it = ceilings_->gpu_power_watts.find(g.device);
        it != ceilings_->gpu_power_watts.end() && it->second > 0) {
      double ratio = g.sample.power_w / it->second;
      add_ratio("gpu_power", g.device, ratio);
      idle = idle || ratio < kIdlePowerRatio;
    }
    gpus_idle = gpus_idle && idle;
  }
  const double dt = have_prev_ ? cur_.time_s - prev_.time_s : 0;
  // One counter's rate over the last interval, per device of `items` (the disks or the links) with a
  // ceiling, over that ceiling; true when one of them is saturated.
  auto ratios = [&](const auto& items, const std::map<std::string, double>& ceiling, const char* resource,
                    auto count) {
    bool saturated = false;
    for (const auto& now : items) {
      auto it = ceiling.find(now.device);
      const auto* before = find_before(prev_, now);
      if (it == ceiling.end() || it->second <= 0 || !before || dt <= 0 || now.*count < before->*count)
        continue;
      double ratio = static_cast<double>(now.*count - before->*count) / dt / it->second;
      saturated = saturated || ratio >= kSaturatedRatio;
      add_ratio(resource, now.device, ratio);
    }
    return saturated;
  };
  const Ceilings& c = *ceilings_;
  bool storage =
      ratios(cur_.disks, c.storage_read_bytes_per_second, "storage_read", &DiskCounters::read_bytes);
  storage |=
      ratios(cur_.disks, c.storage_write_bytes_per_second, "storage_write", &DiskCounters::write_bytes);
  storage |= ratios(cur_.disks, c.storage_read_iops, "storage_read_iops", &DiskCounters::reads);
  storage |= ratios(cur_.disks, c.storage_write_iops, "storage_write_iops", &DiskCounters::writes);
  bool network = ratios(cur_.links, c.network_rx_bytes_per_second, "network_rx", &LinkCounters::rx_bytes);
  network |= ratios(cur_.links, c.network_tx_bytes_per_second, "network_tx", &LinkCounters::tx_bytes);
  if (!c.storage_read_bytes_per_second.empty() || !c.storage_write_bytes_per_second.empty() ||
      !c.storage_read_iops.empty() || !c.storage_write_iops.empty())
    w.add("mlbench_bottleneck", Type::gauge, bottleneck_help, label("resource", "storage"),
          storage && gpus_idle);
  if (!c.network_rx_bytes_per_second.empty() || !c.network_tx_bytes_per_second.empty())
    w.add("mlbench_bottleneck", Type::gauge, bottleneck_help, label("resource", "network"),
          network && gpus_idle);
}

TextfileWriter::TextfileWriter(std::filesystem::path path, Monitor::Log log)
    : path_(std::move(path)), log_(std::move(log)) {}

bool TextfileWriter::write(const std::string& exposition) {
  PromWriter own;
  own.add("mlbench_textfile_write_errors_total", Type::counter,
          "Rewrites of the --textfile that failed (the file kept its last good exposition)", "",
          static_cast<double>(errors_));
  try {
    write_text_atomic(path_, exposition + own.text(), "--textfile");
  } catch (const Error& e) {
    ++errors_;
    if (failing_ != e.what())
      log_(fmt::format("{}; retrying each interval (the last good file, if any, stays)", e.what()));
    failing_ = e.what();
    return false;
  }
  if (!failing_.empty())
    log_(fmt::format("{}: written again after {} failed writes", path_.string(), errors_));
  failing_.clear();
  return true;
}

}  // namespace mlbench::monitor
