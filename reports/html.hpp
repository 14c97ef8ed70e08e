// The HTML report: one self-contained file (inline CSS and SVG; no scripts, fonts or network references).
// Charts first — GEMM TFLOPS per precision per machine, HBM/copy bandwidth, NCCL busbw against message size,
// storage IOPS and bandwidth per job, % of peak, fleet outliers — each drawn only when its data exists; the
// tables beneath.
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
