#include "storage/io/job.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cmath>
#include <thread>

#include "storage/cpus.hpp"
#include "storage/engine.hpp"
#include "storage/pattern.hpp"
#include "storage/target.hpp"
#include "tests/storage/storage_test_util.hpp"

namespace mlbench::storage {
namespace {

constexpr std::uint64_t kFill = 0x1234;
constexpr std::uint64_t kWrite = 0x5678;
std::atomic<bool> g_no_stop{false};

auto far_deadline() { return std::chrono::steady_clock::now() + std::chrono::seconds(60); }

EngineKind best_engine() {
  return uring_unavailable_reason().empty() ? EngineKind::uring : EngineKind::psync;
}

struct Files {
  test::TempDir dir;
  std::vector<OpenTarget> open;
};

JobPlan make_plan(Files& f, unsigned ntargets, std::uint64_t size, JobSpec spec) {
  JobPlan plan;
  auto info = inspect_target(f.dir.path().string());
  for (unsigned i = 0; i < ntargets; ++i) {
    f.open.push_back(OpenTarget::create_in(info, size, target_seed(kFill, i), true, false, g_no_stop));
    spec.targets.push_back(f.open.back().path());
  }
  for (const auto& o : f.open) plan.targets.push_back({o.path(), o.fd(), 0, o.size(), true});
  plan.spec = spec;
  plan.engine = best_engine();
  plan.fill_seed = kFill;
  plan.write_seed = kWrite;
  return plan;
}

TEST(RunJob, CountBoundJobsCompleteExactlyTheirIos) {
  Files f;
  JobSpec s;
  s.rw = RwMode::randread;
  s.iodepth = 8;
  s.jobs = 2;
  s.number_ios = 1000;
  auto plan = make_plan(f, 1, 8 << 20, s);
  auto out = run_job(plan, g_no_stop, far_deadline());
  EXPECT_EQ(out.threads, 2u);
  EXPECT_EQ(out.total.ios, 2000u);
  EXPECT_EQ(out.total.reads, 2000u);
  EXPECT_EQ(out.total.writes, 0u);
  EXPECT_EQ(out.total.bytes, 2000u * 4096);
  EXPECT_EQ(out.total.lat.count(), 2000u);
  EXPECT_GT(out.last_done_s, 0.0);
  EXPECT_LE(out.first_done_s, out.last_done_s);
  EXPECT_GE(out.cpu_s, 0.0);
}

TEST(RunJob, IoSizeBoundsBytesPerThread) {
  Files f;
  JobSpec s;
  s.rw = RwMode::read;
  s.bs = 65536;
  s.iodepth = 4;
  s.io_size = 3 << 20;
  auto plan = make_plan(f, 1, 8 << 20, s);
  auto out = run_job(plan, g_no_stop, far_deadline());
  EXPECT_EQ(out.total.bytes, 3u << 20);
  EXPECT_EQ(out.total.ios, 48u);
}

TEST(RunJob, ReadsOfTheCreatedFileCarryItsPattern) {
  Files f;
  JobSpec s;
  s.rw = RwMode::randread;
  s.iodepth = 16;
  s.number_ios = 2000;
  s.verify = true;
  auto plan = make_plan(f, 1, 4 << 20, s);
  auto out = run_job(plan, g_no_stop, far_deadline());
  EXPECT_EQ(out.verify_checked, 2000u);
  EXPECT_EQ(out.verify_bad, 0u);
}

TEST(RunJob, VerifyCatchesACorruptedBlock) {
  Files f;
  JobSpec s;
  s.rw = RwMode::read;
  s.iodepth = 4;
  s.verify = true;
  auto plan = make_plan(f, 1, 1 << 20, s);
  plan.spec.number_ios = 256;  // every block once
  int fd = ::open(plan.targets[0].path.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::pwrite(fd, "garbage!", 8, 40960 + 16), 8);
  ::fsync(fd);
  ::close(fd);
  auto out = run_job(plan, g_no_stop, far_deadline());
  EXPECT_EQ(out.verify_checked, 256u);
  EXPECT_EQ(out.verify_bad, 1u);
  EXPECT_NE(out.verify_first_bad.find("offset 40960"), std::string::npos) << out.verify_first_bad;
}

TEST(RunJob, RandomWritesReadBackIdentical) {
  Files f;
  JobSpec s;
  s.rw = RwMode::randwrite;
  s.iodepth = 16;
  s.jobs = 2;
  s.number_ios = 1500;
  s.verify = true;
  auto plan = make_plan(f, 1, 4 << 20, s);
  auto out = run_job(plan, g_no_stop, far_deadline());
  EXPECT_EQ(out.total.writes, 3000u);
  EXPECT_EQ(out.verify_checked, 1024u);  // every block: written ones and prefilled ones
  EXPECT_EQ(out.verify_bad, 0u);
}

// Writes completing in the ramp and the in-flight ones drained after the runtime land on the file as well
// as the measured ones: the read-back must expect the write pattern there too. A time-bound job at QD16
// always ends with a tail in flight, and on a 16 MiB file most of its 32 blocks were not written before;
// repeated, since without a ramp only the tail was missed (in about every second run of a larger file).
TEST(RunJob, TimedWritesWithARampAndATailReadBackIdentical) {
  for (double ramp : {0.0, 0.1}) {
    for (int run = 0; run < 5; ++run) {
      Files f;
      JobSpec s;
      s.rw = RwMode::randwrite;
      s.iodepth = 16;
      s.jobs = 2;
      s.ramp_s = ramp;
      s.runtime_s = 0.1;
      s.verify = true;
      auto plan = make_plan(f, 1, 16 << 20, s);
      auto out = run_job(plan, g_no_stop, far_deadline());
      ASSERT_GT(out.total.writes, 0u);
      EXPECT_EQ(out.verify_checked, 4096u);
      EXPECT_EQ(out.verify_bad, 0u) << "ramp " << ramp << " run " << run << ": first bad "
                                    << out.verify_first_bad;
    }
  }
}

TEST(RunJob, MixedReadWriteFollowsTheMix) {
  Files f;
  JobSpec s;
  s.rw = RwMode::randrw;
  s.rwmix_read = 70;
  s.iodepth = 8;
  s.number_ios = 4000;
  auto plan = make_plan(f, 1, 4 << 20, s);
  auto out = run_job(plan, g_no_stop, far_deadline());
  EXPECT_EQ(out.total.reads + out.total.writes, 4000u);
  EXPECT_NEAR(static_cast<double>(out.total.reads) / 4000.0, 0.70, 0.05);
}

TEST(RunJob, StripesSequentialWritesEvenlyAcrossTargets) {
  Files f;
  JobSpec s;
  s.rw = RwMode::write;
  s.bs = 16384;
  s.iodepth = 8;
  s.stripe = 65536;
  s.verify = true;
  constexpr std::uint64_t kPer = 1 << 20;
  auto plan = make_plan(f, 3, kPer, s);
  plan.spec.number_ios = 3 * kPer / s.bs;  // the whole striped region exactly once
  auto out = run_job(plan, g_no_stop, far_deadline());
  ASSERT_EQ(out.per_target.size(), 3u);
  for (const auto& t : out.per_target) {
    EXPECT_EQ(t.ios, kPer / s.bs);
    EXPECT_EQ(t.bytes, kPer);
  }
  EXPECT_EQ(out.total.bytes, 3 * kPer);
  EXPECT_EQ(out.verify_checked, 3 * kPer / s.bs);
  EXPECT_EQ(out.verify_bad, 0u);
  // Chunk 1 of the striped space is the first chunk of target 1: its bytes hold the write pattern there.
  std::string t1 = test::slurp(plan.targets[1].path);
  ASSERT_EQ(t1.size(), kPer);
  EXPECT_TRUE(matches_pattern(std::as_bytes(std::span(t1.data(), 65536)), target_seed(kWrite, 1), 0));
}

// A round of a suite job (JobPlan::seq_start) goes on where the rounds before it left the region: a
// sequential writer starting half-way writes the second half, and the first keeps the fill.
TEST(RunJob, ASequentialRoundStartsItsShareIntoTheRegion) {
  Files f;
  JobSpec s;
  s.rw = RwMode::write;
  s.bs = 65536;
  s.iodepth = 4;
  s.verify = true;  // writes carry the write pattern
  constexpr std::uint64_t kSize = 1 << 20;
  auto plan = make_plan(f, 1, kSize, s);
  plan.spec.number_ios = kSize / 2 / s.bs;
  plan.seq_start = 0.5;
  run_job(plan, g_no_stop, far_deadline());
  const std::string data = test::slurp(plan.targets[0].path);
  ASSERT_EQ(data.size(), kSize);
  const auto bytes = std::as_bytes(std::span(data.data(), data.size()));
  EXPECT_TRUE(matches_pattern(bytes.first(kSize / 2), target_seed(kFill, 0), 0));
  EXPECT_TRUE(matches_pattern(bytes.last(kSize / 2), target_seed(kWrite, 0), kSize / 2));
}

TEST(RunJob, IndependentTargetsEachGetTheirOwnThreads) {
  Files f;
  JobSpec s;
  s.rw = RwMode::randread;
  s.iodepth = 4;
  s.number_ios = 500;
  auto plan = make_plan(f, 2, 2 << 20, s);
  auto out = run_job(plan, g_no_stop, far_deadline());
  EXPECT_EQ(out.threads, 2u);
  EXPECT_EQ(out.per_target[0].ios, 500u);
  EXPECT_EQ(out.per_target[1].ios, 500u);
}

TEST(RunJob, RuntimeBoundJobExcludesTheRamp) {
  Files f;
  JobSpec s;
  s.rw = RwMode::randread;
  s.iodepth = 4;
  s.runtime_s = 0.4;
  s.ramp_s = 0.2;
  auto plan = make_plan(f, 1, 4 << 20, s);
  auto out = run_job(plan, g_no_stop, far_deadline());
  EXPECT_GT(out.total.ios, 0u);
  EXPECT_NEAR(out.last_done_s, 0.4, 1e-6);
  EXPECT_FALSE(out.intervals.iops.empty());
  EXPECT_DOUBLE_EQ(out.warmup_s, 0.2);
}

TEST(RunJob, LatencyPercentilesGetPerIntervalValues) {
  Files f;
  JobSpec s;
  s.rw = RwMode::randread;
  s.iodepth = 4;
  s.jobs = 2;
  s.runtime_s = 1.0;  // 0.1 s intervals: ~10 a thread
  auto plan = make_plan(f, 1, 4 << 20, s);
  plan.engine = EngineKind::null;  // ≥ 1,000s of I/Os an interval even in a sanitizer build
  auto out = run_job(plan, g_no_stop, far_deadline());
  // The ~10 intervals of each of the two threads, bar a last partial one; a thread that a loaded machine
  // starts late has fewer, so the bound asks for most of one thread's, not all of both.
  EXPECT_GE(out.intervals.lat[0].size(), 8u);
  const double lo = static_cast<double>(out.total.lat.min()) * 1e-9;
  const double hi = static_cast<double>(out.total.lat.max()) * 1e-9;
  for (std::size_t q = 0; q < kLatencyPercentiles.size(); ++q) {
    SCOPED_TRACE(kLatencyPercentiles[q].first);
    for (double v : out.intervals.lat[q]) {
      EXPECT_GE(v, lo * 0.99);
      EXPECT_LE(v, hi * 1.01);
    }
    // Every interval gives every percentile, a rarer one no smaller than a commoner one.
    ASSERT_EQ(out.intervals.lat[q].size(), out.intervals.lat[0].size());
    if (q > 0) {
      for (std::size_t i = 0; i < out.intervals.lat[q].size(); ++i)
        EXPECT_GE(out.intervals.lat[q][i], out.intervals.lat[q - 1][i]);
    }
  }
  // Each interval's slowest I/O and CPU per I/O are samples too.
  EXPECT_EQ(out.intervals.lat_max.size(), out.intervals.lat[0].size());
  for (double v : out.intervals.lat_max) EXPECT_LE(v, hi * 1.0001);
  EXPECT_GE(out.interval_cpu_per_io.size(), 4u);
  for (double v : out.interval_cpu_per_io) EXPECT_GE(v, 0);
}

// A randrw job counts and samples each direction apart: the totals add up, each direction's latencies are its
// own I/Os', and the sampler's per-direction rates add up to the job's.
TEST(RunJob, MixedJobsSampleEachDirection) {
  Files f;
  auto plan =
      make_plan(f, 1, 4 << 20, {.rw = RwMode::randrw, .rwmix_read = 70, .iodepth = 4, .runtime_s = 0.6});
  plan.engine = EngineKind::null;
  auto out = run_job(plan, g_no_stop, far_deadline());
  const IoTotals& t = out.total;
  EXPECT_EQ(t.reads + t.writes, t.ios);
  EXPECT_EQ(t.read_lat.count(), t.reads);
  EXPECT_EQ(t.write_lat.count(), t.writes);
  EXPECT_EQ(t.lat.count(), t.ios);
  EXPECT_GT(t.reads, t.writes);
  ASSERT_EQ(out.read_intervals.iops.size(), out.intervals.iops.size());
  ASSERT_EQ(out.write_intervals.iops.size(), out.intervals.iops.size());
  ASSERT_FALSE(out.intervals.iops.empty());
  for (std::size_t i = 0; i < out.intervals.iops.size(); ++i) {
    EXPECT_NEAR(out.read_intervals.iops[i] + out.write_intervals.iops[i], out.intervals.iops[i],
                1e-6 * out.intervals.iops[i]);
  }
  EXPECT_FALSE(out.read_intervals.lat[0].empty());
  EXPECT_FALSE(out.write_intervals.lat[0].empty());
  EXPECT_FALSE(out.write_intervals.lat_max.empty());
}

// fio runs without a ramp by default; a time-bound random job at depth > 1 without one gets a short ramp of
// its own for the submission trial (defaults no slower than fio's: batched without a trial fell well below
// fio where per-I/O was faster, docs/NOTES.md), excluded from the results and reported with the trial.
TEST(RunJob, ARandomJobWithoutARampGetsOneForTheSubmissionTrial) {
  const JobSpec timed{.rw = RwMode::randwrite, .iodepth = 32, .runtime_s = 5};
  EXPECT_DOUBLE_EQ(warmup_s(timed, true), SubmissionTrial::kTrialRamp);
  EXPECT_DOUBLE_EQ(warmup_s(timed, false), 0);  // psync: nothing to try
  JobSpec s = timed;
  s.ramp_s = 1;
  EXPECT_DOUBLE_EQ(warmup_s(s, true), 1);  // its own ramp is long enough
  s = timed;
  s.submission = Submission::batched;
  EXPECT_DOUBLE_EQ(warmup_s(s, true), 0);
  s = timed;
  s.runtime_s = 0;
  s.number_ios = 1000;
  EXPECT_DOUBLE_EQ(warmup_s(s, true), 0);  // a ramp would spend I/Os of its count
  s = timed;
  s.rw = RwMode::write;
  EXPECT_DOUBLE_EQ(warmup_s(s, true), 0);  // sequential: per I/O, no trial
  s = timed;
  s.iodepth = 1;
  EXPECT_DOUBLE_EQ(warmup_s(s, true), 0);

  if (auto why = uring_unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
  Files f;
  auto plan = make_plan(f, 1, 16 << 20, {.rw = RwMode::randread, .iodepth = 16, .runtime_s = 0.5});
  auto out = run_job(plan, g_no_stop, far_deadline());
  ASSERT_TRUE(out.submission_trial.is_object());
  EXPECT_EQ(out.submission_trial["ramp_added"], true);
  EXPECT_DOUBLE_EQ(out.submission_trial["ramp_s"].get<double>(), SubmissionTrial::kTrialRamp);
  EXPECT_DOUBLE_EQ(out.warmup_s, SubmissionTrial::kTrialRamp);
  EXPECT_EQ(out.engine_features["submission"], out.submission_trial["chosen"]);
  EXPECT_NEAR(out.last_done_s, 0.5, 1e-6);  // the window is the runtime asked for, after the trial
}

// An interval with fewer than 10,000 I/Os has no p99.99 of its own: it gives its slowest I/O, so the tail's
// spread is how much the intervals' tails move (stalls), not nothing.
TEST(RunJob, AnIntervalTooShortForATailGivesItsSlowestIo) {
  Files f;
  auto plan = make_plan(f, 1, 4 << 20, {.rw = RwMode::randread, .iodepth = 1, .runtime_s = 0.5});
  auto out = run_job(plan, g_no_stop, far_deadline());
  const auto& p9999 = out.intervals.lat[kLatencyPercentiles.size() - 1];
  ASSERT_GE(p9999.size(), 2u);
  ASSERT_EQ(p9999.size(), out.intervals.lat_max.size());
  ASSERT_LT(out.total.ios, 10000u * p9999.size());  // fewer than 10,000 I/Os an interval on average
  for (std::size_t i = 0; i < p9999.size(); ++i)
    EXPECT_NEAR(p9999[i], out.intervals.lat_max[i], 0.005 * out.intervals.lat_max[i]);  // bucket midpoint
}

TEST(RunJob, PinnedThreadsRunOnTheirCpus) {
  const auto allowed = allowed_cpus();
  ASSERT_FALSE(allowed.empty());
  Files f;
  auto plan = make_plan(f, 1, 8 << 20, {.rw = RwMode::randread, .iodepth = 4, .jobs = 3, .number_ios = 2000});
  // The last allowed CPU first: thread i takes cpus[i % n], so threads 0 and 2 share it.
  plan.cpus = {allowed.back(), allowed.front()};
  auto out = run_job(plan, g_no_stop, far_deadline());
  ASSERT_EQ(out.thread_cpus.size(), 3u);
  EXPECT_EQ(out.thread_cpus[0], allowed.back());
  EXPECT_EQ(out.thread_cpus[1], allowed.front());
  EXPECT_EQ(out.thread_cpus[2], allowed.back());
  EXPECT_TRUE(out.warnings.empty()) << out.warnings.front();
}

// A random job under --submission auto tries both modes in its ramp, reports what each did and runs the
// faster; a fixed mode is used as given, and sequential jobs default to per-I/O.
TEST(RunJob, SubmissionTrialPicksTheFasterModeAndReportsIt) {
  if (auto why = uring_unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
  Files f;
  // A 1 s window: under a parallel ctest a shared disk can stall for a whole 0.2 s window ("no I/O completed
  // after the ramp"; docs/NOTES.md).
  auto plan = make_plan(f, 1, 16 << 20,
                        {.rw = RwMode::randread, .iodepth = 16, .jobs = 2, .runtime_s = 1.0, .ramp_s = 0.4});
  auto out = run_job(plan, g_no_stop, far_deadline());
  // The threads try the modes together (rates are the job's) and keep one decision.
  const auto& t = out.submission_trial;
  ASSERT_TRUE(t.is_object());
  const double batched = t["batched_iops"], per_io = t["per_io_iops"];
  // Either rate may be 0 when the device stalls for the two adjacent per-I/O slices (seen under a parallel
  // ctest); the choice must follow the rates.
  EXPECT_GT(batched + per_io, 0) << t.dump();
  EXPECT_EQ(t["chosen"], per_io > batched ? "per_io" : "batched") << t.dump();
  EXPECT_EQ(out.engine_features["submission"], t["chosen"]);

  plan.spec.submission = Submission::per_io;
  out = run_job(plan, g_no_stop, far_deadline());
  EXPECT_GT(out.total.ios, 0u);
  EXPECT_TRUE(out.submission_trial.is_null());
  EXPECT_EQ(out.engine_features["submission"], "per_io");

  plan.spec.rw = RwMode::read;
  plan.spec.submission = Submission::automatic;
  out = run_job(plan, g_no_stop, far_deadline());
  EXPECT_TRUE(out.submission_trial.is_null());
  EXPECT_EQ(out.engine_features["submission"], "per_io");
  plan.spec.submission = Submission::batched;
  out = run_job(plan, g_no_stop, far_deadline());
  EXPECT_EQ(out.engine_features["submission"], "batched");
}

// Each target of a 2-target job is counted and sampled apart (each target's results get spreads of their
// own), striped (every thread's I/Os go to both targets) or not (each target has its own threads): in every
// interval the targets' rates add up to the job's, each direction's too, and each target has per-interval
// latencies of its own I/Os.
TEST(RunJob, EachTargetIsSampledApart) {
  for (const std::uint64_t stripe : {std::uint64_t{0}, std::uint64_t{65536}}) {
    SCOPED_TRACE(stripe);
    Files f;
    auto plan =
        make_plan(f, 2, 4 << 20,
                  {.rw = RwMode::randrw, .rwmix_read = 70, .iodepth = 4, .runtime_s = 0.6, .stripe = stripe});
    const auto out = run_job(plan, g_no_stop, far_deadline());
    EXPECT_EQ(out.threads, stripe > 0 ? 1u : 2u);
    ASSERT_EQ(out.per_target_intervals.size(), 2u);
    const std::size_t n = out.intervals.iops.size();
    ASSERT_GE(n, 3u);
    for (std::size_t i = 0; i < n; ++i) {
      double all = 0, reads = 0, writes = 0;
      for (const auto& pt : out.per_target_intervals) {
        ASSERT_EQ(pt.all.iops.size(), n);
        ASSERT_EQ(pt.read.iops.size(), n);
        ASSERT_EQ(pt.write.iops.size(), n);
        all += pt.all.iops[i];
        reads += pt.read.iops[i];
        writes += pt.write.iops[i];
      }
      EXPECT_NEAR(all, out.intervals.iops[i], 1e-6 * out.intervals.iops[i]);
      EXPECT_NEAR(reads, out.read_intervals.iops[i], 1e-6 * out.intervals.iops[i]);
      EXPECT_NEAR(writes, out.write_intervals.iops[i], 1e-6 * out.intervals.iops[i]);
    }
    for (std::size_t t = 0; t < 2; ++t) {
      SCOPED_TRACE(t);
      const auto& pt = out.per_target_intervals[t];
      double sum = 0;
      for (double x : pt.all.iops) sum += x;
      EXPECT_GT(sum, 0);
      // Apart from how the job's figure is built (the targets' sum): the target's interval rates times the
      // sampling interval (each interval lasts at least that) account for its I/Os, never more than them; a
      // thread's count published under every target of its stripe would double it.
      const double counted = sum * sampling_interval_s(plan.spec);
      EXPECT_GT(counted, 0.3 * static_cast<double>(out.per_target[t].ios));
      EXPECT_LT(counted, 1.1 * static_cast<double>(out.per_target[t].ios));
      const double lo = static_cast<double>(out.per_target[t].lat.min()) * 1e-9;
      const double hi = static_cast<double>(out.per_target[t].lat.max()) * 1e-9;
      ASSERT_GE(pt.all.lat_max.size(), 3u);
      for (std::size_t q = 0; q < kLatencyPercentiles.size(); ++q) {
        ASSERT_EQ(pt.all.lat[q].size(), pt.all.lat_max.size());
        for (double v : pt.all.lat[q]) {
          EXPECT_GE(v, lo * 0.99);
          EXPECT_LE(v, hi * 1.01);
        }
      }
      for (double v : pt.all.lat_max) EXPECT_LE(v, hi * 1.0001);
      EXPECT_FALSE(pt.read.lat[0].empty());
      EXPECT_FALSE(pt.write.lat_max.empty());
    }
  }
}

// merge_rounds: two rounds of a job are one outcome — totals, interval series and windows joined, the first
// round's submission trial kept, a warning once.
TEST(JobRounds, MergeJoinsTotalsIntervalsAndWindows) {
  auto round = [](std::uint64_t ios, double window, double iops, const char* chosen) {
    JobOutcome o;
    o.per_target.resize(1);
    o.per_target[0].ios = ios;
    o.per_target[0].lat.record(1000 * ios);
    o.total = o.per_target[0];
    o.first_done_s = window - 0.1;
    o.last_done_s = window;
    o.warmup_s = 0.5;
    o.cpu_s = 0.01;
    o.intervals.iops = {iops, iops};
    o.intervals.lat[0] = {1e-4};
    o.per_target_intervals.resize(1);
    o.per_target_intervals[0].all.iops = {iops, iops};
    o.per_target_intervals[0].all.lat[0] = {1e-4};
    o.per_target_intervals[0].read.lat_max = {2e-4};
    o.per_target_intervals[0].write.iops = {iops};
    o.interval_cpu_per_io = {1e-6};
    o.threads = 1;
    o.submission_trial = nlohmann::json{{"chosen", chosen}};
    o.warnings = {"same warning"};
    return o;
  };
  const JobOutcome m = merge_rounds({round(100, 0.5, 200, "per_io"), round(50, 0.5, 100, "batched")});
  EXPECT_EQ(m.total.ios, 150u);
  EXPECT_EQ(m.per_target[0].ios, 150u);
  EXPECT_EQ(m.total.lat.count(), 2u);
  EXPECT_DOUBLE_EQ(m.last_done_s, 1.0);
  EXPECT_DOUBLE_EQ(m.first_done_s, 0.9);  // the last round's, on the joined window
  EXPECT_DOUBLE_EQ(m.warmup_s, 1.0);
  EXPECT_DOUBLE_EQ(m.cpu_s, 0.02);
  EXPECT_EQ(m.intervals.iops, (std::vector<double>{200, 200, 100, 100}));
  EXPECT_EQ(m.intervals.lat[0].size(), 2u);
  ASSERT_EQ(m.per_target_intervals.size(), 1u);  // each target's series joined too
  EXPECT_EQ(m.per_target_intervals[0].all.iops, (std::vector<double>{200, 200, 100, 100}));
  EXPECT_EQ(m.per_target_intervals[0].all.lat[0].size(), 2u);
  EXPECT_EQ(m.per_target_intervals[0].read.lat_max.size(), 2u);
  EXPECT_EQ(m.per_target_intervals[0].write.iops, (std::vector<double>{200, 100}));
  EXPECT_EQ(m.interval_cpu_per_io.size(), 2u);
  EXPECT_EQ(m.submission_trial["chosen"], "per_io");
  EXPECT_EQ(m.warnings.size(), 1u);
}

TEST(RunJob, StopFlagInterrupts) {
  Files f;
  JobSpec s;
  s.runtime_s = 30;
  auto plan = make_plan(f, 1, 1 << 20, s);
  std::atomic<bool> stop{true};
  EXPECT_THROW(run_job(plan, stop, far_deadline()), Interrupted);
}

// A stop once I/Os were measured keeps them: the outcome covers the window until the stop, marked
// interrupted (fio prints its partial stats on SIGINT), instead of throwing the job away.
TEST(RunJob, AStopMidJobKeepsWhatWasMeasuredMarkedInterrupted) {
  Files f;
  JobSpec s;
  s.rw = RwMode::randread;
  s.runtime_s = 30;
  auto plan = make_plan(f, 1, 4 << 20, s);
  std::atomic<bool> stop{false};
  std::jthread stopper([&stop] {
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
    stop = true;
  });
  const auto t0 = std::chrono::steady_clock::now();
  auto out = run_job(plan, stop, far_deadline());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(20)) << "the stop ends the job";
  EXPECT_TRUE(out.interrupted);
  EXPECT_GT(out.total.ios, 0u);
  EXPECT_GT(out.last_done_s, 0.2);
  EXPECT_LT(out.last_done_s, 20.0) << "the window ends at the stop";
}

// --log-interval: one entry per interval of the measured window, ending at each interval's end, whose I/Os
// add up to the job's; each with its latency percentiles from that interval's I/Os.
TEST(RunJob, TheIntervalLogHasAnEntryPerIntervalAddingUpToTheJob) {
  Files f;
  JobSpec s;
  s.rw = RwMode::randread;
  s.iodepth = 4;
  s.jobs = 2;
  s.runtime_s = 1.0;
  s.log_interval_s = 0.25;
  auto plan = make_plan(f, 1, 4 << 20, s);
  auto out = run_job(plan, g_no_stop, far_deadline());
  ASSERT_EQ(out.log.size(), 4u);
  std::uint64_t ios = 0;
  for (std::size_t k = 0; k < out.log.size(); ++k) {
    const LogEntry& e = out.log[k];
    EXPECT_NEAR(e.t_s, 0.25 * static_cast<double>(k + 1), 1e-9) << k;
    EXPECT_NEAR(e.seconds, 0.25, 1e-9) << k;
    ios += e.ios;
    if (e.ios == 0) {  // a stall as long as the interval: no latency to give
      EXPECT_TRUE(std::isnan(e.lat_p50)) << k;
      continue;
    }
    EXPECT_GT(e.lat_p50, 0) << k;
    EXPECT_GE(e.lat_p99, e.lat_p50) << k;
    EXPECT_LE(e.lat_p99, static_cast<double>(out.total.lat.max()) * 1e-9 * 1.01) << k;
  }
  EXPECT_EQ(ios, out.total.ios) << "every measured I/O is in one interval";
  EXPECT_FALSE(out.log_truncated);
  // Without --log-interval: no log.
  s.log_interval_s = 0;
  s.runtime_s = 0.3;
  EXPECT_TRUE(run_job(make_plan(f, 1, 4 << 20, s), g_no_stop, far_deadline()).log.empty());
}

TEST(RunJob, ReadPastTheEndIsAShortReadError) {
  Files f;
  JobSpec s;
  s.rw = RwMode::read;
  s.number_ios = 10;
  auto plan = make_plan(f, 1, 1 << 20, s);
  plan.targets[0].base = (1 << 20) - 4096;  // the second block lies past the end of the file
  plan.targets[0].size = 1 << 20;
  try {
    run_job(plan, g_no_stop, far_deadline());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("short transfer"), std::string::npos) << e.what();
  }
}

// --rate-iops caps each job thread's I/Os per second (fio's rate_iops): the measured IOPS stay at the cap
// where the same job uncapped runs far faster.
TEST(RunJob, RateIopsCapsEachThread) {
  Files f;
  JobSpec s;
  s.rw = RwMode::randread;
  s.iodepth = 4;
  s.jobs = 2;
  s.runtime_s = 1.0;
  auto plan = make_plan(f, 1, 4 << 20, s);
  plan.engine = EngineKind::null;  // far above the cap, also in a sanitizer build
  const auto free_run = run_job(plan, g_no_stop, far_deadline());
  const double free_iops = static_cast<double>(free_run.total.ios) / free_run.last_done_s;
  plan.spec.rate_iops = 200;
  const auto capped = run_job(plan, g_no_stop, far_deadline());
  const double iops = static_cast<double>(capped.total.ios) / capped.last_done_s;
  EXPECT_GT(free_iops, 5 * 400.0);
  // Two threads of 200 each: at most the cap (and the one I/O a thread may catch up), at least half of it on
  // a loaded machine.
  EXPECT_LE(iops, 400.0 * 1.05 + 2 / capped.last_done_s) << capped.total.ios << " in " << capped.last_done_s;
  EXPECT_GE(iops, 400.0 * 0.5) << capped.total.ios << " in " << capped.last_done_s;
}

}  // namespace
}  // namespace mlbench::storage
