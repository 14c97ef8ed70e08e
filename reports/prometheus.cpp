#include "reports/prometheus.hpp"

#include <cctype>
#include <cmath>
#include <ctime>
#include <map>
#include <set>

#include <fmt/format.h>

namespace mlbench {
namespace {

// The one naming table: each report unit's family suffix (base units, plural; a rate per second), the scale
// into that base unit, and the words that spell the unit inside a metric's name with the thing each counts
// ("iops" counts I/Os: "io"; "tflops" is the unit itself: nothing). A family is mlbench_ + the metric's
// words less those unit words + the suffix, so the unit is said once: read_iops (1/s) ->
// mlbench_read_io_per_second, files_per_s -> mlbench_files_per_second, pct_of_peak (%) -> mlbench_peak_ratio
// (0-1). A name left empty is the suffix alone (tflops -> mlbench_flop_per_second).
struct UnitWord {
  const char* word;  // one or more name words ("per_s")
  const char* noun;  // what it becomes; empty: removed
};
struct PromUnit {
  const char* unit;
  const char* suffix;
  double scale;
  std::vector<UnitWord> words;
};
const PromUnit kPromUnits[] = {
    {"B/s", "_bytes_per_second", 1, {{"bytes_per_second", ""}, {"bytes_per_s", ""}}},
    {"FLOP/s", "_flop_per_second", 1, {{"tflops", ""}, {"gflops", ""}, {"flops", ""}}},
    {"OP/s", "_op_per_second", 1, {{"tops", ""}, {"ops", ""}}},
    {"1/s", "_per_second", 1, {{"iops", "io"}, {"per_second", ""}, {"per_s", ""}}},
    {"s", "_seconds", 1, {{"seconds", "duration"}, {"s", ""}}},
    {"B", "_bytes", 1, {{"bytes", ""}, {"b", ""}}},
    {"%", "_ratio", 0.01, {{"pct_of", ""}, {"pct", ""}, {"percent", ""}}},
    {"W", "_watts", 1, {{"watts", ""}, {"w", ""}}},
    {"Hz", "_hertz", 1, {{"hertz", ""}, {"hz", ""}}},
    {"°C", "_celsius", 1, {{"celsius", ""}, {"c", ""}}},
};

// Lowercase, every other character an underscore, runs of underscores one, none at either end.
std::string sanitize(const std::string& s) {
  std::string out;
  for (char c : s) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c));
    if (!keep && (out.empty() || out.back() == '_')) continue;
    out += keep ? static_cast<char>(std::tolower(static_cast<unsigned char>(c))) : '_';
  }
  if (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

// `words` ("read_iops") with each whole-word occurrence of `word` ("iops") replaced by `noun`.
std::string replace_word(const std::string& words, const std::string& word, const std::string& noun) {
  const std::string padded = "_" + words + "_", from = "_" + word + "_";
  std::string out;
  std::size_t at = 0;
  for (std::size_t hit; (hit = padded.find(from, at)) != std::string::npos; at = hit + from.size() - 1)
    out += padded.substr(at, hit - at) + (noun.empty() ? "" : "_" + noun);
  out += padded.substr(at);
  return sanitize(out);
}

std::string help_for(const std::string& metric, const std::string& unit) {
  return fmt::format("mlbench result metric {} ({}), one series per result", metric,
                     unit.empty() ? "no unit" : unit);
}

// A parameter's value as label text: a string as it is, a list as its items joined by commas, anything else
// as JSON ("4096", "true").
std::string param_text(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (!v.is_array()) return v.dump();
  std::string out;
  for (const auto& item : v) out += (out.empty() ? "" : ",") + param_text(item);
  return out;
}

// The labels every series of a result has (probe, host, device), then each parameter as a label of its own,
// sorted by name: names sanitized to [a-z0-9_] (a leading digit gets "_"), one that would be a fixed label
// prefixed "param_"; the device and target parameters are the device label already. Empty values are left
// out, so no label is ever "".
std::string result_labels(const Result& r, const std::string& host) {
  static const std::set<std::string> kFixed = {"probe", "host", "device", "status"};
  std::string out = fmt::format("probe=\"{}\",host=\"{}\"", prometheus_escape(r.probe), host);
  if (auto device = device_label(r); !device.empty())
    out += fmt::format(",device=\"{}\"", prometheus_escape(device));
  if (!r.params.is_object()) return out;
  std::set<std::string> used;
  for (const auto& [key, value] : r.params.items()) {
    if (key == "device" || key == "target") continue;
    const std::string text = param_text(value);
    std::string name = sanitize(key);
    if (text.empty() || name.empty()) continue;
    if (std::isdigit(static_cast<unsigned char>(name.front()))) name = "_" + name;
    if (kFixed.contains(name)) name = "param_" + name;
    if (!used.insert(name).second) continue;  // two keys that sanitize alike: the first (sorted) one
    out += fmt::format(",{}=\"{}\"", name, prometheus_escape(text));
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
  std::string words = sanitize(metric);
  for (const auto& u : kPromUnits) {
    if (unit != u.unit) continue;
    for (const auto& w : u.words) words = replace_word(words, w.word, w.noun);
    return PromName{words.empty() ? "mlbench" + std::string(u.suffix) : "mlbench_" + words + u.suffix,
                    u.scale};
  }
  return PromName{"mlbench_" + words, 1};
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
    // HELP text escapes backslash and newline (the exposition format); a report's metric name may hold
    // either.
    std::string help;
    for (char c : fam.help) help += c == '\\' ? "\\\\" : c == '\n' ? "\\n" : std::string(1, c);
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name,
                       fam.type == Type::counter ? "counter" : "gauge");
    for (const auto& s : fam.samples) out += s + "\n";
  }
  return out;
}

std::string to_prometheus(const NamedReport& report) {
  std::string host = prometheus_escape(host_label(report));
  PromWriter out;
  std::set<std::string> seen;
  std::string statuses;
  for (const auto& s : kStatusNames) statuses += fmt::format("{}{}", statuses.empty() ? "" : ", ", s.name);
  const std::string status_help = fmt::format("1 for the status of each mlbench result ({})", statuses);
  for (const auto& r : report.report.results) {
    const std::string labels = result_labels(r, host);
    // Two results with one identity would be duplicate series, which Prometheus rejects: the first wins.
    if (!seen.insert(labels).second) continue;
    out.add("mlbench_result_status", PromWriter::Type::gauge, status_help,
            fmt::format("{},status=\"{}\"", labels, to_string(r.status)), 1);
    if (r.status != Status::ok) continue;
    for (const auto& m : r.metrics) {
      if (!std::isfinite(m.value)) continue;
      PromName pn = prometheus_name(m.name, m.unit);
      // Two metrics of a result under one family (tflops and flops) would be one series twice.
      if (!seen.insert(pn.name + "{" + labels).second) continue;
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
