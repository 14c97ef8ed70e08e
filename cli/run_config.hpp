// The `mlbench run --config FILE` document: {profile: quick, probes: [ids], options: {probe.id: {...}}}.
// Kept apart from the command so that the parser can be tested and fuzzed without running anything.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mlbench::cli {

struct RunConfig {
  std::optional<std::string> profile;
  std::optional<std::vector<std::string>> probes;
  std::optional<nlohmann::json> options;  // probe id -> options, validated later by each probe's plan()
};

// Checks a parsed --config document; UsageError names `name` and the offending key.
RunConfig run_config_from_json(const nlohmann::json& cfg, const std::string& name);
// Reads and checks a --config file; UsageError for a missing file, invalid YAML or a bad key.
RunConfig load_run_config(const std::filesystem::path& path);

}  // namespace mlbench::cli
