// The report model: what every run writes and every compare/check/size reads.
//
// Raw work and seconds are stored; rates are derived; units are SI with an explicit `unit` field and are only
// converted by writers. `params` is a result's identity for compare (probe + params), so a probe must put
// everything that changes the meaning of its numbers there, and nothing that does not (e.g. the chosen
// algorithm goes to `info`). Schema: reports/report.schema.json.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/names.hpp"
#include "base/stats.hpp"

namespace mlbench {

using Json = nlohmann::json;

// MAJOR changes break readers; MINOR adds fields older readers ignore; PATCH fixes nothing structural.
// 1.1: Metric.ci (the 95 % confidence interval of a value) and the burn-in result kinds
// (reports/report_burnin.hpp); 1.0 reports load unchanged (tests/data/golden/report-1.0.0-quick-cpu.json).
// 1.2: Metric.ci.open (why a side of the interval has no bound; that bound is null), and the burn-in verdict
// `incomplete` (a phase stopped before one full verified pass; the node's status is `failed`, so a reader of
// statuses never takes it for a pass).
// 1.3: storage.io results carry fio's figures: the metrics lat_min, lat_mean, lat_stdev (and read_/write_
// ones for mixed jobs), usr_cpu and sys_cpu, and info io_latency, latency_distribution, rusage and disk_stats
// (storage/io/probe.hpp); info.lat_mean and info.lat_min, which no reader read, are now those metrics.
//      the status `interrupted` (a storage.io job stopped by SIGINT/SIGTERM: the figures of what it measured
// until then, with the reason; compare and check never judge it as a measurement) and storage.io's
// info.interval_log (--log-interval: IOPS, bandwidth and latency percentiles per interval).
inline constexpr std::string_view kSchemaVersion = "1.3.0";
inline constexpr int kSchemaMajor = 1;

// interrupted: stopped by a signal partway, the figures those of the part measured (a shorter window than
// asked, so never a measurement to judge: compare lists it as a status change, check as not measured).
enum class Status { ok, skipped, failed, incorrect, interrupted };
inline constexpr EnumName<Status> kStatusNames[] = {{Status::ok, "ok"},
                                                    {Status::skipped, "skipped"},
                                                    {Status::failed, "failed"},
                                                    {Status::incorrect, "incorrect"},
                                                    {Status::interrupted, "interrupted"}};
static_assert(names_cover(kStatusNames));

enum class Better { higher, lower };
inline constexpr EnumName<Better> kBetterNames[] = {{Better::higher, "higher"}, {Better::lower, "lower"}};
static_assert(names_cover(kBetterNames));

inline std::string_view to_string(Status s) { return name_of(kStatusNames, s); }
// Whether a result of this status carries figures a console shows: ok, or interrupted (the part measured).
inline bool shows_figures(Status s) { return s == Status::ok || s == Status::interrupted; }
inline std::string_view to_string(Better b) { return name_of(kBetterNames, b); }
Status status_from_string(std::string_view s);  // throws Error on an unknown name

struct Metric {
  std::string name;  // stable, unit-free: tflops, bandwidth, busbw, algbw, iops, lat_p99, pct_of_peak, ...
  double value = 0;
  std::string unit;  // SI: "FLOP/s", "B/s", "s", "1/s", "%", ...
  Better better = Better::higher;
  std::optional<Stats> stats;  // over the per-sample values, when the metric has samples
  // 95 % confidence interval of the value, from the probe that knows which statistic the value is (a mean
  // over intervals, a latency percentile of the I/O count, a maximum: base/stats.hpp), when it has one.
  std::optional<ConfidenceInterval> ci;
  // Why the ci is open — a side no statistic bounds, ±infinity in `ci` (a tail percentile with too few
  // samples beyond it: "p99.99 of 4,851 I/Os: needs ≥ 36,887 I/Os"); empty when it is bounded. A value with
  // an open interval has no spread to judge a change against: compare does not judge it.
  std::string ci_open;
};

// A metric's relative standard uncertainty within its run, the noise compare and the fleet judge a difference
// against: the larger of the standard error of the median of its samples (a value over samples without a `ci`
// is rate_metric's, the median) and the relative standard deviation its `ci` implies; 0 when it has neither
// or its value is 0. The spread of the statistic, not of the samples (base/stats.hpp).
double relative_spread(const Metric& m);
// The ci of a metric that is a fixed multiple of `of` (a share of a peak: 100 × of.value / peak): the same
// relative spread; none when `of` has none.
std::optional<ConfidenceInterval> proportional_ci(const Metric& of, double value);
// value ± kConfidenceZ · sigma (the standard uncertainty of the statistic the value is, in its unit); none
// when sigma is not positive and finite: a zero-width interval would claim a value without noise.
std::optional<ConfidenceInterval> sigma_ci(double value, double sigma);

struct Result {
  std::string probe;             // "gpu.gemm"
  Json params = Json::object();  // identity for compare: dtype, m, n, k, device, ...
  Status status = Status::ok;
  std::string reason;           // why skipped/failed/incorrect
  Json work = Json::object();   // per iteration: {"flops": ...} or {"bytes": ...} or {"ios": ...}
  std::vector<double> samples;  // seconds per iteration, kept
  std::vector<Metric> metrics;
  Json telemetry = Json::object();  // {"sm_clock_hz": {"min":..,"median":..,"max":..}, ...}
  std::vector<std::string> warnings;
  Json info = Json::object();  // details that are not identity: chosen algorithm, engine features...

  const Metric* metric(std::string_view name) const;
  Metric& add_metric(std::string name, double value, std::string unit, Better better = Better::higher);
};

// A case measured in rounds (Case::rounds, bench/probe.hpp): widens each metric's ci to the spread between
// its rounds where that is wider. The value is in effect a mean over the rounds, and a state of the machine
// that lasts a round moves all of that round's samples together, which their own spread (taken as
// independent samples) cannot see. Per metric of `whole` with a positive finite value in every round:
// s = the sample SD of ln(round value), h = t(0.975, R − 1) · s / sqrt(R) (GUM G.3: R − 1 degrees of
// freedom), and the ci value · e^(±h) replaces a narrower one. Nothing with fewer than 2 rounds.
void widen_to_rounds(Result& whole, const std::vector<Result>& rounds);

struct Report {
  std::string schema_version{kSchemaVersion};
  Json tool =
      Json::object();  // {name, version, git_sha, features{cuda, cudnn, nccl, uring, xlsx, mpi, blkid}}
  Json host = Json::object();  // the inventory (bench/sysinfo.hpp)
  Json run = Json::object();   // {started_utc, duration_s, argv, profile, options}
  std::vector<Result> results;
  Json cluster;  // multi-node runs only: {world_size, ranks: [...]}; null otherwise
};

// A metric over per-sample rates: value = work / median(seconds); stats over work / seconds_i.
Metric rate_metric(std::string name, double work_per_sample, const std::vector<double>& seconds,
                   std::string unit);

Json to_json(const Result& r);
Json to_json(const Report& r);
// Through the same decoder as parse_report (reports/report_reader.hpp); Error / UsageError on a bad shape.
Result result_from_json(const Json& j);

// The tool block of this build (version, git sha, features).
Json tool_info();

struct ReadOptions {
  // The raw per-iteration seconds: compare, fleet, check and export read only metrics and stats, and skipping
  // the samples roughly halves the parse time of a large fleet.
  bool samples = true;
};

// Parses report text, refusing a newer major schema and anything that is not an mlbench report; errors name
// `origin` (the file) and are UsageError (bad input).
Report parse_report(std::string_view text, std::string_view origin, ReadOptions opts = {});
// Reads the whole file, then parse_report.
Report load_report(const std::filesystem::path& path, ReadOptions opts = {});
// Writes text atomically: a temp file in the same folder, fsync, rename; nothing partial is left on error,
// and an existing file keeps its mode and owner. A character device (/dev/null), a FIFO, or `-` (stdout) is
// written through instead, never replaced; a symbolic link is followed only to one of those; anything else
// that is not a file (a folder, a link to a file, a block device, a socket) is refused. Error (a fault of
// the run) when the folder is gone or the write fails; UsageError for what check_writable refuses.
void write_text_atomic(const std::filesystem::path& path, const std::string& text,
                       std::string_view flag = "-o");
// Pretty JSON through write_text_atomic.
void write_json_atomic(const std::filesystem::path& path, const Json& j);
void write_report(const std::filesystem::path& path, const Report& r);
// Where -o writes: a file replaced by rename, or a stream written through (write_text_atomic).
enum class OutputKind { file, stream };
// Fails with a UsageError when `path` cannot be written (missing folder, not writable, something
// write_text_atomic refuses) — checked before a run; else says which kind it is. The message names `flag`,
// the option that gave the path ("-o", "--textfile").
OutputKind check_writable(const std::filesystem::path& path, std::string_view flag = "-o");

namespace detail {
// write_text_atomic's last step for an existing file: the temp file `tmp` put at `name` (both in the folder
// `dirfd`) in place of the file that was looked at there (device `dev`, inode `ino`), by an exchange
// (RENAME_EXCHANGE) and a look at what came out: the old file is removed; anything else (a file, FIFO or
// device that took its place meanwhile) is exchanged back, left as it was, and false returned with the temp
// file still at `tmp`. Error naming `path` when a rename fails.
bool replace_inspected(int dirfd, const std::string& tmp, const std::string& name, dev_t dev, ino_t ino,
                       const std::filesystem::path& path);
}  // namespace detail

}  // namespace mlbench
