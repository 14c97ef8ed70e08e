#include <algorithm>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "bench/registry.hpp"
#include "bench/sysinfo.hpp"
#include "cli/commands.hpp"
#include "reports/formats.hpp"

namespace mlbench::cli {
namespace {

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
  auto formats = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Machine-readable output on stdout, with each probe's option table");
  cmd->add_flag("--formats", *formats,
                "List the --format names instead: what each is and the commands that write it");
  cmd->callback([&action, json, formats] {
    action = [json, formats] {
      if (*formats) return list_formats(*json);
      auto registry = builtin_registry();
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
