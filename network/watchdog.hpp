// The watchdog that keeps net.nccl from hanging: a thread that polls the communicators for asynchronous
// errors and ends any bounded wait that outlives its deadline by aborting them. Plain C++ (no NCCL), so that
// its locking is unit-tested and micro-benchmarked without a GPU; network/nccl_session.cpp plugs NCCL in
// through CommControl.
//
// Why the locking is what it is: NCCL forbids concurrent calls on one communicator, and
// ncclCommGetAsyncError is no exception (in 2.28 it completes and frees a pending non-blocking group job, so
// two threads polling at once free it twice). So every use of the communicators — the owner's NCCL calls, the
// watchdog's polls and its abort — happens under one lock, the "use lock" (hold()). The watchdog marks itself
// tripped before it releases that lock after an abort, so an owner that takes the lock next and calls check()
// never touches an aborted, freed communicator.
//
// The watchdog only try-locks: it never waits behind the owner. An owner stuck inside a blocking library call
// (a blocking communicator whose peer died during set-up) holds the use lock and cannot be aborted without a
// race; when such a wait is `grace` past its deadline, the watchdog calls its last resort, which by default
// prints the message and ends the process with status 1 — the report already holds every finished case.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

namespace mlbench::net {

// What the watchdog needs of the communicators it guards. Called only from the watchdog's thread with the use
// lock held.
class CommControl {
 public:
  virtual ~CommControl() = default;
  // The first asynchronous error of any communicator, in words; nullopt while all are fine or in progress.
  virtual std::optional<std::string> async_error() = 0;
  // Aborts (and so frees) every communicator.
  virtual void abort_all() = 0;
};

class Watchdog {
 public:
  using LastResort = std::function<void(const std::string& message)>;

  struct Settings {
    std::chrono::milliseconds poll{10};
    std::chrono::milliseconds grace{10000};  // past the deadline, for a wait stuck inside a library call
    LastResort last_resort;                  // empty: print to stderr and exit with status 1
  };

  Watchdog();
  explicit Watchdog(Settings settings);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // Starts (or with nullptr ends) polling `control`; it must outlive the watch or stop().
  void watch(CommControl* control);
  // Starts a bounded wait named `what`: not disarmed within timeout_s, the communicators are aborted.
  void arm(std::string_view what, double timeout_s);
  void disarm();
  // Ends the polling thread (before the communicators are finalised).
  void stop();

  // Throws Error with the watchdog's message when it has aborted the communicators.
  void check() const {
    if (tripped_.load(std::memory_order_acquire)) throw_message();
  }
  bool tripped() const { return tripped_.load(std::memory_order_acquire); }

  // The use lock: held around every NCCL call on the watched communicators; check() after taking it.
  std::unique_lock<std::mutex> hold() { return std::unique_lock(use_mu_); }
  // Runs f() under the use lock, after check(): the one way an owner calls NCCL.
  template <typename F>
  decltype(auto) guarded(F&& f) {
    auto lock = hold();
    check();
    return f();
  }

 private:
  void loop();
  [[noreturn]] void throw_message() const;
  void trip(std::string message);

  Settings settings_;
  mutable std::mutex mu_;  // guards the fields below
  std::mutex use_mu_;      // the use lock
  std::condition_variable cv_;
  CommControl* control_ = nullptr;
  std::string what_;
  std::chrono::steady_clock::time_point deadline_{};
  double timeout_s_ = 0;
  bool armed_ = false, stop_ = false;
  std::string message_;
  std::atomic<bool> tripped_{false};
  std::thread thread_;  // last: starts after every field above exists
};

}  // namespace mlbench::net
