#include "cli/run_config.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "base/error.hpp"
#include "bench/yaml_json.hpp"

namespace mlbench::cli {

RunConfig run_config_from_json(const nlohmann::json& cfg, const std::string& name, const Registry& registry) {
  if (!cfg.is_object())
    throw UsageError(fmt::format("{}: expected a mapping with profile/probes/options", name));
  for (const auto& [key, _] : cfg.items()) {
    if (key != "profile" && key != "probes" && key != "options") {
      throw UsageError(fmt::format("{}: unknown key '{}' (allowed: profile, probes, options)", name, key));
    }
  }
  RunConfig out;
  if (cfg.contains("profile")) {
    if (!cfg["profile"].is_string())
      throw UsageError(fmt::format("{}: 'profile' must be a profile name (quick, default, full)", name));
    out.profile = cfg["profile"].get<std::string>();
  }
  if (cfg.contains("probes")) {
    const auto& probes = cfg["probes"];
    if (!probes.is_array() ||
        !std::all_of(probes.begin(), probes.end(), [](const auto& p) { return p.is_string(); }))
      throw UsageError(fmt::format("{}: 'probes' must be a list of probe ids", name));
    out.probes = probes.get<std::vector<std::string>>();
  }
  if (cfg.contains("options")) {
    if (!cfg["options"].is_object())
      throw UsageError(fmt::format("{}: 'options' must map probe ids to options", name));
    for (const auto& [id, options] : cfg["options"].items()) {
      const Probe* probe = registry.find(id);
      if (probe == nullptr) continue;
      try {
        parse_options(probe->info().options, options, OptionSource::config(id));
      } catch (const UsageError& e) {
        throw UsageError(fmt::format("{}: {}", name, e.what()));
      }
    }
    out.options = cfg["options"];
  }
  return out;
}

RunConfig load_run_config(const std::filesystem::path& path) {
  return run_config_from_json(load_yaml_file(path), path.string(), builtin_registry());
}

}  // namespace mlbench::cli
