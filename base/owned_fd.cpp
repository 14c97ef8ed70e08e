#include "base/owned_fd.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <string>

namespace mlbench {

OwnedFd reopen(int pfd, int flags) {
  struct stat want {};
  if (::fstat(pfd, &want) != 0) return OwnedFd();
  OwnedFd fd(::open(("/proc/self/fd/" + std::to_string(pfd)).c_str(), flags | O_CLOEXEC));
  if (!fd) return fd;
  struct stat got {};
  if (::fstat(fd.get(), &got) != 0) return OwnedFd();
  if (got.st_dev != want.st_dev || got.st_ino != want.st_ino) {
    errno = EXDEV;
    return OwnedFd();
  }
  return fd;
}

std::string_view reopen_hint(int err) {
  if (err == ENOENT) return " (/proc/self/fd is missing: mlbench needs /proc mounted)";
  if (err == EXDEV) return " (/proc/self/fd led to another file: is /proc procfs?)";
  return "";
}

std::string_view file_type_name(mode_t m) {
  switch (m & S_IFMT) {
    case S_IFREG:
      return "a regular file";
    case S_IFDIR:
      return "a folder";
    case S_IFLNK:
      return "a symbolic link";
    case S_IFCHR:
      return "a character device";
    case S_IFBLK:
      return "a block device";
    case S_IFIFO:
      return "a FIFO";
    case S_IFSOCK:
      return "a socket";
    default:
      return "an unknown kind of file";
  }
}

}  // namespace mlbench
