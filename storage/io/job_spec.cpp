#include "storage/io/job_spec.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <type_traits>
#include <variant>

#include <fmt/format.h>

#include "base/units.hpp"
#include "storage/cpus.hpp"

namespace mlbench::storage {
namespace {

using nlohmann::json;

// Where a row's value lives in the JobSpec: the member parse_job_spec fills and to_json writes (integers
// into unsigned or 64-bit counts, sizes into bytes, durations into seconds, a choice into its enum through
// the enum's name table), or none for an option the spec does not hold (the console's units, a job file, the
// suite's folder).
using JobField =
    std::variant<std::monostate, unsigned JobSpec::*, std::uint64_t JobSpec::*, double JobSpec::*,
                 bool JobSpec::*, std::string JobSpec::*, std::vector<std::string> JobSpec::*,
                 RwMode JobSpec::*, EngineKind JobSpec::*, Submission JobSpec::*>;

// One option of storage.io: its table row (flags, config checks, `list --json`, --dry-run), its JobSpec
// member, whether it is part of what a result is (the case's params, the probe's params), whether a zero or
// empty member means the option was not given (written only when set: --size, --runtime of a count-bound
// job, --stripe ...), and which specs carry it (rwmix_read only rw and randrw; every spec when null). An
// option not given keeps JobSpec's member default, which is the row's default
// (JobSpec.TheTablesDefaultsAreJobSpecs).
struct JobOption {
  OptionSpec spec;
  JobField field = {};
  bool identity = false;
  bool optional = false;
  bool (*applies)(const JobSpec&) = nullptr;
  // The help where another table holds its facts (spec.help then empty): --engine's fallbacks.
  std::string_view (*help)() = nullptr;
};

constexpr const auto& enum_names(RwMode) { return kRwNames; }
constexpr const auto& enum_names(EngineKind) { return kEngineNames; }
constexpr const auto& enum_names(Submission) { return kSubmissionNames; }

constexpr JobOption kRows[] = {
    {.spec =
         {.name = "target",
          .type = OptionType::paths,
          .help =
              "Folder (mlbench creates and removes a test file there), existing file or block device, or a "
              "new file's path in an existing folder (created and removed like the folder's); a symbolic "
              "link is resolved once, when the run is planned; repeat for several targets"},
     .field = &JobSpec::targets},
    {.spec = {.name = "rw",
              .type = OptionType::choice,
              .def = "randread",
              .choices = [] { return choices_of(kRwNames); },
              .help = "I/O pattern"},
     .field = &JobSpec::rw,
     .identity = true},
    {.spec = {.name = "rwmix_read",
              .type = OptionType::integer,
              .def = "50",
              .unit = "%",
              .min = 0,
              .max = 100,
              .help = "Percent of reads in rw and randrw"},
     .field = &JobSpec::rwmix_read,
     .identity = true,
     .applies = [](const JobSpec& s) { return mixed(s.rw); }},
    {.spec = {.name = "bs",
              .type = OptionType::size,
              .def = "4k",
              .unit = "B",
              .min = 1,
              .max = 1 << 30,
              .help = "Block size per I/O, fio suffixes: 4k, 128k, 1M"},
     .field = &JobSpec::bs,
     .identity = true},
    {.spec = {.name = "iodepth",
              .type = OptionType::integer,
              .def = "1",
              .min = 1,
              .max = kMaxIodepth,
              .help = "I/Os in flight per job thread"},
     .field = &JobSpec::iodepth,
     .identity = true},
    {.spec = {.name = "jobs",
              .alias = "numjobs",
              .type = OptionType::integer,
              .def = "1",
              .min = 1,
              .max = kMaxJobs,
              .help = "Job threads (per target unless striped), each with its own ring"},
     .field = &JobSpec::jobs,
     .identity = true},
    {.spec = {.name = "size",
              .type = OptionType::size,
              .def = "the whole file/device; 1G for a new file",
              .unit = "B",
              .min = 1,
              .help = "Region per target; N% (fio's spelling) sets size_pct"},
     .field = &JobSpec::size,
     .optional = true},
    {.spec =
         {.name = "size_pct",
          .type = OptionType::number,
          .unit = "%",
          .min = 0,
          .max = 100,
          .min_exclusive = true,
          .help =
              "Region per target as a share of the existing file or block device, or of the free space where "
              "mlbench creates the file (--size 50%)",
          .cli = false},
     .field = &JobSpec::size_pct,
     .optional = true},
    {.spec = {.name = "offset",
              .type = OptionType::size,
              .def = "0",
              .unit = "B",
              .help = "Where the region starts in each target"},
     .field = &JobSpec::offset},
    {.spec = {.name = "runtime",
              .type = OptionType::duration,
              .def = "10s (--profile quick: 2s, full: 60s) unless --io-size/--number-ios",
              .unit = "s",
              .min = 0,
              .min_exclusive = true,
              .help = "Measured time: 30, 30s, 2m"},
     .field = &JobSpec::runtime_s,
     .optional = true},
    {.spec = {.name = "ramp",
              .type = OptionType::duration,
              .def = "0",
              .unit = "s",
              .help = "Warm-up time excluded from the results"},
     .field = &JobSpec::ramp_s},
    {.spec = {.name = "io_size",
              .type = OptionType::size,
              .unit = "B",
              .min = 1,
              .help = "Stop each job thread after this many bytes"},
     .field = &JobSpec::io_size,
     .optional = true},
    {.spec = {.name = "number_ios",
              .type = OptionType::integer,
              .min = 1,
              .help = "Stop each job thread after this many I/Os"},
     .field = &JobSpec::number_ios,
     .optional = true},
    {.spec =
         {.name = "rate_iops",
          .type = OptionType::integer,
          .unit = "1/s",
          .min = 1,
          .help =
              "Cap each job thread at this many I/Os per second (fio's rate_iops; fio's --rate BYTES/s is "
              "--rate-iops rate / bs); latencies are then those of that load"},
     .field = &JobSpec::rate_iops,
     .identity = true,
     .optional = true},
    {.spec =
         {.name = "log_interval",
          .type = OptionType::duration,
          .unit = "s",
          .min = 0.1,
          .help =
              "Log IOPS, bandwidth and latency p50/p99 per interval of this length into the report "
              "(info.interval_log: fio's log_avg_msec with write_iops_log, write_bw_log, write_lat_log); a "
              "--runtime that would log too many intervals is refused, naming the shortest interval it "
              "takes"},
     .field = &JobSpec::log_interval_s,
     .optional = true},
    {.spec = {.name = kUnitsOption,
              .type = OptionType::choice,
              .def = "decimal",
              .choices = [] { return choices_of(kUnitBaseNames); },
              .help = "How the console shows bandwidth: decimal (MB/s, GB/s) or binary (MiB/s, GiB/s: fio's "
                      "kb_base=1024); the report keeps B/s either way"}},
    {.spec = {.name = "direct",
              .type = OptionType::flag,
              .def = "true",
              .help = "O_DIRECT, bypassing the page cache",
              .off_help = "Buffered I/O through the page cache"},
     .field = &JobSpec::direct,
     .identity = true},
    {.spec = {.name = "engine",
              .type = OptionType::choice,
              .def = "uring",
              .choices = [] { return choices_of(kEngineNames); }},
     .field = &JobSpec::engine,
     .help = engine_option_help},
    {.spec = {.name = "sqpoll",
              .type = OptionType::flag,
              .def = "false",
              .help = "Use a kernel submission-polling thread (io_uring SQPOLL)"},
     .field = &JobSpec::sqpoll},
    {.spec = {.name = "fixed_bufs",
              .type = OptionType::flag,
              .def = "true",
              .help = "Register the I/O buffers with io_uring",
              .off_help = "Do not register the I/O buffers"},
     .field = &JobSpec::fixed_bufs},
    {.spec = {.name = "stripe",
              .type = OptionType::size,
              .unit = "B",
              .min = 1,
              .help = "Stripe several targets like RAID-0 with this chunk (e.g. 128k)"},
     .field = &JobSpec::stripe,
     .identity = true,
     .optional = true},
    {.spec = {.name = "verify",
              .type = OptionType::flag,
              .def = "false",
              .help = "Write a checkable pattern and read it back (reads: check the test file)"},
     .field = &JobSpec::verify},
    {.spec = {.name = "keep",
              .type = OptionType::flag,
              .def = "false",
              .help = "Keep the test files mlbench created"},
     .field = &JobSpec::keep},
    {.spec = {.name = "allow_destructive",
              .type = OptionType::flag,
              .def = "false",
              .help =
                  "Allow writing to an existing file or block device (still refused when mounted, holding a "
                  "filesystem/partition table or a RAID member)"},
     .field = &JobSpec::allow_destructive},
    {.spec = {.name = "cpus",
              .type = OptionType::text,
              .def = "auto",
              .help = "Pin job thread i to the i-th CPU (round robin): auto (the drive's interrupt CPUs "
                      "first, then its "
                      "NUMA node), none, or a list such as 0,2,4-7"},
     .field = &JobSpec::cpus},
    {.spec =
         {.name = "submission",
          .type = OptionType::choice,
          .def = "auto",
          .choices = [] { return choices_of(kSubmissionNames); },
          .help =
              "How io_uring gets the I/Os; auto: sequential per I/O, random tries both in the second half of "
              "--ramp and keeps the faster (a time-bound job with a --ramp under 0.2 s gets a 0.4 s ramp for "
              "it, excluded from the results; a count-bound one runs batched), batched at --iodepth 1"},
     .field = &JobSpec::submission},
    {.spec = {.name = "name",
              .type = OptionType::text,
              .help = "The job's name (a job file's section name), its results' job param"},
     .field = &JobSpec::name,
     .optional = true},
    {.spec = {.name = "job",
              .type = OptionType::text,
              .help = "fio job file: run each of its jobs ([global] and job sections, fio's option names; "
                      "what mlbench "
                      "does not use is listed as ignored); options given beside it apply to every job"}},
    {.spec = {.name = "dir",
              .type = OptionType::text,
              .def = ".",
              .help = "Without a target: the folder for the profile suite's test file (run --storage-dir)",
              .cli = false}},
};

// The rows' specs, each JobOption::help filled in (at start-up: it reads tables of other files).
const auto kOptions = [] {
  std::array<OptionSpec, std::size(kRows)> out{};
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = kRows[i].spec;
    if (kRows[i].help != nullptr) out[i].help = kRows[i].help();
  }
  return out;
}();

constexpr auto kParamKeys = [] {
  std::array<std::string_view, std::ranges::count_if(kRows, &JobOption::identity)> out{};
  std::size_t n = 0;
  for (const auto& row : kRows)
    if (row.identity) out[n++] = row.spec.name;
  return out;
}();

// Sets the row's member from the value given; an option not given keeps the member's default.
void read_row(JobSpec& s, const JobOption& row, const OptionValues& v) {
  const std::string_view key = row.spec.name;
  std::visit(
      [&](auto field) {
        if constexpr (!std::is_same_v<decltype(field), std::monostate>) {
          auto& member = s.*field;
          using M = std::remove_reference_t<decltype(member)>;
          if constexpr (std::is_enum_v<M>) {
            if (auto g = v.given<std::string>(key)) member = *value_of(enum_names(M{}), *g);
          } else if constexpr (std::is_same_v<M, unsigned> || std::is_same_v<M, std::uint64_t>) {
            // integer rows give std::int64_t (their range checked), size rows std::uint64_t
            if (row.spec.type == OptionType::integer) {
              if (auto g = v.given<std::int64_t>(key)) member = static_cast<M>(*g);
            } else if (auto g = v.given<std::uint64_t>(key)) {
              member = static_cast<M>(*g);
            }
          } else if (auto g = v.given<M>(key)) {
            member = *g;
          }
        }
      },
      row.field);
}

// The row's value in `s` as the options JSON has it; nullopt where the spec does not carry it.
std::optional<json> write_row(const JobSpec& s, const JobOption& row) {
  if (row.applies != nullptr && !row.applies(s)) return std::nullopt;
  return std::visit(
      [&](auto field) -> std::optional<json> {
        if constexpr (std::is_same_v<decltype(field), std::monostate>) {
          return std::nullopt;
        } else {
          const auto& member = s.*field;
          using M = std::remove_cvref_t<decltype(member)>;
          if constexpr (std::is_enum_v<M>) {
            return json(name_of(enum_names(M{}), member));
          } else {
            if constexpr (std::is_arithmetic_v<M>) {
              if (row.optional && member == M{}) return std::nullopt;
            } else {
              if (row.optional && member.empty()) return std::nullopt;
            }
            return json(member);
          }
        }
      },
      row.field);
}

}  // namespace

bool is_random(RwMode m) { return m == RwMode::randread || m == RwMode::randwrite || m == RwMode::randrw; }
bool writes(RwMode m) { return m != RwMode::read && m != RwMode::randread; }
bool mixed(RwMode m) { return m == RwMode::rw || m == RwMode::randrw; }

std::span<const OptionSpec> job_options() { return kOptions; }

JobSpec parse_job_spec(const json& o, const OptionSource& source) {
  auto v = parse_options(kOptions, o, source);
  auto name = [&v](std::string_view key) { return v.name(key); };
  JobSpec s;
  for (const auto& row : kRows) read_row(s, row, v);
  // What the rows cannot say alone: the checks between options, and the runtime's default in words.
  if (v.has("rwmix_read") && !mixed(s.rw))
    throw UsageError(fmt::format("{} only applies to {} rw or randrw", name("rwmix_read"), name("rw")));
  if (v.has("size") && s.size < s.bs)
    throw UsageError(
        fmt::format("{}: {} is smaller than one block ({} {})", name("size"), s.size, name("bs"), s.bs));
  if (s.size > 0 && s.size_pct > 0)
    throw UsageError(fmt::format("give {} or {}, not both", name("size"), name("size_pct")));
  if (s.offset % s.bs != 0)
    throw UsageError(fmt::format("{}: must be a multiple of {}", name("offset"), name("bs")));

  const bool bounded = s.io_size > 0 || s.number_ios > 0;
  if (!v.has("runtime")) s.runtime_s = bounded ? 0.0 : kDefaultRuntime;
  if (s.log_interval_s > 0 && s.runtime_s / s.log_interval_s > static_cast<double>(kMaxLogIntervals)) {
    throw UsageError(fmt::format(
        "{} {}s over {} {}s gives {:.0f} intervals; the report keeps at most {}: use {} {:.3g}s or more",
        name("log_interval"), s.log_interval_s, name("runtime"), s.runtime_s, s.runtime_s / s.log_interval_s,
        kMaxLogIntervals, name("log_interval"), s.runtime_s / static_cast<double>(kMaxLogIntervals)));
  }

  if (s.sqpoll && !traits(s.engine).sqpoll)
    throw UsageError(
        fmt::format("{} needs {} {}", name("sqpoll"), name("engine"), engines_with(&EngineTraits::sqpoll)));
  if (s.submission != Submission::automatic && !traits(s.engine).submission_queue)
    throw UsageError(fmt::format("{} needs {} {} (the other engines have no submission queue)",
                                 name("submission"), name("engine"),
                                 engines_with(&EngineTraits::submission_queue)));
  if (v.has("stripe")) {
    if (s.stripe % s.bs != 0)
      throw UsageError(fmt::format("{}: the chunk must be a positive multiple of {} ({})", name("stripe"),
                                   name("bs"), s.bs));
    if (s.targets.size() < 2)
      throw UsageError(
          fmt::format("{}: striping needs at least two {} paths", name("stripe"), name("target")));
  }
  check_cpus_option(s.cpus);
  return s;
}

json to_json(const JobSpec& s) {
  json j = json::object();
  for (const auto& row : kRows)
    if (auto value = write_row(s, row)) j[std::string(row.spec.name)] = std::move(*value);
  return j;
}

json job_params(const JobSpec& s) {
  json p = json::object();
  for (const auto& row : kRows)
    if (row.identity)
      if (auto value = write_row(s, row)) p[std::string(row.spec.name)] = std::move(*value);
  return p;
}

std::span<const std::string_view> job_param_keys() { return kParamKeys; }

const std::vector<JobSpec>& suite_jobs() {
  static const std::vector<JobSpec> kJobs = {
      {.rw = RwMode::randread, .bs = 4096, .iodepth = 1, .jobs = 1, .name = "4k-randread-qd1"},
      {.rw = RwMode::randread, .bs = 4096, .iodepth = 32, .jobs = 1, .name = "4k-randread-qd32"},
      {.rw = RwMode::randread, .bs = 4096, .iodepth = 128, .jobs = 2, .name = "4k-randread-qd128-2jobs"},
      {.rw = RwMode::read, .bs = 128 * 1024, .iodepth = 16, .jobs = 1, .name = "128k-read-qd16"},
      {.rw = RwMode::write, .bs = 1024 * 1024, .iodepth = 8, .jobs = 1, .name = "1m-write-qd8"},
      {.rw = RwMode::randwrite, .bs = 4096, .iodepth = 32, .jobs = 1, .name = "4k-randwrite-qd32"},
      {.rw = RwMode::randrw,
       .rwmix_read = 70,
       .bs = 4096,
       .iodepth = 32,
       .jobs = 1,
       .name = "4k-randrw70-qd32"},
  };
  return kJobs;
}

SuiteTiming suite_timing(Profile p) {
  switch (p) {
    case Profile::quick:
      return {2.0, 0.5};
    case Profile::standard:
      return {20.0, 3.0};
    case Profile::full:
      return {60.0, 5.0};
  }
  return {20.0, 3.0};
}

double job_runtime(Profile p) { return p == Profile::standard ? kDefaultRuntime : suite_timing(p).runtime_s; }

std::optional<std::uint64_t> suite_file_size(Profile p, std::uint64_t ram_bytes, std::uint64_t free_bytes,
                                             std::string& warning) {
  constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;
  constexpr std::uint64_t kQuick = 256ull << 20;
  // Keep a tenth of the free space (and at least 1 GiB) for everything else on the filesystem.
  std::uint64_t reserve = std::max(free_bytes / 10, kGiB);
  std::uint64_t usable = free_bytes > reserve ? free_bytes - reserve : 0;
  std::uint64_t want =
      p == Profile::quick ? kQuick : std::max(kGiB, (ram_bytes * 3 / 2 + kGiB - 1) / kGiB * kGiB);
  if (usable >= want) return want;
  std::uint64_t floor_size = p == Profile::quick ? kQuick : kGiB;
  if (usable < floor_size) {
    warning = fmt::format(
        "only {} free on the storage folder; the storage suite needs at least {} (use "
        "--storage-dir on a larger filesystem)",
        format_bytes(static_cast<double>(free_bytes)),
        format_bytes(static_cast<double>(floor_size + reserve)));
    return std::nullopt;
  }
  std::uint64_t shrunk = usable / (1u << 20) * (1u << 20);
  warning = fmt::format(
      "the scratch file is {} instead of {} (not enough free space); the page cache may serve "
      "part of it without O_DIRECT",
      format_bytes(static_cast<double>(shrunk)), format_bytes(static_cast<double>(want)));
  return shrunk;
}

}  // namespace mlbench::storage
