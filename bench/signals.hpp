// SIGINT/SIGTERM handling for runs: the first signal sets the runner's stop flag (the current case ends at
// its next check, the report keeps what finished, temp files are cleaned by their owners' destructors); a
// second signal falls back to the default action.
#pragma once

namespace mlbench {

class SignalGuard {
 public:
  SignalGuard();   // installs the handlers and clears the stop flag
  ~SignalGuard();  // restores the previous handlers
  SignalGuard(const SignalGuard&) = delete;
  SignalGuard& operator=(const SignalGuard&) = delete;
};

}  // namespace mlbench
