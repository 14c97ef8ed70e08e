// What the run-like subcommands share: output/profile flags, running the runner with progress, the summary.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "bench/options.hpp"
#include "bench/runner.hpp"

namespace mlbench::cli {

// Flags every run-like subcommand has: -o, --profile, --dry-run, --json, --verbose, --require.
struct CommonRunFlags {
  std::string output;
  std::string profile = "default";
  bool dry_run = false;
  bool json = false;
  bool verbose = false;              // the summary's rates with every digit (ValueStyle::exact)
  std::vector<std::string> require;  // probes that must measure something, else exit 1
  bool fio_json = false;  // print the report's storage jobs as fio's JSON (storage --output-format=fio-json)
};
void add_common_run_flags(CLI::App& cmd, CommonRunFlags& flags);

// The flags of a probe's option table (bench/options.hpp) on `cmd`, for every row the command line has
// (OptionSpec::cli): --NAME (with _ as -) taking the value as text, repeatable for the list types; a flag
// --NAME for a bool, which also takes an explicit value (--NAME=0, =1, =false, =true), and --no-NAME beside
// it for one that defaults to true.
// The help shows the range, the choices and the default. The function returned gives, after parsing, the
// options JSON of the flags given (only those: the probe applies the defaults), which parse_options() checks.
std::function<Json()> add_option_flags(CLI::App& cmd, std::span<const OptionSpec> table);

// The argv of this process, recorded in reports.
void set_argv(int argc, char** argv);
const std::vector<std::string>& argv();

// Runs the given probes with their options: checks -o before anything runs, prints the plan with --dry-run
// (the cases, and each probe's effective options: every row of its table, given or default),
// writes the report, prints the summary table and, when every result was skipped, a last line saying that
// nothing was measured; returns the exit code (0; 1 on a failed or incorrect result or a --require probe that
// measured nothing; 130 when interrupted).
int execute(RunOptions opts, const CommonRunFlags& flags);

// A family subcommand (`mlbench hostmem ...`): one probe, options built from the family's flags.
int execute_family(const std::string& probe_id, nlohmann::json options, const CommonRunFlags& flags);

}  // namespace mlbench::cli
