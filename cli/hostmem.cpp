// `mlbench hostmem`: the host.membw probe alone, with its options as flags (kernels/host/membw_probe.hpp).
#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"

namespace mlbench::cli {
namespace {

struct HostmemFlags {
  CommonRunFlags common;
  int threads = 0;
  std::string size;
  std::vector<std::string> kernels;
  bool numa = true;
  std::string stores;
  std::string isa;
};

}  // namespace

void add_hostmem_command(CLI::App& app, Action& action) {
  auto* cmd =
      app.add_subcommand("hostmem", "Host memory bandwidth (STREAM copy/scale/add/triad, host.membw)");
  auto flags = std::make_shared<HostmemFlags>();
  add_common_run_flags(*cmd, flags->common);
  cmd->add_option("--threads", flags->threads,
                  "Threads, pinned one per CPU (default: one per physical core)");
  cmd->add_option(
      "--size", flags->size,
      "Total bytes of the three arrays, e.g. 6G (default: each array >= 4x the last-level caches)");
  cmd->add_option("--kernels", flags->kernels, "Kernels to run: copy,scale,add,triad (default: all)")
      ->delimiter(',');
  add_on_off_flag(*cmd, "numa", flags->numa,
                  "Pin threads across NUMA nodes, each initialising its own chunk (the default)",
                  "Neither spread threads across NUMA nodes nor first-touch per node (default: --numa)");
  cmd->add_option("--stores", flags->stores,
                  "auto | nt | regular: non-temporal or regular stores (default: auto)");
  cmd->add_option("--isa", flags->isa, "auto | avx512 | avx2 | sse2 | scalar: vector width of the loops");
  cmd->callback([&action, flags, cmd] {
    action = [flags, cmd] {
      nlohmann::json options = nlohmann::json::object();
      if (cmd->count("--threads") > 0) options["threads"] = flags->threads;
      if (cmd->count("--size") > 0) options["size"] = flags->size;
      if (cmd->count("--kernels") > 0) options["kernels"] = flags->kernels;
      if (cmd->count("--numa") + cmd->count("--no-numa") > 0) options["numa"] = flags->numa;
      if (cmd->count("--stores") > 0) options["stores"] = flags->stores;
      if (cmd->count("--isa") > 0) options["isa"] = flags->isa;
      return execute_family("host.membw", std::move(options), flags->common);
    };
  });
}

}  // namespace mlbench::cli
