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
                               {"submission", "per_io"},
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
  EXPECT_EQ(s.submission, Submission::per_io);
  // Round trip through the case config.
  auto again = parse_job_spec(to_json(s));
  EXPECT_EQ(again.bs, s.bs);
  EXPECT_EQ(again.stripe, s.stripe);
  EXPECT_EQ(again.submission, s.submission);
  EXPECT_EQ(again.targets, s.targets);
  EXPECT_DOUBLE_EQ(again.runtime_s, s.runtime_s);
}

TEST(JobSpec, DefaultsToTenSecondsUnlessCountBound) {
  EXPECT_DOUBLE_EQ(parse_job_spec(json{{"target", "/x"}}).runtime_s, kDefaultRuntime);
  auto s = parse_job_spec(json{{"target", "/x"}, {"number_ios", 100}});
  EXPECT_DOUBLE_EQ(s.runtime_s, 0.0);
  EXPECT_EQ(s.number_ios, 100u);
}

// JobSpec's member defaults (the suite builds specs from them) are the option table's.
TEST(JobSpec, TheTablesDefaultsAreJobSpecs) {
  const JobSpec d;
  auto s = parse_job_spec(json{{"target", "/x"}});
  EXPECT_EQ(to_json(s), to_json([&] {
              JobSpec t = d;
              t.targets = {"/x"};
              t.runtime_s = kDefaultRuntime;
              return t;
            }()));
  EXPECT_EQ(parse_job_spec(json{{"target", "/x"}, {"rw", "randrw"}}).rwmix_read, d.rwmix_read);
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
                      BadCase{{{"cpus", "first"}}, "--cpus"}, BadCase{{{"cpus", "3-1"}}, "--cpus"},
                      BadCase{{{"submission", "each"}}, "--submission"},
                      BadCase{{{"submission", "batched"}, {"engine", "psync"}}, "--engine uring"}));

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

// The ramp [0, 8 s): the trial runs in its second half, slices [4,5) batched, [5,6) [6,7) per-I/O, [7,8)
// batched.
constexpr std::uint64_t kS = 1'000'000'000;

TEST(SubmissionTrial, RandomJobsKeepTheModeThatCompletedMore) {
  SubmissionTrial::Tally tally;
  SubmissionTrial t(Submission::automatic, true, 16, 0, 8.0, tally);
  ASSERT_TRUE(t.trial());
  EXPECT_FALSE(t.per_io(3 * kS));  // first half: batched
  EXPECT_FALSE(t.per_io(4 * kS));
  EXPECT_TRUE(t.per_io(5 * kS));
  EXPECT_TRUE(t.per_io(7 * kS - 1));
  EXPECT_FALSE(t.per_io(7 * kS));
  t.completed(3 * kS, 1000);  // before the trial: not counted
  t.completed(4 * kS, 100);
  t.completed(5 * kS, 120);
  t.completed(6 * kS + 1, 130);
  t.completed(7 * kS, 140);   // drift: later slices are faster, ABBA cancels it
  t.completed(8 * kS, 1000);  // after the trial: not counted
  EXPECT_DOUBLE_EQ(t.batched_iops(), 120.0);
  EXPECT_DOUBLE_EQ(t.per_io_iops(), 125.0);
  EXPECT_TRUE(t.per_io(8 * kS));
  EXPECT_TRUE(t.per_io(UINT64_MAX));

  SubmissionTrial::Tally tie;
  SubmissionTrial b(Submission::automatic, true, 16, 0, 8.0, tie);
  b.completed(4 * kS, 150);
  b.completed(5 * kS, 150);
  EXPECT_FALSE(b.per_io(UINT64_MAX)) << "a tie keeps batched";
}

// A job's threads count into one tally; the first past the trial decides, and the others follow even when
// their own view would differ.
TEST(SubmissionTrial, ThreadsOfAJobDecideTogether) {
  SubmissionTrial::Tally tally;
  SubmissionTrial a(Submission::automatic, true, 16, 0, 8.0, tally);
  SubmissionTrial b(Submission::automatic, true, 16, 0, 8.0, tally);
  a.completed(4 * kS, 100);
  b.completed(4 * kS + 1, 100);
  a.completed(5 * kS, 90);
  b.completed(5 * kS, 150);  // per-I/O ahead only with b's completions: 240 vs 200
  EXPECT_DOUBLE_EQ(a.per_io_iops(), 120.0);
  EXPECT_TRUE(a.per_io(8 * kS));
  b.completed(7 * kS, 500);  // too late: a decided
  EXPECT_TRUE(b.per_io(8 * kS + 1));
  EXPECT_EQ(tally.decision.load(), 1);
}

TEST(SubmissionTrial, FixedModesShortRampsAndDepthOneRunNoTrial) {
  SubmissionTrial::Tally tally;
  auto make = [&](Submission mode, bool random, unsigned depth, double ramp) {
    return SubmissionTrial(mode, random, depth, 0, ramp, tally);
  };
  // Sequential: per I/O (a batch would be plug-merged); random without a long enough ramp: batched.
  EXPECT_TRUE(make(Submission::automatic, false, 16, 8.0).per_io(0));
  EXPECT_FALSE(make(Submission::automatic, false, 16, 8.0).trial());
  auto short_ramp = make(Submission::automatic, true, 16, SubmissionTrial::kMinRamp / 2);
  EXPECT_FALSE(short_ramp.trial());
  EXPECT_FALSE(short_ramp.per_io(UINT64_MAX));
  EXPECT_EQ(short_ramp.batched_iops(), 0.0);
  for (bool random : {true, false}) {
    // Depth 1: nothing to batch or merge, and the submission rides on the wait.
    auto qd1 = make(Submission::automatic, random, 1, 8.0);
    EXPECT_FALSE(qd1.trial());
    EXPECT_FALSE(qd1.per_io(5 * kS + kS / 2));
    EXPECT_TRUE(make(Submission::per_io, random, 16, 8.0).per_io(4 * kS + kS / 2));
    EXPECT_FALSE(make(Submission::batched, random, 16, 8.0).per_io(5 * kS + kS / 2));
    EXPECT_FALSE(make(Submission::per_io, random, 16, 8.0).trial());
  }
  EXPECT_EQ(tally.decision.load(), -1) << "no trial, no decision";
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
