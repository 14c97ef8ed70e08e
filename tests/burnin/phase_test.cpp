// The phase seam: a context is past its deadline when the deadline passes or SIGINT sets the stop flag, and
// the phase names are the ones --phases takes.
#include "burnin/phase.hpp"

#include <gtest/gtest.h>

namespace mlbench::burnin {
namespace {

TEST(BurninPhaseContext, PastDeadlineOnTimeOrStop) {
  const Json host = Json::object();
  std::atomic<bool> stop{false};
  PhaseContext later{host, std::chrono::steady_clock::now() + std::chrono::hours(1), stop};
  EXPECT_FALSE(later.past_deadline());
  stop = true;
  EXPECT_TRUE(later.stopping());
  EXPECT_TRUE(later.past_deadline());
  std::atomic<bool> calm{false};
  PhaseContext earlier{host, std::chrono::steady_clock::now() - std::chrono::seconds(1), calm};
  EXPECT_TRUE(earlier.past_deadline());
  EXPECT_FALSE(earlier.stopping());
}

TEST(BurninPhaseNames, AreTheCommandLineSpellings) {
  EXPECT_EQ(to_string(PhaseId::host_memory), "hostmem");
  EXPECT_EQ(value_of(kPhaseNames, "storage"), PhaseId::storage);
  EXPECT_FALSE(value_of(kPhaseNames, "cooldown").has_value());
}

}  // namespace
}  // namespace mlbench::burnin
