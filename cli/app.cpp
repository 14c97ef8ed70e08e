// The whole command line in one place, so that main() and the command-line fuzzer (fuzz/) parse the same app.
#include <string>

#include "cli/commands.hpp"
#include "cli/suggest.hpp"
#include "mlbench_config.hpp"

namespace mlbench::cli {

void build_app(CLI::App& app, Action& action) {
  // Set before the subcommands exist: each copies its parent's hook when it is created.
  app.failure_message(failure_message);
  app.description("mlbench: hardware benchmark and sizing suite for machine-learning servers");
  app.set_version_flag("--version", std::string("mlbench ") + MLBENCH_VERSION + " (" + MLBENCH_GIT_SHA + ")");
  app.require_subcommand(1);
  add_list_command(app, action);
  add_sysinfo_command(app, action);
  add_run_command(app, action);
  add_gpu_commands(app, action);
  add_hostmem_command(app, action);
  add_nccl_command(app, action);
  add_storage_command(app, action);
  add_dataload_commands(app, action);
  add_serve_command(app, action);
  add_compare_command(app, action);
  add_check_command(app, action);
  add_export_command(app, action);
  add_size_command(app, action);
  add_monitor_command(app, action);
  add_burnin_command(app, action);
}

}  // namespace mlbench::cli
