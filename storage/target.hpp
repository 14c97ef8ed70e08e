// Targets of a storage job: what a path is, whether mlbench may write to it, and the RAII handles that open
// (and, for folders, create, fill and remove) them.
//
// Safety rules: a folder gets a new file that mlbench creates (O_EXCL), fills with random data and removes
// unless --keep. A path that does not exist yet in an existing folder (fio's --filename habit) is the same:
// mlbench's own scratch file under that name, created, filled and removed unless --keep; unlike the folder's
// hidden scratch files it is not recognised as stale after a killed run (its name is the user's), and the
// next run finds it as an existing file. Writing to an existing file or a block device needs
// --allow-destructive, and is refused even then when the device (or, for a file, the loop device it backs) is
// mounted, holds a filesystem or partition-table signature (libblkid), is a RAID member or is held by another
// device (device-mapper, md). Reads of existing files and block devices are allowed and open them read-only.
//
// Planning and opening are apart (a run plans every case first), so a path can change in between. Planning
// resolves symbolic links once (a /dev/disk/by-id link names its device) and records what it found: the kind,
// and the device and inode of the file or folder, or the block device's number (TargetInfo). Opening confirms
// that on the descriptor, never on the path again: the resolved path is opened O_PATH | O_NOFOLLOW (nothing
// is opened for I/O, so a character device swapped in cannot react to an open), fstat'ed and compared with
// the plan, and only then reopened for I/O through /proc/self/fd, which names that very inode. Files mlbench
// creates are made with openat(folder, name, O_CREAT | O_EXCL | O_NOFOLLOW) in the folder the plan saw, and
// removed with unlinkat only while that name still holds the file it made. The write refusals look at the
// opened descriptor too: its fstat, its device and inode against every loop device's backing file
// (LOOP_GET_STATUS64), its device number against the mounts, libblkid on the descriptor, and a block device
// opened for writing with O_EXCL, which the kernel refuses (EBUSY) while it is mounted or held.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/sysinfo_reader.hpp"

namespace mlbench::storage {

enum class TargetKind { folder, file, block_device, new_file };
// Whether mlbench creates (and owns) the file it runs on: a folder's scratch file or a new file's path.
inline bool creates_file(TargetKind k) { return k == TargetKind::folder || k == TargetKind::new_file; }

struct TargetInfo {
  std::string path;      // as the user gave it, for messages
  std::string resolved;  // what mlbench opens, symbolic links resolved: the file, device or folder (a new
                         // file's: its folder; the file's name is path's)
  TargetKind kind = TargetKind::folder;
  // What planning found, which opening confirms on the descriptor: the device and inode of the file or folder
  // (a new file's: its folder's), or a block device's number (ino 0).
  std::uint64_t dev = 0, ino = 0;
  std::uint64_t capacity = 0;         // bytes of an existing file or device; 0 for a folder or new file
  std::uint32_t logical_block = 512;  // O_DIRECT alignment
  std::string disk;                   // the /sys/block disk holding it ("nvme0n1", "vda"); empty if unknown
  std::uint64_t free_bytes = 0;       // free space of the filesystem of a folder (or a new file's folder)
};

// Throws UsageError when the path is empty, a dangling symbolic link, not a folder, regular file or block
// device, nor a new file's path in an existing writable folder.
TargetInfo inspect_target(const std::string& path);

// A planned target carried in a case's config (Case::config) from plan() to the run, and back.
nlohmann::json to_json(const TargetInfo& t);
TargetInfo target_from_json(const nlohmann::json& j);

// Why writing to this existing file or block device must be refused even with --allow-destructive: each
// finding in words ("mounted at /mnt", "holds an ext4 filesystem signature", "is a RAID member (md0)"). Opens
// the target read-only as OpenTarget does (throws Error when it changed since `t` was planned) and looks at
// that descriptor; OpenTarget::open_existing checks again on the descriptor it writes through.
std::vector<std::string> write_refusals(const TargetInfo& t);

// What /sys and /proc, read through `sys`, say against writing to block device `dev` (shown as `path`): it or
// one of its partitions is mounted, another device holds it (md, device-mapper), /proc/mdstat lists it as a
// member. write_refusals adds the signature check; tests run this on the fixture tree tests/data/sysfs.
std::vector<std::string> block_device_refusals(const std::string& path, dev_t dev, const SysReader& sys);

// The disk holding device `dev` (a partition walks up to its disk), or "" when it is not a block device.
std::string disk_of_dev(dev_t dev, const SysReader& sys);

// Scratch files mlbench creates in a folder are named ".mlbench-io-<pid>-XXXXXX" and locked (flock) by
// their process while open; with --keep, ".mlbench-io-kept-<pid>-XXXXXX", which are never stale. A scratch
// file whose PID no longer exists and whose lock nobody holds was left by a killed run (SIGKILL, power
// loss): removes those in `folder` and returns one "NAME (SIZE)" each. A live PID keeps its file whatever
// process it now is, and so does a lock held for 250 ms (a live mlbench, also one in another PID namespace);
// `stop` cuts that wait short. Each file is opened and removed by name in the folder's descriptor, and only
// while the name still holds the file that was checked.
std::vector<std::string> remove_stale_scratch(const std::string& folder, const std::atomic<bool>& stop);

// An open target. A created file is unlinked by the destructor unless keep is set.
class OpenTarget {
 public:
  // Opens an existing file or device (read-only unless `write`), once it is confirmed to be what `t` planned
  // and, to write, that write_refusals has nothing against the opened descriptor (Error otherwise).
  static OpenTarget open_existing(const TargetInfo& t, bool write, bool direct);
  // Creates a new file in folder t.path, allocates `size` bytes and fills them with the pattern of
  // `fill_seed` (ENOSPC and EIO end with a clear error, the file removed). Honours `stop` between chunks.
  static OpenTarget create_in(const TargetInfo& t, std::uint64_t size, std::uint64_t fill_seed, bool direct,
                              bool keep, const std::atomic<bool>& stop);
  // The same for a new file's path (TargetKind::new_file): created with O_EXCL under that name; a file there
  // (or a link) that appeared after planning is an Error and left alone.
  static OpenTarget create_at(const TargetInfo& t, std::uint64_t size, std::uint64_t fill_seed, bool direct,
                              bool keep, const std::atomic<bool>& stop);

  OpenTarget(OpenTarget&& o) noexcept;
  OpenTarget& operator=(OpenTarget&&) = delete;
  OpenTarget(const OpenTarget&) = delete;
  ~OpenTarget();

  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  bool created() const { return created_; }
  std::uint64_t size() const { return size_; }

 private:
  OpenTarget(int fd, std::string path, bool created, bool keep, std::uint64_t size)
      : fd_(fd), path_(std::move(path)), created_(created), keep_(keep), size_(size) {}
  // A file created by name `name` in folder `dirfd` (O_PATH, confirmed; owned from here on), which the
  // destructor removes; nullopt when the name is taken.
  static std::optional<OpenTarget> create(int dirfd, const std::string& name, std::string path,
                                          std::uint64_t size, std::uint64_t fill_seed, bool direct, bool keep,
                                          const std::atomic<bool>& stop);
  // A file just created: O_DIRECT set when asked, locked, allocated and filled.
  void fill(std::uint64_t fill_seed, bool direct, const std::atomic<bool>& stop);
  int fd_ = -1;
  int dirfd_ = -1;    // a created file's folder, O_PATH
  std::string name_;  // a created file's name in it
  std::string path_;
  bool created_ = false, keep_ = false;
  std::uint64_t size_ = 0;
};

}  // namespace mlbench::storage
