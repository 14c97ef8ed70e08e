// The warm-up / sample loop and its stopping rule, shared by every probe.
//
// Warm-up runs until both warmup_iters samples and warmup_s seconds have passed (clocks ramp, caches and
// autotuning settle); those samples are dropped. Then samples are taken until min_samples AND min_time_s are
// reached, or max_samples, or the case's deadline (max_time_s from the start of sampling, or the RunContext
// deadline, whichever is first). A sample is whatever the probe times (one launch loop, one I/O batch); the
// function returns its seconds. Interrupts are honoured between samples.
#pragma once

#include <functional>
#include <vector>

#include "bench/probe.hpp"

namespace mlbench {

struct MeasurePolicy {
  int warmup_iters = 2;
  double warmup_s = 0.0;
  int min_samples = 20;
  int max_samples = 1000;
  double min_time_s = 0.0;
  double max_time_s = 60.0;
};

// Returns the kept samples (seconds). Throws Error when fewer than 3 samples fit in the time allowed.
std::vector<double> measure(const MeasurePolicy& policy, const std::function<double()>& sample,
                            const RunContext& ctx);

}  // namespace mlbench
