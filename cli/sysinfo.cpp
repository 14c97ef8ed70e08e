#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "base/error.hpp"
#include "bench/registry.hpp"
#include "bench/sysinfo.hpp"
#include "cli/commands.hpp"
#include "reports/summary.hpp"

namespace mlbench::cli {

void add_sysinfo_command(CLI::App& app, Action& action) {
  auto* cmd =
      app.add_subcommand("sysinfo", "Print the host inventory (CPU, NUMA, memory, drives, NICs, GPUs)");
  auto json = std::make_shared<bool>(false);
  auto root = std::make_shared<std::string>("/");
  cmd->add_flag("--json", *json, "Machine-readable output on stdout");
  cmd->add_option("--root", *root, "Read /sys and /proc under this folder (for fixture trees)")
      ->capture_default_str();
  cmd->callback([&action, json, root] {
    action = [json, root] {
      // A missing root would read as an empty inventory: refuse it (the fixture trees are folders).
      if (std::error_code ec; !std::filesystem::is_directory(*root, ec))
        throw UsageError(
            fmt::format("--root {}: not a folder; give the root of a /sys and /proc tree", *root));
      auto host = *root == "/" ? builtin_host_info() : collect_host_info(SysReader(*root));
      if (*json) {
        std::cout << host.dump(2) << "\n";
      } else {
        print_host(std::cout, host);
      }
      return 0;
    };
  });
}

}  // namespace mlbench::cli
