// `mlbench hostmem`: the host.membw probe alone, with its option table as flags
// (kernels/host/membw_probe.hpp).
#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "kernels/host/membw_probe.hpp"

namespace mlbench::cli {

void add_hostmem_command(CLI::App& app, Action& action) {
  auto* cmd =
      app.add_subcommand("hostmem", "Host memory bandwidth (STREAM copy/scale/add/triad, host.membw)");
  auto common = std::make_shared<CommonRunFlags>();
  add_common_run_flags(*cmd, *common);
  auto options = add_option_flags(*cmd, hostmem::membw_options());
  cmd->callback([&action, common, options] {
    action = [common, options] { return execute_family(std::string(hostmem::kProbeId), options(), *common); };
  });
}

}  // namespace mlbench::cli
