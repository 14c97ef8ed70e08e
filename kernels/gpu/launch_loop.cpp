#include "kernels/gpu/launch_loop.hpp"

#include <optional>

#include "kernels/gpu/probe_util.hpp"

namespace mlbench::gpu {

int size_loop(const TimedLoop& timed, const LoopTarget& target) {
  timed(target.sizing_launches);
  return launches_per_sample(timed(target.sizing_launches), target.sample_s, target.max_launches);
}

LoopSamples time_launch_loop(const TimedLoop& timed, const LoopTarget& target, const MeasurePolicy& policy,
                             const std::string& telemetry_uuid, Result& r, RunContext& ctx) {
  LoopSamples out;
  out.launches_per_sample = size_loop(timed, target);
  std::optional<CaseTelemetry> telemetry;
  if (!telemetry_uuid.empty()) telemetry.emplace(telemetry_uuid);
  const int per_sample = out.launches_per_sample;
  out.samples = measure(
      policy, [&] { return timed(per_sample); }, ctx);
  if (telemetry) telemetry->finish(r);
  return out;
}

}  // namespace mlbench::gpu
