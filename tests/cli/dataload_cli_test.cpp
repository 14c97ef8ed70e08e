// `mlbench dataload` and `mlbench checkpoint` through the real binary: bad input exits 2 with one line and
// writes nothing (and leaves a refused folder as it was); a small generated run writes a schema-valid report
// with its figures and removes the dataset; SIGINT stops it, removes the dataset and leaves a valid report.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/cli/cli_util.hpp"
#include "tests/storage/storage_test_util.hpp"

namespace mlbench::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct BadInput {
  std::vector<std::string> args;
  const char* mentions;
};

class DataloadCliBad : public ::testing::TestWithParam<BadInput> {};

TEST_P(DataloadCliBad, ExitsTwoWithOneLineAndNoReport) {
  TempDir t, empty;
  storage::test::TempDir disk;
  storage::test::write_file(disk.path() / "mine.txt", "keep me");
  auto dlio = t.path() / "bad.yaml";
  storage::test::write_file(dlio, "dataset:\n  num_files_train: 0\n  record_length: 4096\n");
  auto report = t.path() / "r.json";
  std::vector<std::string> args;
  for (const auto& a : GetParam().args) {
    if (a == "DISK") {
      args.push_back(disk.path().string());
    } else if (a == "EMPTY") {
      args.push_back(empty.path().string());
    } else if (a == "DLIO") {
      args.push_back(dlio.string());
    } else {
      args.push_back(a);
    }
  }
  args.push_back("-o");
  args.push_back(report.string());
  auto r = run_cli(args);
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find(GetParam().mentions), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(fs::exists(report));
  EXPECT_EQ(slurp(disk.path() / "mine.txt"), "keep me");
  EXPECT_EQ(std::distance(fs::directory_iterator(disk.path()), fs::directory_iterator()), 1);
  EXPECT_TRUE(fs::is_empty(empty.path()));
}

INSTANTIATE_TEST_SUITE_P(
    All, DataloadCliBad,
    ::testing::Values(
        BadInput{{"dataload", "--data-dir", "DISK", "--generate", "--files", "4"}, "not an mlbench dataset"},
        BadInput{{"dataload", "--workload", "cosmoflow"}, "--data-dir"},
        BadInput{{"dataload", "--workload", "bert", "--data-dir", "EMPTY"}, "unknown workload"},
        BadInput{{"dataload", "--dlio", "DLIO", "--data-dir", "EMPTY", "--generate"}, "num_files_train"},
        BadInput{{"dataload", "--data-dir", "EMPTY", "--files", "4"}, "--generate"},
        BadInput{{"dataload", "--data-dir", "EMPTY", "--generate", "--files", "0"}, "--files"},
        BadInput{{"dataload", "--data-dir", "EMPTY", "--generate", "--files", "1000000"}, "only"},  // 147 TB
        BadInput{{"dataload", "--workload", "small-files", "--accelerator", "h100", "--data-dir", "EMPTY",
                  "--generate", "--files", "4"},
                 "--step-time"},
        BadInput{{"checkpoint", "--dir", "DISK", "--size", "1000T"}, "free"},
        BadInput{{"checkpoint", "--dir", "DISK", "--model", "7b"}, "--model"}));

TEST(DataloadCli, GeneratedRunReportsFiguresAndRemovesTheDataset) {
  TempDir t;
  storage::test::TempDir disk;
  auto report = t.path() / "r.json";
  auto r = run_cli({"dataload", "--workload", "cosmoflow", "--data-dir", disk.path().string(), "--generate",
                    "--files", "24", "--accelerators", "2", "--runtime", "1", "-o", report.string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(validate_report_schema(report), "");
  auto j = json::parse(std::ifstream(report));
  ASSERT_EQ(j["results"].size(), 2u) << j.dump();
  const auto& gen = j["results"][0];
  EXPECT_EQ(gen["params"]["phase"], "generate");
  const auto& train = j["results"][1];
  EXPECT_EQ(train["params"]["phase"], "train");
  EXPECT_EQ(train["params"]["accelerators"], 2);
  std::set<std::string> names;
  for (const auto& m : train["metrics"]) names.insert(m["name"].get<std::string>());
  for (const char* n : {"samples_per_s", "bandwidth", "files_per_s", "au", "batch_wait_mean", "open_p50",
                        "open_p99", "open_p999", "read_p50", "read_p999", "close_p50", "close_p999"})
    EXPECT_TRUE(names.count(n)) << n;
  EXPECT_GT(train["work"]["files"].get<std::uint64_t>(), 0u);
  // The step emulation's own error: the nominal step and how late the emulated steps ended.
  const auto& emulation = train["info"]["step_emulation"];
  EXPECT_EQ(emulation["nominal_s"].get<double>(), 0.0035) << train["info"].dump();
  EXPECT_GE(emulation["mean_s"].get<double>(), 0.0035);
  EXPECT_GE(emulation["overrun_mean_s"].get<double>(), 0.0);
  EXPECT_TRUE(train["info"]["trials"][0].contains("step_overrun_mean_s"));
  EXPECT_TRUE(fs::is_empty(disk.path())) << "the dataset was not removed";
  // The console shows the training window's headline set under its row, not only the JSON.
  const auto row = r.out.find("phase=train");
  ASSERT_NE(row, std::string::npos) << r.out;
  const auto set = r.out.find("\n", row) + 1;
  const std::string line = r.out.substr(set, r.out.find("\n", set) - set);
  for (const char* f : {"AU ", " % (floor ", "bw ", "files ", "samples ", "batch wait ", "p99 "})
    EXPECT_NE(line.find(f), std::string::npos) << f << " in: " << line;
}

TEST(DataloadCli, SigintRemovesTheDatasetAndLeavesAValidReport) {
  TempDir t;
  storage::test::TempDir disk;
  auto report = t.path() / "r.json";
  auto run =
      spawn_cli({"dataload", "--workload", "small-files", "--data-dir", disk.path().string(), "--generate",
                 "--files", "64", "--accelerators", "1", "--runtime", "60", "-o", report.string()});
  // Interrupted while it trains: once the dataset's manifest says it is complete.
  const fs::path manifest = disk.path() / "mlbench-dataload-small-files" / ".mlbench-dataset.json";
  auto complete = [&] {
    std::ifstream in(manifest);
    return std::string(std::istreambuf_iterator<char>(in), {}).find("\"complete\":true") != std::string::npos;
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!complete() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_TRUE(complete()) << "the dataset was not complete after 60 s";
  run.kill(SIGINT);
  // The fault this guards against (a wait deaf to SIGINT) lasts the whole --runtime.
  auto waited = run.wait_for(std::chrono::seconds(20));
  ASSERT_TRUE(waited.has_value()) << "still running 20 s after SIGINT";
  const CliResult& r = *waited;
  ASSERT_EQ(r.signal, 0) << "killed by signal " << r.signal;
  EXPECT_EQ(r.rc, 130) << r.err;
  EXPECT_TRUE(fs::is_empty(disk.path())) << "the dataset stayed";
  ASSERT_TRUE(fs::exists(report));
  EXPECT_EQ(validate_report_schema(report), "");
}

TEST(CheckpointCli, WritesReadsAndRemovesItsFolder) {
  TempDir t;
  storage::test::TempDir disk;
  auto report = t.path() / "r.json";
  auto r = run_cli(
      {"checkpoint", "--dir", disk.path().string(), "--size", "8M", "--ranks", "2", "-o", report.string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  auto j = json::parse(std::ifstream(report));
  const auto& res = j["results"][0];
  EXPECT_EQ(res["metrics"][0]["name"], "write_bandwidth");
  EXPECT_EQ(res["info"]["fsync_calls"], 2);
  EXPECT_EQ(res["work"]["bytes_written"], 8u << 20);
  EXPECT_EQ(res["work"]["bytes_read"], 8u << 20);
  EXPECT_TRUE(fs::is_empty(disk.path()));
  // The console shows the headline set under the row, not only the JSON.
  const auto row = r.out.find("storage.checkpoint");
  ASSERT_NE(row, std::string::npos) << r.out;
  const auto set = r.out.find("\n", row) + 1;
  const std::string line = r.out.substr(set, r.out.find("\n", set) - set);
  for (const char* f : {"write ", "B/s  read-back ", "stall ", "fsync max "})
    EXPECT_NE(line.find(f), std::string::npos) << f << " in: " << line;
}

// The sizing sheet's local storage lines come from storage.dataload's training reads and storage.checkpoint's
// writes when the report has them (the A100 fixture with its storage.io results swapped for those).
TEST(DataloadCli, SizingTakesTheStorageLinesFromTheMeasurement) {
  TempDir t;
  auto j =
      json::parse(std::ifstream(fs::path(MLBENCH_SOURCE_DIR) / "tests/data/sizing/report-a100-8gpu.json"));
  json kept = json::array();
  for (const auto& r : j["results"])
    if (r["probe"] != "storage.io") kept.push_back(r);
  auto metric = [](const char* name, double v, const char* unit) {
    return json{{"name", name}, {"value", v}, {"unit", unit}, {"better", "higher"}};
  };
  kept.push_back({{"probe", "storage.dataload"},
                  {"params", {{"workload", "resnet50"}, {"accelerator", "h100"}, {"phase", "train"}}},
                  {"status", "ok"},
                  {"metrics",
                   {metric("accelerators_supported", 12, ""), metric("samples_per_s", 21000, "1/s"),
                    metric("bandwidth", 2.46e9, "B/s")}}});
  kept.push_back(
      {{"probe", "storage.checkpoint"},
       {"params", {{"model", "8b"}, {"ranks", 8}}},
       {"status", "ok"},
       {"metrics", {metric("write_bandwidth", 3.1e9, "B/s"), metric("read_bandwidth", 2.2e9, "B/s")}}});
  j["results"] = kept;
  auto report = t.path() / "dataload.json";
  std::ofstream(report) << j.dump();
  auto r = run_cli({"size", "--workload",
                    (fs::path(MLBENCH_SOURCE_DIR) / "configs/workloads/resnet50-imagenet.yaml").string(),
                    "--report", report.string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  auto line = [&](const char* start) {
    auto at = r.out.find(start);
    return at == std::string::npos ? std::string() : r.out.substr(at, r.out.find('\n', at) - at);
  };
  const std::string read = line("Local storage read"), write = line("Local storage write");
  EXPECT_NE(read.find("measured"), std::string::npos) << r.out;
  EXPECT_NE(read.find("storage.dataload resnet50 (21000 samples/s, 12 accelerators supported) 2.46 GB/s"),
            std::string::npos)
      << read;
  EXPECT_NE(write.find("storage.checkpoint write 3.10 GB/s"), std::string::npos) << write;
}

// A forged dataset folder in a shared --data-dir (any user who may write there): its manifest names a file
// beside --data-dir through `ext`, or a trillion files. The run refuses it before anything, in one line, and
// removes nothing.
TEST(DataloadCli, ForgedManifestIsRefusedAndRemovesNothing) {
  TempDir t;
  const fs::path data = t.path() / "d", victim = t.path() / "victim.txt";
  const fs::path root = data / "mlbench-dataload-small-files";
  fs::create_directories(root / "0000" / "00000000.x");
  storage::test::write_file(victim, "precious");
  json m = {{"format", "mlbench-dataload-dataset"},
            {"version", 1},
            {"workload", "small-files"},
            {"ext", "x/../../../../victim.txt"},
            {"count", 1},
            {"seed", 1},
            {"sizes", {4096}},
            {"complete", true}};
  json huge = m;
  huge["ext"] = "jpeg";
  huge["count"] = 1000000000000ull;
  const std::pair<json, const char*> forged[] = {{m, "'ext'"}, {huge, "'count'"}};
  for (const auto& [manifest, mentions] : forged) {
    SCOPED_TRACE(mentions);
    storage::test::write_file(root / ".mlbench-dataset.json", manifest.dump());
    const auto report = t.path() / "r.json";
    const auto t0 = std::chrono::steady_clock::now();
    auto r = run_cli({"dataload", "--workload", "small-files", "--data-dir", data.string(), "--generate",
                      "--files", "4", "-o", report.string()});
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10.0);
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find(mentions), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(report));
    EXPECT_EQ(slurp(victim), "precious");
    EXPECT_TRUE(fs::is_directory(root / "0000" / "00000000.x"));
  }
}

// A checkpoint run killed with SIGKILL leaves its folder; the next run removes it before its own and says so.
TEST(CheckpointCli, KilledRunsFolderIsReclaimedWithAWarning) {
  TempDir t;
  storage::test::TempDir disk;
  const pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ::waitpid(dead, nullptr, 0);
  const std::string left = fmt::format("mlbench-checkpoint-{}-a1b2c3", dead);
  fs::create_directory(disk.path() / left);
  storage::test::write_file(disk.path() / left / "rank-0000.ckpt", std::string(3u << 20, 'x'));
  auto report = t.path() / "r.json";
  auto r = run_cli(
      {"checkpoint", "--dir", disk.path().string(), "--size", "8M", "--ranks", "2", "-o", report.string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("removed " + left + " (3.00 MiB)"), std::string::npos) << r.out;
  auto j = json::parse(std::ifstream(report));
  EXPECT_NE(j["results"][0]["warnings"].dump().find(left), std::string::npos) << j["results"][0].dump();
  EXPECT_TRUE(fs::is_empty(disk.path()));
}

// Refusals before anything runs: exit 2, one line, and the report of an earlier run at -o stays as it was.
TEST(CheckpointCli, ReadOnlyDirAndBuffersBeyondMemoryAreRefusedBeforeAnythingRuns) {
  TempDir t;
  storage::test::TempDir disk;
  const auto report = t.path() / "r.json";
  storage::test::write_file(report, "an earlier report");
  struct Refusal {
    std::vector<std::string> args;
    const char* mentions;
  };
  std::vector<Refusal> refusals = {
      {{"--dir", disk.path().string(), "--size", "1M", "--bs", "1G", "--depth", "256", "--ranks", "64"},
       "memory available"}};
  auto mount = storage::test::TmpfsMount::mount(disk.path() / "ro", "1m", true);
  if (mount) refusals.push_back({{"--dir", (disk.path() / "ro").string(), "--size", "1M"}, "not writable"});
  for (const auto& [args, mentions] : refusals) {
    SCOPED_TRACE(mentions);
    std::vector<std::string> argv = {"checkpoint"};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"-o", report.string()});
    auto r = run_cli(argv);
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find(mentions), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(slurp(report), "an earlier report");
  }
  if (mount) {
    EXPECT_TRUE(fs::is_empty(disk.path() / "ro"));
  } else {
    GTEST_SKIP() << "the memory refusal ran; the read-only folder needs root to mount a tmpfs";
  }
}

}  // namespace
}  // namespace mlbench::test
