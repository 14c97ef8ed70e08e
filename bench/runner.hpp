// The runner: plans every selected probe's cases (all option errors surface before anything runs), checks
// availability, runs each case inside try/catch with its time budget, fills statuses, drives progress and
// (re)writes the report after every case so that an interrupted run still leaves a valid report.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bench/registry.hpp"

namespace mlbench {

struct RunOptions {
  Profile profile = Profile::standard;
  std::vector<std::string> probe_ids;   // empty: every registered probe
  Json probe_options = Json::object();  // {"storage.io": {...}, "host.membw": {...}}
  bool options_from_config = false;     // probe_options came from a --config file (messages name its keys)
  std::optional<std::filesystem::path> output;
  std::vector<std::string> argv;
  double budget_scale = 3.0;  // a case may run budget_scale × its estimate (and at least min_budget_s)
  double min_budget_s = 30.0;
};

// What the runner tells its progress callback: a case's notice before anything runs (`label` holds it), each
// case's start, its running rate while it runs (as often as the probe reports it), and its end.
enum class Phase { notice, start, running, finished };

struct ProgressEvent {
  Phase phase = Phase::start;
  std::size_t index = 0, total = 0;  // 1-based case index
  std::string probe, label;
  double elapsed_s = 0,
         eta_s = 0;  // the run's: since it started, and left (the estimates, scaled by the pace)
  double case_elapsed_s = 0, case_estimate_s = 0;  // the case's
  std::span<const LiveMetric> live;                // running: the case's current rate
  std::span<const Result> finished;                // finished: the results it gave
};

// The process-wide stop flag set by SIGINT/SIGTERM (bench/signals.hpp installs the handlers).
std::atomic<bool>& stop_flag();

struct PlannedCase {
  Probe* probe;
  Case c;
};

// The order the runner measures in: one step per round of each case (Case::rounds), the rounds of a run of
// consecutive cases of one probe with the same rounds > 1 and round_group interleaved (every case's round 1,
// then every case's round 2, ...), every other case in one step, in plan order. A case's results enter the
// report after its last round (or the round that failed or skipped it), so an interrupt loses every case
// whose last round had not run (unless the probe gives, stopped, what it measured so far:
// Status::interrupted, which ends the case and the run). Pure; unit-tested.
struct Step {
  std::size_t index;  // into the planned cases
  unsigned round;
};
std::vector<Step> schedule(const std::vector<PlannedCase>& cases);

class Runner {
 public:
  Runner(const Registry& registry, Json host) : registry_(registry), host_(std::move(host)) {}

  // Plans the selected probes. Throws UsageError for an unknown probe id or bad options. Unavailable probes
  // yield one skipped result each (in `skipped`).
  std::vector<PlannedCase> plan(const RunOptions& opts, std::vector<Result>& skipped) const;

  // Plans and runs; when opts.output is set, the report is written there after each case that has a result
  // (a stream: once, at the end), never before the first: the previous report stays until then.
  Report run(const RunOptions& opts, const std::function<void(const ProgressEvent&)>& progress = {});

  bool interrupted() const { return interrupted_; }

 private:
  const Registry& registry_;
  Json host_;
  bool interrupted_ = false;
};

// Now as the reports write it: "2026-12-02T03:14:00Z".
std::string utc_now();

// 0 when every result is ok or skipped, 1 when one failed or was incorrect.
int exit_code_for(const Report& report);

}  // namespace mlbench
