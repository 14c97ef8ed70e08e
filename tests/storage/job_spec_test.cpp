#include "storage/job_spec.hpp"

#include <gtest/gtest.h>

#include "storage/job.hpp"

namespace mlbench::storage {
namespace {

using nlohmann::json;

TEST(JobSpec, ParsesFioStyleSizesAndTimes) {
  auto s = parse_job_spec(json{{"rw", "randrw"},
                               {"rwmix_read", "70"},
                               {"bs", "128k"},
                               {"iodepth", "32"},
                               {"jobs", 2},
                               {"size", "2G"},
                               {"runtime", "2m"},
                               {"ramp", "5s"},
                               {"stripe", "1M"},
                               {"target", {"/a", "/b"}}});
  EXPECT_EQ(s.rw, RwMode::randrw);
  EXPECT_EQ(s.rwmix_read, 70u);
  EXPECT_EQ(s.bs, 128u * 1024);
  EXPECT_EQ(s.iodepth, 32u);
  EXPECT_EQ(s.jobs, 2u);
  EXPECT_EQ(s.size, 2ull << 30);
  EXPECT_DOUBLE_EQ(s.runtime_s, 120.0);
  EXPECT_DOUBLE_EQ(s.ramp_s, 5.0);
  EXPECT_EQ(s.stripe, 1u << 20);
  // Round trip through the case config.
  auto again = parse_job_spec(to_json(s));
  EXPECT_EQ(again.bs, s.bs);
  EXPECT_EQ(again.stripe, s.stripe);
  EXPECT_EQ(again.targets, s.targets);
  EXPECT_DOUBLE_EQ(again.runtime_s, s.runtime_s);
}

TEST(JobSpec, DefaultsToTenSecondsUnlessCountBound) {
  EXPECT_DOUBLE_EQ(parse_job_spec(json{{"target", "/x"}}).runtime_s, kDefaultRuntime);
  auto s = parse_job_spec(json{{"target", "/x"}, {"number_ios", 100}});
  EXPECT_DOUBLE_EQ(s.runtime_s, 0.0);
  EXPECT_EQ(s.number_ios, 100u);
}

struct BadCase {
  json options;
  const char* mentions;
};

class JobSpecBad : public ::testing::TestWithParam<BadCase> {};

TEST_P(JobSpecBad, IsAUsageErrorNamingTheOption) {
  json o = GetParam().options;
  o["target"] = "/tmp";
  try {
    parse_job_spec(o);
    FAIL() << "accepted " << o.dump();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(GetParam().mentions), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    All, JobSpecBad,
    ::testing::Values(BadCase{{{"iodepth", 0}}, "--iodepth"}, BadCase{{{"iodepth", 4097}}, "--iodepth"},
                      BadCase{{{"iodepth", "-3"}}, "--iodepth"}, BadCase{{{"size", "0"}}, "--size"},
                      BadCase{{{"size", "-1G"}}, "--size"}, BadCase{{{"size", -5}}, "--size"},
                      BadCase{{{"rw", "readwrite"}}, "--rw"}, BadCase{{{"bs", "4q"}}, "--bs"},
                      BadCase{{{"bs", 0}}, "--bs"}, BadCase{{{"jobs", 0}}, "--jobs"},
                      BadCase{{{"rwmix_read", 70}}, "randrw"}, BadCase{{{"runtime", "5x"}}, "--runtime"},
                      BadCase{{{"engine", "aio"}}, "--engine"}, BadCase{{{"stripe", "6k"}}, "--stripe"},
                      BadCase{{{"offset", 100}}, "--offset"}, BadCase{{{"bogus", 1}}, "bogus"},
                      BadCase{{{"cpus", "first"}}, "--cpus"}, BadCase{{{"cpus", "3-1"}}, "--cpus"}));

TEST(SuiteJobs, AreTheSevenReferenceJobs) {
  const auto& jobs = suite_jobs();
  ASSERT_EQ(jobs.size(), 7u);
  EXPECT_EQ(jobs[0].rw, RwMode::randread);
  EXPECT_EQ(jobs[0].iodepth, 1u);
  EXPECT_EQ(jobs[2].jobs, 2u);
  EXPECT_EQ(jobs[2].iodepth, 128u);
  EXPECT_EQ(jobs[4].bs, 1u << 20);
  EXPECT_EQ(jobs[6].rwmix_read, 70u);
  double quick = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i)
    quick += suite_timing(Profile::quick).runtime_s + suite_timing(Profile::quick).ramp_s;
  EXPECT_LE(quick, 30.0);
}

TEST(SuiteFileSize, OutgrowsThePageCacheWhenThereIsRoom) {
  constexpr std::uint64_t kGiB = 1ull << 30;
  std::string warning;
  auto size = suite_file_size(Profile::standard, 24 * kGiB, 80 * kGiB, warning);
  ASSERT_TRUE(size);
  EXPECT_EQ(*size, 36 * kGiB);
  EXPECT_TRUE(warning.empty());
  size = suite_file_size(Profile::standard, 24 * kGiB, 20 * kGiB, warning);
  ASSERT_TRUE(size);
  EXPECT_LT(*size, 20 * kGiB);
  EXPECT_NE(warning.find("page cache"), std::string::npos);
  warning.clear();
  EXPECT_FALSE(suite_file_size(Profile::standard, 24 * kGiB, kGiB, warning));
  EXPECT_NE(warning.find("--storage-dir"), std::string::npos);
  warning.clear();
  size = suite_file_size(Profile::quick, 24 * kGiB, 80 * kGiB, warning);
  ASSERT_TRUE(size);
  EXPECT_EQ(*size, 256ull << 20);
}

TEST(StripeMap, PlacesChunksRoundRobin) {
  constexpr std::uint64_t kChunk = 64 * 1024;
  EXPECT_EQ(stripe_map(0, kChunk, 3).target, 0u);
  EXPECT_EQ(stripe_map(kChunk, kChunk, 3).target, 1u);
  EXPECT_EQ(stripe_map(2 * kChunk + 4096, kChunk, 3).target, 2u);
  EXPECT_EQ(stripe_map(2 * kChunk + 4096, kChunk, 3).offset, 4096u);
  auto loc = stripe_map(7 * kChunk + 100, kChunk, 3);  // chunk 7: target 1, its third chunk
  EXPECT_EQ(loc.target, 1u);
  EXPECT_EQ(loc.offset, 2 * kChunk + 100);
}

}  // namespace
}  // namespace mlbench::storage
