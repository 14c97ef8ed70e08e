// `mlbench dataload` (probe storage.dataload) and `mlbench checkpoint` (probe storage.checkpoint): their
// flags are the probes' option tables, so that `mlbench run --config` takes exactly the same options; the
// probes' plan() checks them.
#include <memory>

#include "base/error.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "storage/checkpoint/checkpoint.hpp"
#include "storage/dataload/probe.hpp"

namespace mlbench::cli {

void add_dataload_commands(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "dataload",
      "How many accelerators this storage can feed: MLPerf Storage-style training reads through io_uring "
      "(probe storage.dataload)");
  auto common = std::make_shared<CommonRunFlags>();
  add_common_run_flags(*cmd, *common);
  auto options = add_option_flags(*cmd, storage::dataload_options());
  cmd->callback([&action, common, options] {
    action = [common, options] {
      Json o = options();
      // Without a data source `mlbench run` plans nothing for this probe; the command says what is missing.
      if (!o.contains("data") && !o.contains("data_dir"))
        throw UsageError(
            "give --data-dir DIR (with --generate: a dataset mlbench makes) or --data DIR (yours)");
      return execute_family("storage.dataload", o, *common);
    };
  });

  auto* ck = app.add_subcommand(
      "checkpoint",
      "Checkpoint write/read bandwidth and training stall, MLPerf Storage method (probe storage.checkpoint)");
  auto ck_common = std::make_shared<CommonRunFlags>();
  add_common_run_flags(*ck, *ck_common);
  auto ck_options = add_option_flags(*ck, storage::checkpoint_options());
  ck->get_option("--dir")->required();
  ck->callback([&action, ck_common, ck_options] {
    action = [ck_common, ck_options] {
      return execute_family("storage.checkpoint", ck_options(), *ck_common);
    };
  });
}

}  // namespace mlbench::cli
