#include "storage/owner.hpp"

#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>

namespace mlbench::storage {

pid_t owner_pid(std::string_view name, std::string_view prefix) {
  if (!name.starts_with(prefix)) return 0;
  name.remove_prefix(prefix.size());
  pid_t pid = 0;
  auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), pid);
  if (ec != std::errc{} || pid <= 0) return 0;
  std::string_view rest(end, static_cast<std::size_t>(name.data() + name.size() - end));
  return rest.size() == 7 && rest[0] == '-' ? pid : 0;
}

bool owner_gone(pid_t pid) {
  // kill(pid, 0) fails with EPERM for a live process of another user: only ESRCH says it is gone.
  return pid > 0 && pid != ::getpid() && ::kill(pid, 0) != 0 && errno == ESRCH;
}

bool take_owner_lock(int fd) { return ::flock(fd, LOCK_EX | LOCK_NB) == 0; }

bool take_reclaim_lock(int fd, const std::atomic<bool>& stop) {
  constexpr int kTries = 50;
  constexpr useconds_t kPauseUs = 5'000;
  for (int i = 0; i < kTries && !stop.load(std::memory_order_relaxed); ++i) {
    if (take_owner_lock(fd)) return true;
    ::usleep(kPauseUs);
  }
  return false;
}

}  // namespace mlbench::storage
