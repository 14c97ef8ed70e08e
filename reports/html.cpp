// The HTML report's page shell (reports/html.hpp): the head and its style, the summary (each part's verdict,
// then the host inventory), the charts and the tables, each section asking the parts of
// reports/html_parts.hpp — run, compare, check, fleet, burn-in — for theirs.
#include "reports/html.hpp"

#include <cstring>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "base/units.hpp"
#include "bench/host_view.hpp"
#include "reports/html_parts.hpp"
#include "reports/render.hpp"
#include "reports/summary.hpp"
#include "reports/svg.hpp"

namespace mlbench {
namespace html {

std::string short_params(const Json& params, std::initializer_list<const char*> drop) {
  Json p = params_without_device(params);
  for (const char* d : drop) p.erase(d);
  return format_params(p);
}

// A field as text: a string as it is, anything else as JSON; "" when absent.
std::string text_of(const Json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || j[key].is_null()) return "";
  return j[key].is_string() ? j[key].get<std::string>() : j[key].dump();
}

// Items joined one a line ("none" when there are none).
std::string lines_of(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : "\n") + i;
  return out.empty() ? "none" : out;
}

std::string verdict_line(Tone tone, const std::string& text) {
  static constexpr const char* kToneClass[] = {"", "good", "warn", "bad"};
  return fmt::format("<p class=\"verdict {}\">{}</p>\n", kToneClass[static_cast<int>(tone)],
                     html_escape(text));
}

}  // namespace html

namespace {

using html::lines_of;
using html::text_of;

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

std::string cpu_text(const HostView& host) {
  const Json& c = host.cpu;
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

std::string memory_text(const HostView& host) {
  const Json& m = host.memory;
  std::string out = host.memory_total_bytes ? format_bytes(*host.memory_total_bytes) : "";
  const Json& dimms = m.value("dimms", Json::array());
  if (!dimms.empty()) {
    out += fmt::format("\n{} DIMMs {} {} MT/s", dimms.size(), text_of(dimms[0], "type"),
                       text_of(dimms[0], "speed_mts"));
  }
  return out;
}

// Identical GPUs counted: "8 × NVIDIA H100 80GB HBM3, 79.65 GiB".
std::string gpus_text(const HostView& host) {
  std::vector<std::pair<std::string, std::size_t>> kinds;
  for (const auto& g : host.gpus) {
    std::string kind = text_of(g, "name");
    if (std::string mem = bytes_of(g, "memory_bytes"); !mem.empty()) kind += ", " + mem;
    if (kinds.empty() || kinds.back().first != kind) kinds.emplace_back(kind, 0);
    ++kinds.back().second;
  }
  std::vector<std::string> out;
  for (const auto& [kind, n] : kinds) out.push_back(fmt::format("{} × {}", n, kind));
  const Json& gpus = host.gpus;
  if (!gpus.empty() && !text_of(gpus[0], "driver_version").empty())
    out.push_back("driver " + text_of(gpus[0], "driver_version"));
  return out.empty() ? "none found" : lines_of(out);
}

std::string drives_text(const HostView& host) {
  std::vector<std::string> out;
  for (const auto& d : host.block_devices) {
    std::string line = text_of(d, "name");
    for (const char* key : {"model", "transport"}) {
      if (!text_of(d, key).empty()) line += " " + text_of(d, key);
    }
    if (std::string size = bytes_of(d, "size_bytes"); !size.empty()) line += ", " + size;
    out.push_back(line);
  }
  for (const auto& r : host.raid)
    out.push_back(fmt::format("{} {} of {}", text_of(r, "name"), text_of(r, "level"), text_of(r, "members")));
  return lines_of(out);
}

// Physical interfaces with their speed; virtual ones (bridges, veths, tunnels) only counted.
std::string nics_text(const HostView& host) {
  std::vector<std::string> out;
  std::size_t virtual_nics = 0;
  for (const auto& n : host.nics) {
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
         const HostView host(r.report.host);
         return host.os + "\nkernel " + host.kernel;
       }},
      {"CPU", [](const NamedReport& r) { return cpu_text(HostView(r.report.host)); }},
      {"memory", [](const NamedReport& r) { return memory_text(HostView(r.report.host)); }},
      {"GPUs", [](const NamedReport& r) { return gpus_text(HostView(r.report.host)); }},
      {"drives", [](const NamedReport& r) { return drives_text(HostView(r.report.host)); }},
      {"NICs", [](const NamedReport& r) { return nics_text(HostView(r.report.host)); }},
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

// The page's answer first: check's pass/fail, compare's regressions, the fleet's outliers, each burn-in's
// verdict with its reasons and per-GPU table, else (a report alone) how its results ran.
std::string verdicts(const HtmlPage& page, const std::vector<NamedReport>& reports,
                     const std::vector<std::string>& machines,
                     const std::vector<std::optional<burnin_report::Burnin>>& burnins) {
  std::string out;
  if (page.check) out += html::check_verdict_html(*page.check);
  for (const auto& c : page.comparisons) out += html::compare_verdict_html(c);
  if (page.fleet) out += html::fleet_verdict_html(*page.fleet);
  out += html::burnin_verdicts_html(reports, machines, burnins);
  if (!out.empty() || reports.size() != 1) return out;
  return html::run_verdict(reports.front());
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
  const auto burnins = html::read_burnins(reports);
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
      if (burnins[i]) charts += html::burnin_charts_html(*burnins[i], burnin_prefix(i));
    }
  }
  charts += html::run_charts(reports, machines);
  if (page.fleet) charts += html::fleet_chart_html(*page.fleet, page.threshold);
  out += charts.empty() ? "<p class=\"note\">No chartable results (no ok results of a charted probe).</p>\n"
                        : charts;

  out += "<h2>Tables</h2>\n";
  for (const auto& c : page.comparisons) out += html::compare_tables_html(c);
  if (page.fleet) out += html::fleet_tables_html(*page.fleet);
  if (page.check) out += html::check_tables_html(*page.check);
  if (reports.size() <= kMaxChartMachines) {
    for (std::size_t i = 0; i < reports.size(); ++i) {
      if (burnins[i]) out += html::burnin_tables_html(*burnins[i], burnin_prefix(i));
      Table results = html::run_table(reports[i], machines[i]);
      if (!results.rows.empty()) out += to_html(results);
    }
  }
  return out + "</body>\n</html>\n";
}

}  // namespace mlbench
