// What one storage job does (fio's job parameters), parsed and validated from the probe's options JSON.
//
// The same JSON shape comes from `mlbench storage` flags, from `options.storage.io` in a --config file and
// from the profile's suite (suite_specs), and is stored in each case's config so that run() re-reads exactly
// what plan() validated. Sizes take fio suffixes ("4k", "1M": binary), times seconds or a suffix ("5s",
// "2m"). Target-dependent checks (existence, logical block size, safety) happen in storage/target.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/names.hpp"
#include "bench/probe.hpp"
#include "storage/engine.hpp"

namespace mlbench::storage {

// rw: sequential reads and writes mixed (fio's rw, readwrite), sharing one offset as fio's do.
enum class RwMode { read, write, rw, randread, randwrite, randrw };
inline constexpr EnumName<RwMode> kRwNames[] = {
    {RwMode::read, "read"},         {RwMode::write, "write"},         {RwMode::rw, "rw"},
    {RwMode::randread, "randread"}, {RwMode::randwrite, "randwrite"}, {RwMode::randrw, "randrw"}};
static_assert(names_cover(kRwNames));
inline std::string_view to_string(RwMode m) { return name_of(kRwNames, m); }
bool is_random(RwMode m);
bool writes(RwMode m);
bool mixed(RwMode m);  // reads and writes by --rwmix-read: rw, randrw

// How a uring job thread hands its I/Os to the kernel (SubmissionTrial, storage/io/submission_trial.hpp).
enum class Submission { automatic, batched, per_io };
inline constexpr EnumName<Submission> kSubmissionNames[] = {
    {Submission::automatic, "auto"}, {Submission::batched, "batched"}, {Submission::per_io, "per_io"}};
static_assert(names_cover(kSubmissionNames));
inline std::string_view to_string(Submission s) { return name_of(kSubmissionNames, s); }

inline constexpr unsigned kMaxIodepth = 4096;
inline constexpr unsigned kMaxJobs = 256;
// The most intervals a --log-interval log keeps in the report (an hour at 1 s): a time-bound job that would
// log more is refused, a count-bound one keeps the first this many (with a warning).
inline constexpr std::size_t kMaxLogIntervals = 3600;

struct JobSpec {
  RwMode rw = RwMode::randread;
  unsigned rwmix_read = 50;  // percent of reads in rw and randrw
  std::uint64_t bs = 4096;
  unsigned iodepth = 1;
  unsigned jobs = 1;             // threads per target (independent) or in total (striped), each its own ring
  std::uint64_t size = 0;        // bytes per target; 0 = the whole file/device, or kDefaultNewFileSize
  double size_pct = 0;           // instead of size: percent of the file/device, or of a new file's free space
  std::uint64_t offset = 0;      // where the region starts in each target
  double runtime_s = 0;          // 0 = bound by io_size/number_ios only
  double ramp_s = 0;             // excluded from results
  std::uint64_t io_size = 0;     // bytes per job thread; 0 = unbounded
  std::uint64_t number_ios = 0;  // I/Os per job thread; 0 = unbounded
  std::uint64_t rate_iops = 0;   // I/Os per second per job thread at most; 0 = as fast as it goes
  double log_interval_s = 0;     // --log-interval: the per-interval log's interval; 0 = no log
  bool direct = true;
  EngineKind engine = EngineKind::uring;
  bool sqpoll = false;
  bool fixed_bufs = true;
  Submission submission = Submission::automatic;
  std::uint64_t stripe = 0;  // RAID-0 chunk across targets; 0 = each target independently
  bool verify = false;
  bool keep = false;
  bool allow_destructive = false;
  std::string cpus = "auto";         // --cpus: auto | none | a CPU list (storage/cpus.hpp)
  std::vector<std::string> targets;  // files, block devices, or folders where mlbench creates a file
  std::string name;                  // suite job name ("4k-randread-qd1"); empty for ad-hoc jobs
};

inline constexpr std::uint64_t kDefaultNewFileSize = std::uint64_t{1} << 30;
inline constexpr double kDefaultRuntime = 10.0;

// The probe's option table (`mlbench storage` flags, options.storage.io in a --config file, the suite's
// `dir`, the fio job file `job`: storage/io/fio.hpp).
std::span<const OptionSpec> job_options();

// Reads the options through the table and checks everything that does not need the targets (rwmix_read only
// with randrw, offset and stripe multiples of bs, the engine's traits); throws UsageError with one line
// naming the option as `source` gives it, and the fix. The table's defaults are the ones JobSpec starts from.
JobSpec parse_job_spec(const nlohmann::json& options, const OptionSource& source = {});
// The spec as the options JSON: every option the spec carries, written from the table's rows.
nlohmann::json to_json(const JobSpec& s);
// What makes a result of this job what it is (the case's params): the rows marked identity, as to_json
// writes them; job_param_keys() names them all (the probe's params).
nlohmann::json job_params(const JobSpec& s);
std::span<const std::string_view> job_param_keys();

// The suite `mlbench run` uses, for a profile: quick = short runs on a small O_DIRECT file; default/full =
// the seven reference jobs on a file larger than the page cache. Each is a JobSpec with its name, pattern,
// block size, depth and threads (every other option at its default); the probe adds the folder, the file size
// and the profile's timing.
const std::vector<JobSpec>& suite_jobs();
struct SuiteTiming {
  double runtime_s, ramp_s;
};
SuiteTiming suite_timing(Profile p);
// The suite measures each job in this many rounds, the runner interleaving them across the jobs
// (Case::rounds): a job's runtime is split evenly among its rounds; the first warms up for the whole ramp,
// each later one for ramp / rounds (a random job's at least the submission trial's minimum: every round runs
// the trial; storage/io/probe.cpp round_ramp_s). A state of the machine lasting a few seconds (a whole job at
// a fraction of its speed, every sampling interval of it, which no spread within the job can see:
// docs/NOTES.md) then lands in one round of a job, where the spread between its rounds (widen_to_rounds,
// report/report.hpp) sees it.
inline constexpr unsigned kSuiteRounds = 4;
// The runtime of a time-bound job (--target) whose --runtime is not given: quick and full take the suite's,
// default kDefaultRuntime.
double job_runtime(Profile p);

// File size for the suite's scratch file: 1.5 × RAM (so the page cache cannot hold it), at least 1 GiB,
// shrunk (with a warning in `warning`) when the filesystem has less than that free, nullopt with the reason
// in `warning` when even 1 GiB does not fit. The quick profile uses 256 MiB and relies on O_DIRECT.
std::optional<std::uint64_t> suite_file_size(Profile p, std::uint64_t ram_bytes, std::uint64_t free_bytes,
                                             std::string& warning);

}  // namespace mlbench::storage
