#include "reports/fio_json.hpp"

#include <time.h>

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "base/error.hpp"
#include "bench/disk_stats.hpp"

namespace mlbench {
namespace {

// A latency object of a direction mlbench did not do (fio's zeros).
Json zero_latency() { return {{"min", 0}, {"max", 0}, {"mean", 0.0}, {"stddev", 0.0}, {"N", 0}}; }

std::uint64_t rounded(double v) { return v > 0 ? static_cast<std::uint64_t>(std::llround(v)) : 0; }

// One direction (read, write, trim) as fio writes it: `prefix` names its metrics ("" for the job's only
// direction, "read_"/"write_" for a mixed job's), `ios` its I/O count; none for a direction not done.
Json direction(const Result& r, const std::string& prefix, std::uint64_t ios, const Json& latency) {
  const std::uint64_t bs = r.params.value("bs", std::uint64_t{0});
  const Metric* iops = ios > 0 ? r.metric(prefix + "iops") : nullptr;
  const Metric* bw = ios > 0 ? r.metric(prefix + "bandwidth") : nullptr;
  const double seconds = r.work.value("seconds", 0.0);
  const std::uint64_t bytes = ios * bs, bw_bytes = bw ? rounded(bw->value) : 0;
  Json d{{"io_bytes", bytes},
         {"io_kbytes", bytes >> 10},
         {"bw_bytes", bw_bytes},
         {"bw", bw_bytes >> 10},
         {"iops", iops ? iops->value : 0.0},
         {"runtime", ios > 0 ? rounded(seconds * 1e3) : 0},
         {"total_ios", ios},
         {"short_ios", 0},
         {"drop_ios", 0}};
  for (const char* key : {"slat_ns", "clat_ns", "lat_ns"})
    d[key] = latency.is_object() && latency.contains(key) ? latency[key] : zero_latency();
  // The sampling intervals' rates (fio's bw and iops logs' statistics); bw in KiB/s as fio's.
  auto spread = [&](const Metric* m, const char* min, const char* max, const char* mean, const char* dev,
                    const char* samples, double scale) {
    const bool has = m != nullptr && m->stats.has_value();
    const Stats s = has ? *m->stats : Stats{};
    d[min] = rounded(s.min / scale);
    d[max] = rounded(s.max / scale);
    if (std::string_view(min) == "bw_min") d["bw_agg"] = has ? 100.0 : 0.0;  // one job per group
    d[mean] = s.mean / scale;
    d[dev] = s.cv * s.mean / scale;
    d[samples] = s.n;
  };
  spread(bw, "bw_min", "bw_max", "bw_mean", "bw_dev", "bw_samples", 1024.0);
  spread(iops, "iops_min", "iops_max", "iops_mean", "iops_stddev", "iops_samples", 1.0);
  return d;
}

std::string text(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "1" : "0";
  return v.dump();
}

// The job's options under fio's names, values as fio prints them (strings).
Json job_options(const Result& r, const std::string& name) {
  const Json& p = r.params;
  Json o{{"name", name}};
  if (p.contains("target")) {
    std::string files;
    for (const auto& t : p["target"].is_array() ? p["target"] : Json::array({p["target"]}))
      files += (files.empty() ? "" : ":") + text(t);
    o["filename"] = files;
  }
  for (auto [ours, fio] : {std::pair{"rw", "rw"},
                           {"bs", "bs"},
                           {"iodepth", "iodepth"},
                           {"jobs", "numjobs"},
                           {"direct", "direct"},
                           {"rwmix_read", "rwmixread"},
                           {"rate_iops", "rate_iops"}})
    if (p.contains(ours)) o[fio] = text(p[ours]);
  const std::string engine = r.info.value("engine", std::string());
  if (!engine.empty()) o["ioengine"] = engine == "uring" ? "io_uring" : engine;
  if (r.info.contains("region_bytes")) o["size"] = text(r.info["region_bytes"]);
  if (r.info.value("runtime_s", 0.0) > 0) {
    o["runtime"] = fmt::format("{}", r.info["runtime_s"].get<double>());
    o["time_based"] = "1";
  }
  if (r.info.value("ramp_s", 0.0) > 0) o["ramp_time"] = fmt::format("{}", r.info["ramp_s"].get<double>());
  return o;
}

// "2026-12-06T10:12:10Z" as seconds since the epoch; 0 when it is not that shape.
std::int64_t epoch_of(const std::string& utc) {
  std::tm tm{};
  if (::strptime(utc.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm) == nullptr) return 0;
  return static_cast<std::int64_t>(::timegm(&tm));
}

// A storage job's own result (not a multi-target job's per-target row) with fio's figures.
bool fio_job(const Result& r) {
  return r.probe == "storage.io" && r.status == Status::ok && r.info.contains("io_latency") &&
         !(r.params.is_object() && r.params.value("scope", "") == "target");
}

}  // namespace

bool has_fio_figures(const Report& report) {
  return std::any_of(report.results.begin(), report.results.end(), fio_job);
}

Json to_fio_json(const Report& report, std::string_view origin) {
  const double elapsed = report.run.value("duration_s", 0.0);
  Json jobs = Json::array();
  std::vector<Json> options;
  std::vector<DiskStat> disks;
  for (const Result& r : report.results) {
    if (!fio_job(r)) continue;
    const std::string rw = r.params.value("rw", std::string());
    const std::string name = r.params.value("job", rw);
    const Json& lat = r.info["io_latency"];
    const std::uint64_t reads = r.work.value("reads", std::uint64_t{0}),
                        writes = r.work.value("writes", std::uint64_t{0});
    // A mixed job has each direction's metrics (read_iops ...); a one-way job's are its direction's.
    const bool mixed = r.metric("read_iops") != nullptr;
    Json job{{"jobname", name}, {"groupid", 0}, {"error", 0}, {"eta", 0}, {"elapsed", rounded(elapsed)}};
    options.push_back(job_options(r, name));
    job["job options"] = options.back();
    job["read"] = direction(r, mixed ? "read_" : "", reads, lat.value("read", Json()));
    job["write"] = direction(r, mixed ? "write_" : "", writes, lat.value("write", Json()));
    job["trim"] = direction(r, "", 0, Json());
    job["sync"] = {{"total_ios", 0}, {"lat_ns", zero_latency()}};
    job["job_runtime"] = rounded(r.work.value("seconds", 0.0) * 1e3);
    for (const char* cpu : {"usr_cpu", "sys_cpu"}) job[cpu] = r.metric(cpu) ? r.metric(cpu)->value : 0.0;
    const Json rusage = r.info.value("rusage", Json::object());
    for (const char* key : {"ctx", "majf", "minf"}) job[key] = rusage.value(key, std::uint64_t{0});
    const Json distribution = r.info.value("latency_distribution", Json::object());
    for (const auto& [key, part] : distribution.items()) job[key] = part;
    jobs.push_back(std::move(job));
    const Json disk_stats = r.info.value("disk_stats", Json::array());
    for (const auto& d : disk_stats) {
      const DiskStat s = disk_stat_from_json(d);
      auto it = std::find_if(disks.begin(), disks.end(), [&](const DiskStat& x) { return x.name == s.name; });
      if (it == disks.end()) {
        disks.push_back(s);
      } else {
        add_disk_stat(*it, s);
      }
    }
  }
  if (!has_fio_figures(report)) {
    throw UsageError(fmt::format(
        "{}: no storage.io result with fio's figures (io_latency: reports of mlbench storage since schema "
        "1.3); run the job again with this mlbench",
        origin));
  }
  const std::int64_t t = epoch_of(report.run.value("started_utc", std::string()));
  std::tm tm{};
  const time_t tt = static_cast<time_t>(t);
  ::gmtime_r(&tt, &tm);
  char when[64];
  std::strftime(when, sizeof when, "%a %b %e %H:%M:%S %Y", &tm);
  Json out{{"fio version", "mlbench-" + report.tool.value("version", std::string("unknown"))},
           {"timestamp", t},
           {"timestamp_ms", t * 1000},
           {"time", when}};
  // The options every job has alike, as fio's [global] section (a reader that merges them into each job's,
  // as fio-plot does, gets the same values).
  Json global = Json::object();
  for (const auto& item : options.front().items()) {
    const std::string& key = item.key();
    const Json& value = item.value();
    if (key == "name") continue;
    if (std::all_of(options.begin(), options.end(),
                    [&](const Json& o) { return o.value(key, Json()) == value; }))
      global[key] = value;
  }
  if (!global.empty()) out["global options"] = global;
  out["jobs"] = jobs;
  Json util = Json::array();
  for (const auto& d : disks) {
    Json j = to_json(d);
    j.erase("io_ticks");  // mlbench's, to add entries up; not fio's
    j.erase("msec");
    util.push_back(j);
  }
  out["disk_util"] = util;
  return out;
}

}  // namespace mlbench
