// The runner and the measurement loop, driven by probes defined here that exercise each outcome.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include <fmt/format.h>

#include "bench/measure.hpp"
#include "bench/runner.hpp"
#include "tests/common/files.hpp"

namespace mlbench {
namespace {

// Plans one case per entry of options["outcomes"] ("ok", "skip", "fail", "incorrect", "interrupt", "partial":
// stopped partway, giving what it measured marked interrupted).
class ScriptedProbe : public Probe {
 public:
  explicit ScriptedProbe(std::string id, std::optional<std::string> unavailable = std::nullopt)
      : id_(std::move(id)), unavailable_(std::move(unavailable)) {}
  ProbeInfo info() const override { return {id_, "scripted outcomes", "nothing"}; }
  std::optional<std::string> unavailable(const Json&) const override { return unavailable_; }
  std::vector<Case> plan(const PlanContext& ctx) const override {
    if (ctx.options.contains("bad")) throw UsageError("--bad is not an option");
    std::vector<Case> cases;
    for (const auto& o : ctx.options.value("outcomes", Json::array({"ok"}))) {
      Case c;
      c.label = o.get<std::string>();
      c.params = Json{{"outcome", o}, {"index", cases.size()}};
      c.estimate_s = 0.01;
      c.notice = ctx.options.value("notice", "");
      c.rounds = ctx.options.value("rounds", 1u);
      c.setup_s = ctx.options.value("setup", 0.0);
      cases.push_back(c);
    }
    return cases;
  }
  std::vector<Result> run(const Case& c, RunContext& ctx) override {
    if (before_run) before_run();
    std::string o = c.params["outcome"];
    if (o == "skip") throw Skipped("not on this machine");
    if (o == "fail") throw Error("device exploded");
    if (o == "interrupt") stop_flag().store(true);
    Result r = ctx.make_result(id_, c);
    if (o == "partial") {
      stop_flag().store(true);
      r.add_metric("bandwidth", 500.0, "B/s");
      r.status = Status::interrupted;
      r.reason = "interrupted after 0.5 s";
      return {r};
    }
    int calls = 0;
    MeasurePolicy policy;
    policy.warmup_iters = 1;
    policy.min_samples = 5;
    r.samples = measure(
        policy,
        [&] {
          const LiveMetric live[] = {{"bandwidth", 1000.0 * calls, "B/s"}};
          ctx.report_live(live);
          return 0.001 * ++calls;
        },
        ctx);
    r.metrics.push_back(rate_metric("bandwidth", 1000.0, r.samples, "B/s"));
    if (o == "incorrect") {
      r.status = Status::incorrect;
      r.reason = "3 wrong elements";
    }
    return {r};
  }
  // Rounds: each is logged as "outcome/round"; a "fail" case fails in its second round; the last round
  // measures.
  std::vector<Result> run_round(const Case& c, RunContext& ctx, unsigned round) override {
    const std::string o = c.params["outcome"];
    rounds_run.push_back(fmt::format("{}{}/{}", o, c.params["index"].get<int>(), round));
    if (o == "fail" && round == 1) throw Error("device exploded in round 2");
    if (o == "partial" && round == 1) return run(c, ctx);
    return round + 1 == c.rounds ? run(c, ctx) : std::vector<Result>{};
  }
  std::vector<std::string> rounds_run;
  std::function<void()> before_run;  // called as each case starts

 private:
  std::string id_;
  std::optional<std::string> unavailable_;
};

Registry make_registry() {
  Registry reg;
  reg.add(std::make_unique<ScriptedProbe>("test.a"));
  reg.add(std::make_unique<ScriptedProbe>("test.gone", "needs hardware this machine lacks"));
  return reg;
}

class RunnerTest : public ::testing::Test {
 protected:
  void SetUp() override { stop_flag().store(false); }
  void TearDown() override { stop_flag().store(false); }
};

TEST_F(RunnerTest, EveryOutcomeIsRecordedAndOneFailureDoesNotStopTheRun) {
  auto reg = make_registry();
  Runner runner(reg, Json::object());
  RunOptions opts;
  opts.probe_options = Json{{"test.a", {{"outcomes", {"ok", "skip", "fail", "incorrect", "ok"}}}}};
  Report rep = runner.run(opts);
  ASSERT_EQ(rep.results.size(), 6u);  // 1 unavailable + 5 cases
  EXPECT_EQ(rep.results[0].probe, "test.gone");
  EXPECT_EQ(rep.results[0].status, Status::skipped);
  EXPECT_EQ(rep.results[0].reason, "needs hardware this machine lacks");
  EXPECT_EQ(rep.results[1].status, Status::ok);
  EXPECT_EQ(rep.results[1].samples.size(), 5u);
  EXPECT_DOUBLE_EQ(rep.results[1].samples[0], 0.002);  // the warm-up sample (0.001) was dropped
  EXPECT_EQ(rep.results[2].status, Status::skipped);
  EXPECT_EQ(rep.results[2].reason, "not on this machine");
  EXPECT_EQ(rep.results[3].status, Status::failed);
  EXPECT_EQ(rep.results[3].reason, "device exploded");
  EXPECT_EQ(rep.results[3].params["index"], 2);
  EXPECT_EQ(rep.results[4].status, Status::incorrect);
  EXPECT_EQ(rep.results[5].status, Status::ok);
  EXPECT_EQ(exit_code_for(rep), 1);
  EXPECT_FALSE(runner.interrupted());
}

TEST_F(RunnerTest, OnlyOkAndSkippedExitZero) {
  auto reg = make_registry();
  Runner runner(reg, Json::object());
  RunOptions opts;
  opts.probe_options = Json{{"test.a", {{"outcomes", {"ok", "skip"}}}}};
  EXPECT_EQ(exit_code_for(runner.run(opts)), 0);
}

TEST_F(RunnerTest, UnknownProbeAndBadOptionsAreUsageErrorsBeforeAnythingRuns) {
  auto reg = make_registry();
  Runner runner(reg, Json::object());
  RunOptions opts;
  opts.probe_ids = {"nope"};
  try {
    runner.run(opts);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("known probes: test.a, test.gone"), std::string::npos) << e.what();
  }
  RunOptions bad;
  bad.probe_options = Json{{"test.a", {{"bad", 1}}}};
  test::TempDir dir;
  bad.output = dir / "never-written.json";
  EXPECT_THROW(runner.run(bad), UsageError);
  EXPECT_FALSE(std::filesystem::exists(*bad.output));
}

TEST_F(RunnerTest, InterruptKeepsFinishedCasesInTheWrittenReport) {
  auto reg = make_registry();
  Runner runner(reg, Json::object());
  RunOptions opts;
  opts.probe_ids = {"test.a"};
  opts.probe_options = Json{{"test.a", {{"outcomes", {"ok", "interrupt", "ok", "ok"}}}}};
  test::TempDir dir;
  opts.output = dir / "interrupted.json";
  Report rep = runner.run(opts);
  EXPECT_TRUE(runner.interrupted());
  ASSERT_EQ(rep.results.size(), 1u);  // the interrupted case and the rest never count
  Report on_disk = load_report(*opts.output);
  EXPECT_EQ(on_disk.results.size(), 1u);
  EXPECT_EQ(on_disk.run["interrupted"], true);
}

// A probe stopped partway may give what it measured, marked interrupted: the runner records it (also from a
// round before the last, and as the run's last case) in the written report, runs nothing after it, and says
// the run was interrupted.
TEST_F(RunnerTest, AnInterruptedResultIsKeptAndEndsTheRun) {
  auto reg = make_registry();
  for (const Json& outcomes : {Json{"ok", "partial", "ok"}, Json{"ok", "partial"}}) {
    stop_flag().store(false);
    Runner runner(reg, Json::object());
    RunOptions opts;
    opts.probe_ids = {"test.a"};
    opts.probe_options = Json{{"test.a", {{"outcomes", outcomes}}}};
    test::TempDir dir;
    opts.output = dir / "interrupted.json";
    Report rep = runner.run(opts);
    EXPECT_TRUE(runner.interrupted()) << outcomes;
    ASSERT_EQ(rep.results.size(), 2u) << outcomes;
    EXPECT_EQ(rep.results[1].status, Status::interrupted);
    Report on_disk = load_report(*opts.output);
    ASSERT_EQ(on_disk.results.size(), 2u);
    EXPECT_EQ(on_disk.results[1].status, Status::interrupted);
    EXPECT_EQ(on_disk.results[1].reason, "interrupted after 0.5 s");
    EXPECT_EQ(on_disk.run["interrupted"], true);
    EXPECT_EQ(exit_code_for(rep), 0) << "the CLI exits 130 for it, not 1";
  }
  // In rounds: the case stopped in its second of three rounds ends there with its figures.
  stop_flag().store(false);
  Runner runner(reg, Json::object());
  RunOptions opts;
  opts.probe_ids = {"test.a"};
  opts.probe_options = Json{{"test.a", {{"outcomes", {"ok", "partial", "ok"}}, {"rounds", 3}}}};
  Report rep = runner.run(opts);
  auto* probe = dynamic_cast<ScriptedProbe*>(reg.find("test.a"));
  ASSERT_NE(probe, nullptr);
  EXPECT_EQ(probe->rounds_run,
            (std::vector<std::string>{"ok0/0", "partial1/0", "ok2/0", "ok0/1", "partial1/1"}));
  EXPECT_TRUE(runner.interrupted());
  ASSERT_EQ(rep.results.size(), 1u);
  EXPECT_EQ(rep.results[0].status, Status::interrupted);
  EXPECT_EQ(rep.results[0].params["index"], 1);
}

// A crash or SIGKILL before the first case has a result must leave the previous report as it was: the file is
// first replaced after that result, never with an empty report up front.
TEST_F(RunnerTest, ThePreviousReportStaysUntilTheFirstCaseHasAResult) {
  test::TempDir dir;
  RunOptions opts;
  opts.output = dir / "report.json";
  const std::string previous = "{\"previous\": true}\n";
  std::ofstream(*opts.output) << previous;
  Registry reg;
  auto probe = std::make_unique<ScriptedProbe>("test.a");
  std::vector<std::string> seen;  // the file as each case starts
  probe->before_run = [&] { seen.push_back(test::slurp(*opts.output)); };
  reg.add(std::move(probe));
  Runner runner(reg, Json::object());
  opts.probe_options = Json{{"test.a", {{"outcomes", {"ok", "ok"}}}}};
  runner.run(opts);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], previous);
  EXPECT_NE(seen[1], previous);
  EXPECT_EQ(load_report(*opts.output).results.size(), 2u);
}

// A FIFO (or /dev/stdout) gets the final report once, as one JSON document, not one per case.
TEST_F(RunnerTest, AStreamOutputGetsOneReportAtTheEnd) {
  test::TempDir dir;
  RunOptions opts;
  opts.output = dir / "report.fifo";
  ASSERT_EQ(::mkfifo(opts.output->c_str(), 0600), 0);
  const int reader = ::open(opts.output->c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  auto reg = make_registry();
  Runner runner(reg, Json::object());
  opts.probe_ids = {"test.a"};
  opts.probe_options = Json{{"test.a", {{"outcomes", {"ok", "ok", "ok"}}}}};
  runner.run(opts);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::read(reader, buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
  ::close(reader);
  EXPECT_EQ(parse_report(text, "fifo").results.size(), 3u);
}

TEST_F(RunnerTest, ProgressCountsCases) {
  auto reg = make_registry();
  Runner runner(reg, Json::object());
  RunOptions opts;
  opts.probe_ids = {"test.a"};
  opts.probe_options = Json{{"test.a", {{"outcomes", {"ok", "ok", "ok"}}}}};
  std::vector<std::size_t> started, finished;
  runner.run(opts, [&](const ProgressEvent& e) {
    EXPECT_EQ(e.total, 3u);
    EXPECT_EQ(e.probe, "test.a");
    if (e.phase == Phase::running) return;
    if (e.phase == Phase::start) {
      EXPECT_TRUE(e.finished.empty());
      started.push_back(e.index);
    } else {
      ASSERT_EQ(e.phase, Phase::finished);
      // After the case: its one result, already in the report.
      ASSERT_EQ(e.finished.size(), 1u);
      EXPECT_EQ(e.finished[0].status, Status::ok);
      EXPECT_EQ(e.finished[0].probe, "test.a");
      finished.push_back(e.index);
    }
  });
  EXPECT_EQ(started, (std::vector<std::size_t>{1, 2, 3}));
  EXPECT_EQ(finished, (std::vector<std::size_t>{1, 2, 3}));
}

// What the live status line is fed: each distinct notice once before the first case,
// then per case its start, the rates the probe reports while it runs (between start and end, with the case's
// time so far), and its end.
TEST_F(RunnerTest, NoticesComeFirstAndTheProbesRatesReachTheProgressCallback) {
  auto reg = make_registry();
  Runner runner(reg, Json::object());
  RunOptions opts;
  opts.probe_ids = {"test.a"};
  opts.probe_options = Json{{"test.a", {{"outcomes", {"ok", "ok"}}, {"notice", "writes a 1G file in /x"}}}};
  std::vector<std::string> seen;
  double last_case_elapsed = -1;
  runner.run(opts, [&](const ProgressEvent& e) {
    switch (e.phase) {
      case Phase::notice:
        seen.push_back("notice " + e.label);
        break;
      case Phase::start:
        seen.push_back(fmt::format("start {}", e.index));
        last_case_elapsed = -1;
        break;
      case Phase::running:
        ASSERT_EQ(e.live.size(), 1u);
        EXPECT_EQ(e.live[0].name, "bandwidth");
        EXPECT_EQ(e.live[0].unit, "B/s");
        EXPECT_GE(e.case_elapsed_s, last_case_elapsed);
        EXPECT_EQ(e.case_estimate_s, 0.01);
        last_case_elapsed = e.case_elapsed_s;
        if (seen.back() != fmt::format("running {}", e.index))
          seen.push_back(fmt::format("running {}", e.index));
        break;
      case Phase::finished:
        seen.push_back(fmt::format("finished {}", e.index));
        break;
    }
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"notice writes a 1G file in /x", "start 1", "running 1",
                                            "finished 1", "start 2", "running 2", "finished 2"}));
}

// Rounds (Case::rounds): the runner interleaves the rounds of consecutive cases of one probe, a case's
// result enters the report after its last round in plan order, and a case that fails in a round runs no
// more of them.
TEST_F(RunnerTest, RoundsOfNeighbouringCasesInterleaveAndAFailedRoundEndsItsCase) {
  auto reg = make_registry();
  Runner runner(reg, Json::object());
  RunOptions opts;
  opts.probe_ids = {"test.a"};
  opts.probe_options = Json{{"test.a", {{"outcomes", {"ok", "fail", "ok"}}, {"rounds", 3}}}};
  std::vector<std::string> events;
  auto rep = runner.run(opts, [&](const ProgressEvent& e) {
    if (e.phase == Phase::start) events.push_back(fmt::format("start {} {}", e.index, e.label));
    if (e.phase == Phase::finished) events.push_back(fmt::format("finished {} {}", e.index, e.label));
  });
  auto* probe = dynamic_cast<ScriptedProbe*>(reg.find("test.a"));
  ASSERT_NE(probe, nullptr);
  EXPECT_EQ(probe->rounds_run, (std::vector<std::string>{"ok0/0", "fail1/0", "ok2/0", "ok0/1", "fail1/1",
                                                         "ok2/1", "ok0/2", "ok2/2"}));
  ASSERT_EQ(rep.results.size(), 3u);
  EXPECT_EQ(rep.results[0].status, Status::failed);  // the failed case ended first, in round 2
  EXPECT_EQ(rep.results[0].reason, "device exploded in round 2");
  EXPECT_EQ(rep.results[1].status, Status::ok);
  EXPECT_EQ(rep.results[1].params["index"], 0);
  EXPECT_EQ(rep.results[2].params["index"], 2);
  EXPECT_EQ(events.front(), "start 1 ok (round 1/3)");
  EXPECT_EQ(std::count(events.begin(), events.end(), "finished 2 fail"), 1);
  EXPECT_EQ(events.back(), "finished 3 ok");
  EXPECT_EQ(events.size(), 8u + 3u);  // a start per round run, a finished per case
}

// A case's setup (a scratch file's fill) is its first round's: the live line's estimate of round 1 holds it,
// the later rounds an even share of the rest.
TEST_F(RunnerTest, TheFirstRoundCarriesTheCasesSetup) {
  auto reg = make_registry();
  Runner runner(reg, Json::object());
  RunOptions opts;
  opts.probe_ids = {"test.a"};
  opts.probe_options = Json{{"test.a", {{"outcomes", {"ok"}}, {"rounds", 2}, {"setup", 0.004}}}};
  std::vector<double> estimates;
  runner.run(opts, [&](const ProgressEvent& e) {
    if (e.phase == Phase::start) estimates.push_back(e.case_estimate_s);
  });
  ASSERT_EQ(estimates.size(), 2u);
  EXPECT_DOUBLE_EQ(estimates[0], 0.004 + 0.003);  // estimate 0.01: setup 0.004, then 0.006 over 2 rounds
  EXPECT_DOUBLE_EQ(estimates[1], 0.003);
}

TEST(Schedule, OnlyNeighbouringCasesOfOneProbeWithTheSameRoundsInterleave) {
  auto reg = make_registry();
  Probe* a = reg.find("test.a");
  Probe* b = reg.find("test.gone");
  auto planned = [](Probe* p, unsigned rounds, const char* group = "") {
    Case c;
    c.rounds = rounds;
    c.round_group = group;
    return PlannedCase{p, c};
  };
  const std::vector<PlannedCase> cases{planned(a, 1), planned(a, 2),          planned(a, 2),
                                       planned(b, 2), planned(a, 3),          planned(a, 0),
                                       planned(a, 2), planned(a, 2, "write"), planned(a, 2, "write")};
  std::vector<std::string> order;
  for (const Step& s : schedule(cases)) order.push_back(fmt::format("{}.{}", s.index, s.round));
  EXPECT_EQ(order, (std::vector<std::string>{"0.0", "1.0", "2.0", "1.1", "2.1", "3.0", "3.1", "4.0", "4.1",
                                             "4.2", "5.0", "6.0", "6.1", "7.0", "8.0", "7.1", "8.1"}));
}

TEST(Measure, StopsAtMinSamplesAndHonoursInterrupt) {
  std::atomic<bool> stop{false};
  Json host;
  RunContext ctx{host, std::chrono::steady_clock::now() + std::chrono::seconds(30), stop};
  MeasurePolicy p;
  p.warmup_iters = 3;
  p.min_samples = 7;
  int calls = 0;
  auto s = measure(
      p, [&] { return static_cast<double>(++calls); }, ctx);
  EXPECT_EQ(calls, 10);
  ASSERT_EQ(s.size(), 7u);
  EXPECT_DOUBLE_EQ(s.front(), 4.0);
  stop = true;
  EXPECT_THROW(measure(
                   p, [&] { return 1.0; }, ctx),
               Interrupted);
}

TEST(Measure, TooFewSamplesInTheBudgetIsAnError) {
  std::atomic<bool> stop{false};
  Json host;
  RunContext ctx{host, std::chrono::steady_clock::now() - std::chrono::seconds(10), stop};
  MeasurePolicy p;
  EXPECT_THROW(measure(
                   p, [] { return 1.0; }, ctx),
               Error);
}

}  // namespace
}  // namespace mlbench
