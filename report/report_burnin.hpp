// The burn-in's part of the report model: what `mlbench burnin` writes (burnin/) and what the HTML export,
// compare and fleet read (reports/); read_burnin() below reads a report's burn-in results back. A burn-in is
// a normal report whose results carry these probe ids:
//
//   burnin.<phase>  one per phase run and device: params {phase, device}; the first metric is the sustained
//                   rate (tflops, bandwidth, busbw) with stats over the phase's iterations, then "errors"
//                   (count, better lower); status `incorrect` with a reason when a check failed; info
//                   {iterations (the full verified passes), bad_words: [{address, expected, actual}] (the
//                   first ones), output_hash (GEMM), ...}. `phase` is the phase that ran it ("gemm", or "all"
//                   when everything ran together). A phase stopped before its first full pass has
//                   iterations 0, status `skipped` and a reason saying how far it got (PhaseOutcome below).
//   burnin.gpu      one per GPU: params {device, uuid, name}; info {verdict, reasons, timeline,
//                   throttle_seconds, counters {before, after}, summary}; metrics: one per rate key, named
//                   by it ("gemm_tflops", "hbm_bandwidth": burnin::GpuVerdict::rates, what --baseline reads),
//                   then its clock/power/temperature medians.
//   burnin.host     one: params {device: "host"}; info {timeline} (CPU busy share, memory in use, disk
//                   bytes/s).
//   burnin.node     one: params {}; info {verdict, reasons, phases: [PhaseSpan], events: [Event]}; status
//                   `failed` when the node fails or is incomplete (never read as a pass).
//
// Times in timelines, phase spans and events are seconds since the burn-in started. Schema:
// report/report.schema.json (MINOR 1.1: these kinds; 1.2: the verdict `incomplete`).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/error.hpp"
#include "base/names.hpp"
#include "report/report.hpp"

namespace mlbench::burnin_report {

using Json = nlohmann::json;

inline constexpr std::string_view kGpuProbe = "burnin.gpu";
inline constexpr std::string_view kHostProbe = "burnin.host";
inline constexpr std::string_view kNodeProbe = "burnin.node";
inline constexpr std::string_view kPhaseProbePrefix = "burnin.";  // + phase name
// The metric each phase result counts its errors in (after its rate): the phases write it, the verdict and
// the reports read it.
inline constexpr std::string_view kErrorsMetric = "errors";

// The most points a timeline series keeps in the report (decimate() below).
inline constexpr std::size_t kMaxTimelinePoints = 600;

// From best to worst (a node's verdict is its worst part's). `incomplete`: nothing failed, but a phase that
// could run stopped before one full verified pass, so the node is not known to pass: exit 1, like fail.
enum class Verdict { pass, warn, incomplete, fail };
inline constexpr EnumName<Verdict> kVerdictNames[] = {{Verdict::pass, "pass"},
                                                      {Verdict::warn, "warn"},
                                                      {Verdict::incomplete, "incomplete"},
                                                      {Verdict::fail, "fail"}};
static_assert(names_cover(kVerdictNames));
inline std::string_view to_string(Verdict v) { return name_of(kVerdictNames, v); }
Verdict verdict_from_string(std::string_view s);  // throws Error on an unknown name

// What one burnin.<phase> result says of its phase on its device: failed (status failed or incorrect, or
// errors counted), incomplete (it ran, but stopped before its first full verified pass: info.iterations 0),
// skipped (it could not run here: status skipped without iterations), passed otherwise.
enum class PhaseOutcome { passed, incomplete, skipped, failed };
PhaseOutcome phase_outcome(const Result& r);

// The verdict in words, from a report's burn-in results: the node verdict in capitals with the counts it
// rests on, then each phase in the order it ran: "INCOMPLETE (1 of 3 phases passed, 1 incomplete; 4 skipped;
// no GPU) — hostmem passed (3 verified passes); storage incomplete: stopped after 40 % of one pass ...; gemm,
// hbm, copy, nccl skipped: built without CUDA". "burn-in without a node verdict" when it has no burnin.node.
std::string verdict_banner(const std::vector<Result>& results);

// Samples over time: one time axis and named series of the same length (NaN where a sample was missing).
// Series names are the quantity with its SI unit in the name's tail: sm_clock_hz, memory_clock_hz, power_w,
// temperature_c, memory_temperature_c, utilisation (0-1), cpu_busy (0-1), memory_used_bytes, disk_read_bps,
// disk_write_bps.
struct Timeline {
  std::vector<double> t;
  std::vector<std::pair<std::string, std::vector<double>>> series;

  // The series called `name`, or nullptr.
  const std::vector<double>* find(std::string_view name) const;
  // Appends one sample: `values` in the order of `series` (a new series is added on first use, NaN-filled).
  void append(double time_s, const std::vector<std::pair<std::string, double>>& values);
};

// At most `max_points` points: consecutive samples are averaged in equal buckets (time and every series; NaNs
// are left out of a bucket's mean, a bucket of only NaNs stays NaN). A timeline already short enough is
// returned unchanged.
Timeline decimate(const Timeline& t, std::size_t max_points = kMaxTimelinePoints);

// {"t": [...], "<series>": [...], ...}; NaN is written as null.
Json to_json(const Timeline& t);
Timeline timeline_from_json(const Json& j);  // throws Error on a bad shape (unequal lengths, non-numbers)

struct PhaseSpan {
  std::string phase;  // "gemm", "hbm", "copy", "nccl", "hostmem", "storage", "all", "cooldown"
  double start_s = 0, end_s = 0;
};
Json to_json(const PhaseSpan& p);
PhaseSpan phase_span_from_json(const Json& j);

// An event seen during the burn-in: an XID (from NVML or the kernel log), a verification error, a GPU that
// stopped answering, a throttle that started.
struct Event {
  double time_s = 0;
  std::string device;  // "gpu0", "host", the scratch file
  std::string kind;    // "xid", "verification", "lost", "throttle"
  int code = 0;        // the XID number; 0 otherwise
  std::string text;    // one line
};
Json to_json(const Event& e);
Event event_from_json(const Json& j);

// burnin.gpu, burnin.host, burnin.node and burnin.<phase>.
bool is_burnin(const Result& r);

// A GPU's burnin.gpu result and its timeline (empty when it has none).
struct GpuPart {
  const Result* result = nullptr;
  Timeline timeline;
};
// A report's burn-in results, read: the node's result with its phase spans and events, each GPU's with its
// timeline, the host's timeline and the phase results. The pointers point into the results read.
struct Burnin {
  const Result* node = nullptr;
  std::vector<GpuPart> gpus;
  std::optional<Timeline> host;
  std::vector<const Result*> phases;  // burnin.<phase>
  std::vector<PhaseSpan> spans;
  std::vector<Event> events;
};
// A burn-in result whose info has the wrong shape (a timeline of unequal lengths, an unknown verdict): the
// result and, in what(), what is wrong.
class BadBurninResult : public Error {
 public:
  BadBurninResult(const Result& r, const std::string& what) : Error(what), result(&r) {}
  const Result* result;
};
// nullopt when `results` hold no burn-in result; throws BadBurninResult on a burn-in result of the wrong
// shape.
std::optional<Burnin> read_burnin(const std::vector<Result>& results);
// A result's info.verdict (a burnin.node's or burnin.gpu's); nullopt when it has none.
std::optional<Verdict> verdict_of(const Result& r);

}  // namespace mlbench::burnin_report
