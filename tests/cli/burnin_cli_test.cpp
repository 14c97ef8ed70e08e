// `mlbench burnin` through the real binary, on this machine's host phases (host memory pattern test and
// storage write-verify-read, run for real): a short burn-in passes with exit 0 within its --duration, says
// in words what passed, and writes a report holding the node verdict, the host timeline and the phase
// results; bad input, a --duration too short for one pass of each phase included, is one line and exit 2
// with no report; SIGINT ends it with exit 130 and a valid report of what ran.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sys/statvfs.h>

#include <cstdio>
#include <cstring>
#include <thread>

#include <gtest/gtest.h>

#include "report/report.hpp"
#include "report/report_burnin.hpp"
#include "tests/cli/cli_util.hpp"
#include "tests/common/sanitizers.hpp"

namespace mlbench::test {
namespace {

namespace br = burnin_report;

const Result* find(const Report& r, std::string_view probe, std::string_view phase = "") {
  for (const auto& res : r.results) {
    if (res.probe == probe && (phase.empty() || res.params.value("phase", "") == phase)) return &res;
  }
  return nullptr;
}

// The --host-memory-share that tests about 128 MiB here (above the 64 MiB the phase refuses below).
std::string small_host_share() {
  std::FILE* f = std::fopen("/proc/meminfo", "r");
  char line[256];
  unsigned long kb = 0;
  while (f != nullptr && std::fgets(line, sizeof(line), f) != nullptr) {
    if (std::sscanf(line, "MemAvailable: %lu kB", &kb) == 1) break;
  }
  if (f != nullptr) std::fclose(f);
  return fmt::format("{:.6f}", kb == 0 ? 0.02 : std::min(0.9, 128.0 * 1024 / static_cast<double>(kb)));
}

// A short burn-in's --duration, in seconds: the burn-in refuses one below a verified pass of each phase,
// timed on a sample, and under the sanitizers the host-memory pattern runs 10-50 times slower.
constexpr int kShortSeconds = test::kSanitized ? 40 : 10;

std::vector<std::string> short_burnin(const TempDir& dir, const std::string& duration) {
  return {"burnin",
          "--duration",
          duration,
          "--phases",
          "hostmem,storage,all",
          "--scratch-dir",
          dir.path().string(),
          "--storage-size",
          "16M",
          "--cooldown",
          "1s",
          "--host-memory-share",
          small_host_share(),
          "-o",
          (dir / "burnin.json").string()};
}

// The burn-in ends within --duration, its end (the sampler stopped, the verdict, the report written, the
// summary printed) included: kTeardownAllowance is only the process's own start and exit.
constexpr double kTeardownAllowance = 0.5;

TEST(BurninCli, AShortHostBurnInPassesWithinItsDurationAndSaysWhatPassed) {
  TempDir dir("burnin-cli", kDiskTempParent);
  const auto t0 = std::chrono::steady_clock::now();
  const int duration = kShortSeconds + 2;
  auto r = run_cli(short_burnin(dir, fmt::format("{}s", duration)));
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_LE(took, duration + kTeardownAllowance) << r.err;
  RecordProperty("wall_s", fmt::format("{:.2f}", took));
  // The verdict in words with the counts it rests on; no cooldown without a GPU phase.
  EXPECT_NE(r.out.find("verdict: PASS (3 of 3 phases passed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("hostmem passed ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("storage passed ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("all passed (hostmem "), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("no cooldown (no GPU phase)"), std::string::npos) << r.err;
  // A count has no unit: the node's row reads "gpus_failed 0".
  EXPECT_NE(r.out.find("gpus_failed 0 "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("gpus_failed 0 1"), std::string::npos) << r.out;
  EXPECT_EQ(validate_report_schema(dir / "burnin.json"), "");
  const auto report = load_report(dir / "burnin.json");
  EXPECT_EQ(report.schema_version, kSchemaVersion);
  const auto* node = find(report, br::kNodeProbe);
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->info["verdict"], "pass");
  EXPECT_EQ(node->metric("gpus_failed")->unit, "");
  for (const auto* phase : {"hostmem", "storage", "all"}) {
    const auto* res =
        find(report, std::string(br::kPhaseProbePrefix) + (std::string(phase) == "all" ? "storage" : phase),
             phase);
    ASSERT_NE(res, nullptr) << phase;
    EXPECT_EQ(res->status, Status::ok) << phase << ": " << res->reason;
    ASSERT_NE(res->metric("errors"), nullptr);
    EXPECT_EQ(res->metric("errors")->value, 0);
    EXPECT_GE(res->info["iterations"].get<int>(), 1) << phase;
  }
  std::vector<std::string> spans;
  for (const auto& s : node->info["phases"]) spans.push_back(br::phase_span_from_json(s).phase);
  EXPECT_EQ(spans, (std::vector<std::string>{"hostmem", "storage", "all"}));
  const auto* host = find(report, br::kHostProbe);
  ASSERT_NE(host, nullptr);
  const auto timeline = br::timeline_from_json(host->info["timeline"]);
  EXPECT_GE(timeline.t.size(), 8u);  // about one sample a second
  EXPECT_NE(timeline.find("cpu_busy"), nullptr);
  // The scratch file is mlbench's and is gone.
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    EXPECT_EQ(e.path().filename(), "burnin.json") << "left behind: " << e.path();
}

TEST(BurninCli, AReportOnStdoutIsOneDocumentAndTheVerdictGoesToStderr) {
  TempDir dir("burnin-cli", kDiskTempParent);
  auto args = short_burnin(dir, fmt::format("{}s", kShortSeconds));
  args.back() = "-";  // -o -
  auto r = run_cli(args);
  ASSERT_EQ(r.rc, 0) << r.err;
  // A stream gets the final report once, not one document per phase, and nothing else: it parses as one.
  Report report;
  ASSERT_NO_THROW(report = parse_report(r.out, "stdout")) << r.out.substr(0, 2000);
  const auto* node = find(report, br::kNodeProbe);
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->info["verdict"], "pass");
  EXPECT_NE(find(report, "burnin.storage", "all"), nullptr);  // the last phase is in it
  EXPECT_NE(r.err.find("verdict: PASS ("), std::string::npos) << r.err;
}

TEST(BurninCli, AFifoGetsTheFinalReportOnce) {
  TempDir dir("burnin-cli", kDiskTempParent);
  const auto fifo = dir / "report.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  // The reader reads once, to the end of the stream: what the FIFO's one writer sends.
  std::string received;
  std::thread reader([&] {
    int fd = open(fifo.c_str(), O_RDONLY | O_CLOEXEC);
    char buf[65536];
    for (ssize_t n; fd >= 0 && (n = read(fd, buf, sizeof buf)) > 0;)
      received.append(buf, static_cast<std::size_t>(n));
    if (fd >= 0) close(fd);
  });
  auto args = short_burnin(dir, fmt::format("{}s", kShortSeconds));
  args.back() = fifo.string();
  auto r = run_cli(args);
  // A reader still waiting for a writer (none came) gets the end of the stream.
  int unblock = open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (unblock >= 0) close(unblock);
  reader.join();
  ASSERT_EQ(r.rc, 0) << r.err;
  Report report;
  ASSERT_NO_THROW(report = parse_report(received, "the FIFO")) << received.substr(0, 2000);
  const auto* node = find(report, br::kNodeProbe);  // the final report, not the first phase's
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->info["verdict"], "pass");
}

TEST(BurninCli, BadInputIsOneLineAndExitTwoWithNoReport) {
  TempDir dir("burnin-cli", kDiskTempParent);
  const auto out = (dir / "x.json").string();
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"burnin", "--phases", "gemm,burn", "-o", out}, "--phases: unknown phase 'burn'"},
      {{"burnin", "--duration", "1s", "-o", out}, "--duration 1s"},
      {{"burnin", "--scratch-dir", "/nonexistent/dir", "-o", out}, "--scratch-dir /nonexistent/dir"},
      {{"burnin", "--warn-pct", "0", "-o", out}, "--warn-pct"},
      {{"burnin", "--storage-size", "1k", "-o", out}, "--storage-size 1k"},
      {{"burnin", "--host-memory-share", "0.95", "-o", out}, "--host-memory-share 0.95"},
      {{"burnin", "--baseline", "/nonexistent.json", "-o", out}, "/nonexistent.json"},
  };
  for (const auto& [args, expect] : cases) {
    auto r = run_cli(args);
    EXPECT_EQ(r.rc, 2) << args[1] << ": " << r.err;
    EXPECT_NE(r.err.find(expect), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << args[1];
  }
}

// One verified pass of each phase does not fit in 10 s (an 8 GiB scratch file written and read twice, twice
// over with `all`): refused before anything runs, one line naming the minimum and what shortens it.
TEST(BurninCli, ADurationBelowOnePassOfEachPhaseIsRefusedUpFrontNamingTheMinimum) {
  TempDir dir("burnin-cli", kDiskTempParent);
  struct statvfs fs {};
  if (::statvfs(dir.path().c_str(), &fs) != 0 || static_cast<double>(fs.f_bavail) * fs.f_frsize < 16e9)
    GTEST_SKIP() << "under 16 GB free under " << dir.path();
  const auto out = dir / "burnin.json";
  const auto t0 = std::chrono::steady_clock::now();
  auto r = run_cli({"burnin", "--duration", "10s", "--phases", "hostmem,storage,all", "--scratch-dir",
                    dir.path().string(), "--storage-size", "8G", "--host-memory-share", small_host_share(),
                    "-o", out.string()});
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10);
  EXPECT_EQ(r.rc, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("mlbench: error: --duration 10s: one verified pass of each phase needs "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("s or more, or a smaller --host-memory-share or --storage-size\n"), std::string::npos)
      << r.err;
  std::size_t error_lines = 0;
  for (std::size_t at = r.err.find("mlbench: error:"); at != std::string::npos;
       at = r.err.find("mlbench: error:", at + 1))
    ++error_lines;
  EXPECT_EQ(error_lines, 1u);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_FALSE(std::filesystem::exists(out));
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    ADD_FAILURE() << "left behind: " << e.path();
}

TEST(BurninCli, SigintEndsThePhaseAndLeavesAValidReport) {
  TempDir dir("burnin-cli", kDiskTempParent);
  auto p = spawn_cli(short_burnin(dir, "10m"));
  // Into the first phase: past the phases' timing on samples, seconds under the sanitizers.
  std::this_thread::sleep_for(std::chrono::seconds(test::kSanitized ? 20 : 4));
  p.kill(SIGINT);
  auto r = p.wait_for(std::chrono::seconds(30));
  ASSERT_TRUE(r.has_value()) << "still running 30 s after SIGINT";
  EXPECT_EQ(r->rc, 130) << r->err;
  const auto report = load_report(dir / "burnin.json");
  const auto* node = find(report, br::kNodeProbe);
  ASSERT_NE(node, nullptr);
  EXPECT_TRUE(node->info["interrupted"].get<bool>());
  EXPECT_NE(find(report, "burnin.hostmem"), nullptr);
}

}  // namespace
}  // namespace mlbench::test
