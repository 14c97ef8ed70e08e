// NCCL communicators, buffers and the timed loop of net.nccl (built only with NCCL).
//
// Communicators are non-blocking (ncclConfig_t.blocking = 0) so that no NCCL call can block this thread:
// every wait (initialisation, a group's enqueue, a stream) polls, and a watchdog thread polls
// ncclCommGetAsyncError. When an asynchronous error appears, or a wait outlives --timeout, the watchdog calls
// ncclCommAbort on every communicator of this process, which makes NCCL's kernels and proxy threads give up,
// and the waiting call throws an Error naming the collective, the size and the rank. An aborted session
// refuses further work.
//
// Timing follows nccl-tests: `warmup` calls, then `iters` back-to-back calls timed by the wall clock from the
// first enqueue to the end of a stream sync, divided by iters; every rank's time is then all-gathered so
// that each rank knows the mean and the slowest. Correctness: a separate call on freshly filled buffers,
// checked on the device (network/nccl_kernels.hpp), its wrong-element count summed over ranks.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "network/collectives.hpp"

namespace mlbench::net {

struct SessionSetup {
  int world_size = 1;
  int first_rank = 0;        // global rank of devices[0]; local GPU i is rank first_rank + i
  std::vector<int> devices;  // CUDA devices this process drives
  std::string unique_id;     // rank 0's ncclUniqueId bytes; empty in single-process mode (made here)
  double timeout_s = 300;
  std::string host;  // for messages
};

struct Measurement {
  std::vector<double> seconds_per_rank;  // one call, every rank of the world
  std::uint64_t wrong_elements = 0;      // over every rank
  std::uint64_t checked_elements = 0;    // over every rank
};

// Number of CUDA devices, or 0 with the runtime's reason in `why`.
int cuda_device_count(std::string& why);
// Free memory of the device (cudaMemGetInfo).
std::uint64_t device_free_bytes(int device);
// The device's PCI bus id ("0000:1b:00.0").
std::string device_bus_id(int device);
std::string make_unique_id();
std::string nccl_version_string();

// Polls the communicators every 10 ms from its own thread and aborts them all on an asynchronous error or
// when an armed wait passes its deadline. Every other use of the communicators happens under hold(), which
// the abort also takes, so no NCCL call races with ncclCommAbort.
class Watchdog {
 public:
  Watchdog();
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  void watch(std::vector<ncclComm_t> comms);
  // Starts a bounded wait: if it is not disarmed within timeout_s, the communicators are aborted.
  void arm(std::string what, double timeout_s);
  void disarm();
  // Ends the polling thread (before the communicators are finalised).
  void stop();
  // Throws the watchdog's message when it has aborted the communicators.
  void check() const {
    if (tripped_.load(std::memory_order_acquire)) throw_message();
  }
  bool tripped() const { return tripped_.load(std::memory_order_acquire); }
  // Held while calling NCCL on the watched communicators; check() after taking it.
  std::unique_lock<std::mutex> hold() { return std::unique_lock(use_mu_); }

 private:
  void loop();
  [[noreturn]] void throw_message() const;

  mutable std::mutex mu_;  // guards the fields below
  std::mutex use_mu_;      // guards the communicators against a concurrent abort
  std::condition_variable cv_;
  std::vector<ncclComm_t> comms_;
  std::string what_;
  std::chrono::steady_clock::time_point deadline_{};
  double timeout_s_ = 0;
  bool armed_ = false, stop_ = false;
  std::string message_;
  std::atomic<bool> tripped_{false};
  std::thread thread_;
};

class NcclSession {
 public:
  explicit NcclSession(SessionSetup setup);
  ~NcclSession();
  NcclSession(const NcclSession&) = delete;
  NcclSession& operator=(const NcclSession&) = delete;

  // Runs one size: correctness call, warm-up, timed loop, cross-rank gather of the times.
  Measurement run(Collective op, DataType dtype, const CallSize& size, bool in_place, int warmup, int iters);
  // Allocates buffers for the largest call of a case (freed by the next reserve or the destructor).
  void reserve(std::uint64_t send_bytes, std::uint64_t recv_bytes);

  int world_size() const { return setup_.world_size; }

 private:
  struct Local;  // one per local GPU: device, comm, stream, buffers
  void wait_comms(const std::string& what);
  void wait_streams(const std::string& what);
  void enqueue(Collective op, DataType dtype, const CallSize& size, bool in_place);
  std::string ranks_text() const;

  SessionSetup setup_;
  std::vector<Local> locals_;
  Watchdog watchdog_;
};

}  // namespace mlbench::net
