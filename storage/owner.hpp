// How a run's leftovers are told from a live run's files: mlbench names the scratch files and folders it
// creates in a user's folder "<prefix><pid>-XXXXXX" (its PID, then mkostemp's or mkdtemp's six characters)
// and holds a flock on each while it runs. One whose PID no longer exists and whose lock nobody holds was
// left by a killed run (SIGKILL, power loss) and may be removed; a live PID keeps it whatever process it now
// is, and so does a held lock (a live mlbench, also one in another PID namespace). On a filesystem without
// flock (some NFS mounts) nobody can take the lock, so nothing there is ever reclaimed.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <string_view>

namespace mlbench::storage {

// The PID in `name` ("<prefix><pid>-XXXXXX"), or 0 when the name is not one.
pid_t owner_pid(std::string_view name, std::string_view prefix);
// Whether `pid` (from owner_pid) is not this process and no longer exists.
bool owner_gone(pid_t pid);
// Takes the owner's lock on `fd` without waiting (flock LOCK_EX): true when it was free; it is then held
// until fd is closed. The creator takes it right after creating; a reclaimer before removing anything.
bool take_owner_lock(int fd);
// The reclaimer's take of the lock of a leftover whose owner is gone: the kernel drops a killed process's
// lock a little after the process is reaped, so a lock still held is retried for up to 250 ms (5 ms apart,
// ended early by `stop`) before it counts as a live holder's.
bool take_reclaim_lock(int fd, const std::atomic<bool>& stop);

}  // namespace mlbench::storage
