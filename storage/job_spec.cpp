#include "storage/job_spec.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "base/units.hpp"
#include "storage/cpus.hpp"

namespace mlbench::storage {
namespace {

using nlohmann::json;

struct RwName {
  RwMode mode;
  std::string_view name;
};
constexpr std::array<RwName, 5> kRwNames = {{{RwMode::read, "read"},
                                             {RwMode::write, "write"},
                                             {RwMode::randread, "randread"},
                                             {RwMode::randwrite, "randwrite"},
                                             {RwMode::randrw, "randrw"}}};

const std::set<std::string, std::less<>> kKeys = {"target",  "rw",         "rwmix_read", "bs",
                                                  "iodepth", "jobs",       "size",       "offset",
                                                  "runtime", "ramp",       "io_size",    "number_ios",
                                                  "direct",  "engine",     "sqpoll",     "fixed_bufs",
                                                  "stripe",  "verify",     "keep",       "allow_destructive",
                                                  "cpus",    "submission", "name"};

std::string text_of(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::uint64_t size_opt(const json& o, const char* key, std::uint64_t def) {
  if (!o.contains(key)) return def;
  const json& v = o[key];
  std::string flag = fmt::format("--{}", key);
  if (v.is_number()) {
    double d = v.get<double>();
    if (d < 0 || d != std::floor(d))
      throw UsageError(fmt::format("{}: '{}' must be a whole, non-negative number of bytes", flag, v.dump()));
    return static_cast<std::uint64_t>(d);
  }
  if (!v.is_string()) throw UsageError(fmt::format("{}: expected a size such as 4k or 1G", flag));
  auto s = v.get<std::string>();
  if (!s.empty() && s[0] == '-')
    throw UsageError(fmt::format("{}: '{}' is negative; give a positive size such as 4k or 1G", flag, s));
  return parse_size(s, flag);
}

double duration_opt(const json& o, const char* key, double def) {
  if (!o.contains(key)) return def;
  const json& v = o[key];
  std::string flag = fmt::format("--{}", key);
  double d = v.is_number() ? v.get<double>() : parse_duration(text_of(v), flag);
  if (d < 0 || !std::isfinite(d))
    throw UsageError(fmt::format("{}: '{}' must not be negative", flag, text_of(v)));
  return d;
}

long long int_opt(const json& o, const char* key, long long def) {
  if (!o.contains(key)) return def;
  const json& v = o[key];
  if (v.is_number_integer()) return v.get<long long>();
  if (v.is_string()) {
    const auto s = v.get<std::string>();
    std::size_t used = 0;
    try {
      long long n = std::stoll(s, &used);
      if (used == s.size()) return n;
    } catch (const std::exception&) {
    }
  }
  throw UsageError(fmt::format("--{}: '{}' is not a whole number", key, text_of(v)));
}

bool bool_opt(const json& o, const char* key, bool def) {
  if (!o.contains(key)) return def;
  if (!o[key].is_boolean()) throw UsageError(fmt::format("{}: expected true or false", key));
  return o[key].get<bool>();
}

}  // namespace

std::string_view to_string(RwMode m) {
  for (const auto& r : kRwNames) {
    if (r.mode == m) return r.name;
  }
  return "read";
}

RwMode rw_from_string(std::string_view s) {
  for (const auto& r : kRwNames) {
    if (r.name == s) return r.mode;
  }
  throw UsageError(
      fmt::format("--rw: unknown mode '{}' (use read, write, randread, randwrite or randrw)", s));
}

std::string_view to_string(Submission s) {
  switch (s) {
    case Submission::batched:
      return "batched";
    case Submission::per_io:
      return "per_io";
    case Submission::automatic:
      break;
  }
  return "auto";
}

Submission submission_from_string(std::string_view s) {
  for (Submission m : {Submission::automatic, Submission::batched, Submission::per_io}) {
    if (to_string(m) == s) return m;
  }
  throw UsageError(fmt::format("--submission: unknown mode '{}' (use auto, batched or per_io)", s));
}

bool is_random(RwMode m) { return m == RwMode::randread || m == RwMode::randwrite || m == RwMode::randrw; }
bool writes(RwMode m) { return m == RwMode::write || m == RwMode::randwrite || m == RwMode::randrw; }
bool reads(RwMode m) { return m == RwMode::read || m == RwMode::randread || m == RwMode::randrw; }

JobSpec parse_job_spec(const json& o) {
  if (!o.is_object()) throw UsageError("storage.io options must be a mapping of option names to values");
  for (const auto& [key, _] : o.items()) {
    if (!kKeys.contains(key)) {
      throw UsageError(fmt::format("unknown storage option '{}' (see `mlbench storage --help`)", key));
    }
  }
  JobSpec s;
  if (o.contains("target")) {
    const json& t = o["target"];
    if (t.is_string()) {
      s.targets.push_back(t.get<std::string>());
    } else if (t.is_array()) {
      for (const auto& x : t) {
        if (!x.is_string()) throw UsageError("--target: expected paths");
        s.targets.push_back(x.get<std::string>());
      }
    } else {
      throw UsageError("--target: expected a path or a list of paths");
    }
  }
  if (o.contains("rw")) s.rw = rw_from_string(text_of(o["rw"]));
  long long mix = int_opt(o, "rwmix_read", 50);
  if (mix < 0 || mix > 100)
    throw UsageError(fmt::format("--rwmix-read: {} is not a percentage (0-100)", mix));
  s.rwmix_read = static_cast<unsigned>(mix);
  if (o.contains("rwmix_read") && s.rw != RwMode::randrw)
    throw UsageError("--rwmix-read only applies to --rw randrw");

  s.bs = size_opt(o, "bs", s.bs);
  if (s.bs == 0) throw UsageError("--bs: the block size must be positive (e.g. 4k)");
  if (s.bs > (std::uint64_t{1} << 30)) throw UsageError("--bs: at most 1G per I/O");
  long long qd = int_opt(o, "iodepth", 1);
  if (qd < 1 || qd > static_cast<long long>(kMaxIodepth))
    throw UsageError(fmt::format("--iodepth: {} is out of range; use 1 to {}", qd, kMaxIodepth));
  s.iodepth = static_cast<unsigned>(qd);
  long long jobs = int_opt(o, "jobs", 1);
  if (jobs < 1 || jobs > static_cast<long long>(kMaxJobs))
    throw UsageError(fmt::format("--jobs: {} is out of range; use 1 to {}", jobs, kMaxJobs));
  s.jobs = static_cast<unsigned>(jobs);

  if (o.contains("size")) {
    s.size = size_opt(o, "size", 0);
    if (s.size == 0) throw UsageError("--size: must be positive (e.g. 1G); omit it to use the whole target");
    if (s.size < s.bs)
      throw UsageError(fmt::format("--size: {} is smaller than one block (--bs {})", s.size, s.bs));
  }
  s.offset = size_opt(o, "offset", 0);
  if (s.offset % s.bs != 0) throw UsageError("--offset: must be a multiple of --bs");

  s.io_size = size_opt(o, "io_size", 0);
  if (o.contains("io_size") && s.io_size == 0) throw UsageError("--io-size: must be positive");
  long long nios = int_opt(o, "number_ios", 0);
  if (nios < 0 || (o.contains("number_ios") && nios == 0))
    throw UsageError("--number-ios: must be a positive count");
  s.number_ios = static_cast<std::uint64_t>(nios);
  bool bounded = s.io_size > 0 || s.number_ios > 0;
  s.runtime_s = duration_opt(o, "runtime", bounded ? 0.0 : kDefaultRuntime);
  if (o.contains("runtime") && s.runtime_s <= 0) throw UsageError("--runtime: must be positive (e.g. 10s)");
  s.ramp_s = duration_opt(o, "ramp", 0.0);

  s.direct = bool_opt(o, "direct", true);
  if (o.contains("engine")) s.engine = engine_from_string(text_of(o["engine"]));
  s.sqpoll = bool_opt(o, "sqpoll", false);
  if (s.sqpoll && s.engine != EngineKind::uring) throw UsageError("--sqpoll needs --engine uring");
  s.fixed_bufs = bool_opt(o, "fixed_bufs", true);
  if (o.contains("submission")) s.submission = submission_from_string(text_of(o["submission"]));
  if (s.submission != Submission::automatic && s.engine != EngineKind::uring)
    throw UsageError("--submission needs --engine uring (the other engines have no submission queue)");
  s.stripe = size_opt(o, "stripe", 0);
  if (o.contains("stripe")) {
    if (s.stripe == 0 || s.stripe % s.bs != 0)
      throw UsageError(fmt::format("--stripe: the chunk must be a positive multiple of --bs ({})", s.bs));
    if (s.targets.size() < 2) throw UsageError("--stripe: striping needs at least two --target paths");
  }
  s.verify = bool_opt(o, "verify", false);
  s.keep = bool_opt(o, "keep", false);
  s.allow_destructive = bool_opt(o, "allow_destructive", false);
  if (o.contains("cpus")) {
    s.cpus = text_of(o["cpus"]);
    check_cpus_option(s.cpus);
  }
  if (o.contains("name")) s.name = text_of(o["name"]);
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
  if (s.rw == RwMode::randrw) j["rwmix_read"] = s.rwmix_read;
  if (s.runtime_s > 0) j["runtime"] = s.runtime_s;
  if (s.size > 0) j["size"] = s.size;
  if (s.io_size > 0) j["io_size"] = s.io_size;
  if (s.number_ios > 0) j["number_ios"] = s.number_ios;
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
