// What -o names, end to end: a file is replaced keeping its mode and owner; a character device stays one; a
// symbolic link to a file is refused in one line before anything is written; `-` is stdout.
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "tests/cli/cli_util.hpp"

namespace mlbench::test {
namespace {

namespace fs = std::filesystem;

std::string report(const char* name) { return (fs::path(MLBENCH_TEST_DATA_DIR) / "reports" / name).string(); }

// A node of the null device in a temp folder stands for /dev/null, which the test never touches.
TEST(OutputCli, ACharacterDeviceGivenToDashOStaysOne) {
  TempDir dir;
  const fs::path null = dir / "null";
  if (::mknod(null.c_str(), S_IFCHR | 0666, ::makedev(1, 3)) != 0)
    GTEST_SKIP() << "mknod needs root (CAP_MKNOD): " << std::strerror(errno);
  ASSERT_EQ(::chmod(null.c_str(), 0666), 0);  // not the umask's
  auto r = run_cli({"compare", "--no-fail", report("run_a.json"), report("run_b.json"), "-o", null.string()});
  EXPECT_EQ(r.rc, 0) << r.err;
  struct stat st {};
  ASSERT_EQ(::lstat(null.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_EQ(st.st_rdev, ::makedev(1, 3));
  EXPECT_EQ(st.st_mode & 07777, 0666u);
}

TEST(OutputCli, AnExistingReportKeepsItsModeAndOwner) {
  TempDir dir;
  const fs::path out = dir / "diff.txt";
  std::ofstream(out) << "old";
  ASSERT_EQ(::chmod(out.c_str(), 0640), 0);
  const bool root = ::geteuid() == 0;
  if (root) {
    ASSERT_EQ(::chown(out.c_str(), 4321, 8765), 0);
  }
  auto r = run_cli({"compare", "--no-fail", report("run_a.json"), report("run_b.json"), "-o", out.string()});
  EXPECT_EQ(r.rc, 0) << r.err;
  struct stat st {};
  ASSERT_EQ(::lstat(out.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  if (root) {
    EXPECT_EQ(st.st_uid, 4321u);
    EXPECT_EQ(st.st_gid, 8765u);
  }
  EXPECT_NE(slurp(out), "old");
}

TEST(OutputCli, ALinkToAFileIsRefusedInOneLineBeforeAnythingRuns) {
  TempDir dir;
  const fs::path target = dir / "theirs.json", link = dir / "r.json";
  std::ofstream(target) << "theirs";
  fs::create_symlink(target, link);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"compare", "--no-fail", report("run_a.json"), report("run_b.json"), "-o",
                                 link.string()},
        std::vector<std::string>{"hostmem", "--size", "1M", "-o", link.string()}}) {
    auto r = run_cli(args);
    EXPECT_EQ(r.rc, 2) << args[0] << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("is a symbolic link"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(slurp(target), "theirs");
}

TEST(OutputCli, DashIsStdout) {
  TempDir dir;
  auto to_file =
      run_cli({"compare", "--no-fail", "--format", "csv", report("run_a.json"), report("run_b.json")});
  auto dash = run_cli(
      {"compare", "--no-fail", "--format", "csv", report("run_a.json"), report("run_b.json"), "-o", "-"});
  EXPECT_EQ(dash.rc, 0) << dash.err;
  EXPECT_EQ(dash.out, to_file.out);
  EXPECT_FALSE(fs::exists("-"));
}

}  // namespace
}  // namespace mlbench::test
