// `mlbench compare --fleet`: which node or GPU is bad among many.
//
// Population: every ok result of the same probe and params (the device it ran on removed, so all GPUs of all
// hosts form one population) and the same metric, across ≥ 3 reports. Per population: median and MAD
// (unscaled median absolute deviation); per member the robust z-score of Iglewicz and Hoaglin,
// z = 0.6745 (x − median) / MAD. When MAD is 0 (more than half the members identical) the mean absolute
// deviation stands in: z = (x − median) / (1.253314 · meanAD); when that is 0 too every z is 0.
// A member is an outlier when |z| > 3.5 and its deviation from the median exceeds its own measurement noise
// (noise_band: 2 × the metric's relative spread — the standard uncertainty of the value within its run
// (relative_spread), or, for a host with ≥ 2 reports in the fleet, the spread of ln(value) between those runs
// when larger (BetweenRuns, reports/compare.hpp); compare judges a pair on ln(other/base) at the family's z,
// the fleet each member against the median with the robust z's 3.5 as its family-wide bar; in a very tight
// population a robust z flags differences the measurement cannot resolve; a metric without any spread gets
// compare's floor, the threshold, since its noise is unknown, not zero), or when it is worse than the median
// by more than the threshold (direction-aware: below for better = higher, above for better = lower) and than
// its own noise band — compare's rule, where the threshold is the floor of the band, not a way around it: a
// member 8 % below the median whose value swings ±20 % between runs is not shown to be worse. Outliers are
// listed as worse or better than the median; only worse ones make the command fail.
//
// The robust z needs values enough for the MAD to be a scale: of n values it is the middle of n absolute
// deviations, one of which is the median's own 0, so for a few it can be any small number (three runs of one
// machine, two alike: a 4 % lower third is |z| ≈ 13). Drawn from one normal population, some member of 3
// values lies beyond |z| 3.5 in 28 % of draws, each member in 9 % (5 % at 5 values, 1.7 % at 10, 0.7 % at 20;
// docs/notes/2026-12-06-fleet-small-populations.md). A population of fewer than kMinRobustZValues values is
// judged without the MAD, as compare judges a change: a member is an outlier, on either side, when its
// deviation exceeds both the threshold (the stated floor) and its noise band (its own spread: the report's
// intervals, or its host's other runs). Every population says how many reports it rests on and which test
// judged it, and the verdict line counts them.
//
// The fleet verdict also judges the nodes themselves, because a fleet run (configs/launch/fleet-*) starts one
// mlbench per node and a node that crashed, hung or lost its disk writes nothing: with `expect` (the hosts
// that were started) every expected host without a report is `missing` (matched on the short host name, so
// `node07` and `node07.cluster` are one host), and a report whose burn-in node verdict failed (a
// `burnin.node` result with status failed: report/report_burnin.hpp) names that node. Either fails the
// fleet. With `expect`, a fleet too small or too different for the outlier analysis (fewer than
// kMinFleetReports reports, no metric in kMinFleetReports of them) is judged on presence and node verdicts
// alone, with a note.
#pragma once

#include <string>
#include <vector>

#include "reports/inputs.hpp"
#include "reports/table.hpp"

namespace mlbench {

inline constexpr double kOutlierZ = 3.5;
inline constexpr std::size_t kMinFleetReports = 3;
// A population of fewer values than this is judged on its members' spread and the threshold, not the MAD.
inline constexpr std::size_t kMinRobustZValues = 10;

struct FleetOptions {
  double threshold = 0.05;          // fraction below (or above, for lower-is-better) the median
  std::vector<std::string> expect;  // hosts that must report; empty: no presence check
};

// A report whose burn-in node verdict failed.
struct FleetNodeFailure {
  std::string host;
  std::string file;
  std::string reason;  // the burnin.node result's reason, else its info.reasons joined
};

struct FleetMember {
  std::size_t report = 0;  // index into the analysed reports
  std::string host;
  std::string device;  // "gpu3", a storage target, or ""
  std::string uuid;
  double value = 0;
  double deviation = 0;  // (value − median) / median, signed so that < 0 is worse
  double z = 0;          // computed always; it judges only when the population's robust_z is set
  double spread = 0;     // the metric's own relative spread: within its run, or between its host's runs
  bool outlier = false;
  bool worse = false;  // an outlier on the bad side
};

struct FleetGroup {
  std::string probe;
  Json params;  // without device/target
  std::string metric;
  std::string unit;
  Better better = Better::higher;
  double median = 0;
  double mad = 0;
  std::vector<FleetMember> members;
  std::size_t reports = 0;  // the distinct reports the members come from
  bool robust_z = true;     // members.size() >= kMinRobustZValues: the robust z judges, else spread/threshold
  std::size_t outliers() const;
};

struct FleetAnalysis {
  std::size_t reports = 0;
  double threshold = 0.05;
  std::vector<std::string> files;
  std::vector<FleetGroup> groups;  // sorted by probe, params, metric
  std::vector<std::string> notes;
  std::vector<std::string> expected;           // FleetOptions::expect
  std::vector<std::string> missing;            // expected hosts without a report, in `expected` order
  std::vector<FleetNodeFailure> failed_nodes;  // in report order
  std::size_t outliers() const;
  bool has_worse_outlier() const;
  // Any worse outlier, missing host or failed node.
  bool fails() const;
};

// The hosts of `--expect HOSTS|@FILE`: comma- or whitespace-separated names, or a file of them (one a line),
// duplicates dropped. UsageError naming the argument when the file cannot be read or no host is named.
std::vector<std::string> parse_expected_hosts(const std::string& arg);

// Robust z of x against a population's median and MAD (meanAD fallback as above).
double robust_z(double x, double median, double mad, double mean_abs_dev);
// The deviation (a fraction of the median) a z-score outlier must exceed: 2 × spread, or the threshold when
// the metric has no spread.
double noise_band(double spread, double threshold);

// `unreadable`: files the loader left out (load_readable_reports), named in the notes. UsageError when fewer
// than kMinFleetReports readable reports are given, unless opts.expect names hosts (see above).
FleetAnalysis analyze_fleet(const std::vector<NamedReport>& reports, const FleetOptions& opts,
                            const std::vector<UnreadableReport>& unreadable = {});

// The failing nodes first (missing, failed burn-in), then the outliers (by host and device), then one line
// per population.
std::vector<Table> fleet_tables(const FleetAnalysis& f);
// One line with the counts it rests on: "fleet verdict: pass — no worse outlier; 12 reports, 40 populations"
// or "fleet verdict: fail — missing: node07 (no report); failed burn-in: node03 (gpu1: 12 bad words); 1 worse
// outlier; 12 reports, 40 populations (2 of fewer than 10 values: judged on the members' own spread and the
// 5 % threshold)".
std::string fleet_verdict(const FleetAnalysis& f);
// The data for spreadsheets (Format::csv): the outliers (worse first), numbers unformatted in the row's unit
// (deviation in percent); the per-metric populations are in the JSON.
Table fleet_data(const FleetAnalysis& f);
Json fleet_to_json(const FleetAnalysis& f, const FleetOptions& opts);

}  // namespace mlbench
