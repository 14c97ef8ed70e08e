// mlbench: builds the CLI11 app from bench/cli/* and maps errors to exit codes; nothing else.
#include <iostream>

#include <CLI/CLI.hpp>

#include "bench/cli/commands.hpp"
#include "bench/cli/common.hpp"
#include "bench/error.hpp"
#include "mlbench_config.hpp"

int main(int argc, char** argv) {
  CLI::App app{"mlbench: hardware benchmark and sizing suite for machine-learning servers"};
  app.set_version_flag("--version", std::string("mlbench ") + MLBENCH_VERSION + " (" + MLBENCH_GIT_SHA + ")");
  app.require_subcommand(1);
  mlbench::cli::Action action;
  mlbench::cli::add_list_command(app, action);
  mlbench::cli::add_sysinfo_command(app, action);
  mlbench::cli::add_run_command(app, action);
  mlbench::cli::add_gpu_commands(app, action);
  mlbench::cli::add_hostmem_command(app, action);
  mlbench::cli::add_nccl_command(app, action);
  mlbench::cli::add_storage_command(app, action);
  mlbench::cli::add_compare_command(app, action);
  mlbench::cli::add_check_command(app, action);
  mlbench::cli::add_export_command(app, action);
  mlbench::cli::add_size_command(app, action);

  mlbench::cli::set_argv(argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  try {
    return action ? action() : 0;
  } catch (const mlbench::UsageError& e) {
    std::cerr << "mlbench: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "mlbench: error: " << e.what() << "\n";
    return 1;
  }
}
