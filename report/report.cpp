#include "report/report.hpp"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/input_file.hpp"
#include "base/owned_fd.hpp"
#include "mlbench_config.hpp"
#include "report/report_reader.hpp"

namespace mlbench {
namespace {

Json stats_to_json(const Stats& s) {
  return Json{{"min", s.min},   {"p10", s.p10}, {"median", s.median}, {"p90", s.p90}, {"max", s.max},
              {"mean", s.mean}, {"cv", s.cv},   {"mad", s.mad},       {"n", s.n}};
}

// JSON has no NaN/Inf; a non-finite value becomes null and reads back as NaN.
Json number(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

}  // namespace

Status status_from_string(std::string_view s) {
  if (auto st = value_of(kStatusNames, s)) return *st;
  throw Error(fmt::format("unknown result status '{}'", s));
}

const Metric* Result::metric(std::string_view name) const {
  auto it = std::find_if(metrics.begin(), metrics.end(), [&](const Metric& m) { return m.name == name; });
  return it == metrics.end() ? nullptr : &*it;
}

double relative_spread(const Metric& m) {
  if (m.value == 0 || !std::isfinite(m.value)) return 0;
  const double se = m.stats ? median_standard_error(*m.stats) / std::fabs(m.value) : 0.0;
  return std::max(std::isfinite(se) ? se : 0.0, m.ci ? relative_sigma(*m.ci, m.value) : 0.0);
}

std::optional<ConfidenceInterval> proportional_ci(const Metric& of, double value) {
  return sigma_ci(value, std::fabs(value) * relative_spread(of));
}

std::optional<ConfidenceInterval> sigma_ci(double value, double sigma) {
  if (!(sigma > 0) || !std::isfinite(sigma)) return std::nullopt;
  return symmetric_ci(value, sigma);
}

void widen_to_rounds(Result& whole, const std::vector<Result>& rounds) {
  if (rounds.size() < 2) return;
  const double n = static_cast<double>(rounds.size());
  for (Metric& m : whole.metrics) {
    // An open interval stays open: the rounds' spread is no bound that the whole's samples lack.
    if (!(m.value > 0) || !std::isfinite(m.value) || !m.ci_open.empty()) continue;
    std::vector<double> values;
    for (const Result& r : rounds) {
      const Metric* rm = r.metric(m.name);
      if (rm == nullptr || !(rm->value > 0) || !std::isfinite(rm->value)) break;
      values.push_back(rm->value);
    }
    if (values.size() != rounds.size()) continue;
    const double h = student_t95(rounds.size() - 1) * log_standard_deviation(values) / std::sqrt(n);
    if (!(h > 0) || !std::isfinite(h)) continue;  // rounds alike: no interval of zero width
    const ConfidenceInterval wide{m.value * std::exp(-h), m.value * std::exp(h)};
    if (!m.ci || relative_sigma(wide, m.value) > relative_sigma(*m.ci, m.value)) m.ci = wide;
  }
}

Metric& Result::add_metric(std::string name, double value, std::string unit, Better better) {
  metrics.push_back(Metric{std::move(name), value, std::move(unit), better, std::nullopt});
  return metrics.back();
}

Metric rate_metric(std::string name, double work_per_sample, const std::vector<double>& seconds,
                   std::string unit) {
  if (seconds.empty()) throw Error(fmt::format("metric {}: no samples", name));
  std::vector<double> rates;
  rates.reserve(seconds.size());
  for (double t : seconds) rates.push_back(t > 0 ? work_per_sample / t : 0.0);
  Metric m{std::move(name), work_per_sample / median(seconds), std::move(unit), Better::higher,
           compute_stats(rates)};
  return m;
}

Json to_json(const Result& r) {
  Json metrics = Json::array();
  for (const auto& m : r.metrics) {
    Json jm{{"name", m.name}, {"value", number(m.value)}, {"unit", m.unit}, {"better", to_string(m.better)}};
    if (m.stats) jm["stats"] = stats_to_json(*m.stats);
    if (m.ci) jm["ci"] = Json{{"lo", number(m.ci->lo)}, {"hi", number(m.ci->hi)}};
    if (m.ci && !m.ci_open.empty()) jm["ci"]["open"] = m.ci_open;
    metrics.push_back(std::move(jm));
  }
  Json j{{"probe", r.probe},         {"params", r.params},     {"status", to_string(r.status)},
         {"work", r.work},           {"samples", r.samples},   {"metrics", std::move(metrics)},
         {"telemetry", r.telemetry}, {"warnings", r.warnings}, {"info", r.info}};
  if (!r.reason.empty()) j["reason"] = r.reason;
  return j;
}

Json to_json(const Report& r) {
  Json results = Json::array();
  for (const auto& res : r.results) results.push_back(to_json(res));
  Json j{{"schema_version", r.schema_version},
         {"tool", r.tool},
         {"host", r.host},
         {"run", r.run},
         {"results", std::move(results)}};
  if (!r.cluster.is_null()) j["cluster"] = r.cluster;
  return j;
}

Result result_from_json(const Json& j) {
  try {
    return detail::decode_result(j.dump());
  } catch (const std::exception& e) {
    throw Error(fmt::format("not a valid mlbench result ({})", e.what()));
  }
}

Json tool_info() {
  return Json{{"name", "mlbench"},
              {"version", MLBENCH_VERSION},
              {"git_sha", MLBENCH_GIT_SHA},
              {"features",
               {{"cuda", MLBENCH_HAS_CUDA == 1},
                {"cudnn", MLBENCH_HAS_CUDNN == 1},
                {"nccl", MLBENCH_HAS_NCCL == 1},
                {"uring", MLBENCH_HAS_URING == 1},
                {"xlsx", MLBENCH_HAS_XLSX == 1},
                {"mpi", MLBENCH_HAS_MPI == 1},
                {"blkid", MLBENCH_HAS_BLKID == 1}}}};
}

Report parse_report(std::string_view text, std::string_view origin, ReadOptions opts) {
  try {
    return detail::decode_report(text, opts.samples);
  } catch (const detail::JsonSyntaxError& e) {
    throw UsageError(
        fmt::format("{}: not valid JSON ({}); pass a report written by mlbench", origin, e.what()));
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("{}: {}", origin, e.what()));
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("{}: not a valid mlbench report ({})", origin, e.what()));
  }
}

Report load_report(const std::filesystem::path& path, ReadOptions opts) {
  // One buffer per thread, reused from call to call: a fleet load reads hundreds of files on each thread, and
  // a fresh zero-filled buffer per file cost more than the reading.
  thread_local std::string buf;
  return parse_report(read_input_file(path, InputKind::report, buf), path.string(), opts);
}

namespace {

// What -o names, seen through an O_PATH descriptor (which opens no device and waits on no FIFO).
struct OutputTarget {
  OutputKind kind = OutputKind::file;
  bool exists = false;  // a file: one is there (its mode and owner are kept)
  OwnedFd at;           // O_PATH, of what is there (the link's target for a link to a stream); none for none
  struct stat st {};    // of `at`
};

std::filesystem::path folder_of(const std::filesystem::path& path) {
  return path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
}

// The folder of `path`, opened; UsageError when it is missing or not a folder.
int open_folder(const std::filesystem::path& path, std::string_view flag) {
  const auto dir = folder_of(path);
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    throw UsageError(fmt::format("{}: folder '{}' does not exist; create it or choose another {} path",
                                 path.string(), dir.string(), flag));
  return fd;
}

// Refuses what -o (or `flag`, the option that named the path) must not replace: a folder, a symbolic link to
// a file (the rename would replace the link, not the file, and a link to a file elsewhere is not followed
// either), a block device, a socket. A character device (/dev/null, a terminal) and a FIFO are written
// through; a link to one is followed once (/dev/stdout), what it leads to checked by its descriptor.
OutputTarget inspect(int dirfd, const std::filesystem::path& path, std::string_view flag) {
  const std::string name = path.filename().string();
  if (name.empty() || name == "." || name == "..")
    throw UsageError(fmt::format("{}: is a folder; give a file name for {}", path.string(), flag));
  OutputTarget t;
  t.at = OwnedFd(::openat(dirfd, name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
  if (!t.at) {
    if (errno == ENOENT) return t;
    throw UsageError(fmt::format("{}: cannot look at it: {}; choose another {} path", path.string(),
                                 std::strerror(errno), flag));
  }
  if (::fstat(t.at.get(), &t.st) != 0)
    throw Error(fmt::format("{}: fstat failed: {}", path.string(), std::strerror(errno)));
  if (S_ISLNK(t.st.st_mode)) {
    t.at = OwnedFd(::openat(dirfd, name.c_str(), O_PATH | O_CLOEXEC));
    if (!t.at || ::fstat(t.at.get(), &t.st) != 0 || !(S_ISCHR(t.st.st_mode) || S_ISFIFO(t.st.st_mode)))
      throw UsageError(fmt::format(
          "{}: is a symbolic link; give the path of the file itself ({} replaces the file it names)",
          path.string(), flag));
  }
  if (S_ISREG(t.st.st_mode)) {
    t.exists = true;
  } else if (S_ISCHR(t.st.st_mode) || S_ISFIFO(t.st.st_mode)) {
    t.kind = OutputKind::stream;
  } else if (S_ISDIR(t.st.st_mode)) {
    throw UsageError(fmt::format("{}: is a folder; give a file name for {}", path.string(), flag));
  } else {
    throw UsageError(fmt::format("{}: is {}; {} takes a file, a character device, a FIFO or - for stdout",
                                 path.string(), file_type_name(t.st.st_mode), flag));
  }
  return t;
}

void write_all(int fd, const std::string& text, const std::filesystem::path& path) {
  for (std::size_t off = 0; off < text.size();) {
    ssize_t n = ::write(fd, text.data() + off, text.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(fmt::format("{}: write failed: {}", path.string(), std::strerror(errno)));
    off += static_cast<std::size_t>(n);
  }
}

// Into a character device or a FIFO as it is (no temp file, no rename), or stdout for `-`.
void write_through(const std::filesystem::path& path, const OutputTarget& t, const std::string& text) {
  OwnedFd out;
  if (path == "-") {
    out = OwnedFd(::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0));
  } else {
    // The inode inspect looked at, opened through its descriptor: a name swapped meanwhile to another
    // device is never opened. Non-blocking: a FIFO without a reader fails at once (ENXIO) instead of
    // waiting for one.
    out = reopen(t.at.get(), O_WRONLY | O_NOCTTY | O_NONBLOCK);
    if (!out) {
      const int err = errno;
      throw Error(fmt::format(
          "{}: cannot open: {}{}", path.string(), std::strerror(err),
          err == ENXIO ? " (a FIFO without a reader: start its reader first)" : reopen_hint(err)));
    }
    ::fcntl(out.get(), F_SETFL, ::fcntl(out.get(), F_GETFL) & ~O_NONBLOCK);
  }
  if (out.get() < 0) throw Error(fmt::format("-: cannot write to stdout: {}", std::strerror(errno)));
  write_all(out.get(), text, path);
}

// The temp file's name: "." + the file's name + "." + kTempRandom random characters.
constexpr std::size_t kTempRandom = 6;
constexpr std::size_t kTempExtra = 2 + kTempRandom;

// A new name in the folder for the temp file, created exclusively (never an existing file or link).
int create_temp(int dirfd, const std::filesystem::path& path, std::string& tmp) {
  static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::random_device rd;
  for (int attempt = 0; attempt < 100; ++attempt) {
    tmp = "." + path.filename().string() + ".";
    for (std::size_t i = 0; i < kTempRandom; ++i) tmp += kChars[rd() % (sizeof kChars - 1)];
    int fd = ::openat(dirfd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

// The temp file `tmp` renamed to the new name `name`, never over a file that appeared there since the look:
// false (nothing renamed) when one did. A filesystem without RENAME_NOREPLACE (NFS) gets a plain rename, the
// name looked at again just before it: reports are often written to NFS home folders, and the window left is
// that of one system call, not of the whole write.
bool place_new(int dirfd, const std::string& tmp, const std::string& name,
               const std::filesystem::path& path) {
  if (::renameat2(dirfd, tmp.c_str(), dirfd, name.c_str(), RENAME_NOREPLACE) == 0) return true;
  if (errno == EEXIST) return false;
  if (errno == EINVAL || errno == ENOSYS) {
    struct stat st {};
    if (::fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) return false;
    if (errno == ENOENT && ::renameat(dirfd, tmp.c_str(), dirfd, name.c_str()) == 0) return true;
  }
  throw Error(fmt::format("{}: could not be written: {}", path.string(), std::strerror(errno)));
}

}  // namespace

namespace detail {

bool replace_inspected(int dirfd, const std::string& tmp, const std::string& name, dev_t dev, ino_t ino,
                       const std::filesystem::path& path) {
  const auto same = [&](const std::string& at) {
    struct stat st {};
    if (::fstatat(dirfd, at.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
      throw Error(fmt::format("{}: could not be written: {} changed during the write: {}", path.string(), at,
                              std::strerror(errno)));
    return S_ISREG(st.st_mode) && st.st_dev == dev && st.st_ino == ino;
  };
  if (::renameat2(dirfd, tmp.c_str(), dirfd, name.c_str(), RENAME_EXCHANGE) != 0) {
    if (errno != EINVAL && errno != ENOSYS)
      throw Error(fmt::format("{}: could not be written: {}", path.string(), std::strerror(errno)));
    // A filesystem without RENAME_EXCHANGE (NFS): a plain rename, the name looked at again just before it
    // (see place_new for why a fallback rather than a refusal).
    if (!same(name)) return false;
    if (::renameat(dirfd, tmp.c_str(), dirfd, name.c_str()) != 0)
      throw Error(fmt::format("{}: could not be written: {}", path.string(), std::strerror(errno)));
    return true;
  }
  // The temp name now holds what was at the name: the inspected file, or whatever took its place.
  if (same(tmp)) {
    ::unlinkat(dirfd, tmp.c_str(), 0);
    return true;
  }
  if (::renameat2(dirfd, tmp.c_str(), dirfd, name.c_str(), RENAME_EXCHANGE) != 0)
    throw Error(
        fmt::format("{}: another file appeared there during the write and could not be put back ({}): "
                    "it is now {} in the same folder",
                    path.string(), std::strerror(errno), tmp));
  return false;
}

}  // namespace detail

void write_text_atomic(const std::filesystem::path& path, const std::string& text, std::string_view flag) {
  if (path == "-") return write_through(path, OutputTarget{OutputKind::stream}, text);
  // The folder is opened once; every look and every change below is relative to that descriptor. Checked
  // before the run (check_writable), so a folder gone now is a fault of the run, not bad input.
  OwnedFd dir(::open(folder_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() < 0)
    throw Error(fmt::format("{}: cannot open its folder '{}': {} (removed during the run?)", path.string(),
                            folder_of(path).string(), std::strerror(errno)));
  const std::string name = path.filename().string();
  // Only what was looked at is ever replaced: a file that appears in place of a new name is kept
  // (RENAME_NOREPLACE), and one that takes an existing file's place is put back (RENAME_EXCHANGE, then a
  // look at what was exchanged); either way the temp file goes and the look is taken again.
  for (int attempt = 0; attempt < 3; ++attempt) {
    const OutputTarget t = inspect(dir.get(), path, flag);
    if (t.kind == OutputKind::stream) return write_through(path, t, text);
    std::string tmp;
    OwnedFd out(create_temp(dir.get(), path, tmp));
    if (out.get() < 0)
      throw Error(fmt::format("{}: cannot create a file in '{}': {}", path.string(), folder_of(path).string(),
                              std::strerror(errno)));
    // The temp name is removed only while it holds the temp file: after a failed exchange back it holds
    // the file that took the target's place, which is not mlbench's to remove.
    struct stat mine {};
    ::fstat(out.get(), &mine);
    const auto remove_temp = [&] {
      struct stat there {};
      if (::fstatat(dir.get(), tmp.c_str(), &there, AT_SYMLINK_NOFOLLOW) == 0 &&
          there.st_dev == mine.st_dev && there.st_ino == mine.st_ino)
        ::unlinkat(dir.get(), tmp.c_str(), 0);
    };
    try {
      write_all(out.get(), text, path);
      // An existing file keeps its owner and mode (the owner first: chown clears set-id bits); a new one is
      // 0644. Changing the owner needs root; without it the file is the writer's, as any editor leaves it.
      if (t.exists && ::fchown(out.get(), t.st.st_uid, t.st.st_gid) != 0 && errno != EPERM)
        throw Error(fmt::format("{}: chown failed: {}", path.string(), std::strerror(errno)));
      if (::fchmod(out.get(), t.exists ? t.st.st_mode & 07777 : 0644) != 0 || ::fsync(out.get()) != 0)
        throw Error(fmt::format("{}: could not be written: {}", path.string(), std::strerror(errno)));
      const int fd = out.release();
      if (::close(fd) != 0)
        throw Error(fmt::format("{}: could not be written: {}", path.string(), std::strerror(errno)));
      if (t.exists ? detail::replace_inspected(dir.get(), tmp, name, t.st.st_dev, t.st.st_ino, path)
                   : place_new(dir.get(), tmp, name, path))
        return;
      remove_temp();
      continue;
    } catch (...) {
      remove_temp();
      throw;
    }
  }
  throw Error(
      fmt::format("{}: keeps changing while being written; is another program writing it?", path.string()));
}

void write_json_atomic(const std::filesystem::path& path, const Json& j) {
  write_text_atomic(path, j.dump(2) + "\n");
}

void write_report(const std::filesystem::path& path, const Report& r) { write_json_atomic(path, to_json(r)); }

OutputKind check_writable(const std::filesystem::path& path, std::string_view flag) {
  if (path == "-") return OutputKind::stream;
  OwnedFd dir(open_folder(path, flag));
  const OutputTarget t = inspect(dir.get(), path, flag);
  if (t.kind == OutputKind::file && ::access(folder_of(path).c_str(), W_OK) != 0) {
    throw UsageError(fmt::format("{}: folder '{}' is not writable; choose another {} path", path.string(),
                                 folder_of(path).string(), flag));
  }
  // The temp file's name is longer than the file's: a name at the folder's limit would fail after the run.
  const long name_max = ::fpathconf(dir.get(), _PC_NAME_MAX);
  if (t.kind == OutputKind::file && name_max > static_cast<long>(kTempExtra) &&
      path.filename().string().size() + kTempExtra > static_cast<std::size_t>(name_max))
    throw UsageError(fmt::format("{}: the file name is longer than {} characters; choose a shorter {} name",
                                 path.string(), static_cast<std::size_t>(name_max) - kTempExtra, flag));
  return t.kind;
}

}  // namespace mlbench
