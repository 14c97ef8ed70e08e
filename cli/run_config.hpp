// The `mlbench run --config FILE` document: {profile: quick, probes: [ids], options: {probe.id: {...}}}.
// Kept apart from the command so that the parser can be tested and fuzzed without running anything.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/registry.hpp"

namespace mlbench::cli {

struct RunConfig {
  std::optional<std::string> profile;
  std::optional<std::vector<std::string>> probes;
  std::optional<nlohmann::json>
      options;  // probe id -> options, each checked against the probe's option table
};

// Checks a parsed --config document, each probe's options against its option table (bench/options.hpp) even
// where the probe cannot run; UsageError names `name` and the offending key (options.storage.io.bs). Options
// of a probe `registry` does not have are left to the runner, which refuses them.
RunConfig run_config_from_json(const nlohmann::json& cfg, const std::string& name, const Registry& registry);
// Reads and checks a --config file against the built-in probes; UsageError for a missing file, invalid YAML
// or a bad key.
RunConfig load_run_config(const std::filesystem::path& path);

}  // namespace mlbench::cli
