// "did you mean --iodepth?": the closest real flag or subcommand to one the user mistyped (fio
// users type --iodeph, --numjob, stroage). The names come from the parsed CLI11 app itself, so every
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

// `message` with an option's name as the user typed it: CLI11 and the option tables name an option by its
// first long name (--jobs, --output), the user may have typed another of its names (--numjobs, -o). Each
// option of the deepest parsed subcommand with several names, one of which the command line holds, has its
// canonical name replaced by that one (the first time it appears in the message).
std::string as_typed(const CLI::App& app, std::string message, const std::vector<std::string>& argv);

// Every parse error as one line on stderr, the form every other bad input takes (docs/RELIABILITY.md):
// "mlbench: error: <what is wrong, the flag as typed> (see 'mlbench size --help')": CLI11's message, but an
// unknown option or argument says which one first ("unknown option --iodeph; did you mean --iodepth?"), and
// an unknown command the closest one or the list ("unknown subcommand 'stroage'; did you mean storage?").
std::string failure_message(const CLI::App* app, const CLI::Error& e);

}  // namespace mlbench::cli
