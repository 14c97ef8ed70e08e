#include "tests/cli/cli_util.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <utility>

extern char** environ;

namespace mlbench::test {
CliProcess::CliProcess(CliProcess&& o) noexcept : pid_(std::exchange(o.pid_, -1)), io_(std::move(o.io_)) {}

CliProcess::~CliProcess() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  ::waitpid(pid_, &status, 0);
}

void CliProcess::kill(int sig) const {
  if (pid_ > 0) ::kill(pid_, sig);
}

CliResult CliProcess::reap(int status) {
  pid_ = -1;
  CliResult r;
  if (WIFSIGNALED(status)) {
    r.signal = WTERMSIG(status);
    r.rc = 128 + r.signal;
  } else {
    r.rc = WEXITSTATUS(status);
  }
  r.out = slurp(io_->path() / "out");
  r.err = slurp(io_->path() / "err");
  return r;
}

std::optional<CliResult> CliProcess::wait_for(std::chrono::milliseconds timeout) {
  if (pid_ <= 0) throw std::logic_error("CliProcess::wait_for after the process was reaped");
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    int status = 0;
    pid_t rc = ::waitpid(pid_, &status, WNOHANG);
    if (rc == pid_) return reap(status);
    if (rc < 0 && errno != EINTR) throw std::runtime_error("waitpid failed");
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

CliResult CliProcess::wait() {
  if (pid_ <= 0) throw std::logic_error("CliProcess::wait after the process was reaped");
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error("waitpid failed");
  }
  return reap(status);
}

CliProcess spawn_program(const std::vector<std::string>& argv_in, const std::vector<std::string>& env) {
  auto io = std::make_unique<TempDir>();
  auto out_path = io->path() / "out";
  auto err_path = io->path() / "err";
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<std::string> argv_s = argv_in;
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  // The additions replace variables of the same name (getenv would find the inherited one first).
  auto overridden = [&env](std::string_view var) {
    return std::any_of(env.begin(), env.end(), [var](const std::string& add) {
      auto name = add.substr(0, add.find('=') + 1);
      return var.substr(0, name.size()) == name;
    });
  };
  std::vector<std::string> env_s;
  for (char** e = environ; *e != nullptr; ++e) {
    if (!overridden(*e)) env_s.emplace_back(*e);
  }
  env_s.insert(env_s.end(), env.begin(), env.end());
  std::vector<char*> envp;
  for (auto& e : env_s) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, argv_s.at(0).c_str(), &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw std::runtime_error("posix_spawn " + argv_s[0] + " failed: " + std::strerror(rc));
  return CliProcess(pid, std::move(io));
}

CliProcess spawn_cli(const std::vector<std::string>& args, const std::vector<std::string>& env) {
  std::vector<std::string> argv{MLBENCH_EXE};
  argv.insert(argv.end(), args.begin(), args.end());
  return spawn_program(argv, env);
}

CliResult run_cli(const std::vector<std::string>& args, const std::vector<std::string>& env) {
  return spawn_cli(args, env).wait();
}

std::string validate_report_schema(const std::filesystem::path& report) {
  TempDir io;
  std::string cmd = std::string("/usr/bin/python3 ") + MLBENCH_SOURCE_DIR + "/tests/tools/validate_json.py " +
                    MLBENCH_SOURCE_DIR + "/report/report.schema.json '" + report.string() + "' > " +
                    (io.path() / "log").string() + " 2>&1";
  int rc = std::system(cmd.c_str());
  return rc == 0 ? std::string() : "schema validation failed: " + slurp(io.path() / "log");
}

int free_port() {
  int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (s < 0 || ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    if (s >= 0) ::close(s);
    throw std::runtime_error(std::string("free_port: ") + std::strerror(errno));
  }
  socklen_t len = sizeof a;
  ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(s);
  return ntohs(a.sin_port);
}

int tcp_sockets(int port, TcpSockets which) {
  std::ifstream in("/proc/net/tcp");
  std::string line;
  std::getline(in, line);  // header
  int n = 0;
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::string slot, local, remote, state;
    ss >> slot >> local >> remote >> state;
    const std::string& end = which == TcpSockets::listening ? local : remote;
    auto colon = end.find(':');
    if (colon == std::string::npos) continue;
    // The kernel's TCP states: 01 established, 0A listen.
    if (state == (which == TcpSockets::listening ? "0A" : "01") &&
        std::stoi(end.substr(colon + 1), nullptr, 16) == port)
      ++n;
  }
  return n;
}

bool wait_for_sockets(int port, TcpSockets which, int n) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    if (tcp_sockets(port, which) >= n) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

std::string job_token(int port) {
  // Longer than the shortest token mlbench accepts (32 characters), and distinct per port.
  return "mlbench-test-token-" + std::to_string(port) + "-0123456789abcdef";
}

std::vector<std::string> rank_env(int rank, int world, int port) {
  return {"RANK=" + std::to_string(rank),
          "WORLD_SIZE=" + std::to_string(world),
          "LOCAL_RANK=" + std::to_string(rank),
          "LOCAL_WORLD_SIZE=" + std::to_string(world),
          "MASTER_ADDR=127.0.0.1",
          "MASTER_PORT=" + std::to_string(port),
          "TORCHELASTIC_RUN_ID=mlbench-test-" + std::to_string(port),
          "MLBENCH_JOB_TOKEN=" + job_token(port)};
}

}  // namespace mlbench::test
