// `mlbench serve --url http://HOST:PORT [load] [requests]` (probe serve.llm): its flags are the probe's
// option table (serve/probe.cpp), so that `mlbench run --config` takes exactly the same options; the probe's
// plan() checks them. The API key is read from the environment variable --api-key-env names, never from a
// flag.
#include <memory>

#include "base/error.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "serve/probe.hpp"

namespace mlbench::cli {

void add_serve_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "serve",
      "An OpenAI-compatible inference server under load: TTFT, TPOT, ITL, throughput and goodput "
      "(probe serve.llm)");
  auto common = std::make_shared<CommonRunFlags>();
  add_common_run_flags(*cmd, *common);
  auto options = add_option_flags(*cmd, serve::serve_options());
  cmd->callback([&action, common, options] {
    action = [common, options] {
      Json o = options();
      // Without a server `mlbench run` plans nothing for this probe; the command says what is missing.
      if (!o.contains("url")) throw UsageError("give --url http://HOST:PORT (the server to measure)");
      return execute_family("serve.llm", o, *common);
    };
  });
}

}  // namespace mlbench::cli
