// The burn-in orchestration on test phases and fixture telemetry: shares within the duration, cooldowns
// between phases, "all" runs every phase at once, results tagged with their phase, a GPU with an XID fails
// the node (exit 1), SIGINT ends the running phase (exit 130) and the report holds what ran, a phase that
// cannot run is skipped with its reason, the timelines in the report keep at most 600 points, and each rate
// and timeline figure carries the spread of its statistic.
#include "burnin/run.hpp"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <numbers>
#include <thread>

#include <gtest/gtest.h>

#include "base/error.hpp"
#include "bench/probe.hpp"
#include "report/report_burnin.hpp"

namespace mlbench::burnin {
namespace {

namespace br = burnin_report;
using Clock = std::chrono::steady_clock;

// A stand-in load: sleeps until the deadline in small steps and returns one result; records when it ran.
struct Trace {
  std::mutex m;
  std::vector<std::pair<PhaseId, double>> starts;  // seconds since the trace's origin
  Clock::time_point origin = Clock::now();
  std::atomic<int> running{0}, most_at_once{0};
};

class SleepPhase : public Phase {
 public:
  SleepPhase(PhaseId id, Trace& trace, std::optional<std::string> unavailable = std::nullopt,
             std::atomic<bool>* raise_stop = nullptr, PassEstimate pass = {})
      : id_(id), trace_(trace), unavailable_(std::move(unavailable)), raise_stop_(raise_stop), pass_(pass) {}
  PhaseId id() const override { return id_; }
  std::optional<std::string> unavailable(const Json&) const override { return unavailable_; }
  PassEstimate estimate(const PhaseContext&) override { return pass_; }
  std::vector<Result> run(const PhaseContext& ctx) override {
    {
      std::lock_guard lock(trace_.m);
      trace_.starts.emplace_back(id_, std::chrono::duration<double>(Clock::now() - trace_.origin).count());
    }
    int now = ++trace_.running;
    int seen = trace_.most_at_once.load();
    while (now > seen && !trace_.most_at_once.compare_exchange_weak(seen, now)) {
    }
    int iterations = 0;
    while (!ctx.past_deadline()) {
      // Polls every 10 ms but never sleeps past its deadline: the phase ends on it, as a real phase does.
      std::this_thread::sleep_until(std::min(ctx.deadline, Clock::now() + std::chrono::milliseconds(10)));
      if (raise_stop_ && ++iterations == 5) *raise_stop_ = true;
    }
    --trace_.running;
    Result r;
    r.probe = std::string(br::kPhaseProbePrefix) + std::string(to_string(id_));
    r.params = Json{{"device", "host"}};
    r.add_metric("bandwidth", 1e9, "B/s");
    r.add_metric("errors", 0, "1", Better::lower);
    return {r};
  }

 private:
  PhaseId id_;
  Trace& trace_;
  std::optional<std::string> unavailable_;
  std::atomic<bool>* raise_stop_;
  PassEstimate pass_;
};

// A phase that runs until its deadline without finishing one pass, as a host phase cut short reports it.
class CutPhase : public Phase {
 public:
  explicit CutPhase(PhaseId id) : id_(id) {}
  PhaseId id() const override { return id_; }
  std::optional<std::string> unavailable(const Json&) const override { return std::nullopt; }
  std::vector<Result> run(const PhaseContext& ctx) override {
    while (!ctx.past_deadline())
      std::this_thread::sleep_until(std::min(ctx.deadline, Clock::now() + std::chrono::milliseconds(10)));
    Result r;
    r.probe = std::string(br::kPhaseProbePrefix) + std::string(to_string(id_));
    r.params = Json{{"device", "/var/tmp/mlbench-burnin-1.dat"}};
    r.status = Status::skipped;
    r.reason = "stopped after 40 % of one verified pass over the 1.00 GiB scratch file (0.2 s)";
    r.add_metric("errors", 0, "", Better::lower);
    r.info = Json{{"iterations", 0}};
    return {r};
  }

 private:
  PhaseId id_;
};

Json no_gpu_script() {
  return Json{{"gpus", Json::array()}, {"samples", Json::array()}, {"events", Json::array()}};
}

double span_seconds(const Result& node, std::string_view phase) {
  double total = 0;
  for (const auto& s : node.info["phases"]) {
    const auto span = br::phase_span_from_json(s);
    if (phase.empty() ? span.phase != "cooldown" : span.phase == phase) total += span.end_s - span.start_s;
  }
  return total;
}

// A phase that cannot run: throws `E` with `why` when run.
template <class E>
class ThrowPhase : public Phase {
 public:
  ThrowPhase(PhaseId id, std::string why) : id_(id), why_(std::move(why)) {}
  PhaseId id() const override { return id_; }
  std::optional<std::string> unavailable(const Json&) const override { return std::nullopt; }
  std::vector<Result> run(const PhaseContext&) override { throw E(why_); }

 private:
  PhaseId id_;
  std::string why_;
};

Json two_gpu_script(bool xid_on_gpu1) {
  Json gpus = Json::array();
  for (int i = 0; i < 2; ++i) {
    gpus.push_back(Json{{"device", fmt::format("gpu{}", i)},
                        {"uuid", fmt::format("GPU-{}", i)},
                        {"pci", fmt::format("0000:0{}:00.0", i + 1)},
                        {"name", "NVIDIA H200"}});
  }
  Json sample = Json::object();
  for (int i = 0; i < 2; ++i) {
    sample[fmt::format("gpu{}", i)] = Json{{"sm_clock_hz", 1.98e9},
                                           {"memory_clock_hz", 2.6e9},
                                           {"power_w", 650},
                                           {"temperature_c", 60},
                                           {"clock_event_reasons", 0}};
  }
  Json events = Json::array();
  events.push_back(Json::array());
  if (xid_on_gpu1) {
    events.push_back(
        Json::array({Json{{"kind", "xid"}, {"device", "gpu1"}, {"code", 79}, {"text", "fallen off"}}}));
  }
  return Json{{"gpus", gpus}, {"samples", Json::array({sample})}, {"events", events}};
}

BurninEnvironment environment(Trace& trace, const std::atomic<bool>& stop,
                              Json script = two_gpu_script(false)) {
  BurninEnvironment env;
  env.host = Json::object();
  env.phases.push_back(std::make_unique<SleepPhase>(PhaseId::host_memory, trace));
  env.phases.push_back(std::make_unique<SleepPhase>(PhaseId::storage, trace));
  env.telemetry = make_fixture_telemetry(script);
  env.sys_root = "/";
  env.stop = &stop;
  return env;
}

BurninOptions quick(double duration_s) {
  BurninOptions o;
  o.duration_s = duration_s;
  o.phases = {PhaseId::host_memory, PhaseId::storage, PhaseId::all};
  o.cooldown_max_s = 0.2;
  o.sample_interval = std::chrono::milliseconds(50);
  o.teardown_s = 0.2;
  return o;
}

const Result* find(const Report& r, std::string_view probe, std::string_view phase = "") {
  for (const auto& res : r.results) {
    if (res.probe == probe && (phase.empty() || res.params.value("phase", "") == phase)) return &res;
  }
  return nullptr;
}

// A GPU phase's stand-in: one result per GPU with a rate over varied samples, as the GPU phases write them.
class RatePhase : public Phase {
 public:
  PhaseId id() const override { return PhaseId::gemm; }
  std::optional<std::string> unavailable(const Json&) const override { return std::nullopt; }
  std::vector<Result> run(const PhaseContext& ctx) override {
    while (!ctx.past_deadline())
      std::this_thread::sleep_until(std::min(ctx.deadline, Clock::now() + std::chrono::milliseconds(10)));
    std::vector<Result> out;
    for (const char* device : {"gpu0", "gpu1"}) {
      Result r;
      r.probe = std::string(br::kPhaseProbePrefix) + "gemm";
      r.params = Json{{"device", device}};
      r.metrics.push_back(rate_metric("tflops", 1e12, {1.0, 1.1, 0.9, 1.05, 0.95, 1.2}, "FLOP/s"));
      out.push_back(std::move(r));
    }
    return out;
  }
};

// Every burn-in figure with samples carries their spread, so compare and the fleet
// judge a difference against its noise: a GPU's rate its phase
// result's, a timeline median the stats of its samples, a maximum the Gumbel spread of the two largest.
TEST(BurninRun, RatesAndTimelineFiguresCarryTheSpreadOfTheirStatistic) {
  Trace trace;
  std::atomic<bool> stop{false};
  Json script = two_gpu_script(false);
  Json samples = Json::array();
  for (int k = 0; k < 400; ++k) {  // more than the sampler reads: no sample repeats
    Json sample = Json::object();
    for (int i = 0; i < 2; ++i) {
      sample[fmt::format("gpu{}", i)] = Json{{"sm_clock_hz", 1.9e9 + 1e6 * (k % 7)},
                                             {"memory_clock_hz", 2.6e9},
                                             {"power_w", 600 + k % 5},
                                             {"temperature_c", 40 + k},
                                             {"clock_event_reasons", 0}};
    }
    samples.push_back(sample);
  }
  script["samples"] = samples;
  auto env = environment(trace, stop, script);
  env.phases.push_back(std::make_unique<RatePhase>());
  BurninOptions o = quick(1.0);
  o.phases = {PhaseId::gemm};
  auto out = run_burnin(o, env, [](const Report&) {});
  const Result* gpu = nullptr;
  for (const auto& res : out.report.results)
    if (res.probe == br::kGpuProbe && res.params.value("device", "") == "gpu0") gpu = &res;
  ASSERT_NE(gpu, nullptr);
  const Result* phase = find(out.report, "burnin.gemm", "gemm");
  ASSERT_NE(phase, nullptr);
  const Metric* rate = gpu->metric("gemm_tflops");
  ASSERT_NE(rate, nullptr);
  EXPECT_GT(relative_spread(*rate), 0);
  EXPECT_DOUBLE_EQ(relative_spread(*rate), relative_spread(*phase->metric("tflops")));
  for (const char* name : {"sm_clock_median", "power_median", "temperature_max"}) {
    const Metric* m = gpu->metric(name);
    ASSERT_NE(m, nullptr) << name;
    EXPECT_GT(relative_spread(*m), 0) << name;
  }
  EXPECT_TRUE(gpu->metric("sm_clock_median")->stats.has_value());
  const Metric* tmax = gpu->metric("temperature_max");
  ASSERT_TRUE(tmax->ci.has_value());
  EXPECT_NEAR(tmax->ci->hi - tmax->ci->lo, 2 * kConfidenceZ * std::numbers::pi / std::sqrt(6.0), 1e-5);
}

TEST(BurninRun, PhasesInOrderWithCooldownsAndAllAtOnceWithinTheDuration) {
  Trace trace;
  std::atomic<bool> stop{false};
  auto env = environment(trace, stop);
  env.phases.push_back(std::make_unique<SleepPhase>(PhaseId::gemm, trace));  // loads the GPUs: cooldowns
  int saves = 0;
  auto o = quick(3.5);
  o.phases = {PhaseId::gemm, PhaseId::host_memory, PhaseId::all};
  auto out = run_burnin(o, env, [&saves](const Report&) { ++saves; });
  const double took = std::chrono::duration<double>(Clock::now() - o.start).count();
  EXPECT_LE(took, 3.5);
  EXPECT_GE(took, 2.5);
  EXPECT_EQ(out.exit_code(), 0);
  EXPECT_FALSE(out.interrupted);
  EXPECT_GE(saves, 3);                 // after each phase and at the end
  ASSERT_EQ(trace.starts.size(), 4u);  // gemm, hostmem, then both again in "all"
  EXPECT_EQ(trace.starts[0].first, PhaseId::gemm);
  EXPECT_EQ(trace.starts[1].first, PhaseId::host_memory);
  EXPECT_EQ(trace.most_at_once.load(), 2);  // "all" ran them together
  ASSERT_NE(find(out.report, "burnin.hostmem", "hostmem"), nullptr);
  ASSERT_NE(find(out.report, "burnin.gemm", "all"), nullptr);
  const auto* node = find(out.report, br::kNodeProbe);
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->info["verdict"], "pass");
  std::vector<std::string> spans;
  for (const auto& s : node->info["phases"]) spans.push_back(br::phase_span_from_json(s).phase);
  EXPECT_EQ(spans, (std::vector<std::string>{"gemm", "cooldown", "hostmem", "cooldown", "all"}));
  // Each phase got about a third of what the cooldowns and the end left.
  const auto first = br::phase_span_from_json(node->info["phases"][0]);
  EXPECT_NEAR(first.end_s - first.start_s, (3.5 - 0.2 - 2 * 0.2) / 3, 0.25);
  EXPECT_EQ(out.report.run["profile"], "burnin");
}

// No phase loads a GPU (a node without one): no cooldown is kept or taken, and the host phases share the
// whole duration but the time kept for the end.
TEST(BurninRun, WithoutAGpuPhaseThereIsNoCooldownAndTheHostPhasesGetTheWholeDuration) {
  Trace trace;
  std::atomic<bool> stop{false};
  auto env = environment(trace, stop, no_gpu_script());
  auto o = quick(4.0);
  o.cooldown_max_s = 1.0;
  o.teardown_s = 1.0;
  auto out = run_burnin(o, env);
  const double took = std::chrono::duration<double>(Clock::now() - o.start).count();
  EXPECT_LE(took, 4.0);
  EXPECT_EQ(out.exit_code(), 0);
  const auto* node = find(out.report, br::kNodeProbe);
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(span_seconds(*node, "cooldown"), 0);
  std::vector<std::string> spans;
  for (const auto& s : node->info["phases"]) spans.push_back(br::phase_span_from_json(s).phase);
  EXPECT_EQ(spans, (std::vector<std::string>{"hostmem", "storage", "all"}));
  // 4 s less the second kept for the end, less what planning took (milliseconds here).
  EXPECT_GE(span_seconds(*node, ""), 4.0 - 1.0 - 0.3);
}

// Each phase's minimum is one measured pass × the margin, `all` the sum of the others'; a duration below
// their sum is refused before anything runs, naming the minimum and what makes it shorter.
TEST(BurninRun, ADurationBelowOnePassOfEachPhaseIsRefusedNamingTheMinimum) {
  Trace trace;
  std::atomic<bool> stop{false};
  auto env = environment(trace, stop, no_gpu_script());
  env.phases.clear();
  env.phases.push_back(std::make_unique<SleepPhase>(
      PhaseId::host_memory, trace, std::nullopt, nullptr,
      PassEstimate{3, "a write and check of 12.00 GiB of host memory", "--host-memory-share"}));
  env.phases.push_back(std::make_unique<SleepPhase>(
      PhaseId::storage, trace, std::nullopt, nullptr,
      PassEstimate{1, "the 1.00 GiB scratch file created, written and read twice", "--storage-size"}));
  auto o = quick(10);
  o.teardown_s = 1;
  int saves = 0;
  try {
    run_burnin(o, env, [&saves](const Report&) { ++saves; });
    FAIL() << "a burn-in too short for one pass of each phase ran";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    // 2 × (3 + 1) for the phases, as much for `all`, 1 s for the end, and the milliseconds spent planning:
    // over 17 s.
    EXPECT_NE(what.find("--duration 10s: one verified pass of each phase needs 18 s here"), std::string::npos)
        << what;
    EXPECT_NE(what.find("hostmem 6.0 s: a write and check of 12.00 GiB of host memory"), std::string::npos)
        << what;
    EXPECT_NE(what.find("give --duration 18s or more, or a smaller --host-memory-share or --storage-size"),
              std::string::npos)
        << what;
    EXPECT_EQ(what.find('\n'), std::string::npos);
  }
  EXPECT_TRUE(trace.starts.empty());
  EXPECT_EQ(saves, 0);  // no report
  o.duration_s = 18;    // enough: each phase gets at least its minimum
  o.start = Clock::now();
  auto out = run_burnin(o, env);
  const auto* node = find(out.report, br::kNodeProbe);
  ASSERT_NE(node, nullptr);
  EXPECT_GE(span_seconds(*node, "hostmem"), 6.0 - 0.05);
  EXPECT_GE(span_seconds(*node, "all"), 8.0 - 0.05);
}

TEST(BurninRun, SharesAreEqualAboveEachMinimum) {
  EXPECT_EQ(split_time(9, {0, 0, 0}), (std::vector<double>{3, 3, 3}));
  EXPECT_EQ(split_time(9, {5, 0, 0}), (std::vector<double>{5, 2, 2}));
  EXPECT_EQ(split_time(9, {1, 6, 1}), (std::vector<double>{1.5, 6, 1.5}));
  EXPECT_EQ(split_time(4, {6, 2}), (std::vector<double>{3, 1}));  // short: in proportion
  EXPECT_EQ(split_time(-1, {1, 1}), (std::vector<double>{0, 0}));
}

// A phase that ran but stopped before one full verified pass: the node is incomplete, never a pass; exit 1;
// its status is `failed` for every reader of statuses, and the banner says which phase and how far it got.
TEST(BurninRun, APhaseStoppedBeforeAFullPassMakesTheNodeIncompleteNotPass) {
  Trace trace;
  std::atomic<bool> stop{false};
  auto env = environment(trace, stop, no_gpu_script());
  env.phases.clear();
  env.phases.push_back(std::make_unique<SleepPhase>(PhaseId::host_memory, trace));
  env.phases.push_back(std::make_unique<CutPhase>(PhaseId::storage));
  auto o = quick(1.5);
  o.phases = {PhaseId::host_memory, PhaseId::storage};
  auto out = run_burnin(o, env);
  EXPECT_EQ(out.verdict.verdict, br::Verdict::incomplete);
  EXPECT_EQ(out.exit_code(), 1);
  const auto* node = find(out.report, br::kNodeProbe);
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->info["verdict"], "incomplete");
  EXPECT_EQ(node->status, Status::failed);
  EXPECT_EQ(node->reason,
            "incomplete: /var/tmp/mlbench-burnin-1.dat: the storage write-verify-read is incomplete: stopped "
            "after 40 % of one verified pass over the 1.00 GiB scratch file (0.2 s)");
  EXPECT_EQ(br::verdict_banner(out.report.results),
            "INCOMPLETE (1 of 2 phases passed, 1 incomplete; no GPU) — hostmem passed; storage incomplete: "
            "stopped after 40 % of one verified pass over the 1.00 GiB scratch file (0.2 s)");
}

TEST(BurninRun, AnXidFailsItsGpuAndTheNode) {
  Trace trace;
  std::atomic<bool> stop{false};
  auto env = environment(trace, stop, two_gpu_script(true));
  auto out = run_burnin(quick(1.5), env);
  EXPECT_EQ(out.exit_code(), 1);
  EXPECT_EQ(out.verdict.verdict, br::Verdict::fail);
  const Result* gpu1 = nullptr;
  const Result* gpu0 = nullptr;
  for (const auto& r : out.report.results) {
    if (r.probe != br::kGpuProbe) continue;
    (r.params["device"] == "gpu1" ? gpu1 : gpu0) = &r;
  }
  ASSERT_NE(gpu1, nullptr);
  ASSERT_NE(gpu0, nullptr);
  EXPECT_EQ(gpu1->info["verdict"], "fail");
  EXPECT_EQ(gpu1->status, Status::failed);
  EXPECT_EQ(gpu0->info["verdict"], "pass");
  const auto timeline = br::timeline_from_json(gpu0->info["timeline"]);
  EXPECT_GE(timeline.t.size(), 5u);
  EXPECT_LE(timeline.t.size(), br::kMaxTimelinePoints);
  EXPECT_NE(timeline.find("power_w"), nullptr);
  const auto* node = find(out.report, br::kNodeProbe);
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->status, Status::failed);
  bool xid = false;
  for (const auto& e : node->info["events"]) xid = xid || br::event_from_json(e).code == 79;
  EXPECT_TRUE(xid);
}

TEST(BurninRun, AStopEndsTheRunningPhaseAndTheReportHoldsWhatRan) {
  Trace trace;
  std::atomic<bool> stop{false};
  BurninEnvironment env = environment(trace, stop);
  env.phases.clear();
  env.phases.push_back(std::make_unique<SleepPhase>(PhaseId::host_memory, trace, std::nullopt, &stop));
  env.phases.push_back(std::make_unique<SleepPhase>(PhaseId::storage, trace));
  const auto t0 = Clock::now();
  auto out = run_burnin(quick(30.0), env);
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 5.0);
  EXPECT_TRUE(out.interrupted);
  EXPECT_EQ(out.exit_code(), 130);
  EXPECT_NE(find(out.report, "burnin.hostmem"), nullptr);
  EXPECT_EQ(find(out.report, "burnin.storage"), nullptr);  // never started
  const auto* node = find(out.report, br::kNodeProbe);
  ASSERT_NE(node, nullptr);
  EXPECT_TRUE(node->info["interrupted"].get<bool>());
  EXPECT_TRUE(out.report.run["interrupted"].get<bool>());
}

TEST(BurninRun, UnavailablePhasesAreSkippedWithTheirReasonAndNoneRunnableIsRefused) {
  Trace trace;
  std::atomic<bool> stop{false};
  BurninEnvironment env = environment(trace, stop);
  env.phases.clear();
  env.phases.push_back(std::make_unique<SleepPhase>(PhaseId::host_memory, trace));
  env.phases.push_back(std::make_unique<SleepPhase>(PhaseId::gemm, trace, "no CUDA GPU on this machine"));
  auto o = quick(1.0);
  o.phases = {PhaseId::gemm, PhaseId::host_memory, PhaseId::all};
  auto out = run_burnin(o, env);
  const auto* gemm = find(out.report, "burnin.gemm");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->status, Status::skipped);
  EXPECT_EQ(gemm->reason, "no CUDA GPU on this machine");
  const auto* all = find(out.report, "burnin.all");
  ASSERT_NE(all, nullptr);  // one runnable phase: nothing to run together
  EXPECT_EQ(all->status, Status::skipped);
  EXPECT_EQ(out.exit_code(), 0);

  BurninEnvironment none = environment(trace, stop);
  none.phases.clear();
  none.phases.push_back(std::make_unique<SleepPhase>(PhaseId::gemm, trace, "no CUDA GPU on this machine"));
  o.phases = {PhaseId::gemm};
  EXPECT_THROW(run_burnin(o, none), UsageError);
}

TEST(BurninRun, APhaseThatSkipsIsSkippedAndOneThatErrsFailsTheNode) {
  Trace trace;
  std::atomic<bool> stop{false};
  BurninEnvironment env = environment(trace, stop);
  env.phases.clear();
  env.phases.push_back(std::make_unique<ThrowPhase<Skipped>>(PhaseId::host_memory, "under 64 MiB free"));
  env.phases.push_back(std::make_unique<SleepPhase>(PhaseId::storage, trace));
  auto o = quick(1.0);
  o.phases = {PhaseId::host_memory, PhaseId::storage};
  auto out = run_burnin(o, env);
  const auto* mem = find(out.report, "burnin.hostmem");
  ASSERT_NE(mem, nullptr);
  EXPECT_EQ(mem->status, Status::skipped);
  EXPECT_EQ(mem->reason, "under 64 MiB free");
  EXPECT_EQ(out.exit_code(), 0);

  BurninEnvironment bad = environment(trace, stop);
  bad.phases.clear();
  bad.phases.push_back(
      std::make_unique<ThrowPhase<Error>>(PhaseId::storage, "the scratch folder is read-only"));
  o.phases = {PhaseId::storage};
  o.start = Clock::now();  // --duration counts from here
  out = run_burnin(o, bad);
  const auto* storage = find(out.report, "burnin.storage");
  ASSERT_NE(storage, nullptr);
  EXPECT_EQ(storage->status, Status::failed);
  EXPECT_EQ(out.exit_code(), 1);
  EXPECT_EQ(out.verdict.verdict, br::Verdict::fail);
}

TEST(BurninRun, PhaseListsAreParsedOnceEachAndUnknownNamesRefused) {
  EXPECT_EQ(parse_phases({"storage", "gemm", "storage"}),
            (std::vector<PhaseId>{PhaseId::storage, PhaseId::gemm}));
  try {
    parse_phases({"gemm", "burn"});
    FAIL() << "an unknown phase was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("'burn'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("hostmem"), std::string::npos);
  }
}

TEST(BurninRun, SeriesSummariesLeaveOutMissingSamples) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto s = series_summary({3, nan, 1, 2});
  EXPECT_DOUBLE_EQ(s["min"].get<double>(), 1);
  EXPECT_DOUBLE_EQ(s["median"].get<double>(), 2);
  EXPECT_DOUBLE_EQ(s["max"].get<double>(), 3);
  EXPECT_TRUE(series_summary({nan}).empty());
}

}  // namespace
}  // namespace mlbench::burnin
