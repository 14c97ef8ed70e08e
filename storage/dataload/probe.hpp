// storage.dataload — "how many GPUs can this storage feed?": MLPerf Storage-style training data loading,
// natively through io_uring (storage/dataload/reader.hpp has the method and the AU formula).
//
// A case generates or finds the dataset (storage/dataload/data.hpp; generation is its own result with files/s
// and GB/s), then measures: with --accelerators N one window of N simulated accelerators; otherwise
// accelerators_supported, the largest N whose AU stays at or above the workload's floor, by doubling and
// bisection, each trial a full --runtime window, every trial recorded in info.trials. Figures: samples/s,
// GB/s, files/s, AU overall and per accelerator, the batch wait, and open, read and close latency
// percentiles, each separately, each with its spread (train_metrics). O_DIRECT by default, so a dataset
// smaller than 5 × RAM still measures the drives; --buffered warns when it is smaller. Options: the table
// in storage/dataload/probe.cpp, `mlbench dataload --help`.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bench/probe.hpp"
#include "storage/dataload/metrics.hpp"
#include "storage/dataload/reader.hpp"

namespace mlbench::storage {

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
