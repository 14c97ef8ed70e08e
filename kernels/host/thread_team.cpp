#include "kernels/host/thread_team.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>

#include "base/error.hpp"

// pthread calls return the error number instead of setting errno.
#define MLBENCH_CHECK_PTHREAD(call)                                                                       \
  do {                                                                                                    \
    int mlbench_rc_ = (call);                                                                             \
    if (mlbench_rc_ != 0) {                                                                               \
      ::mlbench::throw_call_error(#call, __FILE__, __LINE__,                                              \
                                  fmt::format("errno {} ({})", mlbench_rc_, std::strerror(mlbench_rc_))); \
    }                                                                                                     \
  } while (0)

namespace mlbench::hostmem {
namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

ThreadTeam::ThreadTeam(const std::vector<int>& cpus, bool pin) : start_(cpus.size()), end_(cpus.size()) {
  if (cpus.empty()) throw Error("ThreadTeam: no CPU to run on");
  threads_.reserve(cpus.size());
  try {
    for (std::size_t i = 0; i < cpus.size(); ++i) {
      threads_.emplace_back([this, i] { worker(static_cast<int>(i)); });
      if (pin) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpus[i], &set);
        MLBENCH_CHECK_PTHREAD(pthread_setaffinity_np(threads_.back().native_handle(), sizeof(set), &set));
      }
    }
  } catch (...) {
    {
      std::lock_guard lock(mu_);
      quit_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
    throw;
  }
}

ThreadTeam::~ThreadTeam() {
  {
    std::lock_guard lock(mu_);
    quit_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_) t.join();
}

void ThreadTeam::worker(int index) {
  std::uint64_t seen = 0;
  for (;;) {
    const std::function<void(int)>* job = nullptr;
    bool timed = false;
    {
      std::unique_lock lock(mu_);
      wake_.wait(lock, [&] { return quit_ || generation_ != seen; });
      if (quit_) return;
      seen = generation_;
      job = job_;
      timed = timed_;
    }
    std::exception_ptr err;
    try {
      if (timed) {
        // Spin barrier: every thread is awake and running before any starts its clock.
        arrived_.fetch_add(1, std::memory_order_acq_rel);
        while (arrived_.load(std::memory_order_acquire) < size()) std::this_thread::yield();
        start_[static_cast<std::size_t>(index)] = now_s();
        (*job)(index);
        end_[static_cast<std::size_t>(index)] = now_s();
      } else {
        (*job)(index);
      }
    } catch (...) {
      err = std::current_exception();
    }
    {
      std::lock_guard lock(mu_);
      if (err && !error_) error_ = err;
      if (--running_ == 0) done_.notify_one();
    }
  }
}

void ThreadTeam::dispatch(const std::function<void(int)>& job, bool timed) {
  std::unique_lock lock(mu_);
  job_ = &job;
  timed_ = timed;
  error_ = nullptr;
  arrived_.store(0, std::memory_order_relaxed);
  running_ = size();
  ++generation_;
  wake_.notify_all();
  done_.wait(lock, [&] { return running_ == 0; });
  job_ = nullptr;
  if (error_) std::rethrow_exception(error_);
}

void ThreadTeam::run(const std::function<void(int)>& job) { dispatch(job, false); }

double ThreadTeam::run_timed(const std::function<void(int)>& job) {
  dispatch(job, true);
  return *std::max_element(end_.begin(), end_.end()) - *std::min_element(start_.begin(), start_.end());
}

}  // namespace mlbench::hostmem
