// Folders walked and changed through descriptors (openat, unlinkat relative to a folder mlbench opened once)
// instead of paths.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "base/owned_fd.hpp"

namespace mlbench::storage {

// The one owner of a descriptor (base/owned_fd.hpp), under the name the storage code uses.
using Fd = OwnedFd;

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
