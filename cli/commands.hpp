// One add_*_command per subcommand, each in its own file under cli/. A command stores what it will do
// in `action` when CLI11 selects it; main() runs it and maps exceptions to exit codes (UsageError → 2).
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace mlbench::cli {

using Action = std::function<int()>;

// The mlbench app: description, --version and every subcommand below. Parsing only stores the chosen command
// in `action`; nothing runs until main() calls it.
void build_app(CLI::App& app, Action& action);

void add_list_command(CLI::App& app, Action& action);
void add_sysinfo_command(CLI::App& app, Action& action);
void add_run_command(CLI::App& app, Action& action);
void add_gpu_commands(CLI::App& app, Action& action);  // gemm, hbm, copy, conv
void add_hostmem_command(CLI::App& app, Action& action);
void add_nccl_command(CLI::App& app, Action& action);
void add_storage_command(CLI::App& app, Action& action);
void add_dataload_commands(CLI::App& app, Action& action);  // dataload, checkpoint
void add_serve_command(CLI::App& app, Action& action);
void add_compare_command(CLI::App& app, Action& action);
void add_check_command(CLI::App& app, Action& action);
void add_export_command(CLI::App& app, Action& action);
void add_size_command(CLI::App& app, Action& action);
void add_monitor_command(CLI::App& app, Action& action);
void add_burnin_command(CLI::App& app, Action& action);

}  // namespace mlbench::cli
