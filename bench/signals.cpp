#include "bench/signals.hpp"

#include <csignal>

#include "bench/runner.hpp"

namespace mlbench {
namespace {

struct sigaction g_old_int {};
struct sigaction g_old_term {};

void on_signal(int sig) {
  stop_flag().store(true);
  // A second signal kills the process the default way.
  std::signal(sig, SIG_DFL);
}

}  // namespace

SignalGuard::SignalGuard() {
  stop_flag().store(false);
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &g_old_int);
  sigaction(SIGTERM, &sa, &g_old_term);
}

SignalGuard::~SignalGuard() {
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
}

}  // namespace mlbench
