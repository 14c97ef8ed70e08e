// mlbench: builds the CLI11 app from cli/* and maps errors to exit codes; nothing else.
#include <iostream>

#include <CLI/CLI.hpp>

#include "base/error.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/suggest.hpp"

int main(int argc, char** argv) {
  CLI::App app;
  mlbench::cli::Action action;
  mlbench::cli::build_app(app, action);

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
    std::cerr << "mlbench: error: " << mlbench::cli::as_typed(app, e.what(), mlbench::cli::argv()) << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "mlbench: error: " << e.what() << "\n";
    return 1;
  }
}
