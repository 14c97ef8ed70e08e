// The HTML report's run results (reports/html_parts.hpp): how a report alone ran, the charts of the probes'
// results across machines, and a table of each machine's results.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include <fmt/format.h>

#include "base/stats.hpp"
#include "base/units.hpp"
#include "reports/html.hpp"
#include "reports/html_parts.hpp"
#include "reports/summary.hpp"
#include "reports/svg.hpp"

namespace mlbench::html {
namespace {

constexpr std::size_t kMaxPercentBars = 40;

// Which chart a result feeds, and under which group label.
using Selector = std::function<std::optional<std::string>(const Result&)>;

std::string size_label(const Json& v) {
  if (!v.is_number()) return v.is_string() ? v.get<std::string>() : v.dump();
  double b = v.get<double>();
  static constexpr const char* kUnits[] = {"", "K", "M", "G"};
  int u = 0;
  while (b >= 1024 && u < 3 && std::fmod(b, 1024) == 0) {
    b /= 1024;
    ++u;
  }
  return fmt::format("{:g}{}", b, kUnits[u]);
}

// "randread 4K qd32 x4", and which target of a job over several it is ("all" for their aggregate): the
// aggregate and each target are bars of their own.
std::string storage_job(const Result& r) {
  const Json& p = r.params;
  if (!p.is_object() || !p.contains("rw")) return short_params(p, {});
  std::string out = p["rw"].is_string() ? p["rw"].get<std::string>() : p["rw"].dump();
  if (p.contains("bs")) out += " " + size_label(p["bs"]);
  if (p.contains("iodepth")) out += " qd" + p["iodepth"].dump();
  if (p.contains("jobs")) out += " x" + p["jobs"].dump();
  const std::string scope = p.value("scope", std::string());
  if (scope == "aggregate") out += " all";
  if (scope == "target") out += " " + device_label(r);
  return out;
}

// Per machine and group: the best value per device, then the median over devices. Machines are collapsed into
// fleet min / median / max above kMaxChartMachines.
BarChart collect_bars(const std::vector<NamedReport>& reports, const std::vector<std::string>& machines,
                      const std::string& probe, const std::string& metric, const Selector& group_of,
                      const std::vector<std::string>& order, const std::string& title) {
  std::vector<std::map<std::string, std::map<std::string, double>>> best(reports.size());
  std::string unit;
  std::vector<std::string> groups;
  for (std::size_t i = 0; i < reports.size(); ++i) {
    for (const auto& r : reports[i].report.results) {
      if (r.probe != probe || r.status != Status::ok) continue;
      const Metric* m = r.metric(metric);
      auto g = group_of(r);
      if (m == nullptr || !g || !std::isfinite(m->value)) continue;
      unit = m->unit;
      if (std::find(groups.begin(), groups.end(), *g) == groups.end()) groups.push_back(*g);
      auto [it, inserted] = best[i][*g].try_emplace(device_label(r), m->value);
      if (!inserted)
        it->second =
            m->better == Better::higher ? std::max(it->second, m->value) : std::min(it->second, m->value);
    }
  }
  auto rank = [&](const std::string& g) {
    auto it = std::find(order.begin(), order.end(), g);
    return it == order.end() ? order.size() : static_cast<std::size_t>(it - order.begin());
  };
  std::stable_sort(groups.begin(), groups.end(),
                   [&](const auto& a, const auto& b) { return rank(a) < rank(b); });
  BarChart chart{title, unit, {}, {}};
  bool collapse = reports.size() > kMaxChartMachines;
  chart.series = collapse ? std::vector<std::string>{"fleet min", "fleet median", "fleet max"} : machines;
  for (const auto& g : groups) {
    BarGroup bg{g, {}};
    std::vector<double> per_machine;
    for (std::size_t i = 0; i < reports.size(); ++i) {
      auto it = best[i].find(g);
      double v = std::nan("");
      if (it != best[i].end()) {
        std::vector<double> devices;
        for (const auto& [_, d] : it->second) devices.push_back(d);
        v = median(devices);
        per_machine.push_back(v);
      }
      if (!collapse) bg.values.push_back(v);
    }
    if (collapse) {
      bg.values = {*std::min_element(per_machine.begin(), per_machine.end()), median(per_machine),
                   *std::max_element(per_machine.begin(), per_machine.end())};
    }
    chart.groups.push_back(std::move(bg));
  }
  return chart;
}

std::string nccl_chart(const std::vector<NamedReport>& reports, const std::vector<std::string>& machines) {
  bool collapse = reports.size() > kMaxChartMachines;
  std::map<std::string, std::map<double, std::vector<double>>> series;
  std::vector<std::string> order;  // series in machine order, so colours follow the other charts
  std::string unit;
  for (std::size_t i = 0; i < reports.size(); ++i) {
    for (const auto& r : reports[i].report.results) {
      if (r.probe != "net.nccl" || r.status != Status::ok || !r.params.contains("bytes")) continue;
      const Metric* m = r.metric("busbw");
      if (m == nullptr || !r.params["bytes"].is_number() || !std::isfinite(m->value)) continue;
      unit = m->unit;
      std::string name =
          (collapse ? std::string("fleet median ") : machines[i] + " ") + short_params(r.params, {"bytes"});
      if (!series.count(name)) order.push_back(name);
      series[name][r.params["bytes"].get<double>()].push_back(m->value);
    }
  }
  if (series.empty()) return "";
  LineChart chart{"NCCL bus bandwidth against message size", "message size (bytes)", unit, {}};
  for (const auto& name : order) {
    LineSeries s{name, {}};
    for (const auto& [bytes, values] : series[name]) s.points.emplace_back(bytes, median(values));
    chart.series.push_back(std::move(s));
  }
  return svg_line_chart(chart);
}

std::string percent_chart(const std::vector<NamedReport>& reports, const std::vector<std::string>& machines) {
  bool collapse = reports.size() > kMaxChartMachines;
  std::map<std::string, std::vector<double>> values;
  for (std::size_t i = 0; i < reports.size(); ++i) {
    for (const auto& r : reports[i].report.results) {
      const Metric* m = r.metric("pct_of_peak");
      if (r.status != Status::ok || m == nullptr || !std::isfinite(m->value)) continue;
      std::string dev = device_label(r);
      std::string label =
          collapse ? fmt::format("{} {} (fleet median)", r.probe, short_params(r.params, {}))
                   : fmt::format("{}{}{} {}", reports.size() > 1 ? machines[i] + " " : "",
                                 dev.empty() ? "" : dev + " ", r.probe, short_params(r.params, {}));
      values[label].push_back(m->value);
    }
  }
  if (values.empty()) return "";
  std::vector<HBar> bars;
  for (const auto& [label, v] : values) bars.push_back(HBar{label, median(v)});
  std::sort(bars.begin(), bars.end(), [](const HBar& a, const HBar& b) { return a.value < b.value; });
  std::string title = "% of peak (datasheet or link); dashed: 70 % GEMM and 85 % HBM acceptance floors";
  if (bars.size() > kMaxPercentBars) {
    bars.resize(kMaxPercentBars);
    title += fmt::format(" — lowest {}", kMaxPercentBars);
  }
  return svg_percent_bars(title, bars, {70, 85});
}

}  // namespace

Table run_table(const NamedReport& nr, const std::string& machine) {
  Table t{fmt::format("{}: {}", machine, nr.file),
          {"probe", "device", "params", "status", "result", "% of peak", "reason / warnings"},
          {}};
  for (const auto& r : nr.report.results) {
    if (burnin_report::is_burnin(r)) continue;  // in the burn-in's own tables
    std::string headline = "-", pct = "-";
    if (shows_figures(r.status) && !r.metrics.empty()) {
      headline =
          r.metrics.front().name + " " + format_metric_value(r.metrics.front().value, r.metrics.front().unit);
      if (const Metric* p = r.metric("pct_of_peak")) pct = fmt::format("{:.1f} %", p->value);
    }
    const bool partial = r.status == Status::skipped || r.status == Status::interrupted;
    Tone tone = r.status == Status::ok ? Tone::plain : (partial ? Tone::warn : Tone::bad);
    std::string why = r.reason;
    for (const auto& w : r.warnings) why += (why.empty() ? "warning: " : "; warning: ") + w;
    t.rows.push_back({Cell{r.probe}, Cell{device_label(r)}, Cell{short_params(r.params, {})},
                      Cell{std::string(to_string(r.status)), tone}, Cell{headline, Tone::plain, true},
                      Cell{pct, Tone::plain, true}, Cell{why, r.reason.empty() ? Tone::plain : tone}});
  }
  return t;
}

std::string run_verdict(const NamedReport& report) {
  std::size_t by_status[std::size(kStatusNames)] = {};
  std::size_t warnings = 0;
  for (const auto& r : report.report.results) {
    ++by_status[static_cast<std::size_t>(r.status)];
    warnings += r.warnings.size();
  }
  std::string text = fmt::format("{} results:", report.report.results.size());
  for (const auto& s : kStatusNames)
    text += fmt::format(" {} {},", by_status[static_cast<std::size_t>(s.value)], s.name);
  text += fmt::format(" {} warning(s)", warnings);
  bool bad = by_status[static_cast<std::size_t>(Status::failed)] +
                 by_status[static_cast<std::size_t>(Status::incorrect)] >
             0;
  bool warned = by_status[static_cast<std::size_t>(Status::skipped)] +
                    by_status[static_cast<std::size_t>(Status::interrupted)] + warnings >
                0;
  return verdict_line(bad ? Tone::bad : (warned ? Tone::warn : Tone::good), text);
}

std::string run_charts(const std::vector<NamedReport>& reports, const std::vector<std::string>& machines) {
  std::string charts;
  auto bars = [&](const BarChart& c) {
    if (!c.groups.empty()) charts += svg_bar_chart(c);
  };
  auto param = [](const char* key) {
    return [key](const Result& r) -> std::optional<std::string> {
      if (!r.params.contains(key) || !r.params[key].is_string()) return std::nullopt;
      return r.params[key].get<std::string>();
    };
  };
  bars(collect_bars(reports, machines, "gpu.gemm", "tflops", param("precision"),
                    {"fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "int8"},
                    "GEMM throughput per precision (best shape)"));
  bars(collect_bars(reports, machines, "gpu.hbm", "bandwidth", param("kernel"),
                    {"copy", "scale", "add", "triad", "dot", "nstream", "read", "write"},
                    "GPU memory (HBM) bandwidth"));
  bars(collect_bars(
      reports, machines, "gpu.copy", "bandwidth",
      [](const Result& r) -> std::optional<std::string> { return short_params(r.params, {}); }, {},
      "Host-device and peer copy bandwidth"));
  charts += nccl_chart(reports, machines);
  auto job = [](const Result& r) -> std::optional<std::string> { return storage_job(r); };
  bars(collect_bars(reports, machines, "storage.io", "iops", job, {}, "Storage IOPS per job"));
  bars(collect_bars(reports, machines, "storage.io", "bandwidth", job, {}, "Storage bandwidth per job"));
  bars(collect_bars(reports, machines, "host.membw", "bandwidth", param("kernel"),
                    {"copy", "scale", "add", "triad"}, "Host memory bandwidth"));
  charts += percent_chart(reports, machines);
  return charts;
}

}  // namespace mlbench::html
