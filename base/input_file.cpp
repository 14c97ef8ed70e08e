#include "base/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/owned_fd.hpp"
#include "base/units.hpp"

namespace mlbench {
namespace {

[[noreturn]] void too_large(const std::string& name, const InputLimit& limit) {
  throw UsageError(fmt::format("{}: larger than the {} a {} may be; give a smaller {}", name,
                               format_bytes(static_cast<double>(limit.max_bytes)), limit.what, limit.what));
}

}  // namespace

const InputLimit& input_limit(InputKind kind) {
  return *std::find_if(std::begin(kInputLimits), std::end(kInputLimits),
                       [kind](const InputLimit& l) { return l.kind == kind; });
}

std::string_view read_input_file(const std::filesystem::path& path, InputKind kind, std::string& buffer) {
  const InputLimit& limit = input_limit(kind);
  const std::string name = path.string();
  OwnedFd in;
  if (name == "-") {
    in = OwnedFd(::fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0));
    if (in.get() < 0)
      throw UsageError(fmt::format("-: cannot read the {} from stdin: {}", limit.what, std::strerror(errno)));
  } else {
    // O_PATH opens no device and waits on no FIFO: what the path names is known before anything is read.
    OwnedFd probe(::open(path.c_str(), O_PATH | O_CLOEXEC));
    struct stat seen {};
    if (probe.get() < 0 || ::fstat(probe.get(), &seen) != 0)
      throw UsageError(fmt::format("{}: cannot open {}: {} (does the file exist?)", name, limit.what,
                                   std::strerror(errno)));
    if (!S_ISREG(seen.st_mode))
      throw UsageError(fmt::format("{}: is {}, not a {}; give a regular file (or - for stdin)", name,
                                   file_type_name(seen.st_mode), limit.what));
    if (static_cast<std::size_t>(seen.st_size) > limit.max_bytes) too_large(name, limit);
    // The looked-at inode itself is opened, not the path again: a name swapped meanwhile to a device or a
    // FIFO is never opened.
    in = reopen(probe.get(), O_RDONLY | O_NOCTTY | O_NONBLOCK);
    if (!in) {
      const int e = errno;
      throw UsageError(
          fmt::format("{}: cannot open {}: {}{}", name, limit.what, std::strerror(e), reopen_hint(e)));
    }
    if (buffer.size() < static_cast<std::size_t>(seen.st_size) + 1)
      buffer.resize(static_cast<std::size_t>(seen.st_size) + 1);
  }
  // Up to one byte past the limit: a file that grew after the fstat, or stdin, is refused as over it.
  std::size_t got = 0;
  for (;;) {
    if (got == buffer.size())
      buffer.resize(std::min(std::max<std::size_t>(4096, 2 * buffer.size()), limit.max_bytes + 1));
    if (got > limit.max_bytes) too_large(name, limit);
    ssize_t n = ::read(in.get(), buffer.data() + got, buffer.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      throw UsageError(fmt::format("{}: cannot read {}: {}", name, limit.what, std::strerror(errno)));
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got > limit.max_bytes) too_large(name, limit);  // a buffer left larger by an earlier, larger kind
  return std::string_view(buffer.data(), got);
}

std::string read_input_file(const std::filesystem::path& path, InputKind kind) {
  std::string buffer;
  const std::size_t n = read_input_file(path, kind, buffer).size();
  buffer.resize(n);
  return buffer;
}

}  // namespace mlbench
