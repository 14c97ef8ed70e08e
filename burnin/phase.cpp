// The phase seam's shared pieces (burnin/phase.hpp).
#include "burnin/phase.hpp"

namespace mlbench::burnin {

bool PhaseContext::stopping() const { return stop.load(std::memory_order_relaxed); }

bool PhaseContext::past_deadline() const {
  return stopping() || std::chrono::steady_clock::now() >= deadline;
}

}  // namespace mlbench::burnin
