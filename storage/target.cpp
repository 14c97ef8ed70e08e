#include "storage/target.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <linux/loop.h>
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
#include <random>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"
#include "base/units.hpp"
#include "bench/sysinfo.hpp"
#include "mlbench_config.hpp"
#include "storage/buffer.hpp"
#include "storage/fd.hpp"
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

// A failed open, with its errno.
struct OpenError : Error {
  OpenError(const std::string& what, int e) : Error(what), err(e) {}
  int err;
};

// `pfd` reopened with `flags` (base/owned_fd.hpp: the very inode looked at, whatever its path names now);
// OpenError naming `shown` otherwise.
Fd reopen(const Fd& pfd, int flags, const std::string& shown) {
  Fd fd = mlbench::reopen(pfd.get(), flags);
  if (!fd) {
    const int e = errno;
    throw OpenError(fmt::format("opening {}: {}{}", shown, std::strerror(e), reopen_hint(e)), e);
  }
  return fd;
}

// How `st` (the fstat of what was opened as `t`) differs from what planning found; "" when it is the same.
std::string difference(const TargetInfo& t, const struct stat& st) {
  const bool folder = t.kind == TargetKind::folder || t.kind == TargetKind::new_file;
  const bool type_ok =
      folder ? S_ISDIR(st.st_mode) : (t.kind == TargetKind::file ? S_ISREG(st.st_mode) : S_ISBLK(st.st_mode));
  if (!type_ok) {
    return fmt::format("it was {} and is {} now",
                       file_type_name(folder ? S_IFDIR : (t.kind == TargetKind::file ? S_IFREG : S_IFBLK)),
                       file_type_name(st.st_mode));
  }
  if (t.kind == TargetKind::block_device) {
    return st.st_rdev == t.dev
               ? ""
               : fmt::format("it was device {} and is device {} now", dev_name(t.dev), dev_name(st.st_rdev));
  }
  if (st.st_dev != t.dev || st.st_ino != t.ino)
    return "another file or folder is there now (its inode differs)";
  if (t.kind == TargetKind::file && static_cast<std::uint64_t>(st.st_size) != t.capacity)
    return fmt::format("its size went from {} B to {} B", t.capacity, st.st_size);
  return "";
}

// `t.resolved` opened O_PATH | O_NOFOLLOW (no I/O open, so nothing reacts to it) and confirmed to be what
// planning found; an Error naming the change otherwise.
Fd open_confirmed(const TargetInfo& t) {
  const bool folder = t.kind == TargetKind::folder || t.kind == TargetKind::new_file;
  const std::string& shown = t.kind == TargetKind::new_file ? t.resolved : t.path;
  Fd pfd(::open(t.resolved.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  if (pfd.get() < 0 || ::fstat(pfd.get(), &st) != 0) {
    const int e = errno;
    throw Error(fmt::format("{} {}: {} after the run was planned; mlbench leaves it alone: run again",
                            folder ? "folder" : "target", shown,
                            e == ENOENT ? "it went away" : std::strerror(e)));
  }
  if (auto why = difference(t, st); !why.empty()) {
    throw Error(
        fmt::format("{} {} changed after the run was planned ({}); mlbench leaves it alone: check "
                    "what is there and run again",
                    folder ? "folder" : "target", shown, why));
  }
  return pfd;
}

// The loop devices whose backing file is device `dev`, inode `ino`: LOOP_GET_STATUS64 of /dev/loopN names it
// by number (a hard link or a bind-mount path is the same inode; a backing file since renamed or unlinked
// too). Without the device node, the path in /sys/block/loopN/loop/backing_file, stat'ed.
std::vector<std::pair<std::string, dev_t>> loops_backed_by(dev_t dev, ino_t ino, const SysReader& sys) {
  std::vector<std::pair<std::string, dev_t>> out;
  for (const auto& name : sys.list("/sys/block")) {
    if (name.rfind("loop", 0) != 0) continue;
    auto text = sys.read(fs::path("/sys/block") / name / "dev");
    auto loop_dev = text ? parse_dev(*text) : std::nullopt;
    if (!loop_dev) continue;
    std::optional<std::pair<std::uint64_t, std::uint64_t>> backing;
    const std::string node = "/dev/" + name;
    Fd pfd(::open(node.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    struct stat nst {};
    if (pfd.get() >= 0 && ::fstat(pfd.get(), &nst) == 0 && S_ISBLK(nst.st_mode) && nst.st_rdev == *loop_dev) {
      try {
        Fd fd = reopen(pfd, O_RDONLY | O_NONBLOCK, node);
        loop_info64 info{};
        if (::ioctl(fd.get(), LOOP_GET_STATUS64, &info) == 0)
          backing.emplace(info.lo_device, info.lo_inode);
        else if (errno == ENXIO)
          continue;             // no backing file: not attached
      } catch (const Error&) {  // a node that does not open: its sysfs path below
      }
    }
    if (!backing) {
      auto path = sys.read(fs::path("/sys/block") / name / "loop/backing_file");
      struct stat bst {};
      if (path && !path->empty() && !path->ends_with(" (deleted)") && ::stat(path->c_str(), &bst) == 0)
        backing.emplace(bst.st_dev, bst.st_ino);
    }
    if (backing && backing->first == dev && backing->second == ino) out.emplace_back(name, *loop_dev);
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

// libblkid's findings on the opened descriptor `fd` (not O_DIRECT: libblkid reads unaligned).
void signature_refusals(const std::string& path, int fd, std::vector<std::string>& why) {
#if MLBENCH_HAS_BLKID
  std::unique_ptr<blkid_struct_probe, ProbeDeleter> pr(blkid_new_probe());
  if (!pr || blkid_probe_set_device(pr.get(), fd, 0, 0) != 0) {
    why.push_back(fmt::format("libblkid cannot probe {} for signatures", path));
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
  (void)fd;
  why.push_back(
      fmt::format("this mlbench was built without libblkid and cannot check {} for signatures", path));
#endif
}

// write_refusals on `fd`, the opened target `t` (confirmed to be what planning found).
std::vector<std::string> refusals_of(const TargetInfo& t, int fd) {
  const SysReader sys;
  std::vector<std::string> why;
  struct stat st {};
  if (::fstat(fd, &st) != 0) return {fmt::format("cannot fstat {}: {}", t.path, std::strerror(errno))};
  if (S_ISBLK(st.st_mode)) {
    why = block_device_refusals(t.path, st.st_rdev, sys);
  } else if (S_ISREG(st.st_mode)) {
    for (const auto& [name, d] : loops_backed_by(st.st_dev, st.st_ino, sys)) {
      why.push_back(fmt::format("it backs loop device /dev/{}", name));
      device_refusals("/dev/" + name, d, sys, why);
    }
  }
  signature_refusals(t.path, fd, why);
  return why;
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
  TargetInfo t;
  t.path = path;
  const std::string kinds =
      "give an existing folder (mlbench creates a file there), file or block device, or a new file's path in "
      "an existing folder";
  if (path.empty()) throw UsageError(fmt::format("--target is an empty path; {}", kinds));
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
  // Symbolic links are resolved once, here; the run opens the resolved path and confirms what it opened.
  auto resolve = [](const std::string& p) -> std::optional<std::string> {
    std::unique_ptr<char, decltype(&std::free)> r(::realpath(p.c_str(), nullptr), &std::free);
    return r ? std::optional<std::string>(r.get()) : std::nullopt;
  };
  struct stat lst {};
  if (::lstat(path.c_str(), &lst) != 0) {
    const int e = errno;
    // fio's --filename habit: a file that does not exist yet, in a folder that does, is mlbench's to create.
    const fs::path parent = fs::path(path).has_parent_path() ? fs::path(path).parent_path() : fs::path(".");
    auto folder = e == ENOENT && !path.ends_with('/') ? resolve(parent.string()) : std::nullopt;
    struct stat pst {};
    if (folder && ::stat(folder->c_str(), &pst) == 0 && S_ISDIR(pst.st_mode)) {
      t.kind = TargetKind::new_file;
      t.resolved = *folder;
      t.dev = pst.st_dev;
      t.ino = pst.st_ino;
      writable_folder(*folder, pst);
      t.logical_block = logical_block_of(t.disk, sys);
      return t;
    }
    throw UsageError(fmt::format("--target {}: {}; {}", path, std::strerror(e), kinds));
  }
  auto resolved = resolve(path);
  if (!resolved && S_ISLNK(lst.st_mode)) {
    const int e = errno;
    // What it leads to, quoted and escaped: another user may have written it, and the message is one line.
    std::string to(PATH_MAX, '\0');
    const ssize_t n = ::readlink(path.c_str(), to.data(), to.size());
    to.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    if (e == ENOENT) {
      throw UsageError(fmt::format(
          "--target {} is a symbolic link to {:?}, which does not exist (a dangling link); mlbench "
          "creates no file through a link: give the path it should have, or remove the link",
          path, to));
    }
    throw UsageError(
        fmt::format("--target {} is a symbolic link to {:?} that does not resolve ({}); give the "
                    "path it should lead to",
                    path, to, std::strerror(e)));
  }
  t.resolved = resolved.value_or(path);
  Fd pfd(::open(t.resolved.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  if (pfd.get() < 0 || ::fstat(pfd.get(), &st) != 0)
    throw UsageError(fmt::format("--target {}: {}; {}", path, std::strerror(errno), kinds));
  t.dev = st.st_dev;
  t.ino = st.st_ino;
  if (S_ISDIR(st.st_mode)) {
    t.kind = TargetKind::folder;
    writable_folder(t.resolved, st);
  } else if (S_ISREG(st.st_mode)) {
    t.kind = TargetKind::file;
    t.capacity = static_cast<std::uint64_t>(st.st_size);
    t.disk = disk_of_dev(st.st_dev, sys);
  } else if (S_ISBLK(st.st_mode)) {
    t.kind = TargetKind::block_device;
    t.dev = st.st_rdev;
    t.ino = 0;
    t.disk = disk_of_dev(st.st_rdev, sys);
    Fd fd;
    try {
      fd = reopen(pfd, O_RDONLY, path);
    } catch (const Error& e) {
      throw UsageError(fmt::format("--target {}: cannot open: {}", path, e.what()));
    }
    std::uint64_t bytes = 0;
    int lbs = 512;
    if (::ioctl(fd.get(), BLKSSZGET, &lbs) == 0) t.logical_block = static_cast<std::uint32_t>(lbs);
    if (::ioctl(fd.get(), BLKGETSIZE64, &bytes) != 0)
      throw UsageError(fmt::format("--target {}: cannot read the device size", path));
    t.capacity = bytes;
    return t;
  } else {
    throw UsageError(fmt::format("--target {}: not a folder, regular file or block device", path));
  }
  t.logical_block = logical_block_of(t.disk, sys);
  return t;
}

namespace {
constexpr std::string_view kKindNames[] = {"folder", "file", "block_device", "new_file"};
}  // namespace

nlohmann::json to_json(const TargetInfo& t) {
  return {{"path", t.path},
          {"resolved", t.resolved},
          {"kind", kKindNames[static_cast<std::size_t>(t.kind)]},
          {"dev", t.dev},
          {"ino", t.ino},
          {"capacity", t.capacity},
          {"logical_block", t.logical_block},
          {"disk", t.disk},
          {"free_bytes", t.free_bytes}};
}

TargetInfo target_from_json(const nlohmann::json& j) {
  TargetInfo t;
  t.path = j.at("path").get<std::string>();
  t.resolved = j.at("resolved").get<std::string>();
  const auto kind = j.at("kind").get<std::string>();
  const auto* k = std::find(std::begin(kKindNames), std::end(kKindNames), kind);
  if (k == std::end(kKindNames)) throw Error(fmt::format("unknown target kind '{}'", kind));
  t.kind = static_cast<TargetKind>(k - std::begin(kKindNames));
  t.dev = j.at("dev").get<std::uint64_t>();
  t.ino = j.at("ino").get<std::uint64_t>();
  t.capacity = j.at("capacity").get<std::uint64_t>();
  t.logical_block = j.at("logical_block").get<std::uint32_t>();
  t.disk = j.at("disk").get<std::string>();
  t.free_bytes = j.at("free_bytes").get<std::uint64_t>();
  return t;
}

namespace {

constexpr std::string_view kInUse =
    "the kernel reports it in use (mounted, in this or another mount namespace, or held by md or "
    "device-mapper)";

// `pfd` reopened with `access`, a block device exclusively (O_EXCL): the kernel refuses that (EBUSY) while it
// is mounted in any mount namespace or held (md, device-mapper), and nobody can mount it while mlbench holds
// it. No descriptor when it is in use.
std::optional<Fd> open_unless_in_use(const Fd& pfd, const TargetInfo& t, int access) {
  const bool device = t.kind == TargetKind::block_device;
  try {
    return reopen(pfd, access | (device ? O_EXCL : 0), t.path);
  } catch (const OpenError& e) {
    if (device && e.err == EBUSY) return std::nullopt;
    throw;
  }
}

}  // namespace

std::vector<std::string> write_refusals(const TargetInfo& t) {
  if (creates_file(t.kind)) return {};
  const Fd pfd = open_confirmed(t);
  if (auto fd = open_unless_in_use(pfd, t, O_RDONLY)) return refusals_of(t, fd->get());
  auto why = refusals_of(t, reopen(pfd, O_RDONLY, t.path).get());  // what else there is to say
  why.insert(why.begin(), std::string(kInUse));
  return why;
}

OpenTarget OpenTarget::open_existing(const TargetInfo& t, bool write, bool direct) {
  const Fd pfd = open_confirmed(t);
  std::optional<Fd> fd = write ? open_unless_in_use(pfd, t, O_RDWR) : reopen(pfd, O_RDONLY, t.path);
  if (!fd) throw Error(fmt::format("refusing to write to {}: {}", t.path, kInUse));
  if (t.kind == TargetKind::block_device) {
    std::uint64_t bytes = 0;
    if (::ioctl(fd->get(), BLKGETSIZE64, &bytes) != 0 || bytes != t.capacity)
      throw Error(
          fmt::format("target {} changed after the run was planned (its size went from {} B to {} B); "
                      "mlbench leaves it alone: check what is there and run again",
                      t.path, t.capacity, bytes));
  }
  if (write) {
    if (auto why = refusals_of(t, fd->get()); !why.empty())
      throw Error(fmt::format("refusing to write to {}: {}", t.path, fmt::join(why, "; ")));
  }
  if (direct) {
    const int fl = ::fcntl(fd->get(), F_GETFL);
    if (fl < 0 || ::fcntl(fd->get(), F_SETFL, fl | O_DIRECT) != 0) throw_io("opening", t.path, errno);
  }
  return OpenTarget(fd->release(), t.path, false, true, t.capacity);
}

std::vector<std::string> remove_stale_scratch(const std::string& folder, const std::atomic<bool>& stop) {
  std::vector<std::string> removed;
  const Fd dir(::open(folder.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() < 0) return removed;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    const std::string name = entry.path().filename().string();
    if (!owner_gone(owner_pid(name, kScratchPrefix))) continue;
    // O_NONBLOCK: a FIFO by that name does not hang the open; anything but a regular file is left alone.
    const Fd fd(::openat(dir.get(), name.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
    struct stat st {};
    if (fd.get() < 0 || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    struct stat now {};
    if (take_reclaim_lock(fd.get(), stop) &&
        ::fstatat(dir.get(), name.c_str(), &now, AT_SYMLINK_NOFOLLOW) == 0 && now.st_dev == st.st_dev &&
        now.st_ino == st.st_ino && ::unlinkat(dir.get(), name.c_str(), 0) == 0)
      removed.push_back(fmt::format("{} ({})", name, format_bytes(static_cast<double>(st.st_size))));
  }
  return removed;
}

std::optional<OpenTarget> OpenTarget::create(int dirfd, const std::string& name, std::string path,
                                             std::uint64_t size, std::uint64_t fill_seed, bool direct,
                                             bool keep, const std::atomic<bool>& stop) {
  Fd dir(dirfd);
  int fd = ::openat(dir.get(), name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    if (errno == EEXIST) return std::nullopt;
    throw_io("creating the test file", path, errno);
  }
  // From here the destructor removes the file on every way out (error, interrupt, success without --keep).
  OpenTarget out(fd, std::move(path), true, keep, size);
  out.dirfd_ = dir.release();
  out.name_ = name;
  out.fill(fill_seed, direct, stop);
  return out;
}

OpenTarget OpenTarget::create_in(const TargetInfo& t, std::uint64_t size, std::uint64_t fill_seed,
                                 bool direct, bool keep, const std::atomic<bool>& stop) {
  // mkostemp's names, made here: the file is created by name in the folder's descriptor.
  constexpr std::string_view kChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  std::random_device rd;
  for (int attempt = 0;; ++attempt) {
    std::string name = fmt::format("{}{}{}-", kScratchPrefix, keep ? "kept-" : "", ::getpid());
    for (int i = 0; i < 6; ++i) name += kChars[rd() % kChars.size()];
    auto out = create(open_confirmed(t).release(), name, (fs::path(t.path) / name).string(), size, fill_seed,
                      direct, keep, stop);
    if (out) return std::move(*out);
    if (attempt == 100) throw_io("creating a test file in", t.path, EEXIST);  // every name taken
  }
}

OpenTarget OpenTarget::create_at(const TargetInfo& t, std::uint64_t size, std::uint64_t fill_seed,
                                 bool direct, bool keep, const std::atomic<bool>& stop) {
  auto out = create(open_confirmed(t).release(), fs::path(t.path).filename().string(), t.path, size,
                    fill_seed, direct, keep, stop);
  if (!out) {
    throw Error(
        fmt::format("creating the test file {}: a file or link by that name appeared after the run was "
                    "planned (the path was new then); mlbench leaves it alone: run again to use it as an "
                    "existing file",
                    t.path));
  }
  return std::move(*out);
}

void OpenTarget::fill(std::uint64_t fill_seed, bool direct, const std::atomic<bool>& stop) {
  if (direct) {
    // Set on this descriptor: a reopen by name could open whatever the name holds by then.
    const int fl = ::fcntl(fd_, F_GETFL);
    if (fl < 0 || ::fcntl(fd_, F_SETFL, fl | O_DIRECT) != 0) throw_io("opening with O_DIRECT", path_, errno);
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
      dirfd_(std::exchange(o.dirfd_, -1)),
      name_(std::move(o.name_)),
      path_(std::move(o.path_)),
      created_(o.created_),
      keep_(o.keep_),
      size_(o.size_) {
  o.created_ = false;
}

OpenTarget::~OpenTarget() {
  // A created file is removed by its name in the folder it was made in, and only while that name still holds
  // it (someone may have renamed it and put their own file there).
  if (created_ && !keep_ && fd_ >= 0 && dirfd_ >= 0) {
    struct stat mine {
    }, there{};
    if (::fstat(fd_, &mine) == 0 && ::fstatat(dirfd_, name_.c_str(), &there, AT_SYMLINK_NOFOLLOW) == 0 &&
        mine.st_dev == there.st_dev && mine.st_ino == there.st_ino)
      ::unlinkat(dirfd_, name_.c_str(), 0);
  }
  if (fd_ >= 0) ::close(fd_);
  if (dirfd_ >= 0) ::close(dirfd_);
}

}  // namespace mlbench::storage
