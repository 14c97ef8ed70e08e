// The probe seam. A probe is one measurable capability (gpu.gemm, storage.io, host.membw, ...).
//
// Adding a probe = one source file (or a folder for a family), one line in cli/builtin_probes.cpp and one
// CMake entry. A probe never prints and never exits: plan() throws UsageError for bad options (before
// anything runs), run() throws Error on failure or Skipped when a case cannot run here, and Interrupted when
// the stop flag ends it (or returns what it measured until then, Status::interrupted); the runner owns
// try/catch, the time budget, progress and the report; a long case may report its running rate through
// RunContext::report_live for the live status line. The first metric a result carries is its headline
// (summary tables show it).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "bench/options.hpp"
#include "report/report.hpp"

namespace mlbench {

enum class Profile { quick, standard, full };  // "quick", "default", "full"
std::string_view to_string(Profile p);
Profile profile_from_string(std::string_view s);  // throws UsageError

// Thrown by Probe::run when a case cannot run on this machine (no GPU, FP8 below sm_89, no permission, ...).
class Skipped : public Error {
 public:
  using Error::Error;
};

// One figure of the headline set a console prints under a result's row (reports/summary.hpp): a metric the
// probe declares (ProbeInfo::metrics), the label it reads as, and optionally a key of the result's info
// shown beside it in the metric's unit, with its own label ("au 93.1 % (floor 90.0 %)").
struct ConsoleField {
  std::string_view metric, label;
  std::string_view info = {}, info_label = {};
};

struct ProbeInfo {
  std::string id;                       // stable dotted id
  std::string description;              // one line
  std::string needs;                    // what it needs, in words ("a CUDA GPU", "io_uring or psync", ...)
  std::span<const OptionSpec> options;  // its option table (bench/options.hpp): flags, --config, list --json
  // Every key its results' params may carry (their identity). reports/, sizing/ and the acceptance files read
  // results by these names; tests/cli/registry_names_test.cpp fails on a name they use that no probe
  // declares.
  std::span<const std::string_view> params;
  // Every metric name its results may carry: `check` refuses a thresholds rule naming another (a typo would
  // match nothing and pass as "not measured"); tests/cli/registry_names_test.cpp fails on a report of a real
  // run or a fixture carrying a name its probe does not declare.
  std::span<const std::string_view> metrics;
  // The headline set the console prints under each result's row, in order (fio's per-job summary for
  // storage.io); a field whose metric a result lacks is left out; none: the row alone.
  std::span<const ConsoleField> console = {};
};

// One unit of work the runner times and reports. `params` becomes the result's identity.
struct Case {
  std::string label;  // short human label for progress ("bf16 8192x8192x8192")
  Json params = Json::object();
  Json config = Json::object();  // settings that are not identity (runtime, paths, ...)
  double estimate_s = 1.0;       // expected wall time, for the ETA and the default budget
  // One line the user reads before anything runs, e.g. how large a scratch file the case writes and where;
  // empty for most cases. The runner passes each distinct notice on once, before the first case.
  std::string notice;
  // > 1: the case measures in that many rounds (Probe::run_round), and the runner interleaves the rounds of
  // consecutive cases of one probe with the same count and round_group — round 1 of each, then round 2 of
  // each... — so that a state of the machine lasting seconds (a disk's write-back, a noisy neighbour on a VM)
  // falls in one round of several cases instead of the whole window of one, where the case's own spread sees
  // it. round_group keeps apart cases that would disturb each other's later rounds (writes before reads).
  unsigned rounds = 1;
  std::string round_group;
  // Seconds of estimate_s that only the first round spends (a scratch file's fill, a longer warm-up): in its
  // share of the estimate, the ETA and the time budget, where the rest is split evenly among the rounds.
  double setup_s = 0;
};

struct PlanContext {
  Profile profile = Profile::standard;
  const Json& host;     // inventory (bench/sysinfo.hpp)
  const Json& options;  // this probe's options: from --config (options.<id>) or the family subcommand's flags
  OptionSource source = {};  // which of the two, so that messages name an option as the user gave it
};

// A case's running rate while it runs ({"iops", 31500, "1/s"}, {"bandwidth", 129e6, "B/s"}), for the live
// status line on a terminal; the names and units are the metrics' own.
struct LiveMetric {
  std::string_view name;
  double value = 0;
  std::string_view unit;
};
using LiveCallback = std::function<void(std::span<const LiveMetric>)>;

struct RunContext {
  const Json& host;
  std::chrono::steady_clock::time_point deadline;  // the case's time budget ends here
  const std::atomic<bool>& stop;                   // set by SIGINT/SIGTERM
  LiveCallback live = {};  // the runner's; called on the probe's thread, so a probe calls it from one thread

  // Reports the case's current rate (a few times a second at most is plenty; the console throttles).
  void report_live(std::span<const LiveMetric> metrics) const {
    if (live) live(metrics);
  }

  bool stopping() const { return stop.load(std::memory_order_relaxed); }
  void check_interrupted() const {
    if (stopping()) throw Interrupted();
  }
  double seconds_left() const;
  // A result for this case with probe id and params filled in, status ok.
  Result make_result(std::string_view probe, const Case& c) const;
};

class Probe {
 public:
  virtual ~Probe() = default;
  virtual ProbeInfo info() const = 0;
  // Why this probe cannot run on this machine at all (no GPU, built without CUDA), or nullopt.
  virtual std::optional<std::string> unavailable(const Json& host) const = 0;
  // The cases for this profile, options and machine; throws UsageError for bad options.
  virtual std::vector<Case> plan(const PlanContext& ctx) const = 0;
  // Measures one case (every round of it, back to back). Usually one result; several when a case yields
  // per-target or per-device results.
  virtual std::vector<Result> run(const Case& c, RunContext& ctx) = 0;
  // For a case with rounds > 1: measures round `round` (0-based) of c.rounds; the last round returns the
  // case's results, the earlier ones nothing — except a round stopped by the stop flag, which may return
  // what the case measured so far with Status::interrupted (the runner then records it and stops). A probe
  // that plans cases with rounds implements it.
  virtual std::vector<Result> run_round(const Case& c, RunContext& ctx, unsigned round);
};

// The host memory still available (MemAvailable: the inventory's memory.available_bytes), for plan()'s fit
// checks; nullopt when the inventory does not say.
std::optional<double> available_memory(const Json& host);
// The share of that memory a probe's buffers may take; the rest is the process's own and the page cache's.
// Buffers beyond it are refused in plan() (exit 2), before a run finds the memory short.
inline constexpr double kBufferMemoryShare = 0.9;

// Why the GPU probes (and NCCL) are unavailable in a build without CUDA (the cpu preset).
inline constexpr std::string_view kBuiltWithoutCuda =
    "built without CUDA (no CUDA toolkit found, or MLBENCH_ENABLE_CUDA=OFF); "
    "rebuild with the CUDA toolkit and -DMLBENCH_ENABLE_CUDA=ON";

// A probe this build cannot run at all (compiled without CUDA, cuDNN...): listed, and skipped with `reason`
// wherever it is selected.
std::unique_ptr<Probe> make_unavailable_probe(ProbeInfo info, std::string reason);

}  // namespace mlbench
