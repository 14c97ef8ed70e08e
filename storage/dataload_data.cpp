#include "storage/dataload_data.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <random>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/units.hpp"
#include "storage/buffer.hpp"
#include "storage/pattern.hpp"

namespace mlbench::storage {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::uint64_t kMinSample = 4096;
constexpr std::size_t kWriteChunk = std::size_t{1} << 20;

std::string fmt_bytes(std::uint64_t b) { return format_bytes(static_cast<double>(b)); }

std::uint64_t folders_of(std::uint64_t files) { return (files + kFilesPerFolder - 1) / kFilesPerFolder; }

json read_manifest(const fs::path& root) {
  std::ifstream in(root / kManifestName);
  if (!in) return nullptr;
  json j = json::parse(in, nullptr, false);
  return j.is_discarded() ? json(nullptr) : j;
}

bool is_dataset(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec) && !fs::is_symlink(p, ec) &&
         p.filename().string().rfind(kDatasetPrefix, 0) == 0 && read_manifest(p).is_object();
}

// Writes one file of `size` random bytes; returns the errno of a failure (0 when written).
int write_one(const fs::path& path, std::uint64_t size, std::uint64_t seed, AlignedBuffer& buf) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return errno;
  std::uint64_t done = 0;
  int err = 0;
  while (done < size && err == 0) {
    std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kWriteChunk, size - done));
    fill_pattern(buf.span().first((n + 7) / 8 * 8), seed, done);
    std::size_t off = 0;
    while (off < n) {
      ssize_t w = ::write(fd, buf.data() + off, n - off);
      if (w < 0) {
        if (errno == EINTR) continue;
        err = errno;
        break;
      }
      off += static_cast<std::size_t>(w);
    }
    done += n;
  }
  if (::close(fd) != 0 && err == 0) err = errno;
  return err;
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

json DatasetPlan::manifest(bool complete) const {
  return json{{"format", "mlbench-dataload-dataset"},
              {"version", 1},
              {"workload", workload},
              {"ext", ext},
              {"count", sizes.size()},
              {"seed", seed},
              {"sizes", sizes},
              {"complete", complete}};
}

fs::path DatasetPlan::file(std::uint64_t i) const {
  return root / fmt::format("{:04}", i / kFilesPerFolder) / fmt::format("{:08}.{}", i, ext);
}

std::uint64_t DatasetPlan::bytes() const {
  std::uint64_t b = 0;
  for (auto s : sizes) b += s;
  return b;
}

DatasetState inspect_data_dir(const DatasetPlan& plan, const std::string& flag) {
  const fs::path dir = plan.root.parent_path();
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw UsageError(
        fmt::format("{} {}: not an existing folder; create it or give another", flag, dir.string()));
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (!is_dataset(e.path())) {
      throw UsageError(fmt::format(
          "{} {} holds {}, which is not an mlbench dataset; give an empty folder or one holding only "
          "mlbench datasets (mlbench writes nowhere else)",
          flag, dir.string(), e.path().filename().string()));
    }
  }
  if (ec) throw UsageError(fmt::format("{} {}: {}", flag, dir.string(), ec.message()));
  if (!fs::exists(plan.root, ec)) return DatasetState::absent;
  json m = read_manifest(plan.root);
  return m == plan.manifest(true) ? DatasetState::matches : DatasetState::differs;
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

void remove_dataset(const DatasetPlan& plan, std::uint64_t count) {
  std::error_code ec;
  for (std::uint64_t i = 0; i < count; ++i) fs::remove(plan.file(i), ec);
  for (std::uint64_t d = 0; d < folders_of(count); ++d) fs::remove(plan.root / fmt::format("{:04}", d), ec);
  fs::remove(plan.root / kManifestName, ec);
  fs::remove(plan.root, ec);  // only when empty: a name mlbench did not make keeps the folder
}

GeneratedDataset GeneratedDataset::open(const DatasetPlan& plan, bool keep, const std::atomic<bool>& stop,
                                        GenerateFigures& made) {
  made = {};
  json old = read_manifest(plan.root);
  if (old == plan.manifest(true)) return GeneratedDataset(plan, keep);
  if (old.is_object()) {
    DatasetPlan prev = plan;
    prev.ext = old.value("ext", plan.ext);
    remove_dataset(prev, old.value("count", std::uint64_t{0}));
  }
  // Checked again here: the planning check may be minutes old.
  check_free_space(plan, plan.root.parent_path(), 0, "--data-dir");
  GeneratedDataset ds(plan, keep);
  ds.keep_ = false;  // an incomplete dataset is removed whatever --keep-data says
  const auto t0 = std::chrono::steady_clock::now();
  if (::mkdir(plan.root.c_str(), 0755) != 0)
    throw Error(fmt::format("creating {}: {}", plan.root.string(), std::strerror(errno)));
  {
    std::ofstream out(plan.root / kManifestName);
    out << plan.manifest(false).dump();
    if (!out) throw Error(fmt::format("writing the manifest in {} failed", plan.root.string()));
  }
  AlignedBuffer buf(kWriteChunk);
  for (std::uint64_t i = 0; i < plan.sizes.size(); ++i) {
    if (stop.load(std::memory_order_relaxed)) throw Interrupted();
    if (i % kFilesPerFolder == 0) {
      auto sub = plan.root / fmt::format("{:04}", i / kFilesPerFolder);
      if (::mkdir(sub.c_str(), 0755) != 0)
        throw Error(fmt::format("creating {}: {}", sub.string(), std::strerror(errno)));
    }
    int err = write_one(plan.file(i), plan.sizes[i], mix64(plan.seed + i), buf);
    if (err != 0) {
      throw Error(fmt::format("generating the dataset: writing {} failed: {}{}; removed what was written",
                              plan.file(i).string(), std::strerror(err),
                              err == ENOSPC ? " (the filesystem is full)" : ""));
    }
    made.bytes += plan.sizes[i];
    ++made.files;
  }
  int dfd = ::open(plan.root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    int rc = ::syncfs(dfd);
    int err = errno;
    ::close(dfd);
    if (rc != 0)
      throw Error(fmt::format("syncing the dataset in {}: {}", plan.root.string(), std::strerror(err)));
  }
  {
    std::ofstream out(plan.root / kManifestName, std::ios::trunc);
    out << plan.manifest(true).dump();
    if (!out) throw Error(fmt::format("writing the manifest in {} failed", plan.root.string()));
  }
  made.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ds.keep_ = keep;
  return ds;
}

GeneratedDataset::GeneratedDataset(GeneratedDataset&& o) noexcept
    : plan_(o.plan_), keep_(o.keep_), owned_(std::exchange(o.owned_, false)) {}

GeneratedDataset::~GeneratedDataset() {
  if (owned_ && !keep_) remove_dataset(plan_, plan_.sizes.size());
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
