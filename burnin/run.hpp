// `mlbench burnin`'s orchestration: the selected phases one after another, each for a share of the duration,
// with a cooldown between them (idle until the GPUs' temperatures settle, at most --cooldown), then every
// phase at once ("all": the power and cooling a training job draws); the telemetry sampler runs throughout;
// at the end the verdict (burnin/verdict.hpp) and one normal report (reports/report_burnin.hpp). SIGINT ends
// the phase that is running and the report holds what ran.
//
// Shares: each phase gets (time left − the cooldowns still to come at their maximum) ÷ phases left, so time a
// short cooldown leaves over goes to the later phases and the burn-in ends within --duration.
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
#include "reports/report.hpp"

namespace mlbench::burnin {

struct BurninOptions {
  double duration_s = 1800;
  std::vector<PhaseId> phases;  // in the order given; empty: every phase in kPhaseNames order
  double cooldown_max_s = 60;
  VerdictOptions verdict;
  std::filesystem::path scratch_dir = "/var/tmp";
  std::uint64_t storage_bytes = 1ull << 30;
  double host_memory_fraction = 0.5;
  std::uint64_t seed = 1;
  std::chrono::milliseconds sample_interval{1000};
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
  // 0 when every GPU and host phase passed (warn included), 1 on a fail, 130 when interrupted (the report
  // holds what ran).
  int exit_code() const;
};

// Runs the burn-in; `save` is called with the report so far after each phase (write it with -o).
BurninOutcome run_burnin(const BurninOptions& opts, BurninEnvironment& env,
                         const std::function<void(const Report&)>& save = {});

// The phases named in a --phases list ("gemm,hbm,all"); throws UsageError naming an unknown one and the
// choices.
std::vector<PhaseId> parse_phases(const std::vector<std::string>& names);

// Min, median and max of a series, NaNs left out; {} when it has no number.
Json series_summary(const std::vector<double>& values);

}  // namespace mlbench::burnin
