#include "storage/target.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/units.hpp"
#include "bench/sysinfo.hpp"
#include "mlbench_config.hpp"
#include "storage/buffer.hpp"
#include "storage/owner.hpp"
#include "storage/pattern.hpp"

#if MLBENCH_HAS_BLKID
#include <blkid/blkid.h>
#endif

namespace mlbench::storage {
namespace fs = std::filesystem;
namespace {

std::string dev_name(dev_t d) { return fmt::format("{}:{}", major(d), minor(d)); }

constexpr std::string_view kScratchPrefix = ".mlbench-io-";

// "259:1" (a sysfs `dev` file) → the device number.
std::optional<dev_t> parse_dev(std::string_view text) {
  unsigned maj = 0, min = 0;
  auto colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  auto [e1, c1] = std::from_chars(text.data(), text.data() + colon, maj);
  auto [e2, c2] = std::from_chars(text.data() + colon + 1, text.data() + text.size(), min);
  if (c1 != std::errc{} || c2 != std::errc{} || e1 != text.data() + colon || e2 != text.data() + text.size())
    return std::nullopt;
  return makedev(maj, min);
}

std::uint32_t logical_block_of(const std::string& disk, const SysReader& sys) {
  if (disk.empty()) return 512;
  auto v = sys.read_int(fs::path("/sys/block") / disk / "queue/logical_block_size");
  return v && *v > 0 ? static_cast<std::uint32_t>(*v) : 512u;
}

// Mount points of device `d` (/proc/self/mountinfo names it by number).
std::vector<std::string> mounts_of(dev_t d, const SysReader& sys) {
  std::vector<std::string> out;
  auto text = sys.read("/proc/self/mountinfo");
  if (!text) return out;
  const std::string want = dev_name(d);
  for (const auto& m : parse_mountinfo(*text)) {
    if (m.dev == want) out.push_back(m.mount_point);
  }
  return out;
}

// The sysfs folder of device `d`, under the reader's root; nullopt when the kernel has none.
std::optional<fs::path> sysfs_dir(dev_t d, const SysReader& sys) {
  return sys.canonical(fs::path("/sys/dev/block") / dev_name(d));
}

// The partitions of a whole disk (folder `dir`), as device numbers.
std::vector<std::pair<std::string, dev_t>> partitions_of(const fs::path& dir, const SysReader& sys) {
  std::vector<std::pair<std::string, dev_t>> out;
  for (const auto& name : sys.list(dir)) {
    if (!sys.exists(dir / name / "partition")) continue;
    auto text = sys.read(dir / name / "dev");
    if (auto d = text ? parse_dev(*text) : std::nullopt) out.emplace_back(name, *d);
  }
  return out;
}

// The loop devices whose backing file is `path`.
std::vector<std::pair<std::string, dev_t>> loops_backed_by(const std::string& path, const SysReader& sys) {
  std::vector<std::pair<std::string, dev_t>> out;
  std::error_code ec;
  auto canon = fs::weakly_canonical(path, ec);
  for (const auto& name : sys.list("/sys/block")) {
    if (name.rfind("loop", 0) != 0) continue;
    auto backing = sys.read(fs::path("/sys/block") / name / "loop/backing_file");
    if (!backing || backing->empty() || fs::path(*backing) != canon) continue;
    auto text = sys.read(fs::path("/sys/block") / name / "dev");
    if (auto d = text ? parse_dev(*text) : std::nullopt) out.emplace_back(name, *d);
  }
  return out;
}

void device_refusals(const std::string& name, dev_t d, const SysReader& sys, std::vector<std::string>& why) {
  for (const auto& m : mounts_of(d, sys)) why.push_back(fmt::format("{} is mounted at {}", name, m));
  auto dir = sysfs_dir(d, sys);
  if (!dir) return;
  for (const auto& [pname, pdev] : partitions_of(*dir, sys)) {
    for (const auto& m : mounts_of(pdev, sys))
      why.push_back(fmt::format("its partition {} is mounted at {}", pname, m));
  }
  for (const auto& h : sys.list(*dir / "holders")) {
    why.push_back(h.rfind("md", 0) == 0 ? fmt::format("{} is a RAID member (of {})", name, h)
                                        : fmt::format("{} is held by {} (device-mapper or md)", name, h));
  }
}

#if MLBENCH_HAS_BLKID
struct ProbeDeleter {
  void operator()(blkid_struct_probe* p) const { blkid_free_probe(p); }
};
#endif

void signature_refusals(const std::string& path, std::vector<std::string>& why) {
#if MLBENCH_HAS_BLKID
  std::unique_ptr<blkid_struct_probe, ProbeDeleter> pr(blkid_new_probe_from_filename(path.c_str()));
  if (!pr) {
    why.push_back(fmt::format("libblkid cannot open {} to look for signatures", path));
    return;
  }
  blkid_probe_enable_superblocks(pr.get(), 1);
  blkid_probe_set_superblocks_flags(pr.get(), BLKID_SUBLKS_TYPE);
  blkid_probe_enable_partitions(pr.get(), 1);
  int rc = blkid_do_safeprobe(pr.get());
  if (rc == -2) {
    why.push_back("it holds several conflicting signatures (libblkid)");
  } else if (rc < 0) {
    why.push_back("libblkid could not probe it for signatures");
  } else if (rc == 0) {
    const char* value = nullptr;
    if (blkid_probe_lookup_value(pr.get(), "TYPE", &value, nullptr) == 0 && value != nullptr) {
      std::string type = value;
      why.push_back(type == "linux_raid_member" ? "it is a RAID member (linux_raid_member signature)"
                                                : fmt::format("it holds a {} filesystem signature", type));
    }
    if (blkid_probe_lookup_value(pr.get(), "PTTYPE", &value, nullptr) == 0 && value != nullptr)
      why.push_back(fmt::format("it holds a {} partition table", value));
  }
#else
  why.push_back(
      fmt::format("this mlbench was built without libblkid and cannot check {} for signatures", path));
#endif
}

[[noreturn]] void throw_io(const std::string& what, const std::string& path, int err) {
  std::string hint;
  if (err == ENOSPC) hint = "; the filesystem is full: use a smaller --size or another folder";
  if (err == EINVAL) hint = "; the filesystem may not support O_DIRECT: try --no-direct";
  throw Error(fmt::format("{} {}: {} ({}){}", what, path, std::strerror(err),
                          err == ENOSPC ? "ENOSPC" : (err == EIO ? "EIO" : fmt::format("errno {}", err)),
                          hint));
}

}  // namespace

std::string disk_of_dev(dev_t dev, const SysReader& sys) {
  if (major(dev) == 0) return "";
  auto dir = sysfs_dir(dev, sys);
  if (!dir) return "";
  if (sys.exists(*dir / "partition")) dir = dir->parent_path();
  return dir->filename().string();
}

std::vector<std::string> block_device_refusals(const std::string& path, dev_t dev, const SysReader& sys) {
  std::vector<std::string> why;
  device_refusals(path, dev, sys, why);
  // The kernel's name for it, which mdstat uses; the path's own name when sysfs has no folder for it.
  auto dir = sysfs_dir(dev, sys);
  const std::string name = (dir ? *dir : fs::path(path)).filename().string();
  if (auto mdstat = sys.read("/proc/mdstat")) {
    for (const auto& array : parse_mdstat(*mdstat)) {
      if (std::find(array.members.begin(), array.members.end(), name) != array.members.end())
        why.push_back(fmt::format("it is listed as a RAID member in /proc/mdstat: {}", array.line));
    }
  }
  return why;
}

TargetInfo inspect_target(const std::string& path) {
  const SysReader sys;
  struct stat st {};
  TargetInfo t;
  t.path = path;
  // The folder mlbench creates its test file in: the target, or a new file's parent.
  auto writable_folder = [&](const std::string& folder, const struct stat& fst) {
    // mlbench creates its test file there, whatever --rw is: refused now rather than failed mid-run.
    if (::access(folder.c_str(), W_OK) != 0) {
      throw UsageError(
          fmt::format("--target {}: folder {}is not writable ({}); mlbench creates its test file "
                      "there: give a writable folder",
                      path, folder == path ? "" : folder + " ", std::strerror(errno)));
    }
    t.disk = disk_of_dev(fst.st_dev, sys);
    struct statvfs vfs {};
    if (::statvfs(folder.c_str(), &vfs) == 0) t.free_bytes = std::uint64_t{vfs.f_bavail} * vfs.f_frsize;
  };
  if (::stat(path.c_str(), &st) != 0) {
    const int e = errno;
    // fio's --filename habit: a file that does not exist yet, in a folder that does, is mlbench's to create.
    const fs::path parent = fs::path(path).has_parent_path() ? fs::path(path).parent_path() : fs::path(".");
    struct stat pst {};
    if (e == ENOENT && !path.ends_with('/') && ::stat(parent.c_str(), &pst) == 0 && S_ISDIR(pst.st_mode)) {
      t.kind = TargetKind::new_file;
      writable_folder(parent.string(), pst);
      t.logical_block = logical_block_of(t.disk, sys);
      return t;
    }
    throw UsageError(
        fmt::format("--target {}: {}; give an existing folder (mlbench creates a file there), file or "
                    "block device, or a new file's path in an existing folder",
                    path, std::strerror(e)));
  }
  if (S_ISDIR(st.st_mode)) {
    t.kind = TargetKind::folder;
    writable_folder(path, st);
  } else if (S_ISREG(st.st_mode)) {
    t.kind = TargetKind::file;
    t.capacity = static_cast<std::uint64_t>(st.st_size);
    t.disk = disk_of_dev(st.st_dev, sys);
  } else if (S_ISBLK(st.st_mode)) {
    t.kind = TargetKind::block_device;
    t.disk = disk_of_dev(st.st_rdev, sys);
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw UsageError(fmt::format("--target {}: cannot open: {}", path, std::strerror(errno)));
    std::uint64_t bytes = 0;
    int rc = ::ioctl(fd, BLKGETSIZE64, &bytes);
    int lbs = 512;
    if (::ioctl(fd, BLKSSZGET, &lbs) == 0) t.logical_block = static_cast<std::uint32_t>(lbs);
    ::close(fd);
    if (rc != 0) throw UsageError(fmt::format("--target {}: cannot read the device size", path));
    t.capacity = bytes;
    return t;
  } else {
    throw UsageError(fmt::format("--target {}: not a folder, regular file or block device", path));
  }
  t.logical_block = logical_block_of(t.disk, sys);
  return t;
}

std::vector<std::string> write_refusals(const TargetInfo& t) {
  const SysReader sys;
  std::vector<std::string> why;
  if (t.kind == TargetKind::block_device) {
    struct stat st {};
    if (::stat(t.path.c_str(), &st) != 0) return {fmt::format("cannot stat {}", t.path)};
    why = block_device_refusals(t.path, st.st_rdev, sys);
  } else if (t.kind == TargetKind::file) {
    for (const auto& [name, d] : loops_backed_by(t.path, sys)) {
      why.push_back(fmt::format("it backs loop device /dev/{}", name));
      device_refusals("/dev/" + name, d, sys, why);
    }
  }
  if (!creates_file(t.kind)) signature_refusals(t.path, why);
  return why;
}

OpenTarget OpenTarget::open_existing(const TargetInfo& t, bool write, bool direct) {
  int flags = (write ? O_RDWR : O_RDONLY) | O_CLOEXEC | (direct ? O_DIRECT : 0);
  int fd = ::open(t.path.c_str(), flags);
  if (fd < 0) throw_io("opening", t.path, errno);
  return OpenTarget(fd, t.path, false, true, t.capacity);
}

std::vector<std::string> remove_stale_scratch(const std::string& folder) {
  std::vector<std::string> removed;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    const std::string name = entry.path().filename().string();
    const pid_t pid = owner_pid(name, kScratchPrefix);
    if (!owner_gone(pid) || !entry.is_regular_file(ec)) continue;
    const int fd = ::open(entry.path().c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) continue;
    const bool unlocked = take_owner_lock(fd);
    struct stat st {};
    const bool sized = ::fstat(fd, &st) == 0;
    if (unlocked && ::unlink(entry.path().c_str()) == 0) {
      removed.push_back(sized ? fmt::format("{} ({})", name, format_bytes(static_cast<double>(st.st_size)))
                              : name);
    }
    ::close(fd);
  }
  return removed;
}

OpenTarget OpenTarget::create_in(const TargetInfo& t, std::uint64_t size, std::uint64_t fill_seed,
                                 bool direct, bool keep, const std::atomic<bool>& stop) {
  std::string tmpl =
      (fs::path(t.path) / fmt::format("{}{}{}-XXXXXX", kScratchPrefix, keep ? "kept-" : "", ::getpid()))
          .string();
  int fd = ::mkostemp(tmpl.data(), O_CLOEXEC);
  if (fd < 0) throw_io("creating a test file in", t.path, errno);
  // From here the destructor removes the file on every way out (error, interrupt, success without --keep).
  OpenTarget out(fd, tmpl, true, keep, size);
  out.fill(fill_seed, direct, stop);
  return out;
}

OpenTarget OpenTarget::create_at(const TargetInfo& t, std::uint64_t size, std::uint64_t fill_seed,
                                 bool direct, bool keep, const std::atomic<bool>& stop) {
  int fd = ::open(t.path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    if (errno == EEXIST)
      throw Error(
          fmt::format("creating the test file {}: it appeared after the run was planned; run again "
                      "to use it as an existing file",
                      t.path));
    throw_io("creating the test file", t.path, errno);
  }
  OpenTarget out(fd, t.path, true, keep, size);
  out.fill(fill_seed, direct, stop);
  return out;
}

void OpenTarget::fill(std::uint64_t fill_seed, bool direct, const std::atomic<bool>& stop) {
  if (direct) {
    int dfd = ::open(path_.c_str(), O_RDWR | O_CLOEXEC | O_DIRECT);
    if (dfd < 0) throw_io("opening with O_DIRECT", path_, errno);
    ::close(fd_);
    fd_ = dfd;
  }
  // Held until the file is closed: tells remove_stale_scratch in another mlbench that this one is alive. On a
  // filesystem without flock (some NFS mounts) nobody can take the lock either, so no one removes the file.
  take_owner_lock(fd_);
  int rc = ::posix_fallocate(fd_, 0, static_cast<off_t>(size_));
  if (rc != 0 && rc != EOPNOTSUPP) throw_io("allocating the test file", path_, rc);

  constexpr std::size_t kChunk = 4u << 20;
  AlignedBuffer buf(kChunk, AlignedBuffer::Pages::huge);
  for (std::uint64_t off = 0; off < size_; off += kChunk) {
    if (stop.load(std::memory_order_relaxed)) throw Interrupted();
    std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, size_ - off));
    fill_pattern(buf.span().first(n), fill_seed, off);
    std::size_t done = 0;
    while (done < n) {
      ssize_t w = ::pwrite(fd_, buf.data() + done, n - done, static_cast<off_t>(off + done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) throw_io("filling the test file", path_, errno);
      if (w == 0) throw_io("filling the test file", path_, ENOSPC);
      done += static_cast<std::size_t>(w);
    }
  }
  if (::fdatasync(fd_) != 0) throw_io("syncing the test file", path_, errno);
  // Drop what buffered writes left in the page cache, so that --no-direct reads start cold.
  ::posix_fadvise(fd_, 0, 0, POSIX_FADV_DONTNEED);
}

OpenTarget::OpenTarget(OpenTarget&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)),
      path_(std::move(o.path_)),
      created_(o.created_),
      keep_(o.keep_),
      size_(o.size_) {
  o.created_ = false;
}

OpenTarget::~OpenTarget() {
  if (fd_ >= 0) ::close(fd_);
  if (created_ && !keep_) ::unlink(path_.c_str());
}

}  // namespace mlbench::storage
