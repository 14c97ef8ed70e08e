// YAML files (configs, catalogs, workloads, thresholds) read into JSON values, with errors that name the file
// and line. Scalars become numbers or booleans when they parse as such, strings otherwise.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace mlbench {

// What a YAML file may expand to: values (scalars, keys, sequences and mappings, an alias counted at every
// use) and nesting. Files are read through the bounded reader (base/input_file.hpp), whose 1 MiB holds at
// most about 500,000 values (two bytes each, "1,"), but aliases multiply a few hundred bytes into billions
// of values: only aliases reach the value limit. No config, workload, thresholds file or catalog comes near
// either limit.
struct YamlLimits {
  std::size_t values;
  std::size_t depth;
};
inline constexpr YamlLimits kYamlLimits{1'000'000, 64};

// Throws UsageError "FILE:LINE: ..." on a missing file, one that is not a regular file or is over its size
// limit, invalid YAML, or a file beyond kYamlLimits.
nlohmann::json load_yaml_file(const std::filesystem::path& path);
nlohmann::json parse_yaml(const std::string& text, const std::string& name);

// A quantity in a YAML file, in `unit` (a report unit: "s", "B", "B/s", "1/s", ...; "" for a count): a number
// as it is, or a string in the flags' grammar through parse_quantity (base/units.hpp): "2ms", "4k", "700k",
// "13B". UsageError naming `what` for anything else.
double quantity_value(const nlohmann::json& v, std::string_view unit, const std::string& what);

}  // namespace mlbench
