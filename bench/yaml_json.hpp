// YAML files (configs, catalogs, workloads, thresholds) read into JSON values, with errors that name the file
// and line. Scalars become numbers or booleans when they parse as such, strings otherwise.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace mlbench {

// Throws UsageError "FILE:LINE: ..." on a missing file or invalid YAML.
nlohmann::json load_yaml_file(const std::filesystem::path& path);
nlohmann::json parse_yaml(const std::string& text, const std::string& name);

}  // namespace mlbench
