// storage.dataload — "how many GPUs can this storage feed?": MLPerf Storage-style training data loading,
// natively through io_uring (storage/dataload_reader.hpp has the method and the AU formula).
//
// A case generates or finds the dataset (storage/dataload_data.hpp; generation is its own result with files/s
// and GB/s), then measures: with --accelerators N one window of N simulated accelerators; otherwise
// accelerators_supported, the largest N whose AU stays at or above the workload's floor, by doubling and
// bisection, each trial a full --runtime window, every trial recorded in info.trials. Figures: samples/s,
// GB/s, files/s, AU overall and per accelerator, the batch wait, and open, read and close latency
// percentiles, each separately, each with its spread (train_metrics). O_DIRECT by default, so a dataset
// smaller than 5 × RAM still measures the drives; --buffered warns when it is smaller. Options: the table
// in dataload_probe.cpp, `mlbench dataload --help`.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bench/probe.hpp"
#include "storage/dataload_reader.hpp"

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

// info.step_emulation of a window with a step time: how the step was emulated and its own error — the
// nominal step, the mean and longest step the emulation took, and each step's lateness past its deadline
// (mean, p50, p99, max).
nlohmann::json step_emulation_info(const LoadOutcome& o);
// The warning for the windows (by accelerator count) whose emulated steps ended late by more than 1 % of the
// step on average, naming them; none when every window kept its step.
std::optional<std::string> step_overrun_warning(const std::map<unsigned, LoadOutcome>& trials);

std::span<const OptionSpec> dataload_options();
std::unique_ptr<Probe> make_dataload_probe();

}  // namespace mlbench::storage
