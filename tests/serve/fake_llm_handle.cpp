#include "fake_llm_model.hpp"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

#include <nlohmann/json.hpp>

namespace mlbench::fake_llm {

std::vector<LogEntry> read_log(const std::string& path) {
  std::ifstream in(path);
  std::vector<LogEntry> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    auto j = nlohmann::json::parse(line);
    LogEntry e;
    e.id = j.at("id").get<std::string>();
    e.request_id = j.at("request_id").get<std::string>();
    e.endpoint = j.at("endpoint").get<std::string>();
    e.outcome = j.at("outcome").get<std::string>();
    e.finish_reason = j.at("finish_reason").get<std::string>();
    e.stream = j.at("stream").get<bool>();
    e.status = j.at("status").get<int>();
    e.prompt_tokens = j.at("prompt_tokens").get<int>();
    e.max_tokens = j.at("max_tokens").get<int>();
    e.output_tokens = j.at("output_tokens").get<int>();
    e.arrival_s = j.at("arrival_s").get<double>();
    e.token_times_s = j.at("token_times_s").get<std::vector<double>>();
    if (!e.token_times_s.empty()) {
      e.first_token_s = e.token_times_s.front();
      e.last_token_s = e.token_times_s.back();
    }
    out.push_back(std::move(e));
  }
  return out;
}

const char* server_path() { return MLBENCH_FAKE_LLM_SERVER; }

FakeLlmServer::FakeLlmServer(std::vector<std::string> args) {
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/fake-llm-XXXXXX";
  if (mkdtemp(templ.data()) == nullptr) throw std::runtime_error("fake_llm: mkdtemp failed");
  dir_ = templ;
  log_ = dir_ + "/requests.jsonl";
  const std::string port_file = dir_ + "/port";
  std::vector<std::string> argv_s = {server_path(), "--port-file", port_file, "--log", log_};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t parent = getpid();
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fake_llm: fork failed");
  if (pid_ == 0) {
    // The server dies with the test that started it, whatever way the test ends.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(127);
    execv(argv[0], argv.data());
    _exit(127);
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    std::ifstream f(port_file);
    if (f >> port_) return;
    int st = 0;
    if (waitpid(pid_, &st, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error("fake_llm: the server exited before listening (status " + std::to_string(st) +
                               ")");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  stop();
  throw std::runtime_error("fake_llm: the server wrote no port within 30 s");
}

int FakeLlmServer::stop() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    waitpid(pid_, &status_, 0);
    pid_ = -1;
  }
  return status_;
}

FakeLlmServer::~FakeLlmServer() {
  stop();
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

}  // namespace mlbench::fake_llm
