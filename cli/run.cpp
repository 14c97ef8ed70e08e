#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/run_config.hpp"

namespace mlbench::cli {
namespace {

struct RunFlags {
  CommonRunFlags common;
  std::vector<std::string> probes;
  std::string config;
  std::string storage_dir;
};

// --config FILE: the command line wins over the file.
void apply_config(const std::string& path, RunFlags& flags, RunOptions& opts, bool profile_given) {
  auto cfg = load_run_config(path);
  if (cfg.profile && !profile_given) flags.common.profile = *cfg.profile;
  if (cfg.probes && flags.probes.empty()) opts.probe_ids = *cfg.probes;
  if (cfg.options) {
    opts.probe_options = *cfg.options;
    opts.options_from_config = true;
  }
}

}  // namespace

void add_run_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("run", "Run the probes of a profile (all available probes by default)");
  auto flags = std::make_shared<RunFlags>();
  add_common_run_flags(*cmd, flags->common);
  cmd->add_option("--probe", flags->probes, "Run only this probe (repeatable); see `mlbench list`");
  cmd->add_option("--config", flags->config, "YAML file: profile, probes and per-probe options");
  cmd->add_option("--storage-dir", flags->storage_dir,
                  "Folder for the storage suite's test file (default: .)");
  cmd->callback([&action, flags, cmd] {
    action = [flags, cmd] {
      RunOptions opts;
      opts.probe_ids = flags->probes;
      if (!flags->config.empty()) apply_config(flags->config, *flags, opts, cmd->count("--profile") > 0);
      if (!flags->storage_dir.empty() && !opts.probe_options.contains("storage.io"))
        opts.probe_options["storage.io"] = {{"dir", flags->storage_dir}};
      return execute(std::move(opts), flags->common);
    };
  });
}

}  // namespace mlbench::cli
