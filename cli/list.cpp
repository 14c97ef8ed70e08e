#include <algorithm>
#include <iostream>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "bench/options.hpp"
#include "bench/registry.hpp"
#include "bench/sysinfo.hpp"
#include "cli/commands.hpp"
#include "reports/formats.hpp"

namespace mlbench::cli {
namespace {

// The long flags a probe's table puts on a family subcommand (add_option_flags): --NAME, and --no-NAME beside
// a flag that defaults to true.
std::set<std::string> table_flags(const ProbeInfo& info) {
  std::set<std::string> out;
  for (const auto& row : info.options) {
    if (!row.cli) continue;
    out.insert(flag_name(row.name));
    if (row.type == OptionType::flag && row.def == "true")
      out.insert("--no-" + flag_name(row.name).substr(2));
  }
  return out;
}

// The probe whose table a subcommand's flags include whole (`mlbench storage` holds storage.io's): its id and
// flags; the largest such table when several would fit. None for a command that runs no single probe.
std::pair<std::string, std::set<std::string>> probe_of(const CLI::App& cmd, const Registry& registry) {
  std::set<std::string> names;
  for (const auto* o : cmd.get_options())
    for (const auto& l : o->get_lnames()) names.insert("--" + l);
  std::pair<std::string, std::set<std::string>> best;
  for (const auto& p : registry.all()) {
    auto flags = table_flags(p->info());
    if (!flags.empty() && std::ranges::includes(names, flags) && flags.size() > best.second.size())
      best = {std::string(p->info().id), std::move(flags)};
  }
  return best;
}

// An option's validators. CLI11 gives them by index and says where they end only by throwing.
std::vector<const CLI::Validator*> validators(CLI::Option& o) {
  std::vector<const CLI::Validator*> out;
  try {
    for (int i = 0;; ++i) out.push_back(o.get_validator(i));
  } catch (const CLI::OptionNotFound&) {
  }
  return out;
}

// One subcommand as CLI11 holds it, less -h,--help: each option's flags (or positional name), help, what it
// takes, its default, whether it is required, and its validators' descriptions (the range or the allowed
// values). The options that are rows of the probe the command runs carry that probe's id (probe_option):
// their table is the probe's, which `list --json` documents.
nlohmann::json command_to_json(CLI::App& cmd, const Registry& registry) {
  const auto [probe, rows] = probe_of(cmd, registry);
  nlohmann::json options = nlohmann::json::array();
  for (auto* o : cmd.get_options()) {
    if (o == cmd.get_help_ptr()) continue;  // every command has -h,--help
    nlohmann::json row = {{"description", o->get_description()}};
    if (o->get_lnames().empty() && o->get_snames().empty() && o->get_positional()) {
      row["positional"] = o->get_name(true);
    } else {
      nlohmann::json flags = nlohmann::json::array();
      for (const auto& s : o->get_snames()) flags.push_back("-" + s);
      for (const auto& l : o->get_lnames()) flags.push_back("--" + l);
      row["flags"] = flags;
      if (!o->get_lnames().empty() && rows.contains("--" + o->get_lnames().front()))
        row["probe_option"] = probe;
    }
    const int most = o->get_items_expected_max();
    row["takes"] = most == 0 ? "nothing" : most == 1 ? "a value" : "values";
    if (!o->get_default_str().empty()) row["default"] = o->get_default_str();
    row["required"] = o->get_required();
    nlohmann::json checks = nlohmann::json::array();
    for (const auto* v : validators(*o))
      if (!v->get_description().empty()) checks.push_back(v->get_description());
    if (!checks.empty()) row["checks"] = checks;
    std::vector<std::string> excludes;  // sorted: CLI11 keeps them in a set of pointers
    for (const auto* other : o->get_excludes()) excludes.push_back(other->get_name());
    std::ranges::sort(excludes);
    if (!excludes.empty()) row["excludes"] = excludes;
    options.push_back(row);
  }
  nlohmann::json out = {{"command", cmd.get_name()}, {"description", cmd.get_description()}};
  if (!probe.empty()) out["probe"] = probe;
  out["options"] = options;
  return out;
}

// Every output format (reports/formats.hpp): its name and what it is, then the commands that write it.
int list_formats(bool json) {
  const nlohmann::json formats = formats_to_json();
  if (json) {
    std::cout << formats.dump(2) << "\n";
    return 0;
  }
  std::size_t width = std::string_view("FORMAT").size();
  for (const auto& f : formats) width = std::max(width, f["name"].get<std::string>().size());
  std::cout << fmt::format("{:<{}} {}\n", "FORMAT", width, "WHAT IT IS / WRITTEN BY");
  for (const auto& f : formats) {
    std::cout << fmt::format("{:<{}} {}\n{:<{}} {}\n", f["name"].get<std::string>(), width,
                             f["description"].get<std::string>(), "", width,
                             fmt::join(f["commands"].get<std::vector<std::string>>(), ", "));
  }
  return 0;
}

}  // namespace

void add_list_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "list", "List every probe and why it is unavailable here, if it is (--formats: every output format)");
  auto json = std::make_shared<bool>(false);
  auto commands = std::make_shared<bool>(false);
  auto formats = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Machine-readable output on stdout, with each probe's option table");
  auto* commands_flag = cmd->add_flag(
      "--commands", *commands,
      "List the subcommands instead of the probes; with --json each one's options as CLI11 holds "
      "them (flags, help, default, required, range or values)");
  cmd->add_flag("--formats", *formats,
                "List the --format names instead: what each is and the commands that write it")
      ->excludes(commands_flag);
  cmd->callback([&app, &action, json, commands, formats] {
    action = [&app, json, commands, formats] {
      if (*formats) return list_formats(*json);
      auto registry = builtin_registry();
      if (*commands) {
        nlohmann::json out = nlohmann::json::array();
        for (auto* sub : app.get_subcommands([](CLI::App*) { return true; }))
          out.push_back(command_to_json(*sub, registry));
        if (*json) {
          std::cout << out.dump(2) << "\n";
          return 0;
        }
        std::size_t width = std::string_view("COMMAND").size();
        for (const auto& c : out) width = std::max(width, c["command"].get<std::string>().size());
        std::cout << fmt::format("{:<{}} {}\n", "COMMAND", width, "DESCRIPTION");
        for (const auto& c : out)
          std::cout << fmt::format("{:<{}} {}\n", c["command"].get<std::string>(), width,
                                   c["description"].get<std::string>());
        return 0;
      }
      auto host = builtin_host_info();
      nlohmann::json out = nlohmann::json::array();
      for (const auto& p : registry.all()) {
        auto info = p->info();
        auto why = p->unavailable(host);
        out.push_back({{"id", info.id},
                       {"description", info.description},
                       {"requires", info.needs},
                       {"available", !why.has_value()},
                       {"reason", why.value_or("")},
                       {"options", options_to_json(info.options)}});
      }
      if (*json) {
        std::cout << out.dump(2) << "\n";
        return 0;
      }
      // The id column is as wide as the longest probe id, so every row lines up.
      std::size_t id_width = std::string_view("PROBE").size();
      for (const auto& p : out) id_width = std::max(id_width, p["id"].get<std::string>().size());
      auto padded = [id_width](std::string text) {
        text.resize(std::max(id_width, text.size()), ' ');
        return text;
      };
      std::cout << padded("PROBE") << fmt::format(" {:<11} {}\n", "AVAILABLE", "DESCRIPTION");
      for (const auto& p : out) {
        std::cout << padded(p["id"].get<std::string>())
                  << fmt::format(" {:<11} {}\n", p["available"].get<bool>() ? "yes" : "no",
                                 p["description"].get<std::string>());
        if (!p["available"].get<bool>())
          std::cout << padded("") << fmt::format(" {:<11} why: {}\n", "", p["reason"].get<std::string>());
      }
      return 0;
    };
  });
}

}  // namespace mlbench::cli
