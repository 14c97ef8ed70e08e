// Runs the real mlbench binary for CLI tests.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace mlbench::test {

struct CliResult {
  int rc = -1;
  std::string out, err;
};

// Runs MLBENCH_EXE with args (no shell), optional environment additions ("NAME=value"), capturing both
// streams.
CliResult run_cli(const std::vector<std::string>& args, const std::vector<std::string>& env = {});

// A fresh empty folder under the system temp dir, removed by the destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Validates a JSON file against reports/report.schema.json with python3-jsonschema; returns "" when valid,
// else the validator's message.
std::string validate_report_schema(const std::filesystem::path& report);

}  // namespace mlbench::test
