// Small builders for in-memory reports, and paths of the committed fixtures in tests/data/reports.
#pragma once

#include <filesystem>
#include <string>

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

// Runs a shell command line, returning its exit status (for optional external tools).
int run_shell(const std::string& cmd);
bool have_tool(const std::string& name);

}  // namespace mlbench::test
