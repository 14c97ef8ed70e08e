#include "reports/prometheus.hpp"

#include <cctype>
#include <cmath>
#include <ctime>
#include <map>
#include <set>

#include <fmt/format.h>

namespace mlbench {
namespace {

// Report metrics whose names are units themselves, renamed so the family name carries its base unit once.
struct PromOverride {
  const char* metric;
  const char* name;
  double scale;
  const char* help;
};
constexpr PromOverride kPromNames[] = {
    {"tflops", "mlbench_flop_per_second", 1, "Floating-point (or integer, int8) operations per second"},
    {"iops", "mlbench_io_per_second", 1, "Completed I/O operations per second"},
    {"pct_of_peak", "mlbench_peak_ratio", 0.01,
     "Measured headline metric over the datasheet/link peak (0-1)"},
};

struct UnitSuffix {
  const char* unit;
  const char* suffix;
};
constexpr UnitSuffix kUnitSuffixes[] = {
    {"B/s", "_bytes_per_second"},
    {"FLOP/s", "_flop_per_second"},
    {"OP/s", "_op_per_second"},
    {"1/s", "_per_second"},
    {"s", "_seconds"},
    {"B", "_bytes"},
    {"%", "_percent"},
    {"W", "_watts"},
    {"Hz", "_hertz"},
};

std::string sanitize(const std::string& s) {
  std::string out;
  for (char c : s)
    out += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '_';
  return out;
}

std::string help_for(const std::string& metric, const std::string& unit) {
  for (const auto& o : kPromNames) {
    if (metric == o.metric) return o.help;
  }
  return fmt::format("mlbench metric {} ({})", metric, unit.empty() ? "no unit" : unit);
}

std::string params_label(const Json& params) {
  std::string out;
  if (!params.is_object()) return out;
  for (const auto& [k, v] : params.items()) {
    if (k == "device" || k == "target") continue;
    out += (out.empty() ? "" : ",") + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
  }
  return out;
}

// "2026-11-30T10:00:00Z" → Unix seconds; nullopt-like NaN when malformed.
double parse_utc(const std::string& s) {
  std::tm tm{};
  if (std::sscanf(s.c_str(), "%d-%d-%dT%d:%d:%dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                  &tm.tm_min, &tm.tm_sec) != 6) {
    return std::nan("");
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<double>(timegm(&tm));
}

std::string value_text(double v) { return fmt::format("{:.17g}", v); }

}  // namespace

PromName prometheus_name(const std::string& metric, const std::string& unit) {
  for (const auto& o : kPromNames) {
    if (metric == o.metric) return PromName{o.name, o.scale};
  }
  std::string name = "mlbench_" + sanitize(metric);
  for (const auto& u : kUnitSuffixes) {
    if (unit == u.unit) {
      name += u.suffix;
      break;
    }
  }
  return PromName{name, 1};
}

std::string prometheus_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

void PromWriter::add(const std::string& name, Type type, const std::string& help, const std::string& labels,
                     double value) {
  auto& fam = families_[name];
  if (fam.help.empty()) {
    fam.help = help;
    fam.type = type;
  }
  fam.samples.push_back(labels.empty() ? fmt::format("{} {}", name, value_text(value))
                                       : fmt::format("{}{{{}}} {}", name, labels, value_text(value)));
}

std::string PromWriter::text() const {
  std::string out;
  for (const auto& [name, fam] : families_) {
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, fam.help, name,
                       fam.type == Type::counter ? "counter" : "gauge");
    for (const auto& s : fam.samples) out += s + "\n";
  }
  return out;
}

std::string to_prometheus(const NamedReport& report) {
  std::string host = prometheus_escape(host_label(report));
  PromWriter out;
  std::set<std::string> seen;
  const std::string status_help = "1 for the status of each mlbench result (ok, skipped, failed, incorrect)";
  for (const auto& r : report.report.results) {
    std::string labels =
        fmt::format("probe=\"{}\",params=\"{}\",host=\"{}\",device=\"{}\"", prometheus_escape(r.probe),
                    prometheus_escape(params_label(r.params)), host, prometheus_escape(device_label(r)));
    // Two results with one identity would be duplicate series, which Prometheus rejects: the first wins.
    if (!seen.insert(labels).second) continue;
    out.add("mlbench_result_status", PromWriter::Type::gauge, status_help,
            fmt::format("{},status=\"{}\"", labels, to_string(r.status)), 1);
    if (r.status != Status::ok) continue;
    for (const auto& m : r.metrics) {
      if (!std::isfinite(m.value)) continue;
      PromName pn = prometheus_name(m.name, m.unit);
      out.add(pn.name, PromWriter::Type::gauge, help_for(m.name, m.unit), labels, m.value * pn.scale);
    }
  }
  double started =
      parse_utc(report.report.run.is_object() ? report.report.run.value("started_utc", std::string()) : "");
  if (std::isfinite(started)) {
    out.add("mlbench_report_timestamp_seconds", PromWriter::Type::gauge,
            "Start of the mlbench run that produced these metrics (Unix time)",
            fmt::format("host=\"{}\"", host), started);
  }
  return out.text();
}

}  // namespace mlbench
