#include "reports/report.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "bench/error.hpp"
#include "mlbench_config.hpp"

namespace mlbench {
namespace {

Json stats_to_json(const Stats& s) {
  return Json{{"min", s.min},   {"p10", s.p10}, {"median", s.median}, {"p90", s.p90}, {"max", s.max},
              {"mean", s.mean}, {"cv", s.cv},   {"mad", s.mad},       {"n", s.n}};
}

Stats stats_from_json(const Json& j) {
  Stats s;
  s.min = j.at("min").get<double>();
  s.p10 = j.at("p10").get<double>();
  s.median = j.at("median").get<double>();
  s.p90 = j.at("p90").get<double>();
  s.max = j.at("max").get<double>();
  s.mean = j.at("mean").get<double>();
  s.cv = j.at("cv").get<double>();
  s.mad = j.value("mad", 0.0);
  s.n = j.at("n").get<std::size_t>();
  return s;
}

// JSON has no NaN/Inf; a non-finite value becomes null and reads back as NaN.
Json number(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }
double number_from(const Json& j) { return j.is_null() ? std::nan("") : j.get<double>(); }

int major_of(const std::string& version) {
  int major = -1;
  if (std::sscanf(version.c_str(), "%d.", &major) != 1) return -1;
  return major;
}

}  // namespace

std::string_view to_string(Status s) {
  switch (s) {
    case Status::ok:
      return "ok";
    case Status::skipped:
      return "skipped";
    case Status::failed:
      return "failed";
    case Status::incorrect:
      return "incorrect";
  }
  return "failed";
}

Status status_from_string(std::string_view s) {
  for (Status st : {Status::ok, Status::skipped, Status::failed, Status::incorrect}) {
    if (to_string(st) == s) return st;
  }
  throw Error(fmt::format("unknown result status '{}'", s));
}

const Metric* Result::metric(std::string_view name) const {
  auto it = std::find_if(metrics.begin(), metrics.end(), [&](const Metric& m) { return m.name == name; });
  return it == metrics.end() ? nullptr : &*it;
}

Metric& Result::add_metric(std::string name, double value, std::string unit, Better better) {
  metrics.push_back(Metric{std::move(name), value, std::move(unit), better, std::nullopt});
  return metrics.back();
}

Metric rate_metric(std::string name, double work_per_sample, const std::vector<double>& seconds,
                   std::string unit) {
  if (seconds.empty()) throw Error(fmt::format("metric {}: no samples", name));
  std::vector<double> rates;
  rates.reserve(seconds.size());
  for (double t : seconds) rates.push_back(t > 0 ? work_per_sample / t : 0.0);
  Metric m{std::move(name), work_per_sample / median(seconds), std::move(unit), Better::higher,
           compute_stats(rates)};
  return m;
}

Json to_json(const Result& r) {
  Json metrics = Json::array();
  for (const auto& m : r.metrics) {
    Json jm{{"name", m.name},
            {"value", number(m.value)},
            {"unit", m.unit},
            {"better", m.better == Better::higher ? "higher" : "lower"}};
    if (m.stats) jm["stats"] = stats_to_json(*m.stats);
    metrics.push_back(std::move(jm));
  }
  Json j{{"probe", r.probe},         {"params", r.params},     {"status", to_string(r.status)},
         {"work", r.work},           {"samples", r.samples},   {"metrics", std::move(metrics)},
         {"telemetry", r.telemetry}, {"warnings", r.warnings}, {"info", r.info}};
  if (!r.reason.empty()) j["reason"] = r.reason;
  return j;
}

Json to_json(const Report& r) {
  Json results = Json::array();
  for (const auto& res : r.results) results.push_back(to_json(res));
  Json j{{"schema_version", r.schema_version},
         {"tool", r.tool},
         {"host", r.host},
         {"run", r.run},
         {"results", std::move(results)}};
  if (!r.cluster.is_null()) j["cluster"] = r.cluster;
  return j;
}

Result result_from_json(const Json& j) {
  Result r;
  r.probe = j.at("probe").get<std::string>();
  r.params = j.value("params", Json::object());
  r.status = status_from_string(j.at("status").get<std::string>());
  r.reason = j.value("reason", "");
  r.work = j.value("work", Json::object());
  for (const auto& s : j.value("samples", Json::array())) r.samples.push_back(number_from(s));
  for (const auto& jm : j.value("metrics", Json::array())) {
    Metric m;
    m.name = jm.at("name").get<std::string>();
    m.value = number_from(jm.at("value"));
    m.unit = jm.value("unit", "");
    m.better = jm.value("better", "higher") == "lower" ? Better::lower : Better::higher;
    if (jm.contains("stats") && jm["stats"].is_object()) m.stats = stats_from_json(jm["stats"]);
    r.metrics.push_back(std::move(m));
  }
  r.telemetry = j.value("telemetry", Json::object());
  r.warnings = j.value("warnings", std::vector<std::string>{});
  r.info = j.value("info", Json::object());
  return r;
}

Report report_from_json(const Json& j) {
  if (!j.is_object() || !j.contains("schema_version") || !j.contains("results")) {
    throw UsageError("not an mlbench report (no schema_version/results)");
  }
  Report r;
  r.schema_version = j.at("schema_version").get<std::string>();
  int major = major_of(r.schema_version);
  if (major < 0) throw UsageError(fmt::format("malformed schema_version '{}'", r.schema_version));
  if (major > kSchemaMajor) {
    throw UsageError(
        fmt::format("report schema {} is newer than this mlbench understands ({}); upgrade mlbench",
                    r.schema_version, kSchemaVersion));
  }
  r.tool = j.value("tool", Json::object());
  r.host = j.value("host", Json::object());
  r.run = j.value("run", Json::object());
  for (const auto& jr : j.at("results")) r.results.push_back(result_from_json(jr));
  if (j.contains("cluster")) r.cluster = j["cluster"];
  return r;
}

Json tool_info() {
  return Json{{"name", "mlbench"},
              {"version", MLBENCH_VERSION},
              {"git_sha", MLBENCH_GIT_SHA},
              {"features",
               {{"cuda", MLBENCH_HAS_CUDA == 1},
                {"cudnn", MLBENCH_HAS_CUDNN == 1},
                {"nccl", MLBENCH_HAS_NCCL == 1},
                {"uring", MLBENCH_HAS_URING == 1},
                {"xlsx", MLBENCH_HAS_XLSX == 1},
                {"mpi", MLBENCH_HAS_MPI == 1},
                {"blkid", MLBENCH_HAS_BLKID == 1}}}};
}

Report load_report(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw UsageError(fmt::format("{}: cannot open report (does the file exist?)", path.string()));
  Json j;
  try {
    j = Json::parse(in);
  } catch (const Json::parse_error& e) {
    throw UsageError(
        fmt::format("{}: not valid JSON ({}); pass a report written by mlbench", path.string(), e.what()));
  }
  try {
    return report_from_json(j);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("{}: {}", path.string(), e.what()));
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("{}: not a valid mlbench report ({})", path.string(), e.what()));
  }
}

void write_text_atomic(const std::filesystem::path& path, const std::string& text) {
  auto dir = path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
  std::string tmpl = (dir / ("." + path.filename().string() + ".XXXXXX")).string();
  int fd = mkstemp(tmpl.data());
  if (fd < 0) {
    throw UsageError(fmt::format("{}: cannot create a file in '{}': {}; choose another -o path",
                                 path.string(), dir.string(), std::strerror(errno)));
  }
  std::size_t off = 0;
  while (off < text.size()) {
    ssize_t n = ::write(fd, text.data() + off, text.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      ::unlink(tmpl.c_str());
      throw Error(fmt::format("{}: write failed: {}", path.string(), std::strerror(err)));
    }
    off += static_cast<std::size_t>(n);
  }
  ::fchmod(fd, 0644);
  if (::fsync(fd) != 0 || ::close(fd) != 0 || std::rename(tmpl.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmpl.c_str());
    throw Error(fmt::format("{}: could not be written: {}", path.string(), std::strerror(err)));
  }
}

void write_json_atomic(const std::filesystem::path& path, const Json& j) {
  write_text_atomic(path, j.dump(2) + "\n");
}

void write_report(const std::filesystem::path& path, const Report& r) { write_json_atomic(path, to_json(r)); }

void check_writable(const std::filesystem::path& path) {
  auto dir = path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    throw UsageError(fmt::format("{}: folder '{}' does not exist; create it or choose another -o path",
                                 path.string(), dir.string()));
  }
  if (std::filesystem::is_directory(path, ec)) {
    throw UsageError(fmt::format("{}: is a folder; give a file name for -o", path.string()));
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    throw UsageError(
        fmt::format("{}: folder '{}' is not writable; choose another -o path", path.string(), dir.string()));
  }
}

}  // namespace mlbench
