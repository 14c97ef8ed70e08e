#include "reports/fleet.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"
#include "base/stats.hpp"
#include "reports/compare.hpp"
#include "reports/summary.hpp"

namespace mlbench {
namespace {

// 0.6745 = Φ⁻¹(0.75) makes MAD consistent with σ for normal data; 1.253314 = sqrt(π/2) does the same for the
// mean absolute deviation (IBM SPSS's fallback when MAD = 0).
constexpr double kMadScale = 0.6745;
constexpr double kMeanAdScale = 1.253314;

void finish_group(FleetGroup& g, const FleetOptions& opts) {
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
    m.outlier = (std::fabs(m.z) > kOutlierZ && beyond_noise) || m.deviation < -opts.threshold;
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
      if (k == "device" || k == "target") continue;
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

}  // namespace

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

bool FleetAnalysis::has_worse_outlier() const {
  return std::any_of(groups.begin(), groups.end(), [](const FleetGroup& g) {
    return std::any_of(g.members.begin(), g.members.end(), [](const FleetMember& m) { return m.worse; });
  });
}

FleetAnalysis analyze_fleet(const std::vector<NamedReport>& reports, const FleetOptions& opts,
                            const std::vector<UnreadableReport>& unreadable) {
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
  // Hosts with several reports are repeated runs: their spread between runs is their members' noise too.
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
        out.groups[it->second].members.push_back(
            FleetMember{ri, host, device, uuid, m.value, 0, 0,
                        std::max(relative_spread(m), between.spread(host, r, m.name)), false, false});
      }
    }
  }
  std::size_t too_small = 0;
  std::erase_if(out.groups, [&](const FleetGroup& g) {
    bool small = g.members.size() < kMinFleetReports;
    too_small += small ? 1 : 0;
    return small;
  });
  if (out.groups.empty()) {
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
  return out;
}

namespace {

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
                             Cell{fmt::format("{:+.1f}", m->z), tone, true}});
  }
  Table groups{"per metric across the fleet",
               {"probe", "params", "metric", "n", "median", "MAD", "worse", "better"},
               {}};
  for (const auto& g : f.groups) {
    const auto worse = static_cast<std::size_t>(
        std::count_if(g.members.begin(), g.members.end(), [](const FleetMember& m) { return m.worse; }));
    const std::size_t better = g.outliers() - worse;
    groups.rows.push_back({Cell{g.probe}, Cell{format_params(g.params)}, Cell{g.metric},
                           Cell{std::to_string(g.members.size()), Tone::plain, true},
                           Cell{format_metric_value(g.median, g.unit), Tone::plain, true},
                           Cell{format_metric_value(g.mad, g.unit), Tone::plain, true},
                           Cell{std::to_string(worse), worse > 0 ? Tone::bad : Tone::plain, true},
                           Cell{std::to_string(better), better > 0 ? Tone::good : Tone::plain, true}});
  }
  return {std::move(outliers), std::move(groups)};
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
                      Cell{csv_number(100 * m->deviation)}, Cell{csv_number(m->z)}});
  }
  return t;
}

Json fleet_to_json(const FleetAnalysis& f, const FleetOptions& opts) {
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
                             {"z", m.z},
                             {"spread", m.spread},
                             {"outlier", m.outlier},
                             {"worse", m.worse}});
    }
    groups.push_back(Json{{"probe", g.probe},
                          {"params", g.params},
                          {"metric", g.metric},
                          {"unit", g.unit},
                          {"better", to_string(g.better)},
                          {"median", g.median},
                          {"mad", g.mad},
                          {"outliers", g.outliers()},
                          {"members", std::move(members)}});
  }
  return Json{{"reports", f.reports},
              {"threshold", opts.threshold},
              {"outlier_z", kOutlierZ},
              {"outliers", f.outliers()},
              {"worse_outlier", f.has_worse_outlier()},
              {"groups", std::move(groups)},
              {"notes", f.notes}};
}

}  // namespace mlbench
