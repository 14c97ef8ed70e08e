// The burn-in verdict, per GPU and per node. A GPU fails on any verification error, XID, new double-bit ECC
// error, pending or failed row remap (or retired page pending), a PCIe link below its maximum under load, a
// lost GPU, or time spent in hardware slowdown / hardware thermal slowdown / hardware power-brake; it warns
// when its sustained GEMM or HBM rate is more than `warn_pct` below the node's median GPU or below the
// --baseline fleet median (the compare --fleet statistics of the baseline reports). The node fails when any
// GPU or host phase fails (exit 1); else it is incomplete when a phase stopped before its first full
// verified pass (exit 1); else it warns when any GPU warns, passes otherwise (exit 0). Pure: tested on
// fixture records.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "burnin/phase.hpp"
#include "burnin/telemetry.hpp"
#include "report/report.hpp"
#include "report/report_burnin.hpp"

namespace mlbench::burnin {

// A GPU's rate key: "<phase>_<the phase's first metric>" ("gemm_tflops", "hbm_bandwidth"), the name of the
// burnin.gpu metric that carries it and of what --baseline reads (report metric names are [a-z0-9_]). Phase
// names hold no '_', so the first one splits the key.
std::string rate_key(PhaseId phase, std::string_view metric);
// The phase and metric of a rate key; nullopt when `key` is not one.
std::optional<std::pair<PhaseId, std::string>> split_rate_key(std::string_view key);

struct VerdictOptions {
  double warn_pct = 5;  // --warn-pct
  // --baseline: the fleet median per metric key ("gemm_tflops", "hbm_bandwidth"), of the same GPU model.
  std::map<std::string, double> baseline_median;
};

struct GpuVerdict {
  std::string device;
  burnin_report::Verdict verdict = burnin_report::Verdict::pass;
  std::vector<std::string> reasons;  // one line each, naming the check and the numbers
  // The GPU's sustained rates by key ("gemm_tflops", "hbm_bandwidth"), the medians over its phase results.
  std::map<std::string, double> rates;
};

struct NodeVerdict {
  burnin_report::Verdict verdict = burnin_report::Verdict::pass;
  std::vector<std::string> reasons;
  std::vector<GpuVerdict> gpus;
  int exit_code() const;  // 0 pass or warn, 1 fail or incomplete
};

// `phase_results`: every burnin.<phase> result (params.device "gpu0"... or "host"/the scratch file); `gpus`:
// the sampler's records; `events`: the sampler's events (XIDs name their GPU).
NodeVerdict judge(const std::vector<Result>& phase_results, const std::vector<GpuRecord>& gpus,
                  const std::vector<burnin_report::Event>& events, const VerdictOptions& opts);

// The baseline medians from --baseline reports (files or folders of earlier burn-in reports): per key, the
// median over every GPU of every report of the per-GPU rate, for GPUs named `gpu_name`. Throws UsageError
// when a path cannot be read or holds no burn-in result.
std::map<std::string, double> baseline_medians(const std::vector<std::string>& paths,
                                               const std::string& gpu_name);

}  // namespace mlbench::burnin
