#include "storage/cpus.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "base/error.hpp"
#include "storage/io/job_spec.hpp"

namespace mlbench::storage {
namespace {

using V = std::vector<int>;

TEST(PinCpus, AutoTakesTheAllowedCpusOfTheDrivesNodeInterruptCpusFirst) {
  EXPECT_EQ(pin_cpus("auto", V{0, 1, 2, 3, 8, 9}, V{8, 9, 10, 11}, V{}), (V{8, 9}));
  EXPECT_EQ(pin_cpus("auto", V{0, 1, 2, 3, 8, 9}, V{8, 9, 10, 11}, V{3, 9}), (V{9, 8}));
  // A single-queue disk interrupting CPU 1 of a two-CPU machine: one job on CPU 1, a second on CPU 0.
  EXPECT_EQ(pin_cpus("auto", V{0, 1}, V{0, 1}, V{1}), (V{1, 0}));
  // Node unknown, or none of its CPUs allowed (a cgroup elsewhere): every allowed CPU.
  EXPECT_EQ(pin_cpus("auto", V{0, 1, 2}, V{}, V{2}), (V{2, 0, 1}));
  EXPECT_EQ(pin_cpus("auto", V{0, 1}, V{4, 5}, V{}), (V{0, 1}));
}

TEST(PinCpus, BusyInterruptsAreTheQueueVectors) {
  // virtio-blk: the configuration vector fired once; the queue vector is the one completions come on.
  std::map<int, std::uint64_t> virtio{{0, 44}, {35, 1}, {36, 18958154}};
  EXPECT_EQ(busy_irqs(V{35, 36}, virtio), (V{36}));
  // NVMe: every queue vector busy, the admin vector not.
  std::map<int, std::uint64_t> nvme{{50, 12}, {51, 90000}, {52, 120000}, {53, 70000}};
  EXPECT_EQ(busy_irqs(V{53, 52, 51, 50}, nvme), (V{51, 52, 53}));
  // Nothing fired yet, or unknown numbers: none.
  EXPECT_TRUE(busy_irqs(V{60, 61}, std::map<int, std::uint64_t>{{60, 0}}).empty());
}

TEST(PinCpus, NoneAndListsAreTakenAsGiven) {
  EXPECT_TRUE(pin_cpus("none", V{0, 1}, V{0, 1}, V{1}).empty());
  EXPECT_EQ(pin_cpus("3,1-2", V{0, 1, 2, 3}, V{}, V{2}), (V{3, 1, 2}));
}

TEST(PinCpus, ListsNamingOtherCpusAreRefusedWithTheAllowedOnes) {
  try {
    pin_cpus("0,7", V{0, 1, 2}, V{}, V{});
    FAIL() << "accepted CPU 7";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("CPU 7 is not available to this process (it may use 0,1,2)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(pin_cpus("", V{0}, V{}, V{}), UsageError);
  EXPECT_THROW(pin_cpus("auto,1", V{0, 1}, V{}, V{}), UsageError);
}

TEST(PinCpus, AllowedCpusAreSortedAndUnknownDisksGiveNone) {
  auto allowed = allowed_cpus();
  ASSERT_FALSE(allowed.empty());
  EXPECT_TRUE(std::is_sorted(allowed.begin(), allowed.end()));
  EXPECT_NE(pin_this_thread(-1), "");
  const SysReader sys;
  EXPECT_TRUE(disk_node_cpus("", sys).empty());
  EXPECT_TRUE(disk_node_cpus("../../etc", sys).empty());
  EXPECT_TRUE(disk_irq_cpus("", sys).empty());
  EXPECT_TRUE(disk_irq_cpus("no-such-disk", sys).empty());
}

TEST(PinCpus, TheDrivesNodeComesFromItsPciFunction) {
  const SysReader fixture(std::filesystem::path(MLBENCH_TEST_DATA_DIR) / "sysfs/two_socket");
  EXPECT_EQ(disk_node_cpus("nvme1n1", fixture), (V{4, 5, 6, 7, 12, 13, 14, 15}));
  EXPECT_TRUE(disk_node_cpus("nvme0n1", fixture).empty());  // no numa_node: unknown
}

TEST(PinCpus, TheOptionRoundTripsThroughTheJobSpec) {
  auto s = parse_job_spec(nlohmann::json{{"target", "/x"}, {"cpus", "0-1"}});
  EXPECT_EQ(s.cpus, "0-1");
  EXPECT_EQ(parse_job_spec(to_json(s)).cpus, "0-1");
  EXPECT_EQ(parse_job_spec(nlohmann::json{{"target", "/x"}}).cpus, "auto");
}

}  // namespace
}  // namespace mlbench::storage
