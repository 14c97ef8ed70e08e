#include "bench/disk_stats.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/storage/storage_test_util.hpp"

namespace mlbench {
namespace {

// A 5.x kernel's /sys/block/nvme0n1/stat: 17 fields (reads, writes, in flight, io_ticks, time_in_queue,
// discards, flushes).
constexpr const char* kStat =
    "  123456     789  9876543   45678   234567     890  8765432   56789        2    98765   102467   0 0 0 "
    "0 "
    "12 34\n";

TEST(DiskStats, ParsesTheCountersOfAStatFile) {
  auto d = parse_disk_stat("nvme0n1", kStat);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->name, "nvme0n1");
  EXPECT_EQ(d->read_ios, 123456u);
  EXPECT_EQ(d->read_merges, 789u);
  EXPECT_EQ(d->read_sectors, 9876543u);
  EXPECT_EQ(d->read_ticks, 45678u);
  EXPECT_EQ(d->write_ios, 234567u);
  EXPECT_EQ(d->write_merges, 890u);
  EXPECT_EQ(d->write_sectors, 8765432u);
  EXPECT_EQ(d->write_ticks, 56789u);
  EXPECT_EQ(d->io_ticks, 98765u);
  EXPECT_EQ(d->in_queue, 102467u);
  // An old kernel's 11 fields are enough; fewer, or a field that is not a number, is no statistic.
  EXPECT_TRUE(parse_disk_stat("sda", "1 2 3 4 5 6 7 8 9 10 11"));
  EXPECT_FALSE(parse_disk_stat("sda", "1 2 3 4 5 6 7 8 9 10"));
  EXPECT_FALSE(parse_disk_stat("sda", "1 2 3 4 5 6 7 8 9 10 x"));
  EXPECT_FALSE(parse_disk_stat("sda", ""));
}

// util is fio's: the share of the window the disk had I/O in flight, at most 100 %; deltas of rounds add up.
TEST(DiskStats, DeltaAndUtilisationOverTheWindow) {
  auto before = *parse_disk_stat("vda", "100 1 800 50 200 2 1600 60 0 1000 2000");
  auto after = *parse_disk_stat("vda", "1100 3 8800 550 700 2 5600 360 1 1750 4000");
  DiskStat d = disk_delta(after, before, 1500.0);
  EXPECT_EQ(d.read_ios, 1000u);
  EXPECT_EQ(d.read_merges, 2u);
  EXPECT_EQ(d.write_ios, 500u);
  EXPECT_EQ(d.write_merges, 0u);
  EXPECT_EQ(d.read_ticks, 500u);
  EXPECT_EQ(d.write_ticks, 300u);
  EXPECT_EQ(d.io_ticks, 750u);
  EXPECT_EQ(d.in_queue, 2000u);
  EXPECT_DOUBLE_EQ(disk_util_pct(d), 50.0);
  add_disk_stat(d, disk_delta(after, before, 500.0));
  EXPECT_DOUBLE_EQ(disk_util_pct(d), 75.0);               // 1,500 ms busy of 2,000
  EXPECT_EQ(disk_delta(before, after, 10).read_ios, 0u);  // a counter that went back (a reset) counts 0
  EXPECT_DOUBLE_EQ(disk_util_pct(disk_delta(after, before, 100)), 100.0);
  EXPECT_DOUBLE_EQ(disk_util_pct(DiskStat{}), 0.0);
  const DiskStat back = disk_stat_from_json(to_json(d));
  EXPECT_EQ(to_json(back), to_json(d));
  for (const char* key : {"name", "read_ios", "write_ios", "read_merges", "write_merges", "read_ticks",
                          "write_ticks", "in_queue", "util"})
    EXPECT_TRUE(to_json(d).contains(key)) << key;
}

// The disks of a target: its own, and for a device-mapper or md device those under it, each read from
// /sys/class/block (a slave may be a partition).
TEST(DiskStats, ReadsTheDiskAndTheDisksUnderIt) {
  storage::test::TempDir root;
  const auto write = [&](const std::string& rel, const std::string& text) {
    std::filesystem::create_directories((root.path() / rel).parent_path());
    std::ofstream(root.path() / rel) << text;
  };
  write("sys/block/dm-0/slaves/nvme0n1p1", "");
  write("sys/block/dm-0/slaves/nvme1n1p1", "");
  write("sys/class/block/dm-0/stat", "1 0 8 1 0 0 0 0 0 1 1\n");
  write("sys/class/block/nvme0n1p1/stat", "2 0 16 1 0 0 0 0 0 1 1\n");
  const SysReader sys(root.path());
  EXPECT_EQ(stat_disks("dm-0", sys), (std::vector<std::string>{"dm-0", "nvme0n1p1", "nvme1n1p1"}));
  EXPECT_EQ(stat_disks("", sys), std::vector<std::string>{});
  ASSERT_TRUE(read_disk_stat("nvme0n1p1", sys));
  EXPECT_EQ(read_disk_stat("nvme0n1p1", sys)->read_ios, 2u);
  EXPECT_FALSE(read_disk_stat("nvme1n1p1", sys));  // no stat file
  EXPECT_FALSE(read_disk_stat("../../etc", sys));
}

}  // namespace
}  // namespace mlbench
