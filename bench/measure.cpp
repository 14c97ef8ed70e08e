#include "bench/measure.hpp"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

namespace mlbench {

std::vector<double> measure(const MeasurePolicy& policy, const std::function<double()>& sample,
                            const RunContext& ctx) {
  using Clock = std::chrono::steady_clock;
  auto seconds_since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };

  auto warm_start = Clock::now();
  for (int i = 0; i < policy.warmup_iters || seconds_since(warm_start) < policy.warmup_s; ++i) {
    ctx.check_interrupted();
    if (ctx.seconds_left() <= 0) break;
    sample();
  }

  std::vector<double> samples;
  auto start = Clock::now();
  auto deadline = std::min(ctx.deadline, start + std::chrono::duration_cast<Clock::duration>(
                                                     std::chrono::duration<double>(policy.max_time_s)));
  while (static_cast<int>(samples.size()) < policy.max_samples) {
    ctx.check_interrupted();
    bool enough =
        static_cast<int>(samples.size()) >= policy.min_samples && seconds_since(start) >= policy.min_time_s;
    if (enough || (Clock::now() >= deadline && samples.size() >= 3)) break;
    if (Clock::now() >= deadline + std::chrono::seconds(5)) break;
    samples.push_back(sample());
  }
  if (samples.size() < 3) {
    throw Error(fmt::format("only {} samples fit in the time budget; raise the budget or shrink the case",
                            samples.size()));
  }
  return samples;
}

}  // namespace mlbench
