// The command-line target, apart from the others: it needs every probe library (the app registers them all).
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "fuzz/targets.hpp"

namespace mlbench::fuzz {
namespace {

// Longer command lines are cut: more arguments reach no new parser state, only slower runs.
constexpr std::size_t kMaxArgs = 64;

}  // namespace

void cli(std::string_view data) {
  std::vector<std::string> args{"mlbench"};
  while (!data.empty() && args.size() <= kMaxArgs) {
    auto eol = data.find('\n');
    args.emplace_back(data.substr(0, eol));
    data = eol == std::string_view::npos ? std::string_view{} : data.substr(eol + 1);
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  CLI::App app;
  cli::Action action;
  cli::build_app(app, action);
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError&) {
  }
}

}  // namespace mlbench::fuzz
