#include "storage/io/job_spec.hpp"

#include <gtest/gtest.h>

#include <set>

#include "storage/io/fio.hpp"
#include "storage/io/job.hpp"
#include "storage/io/probe.hpp"

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

// The spec is read and written from the option rows alone: every option the spec holds, given a value
// other than its default, comes back from to_json as the same value and parses to the same spec.
TEST(JobSpec, EveryOptionTheSpecHoldsRoundTripsThroughTheCaseConfig) {
  const json given{{"target", {"/a", "/b"}},
                   {"rw", "randrw"},
                   {"rwmix_read", 70},
                   {"bs", 8192},
                   {"iodepth", 16},
                   {"jobs", 3},
                   {"size_pct", 40.0},
                   {"offset", 16384},
                   {"runtime", 7.5},
                   {"ramp", 1.5},
                   {"io_size", 1 << 20},
                   {"number_ios", 900},
                   {"rate_iops", 5000},
                   {"log_interval", 0.5},
                   {"direct", false},
                   {"engine", "psync"},
                   {"fixed_bufs", false},
                   {"stripe", 65536},
                   {"verify", true},
                   {"keep", true},
                   {"allow_destructive", true},
                   {"cpus", "0-1"},
                   {"name", "mixed"},
                   {"sqpoll", false},
                   {"submission", "auto"}};
  const JobSpec s = parse_job_spec(given);
  const json written = to_json(s);
  EXPECT_EQ(written, given);
  EXPECT_EQ(to_json(parse_job_spec(written)), written);
  // size instead of size_pct, and the uring-only options with their engine
  const json sized{{"target", {"/a"}},
                   {"rw", "read"},
                   {"bs", 4096},
                   {"iodepth", 1},
                   {"jobs", 1},
                   {"size", 1 << 30},
                   {"offset", 0},
                   {"ramp", 0.0},
                   {"direct", true},
                   {"engine", "uring"},
                   {"sqpoll", true},
                   {"fixed_bufs", true},
                   {"submission", "per_io"},
                   {"verify", false},
                   {"keep", false},
                   {"allow_destructive", false},
                   {"cpus", "auto"},
                   {"runtime", 10.0}};
  EXPECT_EQ(to_json(parse_job_spec(sized)), sized);
}

// A result's params are the rows marked identity, as the case config writes them, and the probe declares
// every one of them.
TEST(JobSpec, ParamsAreTheIdentityRows) {
  const JobSpec mixed_job = parse_job_spec(json{{"target", {"/a", "/b"}},
                                                {"rw", "randrw"},
                                                {"rwmix_read", 70},
                                                {"bs", "8k"},
                                                {"iodepth", 4},
                                                {"stripe", "64k"},
                                                {"rate_iops", 100},
                                                {"verify", true}});
  EXPECT_EQ(job_params(mixed_job), (json{{"rw", "randrw"},
                                         {"rwmix_read", 70},
                                         {"bs", 8192},
                                         {"iodepth", 4},
                                         {"jobs", 1},
                                         {"direct", true},
                                         {"stripe", 65536},
                                         {"rate_iops", 100}}));
  const JobSpec reads = parse_job_spec(json{{"target", "/a"}, {"rw", "read"}, {"direct", false}});
  EXPECT_EQ(job_params(reads),
            (json{{"rw", "read"}, {"bs", 4096}, {"iodepth", 1}, {"jobs", 1}, {"direct", false}}));
  const auto probe = make_storage_probe();
  const ProbeInfo info = probe->info();
  const std::set<std::string_view> declared(info.params.begin(), info.params.end());
  for (std::string_view key : job_param_keys()) EXPECT_TRUE(declared.count(key)) << key;
  const json params = job_params(mixed_job);
  for (const auto& [key, value] : params.items()) EXPECT_TRUE(declared.count(key)) << key;
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
                      BadCase{{{"submission", "batched"}, {"engine", "psync"}}, "--engine uring"},
                      BadCase{{{"log_interval", "0.05s"}}, "--log-interval"},
                      BadCase{
                          {{"log_interval", "0.1s"}, {"runtime", "1h"}},
                          "--log-interval 0.1s over --runtime 3600s gives 36000 intervals; the report keeps "
                          "at most 3600: use --log-interval 1s or more"},
                      BadCase{{{"units", "metric"}}, "--units"}));

// --log-interval sets the log's interval; --units is the console's (the job is the same either way).
TEST(JobSpec, LogIntervalAndUnits) {
  EXPECT_EQ(parse_job_spec(json{{"target", "/x"}, {"log_interval", "500ms"}}).log_interval_s, 0.5);
  EXPECT_EQ(parse_job_spec(json{{"target", "/x"}}).log_interval_s, 0.0);
  EXPECT_EQ(to_json(parse_job_spec(json{{"target", "/x"}, {"log_interval", "1s"}}))["log_interval"], 1.0);
  EXPECT_EQ(to_json(parse_job_spec(json{{"target", "/x"}, {"units", "binary"}})),
            to_json(parse_job_spec(json{{"target", "/x"}})));
}

// fio's spelling of an option given alone, as the command line gives it, translated and then parsed as a job.
JobSpec fio_spec(const std::string& key, json value, bool cli = true) {
  auto r = from_fio({{key, std::move(value)}, {"target", json::array({"/x"})}}, cli);
  return parse_job_spec(r.options);
}

TEST(FioSpellings, EachTakesMlbenchsOption) {
  EXPECT_EQ(parse_job_spec(from_fio({{"filename", "/dev/a:/dev/b"}}, true).options).targets,
            (std::vector<std::string>{"/dev/a", "/dev/b"}));
  EXPECT_EQ(parse_job_spec(from_fio({{"directory", "/mnt"}}, true).options).targets,
            std::vector<std::string>{"/mnt"});
  EXPECT_EQ(parse_job_spec(from_fio({{"directory", "/mnt"}, {"filename", "f"}}, false).options).targets,
            std::vector<std::string>{"/mnt/f"});
  auto mix = [](const std::string& key, int n) {
    return from_fio({{key, n}, {"rw", "randrw"}, {"target", "/x"}}, true).options;
  };
  EXPECT_EQ(parse_job_spec(mix("rwmixread", 70)).rwmix_read, 70u);
  EXPECT_EQ(parse_job_spec(mix("rwmixwrite", 30)).rwmix_read, 70u);
  EXPECT_EQ(fio_spec("ioengine", "io_uring").engine, EngineKind::uring);
  EXPECT_EQ(fio_spec("ioengine", "psync").engine, EngineKind::psync);
  EXPECT_EQ(fio_spec("ioengine", "sync").engine, EngineKind::psync);
  EXPECT_EQ(fio_spec("name", "seq-read").name, "seq-read");
  EXPECT_EQ(fio_spec("rw", "rw").rw, RwMode::rw);
  EXPECT_EQ(fio_spec("rw", "readwrite").rw, RwMode::rw);
  EXPECT_DOUBLE_EQ(fio_spec("size", "50%").size_pct, 50.0);
  EXPECT_EQ(fio_spec("size", "50%").size, 0u);
  EXPECT_DOUBLE_EQ(fio_spec("ramp_time", "5").ramp_s, 5.0);
  EXPECT_FALSE(fio_spec("buffered", true).direct);
  EXPECT_FALSE(fio_spec("direct", "0", false).direct);
  EXPECT_TRUE(fio_spec("sqthread_poll", "1", false).sqpoll);
  EXPECT_TRUE(fio_spec("verify", "crc32c", false).verify);
  EXPECT_EQ(fio_spec("rate_iops", "500").rate_iops, 500u);
  EXPECT_EQ(fio_spec("rate", "2m").rate_iops, 512u);  // 2 MiB/s of the default 4k blocks
  // Accepted as what mlbench does anyway: the job is the one without them.
  for (const char* key : {"time_based", "group_reporting"})
    EXPECT_EQ(to_json(fio_spec(key, true)), to_json(parse_job_spec(json{{"target", {"/x"}}}))) << key;
  EXPECT_TRUE(from_fio({{"output-format", "json"}}, true).json);
  EXPECT_FALSE(from_fio({{"output-format", "normal"}}, true).json);
}

TEST(FioSpellings, ReadAndWriteBlockSizesPickTheJobsDirection) {
  auto bs = [](const std::string& rw, const std::string& v) {
    return parse_job_spec(from_fio({{"rw", rw}, {"bs", v}, {"target", "/x"}}, true).options).bs;
  };
  EXPECT_EQ(bs("randread", "4k,64k"), 4096u);
  EXPECT_EQ(bs("write", "4k,64k"), 65536u);
  EXPECT_EQ(bs("randwrite", ",8k"), 8192u);
  EXPECT_EQ(bs("randrw", "8k,8k"), 8192u);
  try {
    bs("randrw", "4k,64k");
    FAIL() << "a mixed job with two block sizes was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--bs 4k,64k: mlbench has one block size per job"),
              std::string::npos)
        << e.what();
  }
}

struct Refused {
  std::vector<std::pair<std::string, json>> given;
  const char* says;
};

class FioRefused : public ::testing::TestWithParam<Refused> {};

// What mlbench cannot do is refused, naming the closest thing it can.
TEST_P(FioRefused, NamesWhatToDoInstead) {
  try {
    from_fio(GetParam().given, true);
    FAIL() << "accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(GetParam().says), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    All, FioRefused,
    ::testing::Values(
        Refused{{{"ioengine", "libaio"}}, "--ioengine=libaio: mlbench has io_uring and psync"},
        Refused{{{"ioengine", "libaio"}}, "use --ioengine=io_uring"},
        Refused{{{"ioengine", "posixaio"}}, "use --ioengine=io_uring"},
        Refused{{{"rw", "trim"}},
                "--rw=trim: mlbench does not trim (discard); the closest it measures is --rw=write"},
        Refused{{{"rw", "randtrim"}}, "--rw=randwrite"},
        Refused{{{"rate", "1m,2m"}}, "--rate 1m,2m: mlbench caps reads and writes together"},
        Refused{{{"rate", "1k"}, {"bs", "4k"}}, "--rate 1k: less than one block"},
        Refused{{{"bssplit", "4k/50:64k/50"}}, "give --bs"},
        Refused{{{"output-format", "terse"}}, "use --output-format=json"},
        Refused{{{"rwmixwrite", "130"}}, "--rwmixwrite: '130' is not a whole number from 0 to 100"},
        Refused{{{"rwmix_read", 70}, {"rwmixread", "70"}},
                "--rwmix-read and --rwmixread set the same option"},
        Refused{{{"target", json::array({"/a"})}, {"filename", "/b"}}, "--target and --filename"}));

constexpr const char* kTwoJobs = R"(; a team's job file
[global]
ioengine=io_uring
direct=1
bs=4k
size=64m
runtime=2
time_based
group_reporting
directory=/mnt/scratch
iodepth_batch_submit=8
randrepeat=0

# reads first
[seq-read]
rw=read
bs=128k
numjobs=2

[mixed]
rw=randrw
rwmixwrite=30
iodepth=16
stonewall
)";

TEST(FioJobFile, GlobalAndTwoJobsAreTwoJobSpecs) {
  auto jobs = parse_job_file(kTwoJobs, "team.fio");
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].name, "seq-read");
  EXPECT_EQ(jobs[1].name, "mixed");
  auto a = parse_job_spec(jobs[0].options, OptionSource::job_file());
  auto b = parse_job_spec(jobs[1].options, OptionSource::job_file());
  EXPECT_EQ(a.rw, RwMode::read);
  EXPECT_EQ(a.bs, 128u * 1024);  // the job's own over [global]'s
  EXPECT_EQ(a.jobs, 2u);
  EXPECT_EQ(a.iodepth, 1u);
  EXPECT_EQ(a.name, "seq-read");
  EXPECT_EQ(b.rw, RwMode::randrw);
  EXPECT_EQ(b.rwmix_read, 70u);
  EXPECT_EQ(b.bs, 4096u);
  EXPECT_EQ(b.iodepth, 16u);
  for (const auto& s : {a, b}) {
    EXPECT_EQ(s.size, 64u << 20);
    EXPECT_DOUBLE_EQ(s.runtime_s, 2.0);
    EXPECT_TRUE(s.direct);
    EXPECT_EQ(s.engine, EngineKind::uring);
    EXPECT_EQ(s.targets, std::vector<std::string>{"/mnt/scratch"});
  }
  EXPECT_FALSE(jobs[0].stonewall);
  EXPECT_TRUE(jobs[1].stonewall);
  // Unknown options are listed, once each, in the file's order.
  const std::vector<std::string> ignored = {"iodepth_batch_submit", "randrepeat"};
  EXPECT_EQ(jobs[0].ignored, ignored);
  EXPECT_EQ(jobs[1].ignored, ignored);
}

struct BadFile {
  std::string text;
  const char* says;
};

class FioJobFileBad : public ::testing::TestWithParam<BadFile> {};

TEST_P(FioJobFileBad, IsAUsageErrorNamingFileAndLine) {
  try {
    parse_job_file(GetParam().text, "bad.fio");
    FAIL() << "accepted:\n" << GetParam().text;
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(GetParam().says), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    All, FioJobFileBad,
    ::testing::Values(BadFile{"[global]\nbs=4k\n[job\nrw=read\n", "bad.fio:3: '[job' does not end with ']'"},
                      BadFile{"bs=4k\n[job]\n", "bad.fio:1: 'bs=4k' is outside a section"},
                      BadFile{"[a]\n=4k\n", "bad.fio:2: no option name before '='"},
                      BadFile{"[a]\nfilename=${DEV}\n", "bad.fio:2: ${...}: environment variables"},
                      BadFile{"[a]\n\n; c\nbs=4q\n", "bad.fio:4: bs: "},
                      BadFile{"[a]\niodepth=0\n", "bad.fio:2: iodepth: 0 is out of range"},
                      BadFile{"[a]\nioengine=libaio\n", "bad.fio:2: ioengine=libaio: mlbench has io_uring"},
                      BadFile{"[a]\nrate=1m,2m\n", "bad.fio:2: rate 1m,2m: mlbench caps reads and writes"},
                      BadFile{"[a]\nrw=trim\n", "bad.fio:2: rw=trim"},
                      BadFile{"[a]\ndirect=maybe\n", "bad.fio:2: direct: 'maybe' is not 0, 1, true or false"},
                      BadFile{"[a]\n[a]\n", "bad.fio:2: job [a] is given twice"},
                      BadFile{"include other.fio\n", "bad.fio:1: include is not supported"},
                      BadFile{"[global]\nbs=4k\n", "bad.fio: no job section"},
                      BadFile{"[a]\nrw=randrw\nbs=4k,64k\n",
                              "bad.fio [a]: bs 4k,64k: mlbench has one block size"}));

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
