// `mlbench compare BASE OTHER...`: results joined on (probe, params), per metric the relative change signed
// by which direction is better (the "change" the table and the CSV show: > 0 is better, for a latency as for
// a rate), judged against a noise band.
//
// The judgement is on the log scale: a rate or a latency is a ratio-scale quantity whose run-to-run variation
// is multiplicative (a stall multiplies latencies, a slower CPU divides IOPS), and the log ratio
// ln(other/base) judges A→B and B→A alike, where the relative change (other − base)/base does not (a latency
// 1 → 12 ms is +1,100 %, 12 → 1 ms −92 %). A metric changed beyond noise when |ln(other/base)| > z × combined
// spread, with
//   combined spread = sqrt(s_base² + s_other²), s of a side its relative standard uncertainty (≈ the standard
//   deviation of ln(value), to first order):
//  - within the run: relative_spread (reports/report.hpp), the spread of the STATISTIC the value is — the
//    standard error of a median or a mean over the run's samples, the order-statistic interval of a latency
//    percentile, the Gumbel spread of a maximum — with the histogram bucket's resolution as its floor for a
//    percentile (base/stats.hpp, storage/io/probe.hpp).
//  - between runs: a run on a shared machine (a VM whose disk stalls come and go) differs from the next by
//    more than its own samples show, which no single run can measure. When the base comes with more runs of
//    its machine (--base-runs: ≥ 2 reports of that host with the base), the sample standard deviation of
//    ln(value) across them, expanded by t(0.975, k − 1) / 1.96 for its k − 1 degrees of freedom (GUM G.3), is
//    the between-run spread of every report of that host in the comparison. Without them (or for a metric
//    they lack) it is the spread the project measured and states for the metric's probe and class
//    (reports/stated_spread.hpp), for both reports. A side takes the larger of the between-run spread and its
//    within-run figure (a single run's value already carries its within-run noise, so the between-run spread
//    contains it rather than adding to it). The report being judged is left out of the runs that set its
//    band (when it was given as one of them too): a regression cannot widen its own band.
//  - not judged: a metric with no between-run spread (neither --base-runs nor a stated one: "needs
//    --base-runs"), or whose interval is open in either report (a tail percentile with too few samples beyond
//    it, Metric::ci_open), has no band a change could be measured against; it is listed with the reason and
//    left out of the family, never a regression.
//  - z: the comparison decides one thing — did the other report regress? — over all m metrics it judges, so
//    z is Šidák's for the family (family_z95(m), base/stats.hpp: 1.96 for one metric, 3.42 for a quick run's
//    83), giving a 95 % chance that two runs of an unchanged machine show no change at all, instead of ~4
//    chance "changes" among 83 metrics at 95 % each.
// The threshold stays a floor on the relative change: a change below it is not worth reporting however well
// known. The band shown (noise_band) is the relative change the log band allows in the direction of the
// change (e^b − 1 up, 1 − e^−b down), at least the threshold. Values that are not both positive are judged
// on the relative change against z × the combined spread. A change inside the band is "noise"; beyond it, an
// "improvement" or a "regression" depending on metric.better.
//
// Results whose status is not ok in both reports are never compared metric by metric (`incorrect` numbers are
// meaningless); a status that differs is listed as a status change, and ok → failed / ok → incorrect counts
// as a regression. Results present in only one report are listed.
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/names.hpp"
#include "reports/inputs.hpp"
#include "reports/stated_spread.hpp"
#include "reports/table.hpp"

namespace mlbench {

enum class Verdict { improvement, regression, noise, not_judged, not_comparable };
inline constexpr EnumName<Verdict> kVerdictNames[] = {{Verdict::improvement, "improvement"},
                                                      {Verdict::regression, "regression"},
                                                      {Verdict::noise, "noise"},
                                                      {Verdict::not_judged, "not judged"},
                                                      {Verdict::not_comparable, "n/a"}};
static_assert(names_cover(kVerdictNames));
std::string_view to_string(Verdict v);

// The between-run spread of repeated runs of one machine (see the header): per host, result and metric, the
// relative sample standard deviation of the values of ≥ 2 reports, × t(0.975, k − 1) / 1.96.
class BetweenRuns {
 public:
  BetweenRuns() = default;
  explicit BetweenRuns(const std::vector<NamedReport>& runs);
  // None when fewer than 2 of the runs are of `host` with the metric measured (ok, finite). `judged`: the
  // value being judged against the spread, left out of it when it is one of the runs (once), so that a run
  // never widens its own band.
  std::optional<double> measured(const std::string& host, const Result& r, const std::string& metric,
                                 std::optional<double> judged = std::nullopt) const;
  // measured(), 0 when none.
  double spread(const std::string& host, const Result& r, const std::string& metric,
                std::optional<double> judged = std::nullopt) const;
  // "HOST (k runs)" for each host with ≥ 2 runs, for the notes.
  std::vector<std::string> hosts() const;

 private:
  std::map<std::string, std::vector<double>> values_;
  std::map<std::string, std::size_t> runs_per_host_;
};

struct CompareOptions {
  double threshold = 0.05;                                // fraction (5 %)
  const BetweenRuns* between = nullptr;                   // repeated runs of the base's machine, when given
  std::span<const StatedSpread> stated = kStatedSpreads;  // the project's between-run spreads
};

// Where a metric's between-run spread came from.
enum class SpreadSource { none, base_runs, stated };
inline constexpr EnumName<SpreadSource> kSpreadSourceNames[] = {
    {SpreadSource::none, "none"}, {SpreadSource::base_runs, "base-runs"}, {SpreadSource::stated, "stated"}};
static_assert(names_cover(kSpreadSourceNames));
std::string_view to_string(SpreadSource s);

struct MetricChange {
  std::string probe;
  Json params;
  std::string metric;
  std::string unit;
  Better better = Better::higher;
  double base = 0;
  double other = 0;
  double change = 0;          // (other − base) / base; NaN when base is 0 or either value is not finite
  double gain = 0;            // change signed so that > 0 is better
  double spread_base = 0;     // the base side's relative spread: within its run, or between runs when larger
  double spread_other = 0;    // the other side's
  double spread_between = 0;  // the between-run spread of the base's machine (both sides')
  SpreadSource between_source = SpreadSource::none;
  std::string between_class;  // the stated row's class (SpreadSource::stated)
  double combined_cv = 0;     // sqrt(spread_base² + spread_other²)
  double noise_band = 0;  // the change z × combined_cv allows in the change's direction, ≥ the threshold;
                          // NaN when not judged
  Verdict verdict = Verdict::not_comparable;
  std::string reason;  // why not judged: "needs --base-runs ...", or an open interval's (Metric::ci_open)
};

struct StatusChange {
  std::string probe;
  Json params;
  Status base = Status::ok;
  Status other = Status::ok;
  std::string reason;  // the other report's reason, else the base's
  bool regression = false;
};

struct ResultRef {
  std::string probe;
  Json params;
  Status status = Status::ok;
};

struct Comparison {
  std::string base_file, other_file;
  std::string base_host, other_host;
  std::vector<MetricChange> changes;
  std::vector<StatusChange> status_changes;
  std::vector<ResultRef> only_in_base, only_in_other;
  std::vector<std::string> notes;
  std::size_t family = 0;  // metric changes judged together (finite values, not "not judged")
  double z = 0;            // family_z95(family): the per-metric z of the bands

  std::size_t count(Verdict v) const;
  // A metric regression beyond its band, or ok → failed/incorrect.
  bool has_regression() const;
};

// Throws UsageError naming the other file when the two reports have no result in common, or none that
// both measured (every common result not ok in both or without a metric of both: nothing to compare).
Comparison compare_reports(const NamedReport& base, const NamedReport& other, const CompareOptions& opts);

// The comparison's verdict line, with the counts it rests on: "compare: regression — 2 regression(s), 4
// improvement(s), 75 within noise, 2 not judged of 83 metrics; 1 status change(s), 0 result(s) in one report
// only" (pass when nothing regressed). The console's closing line and the HTML page's both print it.
std::string compare_verdict(const Comparison& c);

// Views of comparisons for the writers.
std::vector<Table> comparison_tables(const Comparison& c);
// The data for spreadsheets (Format::csv): one row per metric change (numbers unformatted, in the unit of
// their row; changes signed so that > 0 is better, and bands, in percent), per status change and per
// one-sided result (verdict says which; no numbers). The tables of several comparisons share their columns,
// so they make one CSV.
Table comparison_data(const Comparison& c);
Json comparison_to_json(const Comparison& c, const CompareOptions& opts);

}  // namespace mlbench
