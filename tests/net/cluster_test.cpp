// Rank 0's decision from the hellos and the merge of other ranks' results.
#include "network/cluster.hpp"

#include <gtest/gtest.h>

namespace mlbench::net {
namespace {

Json hello(int rank, const std::string& node, const char* bus, std::uint64_t free_bytes) {
  return Json{{"rank", rank}, {"node", node}, {"bus_id", bus}, {"free_bytes", free_bytes}};
}

TEST(Cluster, RunsWithTheSmallestFreeMemory) {
  auto d = decide_world({hello(0, "a", "0000:1b:00.0", 80), hello(1, "a", "0000:1c:00.0", 60),
                         hello(2, "b", "0000:1b:00.0", 70)});
  EXPECT_EQ(d["run"], true);
  EXPECT_EQ(d["free_bytes"], 60);
}

TEST(Cluster, TwoRanksOnOneGpuIsALaunchError) {
  auto d = decide_world({hello(0, "a", "0000:1b:00.0", 80), hello(1, "a", "0000:1b:00.0", 80)});
  ASSERT_TRUE(d.contains("error"));
  EXPECT_NE(d["error"].get<std::string>().find("ranks 0 and 1 on a would share GPU"), std::string::npos);
}

TEST(Cluster, AnyRankWithoutAGpuSkipsTheWorld) {
  Json no_gpu{{"rank", 1}, {"node", "b"}, {"skip_reason", "no CUDA GPU visible to rank 1 on b"}};
  Json no_gpu2{{"rank", 2}, {"node", "c"}, {"skip_reason", "no CUDA GPU visible to rank 2 on c"}};
  auto d = decide_world({hello(0, "a", "0000:1b:00.0", 80), no_gpu, no_gpu2});
  EXPECT_EQ(d["skip"], "no CUDA GPU visible to rank 1 on b (and 1 more rank)");
}

Result result(const char* bytes, Status s, const char* reason = "") {
  Result r;
  r.probe = "net.nccl";
  r.params = Json{{"collective", "all_reduce"}, {"bytes", bytes}};
  r.status = s;
  r.reason = reason;
  return r;
}

TEST(Cluster, MergeKeepsTheWorstStatusAndNamesTheRank) {
  std::vector<Result> root{result("8", Status::ok), result("16", Status::ok),
                           result("32", Status::failed, "x")};
  merge_rank_results(root, 3,
                     {result("8", Status::ok), result("16", Status::incorrect, "2 wrong"),
                      result("32", Status::failed, "y"), result("64", Status::failed, "only on 3")});
  EXPECT_EQ(root[0].status, Status::ok);
  EXPECT_EQ(root[1].status, Status::incorrect);
  EXPECT_EQ(root[1].reason, "rank 3: 2 wrong");
  EXPECT_EQ(root[2].reason, "x");
  ASSERT_EQ(root.size(), 4u);
  EXPECT_EQ(root[3].reason, "rank 3: only on 3");
}

}  // namespace
}  // namespace mlbench::net
