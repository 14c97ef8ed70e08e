#include "reports/report.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/input_file.hpp"
#include "mlbench_config.hpp"
#include "reports/report_reader.hpp"

namespace mlbench {
namespace {

Json stats_to_json(const Stats& s) {
  return Json{{"min", s.min},   {"p10", s.p10}, {"median", s.median}, {"p90", s.p90}, {"max", s.max},
              {"mean", s.mean}, {"cv", s.cv},   {"mad", s.mad},       {"n", s.n}};
}

// JSON has no NaN/Inf; a non-finite value becomes null and reads back as NaN.
Json number(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

}  // namespace

Status status_from_string(std::string_view s) {
  if (auto st = value_of(kStatusNames, s)) return *st;
  throw Error(fmt::format("unknown result status '{}'", s));
}

const Metric* Result::metric(std::string_view name) const {
  auto it = std::find_if(metrics.begin(), metrics.end(), [&](const Metric& m) { return m.name == name; });
  return it == metrics.end() ? nullptr : &*it;
}

double relative_spread(const Metric& m) {
  if (m.value == 0 || !std::isfinite(m.value)) return 0;
  const double se = m.stats ? median_standard_error(*m.stats) / std::fabs(m.value) : 0.0;
  return std::max(std::isfinite(se) ? se : 0.0, m.ci ? relative_sigma(*m.ci, m.value) : 0.0);
}

std::optional<ConfidenceInterval> proportional_ci(const Metric& of, double value) {
  return sigma_ci(value, std::fabs(value) * relative_spread(of));
}

std::optional<ConfidenceInterval> sigma_ci(double value, double sigma) {
  if (!(sigma > 0) || !std::isfinite(sigma)) return std::nullopt;
  return symmetric_ci(value, sigma);
}

void widen_to_rounds(Result& whole, const std::vector<Result>& rounds) {
  if (rounds.size() < 2) return;
  const double n = static_cast<double>(rounds.size());
  for (Metric& m : whole.metrics) {
    if (!(m.value > 0) || !std::isfinite(m.value)) continue;
    std::vector<double> values;
    for (const Result& r : rounds) {
      const Metric* rm = r.metric(m.name);
      if (rm == nullptr || !(rm->value > 0) || !std::isfinite(rm->value)) break;
      values.push_back(rm->value);
    }
    if (values.size() != rounds.size()) continue;
    const double h = student_t95(rounds.size() - 1) * log_standard_deviation(values) / std::sqrt(n);
    if (!(h > 0) || !std::isfinite(h)) continue;  // rounds alike: no interval of zero width
    const ConfidenceInterval wide{m.value * std::exp(-h), m.value * std::exp(h)};
    if (!m.ci || relative_sigma(wide, m.value) > relative_sigma(*m.ci, m.value)) m.ci = wide;
  }
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
    Json jm{{"name", m.name}, {"value", number(m.value)}, {"unit", m.unit}, {"better", to_string(m.better)}};
    if (m.stats) jm["stats"] = stats_to_json(*m.stats);
    if (m.ci) jm["ci"] = Json{{"lo", number(m.ci->lo)}, {"hi", number(m.ci->hi)}};
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
  try {
    return detail::decode_result(j.dump());
  } catch (const std::exception& e) {
    throw Error(fmt::format("not a valid mlbench result ({})", e.what()));
  }
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

Report parse_report(std::string_view text, std::string_view origin, ReadOptions opts) {
  try {
    return detail::decode_report(text, opts.samples);
  } catch (const detail::JsonSyntaxError& e) {
    throw UsageError(
        fmt::format("{}: not valid JSON ({}); pass a report written by mlbench", origin, e.what()));
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("{}: {}", origin, e.what()));
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("{}: not a valid mlbench report ({})", origin, e.what()));
  }
}

Report load_report(const std::filesystem::path& path, ReadOptions opts) {
  // One buffer per thread, reused from call to call: a fleet load reads hundreds of files on each thread, and
  // a fresh zero-filled buffer per file cost more than the reading.
  thread_local std::string buf;
  return parse_report(read_input_file(path, InputKind::report, buf), path.string(), opts);
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
