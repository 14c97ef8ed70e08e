// storage.dataload — "how many GPUs can this storage feed?": MLPerf Storage-style training data loading,
// natively through io_uring (storage/dataload_reader.hpp has the method and the AU formula).
//
// A case generates or finds the dataset (storage/dataload_data.hpp; generation is its own result with files/s
// and GB/s), then measures: with --accelerators N one window of N simulated accelerators; otherwise
// accelerators_supported, the largest N whose AU stays at or above the workload's floor, by doubling and
// bisection, each trial a full --runtime window, every trial recorded in info.trials. Figures: samples/s,
// GB/s, files/s, AU overall and per accelerator, the batch wait, and open, read and close latency
// percentiles, each separately. O_DIRECT by default, so a dataset smaller than 5 × RAM still measures the
// drives; --buffered warns when it is smaller. Options: the table in dataload_probe.cpp, `mlbench dataload
// --help`.
#pragma once

#include <memory>
#include <span>

#include "bench/probe.hpp"

namespace mlbench::storage {

std::span<const OptionSpec> dataload_options();
std::unique_ptr<Probe> make_dataload_probe();

}  // namespace mlbench::storage
