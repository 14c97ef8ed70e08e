#include "storage/cpus.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "bench/error.hpp"
#include "storage/job_spec.hpp"

namespace mlbench::storage {
namespace {

using V = std::vector<int>;

TEST(PinCpus, AutoTakesTheAllowedCpusOfTheDrivesNode) {
  EXPECT_EQ(pin_cpus("auto", V{0, 1, 2, 3, 8, 9}, V{8, 9, 10, 11}), (V{8, 9}));
  // Node unknown, or none of its CPUs allowed (a cgroup elsewhere): every allowed CPU.
  EXPECT_EQ(pin_cpus("auto", V{0, 1, 2}, V{}), (V{0, 1, 2}));
  EXPECT_EQ(pin_cpus("auto", V{0, 1}, V{4, 5}), (V{0, 1}));
}

TEST(PinCpus, NoneAndListsAreTakenAsGiven) {
  EXPECT_TRUE(pin_cpus("none", V{0, 1}, V{0, 1}).empty());
  EXPECT_EQ(pin_cpus("3,1-2", V{0, 1, 2, 3}, V{}), (V{3, 1, 2}));
}

TEST(PinCpus, ListsNamingOtherCpusAreRefusedWithTheAllowedOnes) {
  try {
    pin_cpus("0,7", V{0, 1, 2}, V{});
    FAIL() << "accepted CPU 7";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("CPU 7 is not available to this process (it may use 0,1,2)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(pin_cpus("", V{0}, V{}), UsageError);
  EXPECT_THROW(pin_cpus("auto,1", V{0, 1}, V{}), UsageError);
}

TEST(PinCpus, ThisProcessMayRunSomewhereAndCanBePinnedThere) {
  auto allowed = allowed_cpus();
  ASSERT_FALSE(allowed.empty());
  EXPECT_TRUE(std::is_sorted(allowed.begin(), allowed.end()));
  EXPECT_NE(pin_this_thread(-1), "");
  EXPECT_TRUE(disk_node_cpus("").empty());
  EXPECT_TRUE(disk_node_cpus("../../etc").empty());
}

TEST(PinCpus, TheOptionRoundTripsThroughTheJobSpec) {
  auto s = parse_job_spec(nlohmann::json{{"target", "/x"}, {"cpus", "0-1"}});
  EXPECT_EQ(s.cpus, "0-1");
  EXPECT_EQ(parse_job_spec(to_json(s)).cpus, "0-1");
  EXPECT_EQ(parse_job_spec(nlohmann::json{{"target", "/x"}}).cpus, "auto");
}

}  // namespace
}  // namespace mlbench::storage
