#include "cli/common.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <iostream>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"
#include "bench/signals.hpp"
#include "bench/sysinfo.hpp"
#include "cli/progress.hpp"
#include "reports/fio_json.hpp"
#include "reports/summary.hpp"

namespace mlbench::cli {
namespace {

std::vector<std::string>& argv_storage() {
  static std::vector<std::string> v;
  return v;
}

// "gpu.gemm, gpu.hbm skipped — no GPU; host.membw skipped — ...": the skipped probes grouped by reason, in
// report order, so that a reason shared by several probes is said once.
std::string skipped_probes(const std::vector<const Result*>& skipped) {
  std::vector<std::pair<std::string, std::vector<std::string>>> by_reason;
  for (const Result* r : skipped) {
    auto it =
        std::find_if(by_reason.begin(), by_reason.end(), [&](const auto& g) { return g.first == r->reason; });
    if (it == by_reason.end()) it = by_reason.insert(by_reason.end(), {r->reason, {}});
    if (std::find(it->second.begin(), it->second.end(), r->probe) == it->second.end())
      it->second.push_back(r->probe);
  }
  std::string out;
  for (const auto& [reason, probes] : by_reason)
    out += fmt::format("{}{} skipped — {}", out.empty() ? "" : "; ", fmt::join(probes, ", "), reason);
  return out;
}

// "Block size per I/O (1 to 1G; default: 4k)", "Mode: read | write (default: read)".
std::string flag_help(const OptionSpec& row) {
  std::string help(row.help);
  if (row.choices != nullptr) help += fmt::format(": {}", fmt::join(row.choices(), " | "));
  std::vector<std::string> notes;
  if (auto range = range_text(row); !range.empty()) notes.push_back(std::move(range));
  if (!row.def.empty()) notes.push_back(fmt::format("default: {}", row.def));
  if (!notes.empty()) help += fmt::format(" ({})", fmt::join(notes, "; "));
  return help;
}

// Where the flags' values live while CLI11 fills them; deques keep the addresses CLI11 holds.
struct FlagValues {
  std::deque<std::string> texts;
  std::deque<std::vector<std::string>> lists;
  std::deque<bool> bools;
  std::vector<std::function<void(Json&)>> readers;  // each copies its flag, when given, into the options
};

// The summary's view of each probe: its headline set, and the unit base its options ask for (kUnitsOption,
// validated when the run was planned); exact rates with --verbose.
SummaryOptions summary_options(const Registry& registry, const RunOptions& opts,
                               const CommonRunFlags& flags) {
  SummaryOptions out;
  out.exact = flags.verbose;
  for (const auto& id : registry.ids()) {
    ProbeConsole console{registry.find(id)->info().console};
    const Json options = opts.probe_options.value(id, Json::object());
    if (options.is_object() && options.contains(kUnitsOption) && options[kUnitsOption].is_string())
      console.units =
          value_of(kUnitBaseNames, options[kUnitsOption].get<std::string>()).value_or(console.units);
    out.probes.emplace(id, console);
  }
  return out;
}

}  // namespace

std::function<Json()> add_option_flags(CLI::App& cmd, std::span<const OptionSpec> table) {
  auto values = std::make_shared<FlagValues>();
  for (const auto& row : table) {
    if (!row.cli) continue;
    const std::string key(row.name), flag = flag_name(row.name);
    // CLI11 names: the flag and its alias (--jobs,--numjobs); count(flag) counts either.
    const std::string names = row.alias.empty() ? flag : flag + "," + flag_name(row.alias);
    switch (row.type) {
      case OptionType::flag: {
        // CLI11 reads an explicit value (--NAME=0, =1, =false, =true, =no, =yes) into the bool, and refuses
        // any other; the bare flag is true. A flag that defaults to true also has --no-NAME.
        bool& value = values->bools.emplace_back(false);
        if (row.def == "true") {
          bool& off = values->bools.emplace_back(false);
          const std::string no = "--no-" + flag.substr(2);
          auto* on = cmd.add_flag(names, value, fmt::format("{} (the default)", row.help));
          cmd.add_flag(no, off, fmt::format("{} (default: {})", row.off_help, flag))->excludes(on);
          values->readers.push_back([&cmd, &value, &off, key, flag, no](Json& o) {
            if (cmd.count(flag) > 0) o[key] = value;
            if (cmd.count(no) > 0) o[key] = !off;
          });
        } else {
          cmd.add_flag(names, value, std::string(row.help));
          values->readers.push_back([&cmd, &value, key, flag](Json& o) {
            if (cmd.count(flag) > 0) o[key] = value;
          });
        }
        break;
      }
      case OptionType::choices:
      case OptionType::integers:
      case OptionType::list:
      case OptionType::paths: {
        auto& value = values->lists.emplace_back();
        cmd.add_option(names, value, flag_help(row));
        values->readers.push_back([&cmd, &value, key, flag](Json& o) {
          if (cmd.count(flag) > 0) o[key] = value;
        });
        break;
      }
      default: {
        auto& value = values->texts.emplace_back();
        cmd.add_option(names, value, flag_help(row));
        values->readers.push_back([&cmd, &value, row, key, flag](Json& o) {
          if (cmd.count(flag) > 0) o[key] = flag_value(row, value);
        });
      }
    }
  }
  return [values] {
    Json o = Json::object();
    for (const auto& read : values->readers) read(o);
    return o;
  };
}

void set_argv(int argc, char** argv) { argv_storage().assign(argv, argv + argc); }

const std::vector<std::string>& argv() { return argv_storage(); }

void add_common_run_flags(CLI::App& cmd, CommonRunFlags& flags) {
  cmd.add_option("-o,--output", flags.output, "Write the JSON report to this file (atomically)");
  cmd.add_option("--profile", flags.profile, "quick | default | full: how many cases and how long each runs")
      ->capture_default_str();
  cmd.add_flag("--dry-run", flags.dry_run,
               "Print the effective plan (cases, parameters, settings) as JSON and exit");
  cmd.add_flag("--json", flags.json, "Print the report as JSON on stdout instead of the summary table");
  cmd.add_flag("--verbose", flags.verbose,
               "Exact figures in the summary: every digit of a rate (iops 2995/s, bw 12268544 B/s)");
  cmd.add_option("--require", flags.require,
                 "Exit 1 when this probe measured nothing (all its cases skipped); repeatable");
}

int execute(RunOptions opts, const CommonRunFlags& flags) {
  opts.profile = profile_from_string(flags.profile);
  opts.argv = argv();
  Registry registry = builtin_registry();  // outlives the runner, which keeps a reference
  for (const auto& id : flags.require) {
    if (registry.find(id) == nullptr) {
      throw UsageError(fmt::format("--require: unknown probe '{}'; known probes: {}", id,
                                   fmt::join(registry.ids(), ", ")));
    }
  }
  if (!flags.output.empty()) {
    check_writable(flags.output);
    opts.output = flags.output;
  }
  Runner runner(registry, builtin_host_info());
  if (flags.dry_run) {
    std::vector<Result> skipped;
    auto cases = runner.plan(opts, skipped);
    Json plan = Json::array();
    for (const auto& pc : cases) {
      plan.push_back(Json{{"probe", pc.probe->info().id},
                          {"label", pc.c.label},
                          {"params", pc.c.params},
                          {"config", pc.c.config},
                          {"estimate_s", pc.c.estimate_s},
                          {"rounds", pc.c.rounds},
                          {"round_group", pc.c.round_group},
                          {"setup_s", pc.c.setup_s}});
    }
    for (const auto& r : skipped) plan.push_back(Json{{"probe", r.probe}, {"skipped", r.reason}});
    // Every option of each selected probe: the value given, else the table's default.
    Json effective = Json::object();
    for (const auto& id : opts.probe_ids.empty() ? registry.ids() : opts.probe_ids) {
      auto info = registry.find(id)->info();
      effective[id] = parse_options(info.options, opts.probe_options.value(id, Json::object()),
                                    opts.options_from_config ? OptionSource::config(id) : OptionSource{})
                          .effective();
    }
    std::cout << Json{{"profile", flags.profile},
                      {"options", opts.probe_options},
                      {"effective_options", effective},
                      {"cases", plan}}
                     .dump(2)
              << "\n";
    return 0;
  }
  SignalGuard guard;
  const ProgressStyle style = progress_style(::isatty(STDERR_FILENO) == 1, flags.json || flags.fio_json,
                                             std::getenv("NO_COLOR"), std::getenv("TERM"));
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  auto now = [t0] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  LiveLine live(terminal_width(STDERR_FILENO), [](std::string_view text) {
    std::fwrite(text.data(), 1, text.size(), stderr);
    std::fflush(stderr);
  });
  auto progress = [&](const ProgressEvent& e) {
    if (e.phase == Phase::notice || (style == ProgressStyle::lines && e.phase == Phase::finished)) {
      std::cerr << finished_case_line(e) << std::flush;
    } else if (style == ProgressStyle::live) {
      live.event(e, now());
    }
  };
  Report report;
  {
    // The ticker redraws the live line (elapsed, ETA) also while a probe reports nothing.
    std::jthread ticker;
    if (style == ProgressStyle::live) {
      ticker = std::jthread([&live, &now](std::stop_token stop) {
        while (!stop.stop_requested()) {
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
          live.tick(now());
        }
      });
    }
    report = runner.run(opts, progress);
  }
  live.clear();
  // `-o -`: the report is what stdout holds; the summary would break it.
  const bool report_on_stdout = opts.output && *opts.output == "-";
  // fio's JSON holds the storage jobs that ran; a run without one (each failed) prints the summary instead.
  if (flags.fio_json && !report_on_stdout && has_fio_figures(report)) {
    std::cout << to_fio_json(report, "the run").dump(2) << "\n";
  } else if (flags.json && !report_on_stdout) {
    std::cout << to_json(report).dump(2) << "\n";
  } else if (!report_on_stdout) {
    print_summary(std::cout, report, terminal_width(STDOUT_FILENO), summary_options(registry, opts, flags));
    if (opts.output) std::cout << "report written to " << opts.output->string() << "\n";
  }
  if (runner.interrupted()) {
    // fio's habit: what the running job measured until the signal is shown (and kept), marked as such.
    const bool partial = std::any_of(report.results.begin(), report.results.end(),
                                     [](const Result& r) { return r.status == Status::interrupted; });
    const char* held = partial ? "the cases that finished and the running one's figures until the signal "
                                 "(status interrupted)"
                               : "the cases that finished";
    std::cerr << (opts.output
                      ? fmt::format("mlbench: interrupted; the report holds {}\n", held)
                      : fmt::format("mlbench: interrupted; no report file written (no -o); the output "
                                    "above holds {}\n",
                                    held));
    return 130;
  }
  std::vector<const Result*> skipped;
  for (const auto& r : report.results)
    if (r.status == Status::skipped) skipped.push_back(&r);
  if (!report.results.empty() && skipped.size() == report.results.size()) {
    (flags.json || report_on_stdout ? std::cerr : std::cout)
        << "nothing measured: every requested probe was skipped (" << skipped_probes(skipped) << ")\n";
  }
  int rc = exit_code_for(report);
  for (const auto& id : flags.require) {
    std::vector<const Result*> mine;
    bool measured = false;
    for (const auto& r : report.results) {
      if (r.probe != id) continue;
      measured = measured || r.status != Status::skipped;
      mine.push_back(&r);
    }
    if (measured) continue;
    std::cerr << "mlbench: --require " << id << ": measured nothing ("
              << (mine.empty() ? std::string("not among the probes this run ran") : skipped_probes(mine))
              << ")\n";
    rc = std::max(rc, 1);
  }
  return rc;
}

int execute_family(const std::string& probe_id, nlohmann::json options, const CommonRunFlags& flags) {
  RunOptions opts;
  opts.probe_ids = {probe_id};
  opts.probe_options = Json{{probe_id, std::move(options)}};
  return execute(std::move(opts), flags);
}

}  // namespace mlbench::cli
