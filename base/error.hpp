// mlbench::Error and the status-checking macros every layer uses.
//
// Every library or system status is checked by a macro that throws mlbench::Error carrying the call text,
// file:line and the library's own error name and message. Library-specific macros (CUDA, cuBLASLt, cuDNN,
// NCCL) live beside the code that uses them and throw the same type; destructors ignore statuses instead of
// throwing.
#pragma once

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace mlbench {

// An error from a library, a system call or the measurement itself.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bad input from the user (flags, files, sizes): the CLI reports it in one line and exits 2.
class UsageError : public Error {
 public:
  using Error::Error;
};

// The run was interrupted (SIGINT/SIGTERM) while a case was running.
class Interrupted : public Error {
 public:
  Interrupted() : Error("interrupted") {}
};

[[noreturn]] inline void throw_call_error(const char* call, const char* file, int line,
                                          const std::string& what) {
  throw Error(fmt::format("{} failed at {}:{}: {}", call, file, line, what));
}

}  // namespace mlbench

// A system call returning -1 and setting errno.
#define MLBENCH_CHECK_SYS(call)                                                         \
  do {                                                                                  \
    if ((call) == -1) {                                                                 \
      int mlbench_errno_ = errno;                                                       \
      ::mlbench::throw_call_error(                                                      \
          #call, __FILE__, __LINE__,                                                    \
          fmt::format("errno {} ({})", mlbench_errno_, std::strerror(mlbench_errno_))); \
    }                                                                                   \
  } while (0)

// A call returning a negative errno value (liburing style).
#define MLBENCH_CHECK_NEG_ERRNO(call)                                                                       \
  do {                                                                                                      \
    int mlbench_rc_ = (call);                                                                               \
    if (mlbench_rc_ < 0) {                                                                                  \
      ::mlbench::throw_call_error(#call, __FILE__, __LINE__,                                                \
                                  fmt::format("errno {} ({})", -mlbench_rc_, std::strerror(-mlbench_rc_))); \
    }                                                                                                       \
  } while (0)
