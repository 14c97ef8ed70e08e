// Hostile input files end to end: devices and alias bombs in every command that reads a file, refused in one
// line with exit 2 and nothing on stdout, quickly.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/cli/cli_util.hpp"

namespace mlbench::test {
namespace {

namespace fs = std::filesystem;

std::size_t lines(const std::string& s) {
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

std::string report(const char* name) { return (fs::path(MLBENCH_TEST_DATA_DIR) / "reports" / name).string(); }
std::string workload(const char* name) {
  return (fs::path(MLBENCH_SOURCE_DIR) / "configs" / "workloads" / name).string();
}

void expect_one_line_exit_2(const std::vector<std::string>& args, const std::string& needle) {
  const auto t0 = std::chrono::steady_clock::now();
  const CliResult r = run_cli(args);
  const std::string cmd = args[0] + " " + args[1];
  EXPECT_EQ(r.rc, 2) << cmd << ": " << r.err;
  EXPECT_EQ(lines(r.err), 1u) << cmd << ": " << r.err;
  EXPECT_EQ(r.err.rfind("mlbench: error: ", 0), 0u) << cmd << ": " << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << cmd << ": " << r.err;
  EXPECT_EQ(r.out, "") << cmd;
  // Unbounded, an alias bomb grew to gigabytes and aborted. Bounded, it stops at the value limit; the bound
  // leaves room for a sanitizer build, which expands the aliases up to the limit two orders of magnitude
  // slower.
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(60)) << cmd;
}

TEST(InputsCli, DevZeroAsAReportWorkloadExpectationOrHostListIsOneLineAndExit2) {
  const std::string why = "/dev/zero: is a character device";
  expect_one_line_exit_2({"check", "/dev/zero"}, why);
  expect_one_line_exit_2({"compare", report("run_a.json"), "/dev/zero"}, why);
  expect_one_line_exit_2({"export", "--format", "html", "/dev/zero"}, why);
  expect_one_line_exit_2(
      {"compare", "--fleet", (fs::path(MLBENCH_TEST_DATA_DIR) / "reports" / "fleet").string(), "--expect",
       "@/dev/zero"},
      why);
  expect_one_line_exit_2({"size", "--workload", "/dev/zero"}, why);
  expect_one_line_exit_2({"size", "--workload", workload("default.yaml"), "--report", "/dev/zero"}, why);
  expect_one_line_exit_2({"check", report("run_a.json"), "--expect", "/dev/zero"}, why);
  expect_one_line_exit_2({"run", "--config", "/dev/zero"}, why);
}

// 9 anchors of 9 aliases each: a few hundred bytes that expand to 9^9 values.
TEST(InputsCli, NestedAliasesInEveryYamlEntryPointAreOneLineAndExit2) {
  TempDir dir;
  std::string y = "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n";
  for (char c = 'b'; c <= 'i'; ++c) {
    std::string prev(1, static_cast<char>(c - 1));
    y += std::string(1, c) + ": &" + std::string(1, c) + " [";
    for (int i = 0; i < 9; ++i) y += (i ? ",*" : "*") + prev;
    y += "]\n";
  }
  const fs::path bomb = dir / "laughs.yaml";
  std::ofstream(bomb) << y;
  const std::string why = "more than 1000000 values once its aliases are expanded";
  expect_one_line_exit_2({"run", "--config", bomb.string()}, why);
  expect_one_line_exit_2({"size", "--workload", bomb.string()}, why);
  expect_one_line_exit_2({"check", report("run_a.json"), "--expect", bomb.string()}, why);
  expect_one_line_exit_2({"dataload", "--dlio", bomb.string(), "--data-dir", dir.path().string()}, why);
}

}  // namespace
}  // namespace mlbench::test
