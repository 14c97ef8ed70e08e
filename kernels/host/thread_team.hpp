// A fixed team of worker threads, optionally pinned one per CPU, that runs the same job on every thread and
// times it the way likwid-bench does: all threads meet at a spin barrier, each stamps its start and end, and
// a sample is last end − first start (thread wake-up latency is not timed).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace mlbench::hostmem {

class ThreadTeam {
 public:
  // One thread per entry of `cpus` (at least one); each is pinned to its CPU when `pin` is set.
  ThreadTeam(const std::vector<int>& cpus, bool pin);
  ~ThreadTeam();
  ThreadTeam(const ThreadTeam&) = delete;
  ThreadTeam& operator=(const ThreadTeam&) = delete;

  int size() const { return static_cast<int>(start_.size()); }
  // Runs job(thread_index) on every thread and waits; rethrows the first exception a job threw.
  void run(const std::function<void(int)>& job);
  // Like run, with the barrier-synchronised start; returns the seconds from the first start to the last end.
  double run_timed(const std::function<void(int)>& job);

 private:
  void worker(int index);
  void dispatch(const std::function<void(int)>& job, bool timed);

  std::vector<std::thread> threads_;
  std::mutex mu_;
  std::condition_variable wake_, done_;
  const std::function<void(int)>* job_ = nullptr;
  bool timed_ = false;
  bool quit_ = false;
  std::uint64_t generation_ = 0;
  int running_ = 0;
  std::exception_ptr error_;
  std::vector<double> start_, end_;  // seconds on the steady clock, per thread
  alignas(64) std::atomic<int> arrived_{0};
};

}  // namespace mlbench::hostmem
