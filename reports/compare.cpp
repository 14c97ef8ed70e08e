#include "reports/compare.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"
#include "base/stats.hpp"
#include "reports/summary.hpp"

namespace mlbench {
namespace {

// The key of one host's result and metric in BetweenRuns.
std::string run_key(const std::string& host, const Result& r, const std::string& metric) {
  return host + '\x1e' + result_key(r) + '\x1e' + metric;
}

// The change and both sides' spreads; the verdict waits for the family's z (judge), unless the metric cannot
// be judged (an open interval, no between-run spread): then it is not_judged with the reason.
MetricChange measure_change(const Result& a, const Metric& ma, const Metric& mb, const CompareOptions& opts,
                            const std::string& base_host, const std::string& other_host) {
  MetricChange c{a.probe, a.params, ma.name, ma.unit, ma.better, ma.value, mb.value};
  c.spread_base = relative_spread(ma);
  c.spread_other = relative_spread(mb);
  // The between-run spread: measured across the runs of each report's machine given (--base-runs: the base's,
  // leaving out the value judged), else the one stated for the probe and class, for both reports.
  std::optional<double> between_base, between_other;
  if (opts.between != nullptr) {
    between_base = opts.between->measured(base_host, a, ma.name);
    between_other = opts.between->measured(other_host, a, ma.name, mb.value);
    if (between_base) c.between_source = SpreadSource::base_runs;
  }
  if (!between_base) {
    if (const StatedSpread* row = stated_spread(opts.stated, a.probe, ma.name)) {
      between_base = between_other = between_run_spread(row->sd, row->runs);
      c.between_source = SpreadSource::stated;
      c.between_class = row->metric_class;
    }
  }
  if (between_base) {
    c.spread_between = *between_base;
    c.spread_base = std::max(c.spread_base, *between_base);
    c.spread_other = std::max(c.spread_other, between_other.value_or(0));
  }
  c.combined_cv = std::hypot(c.spread_base, c.spread_other);
  c.noise_band = opts.threshold;
  if (!std::isfinite(ma.value) || !std::isfinite(mb.value) || ma.value == 0) {
    c.change = c.gain = std::nan("");
    return c;
  }
  c.change = (mb.value - ma.value) / std::fabs(ma.value);
  c.gain = ma.better == Better::higher ? c.change : -c.change;
  if (!ma.ci_open.empty() || !mb.ci_open.empty()) {
    c.reason = !ma.ci_open.empty() ? ma.ci_open + " (base)" : mb.ci_open + " (other)";
  } else if (!between_base) {
    c.reason = fmt::format("needs --base-runs: no between-run spread of {} {} is stated{}", a.probe, ma.name,
                           opts.between != nullptr ? ", nor measured in the --base-runs" : "");
  }
  if (!c.reason.empty()) {
    c.verdict = Verdict::not_judged;
    c.noise_band = std::nan("");
  }
  return c;
}

// The verdict at the family's z (see the header): on ln(other/base) for positive values.
void judge(MetricChange& c, double z, double threshold) {
  if (c.verdict == Verdict::not_judged) return;
  if (!std::isfinite(c.change)) {
    c.verdict = Verdict::not_comparable;
    return;
  }
  const double band = z * c.combined_cv;
  bool beyond = false;
  double allowed = band;
  if (c.base > 0 && c.other > 0) {
    beyond = std::fabs(std::log(c.other / c.base)) > band;
    allowed = c.change >= 0 ? std::expm1(band) : -std::expm1(-band);
  } else {
    beyond = std::fabs(c.change) > band;
  }
  c.noise_band = std::max(threshold, allowed);
  if (!beyond || std::fabs(c.change) < threshold) {
    c.verdict = Verdict::noise;
  } else {
    c.verdict = c.gain > 0 ? Verdict::improvement : Verdict::regression;
  }
}

// Which between-run spread the bands use, where it comes from, and what was not judged and why.
void add_spread_notes(Comparison& out) {
  std::set<std::string> stated, needs_runs;
  std::size_t open = 0, unjudged_runs = 0;
  for (const auto& c : out.changes) {
    if (c.between_source == SpreadSource::stated) stated.insert(c.probe);
    if (c.verdict != Verdict::not_judged) continue;
    if (c.between_source == SpreadSource::none) {
      needs_runs.insert(c.probe);
      ++unjudged_runs;
    } else {
      ++open;
    }
  }
  if (!stated.empty()) {
    out.notes.push_back(fmt::format(
        "between-run spread of {}: the one the project measured across back-to-back runs of one machine "
        "({}); --base-runs gives this machine's own",
        fmt::join(stated, ", "), kStatedSpreadSource));
  }
  if (unjudged_runs > 0) {
    out.notes.push_back(fmt::format(
        "{} metric(s) of {} not judged: one run each cannot show how much runs of a machine differ, and none "
        "is stated for them; give --base-runs (more runs of the base's machine)",
        unjudged_runs, fmt::join(needs_runs, ", ")));
  }
  if (open > 0) {
    out.notes.push_back(fmt::format(
        "{} percentile(s) not judged: too few samples beyond them for their interval to have a bound", open));
  }
}

std::string tool_version(const Report& r) {
  return r.tool.is_object() ? r.tool.value("version", std::string("?")) : std::string("?");
}

// The verdict as the table and the CSV show it: a metric not judged with its reason.
std::string verdict_text(const MetricChange& m) {
  if (m.verdict == Verdict::not_judged) return fmt::format("{}: {}", to_string(m.verdict), m.reason);
  return std::string(to_string(m.verdict));
}

Tone tone_of(Verdict v) {
  switch (v) {
    case Verdict::improvement:
      return Tone::good;
    case Verdict::regression:
      return Tone::bad;
    case Verdict::noise:
    case Verdict::not_judged:
    case Verdict::not_comparable:
      break;
  }
  return Tone::plain;
}

}  // namespace

std::string_view to_string(Verdict v) { return name_of(kVerdictNames, v); }
std::string_view to_string(SpreadSource s) { return name_of(kSpreadSourceNames, s); }

BetweenRuns::BetweenRuns(const std::vector<NamedReport>& runs) {
  // Hosts first: a fleet of one report per host has nothing to key (result_key serialises params).
  std::vector<std::string> hosts;
  hosts.reserve(runs.size());
  for (const auto& nr : runs) ++runs_per_host_[hosts.emplace_back(host_label(nr))];
  std::erase_if(runs_per_host_, [](const auto& h) { return h.second < 2; });
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (!runs_per_host_.count(hosts[i])) continue;
    for (const auto& r : runs[i].report.results) {
      if (r.status != Status::ok) continue;
      for (const auto& m : r.metrics) {
        if (std::isfinite(m.value)) values_[run_key(hosts[i], r, m.name)].push_back(m.value);
      }
    }
  }
}

std::optional<double> BetweenRuns::measured(const std::string& host, const Result& r,
                                            const std::string& metric, std::optional<double> judged) const {
  if (!runs_per_host_.count(host)) return std::nullopt;
  auto it = values_.find(run_key(host, r, metric));
  if (it == values_.end()) return std::nullopt;
  std::vector<double> v = it->second;
  if (judged) {
    if (auto self = std::find(v.begin(), v.end(), *judged); self != v.end()) v.erase(self);
  }
  if (v.size() < 2) return std::nullopt;
  // The spread of ln(value) (the scale compare judges on); the relative SD for values that are not positive.
  const bool positive = std::all_of(v.begin(), v.end(), [](double x) { return x > 0; });
  return between_run_spread(positive ? log_standard_deviation(v) : compute_stats(v).cv, v.size());
}

double BetweenRuns::spread(const std::string& host, const Result& r, const std::string& metric,
                           std::optional<double> judged) const {
  return measured(host, r, metric, judged).value_or(0);
}

std::vector<std::string> BetweenRuns::hosts() const {
  std::vector<std::string> out;
  for (const auto& [host, k] : runs_per_host_) out.push_back(fmt::format("{} ({} runs)", host, k));
  return out;
}

std::size_t Comparison::count(Verdict v) const {
  return static_cast<std::size_t>(
      std::count_if(changes.begin(), changes.end(), [v](const MetricChange& c) { return c.verdict == v; }));
}

bool Comparison::has_regression() const {
  return count(Verdict::regression) > 0 || std::any_of(status_changes.begin(), status_changes.end(),
                                                       [](const StatusChange& s) { return s.regression; });
}

Comparison compare_reports(const NamedReport& base, const NamedReport& other, const CompareOptions& opts) {
  Comparison out;
  out.base_file = base.file;
  out.other_file = other.file;
  out.base_host = host_label(base);
  out.other_host = host_label(other);
  std::map<std::string, const Result*> other_by_key;
  for (const auto& r : other.report.results) other_by_key.emplace(result_key(r), &r);

  std::size_t common = 0;
  std::size_t not_compared = 0;
  std::size_t no_shared_metric = 0;
  std::set<std::string> seen;
  for (const auto& a : base.report.results) {
    auto key = result_key(a);
    if (!seen.insert(key).second) continue;
    auto it = other_by_key.find(key);
    if (it == other_by_key.end()) {
      out.only_in_base.push_back(ResultRef{a.probe, a.params, a.status});
      continue;
    }
    ++common;
    const Result& b = *it->second;
    if (a.status != b.status) {
      bool regression =
          a.status == Status::ok && (b.status == Status::failed || b.status == Status::incorrect);
      out.status_changes.push_back(StatusChange{a.probe, a.params, a.status, b.status,
                                                b.reason.empty() ? a.reason : b.reason, regression});
      continue;
    }
    if (a.status != Status::ok) {
      ++not_compared;
      continue;
    }
    bool shared = false;
    for (const auto& ma : a.metrics) {
      if (const Metric* mb = b.metric(ma.name)) {
        out.changes.push_back(measure_change(a, ma, *mb, opts, out.base_host, out.other_host));
        shared = true;
      }
    }
    if (!shared) ++no_shared_metric;
  }
  for (const auto& b : other.report.results) {
    if (!seen.count(result_key(b))) out.only_in_other.push_back(ResultRef{b.probe, b.params, b.status});
  }
  if (common == 0) {
    throw UsageError(
        fmt::format("{}: no results in common with {} (same probe and params); compare runs of the same "
                    "probes and options",
                    other.file, base.file));
  }
  if (out.changes.empty() && out.status_changes.empty()) {
    throw UsageError(fmt::format(
        "{}: no results in common with {} that both measured ({} in common: {} not ok in both, {} with no "
        "metric in common); compare runs that measured the same probes",
        other.file, base.file, common, not_compared, no_shared_metric));
  }
  out.family = static_cast<std::size_t>(std::count_if(
      out.changes.begin(), out.changes.end(),
      [](const MetricChange& c) { return std::isfinite(c.change) && c.verdict != Verdict::not_judged; }));
  out.z = family_z95(out.family);
  for (auto& c : out.changes) judge(c, out.z, opts.threshold);
  if (out.family > 1) {
    out.notes.push_back(fmt::format(
        "bands: 95 % for the {} metrics together (z {:.2f} each, Šidák), judged on ln(other/base); a change "
        "below the {:g} % threshold is noise",
        out.family, out.z, 100 * opts.threshold));
  }
  if (tool_version(base.report) != tool_version(other.report)) {
    out.notes.push_back(
        fmt::format("reports come from different mlbench versions ({} vs {}); probe changes between "
                    "versions can move numbers",
                    tool_version(base.report), tool_version(other.report)));
  }
  if (base.report.schema_version != other.report.schema_version) {
    out.notes.push_back(
        fmt::format("schema versions differ ({} vs {}); fields new in the later one are ignored",
                    base.report.schema_version, other.report.schema_version));
  }
  if (opts.between != nullptr && !opts.between->hosts().empty()) {
    out.notes.push_back(fmt::format("bands include the spread between repeated runs of {}",
                                    fmt::join(opts.between->hosts(), ", ")));
  }
  add_spread_notes(out);
  if (not_compared > 0) {
    out.notes.push_back(fmt::format(
        "{} result(s) not ok in both reports (skipped, failed or incorrect): not compared", not_compared));
  }
  return out;
}

std::string compare_verdict(const Comparison& c) {
  return fmt::format(
      "compare: {} — {} regression(s), {} improvement(s), {} within noise, {} not judged of {} metrics; {} "
      "status change(s), {} result(s) in one report only",
      c.has_regression() ? "regression" : "pass", c.count(Verdict::regression), c.count(Verdict::improvement),
      c.count(Verdict::noise), c.count(Verdict::not_judged), c.changes.size(), c.status_changes.size(),
      c.only_in_base.size() + c.only_in_other.size());
}

std::vector<Table> comparison_tables(const Comparison& c) {
  std::vector<Table> tables;
  Table changes{fmt::format("{} ({}) -> {} ({})", c.base_file, c.base_host, c.other_file, c.other_host),
                {"probe", "params", "metric", "base", "other", "change", "noise band", "verdict"},
                {}};
  for (const auto& m : c.changes) {
    Tone tone = tone_of(m.verdict);
    changes.rows.push_back(
        {Cell{m.probe}, Cell{format_params(m.params)}, Cell{m.metric},
         Cell{format_metric_value(m.base, m.unit), Tone::plain, true},
         Cell{format_metric_value(m.other, m.unit), Tone::plain, true},
         Cell{std::isfinite(m.gain) ? fmt::format("{:+.1f} %", 100 * m.gain) : "n/a", tone, true},
         Cell{std::isfinite(m.noise_band) ? fmt::format("±{:.1f} %", 100 * m.noise_band) : "n/a", Tone::plain,
              true},
         Cell{verdict_text(m), tone}});
  }
  tables.push_back(std::move(changes));
  if (!c.status_changes.empty()) {
    Table t{"status changes", {"probe", "params", "base", "other", "reason"}, {}};
    for (const auto& s : c.status_changes) {
      Tone tone = s.regression ? Tone::bad : (s.other == Status::ok ? Tone::good : Tone::warn);
      t.rows.push_back({Cell{s.probe}, Cell{format_params(s.params)}, Cell{std::string(to_string(s.base))},
                        Cell{std::string(to_string(s.other)), tone}, Cell{s.reason}});
    }
    tables.push_back(std::move(t));
  }
  if (!c.only_in_base.empty() || !c.only_in_other.empty()) {
    Table t{"results in one report only", {"in", "probe", "params", "status"}, {}};
    for (const auto& r : c.only_in_base) {
      t.rows.push_back({Cell{"base only"}, Cell{r.probe}, Cell{format_params(r.params)},
                        Cell{std::string(to_string(r.status))}});
    }
    for (const auto& r : c.only_in_other) {
      t.rows.push_back({Cell{"other only"}, Cell{r.probe}, Cell{format_params(r.params)},
                        Cell{std::string(to_string(r.status))}});
    }
    tables.push_back(std::move(t));
  }
  return tables;
}

Table comparison_data(const Comparison& c) {
  Table t{"",
          {"base_report", "other_report", "probe", "params", "metric", "unit", "base", "other", "change_pct",
           "noise_band_pct", "verdict"},
          {}};
  auto row = [&](const std::string& probe, const Json& params, const std::string& metric,
                 const std::string& unit, double base, double other, double change_pct, double band_pct,
                 const std::string& verdict) {
    t.rows.push_back({Cell{c.base_file}, Cell{c.other_file}, Cell{probe}, Cell{format_params(params)},
                      Cell{metric}, Cell{unit}, Cell{csv_number(base)}, Cell{csv_number(other)},
                      Cell{csv_number(change_pct)}, Cell{csv_number(band_pct)}, Cell{verdict}});
  };
  const double none = std::nan("");
  for (const auto& m : c.changes) {
    row(m.probe, m.params, m.metric, m.unit, m.base, m.other, 100 * m.gain, 100 * m.noise_band,
        verdict_text(m));
  }
  for (const auto& s : c.status_changes) {
    row(s.probe, s.params, "", "", none, none, none, none,
        fmt::format("status {} -> {}{}{}", to_string(s.base), to_string(s.other),
                    s.reason.empty() ? "" : ": ", s.reason));
  }
  for (const auto& r : c.only_in_base)
    row(r.probe, r.params, "", "", none, none, none, none,
        fmt::format("only in base ({})", to_string(r.status)));
  for (const auto& r : c.only_in_other)
    row(r.probe, r.params, "", "", none, none, none, none,
        fmt::format("only in other ({})", to_string(r.status)));
  return t;
}

Json comparison_to_json(const Comparison& c, const CompareOptions& opts) {
  auto num = [](double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); };
  Json changes = Json::array();
  for (const auto& m : c.changes) {
    changes.push_back(Json{{"probe", m.probe},
                           {"params", m.params},
                           {"metric", m.metric},
                           {"unit", m.unit},
                           {"better", to_string(m.better)},
                           {"base", num(m.base)},
                           {"other", num(m.other)},
                           {"change", num(m.change)},
                           {"gain", num(m.gain)},
                           {"spread_base", m.spread_base},
                           {"spread_other", m.spread_other},
                           {"spread_between", m.spread_between},
                           {"between_source", to_string(m.between_source)},
                           {"combined_cv", m.combined_cv},
                           {"noise_band", num(m.noise_band)},
                           {"verdict", to_string(m.verdict)}});
    if (m.between_source == SpreadSource::stated) changes.back()["between_class"] = m.between_class;
    if (!m.reason.empty()) changes.back()["reason"] = m.reason;
  }
  Json status = Json::array();
  for (const auto& s : c.status_changes) {
    status.push_back(Json{{"probe", s.probe},
                          {"params", s.params},
                          {"base", to_string(s.base)},
                          {"other", to_string(s.other)},
                          {"reason", s.reason},
                          {"regression", s.regression}});
  }
  auto refs = [](const std::vector<ResultRef>& v) {
    Json out = Json::array();
    for (const auto& r : v)
      out.push_back(Json{{"probe", r.probe}, {"params", r.params}, {"status", to_string(r.status)}});
    return out;
  };
  return Json{{"base", {{"file", c.base_file}, {"host", c.base_host}}},
              {"other", {{"file", c.other_file}, {"host", c.other_host}}},
              {"threshold", opts.threshold},
              {"family", {{"metrics", c.family}, {"z", c.z}}},
              {"summary",
               {{"regressions", c.count(Verdict::regression)},
                {"improvements", c.count(Verdict::improvement)},
                {"noise", c.count(Verdict::noise)},
                {"not_judged", c.count(Verdict::not_judged)},
                {"not_comparable", c.count(Verdict::not_comparable)},
                {"status_changes", c.status_changes.size()},
                {"regression", c.has_regression()}}},
              {"changes", std::move(changes)},
              {"status_changes", std::move(status)},
              {"only_in_base", refs(c.only_in_base)},
              {"only_in_other", refs(c.only_in_other)},
              {"notes", c.notes}};
}

}  // namespace mlbench
