// The HTML report's burn-in (reports/html_parts.hpp), from the burn-in results as
// burnin_report::read_burnin() reads them: the node's verdict with its reasons and the per-GPU verdict table
// first, the timelines (SM clock, power, temperatures per GPU; the host's CPU, memory and disks; phases
// shaded, events marked) among the charts, the phase results and events among the tables.
#include <algorithm>
#include <cmath>
#include <iterator>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/stats.hpp"
#include "base/units.hpp"
#include "reports/html.hpp"
#include "reports/html_parts.hpp"
#include "reports/summary.hpp"
#include "reports/svg.hpp"

namespace mlbench::html {
namespace br = burnin_report;
namespace {

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
std::string burnin_verdict(const br::Burnin& b, const NamedReport& nr, const std::string& prefix) {
  const auto node = b.node != nullptr ? br::verdict_of(*b.node) : std::nullopt;
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
std::optional<std::pair<double, double>> median_max(const br::GpuPart& g, const std::string& series) {
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
Cell median_max_cell(const br::GpuPart& g, const std::string& series, const std::string& unit) {
  auto mm = median_max(g, series);
  if (!mm) return Cell{"-", Tone::plain, true};
  const AxisUnit u = axis_unit(mm->second, unit);
  return Cell{fmt::format("{:.3g} / {:.3g} {}", mm->first / u.factor, mm->second / u.factor, u.label),
              Tone::plain, true};
}

// The GPUs' sustained rates are their metrics in FLOP/s or B/s, named by rate key ("gemm_tflops",
// "hbm_bandwidth"); the rest are medians of the timeline.
bool is_rate(const Metric& m) { return m.unit == "FLOP/s" || m.unit == "B/s"; }

Table gpu_verdict_table(const br::Burnin& b, const std::string& prefix) {
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
    const auto v = br::verdict_of(r);
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

TimeChart time_chart(const br::Burnin& b, const std::string& title) {
  TimeChart c{title, {}, {}, {}};
  for (const auto& s : b.spans)
    c.bands.push_back(TimeBand{s.phase, s.start_s, s.end_s, s.phase == "cooldown"});
  for (const auto& e : b.events) c.markers.push_back(TimeMarker{e.time_s, event_label(e), e.text});
  return c;
}

}  // namespace

// One chart per GPU quantity (a line per GPU; HBM temperature dashed beside the GPU's) and the host's.
std::string burnin_charts_html(const br::Burnin& b, const std::string& prefix) {
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

namespace {

// Each phase result: the phase, the device, its sustained rate and its error count.
Table phase_table(const br::Burnin& b, const std::string& prefix) {
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

Table event_table(const br::Burnin& b, const std::string& prefix) {
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
                            const std::vector<std::optional<br::Burnin>>& burnins) {
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
std::string fleet_burnin_verdict(const std::vector<std::optional<br::Burnin>>& burnins) {
  std::size_t by_verdict[std::size(br::kVerdictNames)] = {}, nodes = 0;
  for (const auto& b : burnins) {
    if (!b) continue;
    ++nodes;
    if (auto v = b->node != nullptr ? br::verdict_of(*b->node) : std::nullopt)
      ++by_verdict[static_cast<std::size_t>(*v)];
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

}  // namespace

std::vector<std::optional<br::Burnin>> read_burnins(const std::vector<NamedReport>& reports) {
  std::vector<std::optional<br::Burnin>> out;
  for (const auto& nr : reports) {
    try {
      out.push_back(br::read_burnin(nr.report.results));
    } catch (const br::BadBurninResult& e) {
      throw UsageError(
          fmt::format("{}: {} {}: {} (a burn-in report as `mlbench burnin -o` writes it is needed)", nr.file,
                      e.result->probe, device_label(*e.result), e.what()));
    }
  }
  return out;
}

std::string burnin_verdicts_html(const std::vector<NamedReport>& reports,
                                 const std::vector<std::string>& machines,
                                 const std::vector<std::optional<br::Burnin>>& burnins) {
  return reports.size() > kMaxChartMachines ? fleet_burnin_verdict(burnins)
                                            : burnin_verdicts(reports, machines, burnins);
}

std::string burnin_tables_html(const br::Burnin& b, const std::string& prefix) {
  std::string out = to_html(phase_table(b, prefix));
  if (!b.events.empty()) out += to_html(event_table(b, prefix));
  return out;
}

}  // namespace mlbench::html
