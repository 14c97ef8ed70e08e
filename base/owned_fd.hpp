// The one owner of a file descriptor: move-only, closed by its owner's destructor on every path out (errors
// are thrown), and closed when another is moved over it. Also the one way to open again what an O_PATH
// descriptor looked at, and the one way to say in words what kind of file a mode is.
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <string_view>

namespace mlbench {

class OwnedFd {
 public:
  OwnedFd() = default;
  explicit OwnedFd(int fd) : fd_(fd) {}
  ~OwnedFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  OwnedFd(OwnedFd&& o) noexcept : fd_(o.release()) {}
  OwnedFd& operator=(OwnedFd&& o) noexcept {
    if (this != &o) {
      if (fd_ >= 0) ::close(fd_);
      fd_ = o.release();
    }
    return *this;
  }
  OwnedFd(const OwnedFd&) = delete;
  OwnedFd& operator=(const OwnedFd&) = delete;

  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  // Hands the descriptor over (to close it and see close's error), leaving none.
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

// `pfd` (a descriptor from a look, usually O_PATH) opened again with `flags` through /proc/self/fd/N, which
// names that very inode whatever its path names now: what was looked at is what is opened, never what a
// name was swapped to in between. Opening follows the inode's own rules (a FIFO without a reader fails with
// ENXIO under O_WRONLY|O_NONBLOCK, a block device is held under O_EXCL). The descriptor it gives is checked
// to be that inode (device and inode number). An invalid OwnedFd with errno set otherwise: the open's errno,
// or EXDEV when /proc/self/fd led to another inode (a /proc that is not procfs).
OwnedFd reopen(int pfd, int flags);
// What to add to strerror(err) for a failed reopen: why /proc/self/fd let it down (missing, not procfs), or
// "".
std::string_view reopen_hint(int err);

// What sort of file mode `m` is, in words ("a regular file", "a folder", "a FIFO", ...).
std::string_view file_type_name(mode_t m);

}  // namespace mlbench
