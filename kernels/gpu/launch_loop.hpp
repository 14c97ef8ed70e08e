// The one timing loop of gpu.gemm, gpu.hbm, gpu.copy and gpu.conv: size a sample from a warmed-up loop, then
// sample it under the probe's MeasurePolicy with NVML telemetry around the samples.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "bench/measure.hpp"
#include "bench/probe.hpp"
#include "kernels/gpu/cuda_util.hpp"
#include "kernels/gpu/plan.hpp"

namespace mlbench::gpu {

// Seconds per launch of `count` calls of `launch` (each issues one launch on `stream`), between two events
// recorded on that stream.
template <typename Launch>
double event_timed(cudaStream_t stream, const Event& start, const Event& stop, int count, Launch&& launch) {
  start.record(stream);
  for (int i = 0; i < count; ++i) launch();
  stop.record(stream);
  return elapsed_s(start, stop) / count;
}

// Seconds per launch over a loop of `count` launches; how the loop is issued and timed is the probe's.
using TimedLoop = std::function<double(int count)>;

// Launches per sample for `target` (plan.hpp LoopTarget): the sizing loop once untimed, then timed.
int size_loop(const TimedLoop& timed, const LoopTarget& target);

struct LoopSamples {
  std::vector<double> samples;  // seconds per launch, one per kept sample
  int launches_per_sample = 1;
};

// size_loop, then measure() of loops of that many launches. With a `telemetry_uuid`, NVML samples that GPU
// during the samples and finish() writes Result::telemetry (and a throttling warning) into `r`; with an empty
// one `r` is left alone.
LoopSamples time_launch_loop(const TimedLoop& timed, const LoopTarget& target, const MeasurePolicy& policy,
                             const std::string& telemetry_uuid, Result& r, RunContext& ctx);

}  // namespace mlbench::gpu
