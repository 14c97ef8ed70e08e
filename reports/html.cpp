#include "reports/html.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <map>
#include <set>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/stats.hpp"
#include "base/units.hpp"
#include "reports/render.hpp"
#include "reports/report_burnin.hpp"
#include "reports/summary.hpp"
#include "reports/svg.hpp"

namespace mlbench {
namespace {

constexpr std::size_t kMaxPercentBars = 40;
constexpr std::size_t kMaxOutlierRows = 20;
// Up to this many machines the inventory is a column per machine (side by side); above, a row per machine,
// the first kMaxInventoryRows of them.
constexpr std::size_t kInventoryColumns = 4;
constexpr std::size_t kMaxInventoryRows = 64;

// The page's own CSS, after the tables' (kHtmlTableStyle). The body is as wide as the charts' coordinate
// space, so a chart is drawn 1:1 where the window allows; inventory cells keep their line breaks.
std::string page_style() {
  constexpr const char* kPage =
      "body{{font-family:sans-serif;margin:24px;color:#222;max-width:{:g}px}}\n"
      "h1{{font-size:22px}}h2{{font-size:17px;margin-top:28px;border-bottom:1px solid #ccc}}\n"
      "svg.chart{{display:block;width:100%;height:auto;margin:8px 0 16px}}\n"
      ".note{{color:#555;font-size:12px}}\n"
      "p.verdict{{font-size:16px;font-weight:bold;padding:6px 10px;margin:6px 0;border-left:6px solid}}\n"
      "p.verdict.good{{color:#1a7f37;background:#dafbe1}}\n"
      "p.verdict.warn{{color:#9a6700;background:#fff8c5}}\n"
      "p.verdict.bad{{color:#cf222e;background:#ffebe9}}\n"
      ".inventory td{{white-space:pre-line}}.inventory td:first-child{{font-weight:bold}}\n"
      "ul.reasons{{margin:2px 0 10px;padding-left:34px}}.burnin td:not(.num){{white-space:pre-line}}\n";
  return std::string(kHtmlTableStyle) + fmt::format(kPage, kChartWidth);
}

// Which chart a result feeds, and under which group label.
using Selector = std::function<std::optional<std::string>(const Result&)>;

std::string short_params(const Json& params, std::initializer_list<const char*> drop) {
  Json p = params_without_device(params);
  for (const char* d : drop) p.erase(d);
  return format_params(p);
}

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

std::string outlier_chart(const FleetAnalysis& f, double threshold) {
  std::vector<DotRow> rows;
  for (const auto& g : f.groups) {
    if (g.outliers() == 0) continue;
    DotRow row{fmt::format("{} {} {}", g.probe, format_params(g.params), g.metric), {}};
    for (const auto& m : g.members) {
      row.dots.push_back(DotRow::Dot{100 * m.deviation, m.outlier, m.worse,
                                     m.device.empty() ? m.host : m.host + " " + m.device});
    }
    rows.push_back(std::move(row));
    if (rows.size() == kMaxOutlierRows) break;
  }
  if (rows.empty()) return "";
  return svg_dot_rows("Fleet outliers: each dot a machine or GPU", rows, 100 * threshold);
}

namespace br = burnin_report;

// burnin.gpu, burnin.host, burnin.node and burnin.<phase>.
bool is_burnin(const Result& r) { return r.probe.rfind(br::kPhaseProbePrefix, 0) == 0; }

// One row per result (but a burn-in's, which have tables of their own); a result that did not run ok says
// why, and every result its warnings.
Table summary_table(const NamedReport& nr, const std::string& machine) {
  Table t{fmt::format("{}: {}", machine, nr.file),
          {"probe", "device", "params", "status", "result", "% of peak", "reason / warnings"},
          {}};
  for (const auto& r : nr.report.results) {
    if (is_burnin(r)) continue;  // in the burn-in's own tables
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

// A field as text: a string as it is, anything else as JSON; "" when absent.
std::string text_of(const Json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || j[key].is_null()) return "";
  return j[key].is_string() ? j[key].get<std::string>() : j[key].dump();
}

std::string bytes_of(const Json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_number() ? format_bytes(j[key].get<double>()) : "";
}

// "1843 s" reads better as "30.7 min".
std::string duration_text(const Json& run) {
  if (!run.is_object() || !run.contains("duration_s") || !run["duration_s"].is_number()) return "";
  double s = run["duration_s"].get<double>();
  if (s < 120) return fmt::format("{:.1f} s", s);
  if (s < 7200) return fmt::format("{:.1f} min", s / 60);
  return fmt::format("{:.1f} h", s / 3600);
}

// Items joined one a line ("none" when there are none).
std::string lines_of(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : "\n") + i;
  return out.empty() ? "none" : out;
}

std::string cpu_text(const Json& host) {
  const Json& c = host.value("cpu", Json::object());
  std::string out = text_of(c, "model");
  std::vector<std::string> counts;
  for (const char* key : {"sockets", "cores", "threads"}) {
    const std::string n = text_of(c, key);
    // "1 socket", "2 sockets"
    if (!n.empty()) counts.push_back(n + " " + (n == "1" ? std::string(key, std::strlen(key) - 1) : key));
  }
  for (std::size_t i = 0; i < counts.size(); ++i) out += (i == 0 ? "\n" : ", ") + counts[i];
  return out;
}

std::string memory_text(const Json& host) {
  const Json& m = host.value("memory", Json::object());
  std::string out = bytes_of(m, "total_bytes");
  const Json& dimms = m.value("dimms", Json::array());
  if (!dimms.empty()) {
    out += fmt::format("\n{} DIMMs {} {} MT/s", dimms.size(), text_of(dimms[0], "type"),
                       text_of(dimms[0], "speed_mts"));
  }
  return out;
}

// Identical GPUs counted: "8 × NVIDIA H100 80GB HBM3, 79.65 GiB".
std::string gpus_text(const Json& host) {
  std::vector<std::pair<std::string, std::size_t>> kinds;
  for (const auto& g : host.value("gpus", Json::array())) {
    std::string kind = text_of(g, "name");
    if (std::string mem = bytes_of(g, "memory_bytes"); !mem.empty()) kind += ", " + mem;
    if (kinds.empty() || kinds.back().first != kind) kinds.emplace_back(kind, 0);
    ++kinds.back().second;
  }
  std::vector<std::string> out;
  for (const auto& [kind, n] : kinds) out.push_back(fmt::format("{} × {}", n, kind));
  const Json& gpus = host.value("gpus", Json::array());
  if (!gpus.empty() && !text_of(gpus[0], "driver_version").empty())
    out.push_back("driver " + text_of(gpus[0], "driver_version"));
  return out.empty() ? "none found" : lines_of(out);
}

std::string drives_text(const Json& host) {
  std::vector<std::string> out;
  for (const auto& d : host.value("block_devices", Json::array())) {
    std::string line = text_of(d, "name");
    for (const char* key : {"model", "transport"}) {
      if (!text_of(d, key).empty()) line += " " + text_of(d, key);
    }
    if (std::string size = bytes_of(d, "size_bytes"); !size.empty()) line += ", " + size;
    out.push_back(line);
  }
  for (const auto& r : host.value("raid", Json::array()))
    out.push_back(fmt::format("{} {} of {}", text_of(r, "name"), text_of(r, "level"), text_of(r, "members")));
  return lines_of(out);
}

// Physical interfaces with their speed; virtual ones (bridges, veths, tunnels) only counted.
std::string nics_text(const Json& host) {
  std::vector<std::string> out;
  std::size_t virtual_nics = 0;
  for (const auto& n : host.value("nics", Json::array())) {
    if (n.value("virtual", false)) {
      ++virtual_nics;
      continue;
    }
    std::string line = text_of(n, "name");
    const Json& ib = n.value("infiniband", Json::object());
    if (!text_of(ib, "rate_gbps").empty()) {
      line += fmt::format(" InfiniBand {} Gb/s {}", text_of(ib, "rate_gbps"), text_of(ib, "state"));
    } else if (n.contains("speed_mbps") && n["speed_mbps"].is_number() && n["speed_mbps"].get<double>() > 0) {
      line += fmt::format(" {:g} Gb/s", n["speed_mbps"].get<double>() / 1000);
    } else if (!text_of(n, "operstate").empty()) {
      line += " " + text_of(n, "operstate");
    }
    if (!text_of(n, "driver").empty()) line += " (" + text_of(n, "driver") + ")";
    out.push_back(line);
  }
  if (virtual_nics > 0) out.push_back(fmt::format("{} virtual", virtual_nics));
  return lines_of(out);
}

// What each machine is and how its report was made: the page's opening table.
Table inventory_table(const std::vector<NamedReport>& reports, const std::vector<std::string>& machines) {
  using Field = std::pair<const char*, std::string (*)(const NamedReport&)>;
  static const Field kFields[] = {
      {"report", [](const NamedReport& r) { return r.file; }},
      {"date", [](const NamedReport& r) { return text_of(r.report.run, "started_utc"); }},
      {"profile", [](const NamedReport& r) { return text_of(r.report.run, "profile"); }},
      {"duration", [](const NamedReport& r) { return duration_text(r.report.run); }},
      {"mlbench",
       [](const NamedReport& r) {
         return text_of(r.report.tool, "version") + " " + text_of(r.report.tool, "git_sha");
       }},
      {"OS",
       [](const NamedReport& r) {
         return text_of(r.report.host, "os") + "\nkernel " + text_of(r.report.host, "kernel");
       }},
      {"CPU", [](const NamedReport& r) { return cpu_text(r.report.host); }},
      {"memory", [](const NamedReport& r) { return memory_text(r.report.host); }},
      {"GPUs", [](const NamedReport& r) { return gpus_text(r.report.host); }},
      {"drives", [](const NamedReport& r) { return drives_text(r.report.host); }},
      {"NICs", [](const NamedReport& r) { return nics_text(r.report.host); }},
  };
  Table t{"host inventory", {}, {}};
  if (reports.size() <= kInventoryColumns) {
    t.columns.emplace_back("");
    for (const auto& m : machines) t.columns.push_back(m);
    for (const auto& [name, get] : kFields) {
      std::vector<Cell> row{Cell{name}};
      for (const auto& r : reports) row.push_back(Cell{get(r)});
      t.rows.push_back(std::move(row));
    }
    return t;
  }
  t.columns.emplace_back("machine");
  for (const auto& f : kFields) t.columns.emplace_back(f.first);
  for (std::size_t i = 0; i < reports.size() && i < kMaxInventoryRows; ++i) {
    std::vector<Cell> row{Cell{machines[i]}};
    for (const auto& f : kFields) row.push_back(Cell{f.second(reports[i])});
    t.rows.push_back(std::move(row));
  }
  if (reports.size() > kMaxInventoryRows)
    t.title += fmt::format(" (the first {} of {} reports)", kMaxInventoryRows, reports.size());
  return t;
}

std::string verdict_line(Tone tone, const std::string& text) {
  static constexpr const char* kToneClass[] = {"", "good", "warn", "bad"};
  return fmt::format("<p class=\"verdict {}\">{}</p>\n", kToneClass[static_cast<int>(tone)],
                     html_escape(text));
}

// --- The burn-in (reports/report_burnin.hpp): its verdict, its per-GPU table, its timelines, its phases.

struct GpuTimeline {
  const Result* result;
  br::Timeline timeline;
};

// A report's burn-in results, with the timelines, phase spans and events read from their info.
struct Burnin {
  const Result* node = nullptr;
  std::vector<GpuTimeline> gpus;
  std::optional<br::Timeline> host;
  std::vector<const Result*> phases;  // burnin.<phase>
  std::vector<br::PhaseSpan> spans;
  std::vector<br::Event> events;
};

// nullopt when the report holds no burn-in result. A burn-in part of the wrong shape is bad input: a
// UsageError naming the file, the result and what is wrong.
std::optional<Burnin> read_burnin(const NamedReport& nr) {
  Burnin b;
  bool any = false;
  for (const auto& r : nr.report.results) {
    if (!is_burnin(r)) continue;
    any = true;
    try {
      if (r.probe == br::kNodeProbe) {
        b.node = &r;
        for (const auto& p : r.info.value("phases", Json::array()))
          b.spans.push_back(br::phase_span_from_json(p));
        for (const auto& e : r.info.value("events", Json::array()))
          b.events.push_back(br::event_from_json(e));
        if (r.info.contains("verdict")) br::verdict_from_string(text_of(r.info, "verdict"));
      } else if (r.probe == br::kGpuProbe) {
        b.gpus.push_back(GpuTimeline{
            &r, r.info.contains("timeline") ? br::timeline_from_json(r.info["timeline"]) : br::Timeline{}});
        if (r.info.contains("verdict")) br::verdict_from_string(text_of(r.info, "verdict"));
      } else if (r.probe == br::kHostProbe) {
        if (r.info.contains("timeline")) b.host = br::timeline_from_json(r.info["timeline"]);
      } else {
        b.phases.push_back(&r);
      }
    } catch (const UsageError&) {
      throw;
    } catch (const Error& e) {
      throw UsageError(
          fmt::format("{}: {} {}: {} (a burn-in report as `mlbench burnin -o` writes it is needed)", nr.file,
                      r.probe, device_label(r), e.what()));
    }
  }
  if (!any) return std::nullopt;
  return b;
}

std::optional<br::Verdict> verdict_of(const Result* r) {
  if (r == nullptr || !r->info.contains("verdict")) return std::nullopt;
  return br::verdict_from_string(text_of(r->info, "verdict"));
}

// Incomplete is not a pass: it reads as a fail does.
Tone tone_of(br::Verdict v) {
  return v == br::Verdict::fail || v == br::Verdict::incomplete
             ? Tone::bad
             : (v == br::Verdict::warn ? Tone::warn : Tone::good);
}

std::vector<std::string> strings_of(const Json& j, const char* key) {
  std::vector<std::string> out;
  if (!j.is_object() || !j.contains(key) || !j[key].is_array()) return out;
  for (const auto& s : j[key]) out.push_back(s.is_string() ? s.get<std::string>() : s.dump());
  return out;
}

// The node verdict in words (br::verdict_banner: the counts it rests on, each phase passed, incomplete,
// failed or skipped and why), then the node's reasons, one a line.
std::string burnin_verdict(const Burnin& b, const NamedReport& nr, const std::string& prefix) {
  const auto node = verdict_of(b.node);
  std::string text = prefix + "burn-in " + br::verdict_banner(nr.report.results);
  if (nr.report.run.value("interrupted", false))
    text += "; interrupted: the report holds the phases that ran";
  std::string out = verdict_line(node ? tone_of(*node) : Tone::warn, text);
  const auto reasons = b.node != nullptr ? strings_of(b.node->info, "reasons") : std::vector<std::string>{};
  if (!reasons.empty()) {
    out += "<ul class=\"reasons\">";
    for (const auto& r : reasons) out += "<li>" + html_escape(r) + "</li>";
    out += "</ul>\n";
  }
  return out;
}

// Median and max of a GPU's series: its info.summary (over every sample) when it has them, else its timeline
// (the report's, decimated).
std::optional<std::pair<double, double>> median_max(const GpuTimeline& g, const std::string& series) {
  const Json& s = g.result->info.value("summary", Json::object());
  if (s.is_object() && s.contains(series) && s[series].is_object()) {
    const Json& m = s[series];
    if (m.contains("median") && m["median"].is_number() && m.contains("max") && m["max"].is_number())
      return std::pair{m["median"].get<double>(), m["max"].get<double>()};
  }
  const auto* v = g.timeline.find(series);
  if (v == nullptr) return std::nullopt;
  std::vector<double> finite;
  std::copy_if(v->begin(), v->end(), std::back_inserter(finite), [](double x) { return std::isfinite(x); });
  if (finite.empty()) return std::nullopt;
  return std::pair{median(finite), *std::max_element(finite.begin(), finite.end())};
}

// "1.75 / 1.98 GHz": median and max in one scaled unit.
Cell median_max_cell(const GpuTimeline& g, const std::string& series, const std::string& unit) {
  auto mm = median_max(g, series);
  if (!mm) return Cell{"-", Tone::plain, true};
  const AxisUnit u = axis_unit(mm->second, unit);
  return Cell{fmt::format("{:.3g} / {:.3g} {}", mm->first / u.factor, mm->second / u.factor, u.label),
              Tone::plain, true};
}

// The GPUs' sustained rates are their metrics in FLOP/s or B/s, named by rate key ("gemm_tflops",
// "hbm_bandwidth"); the rest are medians of the timeline.
bool is_rate(const Metric& m) { return m.unit == "FLOP/s" || m.unit == "B/s"; }

Table gpu_verdict_table(const Burnin& b, const std::string& prefix) {
  std::vector<std::string> rates;  // a column per rate key any GPU has, in the order they come
  for (const auto& g : b.gpus) {
    for (const auto& m : g.result->metrics) {
      if (is_rate(m) && std::find(rates.begin(), rates.end(), m.name) == rates.end()) rates.push_back(m.name);
    }
  }
  Table t{prefix + "burn-in verdict per GPU", {"device", "UUID", "verdict", "reasons"}, {}};
  t.columns.insert(t.columns.end(), rates.begin(), rates.end());
  for (const char* c : {"SM clock median / max", "power median / max", "temperature median / max",
                        "HBM temperature median / max", "throttled (s per reason)"})
    t.columns.emplace_back(c);
  for (const auto& g : b.gpus) {
    const Result& r = *g.result;
    const auto v = verdict_of(&r);
    std::vector<Cell> row{Cell{device_label(r)}, Cell{text_of(r.params, "uuid")},
                          v ? Cell{std::string(br::to_string(*v)), tone_of(*v)} : Cell{"-"},
                          Cell{lines_of(strings_of(r.info, "reasons")), v ? tone_of(*v) : Tone::plain}};
    for (const auto& name : rates) {
      const Metric* m = r.metric(name);
      row.push_back(
          Cell{m != nullptr && std::isfinite(m->value) ? format_metric_value(m->value, m->unit) : "-",
               Tone::plain, true});
    }
    row.push_back(median_max_cell(g, "sm_clock_hz", "Hz"));
    row.push_back(median_max_cell(g, "power_w", "W"));
    row.push_back(median_max_cell(g, "temperature_c", "°C"));
    row.push_back(median_max_cell(g, "memory_temperature_c", "°C"));
    const Json throttled = r.info.value("throttle_seconds", Json::object());
    std::string throttle;
    for (const auto& [reason, seconds] : throttled.items()) {
      if (seconds.is_number() && seconds.get<double>() > 0)
        throttle += fmt::format("{}{} {:.0f} s", throttle.empty() ? "" : "\n", reason, seconds.get<double>());
    }
    row.push_back(Cell{throttle.empty() ? "none" : throttle});
    t.rows.push_back(std::move(row));
  }
  return t;
}

// "XID 79 gpu1", "lost gpu1", "verification /var/tmp/scratch".
std::string event_label(const br::Event& e) {
  if (e.kind == "xid") return fmt::format("XID {} {}", e.code, e.device);
  return e.kind + " " + e.device;
}

TimeChart time_chart(const Burnin& b, const std::string& title) {
  TimeChart c{title, {}, {}, {}};
  for (const auto& s : b.spans)
    c.bands.push_back(TimeBand{s.phase, s.start_s, s.end_s, s.phase == "cooldown"});
  for (const auto& e : b.events) c.markers.push_back(TimeMarker{e.time_s, event_label(e), e.text});
  return c;
}

// One chart per GPU quantity (a line per GPU; HBM temperature dashed beside the GPU's) and the host's.
std::string burnin_charts(const Burnin& b, const std::string& prefix) {
  std::string out;
  struct Quantity {
    const char* title;
    const char* label;
    const char* unit;
    std::vector<std::pair<const char*, const char*>> series;  // name, suffix of the line's name
    bool from_zero;
  };
  const Quantity kQuantities[] = {
      {"SM clock per GPU", "SM clock", "Hz", {{"sm_clock_hz", ""}}, false},
      {"Power per GPU", "power", "W", {{"power_w", ""}}, true},
      {"Temperature per GPU (solid: GPU, dashed: HBM)",
       "temperature",
       "°C",
       {{"temperature_c", ""}, {"memory_temperature_c", " HBM"}},
       false},
  };
  for (const auto& q : kQuantities) {
    TimeChart c = time_chart(b, prefix + q.title);
    TimePanel panel{q.label, q.unit, {}, q.from_zero};
    for (std::size_t i = 0; i < b.gpus.size(); ++i) {
      for (std::size_t k = 0; k < q.series.size(); ++k) {
        if (const auto* v = b.gpus[i].timeline.find(q.series[k].first)) {
          panel.series.push_back(TimeSeries{device_label(*b.gpus[i].result) + q.series[k].second,
                                            b.gpus[i].timeline.t, *v, i, k > 0});
        }
      }
    }
    if (panel.series.empty()) continue;
    c.panels.push_back(std::move(panel));
    out += svg_time_chart(c);
  }
  TimeChart host = time_chart(b, prefix + "Host: CPU, memory and disks");
  if (b.host) {
    const br::Timeline& h = *b.host;
    if (const auto* busy = h.find("cpu_busy")) {
      std::vector<double> pct(busy->size());
      std::transform(busy->begin(), busy->end(), pct.begin(), [](double x) { return 100 * x; });
      host.panels.push_back(TimePanel{"CPU busy", "%", {TimeSeries{"CPU busy", h.t, pct, 0, false}}});
    }
    if (const auto* mem = h.find("memory_used_bytes"))
      host.panels.push_back(TimePanel{"memory", "B", {TimeSeries{"memory in use", h.t, *mem, 1, false}}});
    TimePanel disk{"disks", "B/s", {}};
    if (const auto* rd = h.find("disk_read_bps"))
      disk.series.push_back(TimeSeries{"disk read", h.t, *rd, 2, false});
    if (const auto* wr = h.find("disk_write_bps"))
      disk.series.push_back(TimeSeries{"disk write", h.t, *wr, 3, false});
    if (!disk.series.empty()) host.panels.push_back(std::move(disk));
  }
  // Without a host timeline the phases and events still show, on an empty axis.
  if (host.panels.empty() && (!host.bands.empty() || !host.markers.empty()))
    host.panels.push_back(TimePanel{"no host samples", "", {}});
  if (!host.panels.empty()) out += svg_time_chart(host);
  return out;
}

// Each phase result: the phase, the device, its sustained rate and its error count.
Table phase_table(const Burnin& b, const std::string& prefix) {
  Table t{prefix + "burn-in phases",
          {"phase", "device", "sustained rate", "errors", "iterations", "status", "reason / warnings"},
          {}};
  for (const auto* r : b.phases) {
    std::string rate = "-", errors = "-";
    for (const auto& m : r->metrics) {
      if (m.name == br::kErrorsMetric) {
        errors = fmt::format("{:g}", m.value);
      } else if (rate == "-" && r->status != Status::skipped && std::isfinite(m.value)) {
        rate = format_metric_value(m.value, m.unit);
      }
    }
    const Metric* e = r->metric(br::kErrorsMetric);
    Tone status =
        r->status == Status::ok ? Tone::plain : (r->status == Status::skipped ? Tone::warn : Tone::bad);
    std::string why = r->reason;
    for (const auto& w : r->warnings) why += (why.empty() ? "warning: " : "; warning: ") + w;
    const std::string phase = text_of(r->params, "phase");
    t.rows.push_back({Cell{phase.empty() ? r->probe.substr(br::kPhaseProbePrefix.size()) : phase},
                      Cell{device_label(*r)}, Cell{rate, Tone::plain, true},
                      Cell{errors, e != nullptr && e->value > 0 ? Tone::bad : Tone::plain, true},
                      Cell{text_of(r->info, "iterations"), Tone::plain, true},
                      Cell{std::string(to_string(r->status)), status},
                      Cell{why, why.empty() ? Tone::plain : status}});
  }
  return t;
}

Table event_table(const Burnin& b, const std::string& prefix) {
  Table t{prefix + "burn-in events", {"time", "device", "kind", "code", "text"}, {}};
  for (const auto& e : b.events) {
    t.rows.push_back({Cell{fmt::format("{:.0f} s", e.time_s), Tone::plain, true}, Cell{e.device},
                      Cell{e.kind}, Cell{e.code != 0 ? std::to_string(e.code) : "", Tone::plain, true},
                      Cell{e.text}});
  }
  return t;
}

// Each burn-in's verdict, reasons and per-GPU table, machine by machine.
std::string burnin_verdicts(const std::vector<NamedReport>& reports, const std::vector<std::string>& machines,
                            const std::vector<std::optional<Burnin>>& burnins) {
  std::string out;
  for (std::size_t i = 0; i < reports.size(); ++i) {
    if (!burnins[i]) continue;
    const std::string prefix = reports.size() > 1 ? machines[i] + ": " : "";
    out += burnin_verdict(*burnins[i], reports[i], prefix);
    if (!burnins[i]->gpus.empty())
      out += "<div class=\"burnin\">\n" + to_html(gpu_verdict_table(*burnins[i], prefix)) + "</div>\n";
  }
  return out;
}

// Above kMaxChartMachines reports, one line: how many nodes' burn-ins failed, warned and passed (the fleet
// tables name the failed ones).
std::string fleet_burnin_verdict(const std::vector<std::optional<Burnin>>& burnins) {
  std::size_t by_verdict[std::size(br::kVerdictNames)] = {}, nodes = 0;
  for (const auto& b : burnins) {
    if (!b) continue;
    ++nodes;
    if (auto v = verdict_of(b->node)) ++by_verdict[static_cast<std::size_t>(*v)];
  }
  if (nodes == 0) return "";
  std::string text = fmt::format("burn-in of {} nodes:", nodes);
  for (const auto& v : br::kVerdictNames)
    text += fmt::format(" {} {},", by_verdict[static_cast<std::size_t>(v.value)], v.name);
  text.pop_back();
  const auto count = [&by_verdict](br::Verdict v) { return by_verdict[static_cast<std::size_t>(v)]; };
  return verdict_line(count(br::Verdict::fail) + count(br::Verdict::incomplete) > 0 ? Tone::bad
                      : count(br::Verdict::warn) > 0                                ? Tone::warn
                                                                                    : Tone::good,
                      text);
}

// A comparison's regressions (the rows of its full table that are regressions) and its status changes, for
// the summary: what went wrong, before the charts and the full table.
std::string what_went_wrong(const Comparison& c) {
  const std::vector<Table> tables = comparison_tables(c);
  Table regressions = tables.front();
  const auto column = std::find(regressions.columns.begin(), regressions.columns.end(), "verdict");
  const auto verdict = static_cast<std::size_t>(column - regressions.columns.begin());
  std::erase_if(regressions.rows, [verdict](const std::vector<Cell>& row) {
    return verdict >= row.size() || row[verdict].text != to_string(Verdict::regression);
  });
  std::string out;
  if (!regressions.rows.empty()) {
    regressions.title =
        fmt::format("{} against {}: {} regression(s)", c.other_file, c.base_file, regressions.rows.size());
    out += to_html(regressions);
  }
  const auto status =
      std::find_if(tables.begin(), tables.end(), [](const Table& t) { return t.title == "status changes"; });
  if (status != tables.end()) {
    Table t = *status;
    t.title = fmt::format("{} against {}: status changes", c.other_file, c.base_file);
    out += to_html(t);
  }
  return out;
}

// The page's answer first: check's pass/fail, compare's regressions, the fleet's outliers, each burn-in's
// verdict with its reasons and per-GPU table, else (a report alone) how its results ran.
std::string verdicts(const HtmlPage& page, const std::vector<NamedReport>& reports,
                     const std::vector<std::string>& machines,
                     const std::vector<std::optional<Burnin>>& burnins) {
  std::string out;
  if (page.check) {
    const CheckResult& c = *page.check;
    out += verdict_line(c.failed() ? Tone::bad : (c.count(Grade::warn) > 0 ? Tone::warn : Tone::good),
                        check_verdict(c));
  }
  for (const auto& c : page.comparisons) {
    out += verdict_line(c.has_regression() ? Tone::bad : Tone::good,
                        fmt::format("{} against {}: {}", c.other_file, c.base_file, compare_verdict(c)));
    out += what_went_wrong(c);
  }
  if (page.fleet) {
    const FleetAnalysis& f = *page.fleet;
    std::size_t worse = 0;
    for (const auto& g : f.groups) {
      for (const auto& m : g.members) worse += m.outlier && m.worse ? 1 : 0;
    }
    const Tone tone = f.fails() ? Tone::bad : Tone::good;
    out += verdict_line(tone, fleet_verdict(f));
    out += verdict_line(
        tone, fmt::format("{} outlier(s) over {} reports: {} worse than the fleet median, {} better",
                          f.outliers(), f.reports, worse, f.outliers() - worse));
  }
  if (reports.size() > kMaxChartMachines) {
    out += fleet_burnin_verdict(burnins);
  } else {
    out += burnin_verdicts(reports, machines, burnins);
  }
  if (!out.empty() || reports.size() != 1) return out;
  std::size_t by_status[std::size(kStatusNames)] = {};
  std::size_t warnings = 0;
  for (const auto& r : reports.front().report.results) {
    ++by_status[static_cast<std::size_t>(r.status)];
    warnings += r.warnings.size();
  }
  std::string text = fmt::format("{} results:", reports.front().report.results.size());
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

}  // namespace

std::string to_html_page(const HtmlPage& page) {
  static const std::vector<NamedReport> kNone;
  const auto& reports = page.reports != nullptr ? *page.reports : kNone;
  std::vector<std::string> machines;
  std::set<std::string> used;
  for (const auto& nr : reports) {
    std::string m = host_label(nr);
    if (!used.insert(m).second) m += " (" + std::filesystem::path(nr.file).stem().string() + ")";
    used.insert(m);
    machines.push_back(m);
  }
  std::vector<std::optional<Burnin>> burnins;
  for (const auto& nr : reports) burnins.push_back(read_burnin(nr));
  auto burnin_prefix = [&](std::size_t i) { return reports.size() > 1 ? machines[i] + ": " : std::string(); };
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
                    html_escape(page.title) + "</title>\n<style>\n" + page_style() +
                    "</style>\n</head>\n<body>\n";
  out += "<h1>" + html_escape(page.title) + "</h1>\n<section id=\"summary\">\n" +
         verdicts(page, reports, machines, burnins);
  if (!reports.empty())
    out += "<div class=\"inventory\">\n" + to_html(inventory_table(reports, machines)) + "</div>\n";
  if (reports.size() > kMaxChartMachines)
    out += fmt::format("<p class=\"note\">{} reports; charts show fleet min / median / max</p>\n",
                       reports.size());
  out += "</section>\n<h2>Charts</h2>\n";
  std::string charts;
  if (reports.size() <= kMaxChartMachines) {
    for (std::size_t i = 0; i < reports.size(); ++i) {
      if (burnins[i]) charts += burnin_charts(*burnins[i], burnin_prefix(i));
    }
  }
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
  if (page.fleet) charts += outlier_chart(*page.fleet, page.threshold);
  out += charts.empty() ? "<p class=\"note\">No chartable results (no ok results of a charted probe).</p>\n"
                        : charts;

  out += "<h2>Tables</h2>\n";
  for (const auto& c : page.comparisons) out += render(comparison_tables(c), c.notes, Format::html);
  if (page.fleet) out += render(fleet_tables(*page.fleet), page.fleet->notes, Format::html);
  if (page.check) out += render({check_table(*page.check)}, {}, Format::html);
  if (reports.size() <= kMaxChartMachines) {
    for (std::size_t i = 0; i < reports.size(); ++i) {
      if (burnins[i]) {
        out += to_html(phase_table(*burnins[i], burnin_prefix(i)));
        if (!burnins[i]->events.empty()) out += to_html(event_table(*burnins[i], burnin_prefix(i)));
      }
      Table results = summary_table(reports[i], machines[i]);
      if (!results.rows.empty()) out += to_html(results);
    }
  }
  return out + "</body>\n</html>\n";
}

}  // namespace mlbench
