#include "storage/fd.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <string_view>

namespace mlbench::storage {

Fd open_folder_at(int at, const std::string& name) {
  return Fd(::openat(at, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
}

std::vector<std::string> names_in(int fd) {
  std::vector<std::string> out;
  const int dup = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (dup < 0) return out;
  DIR* d = ::fdopendir(dup);
  if (d == nullptr) {
    ::close(dup);
    return out;
  }
  ::rewinddir(d);  // the duplicate shares the offset of an earlier listing
  while (const dirent* e = ::readdir(d)) {
    const std::string_view n = e->d_name;
    if (n != "." && n != "..") out.emplace_back(n);
  }
  ::closedir(d);
  return out;
}

mode_t type_at(int at, const std::string& name) {
  struct stat st {};
  return ::fstatat(at, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 ? (st.st_mode & S_IFMT) : 0;
}

off_t size_at(int at, const std::string& name) {
  struct stat st {};
  return ::fstatat(at, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) ? st.st_size : 0;
}

bool remove_file_at(int at, const std::string& name) {
  return type_at(at, name) == S_IFREG && ::unlinkat(at, name.c_str(), 0) == 0;
}

}  // namespace mlbench::storage
