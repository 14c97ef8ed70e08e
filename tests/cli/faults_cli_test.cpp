// Fault injection through the real binary: a full disk during a write job and under the report, EIO from the
// target, read-only folders, SIGINT/SIGTERM at random points of a run, a killed rank of a multi-process run,
// sizes that cannot be allocated and unwritable output paths. Each fault must end in a clear message and the
// documented exit code, with no hang, no crash, no partial report and no scratch file left behind.
// Mounts and loop devices need root; without it those tests skip with the reason.
#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_util.hpp"
#include "tests/storage/storage_test_util.hpp"

namespace mlbench::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;
using storage::test::is_root;
using storage::test::LoopDevice;
using storage::test::sh;
using storage::test::TmpfsMount;

// How long any faulted run may take to end before the test calls it a hang.
constexpr seconds kHang{120};

std::size_t count_lines(const std::string& s) {
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

json read_json(const fs::path& p) { return json::parse(std::ifstream(p)); }

// Names in `dir` that mlbench's scratch files (".mlbench-io-*") or atomic-write temp files (".NAME.XXXXXX")
// would have.
std::vector<std::string> leftovers(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    auto name = e.path().filename().string();
    if (name.front() == '.') out.push_back(name);
  }
  return out;
}

// A folder nobody may write into: a read-only tmpfs for root (who ignores permission bits), else mode 0555.
class UnwritableDir {
 public:
  explicit UnwritableDir(const fs::path& p) : path_(p), mount_(make(p)) {}
  ~UnwritableDir() {
    if (!is_root()) fs::permissions(path_, fs::perms::owner_all);
  }
  UnwritableDir(const UnwritableDir&) = delete;
  UnwritableDir& operator=(const UnwritableDir&) = delete;
  bool ok() const { return !is_root() || mount_.has_value(); }
  const fs::path& path() const { return path_; }

 private:
  static std::optional<TmpfsMount> make(const fs::path& p) {
    fs::create_directories(p);
    if (is_root()) return TmpfsMount::mount(p, "1m", true);
    fs::permissions(p, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                           fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
    return std::nullopt;
  }

  fs::path path_;
  std::optional<TmpfsMount> mount_;
};

// ---- disk full, EIO, read-only filesystems --------------------------------------------------------------

TEST(FaultsCli, DiskFullDuringAWriteJobFailsTheCaseWithEnospcAndKeepsTheTarget) {
  if (!is_root()) GTEST_SKIP() << "needs root to mount a small tmpfs";
  TempDir t;
  auto fsdir = t.path() / "small";
  auto mount = TmpfsMount::mount(fsdir, "4m");
  if (!mount) GTEST_SKIP() << "cannot mount tmpfs here";
  // A sparse file larger than its filesystem (thin provisioning): the job's writes run out of space.
  auto thin = fsdir / "thin.img";
  std::ofstream(thin).close();
  fs::resize_file(thin, 64u << 20);
  auto report = t.path() / "r.json";
  auto run = spawn_cli({"storage", "--target", thin.string(), "--rw", "write", "--bs", "1M", "--no-direct",
                        "--allow-destructive", "--runtime", "10", "-o", report.string()});
  auto r = run.wait_for(kHang);
  ASSERT_TRUE(r) << "mlbench hung on a full filesystem";
  EXPECT_EQ(r->rc, 1) << r->err;
  EXPECT_NE(r->out.find("ENOSPC"), std::string::npos) << r->out;  // the summary shows the reason
  ASSERT_EQ(validate_report_schema(report), "");
  auto j = read_json(report);
  ASSERT_EQ(j["results"].size(), 1u);
  EXPECT_EQ(j["results"][0]["status"], "failed");
  EXPECT_NE(j["results"][0]["reason"].get<std::string>().find("ENOSPC"), std::string::npos)
      << j["results"][0]["reason"];
  EXPECT_TRUE(fs::exists(thin)) << "an existing target is never removed";
  EXPECT_TRUE(leftovers(fsdir).empty());
}

TEST(FaultsCli, FullOutputFilesystemIsAnErrorNamingTheReportAndLeavesNoTempFile) {
  if (!is_root()) GTEST_SKIP() << "needs root to mount a small tmpfs";
  TempDir t;
  auto fsdir = t.path() / "full";
  auto mount = TmpfsMount::mount(fsdir, "1m");
  if (!mount) GTEST_SKIP() << "cannot mount tmpfs here";
  // Fill it: the folder stays writable (the -o check passes), but no byte of the report fits.
  sh("dd if=/dev/zero of=" + (fsdir / "filler").string() + " bs=64k");
  auto report = fsdir / "r.json";
  auto run = spawn_cli({"hostmem", "--size", "8M", "-o", report.string()});
  auto r = run.wait_for(kHang);
  ASSERT_TRUE(r) << "mlbench hung on a full output filesystem";
  EXPECT_EQ(r->rc, 1) << r->err;
  EXPECT_EQ(count_lines(r->err), 1u) << r->err;
  EXPECT_NE(r->err.find(report.string()), std::string::npos) << r->err;
  EXPECT_NE(r->err.find("No space left on device"), std::string::npos) << r->err;
  EXPECT_FALSE(fs::exists(report));
  EXPECT_TRUE(leftovers(fsdir).empty()) << leftovers(fsdir).front();
}

TEST(FaultsCli, EioFromTheTargetFailsTheCaseWithEio) {
  if (!is_root()) GTEST_SKIP() << "needs root for loop devices";
  TempDir t;
  auto backing = t.path() / "disk.img";
  std::ofstream(backing).close();
  fs::resize_file(backing, 16u << 20);
  auto loop = LoopDevice::attach(backing);
  if (!loop) GTEST_SKIP() << "no loop device (losetup failed)";
  // The device keeps its 16 MiB, its backing file shrinks to 1 MiB: reads beyond it fail with EIO.
  fs::resize_file(backing, 1u << 20);
  auto report = t.path() / "r.json";
  auto run = spawn_cli({"storage", "--target", loop->path(), "--rw", "randread", "--bs", "4k", "--runtime",
                        "10", "-o", report.string()});
  auto r = run.wait_for(kHang);
  ASSERT_TRUE(r) << "mlbench hung on EIO";
  EXPECT_EQ(r->rc, 1) << r->err;
  ASSERT_EQ(validate_report_schema(report), "");
  auto j = read_json(report);
  ASSERT_EQ(j["results"].size(), 1u);
  EXPECT_EQ(j["results"][0]["status"], "failed");
  EXPECT_NE(j["results"][0]["reason"].get<std::string>().find("EIO"), std::string::npos)
      << j["results"][0]["reason"];
  EXPECT_EQ(fs::file_size(backing), 1u << 20) << "a read job wrote to the target";
}

TEST(FaultsCli, ReadOnlyTargetFolderIsRefusedBeforeTheRun) {
  TempDir t;
  UnwritableDir ro(t.path() / "ro");
  if (!ro.ok()) GTEST_SKIP() << "cannot mount a read-only tmpfs here";
  auto report = t.path() / "r.json";
  auto r = run_cli({"storage", "--target", ro.path().string(), "--rw", "randread", "--size", "1M",
                    "--runtime", "1", "-o", report.string()});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_EQ(count_lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find(ro.path().string()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("not writable"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(report));
  // The suite's folder (run --storage-dir) is refused the same way.
  auto suite = run_cli({"run", "--probe", "storage.io", "--profile", "quick", "--storage-dir",
                        ro.path().string(), "-o", report.string()});
  EXPECT_EQ(suite.rc, 2) << suite.err;
  EXPECT_NE(suite.err.find("not writable"), std::string::npos) << suite.err;
  EXPECT_FALSE(fs::exists(report));
}

// ---- targets that lead to a loop device's backing file ------------------------------------------------

TEST(FaultsCli, ABindMountPathToALoopBackingFileIsRefusedWithAllowDestructive) {
  if (!is_root()) GTEST_SKIP() << "needs root for a loop device and a bind mount";
  std::string unshare;
  if (sh("command -v unshare", &unshare) != 0) GTEST_SKIP() << "unshare is not installed";
  unshare.erase(unshare.find_last_not_of(" \n") + 1);
  if (sh(unshare + " -m --propagation private true") != 0)
    GTEST_SKIP() << "cannot make a private mount namespace here (unshare -m)";
  TempDir t;
  auto backing = t.path() / "disk.img";
  std::ofstream(backing) << std::string(8u << 20, 'x');
  auto loop = LoopDevice::attach(backing);
  if (!loop) GTEST_SKIP() << "no loop device (losetup failed)";
  // The same inode under another path that no name comparison can tie to it. The bind mount lives in a mount
  // namespace of its own, which ends (unmounting it) with the command.
  auto bind = t.path() / "bind.img";
  std::ofstream(bind).close();
  auto report = t.path() / "r.json";
  const std::string script = "mount --bind '" + backing.string() + "' '" + bind.string() + "' && exec '" +
                             MLBENCH_EXE + "' storage --target '" + bind.string() +
                             "' --rw write --allow-destructive --runtime 1 -o '" + report.string() + "'";
  auto run = spawn_program({unshare, "-m", "--propagation", "private", "/bin/sh", "-c", script});
  auto r = run.wait_for(kHang);
  ASSERT_TRUE(r) << "mlbench hung";
  EXPECT_EQ(r->rc, 2) << r->err;
  EXPECT_EQ(count_lines(r->err), 1u) << r->err;
  EXPECT_NE(r->err.find("refusing to write to " + bind.string()), std::string::npos) << r->err;
  EXPECT_NE(r->err.find("backs loop device " + loop->path()), std::string::npos) << r->err;
  EXPECT_FALSE(fs::exists(report));
  EXPECT_EQ(slurp(backing), std::string(8u << 20, 'x'));
}

// ---- unwritable output paths ---------------------------------------------------------------------------

// Every command that takes -o, with arguments that would otherwise run (or fail late).
std::vector<std::vector<std::string>> commands_with_output() {
  const std::string data = std::string(MLBENCH_TEST_DATA_DIR) + "/reports/";
  const std::string workload = std::string(MLBENCH_SOURCE_DIR) + "/configs/workloads/default.yaml";
  return {{"run", "--profile", "quick", "--probe", "host.membw"},
          {"hostmem", "--size", "8M"},
          {"storage", "--target", fs::temp_directory_path().string(), "--size", "1M", "--runtime", "1"},
          {"nccl", "--profile", "quick"},
          {"compare", data + "run_a.json", data + "run_b.json"},
          {"check", data + "run_a.json"},
          {"export", data + "run_a.json", "--format", "prometheus"},
          {"size", "--workload", workload}};
}

void expect_refused_before_running(const std::vector<std::string>& cmd, const fs::path& out,
                                   const char* says) {
  auto args = cmd;
  args.insert(args.end(), {"-o", out.string()});
  auto r = run_cli(args);
  EXPECT_EQ(r.rc, 2) << cmd[0] << ": " << r.err;
  EXPECT_EQ(count_lines(r.err), 1u) << cmd[0] << ": " << r.err;
  EXPECT_NE(r.err.find(says), std::string::npos) << cmd[0] << ": " << r.err;
  // Nothing ran: no summary, no progress, no report.
  EXPECT_TRUE(r.out.empty()) << cmd[0] << ": " << r.out;
  EXPECT_FALSE(fs::is_regular_file(out)) << cmd[0];
}

TEST(FaultsCli, OutputInAMissingFolderIsRefusedBeforeAnyProbeRuns) {
  TempDir t;
  for (const auto& cmd : commands_with_output())
    expect_refused_before_running(cmd, t.path() / "missing" / "r.json", "does not exist");
  EXPECT_TRUE(fs::is_empty(t.path()));
}

TEST(FaultsCli, OutputThatIsAFolderIsRefusedBeforeAnyProbeRuns) {
  TempDir t;
  for (const auto& cmd : commands_with_output()) expect_refused_before_running(cmd, t.path(), "is a folder");
  EXPECT_TRUE(fs::is_empty(t.path()));
}

TEST(FaultsCli, OutputInAReadOnlyFolderIsRefusedBeforeAnyProbeRuns) {
  TempDir t;
  UnwritableDir ro(t.path() / "ro");
  if (!ro.ok()) GTEST_SKIP() << "cannot mount a read-only tmpfs here";
  for (const auto& cmd : commands_with_output())
    expect_refused_before_running(cmd, ro.path() / "r.json", "not writable");
  EXPECT_TRUE(fs::is_empty(ro.path()));
}

// ---- sizes that cannot be allocated --------------------------------------------------------------------

TEST(FaultsCli, HostArraysLargerThanMemoryAreRefusedBeforeAllocating) {
  TempDir t;
  auto report = t.path() / "r.json";
  for (const char* size : {"100T", "1000000T"}) {
    auto r = run_cli({"hostmem", "--size", size, "-o", report.string()});
    EXPECT_EQ(r.rc, 2) << size << ": " << r.err;
    EXPECT_EQ(count_lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("does not fit in the"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("of memory available"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  EXPECT_FALSE(fs::exists(report));
}

TEST(FaultsCli, StorageSizeBeyondTheFreeSpaceIsRefusedBeforeCreatingAFile) {
  TempDir t;
  auto dir = t.path() / "target";
  fs::create_directories(dir);
  auto report = t.path() / "r.json";
  auto r = run_cli(
      {"storage", "--target", dir.string(), "--rw", "write", "--size", "100000T", "-o", report.string()});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_EQ(count_lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("does not fit in the"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("free on " + dir.string()), std::string::npos) << r.err;
  EXPECT_TRUE(fs::is_empty(dir));
  EXPECT_FALSE(fs::exists(report));
}

// ---- SIGINT / SIGTERM at random points ----------------------------------------------------------------

TEST(FaultsCli, SignalsAtRandomPointsLeaveAValidReportAndNoScratchFiles) {
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  // From before the handlers exist (process start-up) to the middle of the storage suite's jobs.
  std::uniform_int_distribution<int> delay_ms(0, 6000);
  for (int i = 0; i < 6; ++i) {
    const int sig = i % 2 == 0 ? SIGINT : SIGTERM;
    const int delay = delay_ms(rng);
    SCOPED_TRACE(std::string(sig == SIGINT ? "SIGINT" : "SIGTERM") + " after " + std::to_string(delay) +
                 " ms");
    TempDir t;
    auto out_dir = t.path() / "out";
    auto scratch = t.path() / "scratch";
    fs::create_directories(out_dir);
    fs::create_directories(scratch);
    auto cfg = t.path() / "c.yaml";
    std::ofstream(cfg) << "profile: quick\nprobes: [host.membw, storage.io]\noptions:\n"
                       << "  host.membw: {size: 24M}\n  storage.io: {dir: '" << scratch.string() << "'}\n";
    auto report = out_dir / "r.json";
    auto run = spawn_cli({"run", "--config", cfg.string(), "-o", report.string()});
    std::this_thread::sleep_for(milliseconds(delay));
    run.kill(sig);
    auto r = run.wait_for(kHang);
    ASSERT_TRUE(r) << "mlbench did not end after the signal";
    if (r->signal != 0) {
      // The signal came before the handlers were installed: the default action, before anything was written.
      EXPECT_EQ(r->signal, sig);
      EXPECT_FALSE(fs::exists(report));
    } else {
      EXPECT_EQ(r->rc, 130) << r->err;
      EXPECT_NE(r->err.find("interrupted"), std::string::npos) << r->err;
      ASSERT_TRUE(fs::exists(report));
      EXPECT_EQ(validate_report_schema(report), "");
      auto j = read_json(report);
      EXPECT_EQ(j["run"]["interrupted"], true);
      for (const auto& res : j["results"]) EXPECT_NE(res["status"], "failed") << res.dump();
    }
    EXPECT_TRUE(leftovers(scratch).empty()) << leftovers(scratch).front();
    EXPECT_TRUE(leftovers(out_dir).empty()) << leftovers(out_dir).front();
  }
}

// ---- a killed rank of a multi-process run -------------------------------------------------------------

TEST(FaultsCli, KilledRankIsNamedByRankZeroAndEveryRankEnds) {
  TempDir t;
  auto report = t.path() / "cluster.json";
  const int port = free_port();
  // Four ranks, rank 3 never started: ranks 1 and 2 arrive, rank 1 dies while rank 0 still waits. The timeout
  // is far above how long the test waits: ending early proves the death was noticed.
  const std::vector<std::string> args{"nccl", "--profile", "quick", "--timeout", "300"};
  auto with_output = args;
  with_output.insert(with_output.end(), {"-o", report.string()});
  auto rank0 = spawn_cli(with_output, rank_env(0, 4, port));
  auto rank1 = spawn_cli(args, rank_env(1, 4, port));
  auto rank2 = spawn_cli(args, rank_env(2, 4, port));
  ASSERT_TRUE(wait_for_sockets(port, TcpSockets::connected, 2)) << "ranks 1 and 2 never reached rank 0";
  std::this_thread::sleep_for(milliseconds(300));  // their introductions are on the wire
  rank1.kill(SIGKILL);
  EXPECT_EQ(rank1.wait().signal, SIGKILL);
  auto r0 = rank0.wait_for(kHang);
  auto r2 = rank2.wait_for(kHang);
  ASSERT_TRUE(r0) << "rank 0 hung on a dead rank";
  ASSERT_TRUE(r2) << "rank 2 hung on a dead rank";
  EXPECT_EQ(r0->rc, 1) << r0->err;
  EXPECT_EQ(count_lines(r0->err), 1u) << r0->err;
  EXPECT_NE(r0->err.find("rank 1 closed the connection during the rendezvous (it probably died)"),
            std::string::npos)
      << r0->err;
  EXPECT_EQ(r2->rc, 1) << r2->err;
  EXPECT_NE(r2->err.find("rank 0"), std::string::npos) << r2->err;
  EXPECT_NE(r2->err.find("died"), std::string::npos) << r2->err;
  EXPECT_FALSE(fs::exists(report)) << "a report of a world that never formed";
}

TEST(FaultsCli, KilledRankZeroEndsTheOtherRanksNamingIt) {
  const int port = free_port();
  const std::vector<std::string> args{"nccl", "--profile", "quick", "--timeout", "300"};
  auto rank0 = spawn_cli(args, rank_env(0, 3, port));
  auto rank1 = spawn_cli(args, rank_env(1, 3, port));
  ASSERT_TRUE(wait_for_sockets(port, TcpSockets::connected, 1)) << "rank 1 never reached rank 0";
  std::this_thread::sleep_for(milliseconds(300));
  rank0.kill(SIGKILL);
  EXPECT_EQ(rank0.wait().signal, SIGKILL);
  auto r1 = rank1.wait_for(kHang);
  ASSERT_TRUE(r1) << "rank 1 hung on a dead rank 0";
  EXPECT_EQ(r1->rc, 1) << r1->err;
  EXPECT_EQ(count_lines(r1->err), 1u) << r1->err;
  EXPECT_NE(r1->err.find("rank 0"), std::string::npos) << r1->err;
  EXPECT_NE(r1->err.find("died"), std::string::npos) << r1->err;
}

}  // namespace
}  // namespace mlbench::test
