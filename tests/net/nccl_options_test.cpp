// net.nccl options per profile, their errors, and the plan (cases, sizes dropped for too many ranks, the free
// memory cap).
#include "network/nccl_options.hpp"

#include <gtest/gtest.h>

#include "base/error.hpp"

namespace mlbench::net {
namespace {

constexpr std::uint64_t kMiB = 1 << 20;
constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

TEST(NcclOptions, DefaultProfileIsTheFullNcclTestsSweep) {
  auto o = parse_nccl_options(Json::object(), Profile::standard);
  EXPECT_EQ(o.ops.size(), 7u);
  EXPECT_EQ(o.dtypes, std::vector<DataType>{DataType::float32});
  EXPECT_EQ(o.min_bytes, 8u);
  EXPECT_EQ(o.max_bytes, 8 * kGiB);
  EXPECT_EQ(o.factor, 2);
  EXPECT_TRUE(o.in_place && o.out_of_place);
}

TEST(NcclOptions, QuickIsAHandfulOfSizesFullIsEveryType) {
  auto q = parse_nccl_options(Json::object(), Profile::quick);
  EXPECT_EQ(q.ops.size(), 3u);
  EXPECT_EQ(sweep_sizes(q.min_bytes, q.max_bytes, q.factor).size(), 5u);
  auto f = parse_nccl_options(Json::object(), Profile::full);
  EXPECT_EQ(f.dtypes.size(), 4u);
  EXPECT_GT(f.iters, q.iters);
}

TEST(NcclOptions, FlagsOverrideTheProfile) {
  auto o = parse_nccl_options(Json{{"ops", {"all_reduce,broadcast"}},
                                   {"dtype", {"bf16", "int8"}},
                                   {"min_bytes", "1K"},
                                   {"max_bytes", "64M"},
                                   {"factor", 4},
                                   {"iters", 7},
                                   {"warmup", 0},
                                   {"timeout", "90s"},
                                   {"placement", "out"},
                                   {"timing", "nonblocking"}},
                              Profile::quick);
  EXPECT_EQ(o.ops, (std::vector<Collective>{Collective::all_reduce, Collective::broadcast}));
  EXPECT_EQ(o.dtypes, (std::vector<DataType>{DataType::bf16, DataType::int8}));
  EXPECT_EQ(o.min_bytes, 1024u);
  EXPECT_EQ(o.max_bytes, 64 * kMiB);
  EXPECT_EQ(o.iters, 7);
  EXPECT_EQ(o.warmup, 0);
  EXPECT_DOUBLE_EQ(o.timeout_s, 90);
  EXPECT_FALSE(o.in_place);
  EXPECT_FALSE(o.blocking);
  EXPECT_TRUE(parse_nccl_options(Json::object(), Profile::quick).blocking)
      << "blocking, as nccl-tests, by default";
}

TEST(NcclOptions, BadInputIsAUsageError) {
  auto bad = [](Json j) { EXPECT_THROW(parse_nccl_options(j, Profile::standard), UsageError) << j.dump(); };
  bad({{"min_bytes", "1G"}, {"max_bytes", "1M"}});
  bad({{"factor", 1}});
  bad({{"factor", 0.5}});
  bad({{"ops", {"allreduce"}}});
  bad({{"dtype", {"fp64"}}});
  bad({{"iters", 0}});
  bad({{"timeout", 0}});
  bad({{"placement", "sideways"}});
  bad({{"bogus", 1}});
  bad({{"gpus", 0}});
  bad({{"gpus", 1}});  // a one-rank world measures no link (collectives.hpp kMinRanks)
  bad({{"timing", "async"}});
  bad({{"timing", true}});
  try {
    parse_nccl_options(Json{{"bogus", 1}}, Profile::standard);
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("gpus, timing"), std::string::npos) << e.what();
  }
}

TEST(NcclOptions, PlanHasInPlaceOnlyWhereNcclDefinesIt) {
  auto o = parse_nccl_options(Json{{"min_bytes", "1M"}, {"max_bytes", "4M"}}, Profile::standard);
  auto plan = plan_nccl(o, 8, std::nullopt);
  // 7 out-of-place + in-place for all_reduce, all_gather, reduce_scatter, broadcast, reduce.
  EXPECT_EQ(plan.cases.size(), 12u);
  for (const auto& c : plan.cases) {
    if (c.in_place) {
      EXPECT_TRUE(in_place_defined(c.op));
    }
    EXPECT_EQ(c.sizes.size(), 3u);
  }
  EXPECT_FALSE(plan.capped_at.has_value());
}

TEST(NcclOptions, SizesWithoutOneElementPerRankAreDropped) {
  auto o =
      parse_nccl_options(Json{{"ops", {"all_gather", "all_reduce"}}, {"max_bytes", 64}, {"placement", "out"}},
                         Profile::standard);
  auto plan = plan_nccl(o, 8, std::nullopt);
  ASSERT_EQ(plan.cases.size(), 2u);
  EXPECT_EQ(plan.cases[0].op, Collective::all_gather);
  EXPECT_EQ(plan.cases[0].sizes, (std::vector<std::uint64_t>{32, 64}));  // 8 ranks × 4 B at least
  EXPECT_EQ(plan.cases[1].sizes, (std::vector<std::uint64_t>{8, 16, 32, 64}));
}

TEST(NcclOptions, FreeMemoryCapsTheSweep) {
  auto o = parse_nccl_options(Json{{"ops", {"all_reduce"}}, {"min_bytes", "1M"}}, Profile::standard);
  auto plan = plan_nccl(o, 2, kGiB);
  ASSERT_EQ(plan.cases.size(), 2u);
  // A size may take 40 % of the free memory (send + receive: 80 %): 256 MiB of 1 GiB does, 512 MiB not.
  EXPECT_EQ(plan.cases[0].sizes.back(), 256 * kMiB);
  EXPECT_EQ(plan.capped_at, 256 * kMiB);
  EXPECT_THROW(plan_nccl(o, 2, kMiB), UsageError);
}

}  // namespace
}  // namespace mlbench::net
