// Small builders for in-memory reports, and paths of the committed fixtures in tests/data/reports.
#pragma once

#include <filesystem>
#include <string>

#include "reports/compare.hpp"
#include "reports/inputs.hpp"
#include "tests/common/files.hpp"

namespace mlbench::test {

inline std::filesystem::path reports_data(const std::string& name) {
  return std::filesystem::path(MLBENCH_TEST_DATA_DIR) / "reports" / name;
}

// A result with one metric whose stats carry the given coefficient of variation.
Result make_result(const std::string& probe, Json params, const std::string& metric, double value,
                   const std::string& unit, double cv = 0.0, Better better = Better::higher);
NamedReport make_report(const std::string& file, const std::string& host, std::vector<Result> results,
                        const std::string& version = "0.1.0");

// compare's band on its own: a between-run spread of 0 stated for every probe and metric of the fixtures, so
// that each report's own spread makes its band (a machine whose runs differ by no more than their samples
// show). Tests of the stated spreads use the project's table (CompareOptions' default).
inline constexpr std::string_view kFixtureMetrics[] = {
    "bandwidth", "iops", "tflops", "pct_of_peak", "lat_p50", "lat_p99", "lat_p9999", "busbw", "algbw"};
inline constexpr StatedSpread kNoBetweenRunSpread[] = {
    {"gpu.hbm", "fixture", kFixtureMetrics, 0, 2},    {"gpu.gemm", "fixture", kFixtureMetrics, 0, 2},
    {"gpu.copy", "fixture", kFixtureMetrics, 0, 2},   {"net.nccl", "fixture", kFixtureMetrics, 0, 2},
    {"storage.io", "fixture", kFixtureMetrics, 0, 2}, {"host.membw", "fixture", kFixtureMetrics, 0, 2}};
inline CompareOptions own_spread_only(double threshold = 0.05, const BetweenRuns* between = nullptr) {
  return CompareOptions{threshold, between, kNoBetweenRunSpread};
}

// Runs a shell command line, returning its exit status (for optional external tools).
int run_shell(const std::string& cmd);
bool have_tool(const std::string& name);

}  // namespace mlbench::test
