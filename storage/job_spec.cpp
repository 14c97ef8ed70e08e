#include "storage/job_spec.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "base/units.hpp"
#include "storage/cpus.hpp"

namespace mlbench::storage {
namespace {

using nlohmann::json;

constexpr OptionSpec kOptions[] = {
    {.name = "target",
     .type = OptionType::paths,
     .help = "Folder (mlbench creates and removes a test file there), existing file or block device, or a "
             "new file's path in an existing folder (created and removed like the folder's); a symbolic "
             "link is resolved once, when the run is planned; repeat for several targets"},
    {.name = "rw",
     .type = OptionType::choice,
     .def = "randread",
     .choices = [] { return choices_of(kRwNames); },
     .help = "I/O pattern"},
    {.name = "rwmix_read",
     .type = OptionType::integer,
     .def = "50",
     .unit = "%",
     .min = 0,
     .max = 100,
     .help = "Percent of reads in rw and randrw"},
    {.name = "bs",
     .type = OptionType::size,
     .def = "4k",
     .unit = "B",
     .min = 1,
     .max = 1 << 30,
     .help = "Block size per I/O, fio suffixes: 4k, 128k, 1M"},
    {.name = "iodepth",
     .type = OptionType::integer,
     .def = "1",
     .min = 1,
     .max = kMaxIodepth,
     .help = "I/Os in flight per job thread"},
    {.name = "jobs",
     .alias = "numjobs",
     .type = OptionType::integer,
     .def = "1",
     .min = 1,
     .max = kMaxJobs,
     .help = "Job threads (per target unless striped), each with its own ring"},
    {.name = "size",
     .type = OptionType::size,
     .def = "the whole file/device; 1G for a new file",
     .unit = "B",
     .min = 1,
     .help = "Region per target; N% (fio's spelling) sets size_pct"},
    {.name = "size_pct",
     .type = OptionType::number,
     .unit = "%",
     .min = 0,
     .max = 100,
     .min_exclusive = true,
     .help = "Region per target as a share of the existing file or block device, or of the free space where "
             "mlbench creates the file (--size 50%)",
     .cli = false},
    {.name = "offset",
     .type = OptionType::size,
     .def = "0",
     .unit = "B",
     .help = "Where the region starts in each target"},
    {.name = "runtime",
     .type = OptionType::duration,
     .def = "10s (--profile quick: 2s, full: 60s) unless --io-size/--number-ios",
     .unit = "s",
     .min = 0,
     .min_exclusive = true,
     .help = "Measured time: 30, 30s, 2m"},
    {.name = "ramp",
     .type = OptionType::duration,
     .def = "0",
     .unit = "s",
     .help = "Warm-up time excluded from the results"},
    {.name = "io_size",
     .type = OptionType::size,
     .unit = "B",
     .min = 1,
     .help = "Stop each job thread after this many bytes"},
    {.name = "number_ios",
     .type = OptionType::integer,
     .min = 1,
     .help = "Stop each job thread after this many I/Os"},
    {.name = "rate_iops",
     .type = OptionType::integer,
     .unit = "1/s",
     .min = 1,
     .help = "Cap each job thread at this many I/Os per second (fio's rate_iops; fio's --rate BYTES/s is "
             "--rate-iops rate / bs); latencies are then those of that load"},
    {.name = "log_interval",
     .type = OptionType::duration,
     .unit = "s",
     .min = 0.1,
     .help = "Log IOPS, bandwidth and latency p50/p99 per interval of this length into the report "
             "(info.interval_log: fio's log_avg_msec with write_iops_log, write_bw_log, write_lat_log); a "
             "--runtime that would log too many intervals is refused, naming the shortest interval it takes"},
    {.name = kUnitsOption,
     .type = OptionType::choice,
     .def = "decimal",
     .choices = [] { return choices_of(kUnitBaseNames); },
     .help = "How the console shows bandwidth: decimal (MB/s, GB/s) or binary (MiB/s, GiB/s: fio's "
             "kb_base=1024); the report keeps B/s either way"},
    {.name = "direct",
     .type = OptionType::flag,
     .def = "true",
     .help = "O_DIRECT, bypassing the page cache",
     .off_help = "Buffered I/O through the page cache"},
    {.name = "engine",
     .type = OptionType::choice,
     .def = "uring",
     .choices = [] { return choices_of(kEngineNames); },
     .help = "I/O engine (psync when io_uring is refused)"},
    {.name = "sqpoll",
     .type = OptionType::flag,
     .def = "false",
     .help = "Use a kernel submission-polling thread (io_uring SQPOLL)"},
    {.name = "fixed_bufs",
     .type = OptionType::flag,
     .def = "true",
     .help = "Register the I/O buffers with io_uring",
     .off_help = "Do not register the I/O buffers"},
    {.name = "stripe",
     .type = OptionType::size,
     .unit = "B",
     .min = 1,
     .help = "Stripe several targets like RAID-0 with this chunk (e.g. 128k)"},
    {.name = "verify",
     .type = OptionType::flag,
     .def = "false",
     .help = "Write a checkable pattern and read it back (reads: check the test file)"},
    {.name = "keep", .type = OptionType::flag, .def = "false", .help = "Keep the test files mlbench created"},
    {.name = "allow_destructive",
     .type = OptionType::flag,
     .def = "false",
     .help = "Allow writing to an existing file or block device (still refused when mounted, holding a "
             "filesystem/partition table or a RAID member)"},
    {.name = "cpus",
     .type = OptionType::text,
     .def = "auto",
     .help =
         "Pin job thread i to the i-th CPU (round robin): auto (the drive's interrupt CPUs first, then its "
         "NUMA node), none, or a list such as 0,2,4-7"},
    {.name = "submission",
     .type = OptionType::choice,
     .def = "auto",
     .choices = [] { return choices_of(kSubmissionNames); },
     .help = "How io_uring gets the I/Os; auto: sequential per I/O, random tries both in the second half of "
             "--ramp and keeps the faster (a time-bound job with a --ramp under 0.2 s gets a 0.4 s ramp for "
             "it, excluded from the results; a count-bound one runs batched), batched at --iodepth 1"},
    {.name = "name",
     .type = OptionType::text,
     .help = "The job's name (a job file's section name), its results' job param"},
    {.name = "job",
     .type = OptionType::text,
     .help =
         "fio job file: run each of its jobs ([global] and job sections, fio's option names; what mlbench "
         "does not use is listed as ignored); options given beside it apply to every job"},
    {.name = "dir",
     .type = OptionType::text,
     .def = ".",
     .help = "Without a target: the folder for the profile suite's test file (run --storage-dir)",
     .cli = false},
};

}  // namespace

bool is_random(RwMode m) { return m == RwMode::randread || m == RwMode::randwrite || m == RwMode::randrw; }
bool writes(RwMode m) { return m != RwMode::read && m != RwMode::randread; }
bool mixed(RwMode m) { return m == RwMode::rw || m == RwMode::randrw; }

std::span<const OptionSpec> job_options() { return kOptions; }

JobSpec parse_job_spec(const json& o, const OptionSource& source) {
  auto v = parse_options(kOptions, o, source);
  auto name = [&v](std::string_view key) { return v.name(key); };
  JobSpec s;
  s.targets = v.given<std::vector<std::string>>("target").value_or(std::vector<std::string>{});
  s.rw = *value_of(kRwNames, v.get<std::string>("rw"));
  s.rwmix_read = static_cast<unsigned>(v.get<std::int64_t>("rwmix_read"));
  if (v.has("rwmix_read") && !mixed(s.rw))
    throw UsageError(fmt::format("{} only applies to {} rw or randrw", name("rwmix_read"), name("rw")));

  s.bs = v.get<std::uint64_t>("bs");
  s.iodepth = static_cast<unsigned>(v.get<std::int64_t>("iodepth"));
  s.jobs = static_cast<unsigned>(v.get<std::int64_t>("jobs"));
  if (auto size = v.given<std::uint64_t>("size")) {
    s.size = *size;
    if (s.size < s.bs)
      throw UsageError(
          fmt::format("{}: {} is smaller than one block ({} {})", name("size"), s.size, name("bs"), s.bs));
  }
  s.size_pct = v.given<double>("size_pct").value_or(0.0);
  if (s.size > 0 && s.size_pct > 0)
    throw UsageError(fmt::format("give {} or {}, not both", name("size"), name("size_pct")));
  s.offset = v.get<std::uint64_t>("offset");
  if (s.offset % s.bs != 0)
    throw UsageError(fmt::format("{}: must be a multiple of {}", name("offset"), name("bs")));

  s.io_size = v.given<std::uint64_t>("io_size").value_or(0);
  s.number_ios = static_cast<std::uint64_t>(v.given<std::int64_t>("number_ios").value_or(0));
  s.rate_iops = static_cast<std::uint64_t>(v.given<std::int64_t>("rate_iops").value_or(0));
  bool bounded = s.io_size > 0 || s.number_ios > 0;
  s.runtime_s = v.given<double>("runtime").value_or(bounded ? 0.0 : kDefaultRuntime);
  s.ramp_s = v.get<double>("ramp");
  s.log_interval_s = v.given<double>("log_interval").value_or(0.0);
  if (s.log_interval_s > 0 && s.runtime_s / s.log_interval_s > static_cast<double>(kMaxLogIntervals)) {
    throw UsageError(fmt::format(
        "{} {}s over {} {}s gives {:.0f} intervals; the report keeps at most {}: use {} {:.3g}s or more",
        name("log_interval"), s.log_interval_s, name("runtime"), s.runtime_s, s.runtime_s / s.log_interval_s,
        kMaxLogIntervals, name("log_interval"), s.runtime_s / static_cast<double>(kMaxLogIntervals)));
  }

  s.direct = v.get<bool>("direct");
  s.engine = engine_from_string(v.get<std::string>("engine"));
  s.sqpoll = v.get<bool>("sqpoll");
  if (s.sqpoll && !traits(s.engine).sqpoll)
    throw UsageError(
        fmt::format("{} needs {} {}", name("sqpoll"), name("engine"), engines_with(&EngineTraits::sqpoll)));
  s.fixed_bufs = v.get<bool>("fixed_bufs");
  s.submission = *value_of(kSubmissionNames, v.get<std::string>("submission"));
  if (s.submission != Submission::automatic && !traits(s.engine).submission_queue)
    throw UsageError(fmt::format("{} needs {} {} (the other engines have no submission queue)",
                                 name("submission"), name("engine"),
                                 engines_with(&EngineTraits::submission_queue)));
  if (auto stripe = v.given<std::uint64_t>("stripe")) {
    s.stripe = *stripe;
    if (s.stripe % s.bs != 0)
      throw UsageError(fmt::format("{}: the chunk must be a positive multiple of {} ({})", name("stripe"),
                                   name("bs"), s.bs));
    if (s.targets.size() < 2)
      throw UsageError(
          fmt::format("{}: striping needs at least two {} paths", name("stripe"), name("target")));
  }
  s.verify = v.get<bool>("verify");
  s.keep = v.get<bool>("keep");
  s.allow_destructive = v.get<bool>("allow_destructive");
  s.cpus = v.get<std::string>("cpus");
  check_cpus_option(s.cpus);
  s.name = v.given<std::string>("name").value_or("");
  return s;
}

json to_json(const JobSpec& s) {
  json j{{"target", s.targets},
         {"rw", to_string(s.rw)},
         {"bs", s.bs},
         {"iodepth", s.iodepth},
         {"jobs", s.jobs},
         {"offset", s.offset},
         {"ramp", s.ramp_s},
         {"direct", s.direct},
         {"engine", to_string(s.engine)},
         {"sqpoll", s.sqpoll},
         {"fixed_bufs", s.fixed_bufs},
         {"submission", to_string(s.submission)},
         {"verify", s.verify},
         {"keep", s.keep},
         {"allow_destructive", s.allow_destructive},
         {"cpus", s.cpus}};
  if (mixed(s.rw)) j["rwmix_read"] = s.rwmix_read;
  if (s.runtime_s > 0) j["runtime"] = s.runtime_s;
  if (s.size > 0) j["size"] = s.size;
  if (s.size_pct > 0) j["size_pct"] = s.size_pct;
  if (s.io_size > 0) j["io_size"] = s.io_size;
  if (s.number_ios > 0) j["number_ios"] = s.number_ios;
  if (s.rate_iops > 0) j["rate_iops"] = s.rate_iops;
  if (s.log_interval_s > 0) j["log_interval"] = s.log_interval_s;
  if (s.stripe > 0) j["stripe"] = s.stripe;
  if (!s.name.empty()) j["name"] = s.name;
  return j;
}

const std::vector<SuiteJob>& suite_jobs() {
  static const std::vector<SuiteJob> kJobs = {
      {"4k-randread-qd1", RwMode::randread, 4096, 1, 1, 100},
      {"4k-randread-qd32", RwMode::randread, 4096, 32, 1, 100},
      {"4k-randread-qd128-2jobs", RwMode::randread, 4096, 128, 2, 100},
      {"128k-read-qd16", RwMode::read, 128 * 1024, 16, 1, 100},
      {"1m-write-qd8", RwMode::write, 1024 * 1024, 8, 1, 0},
      {"4k-randwrite-qd32", RwMode::randwrite, 4096, 32, 1, 0},
      {"4k-randrw70-qd32", RwMode::randrw, 4096, 32, 1, 70},
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
