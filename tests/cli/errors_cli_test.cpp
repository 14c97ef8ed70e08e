// Bad input in one form: every parse error of the command line is one line "mlbench: error: ..." naming the
// flag as the user typed it, exit 2, nothing on stdout; the same grammar of quantities on the command line
// and in config files; the exporter's outputs pass promtool.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "tests/cli/cli_util.hpp"

namespace mlbench::test {
namespace {

std::string source(const std::string& rel) { return std::string(MLBENCH_SOURCE_DIR) + "/" + rel; }

TEST(ErrorsCli, EveryParseErrorIsOneLineWithThePrefixAndTheFlagAsTyped) {
  TempDir dir;
  const std::string workload = source("configs/workloads/default.yaml");
  const std::string report = std::string(MLBENCH_TEST_DATA_DIR) + "/reports/run_a.json";
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const Case cases[] = {
      {{"size"}, "--workload is required"},
      {{"storage"}, "give --target PATH (fio: --filename, --directory) or --job FILE.fio"},
      {{"check"}, "report is required"},
      {{"size", "--workload", workload, "--prices", "/nonexistent-mlbench/p.yaml"},
       "--prices: File does not exist"},
      {{"export", report, "--format", "pdf"},
       "unknown --format 'pdf' (export writes html, prometheus or fio)"},
      {{"sysinfo", "--nope"}, "unknown option --nope"},
      {{"storage", "--target", dir.path().string(), "--iodeph", "4"},
       "unknown option --iodeph; did you mean --iodepth?"},
      {{"storage", "--target", dir.path().string(), "--numjobs"}, "--numjobs: 1 required"},
      {{"size", "--workload", workload, "-o"}, "-o: 1 required"},
      {{"size", "--workload", workload, "--nodes", "abc"}, "--nodes"},
      {{"stroage"}, "unknown subcommand 'stroage'; did you mean storage?"},
      {{"bogus"}, "unknown subcommand 'bogus' (subcommands: "},
      {{"storage", "--target", dir.path().string(), "--numjobs", "abc", "--dry-run"}, "--numjobs: 'abc'"},
  };
  for (const auto& c : cases) {
    auto r = run_cli(c.args);
    const std::string shown = fmt::format("{}", fmt::join(c.args, " "));
    EXPECT_EQ(r.rc, 2) << shown;
    EXPECT_EQ(r.out, "") << shown;
    EXPECT_EQ(r.err.rfind("mlbench: error: ", 0), 0u) << shown << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << shown << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << shown << ": " << r.err;
  }
  // The typed alias, not the canonical name.
  EXPECT_EQ(run_cli({"storage", "--target", dir.path().string(), "--numjobs"}).err.find("--jobs"),
            std::string::npos);
  // Help is still help: stdout, exit 0.
  auto help = run_cli({"size", "--help"});
  EXPECT_EQ(help.rc, 0);
  EXPECT_NE(help.out.find("--workload"), std::string::npos);
}

// Counts on the command line and in a config file take the decimal suffixes workload and thresholds files
// take (100k), durations and sizes theirs (2ms, 4k): one grammar through base/units.hpp.
TEST(ErrorsCli, ConfigFilesAndFlagsTakeOneUnitGrammar) {
  TempDir dir;
  auto cfg = dir.path() / "c.yaml";
  std::ofstream(cfg) << "profile: quick\nprobes: [storage.io]\noptions:\n  storage.io: {target: '"
                     << dir.path().string() << "', number_ios: 100k, bs: 4k, ramp: 2ms}\n";
  auto r = run_cli({"run", "--config", cfg.string(), "--dry-run"});
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::string plan = r.out;
  EXPECT_NE(plan.find("\"number_ios\": 100000"), std::string::npos) << plan;
  EXPECT_NE(plan.find("\"bs\": 4096"), std::string::npos) << plan;
  auto flags = run_cli(
      {"storage", "--target", dir.path().string(), "--number-ios", "100k", "--ramp", "2ms", "--dry-run"});
  ASSERT_EQ(flags.rc, 0) << flags.err;
  EXPECT_NE(flags.out.find("\"number_ios\": 100000"), std::string::npos) << flags.out;
}

}  // namespace
}  // namespace mlbench::test
