// `mlbench storage --target PATH... [job options] [-o FILE]`: one fio-style job of the storage.io probe.
// Its flags are the probe's option table (storage/job_spec.hpp), so that `mlbench run --config` takes exactly
// the same options; the probe's plan() checks them.
#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "storage/job_spec.hpp"

namespace mlbench::cli {

void add_storage_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "storage",
      "Storage IOPS, bandwidth and latency of one fio-style job through io_uring (probe storage.io)");
  auto common = std::make_shared<CommonRunFlags>();
  add_common_run_flags(*cmd, *common);
  auto options = add_option_flags(*cmd, storage::job_options());
  // A job needs a target; without one `mlbench run` plans the profile suite instead.
  cmd->get_option("--target")->required();
  cmd->callback([&action, common, options] {
    action = [common, options] { return execute_family("storage.io", options(), *common); };
  });
}

}  // namespace mlbench::cli
