// NCCL communicators, buffers and the timed loop of net.nccl (built only with NCCL).
//
// Two ways to run the communicators (option `timing`, recorded in each result's info.timing):
// - blocking (the default): ncclConfig_t.blocking = 1, as nccl-tests launches. Each call's ncclGroupEnd
//   enqueues the kernels on this thread and returns, so the timed loop measures the collective and a few
//   nanoseconds of locking (micro net_bench: the loop on a stub).
// - nonblocking: blocking = 0 throughout. NCCL 2.28 hands every ncclGroupEnd to a new thread and returns
//   ncclInProgress, which this thread then polls: every call can be interrupted, but each costs a thread
//   start inside the measured time. Kept to show that cost and for set-ups where a blocking call might hang.
//   The timed loop cannot enqueue the next call before this one completes: every collective first checks
//   that the communicator is ready (src/enqueue.cc ncclEnqueueCheck → src/init.cc ncclCommEnsureReady), and
//   while the previous non-blocking group is still in progress that check fails with ncclInvalidArgument
//   ("Attempt to use communicator before the previous operation returned ncclSuccess"). Behind it, a group's
//   job is linked to a communicator only when none is linked yet (src/group.cc ncclGroupEndInternal) and
//   joined only once ncclCommGetAsyncError returns ncclSuccess (src/init.cc). The one way to pay one thread
//   for many calls is to put them in a single group, which measures aggregated calls (nccl-tests' -a), a
//   different figure from the per-call time this loop reports.
// Either way no wait is unbounded: every wait (initialisation, a group's enqueue, a stream) is armed on the
// watchdog (network/watchdog.hpp), which polls ncclCommGetAsyncError under the same lock as every other
// NCCL call and aborts the communicators when an error appears or a wait outlives --timeout; the waiting call
// then throws an Error naming the collective, the size and the rank. A blocking call that hangs inside NCCL
// (a peer that died during initialisation) cannot be aborted safely: the watchdog ends the process with that
// message instead. An aborted session refuses further work.
//
// Timing follows nccl-tests: `warmup` calls, then `iters` back-to-back calls timed by the wall clock from the
// first enqueue to the end of a stream sync, divided by iters; every rank's time is then all-gathered so
// that each rank knows the mean and the slowest. Correctness: a separate call on freshly filled buffers,
// checked on the device (network/nccl_kernels.hpp), its wrong-element count summed over ranks. Host values
// reach the device with cudaMemcpyAsync on the stream that consumes them (a copy on the legacy stream is not
// ordered with these non-blocking streams).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nccl.h>

#include "network/collectives.hpp"
#include "network/watchdog.hpp"

namespace mlbench::net {

struct SessionSetup {
  int world_size = 1;
  int first_rank = 0;        // global rank of devices[0]; local GPU i is rank first_rank + i
  std::vector<int> devices;  // CUDA devices this process drives
  std::string unique_id;     // rank 0's ncclUniqueId bytes; empty in single-process mode (made here)
  double timeout_s = 300;
  bool blocking = true;  // see the file comment
  std::string host;      // for messages
};

// Called before the warm-up calls (whose collectives absorb the time it takes, so the timed loop starts in
// step with the other ranks) and right after the timed loop's stream sync, outside the timed span (net.nccl
// reads the NIC counters there: the window's rate is that of the warm-up and timed calls of one size); either
// may be empty.
struct TimedWindow {
  std::function<void()> begin, end;
};

inline constexpr int kTimedChunks = 5;

struct Measurement {
  std::vector<double> seconds_per_rank;  // one call, every rank of the world
  // One call, in each of up to kTimedChunks equal chunks of the timed loop, on this process's first GPU: CUDA
  // events recorded between the chunks on its stream (no host wait between them, so the loop stays back to
  // back), for the spread of the loop's mean.
  std::vector<double> chunk_seconds;
  std::uint64_t wrong_elements = 0;    // over every rank
  std::uint64_t checked_elements = 0;  // over every rank
};

// Number of CUDA devices, or 0 with the runtime's reason in `why`.
int cuda_device_count(std::string& why);
// Free memory of the device (cudaMemGetInfo).
std::uint64_t device_free_bytes(int device);
// The device's PCI bus id ("0000:1b:00.0").
std::string device_bus_id(int device);
std::string make_unique_id();
std::string nccl_version_string();

class NcclSession {
 public:
  explicit NcclSession(SessionSetup setup);
  ~NcclSession();
  NcclSession(const NcclSession&) = delete;
  NcclSession& operator=(const NcclSession&) = delete;

  // Runs one size: correctness call, warm-up, timed loop (inside `window`), cross-rank gather of the times.
  Measurement run(Collective op, DataType dtype, const CallSize& size, bool in_place, int warmup, int iters,
                  const TimedWindow& window = {});
  // Allocates buffers for the largest call of a case (freed by release, the next reserve or the destructor).
  void reserve(std::uint64_t send_bytes, std::uint64_t recv_bytes);
  // Frees the case's buffers, so that other GPU work does not run beside them.
  void release();

  int world_size() const { return setup_.world_size; }
  bool blocking() const { return setup_.blocking; }

 private:
  struct Local;  // one per local GPU: device, comm, stream, buffers
  class Control;
  void init_comms();
  void finalize_comms();
  // Non-blocking communicators only: polls until no communicator is in progress.
  void wait_comms(std::string_view what);
  void wait_streams(std::string_view what);
  // One call on every local GPU; `what` names the wait for the non-blocking enqueue.
  void enqueue(Collective op, DataType dtype, const CallSize& size, bool in_place, std::string_view what);

  SessionSetup setup_;
  std::string ranks_;  // "rank 0 (host)", for messages
  std::vector<Local> locals_;
  std::unique_ptr<Control> control_;
  Watchdog watchdog_;  // last: its thread stops before the communicators and buffers go
};

}  // namespace mlbench::net
