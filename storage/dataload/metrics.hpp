// The metrics of a storage.dataload train window, from the reader loop's outcome
// (storage/dataload/reader.hpp).
#pragma once

#include <vector>

#include "bench/probe.hpp"
#include "storage/dataload/reader.hpp"

namespace mlbench::storage {

// The train phase's figures of one window (all but accelerators_supported), each with the spread of the
// statistic it is (base/stats.hpp), as its ci. samples/s, bandwidth and files/s are the window's flow, paced
// by the accelerators' steps: the relative standard error of the mean step duration (wait + compute) over
// every timed step of every accelerator, s/sqrt(n). au, the accelerators' nominal compute over wall time: the
// standard error of the mean of their AUs; au_min, the lowest: the Gumbel spread of the two lowest.
// batch_wait_mean: the standard error of the mean of the timed steps' waits. Every latency percentile
// (batch_wait_p99; open, read and close p50/p99/p999): its order-statistic interval from the count
// (LatencyHistogram::percentile_ci). cpu_per_file, process CPU over files: the relative standard error of
// the mean of the reader threads' own CPU per file. Consecutive steps are not independent (a slow stretch of
// storage stalls several), so these are lower bounds; repeated runs give the between-run spread (compare
// --base-runs). Without two timed steps, two accelerators or two readers, the figures built from them carry
// no ci, and compare judges them by its threshold.
// accelerators_supported has no spread by design: it is the answer of a search whose resolution is one
// accelerator, each trial a pass/fail at the AU floor, so two runs that find different counts differ by at
// least that resolution, which compare should show. The generate phase's files/s, bandwidth and seconds have
// none either: the dataset is written once, file after file, and its time ends with one syncfs that flushes
// all of it, so no part of the write is a sample of the whole (and a reused dataset has no generate result to
// compare).
std::vector<Metric> train_metrics(const LoadOutcome& o);

}  // namespace mlbench::storage
