// The foundation's CLI contract: version, list, sysinfo, run's bad inputs and exit codes, --config, SIGINT.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/report.hpp"
#include "tests/cli/cli_util.hpp"

namespace mlbench::test {
namespace {

using nlohmann::json;

std::size_t count_lines(const std::string& s) {
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

TEST(CoreCli, VersionAndHelp) {
  auto r = run_cli({"--version"});
  EXPECT_EQ(r.rc, 0);
  EXPECT_EQ(r.out.rfind("mlbench ", 0), 0u) << r.out;
  EXPECT_EQ(run_cli({}).rc, 2);  // a subcommand is required
  EXPECT_EQ(run_cli({"--help"}).rc, 0);
}

TEST(CoreCli, ListShowsEveryProbeWithReasons) {
  auto r = run_cli({"list", "--json"});
  ASSERT_EQ(r.rc, 0) << r.err;
  auto probes = json::parse(r.out);
  ASSERT_TRUE(probes.is_array());
  ASSERT_FALSE(probes.empty());
  bool membw = false;
  for (const auto& p : probes) {
    if (p["id"] == "host.membw") membw = p["available"].get<bool>();
    if (!p["available"].get<bool>()) {
      EXPECT_FALSE(p["reason"].get<std::string>().empty()) << p.dump();
    }
  }
  EXPECT_TRUE(membw);
  auto table = run_cli({"list"});
  EXPECT_EQ(table.rc, 0);
  EXPECT_NE(table.out.find("host.membw"), std::string::npos);
  // The AVAILABLE column starts at one offset in every row, however long a probe id is (storage.checkpoint).
  std::istringstream lines(table.out);
  std::string line;
  std::getline(lines, line);
  const auto column = line.find("AVAILABLE");
  ASSERT_NE(column, std::string::npos) << line;
  for (const auto& p : probes) {
    const auto id = p["id"].get<std::string>();
    const auto row = table.out.find("\n" + id + " ");
    ASSERT_NE(row, std::string::npos) << id;
    const auto cell = table.out.find_first_not_of(' ', row + 1 + id.size());
    EXPECT_EQ(cell - (row + 1), column) << id;
  }
}

TEST(CoreCli, SysinfoJsonHasTheInventorySections) {
  auto r = run_cli({"sysinfo", "--json"});
  ASSERT_EQ(r.rc, 0) << r.err;
  auto host = json::parse(r.out);
  for (const char* key : {"cpu", "memory", "numa", "block_devices", "nics", "gpus", "notes"}) {
    EXPECT_TRUE(host.contains(key)) << key;
  }
  EXPECT_TRUE(host["gpus"].is_array());
  EXPECT_GT(host["cpu"].value("threads", 0), 0);
  EXPECT_GT(host["memory"].value("total_bytes", 0.0), 0.0);
}

TEST(CoreCli, UnknownProbeListsTheKnownOnes) {
  auto r = run_cli({"run", "--probe", "nope"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_EQ(count_lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("unknown probe 'nope'"), std::string::npos);
  EXPECT_NE(r.err.find("host.membw"), std::string::npos);
}

TEST(CoreCli, UnwritableOutputFailsBeforeAnyProbeRuns) {
  auto start = std::chrono::steady_clock::now();
  auto r = run_cli({"run", "-o", "/nonexistent/dir/r.json"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("/nonexistent"), std::string::npos) << r.err;
  EXPECT_EQ(count_lines(r.err), 1u) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}

TEST(CoreCli, BogusProfile) {
  auto r = run_cli({"run", "--profile", "bogus"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("unknown profile 'bogus'"), std::string::npos) << r.err;
}

TEST(CoreCli, InvalidYamlConfigNamesTheLine) {
  TempDir dir;
  auto cfg = dir.path() / "bad.yaml";
  std::ofstream(cfg) << "profile: quick\nprobes: [host.membw\noptions: {}\n";
  auto out = dir.path() / "r.json";
  auto r = run_cli({"run", "--config", cfg.string(), "-o", out.string()});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find(cfg.string() + ":"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("invalid YAML"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));

  std::ofstream(cfg) << "profile: quick\nprobs: [host.membw]\n";
  r = run_cli({"run", "--config", cfg.string()});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("unknown key 'probs'"), std::string::npos) << r.err;
}

TEST(CoreCli, DryRunPrintsTheEffectivePlan) {
  TempDir dir;
  auto cfg = dir.path() / "c.yaml";
  std::ofstream(cfg) << "profile: quick\nprobes: [host.membw]\n";
  auto r = run_cli({"run", "--config", cfg.string(), "--dry-run"});
  ASSERT_EQ(r.rc, 0) << r.err;
  auto plan = json::parse(r.out);
  EXPECT_EQ(plan["profile"], "quick");
  ASSERT_FALSE(plan["cases"].empty());
  for (const auto& c : plan["cases"]) EXPECT_EQ(c["probe"], "host.membw");
}

TEST(CoreCli, QuickHostMemoryRunWritesAValidReport) {
  TempDir dir;
  auto out = dir.path() / "r.json";
  // A working set that Debug/ASan builds (several times slower) also sweep within the quick time budget.
  auto cfg = dir.path() / "c.yaml";
  std::ofstream(cfg) << "options:\n  host.membw: {size: 96M}\n";
  auto r = run_cli(
      {"run", "--profile", "quick", "--probe", "host.membw", "--config", cfg.string(), "-o", out.string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("report written to " + out.string()), std::string::npos) << r.out;
  EXPECT_EQ(validate_report_schema(out), "");
  auto rep = load_report(out);
  ASSERT_FALSE(rep.results.empty());
  for (const auto& res : rep.results) {
    EXPECT_EQ(res.probe, "host.membw");
    EXPECT_EQ(res.status, Status::ok) << res.reason;
    ASSERT_NE(res.metric("bandwidth"), nullptr);
    EXPECT_GT(res.metric("bandwidth")->value, 0);
  }
  // Not on a terminal (a pipe here, a CI log): one progress line per finished case on stderr. The quick
  // profile's one case gives a result per kernel: the line shows the first and counts the others.
  const auto at = r.err.find("mlbench: [1/1] host.membw ");
  ASSERT_NE(at, std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("mlbench: [", at + 1), std::string::npos) << "one line for the one case\n" << r.err;
  const std::string line = r.err.substr(at, r.err.find('\n', at) - at);
  EXPECT_NE(line.find(": ok, bandwidth "), std::string::npos) << line;
  if (rep.results.size() > 1) {
    EXPECT_NE(line.find(fmt::format("(+{} results)", rep.results.size() - 1)), std::string::npos) << line;
  }
}

// The last line of a run that measured nothing says so; exit 0 as documented, 1 with --require of such a
// probe. With no visible GPU the GPU probes are skipped in every build (CUDA builds see no device, CPU ones
// have none).
TEST(CoreCli, ARunWhoseProbesWereAllSkippedSaysSoInItsLastLine) {
  const std::vector<std::string> no_gpu = {"CUDA_VISIBLE_DEVICES="};
  auto r = run_cli({"run", "--profile", "quick", "--probe", "gpu.gemm", "--probe", "gpu.hbm"}, no_gpu);
  EXPECT_EQ(r.rc, 0) << r.out << r.err;
  ASSERT_FALSE(r.out.empty());
  auto last = r.out.substr(r.out.rfind('\n', r.out.size() - 2) + 1);
  EXPECT_EQ(last.rfind("nothing measured: every requested probe was skipped (gpu.gemm", 0), 0u) << r.out;
  EXPECT_NE(last.find("gpu.hbm"), std::string::npos) << last;

  auto req = run_cli({"run", "--profile", "quick", "--probe", "gpu.gemm", "--require", "gpu.gemm"}, no_gpu);
  EXPECT_EQ(req.rc, 1) << req.out << req.err;
  EXPECT_NE(req.err.find("--require gpu.gemm: measured nothing (gpu.gemm skipped — "), std::string::npos)
      << req.err;

  auto bad = run_cli({"run", "--probe", "gpu.gemm", "--require", "gpu.gemmm"}, no_gpu);
  EXPECT_EQ(bad.rc, 2);
  EXPECT_EQ(count_lines(bad.err), 1u) << bad.err;
  EXPECT_NE(bad.err.find("--require: unknown probe 'gpu.gemmm'"), std::string::npos) << bad.err;
}

TEST(CoreCli, SigintLeavesAValidReportOfFinishedCasesAndExits130) {
  TempDir dir;
  auto out = dir.path() / "r.json";
  auto scratch = dir.path() / "scratch";
  std::filesystem::create_directories(scratch);
  auto cfg = dir.path() / "c.yaml";
  // A short first case (host memory), then the storage suite, which is running when the signal arrives.
  std::ofstream(cfg)
      << "profile: quick\nprobes: [host.membw, storage.io]\noptions:\n  host.membw: {size: 48M}\n"
      << "  storage.io: {dir: '" << scratch.string() << "'}\n";
  auto run = spawn_cli({"run", "--config", cfg.string(), "-o", out.string()});
  // Wait until the first case has been written, then interrupt the run in the middle of a later one.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < deadline) {
    if (std::filesystem::exists(out) && !load_report(out).results.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  run.kill(SIGINT);
  auto r = run.wait();
  ASSERT_EQ(r.signal, 0) << "killed by signal " << r.signal;
  EXPECT_EQ(r.rc, 130) << r.err;
  EXPECT_EQ(validate_report_schema(out), "");
  auto rep = load_report(out);
  EXPECT_EQ(rep.run["interrupted"], true);
  ASSERT_FALSE(rep.results.empty());
  EXPECT_EQ(rep.results.front().probe, "host.membw");
  for (const auto& res : rep.results) EXPECT_NE(res.status, Status::failed) << res.reason;
  // The storage suite's scratch file is gone.
  EXPECT_TRUE(std::filesystem::is_empty(scratch));
}

}  // namespace
}  // namespace mlbench::test
