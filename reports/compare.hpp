// `mlbench compare BASE OTHER...`: results joined on (probe, params), per metric the relative change signed
// by which direction is better (the "change" the table and the CSV show: > 0 is better, for a latency as for
// a rate), judged against a noise band.
//
// Noise band of one metric = max(threshold, 2 × combined spread), where combined spread =
// sqrt(s_base² + s_other²) and s is the metric's relative spread (relative_spread in reports/report.hpp: the
// CV over its samples, or what its confidence interval implies for a value that has no samples of its own,
// such as a tail latency percentile; 0 when it has neither). For independent measurements this is, to first
// order, the CV of the ratio other/base, so a change inside two of those is indistinguishable from
// run-to-run variation. A change smaller than the band is "noise"; beyond it, an "improvement" or a
// "regression" depending on metric.better.
//
// Results whose status is not ok in both reports are never compared metric by metric (`incorrect` numbers are
// meaningless); a status that differs is listed as a status change, and ok → failed / ok → incorrect counts
// as a regression. Results present in only one report are listed.
#pragma once

#include <string>
#include <vector>

#include "base/names.hpp"
#include "reports/inputs.hpp"
#include "reports/table.hpp"

namespace mlbench {

enum class Verdict { improvement, regression, noise, not_comparable };
inline constexpr EnumName<Verdict> kVerdictNames[] = {{Verdict::improvement, "improvement"},
                                                      {Verdict::regression, "regression"},
                                                      {Verdict::noise, "noise"},
                                                      {Verdict::not_comparable, "n/a"}};
static_assert(names_cover(kVerdictNames));
std::string_view to_string(Verdict v);

struct CompareOptions {
  double threshold = 0.05;  // fraction (5 %)
};

struct MetricChange {
  std::string probe;
  Json params;
  std::string metric;
  std::string unit;
  Better better = Better::higher;
  double base = 0;
  double other = 0;
  double change = 0;       // (other − base) / base; NaN when base is 0 or either value is not finite
  double gain = 0;         // change signed so that > 0 is better
  double combined_cv = 0;  // sqrt(s_base² + s_other²) of the relative spreads
  double noise_band = 0;   // max(threshold, 2 × combined_cv)
  Verdict verdict = Verdict::not_comparable;
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

  std::size_t count(Verdict v) const;
  // A metric regression beyond its band, or ok → failed/incorrect.
  bool has_regression() const;
};

// Throws UsageError naming the other file when the two reports have no result in common, or none that
// both measured (every common result not ok in both or without a metric of both: nothing to compare).
Comparison compare_reports(const NamedReport& base, const NamedReport& other, const CompareOptions& opts);

// Views of comparisons for the writers.
std::vector<Table> comparison_tables(const Comparison& c);
// The data for spreadsheets (Format::csv): one row per metric change (numbers unformatted, in the unit of
// their row; changes signed so that > 0 is better, and bands, in percent), per status change and per
// one-sided result (verdict says which; no numbers). The tables of several comparisons share their columns,
// so they make one CSV.
Table comparison_data(const Comparison& c);
Json comparison_to_json(const Comparison& c, const CompareOptions& opts);

}  // namespace mlbench
