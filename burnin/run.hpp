// `mlbench burnin`'s orchestration: the selected phases one after another, each for a share of the duration,
// with a cooldown between them when a phase loads the GPUs (idle until their temperatures settle, at most
// --cooldown), then every phase at once ("all": the power and cooling a training job draws); the telemetry
// sampler runs throughout; at the end the verdict (burnin/verdict.hpp) and one normal report
// (report/report_burnin.hpp). SIGINT ends the phase that is running and the report holds what ran.
//
// Time plan, so that the burn-in ends within --duration, counted from the command's start: first each
// phase's minimum, one full verified pass measured on a sample (Phase::estimate) × a margin for a busy
// machine, `all` the sum of the others' (at once they share the CPUs, memory and drives). When the time
// already spent, the minimums, the cooldowns at their maximum and the time kept for the end (stopping the
// sampler, the verdict, the report) exceed --duration, the burn-in is refused (UsageError naming the minimum
// duration and what shortens it) before any phase runs. Then each phase, when it starts, gets its share of
// the time left less the cooldowns still to come and the end (split_time), so time a phase or cooldown
// leaves over goes to the later phases; a phase returns by its deadline (burnin/phase.hpp).
//
// Each figure of the report carries the spread of the statistic it is (base/stats.hpp; compare and the fleet
// judge a difference against it): a GPU's rate its phase result's stats or ci (over several results, the
// stats of their values, whose median it is); sm_clock_median, power_median and cpu_busy_median the stats of
// their timeline samples (the standard error of a median; consecutive samples are correlated, so it is a
// lower bound); temperature_max the Gumbel spread of the two largest samples (none when they are equal, as
// whole degrees on a plateau are). Counts (gpus_failed, gpus_warned, errors, samples) are exact and have
// none; neither has a rate from a phase cut before its first full pass, which is one sample
// (burnin/host_phases.cpp).
#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "burnin/phase.hpp"
#include "burnin/telemetry.hpp"
#include "burnin/verdict.hpp"
#include "report/report.hpp"

namespace mlbench::burnin {

struct BurninOptions {
  std::chrono::steady_clock::time_point start =
      std::chrono::steady_clock::now();  // --duration counts from it
  double duration_s = 1800;
  std::vector<PhaseId> phases;  // in the order given; empty: every phase in kPhaseNames order
  double cooldown_max_s = 60;
  VerdictOptions verdict;
  std::filesystem::path scratch_dir = "/var/tmp";
  std::uint64_t storage_bytes = 1ull << 30;
  double host_memory_fraction = 0.5;
  std::uint64_t seed = 1;
  std::chrono::milliseconds sample_interval{1000};
  // Kept free after the last phase, for what the burn-in does once it ends: stop the sampler, judge, build
  // and write the report, print the summary (docs/NOTES.md has a busy machine's time; a phase's own end,
  // freeing its memory or removing its file, is inside its share).
  double teardown_s = 1.0;
  std::vector<std::string> argv;
};

// What the burn-in runs on: the machine (make_environment) or fixtures in tests.
struct BurninEnvironment {
  Json host;                                   // the inventory
  std::vector<std::unique_ptr<Phase>> phases;  // every implementation; the options choose among them
  std::unique_ptr<GpuTelemetry> telemetry;
  std::filesystem::path sys_root = "/";  // procfs/sysfs for the host timeline
  const std::atomic<bool>* stop = nullptr;
  std::function<void(const std::string&)> log = {};  // one line per phase start/end
};

struct BurninOutcome {
  Report report;
  NodeVerdict verdict;
  bool interrupted = false;
  // 0 when every GPU and host phase passed (warn included), 1 on a fail or an incomplete phase, 130 when
  // interrupted (the report holds what ran).
  int exit_code() const;
};

// Runs the burn-in; `save` is called with the report so far after each phase (write it with -o).
BurninOutcome run_burnin(const BurninOptions& opts, BurninEnvironment& env,
                         const std::function<void(const Report&)>& save = {});

// The phases named in a --phases list ("gemm,hbm,all"); throws UsageError naming an unknown one and the
// choices.
std::vector<PhaseId> parse_phases(const std::vector<std::string>& names);

// Shares of `seconds` for phases with these minimums, in their order: equal shares, raised to a phase's
// minimum where it is larger (the others share the rest equally); in proportion to the minimums when
// `seconds` is not more than their sum.
std::vector<double> split_time(double seconds, const std::vector<double>& minimums);

// Min, median and max of a series, NaNs left out; {} when it has no number.
Json series_summary(const std::vector<double>& values);

}  // namespace mlbench::burnin
