// Runs the real mlbench binary for CLI tests.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tests/common/files.hpp"

namespace mlbench::test {

struct CliResult {
  int rc = -1;     // the exit status, or 128 + the signal that killed it
  int signal = 0;  // the signal that killed it, 0 when it exited
  std::string out, err;
};

// A running child process whose stdout and stderr go to files (stdin is /dev/null). The destructor kills
// (SIGKILL) and reaps it when it is still running, so that a failed test never leaves one behind.
class CliProcess {
 public:
  CliProcess(pid_t pid, std::unique_ptr<TempDir> io) : pid_(pid), io_(std::move(io)) {}
  CliProcess(CliProcess&& o) noexcept;
  CliProcess& operator=(CliProcess&&) = delete;
  CliProcess(const CliProcess&) = delete;
  ~CliProcess();

  pid_t pid() const { return pid_; }
  // Sends `sig` (no-op once reaped).
  void kill(int sig) const;
  // Waits until it ends, at most `timeout`; nullopt when it is still running then.
  std::optional<CliResult> wait_for(std::chrono::milliseconds timeout);
  CliResult wait();

 private:
  CliResult reap(int status);

  pid_t pid_;
  std::unique_ptr<TempDir> io_;
};

// Starts `argv` (argv[0] is the program path, no shell) with environment additions ("NAME=value"), which
// replace inherited variables of the same name.
CliProcess spawn_program(const std::vector<std::string>& argv, const std::vector<std::string>& env = {});
// Starts MLBENCH_EXE with `args`.
CliProcess spawn_cli(const std::vector<std::string>& args, const std::vector<std::string>& env = {});

// Runs MLBENCH_EXE with args to its end, capturing both streams.
CliResult run_cli(const std::vector<std::string>& args, const std::vector<std::string>& env = {});

// A TCP port on 127.0.0.1 that the kernel just handed out (and that is closed again, so rank 0 can take it).
int free_port();
// TCP sockets of 127.0.0.1:port in /proc/net/tcp: listening on it (a rank 0 ready for its ranks), or
// established connections to it (each a rank that reached rank 0).
enum class TcpSockets { listening, connected };
int tcp_sockets(int port, TcpSockets which);
// Waits up to 60 s until at least n such sockets exist; false if they never did.
bool wait_for_sockets(int port, TcpSockets which, int n);
// The MLBENCH_JOB_TOKEN of the job whose rendezvous is at `port` (one job per port).
std::string job_token(int port);
// The torchrun-style launch environment of one rank of `world` on localhost, rendezvous at `port`, with a
// torchrun run id (the job id the rendezvous admits) and a job token (job_token) of one job per port.
std::vector<std::string> rank_env(int rank, int world, int port);

// Validates a JSON file against report/report.schema.json with python3-jsonschema; returns "" when valid,
// else the validator's message.
std::string validate_report_schema(const std::filesystem::path& report);

}  // namespace mlbench::test
