// "did you mean --iodepth?": the closest real flag or subcommand to one the user mistyped (issue 19, point
// 12: fio users type --iodeph, --numjob, stroage). The names come from the parsed CLI11 app itself, so every
// flag and subcommand there is (the option tables' flags and aliases included) is a candidate, and nothing
// else is; CLI11's failure-message hook (cli/app.cpp) appends the suggestion to its error line.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

namespace mlbench::cli {

// Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours cost 1.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word` when it is close enough to be a typo of it (distance at most 2, and at
// most a third of the longer name's length), else empty; the first of equally close ones.
std::string closest_name(std::string_view word, const std::vector<std::string>& candidates);

// For a failed parse of `app`: the first argument the deepest subcommand parsed did not take ("--iodeph" of
// "--iodeph=4", a mistyped subcommand) and the closest real name, when one is close; else nullopt.
struct Suggestion {
  std::string given, closest;
};
std::optional<Suggestion> suggestion(const CLI::App& app);

// CLI11's error message with the suggestion in its first line: "The following argument was not expected:
// --iodeph; did you mean --iodepth?", "unknown subcommand 'stroage'; did you mean storage?".
std::string failure_message(const CLI::App* app, const CLI::Error& e);

}  // namespace mlbench::cli
