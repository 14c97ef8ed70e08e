// The spread between runs of one machine that compare assumes when a report comes without more runs of its
// machine (--base-runs): measured by the project, stated here, one row per probe and class of metric.
//
// One run cannot show how much the next run of the same machine differs: a VM's disk stalls come and go, a
// neighbour takes memory bandwidth for a while, and the run's own samples (its intervals, its I/Os) all see
// the same state. Judged by its own spread alone, two back-to-back runs of an unchanged machine "regress".
// So a metric is judged only against a between-run spread that is known: the machine's own (--base-runs),
// else the figure below for its probe and class; a metric with neither is not judged ("needs --base-runs"),
// never a regression.
//
// Each figure is the largest, over the class's results (the profile's jobs or kernels, both directions of a
// mixed job), of the sample standard deviation of ln(value) across `runs` back-to-back `mlbench run --profile
// quick` of one machine; compare expands it by t(0.975, runs − 1) / 1.96 for its runs − 1 degrees of freedom
// (GUM G.3), as it does the spread of --base-runs. scripts/bench-compare-noise.sh measures them (and prints
// these rows); docs/notes/2026-12-06-between-run-spread.md gives the machine, the command and the figures.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

namespace mlbench {

struct StatedSpread {
  std::string_view probe;
  std::string_view metric_class;              // a name for the notes and the JSON
  std::span<const std::string_view> metrics;  // names; a storage.io direction's read_/write_ metrics too
  double sd;         // the largest SD of ln(value) across the runs among the class's results
  std::size_t runs;  // the runs it was measured across
};

inline constexpr std::string_view kStorageRates[] = {"iops", "bandwidth", "pct_of_link", "first_done",
                                                     "last_done"};
inline constexpr std::string_view kStorageCpu[] = {"cpu_per_io"};
inline constexpr std::string_view kStorageLatency[] = {"lat_p50", "lat_p90", "lat_p99"};
inline constexpr std::string_view kStorageTail[] = {"lat_p999", "lat_p9999", "lat_max"};
inline constexpr std::string_view kMembw[] = {"bandwidth", "pct_of_peak"};

// Where the figures come from, for compare's note.
inline constexpr std::string_view kStatedSpreadSource = "docs/notes/2026-12-06-between-run-spread.md";

inline constexpr StatedSpread kStatedSpreads[] = {
    {"storage.io", "rates", kStorageRates, 0.100, 10},     {"storage.io", "cpu", kStorageCpu, 0.175, 10},
    {"storage.io", "latency", kStorageLatency, 0.217, 10}, {"storage.io", "tail", kStorageTail, 0.640, 10},
    {"host.membw", "bandwidth", kMembw, 0.316, 10},
};

// The row of `table` for a probe's metric (a read_/write_ metric by its name without the direction); none
// when the table has none.
const StatedSpread* stated_spread(std::span<const StatedSpread> table, std::string_view probe,
                                  std::string_view metric);

// A between-run SD of ln(value) measured across `runs` runs, expanded to 95 % coverage with their runs − 1
// degrees of freedom: sd × t(0.975, runs − 1) / 1.96 — the spread compare combines.
double between_run_spread(double sd, std::size_t runs);

}  // namespace mlbench
