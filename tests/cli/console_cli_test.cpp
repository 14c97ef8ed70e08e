// What a user reads on the console, as a fio user expects it: the live status line and its update
// policy as plain functions and under a pseudo-terminal, the per-case lines without one, the terminal width,
// "did you mean" for a mistyped flag or subcommand, fio's --numjobs, and --profile for a storage job.
#include <signal.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/progress.hpp"
#include "cli/suggest.hpp"
#include "reports/summary.hpp"
#include "tests/cli/cli_util.hpp"
#include "tests/storage/storage_test_util.hpp"

namespace mlbench::test {
namespace {

namespace fs = std::filesystem;
using cli::LiveLine;
using cli::LiveStatus;
using nlohmann::json;

LiveStatus storage_status() {
  return LiveStatus{.index = 2,
                    .total = 7,
                    .probe = "storage.io",
                    .label = "randread 4k qd32 (4k-randread-qd32)",
                    .case_elapsed_s = 3.2,
                    .case_estimate_s = 23.5,
                    .eta_s = 77,
                    .rates = {"iops 31.5 k/s", "bw 129 MB/s"}};
}

TEST(Console, TheLiveLineShowsTheCaseItsShareRateElapsedAndEta) {
  EXPECT_EQ(cli::format_live_line(storage_status(), 200),
            "[2/7] storage.io randread 4k qd32 (4k-randread-qd32) [13%][iops 31.5 k/s][bw 129 MB/s]"
            "[elapsed 00m:03s][eta 01m:17s]");
  EXPECT_EQ(cli::format_clock(3725), "1h02m:05s");
  EXPECT_EQ(cli::format_clock(1e300), "99h00m:00s") << "clamped";
  EXPECT_EQ(cli::format_clock(-5), "00m:00s");
  EXPECT_EQ(cli::format_clock(std::nan("")), "00m:00s");
}

TEST(Console, TheLiveLineFitsTheTerminalCuttingTheLabelFirst) {
  for (std::size_t width : {60u, 80u, 100u}) {
    const std::string line = cli::format_live_line(storage_status(), width);
    EXPECT_LT(line.size(), width) << "one column spare, or the line wraps and \\r cannot rewrite it: "
                                  << line;
  }
  const std::string line = cli::format_live_line(storage_status(), 100);
  EXPECT_NE(line.find("[2/7] storage.io randread"), std::string::npos) << line;
  EXPECT_NE(line.find("... [13%]"), std::string::npos) << "the label is cut: " << line;
  EXPECT_TRUE(line.ends_with("[eta 01m:17s]")) << "the label gives way, not the rate or the ETA: " << line;
}

// The update policy: drawn at the case's start, redrawn by the ticker every kRefresh with the time moved on
// (also when the probe reports nothing new), rates taken from the probe's reports, cleared at the end.
TEST(Console, TheLiveLineIsDrawnAtTheStartRedrawnEveryRefreshAndClearedAtTheEnd) {
  std::vector<std::string> writes;
  LiveLine line(200, [&](std::string_view s) { writes.emplace_back(s); });
  line.tick(1.0);
  EXPECT_TRUE(writes.empty()) << "nothing before a case starts";
  ProgressEvent start{.phase = Phase::start,
                      .index = 1,
                      .total = 1,
                      .probe = "storage.io",
                      .label = "randread 4k qd1",
                      .eta_s = 10,
                      .case_estimate_s = 10};
  line.event(start, 1.0);
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_EQ(writes[0], "\r\033[K[1/1] storage.io randread 4k qd1 [0%][elapsed 00m:00s][eta 00m:10s]");
  line.tick(1.2);
  EXPECT_EQ(writes.size(), 1u) << "not before kRefresh has passed";
  const LiveMetric rates[] = {{"iops", 31500, "1/s"}, {"bandwidth", 129e6, "B/s"}};
  ProgressEvent running = start;
  running.phase = Phase::running;
  running.case_elapsed_s = 2;
  running.eta_s = 8;
  running.live = rates;
  line.event(running, 3.0);
  EXPECT_EQ(writes.size(), 1u) << "a rate report waits for the next tick";
  line.tick(4.0);
  ASSERT_EQ(writes.size(), 2u);
  EXPECT_EQ(writes[1],
            "\r\033[K[1/1] storage.io randread 4k qd1 [30%][iops 31.5 k/s][bw 129 MB/s][elapsed 00m:03s]"
            "[eta 00m:07s]");
  ProgressEvent finished = start;
  finished.phase = Phase::finished;
  line.event(finished, 4.1);
  ASSERT_EQ(writes.size(), 3u);
  EXPECT_EQ(writes[2], "\r\033[K") << "cleared when the case ends";
  line.tick(9.0);
  line.clear();
  EXPECT_EQ(writes.size(), 3u) << "nothing between cases, and nothing to clear";
}

TEST(Console, TheLiveLineOnlyOnATerminalWithoutJsonNoColorOrADumbTerminal) {
  using cli::ProgressStyle;
  EXPECT_EQ(cli::progress_style(true, false, nullptr, "xterm"), ProgressStyle::live);
  EXPECT_EQ(cli::progress_style(false, false, nullptr, "xterm"), ProgressStyle::lines);
  EXPECT_EQ(cli::progress_style(true, true, nullptr, "xterm"), ProgressStyle::lines);
  EXPECT_EQ(cli::progress_style(true, false, "1", "xterm"), ProgressStyle::lines);
  EXPECT_EQ(cli::progress_style(true, false, "", "xterm"), ProgressStyle::live) << "NO_COLOR empty is unset";
  EXPECT_EQ(cli::progress_style(true, false, nullptr, "dumb"), ProgressStyle::lines);
}

TEST(Console, TheTerminalWidthComesFromColumnsElseADefault) {
  const char* saved = std::getenv("COLUMNS");
  const std::string keep = saved != nullptr ? saved : "";
  ::setenv("COLUMNS", "97", 1);
  EXPECT_EQ(cli::terminal_width(-1), 97u);
  ::setenv("COLUMNS", "wide", 1);
  EXPECT_EQ(cli::terminal_width(-1), kDefaultConsoleWidth) << "not a number, and -1 is no terminal";
  if (saved != nullptr) {
    ::setenv("COLUMNS", keep.c_str(), 1);
  } else {
    ::unsetenv("COLUMNS");
  }
}

TEST(Console, TheClosestNameIsATypoAway) {
  EXPECT_EQ(cli::edit_distance("--iodeph", "--iodepth"), 1u);
  EXPECT_EQ(cli::edit_distance("stroage", "storage"), 1u) << "a swap of neighbours is one edit";
  const std::vector<std::string> flags = {"--iodepth", "--io-size", "--bs", "--jobs", "--numjobs"};
  EXPECT_EQ(cli::closest_name("--iodeph", flags), "--iodepth");
  EXPECT_EQ(cli::closest_name("--numjob", flags), "--numjobs");
  EXPECT_EQ(cli::closest_name("--bogus-thing", flags), "") << "nothing close: no guess";
  EXPECT_EQ(cli::closest_name("--x", flags), "") << "two edits in a three-letter flag is no typo";
}

TEST(Console, AnUnknownFlagOrSubcommandSuggestsTheClosestAndExitsTwo) {
  storage::test::TempDir disk;
  auto r = run_cli({"storage", "--target", disk.path().string(), "--iodeph", "16"});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("--iodeph"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("did you mean --iodepth?"), std::string::npos) << r.err;

  r = run_cli({"storage", "--target", disk.path().string(), "--rwmix-reed=70"});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("did you mean --rwmix-read?"), std::string::npos) << r.err;

  r = run_cli({"stroage", "--target", disk.path().string()});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("unknown subcommand 'stroage'; did you mean storage?"), std::string::npos) << r.err;

  r = run_cli({"storage", "--target", disk.path().string(), "--completely-unknown"});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_EQ(r.err.find("did you mean"), std::string::npos) << "no guess when nothing is close: " << r.err;
  EXPECT_TRUE(fs::is_empty(disk.path()));
}

TEST(Console, NumjobsIsAnAliasOfJobs) {
  storage::test::TempDir disk;
  auto r = run_cli({"storage", "--target", disk.path().string(), "--numjobs", "3", "--dry-run"});
  ASSERT_EQ(r.rc, 0) << r.err;
  auto plan = json::parse(r.out);
  EXPECT_EQ(plan["cases"][0]["params"]["jobs"], 3) << r.out;
  EXPECT_EQ(plan["effective_options"]["storage.io"]["jobs"], 3);

  r = run_cli({"storage", "--target", disk.path().string(), "--numjobs", "3", "--jobs", "2", "--dry-run"});
  EXPECT_EQ(r.rc, 2) << "one option given twice: " << r.out;
}

// --profile sets what a storage job leaves out, as it does for every probe: the runtime.
TEST(Console, ProfileSetsAStorageJobsRuntimeUnlessGiven) {
  storage::test::TempDir disk;
  auto runtime = [&](std::vector<std::string> extra) {
    std::vector<std::string> args{"storage", "--target", disk.path().string(), "--dry-run"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = run_cli(args);
    EXPECT_EQ(r.rc, 0) << r.err;
    return json::parse(r.out)["cases"][0]["config"]["spec"].value("runtime", -1.0);
  };
  EXPECT_EQ(runtime({}), 10.0);
  EXPECT_EQ(runtime({"--profile", "quick"}), 2.0);
  EXPECT_EQ(runtime({"--profile", "full"}), 60.0);
  EXPECT_EQ(runtime({"--profile", "quick", "--runtime", "5"}), 5.0) << "a given --runtime wins";
  EXPECT_EQ(runtime({"--profile", "quick", "--number-ios", "100"}), -1.0) << "a count-bound job has none";
}

// Under a pseudo-terminal (script(1)) the live line runs: rewritten in place with \r, with the case's rate,
// and cleared before the summary.
TEST(Console, OnATerminalALiveLineShowsTheRunningRate) {
  if (!fs::exists("/usr/bin/script")) GTEST_SKIP() << "script(1) not installed";
  storage::test::TempDir disk;
  const std::string command = std::string(MLBENCH_EXE) + " storage --target " + disk.path().string() +
                              " --size 8M --runtime 2 --direct --cpus none";
  auto r =
      spawn_program({"/usr/bin/script", "-qfec", command, "/dev/null"}, {"COLUMNS=150", "TERM=xterm"}).wait();
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  const auto first = r.out.find("\r\033[K[1/1] storage.io randread");
  ASSERT_NE(first, std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[iops "), std::string::npos) << "the probe's rate reached the line: " << r.out;
  EXPECT_NE(r.out.find("[elapsed 00m:01s]"), std::string::npos) << r.out;
  EXPECT_LT(r.out.find("\r\033[K[1/1]", first + 1), r.out.find("PROBE")) << "redrawn while it ran";
  EXPECT_EQ(r.out.find("mlbench: [1/1]"), std::string::npos) << "no per-case line on a terminal: " << r.out;
  EXPECT_LT(r.out.rfind("\r\033[K"), r.out.find("PROBE")) << "cleared before the summary";
}

// Before anything runs, the profile's storage suite says how large a scratch file it writes and where.
TEST(Console, TheStorageSuiteNamesItsScratchFileBeforeItStarts) {
  storage::test::TempDir disk;
  auto run = spawn_cli(
      {"run", "--probe", "storage.io", "--profile", "quick", "--storage-dir", disk.path().string()});
  auto start = std::chrono::steady_clock::now();
  while (disk.mlbench_files().empty() && std::chrono::steady_clock::now() - start < std::chrono::seconds(30))
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  run.kill(SIGINT);
  auto r = run.wait();
  EXPECT_EQ(r.rc, 130) << r.err;
  const std::string line =
      "mlbench: storage.io: the quick profile's suite writes a 256.00 MiB scratch file in " +
      disk.path().string() + " (removed at the end)\n";
  EXPECT_EQ(r.err.rfind(line, 0), 0u) << "the first line, before any case: " << r.err;
}

TEST(Console, WithoutATerminalEachFinishedCaseIsOneLine) {
  storage::test::TempDir disk;
  // Bounded by a count of I/Os, not a short window a busy shared disk can stall through.
  auto r = run_cli({"storage", "--target", disk.path().string(), "--size", "8M", "--number-ios", "200"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("mlbench: [1/1] storage.io randread"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << "no live line in a log: " << r.err;
}

}  // namespace
}  // namespace mlbench::test
