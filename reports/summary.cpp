#include "reports/summary.hpp"

#include <cmath>

#include <fmt/format.h>

#include "base/units.hpp"

namespace mlbench {

std::string format_metric_value(double value, const std::string& unit) {
  if (!std::isfinite(value)) return "n/a";
  if (unit == "s") {
    if (value < 1e-3) return fmt::format("{:.1f} us", value * 1e6);
    if (value < 1) return fmt::format("{:.2f} ms", value * 1e3);
    return fmt::format("{:.2f} s", value);
  }
  if (unit == "%") return fmt::format("{:.1f} %", value);
  if (unit == "B") return format_bytes(value);
  if (unit == "1/s") return format_rate(value, "/s");
  return format_rate(value, unit);
}

std::string format_params(const Json& params, std::size_t max_len) {
  std::string out;
  if (!params.is_object()) return out;
  for (const auto& [k, v] : params.items()) {
    std::string val = v.is_string() ? v.get<std::string>() : v.dump();
    out += (out.empty() ? "" : " ") + k + "=" + val;
  }
  if (out.size() > max_len) out = out.substr(0, max_len - 3) + "...";
  return out;
}

void print_summary(std::ostream& out, const Report& report) {
  out << fmt::format("{:<12} {:<48} {:<9} {:>16} {:>9}\n", "PROBE", "PARAMS", "STATUS", "RESULT", "% PEAK");
  const auto& results = report.results;
  std::size_t warnings = 0;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const Result& r = results[i];
    std::string headline = "-";
    std::string pct = "-";
    if (r.status == Status::ok && !r.metrics.empty()) {
      headline = fmt::format("{} {}", r.metrics.front().name,
                             format_metric_value(r.metrics.front().value, r.metrics.front().unit));
      if (const Metric* p = r.metric("pct_of_peak")) pct = fmt::format("{:.1f}", p->value);
    }
    out << fmt::format("{:<12} {:<48} {:<9} {:>16} {:>9}\n", r.probe, format_params(r.params, 48),
                       to_string(r.status), headline, pct);
    // Consecutive rows with the same reason (every GPU probe on a host without a GPU) show it once, under
    // the last of them.
    const bool next_shares_it = i + 1 < results.size() && results[i + 1].reason == r.reason;
    if (!r.reason.empty() && !next_shares_it) out << fmt::format("{:<12} {}\n", "", r.reason);
    for (const auto& w : r.warnings) out << fmt::format("{:<12} warning: {}\n", "", w);
    warnings += r.warnings.size();
  }
  if (warnings > 0)
    out << fmt::format("{} warning{}, each under its result above\n", warnings, warnings == 1 ? "" : "s");
}

void print_host(std::ostream& out, const Json& host) {
  auto str = [](const Json& j, const char* key) {
    return j.contains(key) ? (j[key].is_string() ? j[key].get<std::string>() : j[key].dump())
                           : std::string("?");
  };
  out << "host      " << str(host, "hostname") << " (" << str(host, "os") << ", kernel "
      << str(host, "kernel") << ")\n";
  if (host.contains("cpu")) {
    const auto& c = host["cpu"];
    out << "cpu       " << str(c, "model") << ": " << str(c, "sockets") << " sockets, " << str(c, "cores")
        << " cores, " << str(c, "threads") << " threads, governor " << str(c, "governor") << "\n";
  }
  if (host.contains("memory") && host["memory"].contains("total_bytes")) {
    out << "memory    " << format_bytes(host["memory"]["total_bytes"].get<double>()) << "\n";
  }
  for (const auto& n : host.value("numa", Json::array())) {
    out << "numa      node " << str(n, "node") << ": " << n.value("cpus", Json::array()).size() << " cpus, "
        << (n.contains("memory_bytes") ? format_bytes(n["memory_bytes"].get<double>()) : "?") << "\n";
  }
  for (const auto& d : host.value("block_devices", Json::array())) {
    out << "disk      " << str(d, "name") << " " << str(d, "model") << " "
        << (d.contains("size_bytes") ? format_bytes(d["size_bytes"].get<double>()) : "?") << "\n";
  }
  for (const auto& r : host.value("raid", Json::array())) {
    out << "raid      " << str(r, "name") << " " << str(r, "level") << " members " << str(r, "members")
        << "\n";
  }
  for (const auto& n : host.value("nics", Json::array())) {
    out << "nic       " << str(n, "name") << " " << str(n, "driver") << " " << str(n, "speed_mbps")
        << " Mb/s\n";
  }
  for (const auto& g : host.value("gpus", Json::array())) {
    out << "gpu       " << str(g, "index") << ": " << str(g, "name") << " cc " << str(g, "compute_capability")
        << " " << (g.contains("memory_bytes") ? format_bytes(g["memory_bytes"].get<double>()) : "?") << "\n";
  }
  if (host.value("gpus", Json::array()).empty()) out << "gpu       none found\n";
  for (const auto& n : host.value("notes", Json::array()))
    out << "note      " << n.get<std::string>() << "\n";
}

}  // namespace mlbench
