// The HTML report: one self-contained file (inline CSS and SVG; no scripts, fonts or network references).
// It opens with the answer and the machines: the verdict (check: pass/fail first; compare: the regressions
// per comparison; fleet: the outliers, worse and better; a burn-in: the node's pass/warn/fail with its
// reasons and the per-GPU verdict table; a report alone: its results by status), then the host inventory
// from each report's `host` and `run` blocks (date, profile, duration, build, OS, CPU, memory, GPUs, drives,
// NICs). Then the charts — a burn-in's timelines (SM clock, power, GPU and HBM temperature, a line per GPU;
// the host's CPU, memory and disks; phases shaded, events marked), GEMM TFLOPS per precision per machine,
// HBM/copy bandwidth, NCCL busbw against message size, storage IOPS and bandwidth per job (each target of a
// multi-target job and their aggregate apart), % of peak, fleet outliers — each drawn only when its data
// exists, at the page's width; the tables beneath (a burn-in's phase results and events), a result that did
// not run ok with its reason, every result with its warnings.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reports/check.hpp"
#include "reports/compare.hpp"
#include "reports/fleet.hpp"

namespace mlbench {

// Above this many machines, per-machine chart series collapse into fleet min / median / max.
inline constexpr std::size_t kMaxChartMachines = 8;

struct HtmlPage {
  std::string title;
  const std::vector<NamedReport>* reports = nullptr;
  std::vector<Comparison> comparisons;
  std::optional<FleetAnalysis> fleet;
  double threshold = 0.05;
  std::optional<CheckResult> check;
};

std::string to_html_page(const HtmlPage& page);

}  // namespace mlbench
