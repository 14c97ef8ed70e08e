// `mlbench storage` and `mlbench run --storage-dir` through the real binary: bad input exits 2 with one line
// and writes nothing; a run writes a schema-valid report; SIGINT stops it, removes the test file, leaves a
// valid report and exits 130.
#include <signal.h>

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <map>
#include <regex>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/cli/cli_util.hpp"
#include "tests/storage/storage_test_util.hpp"

namespace mlbench::test {
namespace {

namespace fs = std::filesystem;

struct BadInput {
  std::vector<std::string> args;
  const char* mentions;
};

class StorageCliBad : public ::testing::TestWithParam<BadInput> {};

TEST_P(StorageCliBad, ExitsTwoWithOneLineAndNoReport) {
  TempDir t;
  storage::test::TempDir disk;
  const fs::path& dir = disk.path();
  auto report = t.path() / "r.json";
  std::vector<std::string> args{"storage", "--target", dir.string(), "-o", report.string()};
  // MISSING: a path in a folder that does not exist (a new file in an existing one is mlbench's to create).
  for (const auto& a : GetParam().args)
    args.push_back(a == "MISSING" ? (dir / "missing" / "file").string() : a);
  auto r = run_cli(args);
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find(GetParam().mentions), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(fs::exists(report));
}

INSTANTIATE_TEST_SUITE_P(
    All, StorageCliBad,
    ::testing::Values(BadInput{{"--bs", "1000"}, "logical block size"},
                      BadInput{{"--iodepth", "0"}, "--iodepth"}, BadInput{{"--iodepth", "4097"}, "--iodepth"},
                      BadInput{{"--size", "0"}, "--size"}, BadInput{{"--size=-1G"}, "--size"},
                      BadInput{{"--rw", "sideways"}, "--rw"},
                      BadInput{{"--target", "MISSING"}, "No such file or directory"},
                      BadInput{{"--target", ""}, "--target is an empty path"},
                      BadInput{{"--runtime", "soon"}, "--runtime"},
                      BadInput{{"--cpus", "65535"}, "not available to this process"},
                      BadInput{{"--submission", "each"}, "--submission"},
                      BadInput{{"--engine", "psync", "--submission", "per_io"}, "needs --engine uring"}));

TEST(StorageCli, ADanglingSymlinkTargetIsBadInputNamingTheLink) {
  TempDir t;
  storage::test::TempDir disk;
  // A link to nothing, one whose text (another user's to write) holds a newline, and a loop of two links.
  const fs::path nowhere = disk.path() / "nowhere", odd = disk.path() / "two\nlines";
  fs::create_symlink(nowhere, disk.path() / "dangling");
  fs::create_symlink(odd, disk.path() / "newline");
  fs::create_symlink(disk.path() / "loop_b", disk.path() / "loop_a");
  fs::create_symlink(disk.path() / "loop_a", disk.path() / "loop_b");
  auto report = t.path() / "r.json";
  for (const auto& [name, says] : {std::pair{"dangling", "which does not exist (a dangling link)"},
                                   {"newline", "which does not exist (a dangling link)"},
                                   {"loop_a", "that does not resolve (Too many levels of symbolic links)"}}) {
    const auto link = disk.path() / name;
    auto r = run_cli({"storage", "--target", link.string(), "--rw", "write", "--size", "1M", "--runtime", "1",
                      "-o", report.string()});
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(
        r.err.find("mlbench: error: storage.io: --target " + link.string() + " is a symbolic link to \""),
        std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  EXPECT_FALSE(fs::exists(nowhere));
  EXPECT_FALSE(fs::exists(odd));
  EXPECT_FALSE(fs::exists(report));
}

TEST(StorageCli, RunWritesAValidReport) {
  TempDir t;
  storage::test::TempDir disk;
  const fs::path& dir = disk.path();
  auto report = t.path() / "r.json";
  auto r = run_cli({"storage", "--target", dir.string(), "--rw", "randread", "--iodepth", "8", "--size", "8M",
                    "--runtime", "1", "-o", report.string()});
  auto leftovers = disk.mlbench_files();
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(validate_report_schema(report), "");
  auto j = nlohmann::json::parse(std::ifstream(report));
  ASSERT_EQ(j["results"].size(), 1u);
  EXPECT_EQ(j["results"][0]["probe"], "storage.io");
  EXPECT_EQ(j["results"][0]["metrics"][0]["name"], "iops");
  EXPECT_TRUE(leftovers.empty());
}

// fio's output habits: --units binary shows bandwidth in MiB/s (kb_base=1024) where the report keeps B/s;
// --verbose shows every digit of IOPS and bandwidth (IOPS=2995, not 3 k/s); --log-interval stores IOPS,
// bandwidth and latency p50/p99 per interval in the report (fio's log_avg_msec with its iops/bw/lat logs).
TEST(StorageCli, BinaryUnitsVerboseFiguresAndTheIntervalLog) {
  TempDir t;
  storage::test::TempDir disk;
  const fs::path& dir = disk.path();
  auto binary = run_cli({"storage", "--target", dir.string(), "--rw", "read", "--bs", "64k", "--size", "8M",
                         "--runtime", "0.5", "--units", "binary"});
  ASSERT_EQ(binary.rc, 0) << binary.err;
  EXPECT_TRUE(std::regex_search(binary.out, std::regex(R"(bw [0-9.]+ [KMGT]iB/s)"))) << binary.out;
  EXPECT_FALSE(std::regex_search(binary.out, std::regex(R"([0-9] [kMGT]B/s)"))) << binary.out;

  auto report = t.path() / "r.json";
  auto verbose = run_cli({"storage", "--target", dir.string(), "--size", "8M", "--runtime", "1",
                          "--log-interval", "250ms", "--verbose", "-o", report.string()});
  ASSERT_EQ(verbose.rc, 0) << verbose.err;
  auto j = nlohmann::json::parse(std::ifstream(report));
  EXPECT_EQ(validate_report_schema(report), "");
  const auto& res = j["results"][0];
  const double iops = res["metrics"][0]["value"].get<double>();
  const double bw = res["metrics"][1]["value"].get<double>();
  EXPECT_NE(verbose.out.find(fmt::format("iops {:.0f}/s  bw {:.0f} B/s", iops, bw)), std::string::npos)
      << verbose.out;
  EXPECT_EQ(j["run"]["options"]["storage.io"]["log_interval"], "250ms");
  const auto& log = res["info"]["interval_log"];
  EXPECT_EQ(log["interval_s"], 0.25);
  ASSERT_EQ(log["entries"].size(), 4u) << log.dump();
  std::uint64_t ios = 0;
  for (const auto& e : log["entries"]) {
    ios += e["ios"].get<std::uint64_t>();
    if (e["ios"] != 0) {
      EXPECT_GT(e["lat_p99"].get<double>(), 0) << e.dump();
    }
  }
  EXPECT_EQ(ios, res["work"]["ios"].get<std::uint64_t>());
}

// A result's warnings reach the console under its row, and the run ends with their count (a warning only in
// the JSON report goes unread).
TEST(StorageCli, AResultWarningIsPrintedUnderItsRowAndCounted) {
  storage::test::TempDir disk;
  // Bounded by a count of I/Os, not a short window a busy shared disk can stall through.
  auto r = run_cli({"storage", "--target", disk.path().string(), "--engine", "psync", "--iodepth", "4",
                    "--size", "4M", "--number-ios", "200"});
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto row = r.out.find("storage.io");
  const auto warning = r.out.find("warning: psync runs one I/O at a time per thread: --iodepth 4 acts as 1");
  ASSERT_NE(row, std::string::npos) << r.out;
  ASSERT_NE(warning, std::string::npos) << r.out;
  EXPECT_LT(row, warning) << r.out;
  EXPECT_NE(r.out.find("\n1 warning, each under its result above\n"), std::string::npos) << r.out;
}

TEST(StorageCli, SigintRemovesTheTestFileAndLeavesAValidReport) {
  TempDir t;
  storage::test::TempDir disk;
  const fs::path& dir = disk.path();
  auto report = t.path() / "r.json";
  auto run = spawn_cli(
      {"storage", "--target", dir.string(), "--size", "32M", "--runtime", "60", "-o", report.string()});
  // Wait until the test file exists and the job has had time to start, then interrupt.
  auto start = std::chrono::steady_clock::now();
  while (disk.mlbench_files().empty() && std::chrono::steady_clock::now() - start < std::chrono::seconds(30))
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(disk.mlbench_files().empty()) << "the probe never created its file";
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  run.kill(SIGINT);
  auto r = run.wait();
  auto leftovers = disk.mlbench_files();
  ASSERT_EQ(r.signal, 0) << "killed by signal " << r.signal;
  EXPECT_EQ(r.rc, 130) << r.err;
  EXPECT_TRUE(leftovers.empty()) << leftovers.front();
  ASSERT_TRUE(fs::exists(report));
  EXPECT_EQ(validate_report_schema(report), "");
  auto j = nlohmann::json::parse(std::ifstream(report));
  EXPECT_EQ(j["run"]["interrupted"], true);
}

// Ctrl-C keeps what the running job measured, as fio prints its partial stats: the report holds the job's
// figures until the signal with status interrupted, the console shows them under the row, exit 130; and
// `check` never passes them as a measurement.
TEST(StorageCli, SigintKeepsTheRunningJobsFiguresMarkedInterrupted) {
  TempDir t;
  storage::test::TempDir disk;
  const fs::path& dir = disk.path();
  auto report = t.path() / "r.json";
  auto run = spawn_cli({"storage", "--target", dir.string(), "--size", "8M", "--runtime", "60",
                        "--log-interval", "0.2", "-o", report.string()});
  auto start = std::chrono::steady_clock::now();
  while (disk.mlbench_files().empty() && std::chrono::steady_clock::now() - start < std::chrono::seconds(30))
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_FALSE(disk.mlbench_files().empty()) << "the probe never created its file";
  // The 8M fill (slow under ASan), then some of the job.
  std::this_thread::sleep_for(std::chrono::milliseconds(3000));
  run.kill(SIGINT);
  auto waited = run.wait_for(std::chrono::seconds(30));
  ASSERT_TRUE(waited.has_value()) << "still running 30 s after SIGINT";
  const CliResult& r = *waited;
  ASSERT_EQ(r.signal, 0) << "killed by signal " << r.signal;
  EXPECT_EQ(r.rc, 130) << r.err;
  ASSERT_TRUE(fs::exists(report));
  EXPECT_EQ(validate_report_schema(report), "");
  auto j = nlohmann::json::parse(std::ifstream(report));
  EXPECT_EQ(j["run"]["interrupted"], true);
  ASSERT_EQ(j["results"].size(), 1u) << j["results"].dump();
  const auto& res = j["results"][0];
  EXPECT_EQ(res["status"], "interrupted");
  EXPECT_NE(res["reason"].get<std::string>().find("interrupted after"), std::string::npos) << res["reason"];
  EXPECT_NE(res["reason"].get<std::string>().find("of the 60 s asked"), std::string::npos) << res["reason"];
  ASSERT_FALSE(res["metrics"].empty());
  EXPECT_EQ(res["metrics"][0]["name"], "iops");
  EXPECT_GT(res["metrics"][0]["value"].get<double>(), 0);
  const double seconds = res["work"]["seconds"].get<double>();
  EXPECT_GT(seconds, 0);
  EXPECT_LT(seconds, 50) << "the window ends at the signal, not at the runtime";
  EXPECT_FALSE(res["info"]["interval_log"]["entries"].empty())
      << "the log keeps the intervals until the signal";
  // The console: the row says interrupted and carries the figures, the I/O line under it too.
  const auto row = r.out.find("interrupted");
  ASSERT_NE(row, std::string::npos) << r.out;
  EXPECT_NE(r.out.find("iops ", row), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("lat p50", row), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("the running one's figures until the signal"), std::string::npos) << r.err;
  // check: not a measurement, whatever the figures.
  auto rules = t.path() / "rules.yaml";
  std::ofstream(rules) << "name: any drive\nrules:\n  - probe: storage.io\n    metric: iops\n    min: 1\n";
  auto checked = run_cli({"check", report.string(), "--expect", rules.string()});
  EXPECT_EQ(checked.rc, 1) << checked.out << checked.err;
  EXPECT_NE(checked.out.find("not measured: storage.io interrupted"), std::string::npos) << checked.out;
}

// The help of an on/off pair states its real default and shows no "{false}" that reads as one.
TEST(StorageCli, OnOffFlagsShowTheirRealDefault) {
  auto r = run_cli({"storage", "--help"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out.find("{false}"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("O_DIRECT, bypassing the page cache (the default)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(default: --direct)"), std::string::npos) << r.out;
  auto both = run_cli({"storage", "--target", "/tmp", "--direct", "--no-direct"});
  EXPECT_EQ(both.rc, 2) << both.err;
  EXPECT_NE(both.err.find("--no-direct"), std::string::npos) << both.err;
}

// Without -o there is no report to speak of: the interrupt line must not claim one.
TEST(StorageCli, SigintWithoutAReportDoesNotClaimOne) {
  storage::test::TempDir disk;
  const fs::path& dir = disk.path();
  auto run = spawn_cli({"storage", "--target", dir.string(), "--size", "8M", "--runtime", "60"});
  auto start = std::chrono::steady_clock::now();
  while (disk.mlbench_files().empty() && std::chrono::steady_clock::now() - start < std::chrono::seconds(30))
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  run.kill(SIGINT);
  auto r = run.wait();
  EXPECT_EQ(r.rc, 130) << r.err;
  EXPECT_EQ(r.err.find("the report holds"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("interrupted; no report file written (no -o)"), std::string::npos) << r.err;
}

// A SIGKILLed run cannot remove its scratch file; the next run in that folder does, and says so.
TEST(StorageCli, TheNextRunRemovesTheScratchFileOfAKilledOne) {
  TempDir t;
  storage::test::TempDir disk;
  const fs::path& dir = disk.path();
  auto report = t.path() / "r.json";
  auto killed = spawn_cli({"storage", "--target", dir.string(), "--size", "32M", "--runtime", "60"});
  auto start = std::chrono::steady_clock::now();
  while (disk.mlbench_files().empty() && std::chrono::steady_clock::now() - start < std::chrono::seconds(30))
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  killed.kill(SIGKILL);
  killed.wait();
  auto left = disk.mlbench_files();
  ASSERT_EQ(left.size(), 1u) << "the killed run left no scratch file";
  auto r = run_cli(
      {"storage", "--target", dir.string(), "--size", "4M", "--runtime", "0.3", "-o", report.string()});
  auto leftovers = disk.mlbench_files();
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(leftovers.empty()) << leftovers.front();
  auto j = nlohmann::json::parse(std::ifstream(report));
  std::string warnings = j["results"][0]["warnings"].dump();
  EXPECT_NE(warnings.find("removed " + left[0] + " ("), std::string::npos) << warnings;
}

TEST(StorageCli, RunStorageDirPlansTheSuiteThere) {
  TempDir t;
  auto r = run_cli({"run", "--probe", "storage.io", "--profile", "quick", "--storage-dir", t.path().string(),
                    "--dry-run"});
  ASSERT_EQ(r.rc, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["cases"].size(), 7u);
  EXPECT_EQ(j["cases"][0]["config"]["spec"]["target"][0], t.path().string());
  EXPECT_EQ(j["options"]["storage.io"]["dir"], t.path().string());
  auto bad =
      run_cli({"run", "--probe", "storage.io", "--storage-dir", (t.path() / "nope").string(), "--dry-run"});
  EXPECT_EQ(bad.rc, 2);
  EXPECT_NE(bad.err.find("--storage-dir " + (t.path() / "nope").string() + ": No such file or directory"),
            std::string::npos)
      << bad.err;
  EXPECT_EQ(bad.err.find("--target"), std::string::npos) << bad.err;
}

namespace fio_spellings {

using nlohmann::json;

// The plan `mlbench storage ARGS --dry-run` prints, after checking it exited 0.
json dry_run(std::vector<std::string> args) {
  args.insert(args.begin(), "storage");
  args.push_back("--dry-run");
  auto r = run_cli(args);
  EXPECT_EQ(r.rc, 0) << r.err;
  return r.rc == 0 ? json::parse(r.out) : json::object();
}

// fio's spellings on the command line reach the job as mlbench's options.
TEST(StorageCliFio, EachSpellingSetsTheJob) {
  storage::test::TempDir disk;
  const std::string dir = disk.path().string();
  auto spec = [&](std::vector<std::string> args) {
    auto plan = dry_run(std::move(args));
    return plan.contains("cases") ? plan["cases"][0]["config"]["spec"] : json::object();
  };
  EXPECT_EQ(spec({"--filename", dir})["target"], json::array({dir}));
  EXPECT_EQ(spec({"--directory", dir})["target"], json::array({dir}));
  EXPECT_EQ(spec({"--directory", dir, "--filename", "t.bin"})["target"], json::array({dir + "/t.bin"}));
  EXPECT_EQ(spec({"--filename", dir, "--rw", "randrw", "--rwmixread", "70"})["rwmix_read"], 70);
  EXPECT_EQ(spec({"--filename", dir, "--rw", "randrw", "--rwmixwrite", "30"})["rwmix_read"], 70);
  EXPECT_EQ(spec({"--filename", dir, "--ioengine=io_uring"})["engine"], "uring");
  EXPECT_EQ(spec({"--filename", dir, "--ioengine=psync"})["engine"], "psync");
  EXPECT_EQ(spec({"--filename", dir, "--ioengine=sync"})["engine"], "psync");
  EXPECT_EQ(spec({"--filename", dir, "--rw", "readwrite"})["rw"], "rw");
  EXPECT_EQ(spec({"--filename", dir, "--rw", "write", "--bs", "4k,64k"})["bs"], 65536);
  EXPECT_EQ(spec({"--filename", dir, "--rw", "read", "--bs", "4k,64k"})["bs"], 4096);
  EXPECT_EQ(spec({"--filename", dir, "--size", "50%"})["size_pct"], 50.0);
  EXPECT_EQ(spec({"--filename", dir, "--rate_iops", "300"})["rate_iops"], 300);
  EXPECT_EQ(spec({"--filename", dir, "--bs", "64k", "--rate", "16m"})["rate_iops"], 256);
  const json plain = spec({"--filename", dir});
  EXPECT_EQ(spec({"--filename", dir, "--time_based", "--group_reporting"}), plain);
  auto named = dry_run({"--filename", dir, "--name", "seq-read"});
  EXPECT_EQ(named["cases"][0]["params"]["job"], "seq-read");
}

TEST(StorageCliFio, WithoutATargetTheMessageNamesFiosSpellingToo) {
  auto r = run_cli({"storage", "--rw", "read"});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_EQ(r.err, "mlbench: error: give --target PATH (fio: --filename, --directory) or --job FILE.fio\n");
}

class StorageCliFioRefused : public ::testing::TestWithParam<BadInput> {};

// What mlbench cannot do is one line naming the closest thing it can, exit 2, nothing written.
TEST_P(StorageCliFioRefused, NamesTheClosestThing) {
  storage::test::TempDir disk;
  TempDir t;
  auto report = t.path() / "r.json";
  std::vector<std::string> args{"storage", "--filename", disk.path().string(), "-o", report.string()};
  for (const auto& a : GetParam().args) args.push_back(a);
  auto r = run_cli(args);
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find(GetParam().mentions), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(fs::exists(report));
}

INSTANTIATE_TEST_SUITE_P(
    All, StorageCliFioRefused,
    ::testing::Values(
        BadInput{{"--ioengine=libaio"},
                 "mlbench: error: --ioengine=libaio: mlbench has io_uring and psync (it runs io_uring, "
                 "psync, sync, "
                 "pvsync, pvsync2, null); use --ioengine=io_uring"},
        BadInput{{"--rw", "trim"},
                 "--rw=trim: mlbench does not trim (discard); the closest it measures is --rw=write"},
        BadInput{{"--rw", "randtrim"}, "--rw=randwrite"},
        BadInput{{"--rate", "1m,1m"}, "--rate 1m,1m: mlbench caps reads and writes together; give one rate"},
        BadInput{{"--bssplit", "4k/50:64k/50"}, "--bssplit: mlbench has one block size per job"},
        BadInput{{"--rw", "randrw", "--bs", "4k,64k"}, "--bs 4k,64k: mlbench has one block size per job"},
        BadInput{{"--output-format=terse"}, "use --output-format=json"},
        BadInput{{"--rwmixread", "70", "--rwmix-read", "70", "--rw", "randrw"}, "set the same option"}));

// --size N% is of an existing file's (device's) size; --output-format=json prints the report as --json does;
// --rw rw mixes sequential reads and writes and reports each direction.
TEST(StorageCliFio, SizePercentOutputFormatAndSequentialMix) {
  storage::test::TempDir disk;
  const auto file = disk.path() / "existing.bin";
  storage::test::write_file(file, std::string(8 << 20, 'x'));
  auto r = run_cli({"storage", "--filename", file.string(), "--size", "50%", "--rw", "read", "--bs", "64k",
                    "--number-ios", "8", "--no-direct", "--output-format=json"});
  ASSERT_EQ(r.rc, 0) << r.err;
  auto report = json::parse(r.out);
  ASSERT_EQ(report["results"].size(), 1u);
  EXPECT_EQ(report["results"][0]["info"]["region_bytes"], 4 << 20);

  // 400 I/Os of a 60/40 mix: both kinds (all of one kind has odds of 0.6^400).
  auto mix = run_cli({"storage", "--directory", disk.path().string(), "--rw", "readwrite", "--rwmixwrite",
                      "40", "--size", "1M", "--number-ios", "400", "--json"});
  ASSERT_EQ(mix.rc, 0) << mix.err;
  const json mixed = json::parse(mix.out);
  const json& result = mixed["results"][0];
  EXPECT_EQ(result["params"]["rw"], "rw");
  EXPECT_EQ(result["params"]["rwmix_read"], 60);
  std::map<std::string, double> metrics;
  for (const auto& m : result["metrics"]) metrics[m["name"].get<std::string>()] = m["value"].get<double>();
  EXPECT_GT(metrics["read_iops"], 0) << result.dump();
  EXPECT_GT(metrics["write_iops"], 0) << result.dump();
}

constexpr const char* kJobFile = R"([global]
ioengine=psync
bs=4k
size=2m
runtime=0.3
time_based
group_reporting
iodepth_batch_submit=4
norandommap

[seq-read]
rw=read

[rand-write]
rw=randwrite
stonewall
)";

// A job file's jobs run as storage.io results of one report (param job = the section), the ignored options
// listed in each result's warnings; --dry-run prints each job's resolved spec.
TEST(StorageCliFio, AJobFileRunsEachJob) {
  storage::test::TempDir disk;
  TempDir t;
  const auto jobfile = t.path() / "team.fio";
  storage::test::write_file(jobfile, kJobFile);
  auto plan = dry_run({"--job", jobfile.string(), "--directory", disk.path().string()});
  ASSERT_EQ(plan["cases"].size(), 2u) << plan.dump();
  EXPECT_EQ(plan["cases"][0]["params"]["job"], "seq-read");
  EXPECT_EQ(plan["cases"][0]["config"]["spec"]["rw"], "read");
  EXPECT_EQ(plan["cases"][1]["config"]["spec"]["rw"], "randwrite");
  EXPECT_EQ(plan["cases"][1]["config"]["spec"]["engine"], "psync");
  EXPECT_EQ(plan["cases"][1]["config"]["ignored"], json({"iodepth_batch_submit", "norandommap"}));

  auto report = t.path() / "r.json";
  auto r = run_cli(
      {"storage", "--job", jobfile.string(), "--target", disk.path().string(), "-o", report.string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(validate_report_schema(report), "");
  auto j = json::parse(std::ifstream(report));
  ASSERT_EQ(j["results"].size(), 2u);
  EXPECT_EQ(j["results"][0]["params"]["job"], "seq-read");
  EXPECT_EQ(j["results"][1]["params"]["job"], "rand-write");
  const std::string ignored =
      jobfile.string() +
      ": fio options ignored (mlbench does not use them): iodepth_batch_submit, norandommap";
  for (const auto& res : j["results"]) {
    EXPECT_EQ(res["status"], "ok") << res.dump();
    EXPECT_NE(res["warnings"].dump().find(ignored), std::string::npos) << res["warnings"].dump();
  }
  // The second job waits for the first (stonewall): no warning that fio would run them together.
  EXPECT_EQ(r.out.find("at the same time"), std::string::npos) << r.out;
  EXPECT_TRUE(disk.mlbench_files().empty());
}

// fio starts a file's jobs together unless stonewall; mlbench runs them one after another and says so.
TEST(StorageCliFio, JobsFioWouldRunTogetherCarryAWarning) {
  storage::test::TempDir disk;
  TempDir t;
  const auto jobfile = t.path() / "together.fio";
  storage::test::write_file(jobfile, "[global]\nsize=1m\n[a]\nrw=read\n[b]\nrw=randread\n");
  auto plan = dry_run({"--job", jobfile.string(), "--target", disk.path().string()});
  ASSERT_EQ(plan["cases"].size(), 2u) << plan.dump();
  for (const auto& c : plan["cases"]) {
    EXPECT_EQ(c["config"]["warning"],
              "fio runs the jobs of " + jobfile.string() +
                  " at the same time (they have no stonewall); mlbench runs them one after another");
  }
}

TEST(StorageCliFio, AMalformedJobFileIsExitTwoNamingItsLine) {
  TempDir t;
  const auto jobfile = t.path() / "bad.fio";
  storage::test::write_file(jobfile, "[global]\nbs=4k\n\n[job\nrw=read\n");
  auto r = run_cli({"storage", "--job", jobfile.string(), "--target", t.path().string()});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_EQ(r.err, "mlbench: error: storage.io: " + jobfile.string() +
                       ":4: '[job' does not end with ']'; a section is [name]\n");
  storage::test::write_file(jobfile, "[a]\nfilename=${DEV}\n");
  r = run_cli({"storage", "--job", jobfile.string()});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find(jobfile.string() + ":2: ${...}: environment variables"), std::string::npos) << r.err;
  r = run_cli({"storage", "--job", (t.path() / "missing.fio").string()});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

}  // namespace fio_spellings

}  // namespace
}  // namespace mlbench::test
