// `mlbench export --format prometheus` over reports this build really measured (a storage.io randrw job on
// a temp folder, a host.membw triad): every family named by the one rule, each parameter its own label, no
// empty label, and promtool's lint finds nothing.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <string>

#include "tests/cli/cli_util.hpp"

namespace mlbench::test {
namespace {

int shell(const std::string& cmd) {
  int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

TEST(ExpositionCli, RealStorageAndMembwReportsExportCleanly) {
  TempDir dir;
  auto storage = dir.path() / "storage.json";
  auto membw = dir.path() / "membw.json";
  auto s = run_cli({"storage", "--target", dir.path().string(), "--rw", "randrw", "--bs", "4k", "--iodepth",
                    "4", "--size", "4M", "--runtime", "0.2s", "--no-direct", "-o", storage.string()});
  ASSERT_EQ(s.rc, 0) << s.err;
  auto m = run_cli({"hostmem", "--profile", "quick", "--size", "16M", "--kernels", "triad", "--threads", "1",
                    "-o", membw.string()});
  ASSERT_EQ(m.rc, 0) << m.err;
  std::string text;
  for (const auto& report : {storage, membw}) {
    auto e = run_cli({"export", report.string(), "--format", "prometheus"});
    ASSERT_EQ(e.rc, 0) << e.err;
    text += e.out;
  }
  EXPECT_NE(text.find("mlbench_read_io_per_second{probe=\"storage.io\""), std::string::npos) << text;
  EXPECT_NE(text.find("mlbench_write_io_per_second{"), std::string::npos) << text;
  EXPECT_NE(text.find(",bs=\"4096\""), std::string::npos) << text;
  EXPECT_NE(text.find(",iodepth=\"4\""), std::string::npos) << text;
  EXPECT_NE(text.find("mlbench_bandwidth_bytes_per_second{probe=\"host.membw\""), std::string::npos) << text;
  EXPECT_EQ(text.find("params="), std::string::npos) << text;
  EXPECT_EQ(text.find("=\"\""), std::string::npos) << text;  // no empty label (device="")
  EXPECT_FALSE(std::regex_search(text, std::regex("iops_per|_per_s_|_seconds_seconds"))) << text;
  if (shell("command -v promtool > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "promtool not installed (Debian package 'prometheus')";
  // Each report alone (the textfile collector reads one file per report).
  for (const auto& report : {storage, membw}) {
    auto prom = dir.path() / "x.prom";
    ASSERT_EQ(run_cli({"export", report.string(), "--format", "prometheus", "-o", prom.string()}).rc, 0);
    auto log = dir.path() / "log";
    EXPECT_EQ(shell("promtool check metrics < '" + prom.string() + "' > '" + log.string() + "' 2>&1"), 0)
        << slurp(log);
    EXPECT_EQ(slurp(log), "") << report;
  }
}

}  // namespace
}  // namespace mlbench::test
