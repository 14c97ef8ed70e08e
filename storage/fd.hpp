// A move-only owner of a file descriptor, for the code that walks and changes folders through descriptors
// (openat, unlinkat relative to a folder mlbench opened once) instead of paths.
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <string>
#include <utility>
#include <vector>

namespace mlbench::storage {

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(o.release()) {}
  Fd& operator=(Fd&& o) noexcept {
    std::swap(fd_, o.fd_);
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }
  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_;
};

// The folder `name` in the folder of `at`, never through a link (an invalid Fd, errno set, otherwise).
Fd open_folder_at(int at, const std::string& name);
// The names in the folder of `fd` (without "." and ".."); empty when it cannot be read.
std::vector<std::string> names_in(int fd);
// The file type (S_IFREG, S_IFDIR, S_IFLNK...) of `name` itself in the folder of `at`; 0 when there is none.
mode_t type_at(int at, const std::string& name);
// The size of the regular file `name` in the folder of `at` (0 when it is not one), for messages.
off_t size_at(int at, const std::string& name);
// Removes `name` from the folder of `at` when it is a regular file (an unlink never follows a link); true
// when removed.
bool remove_file_at(int at, const std::string& name);

}  // namespace mlbench::storage
