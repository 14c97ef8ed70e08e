// `mlbench sysinfo` on fixture trees and `mlbench hostmem`: a real quick run, its report, and bad input.
#include <gtest/gtest.h>
#include <sched.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_util.hpp"

namespace mlbench::test {
namespace {

using nlohmann::json;

const std::string kTwoSocket = std::string(MLBENCH_TEST_DATA_DIR) + "/sysfs/two_socket";

TEST(HostCli, SysinfoReadsAFixtureRoot) {
  auto r = run_cli({"sysinfo", "--json", "--root", kTwoSocket});
  ASSERT_EQ(r.rc, 0) << r.err;
  auto host = json::parse(r.out);
  EXPECT_EQ(host["hostname"], "gpu-node-07");
  EXPECT_EQ(host["cpu"]["sockets"], 2);
  EXPECT_EQ(host["numa"].size(), 2u);
  EXPECT_EQ(host["raid"][0]["members"], (std::vector<std::string>{"nvme1n1", "nvme2n1"}));
  EXPECT_TRUE(host["gpus"].empty());
  auto table = run_cli({"sysinfo", "--root", kTwoSocket});
  ASSERT_EQ(table.rc, 0) << table.err;
  EXPECT_NE(table.out.find("gpu-node-07"), std::string::npos) << table.out;
}

TEST(HostCli, SysinfoRefusesAMissingRoot) {
  auto r = run_cli({"sysinfo", "--root", "/nonexistent-mlbench-root"});
  EXPECT_EQ(r.rc, 2) << r.out << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("--root /nonexistent-mlbench-root: not a folder"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

// More threads than CPUs share them: the run says so instead of reporting a quietly lower bandwidth.
TEST(HostCli, HostmemWarnsAboutMoreThreadsThanCpus) {
  cpu_set_t set;
  ASSERT_EQ(::sched_getaffinity(0, sizeof set, &set), 0);
  const std::string threads = std::to_string(CPU_COUNT(&set) + 1);  // the child inherits this affinity
  auto r = run_cli({"hostmem", "--profile", "quick", "--size", "48M", "--kernels", "copy", "--threads",
                    threads, "--json"});
  ASSERT_EQ(r.rc, 0) << r.err;
  auto warnings = json::parse(r.out)["results"][0]["warnings"].dump();
  EXPECT_NE(warnings.find("--threads " + threads + " is more than the "), std::string::npos) << warnings;
}

TEST(HostCli, HostmemQuickRunWritesAVerifiedReport) {
  TempDir dir;
  auto out = dir.path() / "r.json";
  auto r = run_cli(
      {"hostmem", "--profile", "quick", "--size", "48M", "--kernels", "copy,triad", "-o", out.string()});
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("host.membw"), std::string::npos) << r.out;
  EXPECT_EQ(validate_report_schema(out), "");
  std::ifstream in(out);
  auto report = json::parse(in);
  ASSERT_EQ(report["results"].size(), 2u);
  for (const auto& res : report["results"]) {
    EXPECT_EQ(res["probe"], "host.membw");
    EXPECT_EQ(res["status"], "ok");
    EXPECT_EQ(res["metrics"][0]["name"], "bandwidth");
    EXPECT_GT(res["metrics"][0]["value"].get<double>(), 0.0);
  }
  EXPECT_EQ(report["results"][0]["params"]["kernel"], "copy");
  EXPECT_EQ(report["results"][1]["params"]["kernel"], "triad");
}

TEST(HostCli, HostmemDryRunShowsThePlan) {
  auto r = run_cli({"hostmem", "--dry-run", "--threads", "1", "--no-numa", "--stores", "regular"});
  ASSERT_EQ(r.rc, 0) << r.err;
  auto plan = json::parse(r.out);
  ASSERT_EQ(plan["cases"].size(), 1u);
  EXPECT_EQ(plan["cases"][0]["probe"], "host.membw");
  EXPECT_EQ(plan["cases"][0]["params"]["threads"], 1);
  EXPECT_EQ(plan["cases"][0]["config"]["numa"], false);
  EXPECT_EQ(plan["cases"][0]["config"]["stores"], "regular");
}

TEST(HostCli, HostmemBadInputExits2WithOneLine) {
  TempDir dir;
  auto out = dir.path() / "r.json";
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"hostmem", "--kernels", "triad,dot", "-o", out.string()},
                                             {"hostmem", "--threads", "0", "-o", out.string()},
                                             {"hostmem", "--size", "100T", "-o", out.string()},
                                             {"hostmem", "--size", "lots", "-o", out.string()},
                                             {"hostmem", "--stores", "fast", "-o", out.string()}}) {
    auto r = run_cli(args);
    EXPECT_EQ(r.rc, 2) << args[1] << " " << args[2] << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << args[1];
  }
}

}  // namespace
}  // namespace mlbench::test
