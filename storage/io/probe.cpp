#include "storage/io/probe.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "base/units.hpp"
#include "bench/disk_stats.hpp"
#include "bench/host_view.hpp"
#include "bench/sysinfo_reader.hpp"
#include "storage/cpus.hpp"
#include "storage/io/fio.hpp"
#include "storage/io/job.hpp"
#include "storage/io/job_spec.hpp"
#include "storage/pattern.hpp"

namespace mlbench::storage {
namespace {

constexpr const char* kId = "storage.io";
// The params its results carry: the job's (job_params: the option rows marked identity), its targets or
// suite job name, and per-target scope.
std::span<const std::string_view> params() {
  static const std::vector<std::string_view> kParams = [] {
    std::vector<std::string_view> keys(job_param_keys().begin(), job_param_keys().end());
    keys.insert(keys.end(), {"target", "job", "scope"});
    return keys;
  }();
  return kParams;
}
// Every I/O's figures (kLatencyPercentiles, the maximum, minimum, mean and standard deviation), for rw and
// randrw each direction's too (read_, write_), CPU per I/O and fio's usr/sys CPU %, the share of the link,
// and a count-bound job's times (add_job_metrics).
constexpr std::string_view kMetrics[] = {
    "iops",          "bandwidth",      "lat_p50",         "lat_p90",         "lat_p99",
    "lat_p999",      "lat_p9999",      "lat_max",         "lat_min",         "lat_mean",
    "lat_stdev",     "read_iops",      "read_bandwidth",  "read_lat_p50",    "read_lat_p90",
    "read_lat_p99",  "read_lat_p999",  "read_lat_p9999",  "read_lat_max",    "read_lat_min",
    "read_lat_mean", "read_lat_stdev", "write_iops",      "write_bandwidth", "write_lat_p50",
    "write_lat_p90", "write_lat_p99",  "write_lat_p999",  "write_lat_p9999", "write_lat_max",
    "write_lat_min", "write_lat_mean", "write_lat_stdev", "cpu_per_io",      "usr_cpu",
    "sys_cpu",       "pct_of_link",    "first_done",      "last_done"};
// The console's headline set under each result (fio's per-job summary line): a randrw result shows it per
// direction too (read_iops ...: reports/summary.hpp).
constexpr ConsoleField kConsole[] = {{"iops", "iops"},   {"bandwidth", "bw"},   {"lat_p50", "lat p50"},
                                     {"lat_p99", "p99"}, {"lat_p999", "p99.9"}, {"cpu_per_io", "cpu/io"}};
// Rough fill rate for time estimates only.
constexpr double kFillRate = 500e6;
constexpr double kRoundOverhead = 0.1;  // s: a job's threads started and drained, per round (an estimate)

// The warm-up of a later round of a suite job: its share of the ramp, and for a job that runs the submission
// trial at least the trial's minimum, so that every round tries both modes and keeps the faster. Where the
// two are near a tie the choice flips from run to run, and CPU per I/O differs between the modes by a factor
// (docs/NOTES.md has a measured pair): tried per round, a flip shows in the spread between rounds instead of
// as a change between runs.
double round_ramp_s(const JobSpec& s, unsigned rounds) {
  const double share = s.ramp_s / rounds;
  return tries_submission(s, true) ? std::max(share, SubmissionTrial::kMinRamp) : share;
}

std::string join(const std::vector<std::string>& v, std::string_view sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : std::string(sep)) + s;
  return out;
}

std::string case_label(const JobSpec& s) {
  std::string mode = to_string(s.rw).data();
  if (mixed(s.rw)) mode += fmt::format("{}", s.rwmix_read);
  return fmt::format("{} {} qd{}{}", mode, format_size(static_cast<double>(s.bs)), s.iodepth,
                     s.jobs > 1 ? fmt::format(" x{}", s.jobs) : "");
}

// The checks that need the target; `o` names options as the user gave them (--bs, options.storage.io.bs).
void check_alignment(const JobSpec& s, const TargetInfo& t, const OptionSource& o) {
  if (!s.direct) return;
  if (s.bs % t.logical_block != 0) {
    throw UsageError(
        fmt::format("{} {} is not a multiple of the logical block size ({} B) of {}, "
                    "which O_DIRECT needs; use a multiple of {} or {}",
                    o.name("bs"), s.bs, t.logical_block, t.path, t.logical_block,
                    o.from_config() ? o.name("direct") + ": false" : "--no-direct"));
  }
  if (s.offset % t.logical_block != 0)
    throw UsageError(fmt::format("{} must be a multiple of the logical block size ({} B) under O_DIRECT",
                                 o.name("offset"), t.logical_block));
}

// The region size used on each target: --size, or --size N% of the file/device (of the free space where
// mlbench creates the file, as planned), or the whole file/device after --offset.
std::uint64_t region_size(const JobSpec& s, const TargetInfo& t, const OptionSource& o = {}) {
  std::uint64_t asked = s.size;
  if (s.size_pct > 0) {
    const std::uint64_t whole = creates_file(t.kind) ? t.free_bytes : t.capacity;
    asked = static_cast<std::uint64_t>(static_cast<double>(whole) * s.size_pct / 100.0);
    if (asked < s.bs) {
      throw UsageError(fmt::format("{} {}% of {} ({} B {}) is smaller than one block ({} {})", o.name("size"),
                                   s.size_pct, t.path, whole, creates_file(t.kind) ? "free" : "in all",
                                   o.name("bs"), s.bs));
    }
  }
  if (creates_file(t.kind)) return (asked > 0 ? asked : kDefaultNewFileSize) / s.bs * s.bs;
  if (s.offset >= t.capacity) {
    throw UsageError(
        fmt::format("{} {} is beyond the end of {} ({} B)", o.name("offset"), s.offset, t.path, t.capacity));
  }
  std::uint64_t avail = t.capacity - s.offset;
  if (asked > avail) {
    throw UsageError(fmt::format("{} {} does not fit in {} ({} B after {}); use a smaller {}", o.name("size"),
                                 asked, t.path, avail, o.name("offset"), o.name("size")));
  }
  std::uint64_t size = (asked > 0 ? asked : avail) / s.bs * s.bs;
  if (size == 0)
    throw UsageError(fmt::format("{} is smaller than one block ({} {})", t.path, o.name("bs"), s.bs));
  return size;
}

Case plan_job(const JobSpec& s, const OptionSource& o) {
  if (s.targets.empty())
    throw UsageError(fmt::format("{}: give at least one folder, file or block device", o.name("target")));
  double fill_s = 0;
  std::set<std::string> seen;
  // Existing files and devices by identity: two paths (a link, a hard link) to one would run as two targets.
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::string> existing;
  Json planned = Json::array();
  for (const auto& path : s.targets) {
    if (!seen.insert(path).second)
      throw UsageError(fmt::format("{} {} is given twice", o.name("target"), path));
    TargetInfo t = inspect_target(path);
    if (!creates_file(t.kind)) {
      auto [it, fresh] = existing.emplace(std::pair{t.dev, t.ino}, path);
      if (!fresh)
        throw UsageError(fmt::format("{} {} and {} are the same {}; give it once", o.name("target"),
                                     it->second, path, t.kind == TargetKind::file ? "file" : "device"));
    }
    planned.push_back(to_json(t));
    check_alignment(s, t, o);
    std::uint64_t size = region_size(s, t, o);
    if (creates_file(t.kind)) {
      // Refused here, before anything is created: a test file that cannot be allocated would fail mid-fill.
      if (size > t.free_bytes)
        throw UsageError(
            fmt::format("{} {} does not fit in the {} free on {}; use a smaller {} or another folder",
                        o.name("size"), format_bytes(static_cast<double>(size)),
                        format_bytes(static_cast<double>(t.free_bytes)), path, o.name("size")));
      fill_s += static_cast<double>(size) / kFillRate;
    } else if (writes(s.rw) && traits(s.engine).touches_disk) {
      if (!s.allow_destructive) {
        throw UsageError(
            fmt::format("{} {} already exists and {} {} would overwrite it; "
                        "pass {} to destroy its contents, "
                        "or give a folder for mlbench to create a test file in",
                        o.name("target"), path, o.name("rw"), to_string(s.rw),
                        o.from_config() ? o.name("allow_destructive") + ": true" : "--allow-destructive"));
      }
      auto why = write_refusals(t);
      if (!why.empty()) {
        throw UsageError(fmt::format("refusing to write to {} even with {}: {}", path,
                                     o.name("allow_destructive"), join(why, "; ")));
      }
    } else if (s.verify) {
      throw UsageError(fmt::format("{} of reads needs data mlbench wrote: give a folder instead of {}",
                                   o.name("verify"), path));
    }
    if (is_random(s.rw) == false && size / s.bs < s.jobs)
      throw UsageError(
          fmt::format("{}: the region holds fewer blocks than {} threads", path, o.name("jobs")));
  }
  // A CPU list naming CPUs this process may not use is refused here, before anything runs.
  pin_cpus(s.cpus, allowed_cpus(), {}, {});
  Case c;
  c.label = s.name.empty() ? case_label(s) : fmt::format("{} ({})", case_label(s), s.name);
  c.params = job_params(s);
  c.params["target"] = s.targets;
  if (!s.name.empty()) c.params["job"] = s.name;
  // What planning found, which the run confirms on the opened descriptors (storage/target.hpp).
  c.config = Json{{"spec", to_json(s)}, {"targets", planned}};
  // A count-bound job under --rate-iops takes its count at that rate.
  double measured_s = s.runtime_s > 0 ? s.runtime_s : 10.0;
  if (s.runtime_s <= 0 && s.rate_iops > 0) {
    const std::uint64_t ios = s.number_ios > 0 ? s.number_ios : s.io_size / s.bs;
    measured_s = std::max(measured_s, static_cast<double>(ios) / static_cast<double>(s.rate_iops));
  }
  c.estimate_s = warmup_s(s, traits(s.engine).submission_queue) + measured_s + fill_s + 0.5;
  return c;
}

std::vector<Case> plan_suite(const PlanContext& ctx) {
  for (const auto& [key, _] : ctx.options.items()) {
    if (key != "dir" && key != "units") {
      throw UsageError(
          fmt::format("option '{}' needs --target (a storage job); the profile suite only takes 'dir' "
                      "(--storage-dir) and 'units'",
                      key));
    }
  }
  std::string dir = ctx.options.value("dir", std::string("."));
  // inspect_target's own refusals name --target; the suite's folder comes from --storage-dir.
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    throw UsageError(fmt::format("--storage-dir {}: {}; give an existing folder on the drive to test", dir,
                                 std::strerror(errno)));
  }
  TargetInfo t = inspect_target(dir);
  if (t.kind != TargetKind::folder)
    throw UsageError(fmt::format("--storage-dir {}: not a folder; give a folder on the drive to test", dir));
  std::uint64_t ram = static_cast<std::uint64_t>(HostView(ctx.host).memory_total_bytes.value_or(0));
  if (ram == 0)
    ram = static_cast<std::uint64_t>(::sysconf(_SC_PHYS_PAGES)) *
          static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  std::string warning;
  auto size = suite_file_size(ctx.profile, ram, t.free_bytes, warning);
  auto timing = suite_timing(ctx.profile);
  std::vector<Case> cases;
  bool first = true;
  for (const auto& j : suite_jobs()) {
    JobSpec s = j;
    s.runtime_s = timing.runtime_s;
    s.ramp_s = timing.ramp_s;
    s.targets = {dir};
    s.size = size.value_or(0);
    check_alignment(s, t, {});  // the suite's own block sizes, not an option the user gave
    Case c;
    c.label = fmt::format("{} ({})", case_label(s), j.name);
    c.params = job_params(s);
    c.params["job"] = j.name;
    c.config = Json{{"spec", to_json(s)}, {"suite", true}, {"targets", Json::array({to_json(t)})}};
    if (!size) c.config["skip"] = warning;
    if (size && !warning.empty()) c.config["warning"] = warning;
    c.rounds = kSuiteRounds;
    c.round_group = writes(s.rw) ? "writes" : "reads";
    // The first round's own: the fill, and the ramp beyond a later round's share.
    const double later_ramp = round_ramp_s(s, kSuiteRounds);
    c.setup_s = (first ? static_cast<double>(s.size) / kFillRate : 0.0) + s.ramp_s - later_ramp;
    // Each round's share (its ramp, its part of the runtime, its start and drain) and the first round's own.
    c.estimate_s = kSuiteRounds * (later_ramp + kRoundOverhead) + s.runtime_s + c.setup_s;
    if (size) {
      c.notice = fmt::format(
          "storage.io: the {} profile's suite writes a {} scratch file in {} (removed at the end)",
          to_string(ctx.profile), format_bytes(static_cast<double>(*size)),
          std::filesystem::absolute(dir).lexically_normal().string());
    }
    first = false;
    cases.push_back(std::move(c));
  }
  return cases;
}

// The jobs of a fio job file (--job, storage/io/fio.hpp), one case each, in the file's order. The options
// given beside the file apply to every job, over the file's own; an error names the file and the job.
std::vector<Case> plan_job_file(const PlanContext& ctx) {
  const auto given = parse_options(job_options(), ctx.options, ctx.source);
  const std::string file = given.get<std::string>("job");
  const auto jobs = read_job_file(file);
  // fio starts a file's jobs together unless a job waits for the ones before it (stonewall).
  const bool together =
      std::any_of(jobs.begin() + 1, jobs.end(), [](const FioJob& j) { return !j.stonewall; });
  std::vector<Case> cases;
  for (const auto& job : jobs) {
    Json o = job.options;
    for (const auto& item : ctx.options.items()) {
      if (item.key() == "job") continue;
      if (item.key() == "size") o.erase("size_pct");
      if (item.key() == "size_pct") o.erase("size");
      o[item.key()] = item.value();
    }
    try {
      if (!o.contains("target"))
        throw UsageError("no filename= or directory=; give one in the job file or --target");
      JobSpec s = parse_job_spec(o, OptionSource::job_file());
      if (!o.contains("runtime") && s.runtime_s > 0) s.runtime_s = job_runtime(ctx.profile);
      Case c = plan_job(s, OptionSource::job_file());
      c.config["job_file"] = file;
      if (!job.ignored.empty()) c.config["ignored"] = job.ignored;
      if (together) {
        c.config["warning"] = fmt::format(
            "fio runs the jobs of {} at the same time (they have no stonewall); mlbench runs them one after "
            "another",
            file);
      }
      cases.push_back(std::move(c));
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("{} [{}]: {}", file, job.name, e.what()));
    }
  }
  return cases;
}

// PCIe link bandwidth of a disk from the host inventory (B/s per direction), or 0 when unknown.
double link_bandwidth(const Json& host, const std::string& disk) {
  if (disk.empty()) return 0;
  for (const auto& d : HostView(host).block_devices) {
    if (d.value("name", "") != disk) continue;
    if (d.contains("pcie") && d["pcie"].contains("bandwidth") && d["pcie"]["bandwidth"].is_number())
      return d["pcie"]["bandwidth"].get<double>();
  }
  return 0;
}

bool nvme_poll_queues(const SysReader& sys) {
  auto n = sys.read_int("/sys/module/nvme/parameters/poll_queues");
  return n && *n > 0;
}

}  // namespace

StorageProbe::StorageProbe()
    : fill_seed_(
          mix64(static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
                static_cast<std::uint64_t>(::getpid()))) {}

ProbeInfo StorageProbe::info() const {
  return {kId,
          "NVMe/RAID throughput, IOPS and latency percentiles of fio-style jobs through io_uring",
          "a folder on the drive to test (or a file/block device); io_uring, else psync",
          job_options(),
          params(),
          kMetrics,
          kConsole};
}

std::optional<std::string> StorageProbe::unavailable(const Json&) const { return std::nullopt; }

std::vector<Case> StorageProbe::plan(const PlanContext& ctx) const {
  if (!ctx.options.is_object()) throw UsageError("options must be a mapping");
  if (ctx.options.contains("job")) return plan_job_file(ctx);
  if (ctx.options.contains("target")) {
    JobSpec s = parse_job_spec(ctx.options, ctx.source);
    // The profile sets what the user left out, as in every probe: here the runtime of a time-bound job.
    if (!ctx.options.contains("runtime") && s.runtime_s > 0) s.runtime_s = job_runtime(ctx.profile);
    return {plan_job(s, ctx.source)};
  }
  return plan_suite(ctx);
}

// The whole case: its rounds back to back (the runner interleaves them instead: Case::rounds).
std::vector<Result> StorageProbe::run(const Case& c, RunContext& ctx) {
  for (unsigned round = 0;; ++round) {
    auto results = run_round(c, ctx, round);
    if (round + 1 >= c.rounds) return results;
  }
}

std::vector<Result> StorageProbe::run_round(const Case& c, RunContext& ctx, unsigned round) {
  const JobSpec s = parse_job_spec(c.config.at("spec"));
  if (c.config.contains("skip")) throw Skipped(c.config["skip"].get<std::string>());
  const bool suite = c.config.value("suite", false);
  // This round's window (kSuiteRounds says why and how): the runtime split evenly; a later round warms up for
  // round_ramp_s and runs its own submission trial.
  const unsigned rounds = std::max(1u, c.rounds);
  Rounds& so_far = rounds_[c.label];
  if (round == 0) so_far = {};
  std::vector<JobOutcome>& done = so_far.outcomes;
  JobSpec window = s;
  window.runtime_s = s.runtime_s / rounds;
  if (round > 0) window.ramp_s = round_ramp_s(s, rounds);
  std::vector<std::string> warnings;
  if (c.config.contains("warning")) warnings.push_back(c.config["warning"].get<std::string>());
  if (c.config.contains("ignored")) {
    std::vector<std::string> keys = c.config["ignored"].get<std::vector<std::string>>();
    warnings.push_back(fmt::format("{}: fio options ignored (mlbench does not use them): {}",
                                   c.config.value("job_file", std::string()), join(keys, ", ")));
  }

  JobPlan plan;
  plan.spec = window;
  if (rounds > 1) {
    plan.seq_start = static_cast<double>(round) / rounds;
    plan.interval_s = sampling_interval_s(s);
  }
  plan.fill_seed = fill_seed_;
  plan.write_seed = mix64(fill_seed_ + ++cases_run_);
  Json info = Json::object();
  const ResolvedEngine resolved = resolve_engine(s.engine);
  plan.engine = resolved.kind;
  if (!resolved.why.empty()) {
    warnings.push_back(resolved.warning);
    info["engine_fallback"] = resolved.why;
  }
  const EngineTraits& engine = traits(plan.engine);

  if (!engine.queue_depth && s.iodepth > 1)
    warnings.push_back(
        fmt::format("{} runs one I/O at a time per thread: --iodepth {} acts as 1", engine.label, s.iodepth));

  std::vector<TargetInfo> infos;
  for (const auto& t : c.config.at("targets")) infos.push_back(target_from_json(t));
  const SysReader sys;
  plan.cpus =
      pin_cpus(s.cpus, allowed_cpus(), disk_node_cpus(infos[0].disk, sys), disk_irq_cpus(infos[0].disk, sys));
  std::vector<OpenTarget> opened;
  std::vector<const OpenTarget*> handles;
  // Before this run's own file exists: what a killed run left in the folder (target.hpp says how it tells).
  auto remove_stale = [&](const std::string& folder) {
    for (const auto& f : remove_stale_scratch(folder, ctx.stop)) {
      warnings.push_back(
          fmt::format("removed {}, a scratch file left in {} by an mlbench run that was killed", f, folder));
    }
  };
  if (suite) {
    if (!scratch_ || scratch_dir_ != s.targets[0] || scratch_->size() != s.size) {
      scratch_.reset();
      remove_stale(s.targets[0]);
      scratch_ = std::make_unique<OpenTarget>(
          OpenTarget::create_in(infos[0], s.size, target_seed(fill_seed_, 0), true, false, ctx.stop));
      scratch_dir_ = s.targets[0];
    }
    handles.push_back(scratch_.get());
  } else {
    opened.reserve(infos.size());
    for (std::size_t i = 0; i < infos.size(); ++i) {
      const auto& t = infos[i];
      if (t.kind == TargetKind::folder) {
        remove_stale(t.path);
        opened.push_back(OpenTarget::create_in(t, region_size(s, t), target_seed(fill_seed_, i), s.direct,
                                               s.keep, ctx.stop));
      } else if (t.kind == TargetKind::new_file) {
        opened.push_back(OpenTarget::create_at(t, region_size(s, t), target_seed(fill_seed_, i), s.direct,
                                               s.keep, ctx.stop));
      } else {
        opened.push_back(OpenTarget::open_existing(t, writes(s.rw) && engine.touches_disk, s.direct));
      }
    }
    for (const auto& o : opened) handles.push_back(&o);
  }
  for (std::size_t i = 0; i < handles.size(); ++i) {
    const bool created = handles[i]->created();
    plan.targets.push_back({handles[i]->path(), handles[i]->fd(), created ? 0 : s.offset,
                            created ? handles[i]->size() / s.bs * s.bs : region_size(s, infos[i]), created});
  }
  std::set<std::string> disks;
  for (const auto& t : infos) disks.insert(t.disk);
  for (const auto& d : disks)
    for (auto& name : stat_disks(d, sys))
      if (std::find(plan.disks.begin(), plan.disks.end(), name) == plan.disks.end())
        plan.disks.push_back(name);
  plan.iopoll =
      engine.iopoll && s.direct && nvme_poll_queues(sys) &&
      std::all_of(disks.begin(), disks.end(), [](const std::string& d) { return d.rfind("nvme", 0) == 0; });

  try {
    done.push_back(run_job(plan, ctx.stop, ctx.deadline, [&ctx, &s](double iops) {
      const LiveMetric live[] = {{"iops", iops, "1/s"},
                                 {"bandwidth", iops * static_cast<double>(s.bs), "B/s"}};
      ctx.report_live(live);
    }));
  } catch (const Interrupted&) {
    // Stopped before this round measured anything: the earlier rounds' figures are what the case has.
    if (done.empty()) throw;
    done.back().interrupted = true;
  }
  for (const auto& w : warnings) keep_once(so_far.warnings, w);
  // A stopped round ends the case with what its rounds measured so far (marked interrupted below).
  if (round + 1 < rounds && !done.back().interrupted) return {};
  warnings = std::move(so_far.warnings);
  const JobOutcome out = merge_rounds(done);

  double link = 0;
  for (const auto& d : disks) {
    double b = link_bandwidth(ctx.host, d);
    if (b <= 0) {
      link = 0;
      break;
    }
    link += b;
  }
  info["engine"] = to_string(plan.engine);
  if (c.config.contains("ignored")) info["fio_ignored"] = c.config["ignored"];
  info["engine_features"] = out.engine_features;
  if (!out.submission_trial.is_null()) info["submission_trial"] = out.submission_trial;
  info["threads"] = out.threads;
  info["cpus"] = plan.cpus.empty() ? Json("none") : Json(plan.cpus);
  info["thread_cpus"] = out.thread_cpus;
  info["first_done_s"] = out.first_done_s;
  info["last_done_s"] = out.last_done_s;
  info["runtime_s"] = s.runtime_s;
  info["ramp_s"] = s.ramp_s;
  info["warmup_s"] = out.warmup_s;
  info["region_bytes"] = plan.targets[0].size;
  if (s.log_interval_s > 0) {
    Json entries = Json::array();
    for (const auto& e : out.log) {
      auto lat = [](double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); };
      entries.push_back(Json{{"t_s", e.t_s},
                             {"seconds", e.seconds},
                             {"ios", e.ios},
                             {"iops", static_cast<double>(e.ios) / e.seconds},
                             {"bandwidth", static_cast<double>(e.ios * s.bs) / e.seconds},
                             {"lat_p50", lat(e.lat_p50)},
                             {"lat_p99", lat(e.lat_p99)}});
    }
    info["interval_log"] = Json{
        {"interval_s", s.log_interval_s}, {"max_entries", kMaxLogIntervals}, {"entries", std::move(entries)}};
    if (out.log_truncated)
      warnings.push_back(
          fmt::format("the interval log holds the job's first {} intervals of {} s, the most "
                      "it keeps; the job ran longer",
                      kMaxLogIntervals, s.log_interval_s));
  }
  info["devices"] = Json(std::vector<std::string>(disks.begin(), disks.end()));
  info["rusage"] = {{"ctx", out.ctx}, {"majf", out.majf}, {"minf", out.minf}};
  Json disk_stats = Json::array();
  for (const auto& d : out.disk_stats) disk_stats.push_back(to_json(d));
  info["disk_stats"] = disk_stats;
  if (s.keep) {
    Json kept = Json::array();
    for (const auto& o : opened)
      if (o.created()) kept.push_back(o.path());
    info["kept_files"] = kept;
  }
  for (const auto& w : out.warnings) warnings.push_back(w);

  const bool headline_iops = is_random(s.rw) && s.bs <= 64 * 1024;
  std::vector<Result> results;
  Result agg = ctx.make_result(kId, c);
  add_job_metrics(agg, out, s, link, headline_iops);
  if (done.size() > 1) {
    std::vector<Result> per_round(done.size());
    for (std::size_t k = 0; k < done.size(); ++k) {
      add_job_metrics(per_round[k], done[k], s, link, headline_iops);
      std::erase_if(per_round[k].metrics,
                    [&](const Metric& m) { return !round_estimates(m, done[k].total); });
    }
    widen_to_rounds(agg, per_round);
    info["rounds"] = done.size();
    info["round_ramp_s"] = round_ramp_s(s, rounds);
    Json modes = Json::array();
    for (const auto& o : done) modes.push_back(o.engine_features.value("submission", ""));
    info["round_submissions"] = modes;
  }
  if (link > 0) info["link_bandwidth"] = link;
  agg.info.update(info);
  agg.warnings = warnings;
  if (s.verify) {
    agg.info["verify_blocks_checked"] = out.verify_checked;
    if (out.verify_bad > 0) {
      agg.status = Status::incorrect;
      agg.reason = fmt::format("verify: {} of {} blocks read back differ from what was written, first at {}",
                               out.verify_bad, out.verify_checked, out.verify_first_bad);
    } else if (out.verify_checked == 0 && !out.interrupted) {
      agg.warnings.push_back("verify: no block was checked");
    }
  }
  // A stopped job's figures are those of a shorter window than asked: kept, never taken for the job's.
  const std::string cut =
      out.interrupted ? fmt::format(
                            "interrupted after {:.2f} s of measurement{}: the figures are those of the I/Os "
                            "measured until then",
                            out.last_done_s,
                            s.runtime_s > 0 ? fmt::format(" of the {} s asked", s.runtime_s) : std::string())
                      : std::string();
  if (out.interrupted) {
    if (s.verify && writes(s.rw)) agg.warnings.push_back("verify: interrupted before the read-back");
    if (agg.status == Status::ok) {
      agg.status = Status::interrupted;
      agg.reason = cut;
    }
  }
  rounds_.erase(c.label);
  if (s.targets.size() > 1) agg.params["scope"] = "aggregate";
  results.push_back(std::move(agg));
  if (s.targets.size() > 1) {
    for (std::size_t i = 0; i < s.targets.size(); ++i) {
      Result r = ctx.make_result(kId, c);
      r.params["scope"] = "target";
      r.params["target"] = s.targets[i];
      const DirectionIntervals& in = out.per_target_intervals[i];
      add_io_metrics(r, out.per_target[i], out.last_done_s, s, in.all, in.read, in.write, headline_iops);
      r.info["device"] = infos[i].disk;
      r.info["engine"] = to_string(plan.engine);
      if (r.metrics[0].value <= 0) r.warnings.push_back("no I/O reached this target");
      if (out.interrupted) {
        r.status = Status::interrupted;
        r.reason = cut;
      }
      results.push_back(std::move(r));
    }
  }
  return results;
}

std::unique_ptr<Probe> make_storage_probe() { return std::make_unique<StorageProbe>(); }

}  // namespace mlbench::storage
