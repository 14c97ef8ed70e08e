#include "reports/fleet.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"
#include "base/input_file.hpp"
#include "base/stats.hpp"
#include "report/report_burnin.hpp"
#include "reports/compare.hpp"
#include "reports/summary.hpp"

namespace mlbench {
namespace {

// 0.6745 = Φ⁻¹(0.75) makes MAD consistent with σ for normal data; 1.253314 = sqrt(π/2) does the same for the
// mean absolute deviation (IBM SPSS's fallback when MAD = 0).
constexpr double kMadScale = 0.6745;
constexpr double kMeanAdScale = 1.253314;

void finish_group(FleetGroup& g, const FleetOptions& opts) {
  g.robust_z = g.members.size() >= kMinRobustZValues;
  std::unordered_set<std::size_t> reports;
  for (const auto& m : g.members) reports.insert(m.report);
  g.reports = reports.size();
  std::vector<double> values;
  values.reserve(g.members.size());
  for (const auto& m : g.members) values.push_back(m.value);
  g.median = median(values);
  for (auto& v : values) v = std::fabs(v - g.median);
  double mean_ad = 0;
  for (double v : values) mean_ad += v;
  mean_ad /= static_cast<double>(values.size());
  g.mad = median(values);
  for (auto& m : g.members) {
    m.z = robust_z(m.value, g.median, g.mad, mean_ad);
    double rel = g.median != 0 ? (m.value - g.median) / std::fabs(g.median) : 0.0;
    m.deviation = g.better == Better::higher ? rel : -rel;
    bool worse_side = m.deviation < 0;
    bool beyond_noise = std::fabs(rel) > noise_band(m.spread, opts.threshold);
    bool beyond_scale = g.robust_z ? std::fabs(m.z) > kOutlierZ || m.deviation < -opts.threshold
                                   : std::fabs(m.deviation) > opts.threshold;
    m.outlier = beyond_scale && beyond_noise;
    m.worse = m.outlier && worse_side;
  }
  std::sort(g.members.begin(), g.members.end(), [](const FleetMember& a, const FleetMember& b) {
    return a.deviation != b.deviation ? a.deviation < b.deviation : a.host < b.host;
  });
}

// probe and params without the device, as a lookup key: built from the params in place, since copying and
// serialising every result's params dominated a 1,000-report analysis.
std::string population_key(const Result& r) {
  std::string key = r.probe;
  key += '\x1f';
  if (r.params.is_object()) {
    for (const auto& [k, v] : r.params.items()) {
      if (std::find(std::begin(kDeviceParams), std::end(kDeviceParams), k) != std::end(kDeviceParams))
        continue;
      key += k;
      key += '=';
      key += v.is_string() ? v.get_ref<const std::string&>() : v.dump();
      key += '\x1e';
    }
  } else {
    key += r.params.dump();
  }
  key += '\x1f';
  return key;
}

// `node07.cluster.example` → `node07`: Slurm's node names are short, /proc's hostname may be the full one.
std::string short_host(const std::string& host) { return host.substr(0, host.find('.')); }

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// The burn-in node verdict of a report, when it failed: its reason, else the reasons in its info.
std::optional<std::string> failed_node_reason(const Report& report) {
  for (const auto& r : report.results) {
    if (r.probe != burnin_report::kNodeProbe || r.status != Status::failed) continue;
    if (!r.reason.empty()) return r.reason;
    std::vector<std::string> reasons;
    if (r.info.contains("reasons") && r.info["reasons"].is_array()) {
      for (const auto& why : r.info["reasons"]) {
        if (why.is_string()) reasons.push_back(why.get<std::string>());
      }
    }
    return reasons.empty() ? std::string("verdict fail") : joined(reasons);
  }
  return std::nullopt;
}

// Presence and node verdicts: which expected hosts wrote nothing, which reported hosts were not expected,
// which nodes failed their burn-in.
void judge_nodes(FleetAnalysis& out, const std::vector<NamedReport>& reports, const FleetOptions& opts) {
  out.expected = opts.expect;
  std::unordered_set<std::string> reported;
  for (const auto& nr : reports) {
    std::string host = host_label(nr);
    reported.insert(short_host(host));
    if (auto why = failed_node_reason(nr.report)) out.failed_nodes.push_back({host, nr.file, *why});
  }
  if (opts.expect.empty()) return;
  std::unordered_set<std::string> expected;
  for (const auto& h : opts.expect) {
    expected.insert(short_host(h));
    if (!reported.contains(short_host(h))) out.missing.push_back(h);
  }
  std::vector<std::string> unexpected;
  for (const auto& nr : reports) {
    std::string host = host_label(nr);
    if (!expected.contains(short_host(host)) &&
        std::find(unexpected.begin(), unexpected.end(), host) == unexpected.end())
      unexpected.push_back(host);
  }
  if (!unexpected.empty())
    out.notes.push_back(fmt::format("reports from hosts not expected: {}", joined(unexpected)));
}

}  // namespace

std::vector<std::string> parse_expected_hosts(const std::string& arg) {
  std::string text = arg;
  if (arg.starts_with('@')) {
    try {
      text = read_input_file(arg.substr(1), InputKind::host_list);
    } catch (const UsageError& e) {
      throw UsageError(
          fmt::format("--expect {}: cannot read {}; give a file of host names, one a line", arg, e.what()));
    }
  }
  std::replace(text.begin(), text.end(), ',', ' ');
  std::istringstream words(text);
  std::vector<std::string> hosts;
  for (std::string h; words >> h;) {
    if (std::find(hosts.begin(), hosts.end(), h) == hosts.end()) hosts.push_back(h);
  }
  if (hosts.empty()) {
    throw UsageError(fmt::format(
        "--expect '{}' names no host; give HOSTS (comma-separated) or @FILE (one host a line)", arg));
  }
  return hosts;
}

double noise_band(double spread, double threshold) { return spread > 0 ? 2 * spread : threshold; }

double robust_z(double x, double median, double mad, double mean_abs_dev) {
  if (mad > 0) return kMadScale * (x - median) / mad;
  if (mean_abs_dev > 0) return (x - median) / (kMeanAdScale * mean_abs_dev);
  return 0;
}

std::size_t FleetGroup::outliers() const {
  return static_cast<std::size_t>(
      std::count_if(members.begin(), members.end(), [](const FleetMember& m) { return m.outlier; }));
}

std::size_t FleetAnalysis::outliers() const {
  std::size_t n = 0;
  for (const auto& g : groups) n += g.outliers();
  return n;
}

bool FleetAnalysis::fails() const { return has_worse_outlier() || !missing.empty() || !failed_nodes.empty(); }

bool FleetAnalysis::has_worse_outlier() const {
  return std::any_of(groups.begin(), groups.end(), [](const FleetGroup& g) {
    return std::any_of(g.members.begin(), g.members.end(), [](const FleetMember& m) { return m.worse; });
  });
}

FleetAnalysis analyze_fleet(const std::vector<NamedReport>& reports, const FleetOptions& opts,
                            const std::vector<UnreadableReport>& unreadable) {
  const bool presence = !opts.expect.empty();
  if (reports.size() < kMinFleetReports && presence) {
    FleetAnalysis out;
    for (const auto& u : unreadable) out.notes.push_back("left out, unreadable: " + u.error);
    out.reports = reports.size();
    out.threshold = opts.threshold;
    for (const auto& nr : reports) out.files.push_back(nr.file);
    out.notes.push_back(fmt::format("no outlier analysis: it needs at least {} reports (got {})",
                                    kMinFleetReports, reports.size()));
    judge_nodes(out, reports, opts);
    return out;
  }
  if (reports.size() < kMinFleetReports && unreadable.empty()) {
    throw UsageError(fmt::format("--fleet needs at least {} reports (got {}); pass a folder or more files",
                                 kMinFleetReports, reports.size()));
  }
  if (reports.size() < kMinFleetReports) {
    std::string names;
    for (const auto& u : unreadable) names += (names.empty() ? "" : ", ") + u.file;
    throw UsageError(fmt::format("--fleet needs at least {} readable reports (got {}; {} unreadable: {})",
                                 kMinFleetReports, reports.size(), unreadable.size(), names));
  }
  FleetAnalysis out;
  for (const auto& u : unreadable) out.notes.push_back("left out, unreadable: " + u.error);
  out.reports = reports.size();
  out.threshold = opts.threshold;
  std::unordered_map<std::string, std::size_t> index;
  // Hosts with several reports are repeated runs: the spread of a host's other runs is its members' noise
  // too.
  const BetweenRuns between(reports);
  if (!between.hosts().empty()) {
    out.notes.push_back(fmt::format("noise includes the spread between repeated runs of {}",
                                    fmt::join(between.hosts(), ", ")));
  }
  for (std::size_t ri = 0; ri < reports.size(); ++ri) {
    const auto& nr = reports[ri];
    out.files.push_back(nr.file);
    std::string host = host_label(nr);
    for (const auto& r : nr.report.results) {
      if (r.status != Status::ok) continue;
      std::string base_key = population_key(r);
      std::string device = device_label(r);
      std::string uuid = device_uuid(r, nr.report.host);
      for (const auto& m : r.metrics) {
        if (!std::isfinite(m.value)) continue;
        auto [it, inserted] = index.try_emplace(base_key + m.name, out.groups.size());
        if (inserted) {
          out.groups.push_back(
              FleetGroup{r.probe, params_without_device(r.params), m.name, m.unit, m.better, 0, 0, {}});
          out.groups.back().members.reserve(reports.size());  // most populations have one member a report
        }
        out.groups[it->second].members.push_back(FleetMember{
            ri, host, device, uuid, m.value, 0, 0,
            std::max(relative_spread(m), between.spread(host, r, m.name, m.value)), false, false});
      }
    }
  }
  std::size_t too_small = 0;
  std::erase_if(out.groups, [&](const FleetGroup& g) {
    bool small = g.members.size() < kMinFleetReports;
    too_small += small ? 1 : 0;
    return small;
  });
  if (out.groups.empty() && presence) {
    out.notes.push_back(fmt::format("no outlier analysis: no result appears in at least {} of the {} reports",
                                    kMinFleetReports, reports.size()));
  } else if (out.groups.empty()) {
    throw UsageError(
        fmt::format("no result appears in at least {} of the {} reports (same probe and params); "
                    "compare runs of the same probes",
                    kMinFleetReports, reports.size()));
  }
  if (too_small > 0) {
    out.notes.push_back(fmt::format("{} metric(s) measured on fewer than {} devices: not analysed", too_small,
                                    kMinFleetReports));
  }
  for (auto& g : out.groups) finish_group(g, opts);
  std::sort(out.groups.begin(), out.groups.end(), [](const FleetGroup& a, const FleetGroup& b) {
    if (a.probe != b.probe) return a.probe < b.probe;
    if (a.params != b.params) return a.params < b.params;
    return a.metric < b.metric;
  });
  std::vector<std::string> versions;
  for (const auto& nr : reports) {
    std::string v = nr.report.tool.is_object() ? nr.report.tool.value("version", std::string("?")) : "?";
    if (std::find(versions.begin(), versions.end(), v) == versions.end()) versions.push_back(v);
  }
  if (versions.size() > 1) {
    std::string list;
    for (const auto& v : versions) list += (list.empty() ? "" : ", ") + v;
    out.notes.push_back(
        fmt::format("reports come from different mlbench versions ({}); probe changes between "
                    "versions can move numbers",
                    list));
  }
  judge_nodes(out, reports, opts);
  return out;
}

namespace {

// "3 reports", "1 population".
std::string plural(std::size_t n, std::string_view what) {
  return fmt::format("{} {}{}", n, what, n == 1 ? "" : "s");
}

// The test that judged a population's members (FleetGroup::robust_z).
std::string_view test_name(const FleetGroup& g) { return g.robust_z ? "robust z" : "spread"; }

// Every outlier with its population, worse ones first, then by host and device.
std::vector<std::pair<const FleetGroup*, const FleetMember*>> outlier_rows(const FleetAnalysis& f) {
  std::vector<std::pair<const FleetGroup*, const FleetMember*>> hits;
  for (const auto& g : f.groups) {
    for (const auto& m : g.members) {
      if (m.outlier) hits.emplace_back(&g, &m);
    }
  }
  std::sort(hits.begin(), hits.end(), [](const auto& a, const auto& b) {
    if (a.second->worse != b.second->worse) return a.second->worse;
    if (a.second->host != b.second->host) return a.second->host < b.second->host;
    return a.second->device < b.second->device;
  });
  return hits;
}

}  // namespace

std::vector<Table> fleet_tables(const FleetAnalysis& f) {
  std::vector<Table> out;
  if (!f.missing.empty() || !f.failed_nodes.empty()) {
    Table nodes{fmt::format("nodes that fail the fleet ({} missing, {} failed)", f.missing.size(),
                            f.failed_nodes.size()),
                {"host", "verdict", "why"},
                {}};
    for (const auto& h : f.missing)
      nodes.rows.push_back({Cell{h}, Cell{"missing", Tone::bad}, Cell{"no report"}});
    for (const auto& n : f.failed_nodes) {
      nodes.rows.push_back({Cell{n.host}, Cell{"failed", Tone::bad},
                            Cell{fmt::format("{}: {} ({})", burnin_report::kNodeProbe, n.reason, n.file)}});
    }
    out.push_back(std::move(nodes));
  }
  if (f.groups.empty()) return out;
  Table outliers{fmt::format("fleet outliers ({} reports)", f.reports),
                 {"host", "device", "side", "probe", "params", "metric", "value", "median", "deviation", "z"},
                 {}};
  for (const auto& [g, m] : outlier_rows(f)) {
    // Red: worse beyond the threshold; yellow: worse by the z-score only; green: better.
    Tone tone = !m->worse ? Tone::good : (m->deviation < -f.threshold ? Tone::bad : Tone::warn);
    std::string device = m->device;
    if (!m->uuid.empty()) device += " " + m->uuid;
    outliers.rows.push_back({Cell{m->host}, Cell{device}, Cell{m->worse ? "worse" : "better", tone},
                             Cell{g->probe}, Cell{format_params(g->params)}, Cell{g->metric},
                             Cell{format_metric_value(m->value, g->unit), Tone::plain, true},
                             Cell{format_metric_value(g->median, g->unit), Tone::plain, true},
                             Cell{fmt::format("{:+.1f} %", 100 * m->deviation), tone, true},
                             Cell{g->robust_z ? fmt::format("{:+.1f}", m->z) : "-", tone, true}});
  }
  Table groups{"per metric across the fleet",
               {"probe", "params", "metric", "n", "reports", "test", "median", "MAD", "worse", "better"},
               {}};
  for (const auto& g : f.groups) {
    const auto worse = static_cast<std::size_t>(
        std::count_if(g.members.begin(), g.members.end(), [](const FleetMember& m) { return m.worse; }));
    const std::size_t better = g.outliers() - worse;
    groups.rows.push_back({Cell{g.probe}, Cell{format_params(g.params)}, Cell{g.metric},
                           Cell{std::to_string(g.members.size()), Tone::plain, true},
                           Cell{std::to_string(g.reports), Tone::plain, true},
                           Cell{std::string(test_name(g))},
                           Cell{format_metric_value(g.median, g.unit), Tone::plain, true},
                           Cell{g.robust_z ? format_metric_value(g.mad, g.unit) : "-", Tone::plain, true},
                           Cell{std::to_string(worse), worse > 0 ? Tone::bad : Tone::plain, true},
                           Cell{std::to_string(better), better > 0 ? Tone::good : Tone::plain, true}});
  }
  out.push_back(std::move(outliers));
  out.push_back(std::move(groups));
  return out;
}

std::string fleet_verdict(const FleetAnalysis& f) {
  std::size_t worse = 0;
  for (const auto& g : f.groups) {
    worse += static_cast<std::size_t>(
        std::count_if(g.members.begin(), g.members.end(), [](const FleetMember& m) { return m.worse; }));
  }
  // What the verdict rests on: the reports, the populations, and how many of them were too small for the MAD.
  std::string counts = plural(f.reports, "report");
  if (f.groups.empty()) {
    counts += ", no outlier analysis";
  } else {
    counts += ", " + plural(f.groups.size(), "population");
    const auto few = static_cast<std::size_t>(
        std::count_if(f.groups.begin(), f.groups.end(), [](const FleetGroup& g) { return !g.robust_z; }));
    if (few > 0) {
      counts += fmt::format(
          " ({} of fewer than {} values: judged on the members' own spread and the {:g} % threshold)", few,
          kMinRobustZValues, 100 * f.threshold);
    }
  }
  if (!f.fails()) return "fleet verdict: pass — no worse outlier; " + counts;
  std::vector<std::string> parts;
  if (!f.missing.empty()) parts.push_back(fmt::format("missing: {} (no report)", joined(f.missing)));
  if (!f.failed_nodes.empty()) {
    std::vector<std::string> failed;
    for (const auto& n : f.failed_nodes) failed.push_back(fmt::format("{} ({})", n.host, n.reason));
    parts.push_back("failed burn-in: " + joined(failed));
  }
  if (worse > 0) parts.push_back(plural(worse, "worse outlier"));
  parts.push_back(counts);
  std::string out = "fleet verdict: fail";
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i == 0 ? " — " : "; ") + parts[i];
  return out;
}

Table fleet_data(const FleetAnalysis& f) {
  Table t{"",
          {"host", "device", "uuid", "side", "probe", "params", "metric", "unit", "value", "median",
           "deviation_pct", "z"},
          {}};
  for (const auto& [g, m] : outlier_rows(f)) {
    t.rows.push_back({Cell{m->host}, Cell{m->device}, Cell{m->uuid}, Cell{m->worse ? "worse" : "better"},
                      Cell{g->probe}, Cell{format_params(g->params)}, Cell{g->metric}, Cell{g->unit},
                      Cell{csv_number(m->value)}, Cell{csv_number(g->median)},
                      Cell{csv_number(100 * m->deviation)},
                      Cell{g->robust_z ? csv_number(m->z) : std::string()}});
  }
  return t;
}

Json fleet_to_json(const FleetAnalysis& f, const FleetOptions& opts) {
  Json failed = Json::array();
  for (const auto& n : f.failed_nodes)
    failed.push_back(Json{{"host", n.host}, {"file", n.file}, {"reason", n.reason}});
  Json groups = Json::array();
  for (const auto& g : f.groups) {
    Json members = Json::array();
    for (const auto& m : g.members) {
      members.push_back(Json{{"file", f.files[m.report]},
                             {"host", m.host},
                             {"device", m.device},
                             {"uuid", m.uuid},
                             {"value", m.value},
                             {"deviation", m.deviation},
                             {"z", g.robust_z ? Json(m.z) : Json(nullptr)},
                             {"spread", m.spread},
                             {"outlier", m.outlier},
                             {"worse", m.worse}});
    }
    groups.push_back(Json{{"probe", g.probe},
                          {"params", g.params},
                          {"metric", g.metric},
                          {"unit", g.unit},
                          {"better", to_string(g.better)},
                          {"reports", g.reports},
                          {"test", std::string(test_name(g))},
                          {"median", g.median},
                          {"mad", g.robust_z ? Json(g.mad) : Json(nullptr)},
                          {"outliers", g.outliers()},
                          {"members", std::move(members)}});
  }
  return Json{{"reports", f.reports},
              {"threshold", opts.threshold},
              {"outlier_z", kOutlierZ},
              {"min_robust_z_values", kMinRobustZValues},
              {"outliers", f.outliers()},
              {"worse_outlier", f.has_worse_outlier()},
              {"expected", f.expected},
              {"missing", f.missing},
              {"failed_nodes", std::move(failed)},
              {"verdict", f.fails() ? "fail" : "pass"},
              {"groups", std::move(groups)},
              {"notes", f.notes}};
}

}  // namespace mlbench
