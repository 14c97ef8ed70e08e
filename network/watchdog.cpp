#include "network/watchdog.hpp"

#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

#include "base/error.hpp"

namespace mlbench::net {
namespace {

using Clock = std::chrono::steady_clock;

void exit_with(const std::string& message) {
  std::fprintf(stderr, "mlbench: %s\n", message.c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

Watchdog::Settings with_default_last_resort(Watchdog::Settings s) {
  if (!s.last_resort) s.last_resort = exit_with;
  return s;
}

}  // namespace

Watchdog::Watchdog() : Watchdog(Settings{}) {}

Watchdog::Watchdog(Settings settings)
    : settings_(with_default_last_resort(std::move(settings))), thread_([this] { loop(); }) {}

Watchdog::~Watchdog() { stop(); }

void Watchdog::stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Watchdog::watch(CommControl* control) {
  std::lock_guard lock(mu_);
  control_ = control;
}

void Watchdog::arm(std::string_view what, double timeout_s) {
  std::lock_guard lock(mu_);
  what_.assign(what);  // reuses the capacity: no allocation per call once the names are this long
  timeout_s_ = timeout_s;
  deadline_ =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  armed_ = true;
}

void Watchdog::disarm() {
  std::lock_guard lock(mu_);
  armed_ = false;
}

void Watchdog::throw_message() const {
  std::lock_guard lock(mu_);
  throw Error(message_);
}

void Watchdog::trip(std::string message) {
  {
    std::lock_guard lock(mu_);
    message_ = std::move(message);
  }
  tripped_.store(true, std::memory_order_release);
}

void Watchdog::loop() {
  while (true) {
    CommControl* control = nullptr;
    {
      std::unique_lock lock(mu_);
      cv_.wait_for(lock, settings_.poll, [this] { return stop_; });
      if (stop_) return;
      if (tripped_.load(std::memory_order_relaxed) || control_ == nullptr) continue;
      control = control_;
    }
    // What the deadline says, read after the poll interval so that a wait armed meanwhile counts.
    auto overdue = [this](Clock::duration extra) {
      std::lock_guard lock(mu_);
      return armed_ && Clock::now() > deadline_ + extra;
    };
    auto timeout_text = [this] {
      std::lock_guard lock(mu_);
      return fmt::format("{} did not complete within --timeout {} s", what_, timeout_s_);
    };

    std::unique_lock use(use_mu_, std::try_to_lock);
    if (!use.owns_lock()) {
      // The owner is inside an NCCL call. Only a call stuck there well past its deadline is our business.
      if (overdue(settings_.grace)) {
        std::string message = timeout_text() +
                              " and is stuck inside an NCCL call that no abort can reach safely (a peer rank "
                              "died or hung, or a link broke); ending mlbench — the report holds every "
                              "finished case";
        trip(message);
        settings_.last_resort(message);
      }
      continue;
    }
    std::string message;
    if (auto error = control->async_error()) {
      std::string during;
      {
        std::lock_guard lock(mu_);
        during = armed_ ? what_ : "idle time";
      }
      message =
          fmt::format("NCCL reported an error during {}: {}; aborted the communicators", during, *error);
    } else if (overdue(Clock::duration::zero())) {
      message =
          timeout_text() + "; aborted the NCCL communicators (a peer rank died or hung, or a link broke)";
    }
    if (message.empty()) continue;
    control->abort_all();
    trip(std::move(message));  // before the use lock is released: the next holder sees it in check()
  }
}

}  // namespace mlbench::net
