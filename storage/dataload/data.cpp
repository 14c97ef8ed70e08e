#include "storage/dataload/data.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <optional>
#include <random>
#include <set>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/units.hpp"
#include "storage/buffer.hpp"
#include "storage/fd.hpp"
#include "storage/pattern.hpp"

namespace mlbench::storage {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::uint64_t kMinSample = 4096;
constexpr std::size_t kWriteChunk = std::size_t{1} << 20;
constexpr std::string_view kManifestFormat = "mlbench-dataload-dataset";
// A new manifest is written here and renamed over the manifest: a rename replaces the name, never what an old
// one pointed at (a hard link or a symlink left by someone else stays as it was).
constexpr std::string_view kManifestTemp = ".mlbench-dataset.json.new";

std::string fmt_bytes(std::uint64_t b) { return format_bytes(static_cast<double>(b)); }

std::uint64_t folders_of(std::uint64_t files) { return (files + kFilesPerFolder - 1) / kFilesPerFolder; }

std::string folder_name(std::uint64_t folder) { return fmt::format("{:04}", folder); }
std::string file_name(std::uint64_t i, std::string_view ext) { return fmt::format("{:08}.{}", i, ext); }

// The number of a subfolder name mlbench makes ("0000" to "9999"), or nullopt.
std::optional<std::uint64_t> folder_number(std::string_view name) {
  std::uint64_t n = 0;
  if (name.size() != 4) return std::nullopt;
  auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), n);
  if (ec != std::errc{} || end != name.data() + name.size()) return std::nullopt;
  return n;
}

// Whether `name` is one mlbench gives a file of subfolder `folder`: eight digits of an index in it, "." ext.
bool is_file_name(std::string_view name, std::uint64_t folder, std::string_view ext) {
  if (name.size() != 9 + ext.size() || name[8] != '.' || name.substr(9) != ext) return false;
  std::uint64_t i = 0;
  auto [end, ec] = std::from_chars(name.data(), name.data() + 8, i);
  return ec == std::errc{} && end == name.data() + 8 && i / kFilesPerFolder == folder;
}

// Takes `op` (LOCK_SH to read, LOCK_EX to make or remove) on the dataset folder of `fd` without waiting:
// false only when another run holds a conflicting lock. A filesystem without flock (some NFS mounts) tells
// nothing and counts as free.
bool lock_dataset(int fd, int op) { return ::flock(fd, op | LOCK_NB) == 0 || errno != EWOULDBLOCK; }

// The most files a manifest of the folder of `fd` may list: mlbench's names hold kMaxDatasetFiles, and the
// filesystem no more than its inodes.
std::uint64_t max_files_in(int fd) {
  struct statvfs v {};
  if (::fstatvfs(fd, &v) == 0 && v.f_files > 0)
    return std::min<std::uint64_t>(kMaxDatasetFiles, static_cast<std::uint64_t>(v.f_files));
  return kMaxDatasetFiles;
}

// The manifest of the dataset folder `root` (opened as `fd`): nullopt when there is none; UsageError when it
// is not a regular file, is longer than any manifest mlbench writes, or does not validate.
std::optional<DatasetManifest> read_manifest(int fd) {
  // O_NONBLOCK: a FIFO under the manifest's name must not hang the open (it is refused below).
  Fd m(::openat(fd, std::string(kManifestName).c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!m) {
    if (errno == ENOENT) return std::nullopt;
    throw UsageError(fmt::format("its manifest cannot be opened: {}", std::strerror(errno)));
  }
  struct stat st {};
  if (::fstat(m.get(), &st) != 0 || !S_ISREG(st.st_mode))
    throw UsageError("its manifest is not a regular file");
  if (static_cast<std::uint64_t>(st.st_size) > kMaxManifestBytes)
    throw UsageError(fmt::format("its manifest is {}, more than the {} of the largest dataset's",
                                 fmt_bytes(static_cast<std::uint64_t>(st.st_size)),
                                 fmt_bytes(kMaxManifestBytes)));
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    const ssize_t r = ::read(m.get(), text.data() + got, text.size() - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw UsageError(fmt::format("reading its manifest: {}", std::strerror(errno)));
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  text.resize(got);
  try {
    return parse_manifest(text, max_files_in(fd));
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("its manifest: {}", e.what()));
  }
}

// Writes `m` as the manifest of the folder of `fd`: a new file (O_EXCL, never through a link), synced, then
// renamed over the old name.
void write_manifest(int fd, const DatasetManifest& m, const fs::path& root) {
  const std::string temp(kManifestTemp);
  remove_file_at(fd, temp);  // a killed run's
  const std::string text = to_json(m).dump();
  auto fail = [&](const char* what, int err) {
    return Error(fmt::format("writing the manifest in {}: {}: {}", root.string(), what, std::strerror(err)));
  };
  {
    Fd out(::openat(fd, temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (!out) throw fail("create", errno);
    std::size_t done = 0;
    while (done < text.size()) {
      const ssize_t w = ::write(out.get(), text.data() + done, text.size() - done);
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) throw fail("write", errno);
      done += static_cast<std::size_t>(w);
    }
    if (::fsync(out.get()) != 0) throw fail("fsync", errno);
  }
  if (::renameat(fd, temp.c_str(), fd, std::string(kManifestName).c_str()) != 0) throw fail("rename", errno);
}

// Opens the dataset folder `name` in the folder of `dir_fd`, once: the descriptor every later check, lock and
// removal goes through. Throws UsageError when the name is not one mlbench gives a dataset (its prefix and a
// workload name), or it is a link or no folder.
Fd open_dataset_folder(int dir_fd, const std::string& name) {
  if (!name.starts_with(kDatasetPrefix) || !is_dataset_name(name.substr(kDatasetPrefix.size())))
    throw UsageError("its name is not one mlbench gives a dataset");
  Fd root = open_folder_at(dir_fd, name);
  if (!root) {
    if (type_at(dir_fd, name) == S_IFLNK) throw UsageError("it is a link");
    throw UsageError(fmt::format("it cannot be opened as a folder: {}", std::strerror(errno)));
  }
  return root;
}

// Checks the dataset folder of `root_fd`, opened as `name`: a valid manifest of that workload, and only names
// mlbench makes there (the manifest, its temporary, four-digit subfolders). Returns the manifest; throws
// UsageError saying what is wrong.
DatasetManifest check_dataset_folder(int root_fd, const std::string& name) {
  auto m = read_manifest(root_fd);
  if (!m) throw UsageError("it has no manifest");
  if (std::string(kDatasetPrefix) + m->workload != name)
    throw UsageError(fmt::format("its manifest names workload '{}'", m->workload));
  for (const auto& entry : names_in(root_fd)) {
    if (entry == kManifestName || entry == kManifestTemp) continue;
    if (!folder_number(entry) || type_at(root_fd, entry) != S_IFDIR)
      throw UsageError(fmt::format("it holds {}, which mlbench does not make there", entry));
  }
  return *m;
}

// Whether `name` in the folder of `dir_fd` is the folder of `fd` itself (the same device and inode), not one
// put under its name since it was opened.
bool is_same_folder(int dir_fd, const std::string& name, int fd) {
  struct stat at {};
  struct stat held {};
  return ::fstatat(dir_fd, name.c_str(), &at, AT_SYMLINK_NOFOLLOW) == 0 && ::fstat(fd, &held) == 0 &&
         at.st_dev == held.st_dev && at.st_ino == held.st_ino;
}

// Writes one file of `size` random bytes as `name` in the folder of `dir_fd`; returns the errno of a failure
// (0 when written). Throws Interrupted when `stop` is set (between 1 MiB writes).
int write_one(int dir_fd, const std::string& name, std::uint64_t size, std::uint64_t seed, AlignedBuffer& buf,
              const std::atomic<bool>& stop) {
  Fd fd(::openat(dir_fd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (!fd) return errno;
  std::uint64_t done = 0;
  while (done < size) {
    if (stop.load(std::memory_order_relaxed)) throw Interrupted();
    std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kWriteChunk, size - done));
    fill_pattern(buf.span().first((n + 7) / 8 * 8), seed, done);
    std::size_t off = 0;
    while (off < n) {
      ssize_t w = ::write(fd.get(), buf.data() + off, n - off);
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) return errno;
      off += static_cast<std::size_t>(w);
    }
    done += n;
  }
  return ::close(fd.release()) != 0 ? errno : 0;  // close reports a deferred write error (NFS)
}

}  // namespace

std::vector<std::uint64_t> dataset_sizes(const Workload& w, std::uint64_t files, std::uint64_t seed) {
  std::mt19937_64 rng(mix64(seed ^ 0x5eedda7a5e7ull));
  std::normal_distribution<double> dist(static_cast<double>(w.record_length),
                                        static_cast<double>(std::max<std::uint64_t>(w.record_stdev, 1)));
  const double lo = static_cast<double>(kMinSample);
  const double hi = static_cast<double>(w.record_length) + 3.0 * static_cast<double>(w.record_stdev);
  std::vector<std::uint64_t> out(files);
  for (auto& s : out) {
    double rec = w.record_stdev == 0 ? static_cast<double>(w.record_length) : std::clamp(dist(rng), lo, hi);
    s = w.samples_per_file * static_cast<std::uint64_t>(std::llround(std::max(rec, 1.0)));
  }
  return out;
}

DatasetManifest parse_manifest(std::string_view text, std::uint64_t max_files) {
  if (text.size() > kMaxManifestBytes)
    throw UsageError(fmt::format("{} bytes, more than the {} of the largest dataset's", text.size(),
                                 fmt_bytes(kMaxManifestBytes)));
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw UsageError("not a JSON object");
  static const std::set<std::string> kKeys = {"format", "version", "workload", "ext",
                                              "count",  "seed",    "sizes",    "complete"};
  for (const auto& item : j.items())
    if (!kKeys.count(item.key())) throw UsageError(fmt::format("unknown key '{}'", item.key()));
  auto at = [&](const char* key) -> const json& {
    if (!j.contains(key)) throw UsageError(fmt::format("'{}' is missing", key));
    return j[key];
  };
  auto bad = [](const char* key, const json& v, std::string_view why) {
    return UsageError(fmt::format("'{}' {} {}", key, v.dump().substr(0, 80), why));
  };
  if (at("format") != kManifestFormat) throw bad("format", j["format"], "is not mlbench's");
  if (at("version") != 1) throw bad("version", j["version"], "is not 1");
  DatasetManifest m;
  const json& workload = at("workload");
  if (!workload.is_string() || !is_dataset_name(workload.get<std::string>()))
    throw bad("workload", workload, "is not a workload name");
  m.workload = workload.get<std::string>();
  const json& ext = at("ext");
  if (!ext.is_string() || !is_dataset_format(ext.get<std::string>()))
    throw bad("ext", ext, "is not a dataset format");
  m.ext = ext.get<std::string>();
  const json& count = at("count");
  if (!count.is_number_unsigned() || count.get<std::uint64_t>() < 1 || count.get<std::uint64_t>() > max_files)
    throw bad("count", count, fmt::format("is not a number of files from 1 to {}", max_files));
  const json& seed = at("seed");
  if (!seed.is_number_unsigned()) throw bad("seed", seed, "is not a whole number");
  m.seed = seed.get<std::uint64_t>();
  const json& sizes = at("sizes");
  if (!sizes.is_array() || sizes.size() != count.get<std::uint64_t>())
    throw UsageError(fmt::format("'sizes' is not a list of 'count' ({}) sizes", count.get<std::uint64_t>()));
  m.sizes.reserve(sizes.size());
  for (const auto& s : sizes) {
    if (!s.is_number_unsigned() || s.get<std::uint64_t>() == 0) throw bad("sizes", s, "is not a file size");
    m.sizes.push_back(s.get<std::uint64_t>());
  }
  const json& complete = at("complete");
  if (!complete.is_boolean()) throw bad("complete", complete, "is not true or false");
  m.complete = complete.get<bool>();
  return m;
}

json to_json(const DatasetManifest& m) {
  return json{
      {"format", kManifestFormat}, {"version", 1},   {"workload", m.workload}, {"ext", m.ext},
      {"count", m.sizes.size()},   {"seed", m.seed}, {"sizes", m.sizes},       {"complete", m.complete}};
}

DatasetManifest DatasetPlan::manifest(bool complete) const { return {workload, ext, seed, sizes, complete}; }

bool DatasetPlan::matches(const DatasetManifest& m) const {
  return m.workload == workload && m.ext == ext && m.seed == seed && m.sizes == sizes;
}

fs::path DatasetPlan::file(std::uint64_t i) const {
  return root / folder_name(i / kFilesPerFolder) / file_name(i, ext);
}

std::uint64_t DatasetPlan::bytes() const {
  std::uint64_t b = 0;
  for (auto s : sizes) b += s;
  return b;
}

DatasetState inspect_data_dir(const DatasetPlan& plan, const std::string& flag) {
  const fs::path dir = plan.root.parent_path();
  Fd dfd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dfd)
    throw UsageError(
        fmt::format("{} {}: not an existing folder; create it or give another", flag, dir.string()));
  DatasetState state = DatasetState::absent;
  for (const auto& name : names_in(dfd.get())) {
    try {
      const Fd root = open_dataset_folder(dfd.get(), name);
      const DatasetManifest m = check_dataset_folder(root.get(), name);
      if (name == plan.root.filename())
        state = m.complete && plan.matches(m) ? DatasetState::matches : DatasetState::differs;
    } catch (const UsageError& e) {
      throw UsageError(fmt::format(
          "{} {} holds {}, which is not an mlbench dataset ({}); give an empty folder or one holding only "
          "mlbench datasets (mlbench writes nowhere else)",
          flag, dir.string(), name, e.what()));
    }
  }
  return state;
}

void check_free_space(const DatasetPlan& plan, const fs::path& dir, std::uint64_t reclaim,
                      const std::string& flag) {
  struct statvfs v {};
  if (::statvfs(dir.c_str(), &v) != 0)
    throw UsageError(fmt::format("{} {}: statvfs: {}", flag, dir.string(), std::strerror(errno)));
  const std::uint64_t block = v.f_frsize > 0 ? v.f_frsize : 4096;
  std::uint64_t need = 0;
  for (auto s : plan.sizes) need += (s + block - 1) / block * block;
  const std::uint64_t inodes = plan.sizes.size() + folders_of(plan.sizes.size()) + 2;
  need += (folders_of(plan.sizes.size()) + 2) * block;
  const std::uint64_t avail = static_cast<std::uint64_t>(v.f_bavail) * block + reclaim;
  if (need > avail) {
    throw UsageError(
        fmt::format("{} {}: the dataset needs {} in {} files and only {} is free; use a smaller "
                    "--files or another folder",
                    flag, dir.string(), fmt_bytes(need), plan.sizes.size(), fmt_bytes(avail)));
  }
  if (v.f_files > 0 && inodes > v.f_favail) {
    throw UsageError(
        fmt::format("{} {}: the dataset needs {} inodes and only {} are free; use a smaller --files "
                    "or another folder",
                    flag, dir.string(), inodes, static_cast<std::uint64_t>(v.f_favail)));
  }
}

bool remove_dataset(int parent_fd, const std::string& name, int root_fd, const DatasetManifest& m,
                    const std::atomic<bool>* stop) {
  if (m.complete) {
    DatasetManifest incomplete = m;
    incomplete.complete = false;
    // Best effort (a full filesystem refuses it): the removal goes on, and a manifest left complete is
    // rewritten when a run finds the files missing.
    try {
      write_manifest(root_fd, incomplete, name);
    } catch (const Error&) {
    }
  }
  for (const auto& sub : names_in(root_fd)) {
    const auto folder = folder_number(sub);
    if (!folder) continue;
    {
      Fd sfd = open_folder_at(root_fd, sub);
      if (!sfd) continue;  // a link under a subfolder's name: not followed, and kept
      for (const auto& file : names_in(sfd.get())) {
        if (stop != nullptr && stop->load(std::memory_order_relaxed)) throw Interrupted();
        if (is_file_name(file, *folder, m.ext)) remove_file_at(sfd.get(), file);
      }
    }
    ::unlinkat(root_fd, sub.c_str(), AT_REMOVEDIR);  // only when empty: a name mlbench did not make stays
  }
  remove_file_at(root_fd, std::string(kManifestTemp));
  remove_file_at(root_fd, std::string(kManifestName));
  // Only when `name` is still the folder emptied (a folder put under its name meanwhile is not), and only
  // when empty.
  return is_same_folder(parent_fd, name, root_fd) && ::unlinkat(parent_fd, name.c_str(), AT_REMOVEDIR) == 0;
}

GeneratedDataset GeneratedDataset::open(const DatasetPlan& plan, bool keep, const std::atomic<bool>& stop,
                                        GenerateFigures& made) {
  made = {};
  const fs::path dir = plan.root.parent_path();
  const std::string name = plan.root.filename().string();
  Fd parent(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!parent) throw Error(fmt::format("opening {}: {}", dir.string(), std::strerror(errno)));
  if (type_at(parent.get(), name) != 0) {
    // Opened once: the folder validated is the folder locked and the folder removed, whatever is renamed.
    Fd held;
    DatasetManifest old;
    try {
      held = open_dataset_folder(parent.get(), name);
      old = check_dataset_folder(held.get(), name);
    } catch (const UsageError& e) {
      throw Error(
          fmt::format("{} is not an mlbench dataset ({}); removed nothing", plan.root.string(), e.what()));
    }
    const bool reuse = old.complete && plan.matches(old);
    if (!lock_dataset(held.get(), reuse ? LOCK_SH : LOCK_EX))
      throw Error(
          fmt::format("{} is in use by another mlbench run; wait for it to end or give another --data-dir",
                      plan.root.string()));
    if (reuse) {
      GeneratedDataset ds(plan, keep, true);
      ds.parent_ = std::move(parent);
      ds.lock_ = std::move(held);
      return ds;
    }
    if (!remove_dataset(parent.get(), name, held.get(), old, &stop)) {
      throw Error(is_same_folder(parent.get(), name, held.get())
                      ? fmt::format("removing the old dataset: {} still holds names mlbench did not make; "
                                    "remove them or give another --data-dir",
                                    plan.root.string())
                      : fmt::format("removing the old dataset: another folder was put in the place of {} "
                                    "meanwhile; left it as it is",
                                    plan.root.string()));
    }
  }
  // Checked again here: the planning check may be minutes old.
  check_free_space(plan, dir, 0, "--data-dir");
  const auto t0 = std::chrono::steady_clock::now();
  if (::mkdirat(parent.get(), name.c_str(), 0755) != 0)
    throw Error(fmt::format("creating {}: {}", plan.root.string(), std::strerror(errno)));
  // Not its owner checked: root's folder on an NFS export with root_squash belongs to nobody. A folder put in
  // its place is only written into (O_EXCL, never through a link), which harms no one else's file.
  Fd root = open_folder_at(parent.get(), name);
  if (!root) {
    const int err = errno;
    ::unlinkat(parent.get(), name.c_str(), AT_REMOVEDIR);  // only when still the empty folder just made
    throw Error(fmt::format("opening {}, just created: {}", plan.root.string(), std::strerror(err)));
  }
  lock_dataset(root.get(), LOCK_EX);  // just made: free
  // From here the destructor removes what was made, whatever --keep-data says, until it is complete.
  GeneratedDataset ds(plan, false, false);
  ds.lock_ = std::move(root);
  ds.parent_ = std::move(parent);
  const int rfd = ds.lock_.get();
  write_manifest(rfd, plan.manifest(false), plan.root);
  AlignedBuffer buf(kWriteChunk);
  Fd sub;
  for (std::uint64_t i = 0; i < plan.sizes.size(); ++i) {
    if (stop.load(std::memory_order_relaxed)) throw Interrupted();
    if (i % kFilesPerFolder == 0) {
      const std::string folder = folder_name(i / kFilesPerFolder);
      if (::mkdirat(rfd, folder.c_str(), 0755) != 0 || !(sub = open_folder_at(rfd, folder)))
        throw Error(fmt::format("creating {}: {}", (plan.root / folder).string(), std::strerror(errno)));
    }
    int err = write_one(sub.get(), file_name(i, plan.ext), plan.sizes[i], mix64(plan.seed + i), buf, stop);
    if (err != 0) {
      throw Error(fmt::format("generating the dataset: writing {} failed: {}{}; removed what was written",
                              plan.file(i).string(), std::strerror(err),
                              err == ENOSPC ? " (the filesystem is full)" : ""));
    }
    made.bytes += plan.sizes[i];
    ++made.files;
  }
  if (::syncfs(rfd) != 0)
    throw Error(fmt::format("syncing the dataset in {}: {}", plan.root.string(), std::strerror(errno)));
  write_manifest(rfd, plan.manifest(true), plan.root);
  made.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ds.complete_ = true;
  ds.keep_ = keep;
  lock_dataset(rfd, LOCK_SH);  // complete: other runs may read it too
  return ds;
}

GeneratedDataset::GeneratedDataset(GeneratedDataset&& o) noexcept
    : plan_(o.plan_),
      keep_(o.keep_),
      complete_(o.complete_),
      owned_(std::exchange(o.owned_, false)),
      parent_(std::move(o.parent_)),
      lock_(std::move(o.lock_)) {}

GeneratedDataset::~GeneratedDataset() {
  if (!owned_ || keep_) return;
  // Another run reading the same complete dataset holds it shared: it stays for that run.
  if (!lock_dataset(lock_.get(), LOCK_EX)) return;
  try {
    remove_dataset(parent_.get(), plan_.root.filename().string(), lock_.get(), plan_.manifest(complete_),
                   nullptr);
  } catch (...) {  // a destructor never throws; without a stop flag only an allocation can fail
  }
}

std::vector<DataFile> GeneratedDataset::files() const {
  std::vector<DataFile> out;
  out.reserve(plan_.sizes.size());
  for (std::uint64_t i = 0; i < plan_.sizes.size(); ++i)
    out.push_back({plan_.file(i).string(), plan_.sizes[i]});
  return out;
}

std::vector<DataFile> list_user_data(const fs::path& dir, const std::string& flag) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw UsageError(
        fmt::format("{} {}: not an existing folder; give the folder of your dataset", flag, dir.string()));
  std::vector<DataFile> out;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (it->is_regular_file(ec) && !it->is_symlink(ec))
      out.push_back({it->path().string(), static_cast<std::uint64_t>(it->file_size(ec))});
  }
  if (ec) throw UsageError(fmt::format("{} {}: {}", flag, dir.string(), ec.message()));
  if (out.empty()) throw UsageError(fmt::format("{} {}: holds no regular file to read", flag, dir.string()));
  std::sort(out.begin(), out.end(), [](const DataFile& a, const DataFile& b) { return a.path < b.path; });
  return out;
}

}  // namespace mlbench::storage
