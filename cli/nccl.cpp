// `mlbench nccl`: the NCCL collectives family. With no launcher environment it runs net.nccl in one process
// over every local GPU; started by mpirun/srun/torchrun/Kubernetes (one process per GPU) it joins the world
// through the bootstrap and rank 0 writes one merged cluster report (network/cluster.hpp).
#include <iostream>

#include <fmt/format.h>

#include "bench/registry.hpp"
#include "bench/signals.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "network/cluster.hpp"
#include "network/nccl_options.hpp"
#include "reports/summary.hpp"

namespace mlbench::cli {
namespace {

struct NcclFlags {
  CommonRunFlags common;
  std::vector<std::string> ops, dtypes;
  std::string min_bytes, max_bytes, timeout, placement, timing;
  double factor = 0;
  int iters = 0, warmup = 0, gpus = 0;
};

// Only the flags given: the profile supplies the rest.
Json options_from(const NcclFlags& f, const CLI::App& cmd) {
  Json o = Json::object();
  if (cmd.count("--ops") > 0) o["ops"] = f.ops;
  if (cmd.count("--dtype") > 0) o["dtype"] = f.dtypes;
  if (cmd.count("--min-bytes") > 0) o["min_bytes"] = f.min_bytes;
  if (cmd.count("--max-bytes") > 0) o["max_bytes"] = f.max_bytes;
  if (cmd.count("--factor") > 0) o["factor"] = f.factor;
  if (cmd.count("--iters") > 0) o["iters"] = f.iters;
  if (cmd.count("--warmup") > 0) o["warmup"] = f.warmup;
  if (cmd.count("--timeout") > 0) o["timeout"] = f.timeout;
  if (cmd.count("--placement") > 0) o["placement"] = f.placement;
  if (cmd.count("--gpus") > 0) o["gpus"] = f.gpus;
  if (cmd.count("--timing") > 0) o["timing"] = f.timing;
  return o;
}

int run_multi_process(const net::LaunchInfo& launch, const Json& options, const net::NcclOptions& parsed,
                      const CommonRunFlags& flags) {
  Profile profile = profile_from_string(flags.profile);
  if (flags.dry_run) {
    std::cout << Json{{"probe", "net.nccl"},
                      {"launcher", net::to_string(launch.launcher)},
                      {"rank", launch.rank},
                      {"world_size", launch.world_size},
                      {"local_rank", launch.local_rank},
                      {"master", fmt::format("{}:{}", launch.master_addr, launch.master_port)},
                      {"profile", flags.profile},
                      {"options", options}}
                     .dump(2)
              << "\n";
    return 0;
  }
  net::ClusterRun run{options, profile, std::nullopt, argv(), builtin_host_info()};
  if (!flags.output.empty() && launch.rank == 0) {
    check_writable(flags.output);
    run.output = flags.output;
  }
  auto boot = net::make_bootstrap(launch, parsed.timeout_s);
  SignalGuard guard;
  auto outcome = net::run_cluster(launch, *boot, run);
  if (outcome.rank == 0) {
    if (flags.json) {
      std::cout << to_json(outcome.report).dump(2) << "\n";
    } else {
      print_summary(std::cout, outcome.report);
      if (run.output) std::cout << "cluster report written to " << run.output->string() << "\n";
    }
  }
  if (outcome.interrupted) {
    std::cerr << "mlbench: interrupted; the report holds the cases that finished\n";
    return 130;
  }
  return exit_code_for(outcome.report);
}

}  // namespace

void add_nccl_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("nccl",
                                 "NCCL collectives: algbw/busbw per collective and size (one process over "
                                 "all local GPUs, or one process "
                                 "per GPU under mpirun/srun/torchrun/Kubernetes)");
  auto flags = std::make_shared<NcclFlags>();
  add_common_run_flags(*cmd, flags->common);
  cmd->add_option(
         "--ops", flags->ops,
         "Collectives (comma list): all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, "
         "sendrecv (default: all; quick: the first three)")
      ->delimiter(',');
  cmd->add_option("--dtype", flags->dtypes,
                  "Data types (comma list): float, bf16, half, int8 (default float)")
      ->delimiter(',');
  cmd->add_option("--min-bytes", flags->min_bytes, "Smallest size S (bytes, or 64K, 1M...; default 8)");
  cmd->add_option("--max-bytes", flags->max_bytes,
                  "Largest size S (default 8G; capped by the GPUs' free memory)");
  cmd->add_option("--factor", flags->factor, "Multiply the size by this between steps (> 1; default 2)");
  cmd->add_option("--iters", flags->iters, "Timed back-to-back calls per size (default 20)");
  cmd->add_option("--warmup", flags->warmup, "Untimed calls before timing (default 5)");
  cmd->add_option("--timeout", flags->timeout,
                  "Abort (ncclCommAbort) any wait longer than this, and bound the rendezvous (default 300s)");
  cmd->add_option("--placement", flags->placement,
                  "both | out | in: out-of-place and/or in-place (default both)");
  cmd->add_option("--gpus", flags->gpus, "Single-process mode: local GPUs to use (default all)");
  cmd->add_option("--timing", flags->timing,
                  "blocking | nonblocking: the communicators the timed calls run on (default blocking, as "
                  "nccl-tests; nonblocking hands every launch to an NCCL thread)");
  cmd->callback([&action, flags, cmd] {
    action = [flags, cmd] {
      Json options = options_from(*flags, *cmd);
      // Checked here, before availability: bad input is exit 2 even where NCCL cannot run.
      auto parsed = net::parse_nccl_options(options, profile_from_string(flags->common.profile));
      auto launch = net::parse_launch_env(net::process_env());
      if (!launch.multi_process()) return execute_family("net.nccl", options, flags->common);
      return run_multi_process(launch, options, parsed, flags->common);
    };
  });
}

}  // namespace mlbench::cli
