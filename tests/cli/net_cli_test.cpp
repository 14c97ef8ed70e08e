// `mlbench nccl` for real on this machine: bad input, the single-process mode without a GPU, and the
// multi-process mode with 2–3 real processes on 127.0.0.1 (TCP rendezvous, and mpirun when built with MPI)
// producing one merged cluster report; a rendezvous whose peer never comes ends within its timeout; another
// job's rank is refused; a rank killed during the measurement (the skip path: no GPU here) fails every rank.
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <thread>

#include <nlohmann/json.hpp>

#include "mlbench_config.hpp"
#include "tests/cli/cli_util.hpp"

namespace mlbench::test {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// Far below every --timeout these tests give: ending within it proves the fault was noticed, not timed out.
constexpr auto kEnds = 60s;

json read_json(const std::filesystem::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

// Every result of net.nccl skipped because this machine has no GPU (or the build has no NCCL).
void expect_nccl_skipped(const json& report) {
  ASSERT_FALSE(report["results"].empty());
  for (const auto& r : report["results"]) {
    EXPECT_EQ(r["probe"], "net.nccl");
    EXPECT_EQ(r["status"], "skipped");
    EXPECT_FALSE(r["reason"].get<std::string>().empty());
  }
}

TEST(NetCli, BadInputIsOneLineAndExitTwo) {
  TempDir dir;
  auto out = (dir.path() / "r.json").string();
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"--min-bytes", "1G", "--max-bytes", "1M"}, "--min-bytes"},
      {{"--factor", "1"}, "--factor"},
      {{"--ops", "all_reduce,allreduce"}, "--ops: unknown value 'allreduce'"},
      {{"--dtype", "fp64"}, "--dtype: unknown value 'fp64'"},
      {{"--iters", "0"}, "--iters"},
      // Beyond a day: refused before any wait (a time point that far would overflow the clock).
      {{"--timeout", "99999999999999999999"}, "--timeout: 99999999999999999999 is out of range"},
      {{"--timeout", "25h"}, "--timeout: 25h is out of range"},
  };
  for (const auto& [args, needle] : cases) {
    std::vector<std::string> argv{"nccl", "-o", out};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = run_cli(argv);
    EXPECT_EQ(r.rc, 2) << needle << "\n" << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out));
  }
  auto addr = run_cli({"nccl", "-o", out}, {"RANK=0", "WORLD_SIZE=2", "MASTER_ADDR=10.0.0.300"});
  EXPECT_EQ(addr.rc, 2) << addr.err;
  EXPECT_NE(addr.err.find("MASTER_ADDR='10.0.0.300'"), std::string::npos) << addr.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  auto world = run_cli({"nccl"}, {"RANK=3", "WORLD_SIZE=2", "MASTER_ADDR=127.0.0.1"});
  EXPECT_EQ(world.rc, 2) << world.err;
  // A job token too short to be a secret (a word a person picks, and 31 hex digits): refused before any
  // rendezvous, naming the 32-character minimum, without showing it. The timeout bounds the run should the
  // token pass.
  for (const std::string weak : {"password12345678", "0123456789abcdef0123456789abcde"}) {
    auto token = run_cli(
        {"nccl", "--timeout", "5", "-o", out},
        {"RANK=1", "WORLD_SIZE=2", "MASTER_ADDR=127.0.0.1", "MLBENCH_JOB_ID=j", "MLBENCH_JOB_TOKEN=" + weak});
    EXPECT_EQ(token.rc, 2) << token.err;
    EXPECT_NE(token.err.find("MLBENCH_JOB_TOKEN is not a usable job token (it needs 32 to 256 printable"),
              std::string::npos)
        << token.err;
    EXPECT_EQ(token.err.find(weak), std::string::npos) << token.err;
    EXPECT_EQ(std::count(token.err.begin(), token.err.end(), '\n'), 1) << token.err;
    EXPECT_FALSE(std::filesystem::exists(out));
  }
}

TEST(NetCli, SingleProcessWithoutGpuRecordsTheSkip) {
  TempDir dir;
  auto out = dir.path() / "r.json";
  auto r = run_cli({"nccl", "--profile", "quick", "-o", out.string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  auto report = read_json(out);
  expect_nccl_skipped(report);
  EXPECT_FALSE(report.contains("cluster"));
  EXPECT_EQ(validate_report_schema(out), "");
}

TEST(NetCli, ThreeRanksOnLocalhostMergeIntoOneClusterReport) {
  TempDir dir;
  auto out = dir.path() / "cluster.json";
  const int port = free_port();
  constexpr int kWorld = 3;
  std::vector<std::future<CliResult>> ranks;
  for (int r = kWorld - 1; r >= 0; --r) {
    std::vector<std::string> args{"nccl", "--profile", "quick", "--timeout", "60"};
    if (r == 0) args.insert(args.end(), {"-o", out.string()});
    ranks.push_back(
        std::async(std::launch::async, [args, r, port] { return run_cli(args, rank_env(r, kWorld, port)); }));
  }
  for (auto& f : ranks) {
    auto res = f.get();
    EXPECT_EQ(res.rc, 0) << res.err;
  }
  ASSERT_TRUE(std::filesystem::exists(out));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1);  // one merged report
  auto report = read_json(out);
  ASSERT_TRUE(report.contains("cluster"));
  const auto& cluster = report["cluster"];
  EXPECT_EQ(cluster["world_size"], kWorld);
  EXPECT_EQ(cluster["launcher"], "torchrun");
  EXPECT_EQ(cluster["bootstrap"], "tcp 127.0.0.1:" + std::to_string(port));
  ASSERT_EQ(cluster["ranks"].size(), static_cast<std::size_t>(kWorld));
  for (int r = 0; r < kWorld; ++r) {
    const auto& e = cluster["ranks"][static_cast<std::size_t>(r)];
    EXPECT_EQ(e["rank"], r);
    EXPECT_EQ(e["local_rank"], r);
    EXPECT_TRUE(e["node"].is_string());
    EXPECT_TRUE(e["gpu"].is_null());  // no GPU here
    EXPECT_TRUE(e["host"].contains("cpu"));
  }
  expect_nccl_skipped(report);
  EXPECT_NE(report["results"][0]["reason"].get<std::string>().find("rank"), std::string::npos);
  EXPECT_EQ(validate_report_schema(out), "");
}

TEST(NetCli, RendezvousWithAMissingPeerEndsWithinItsTimeoutNamingIt) {
  TempDir dir;
  auto out = dir.path() / "cluster.json";
  const int port = free_port();
  // Rank 2 first: it retries every 100 ms until rank 0 listens, so it is in well within rank 0's 2 s however
  // slowly either process starts; rank 1 never comes.
  auto peer = spawn_cli({"nccl", "--timeout", "60"}, rank_env(2, 3, port));
  auto root = run_cli({"nccl", "--timeout", "2", "-o", out.string()}, rank_env(0, 3, port));
  EXPECT_EQ(root.rc, 1) << root.err;
  EXPECT_NE(root.err.find("rank 1 of 3 never arrived"), std::string::npos) << root.err;
  auto p = peer.wait_for(30s);
  ASSERT_TRUE(p) << "rank 2 went on waiting after rank 0 ended";
  EXPECT_NE(p->rc, 0);
  EXPECT_FALSE(std::filesystem::exists(out));
}

// `env` with NAME set to `value` (added when missing).
std::vector<std::string> with_var(std::vector<std::string> env, const std::string& name,
                                  const std::string& value) {
  std::erase_if(env, [&name](const std::string& e) { return e.starts_with(name + "="); });
  env.push_back(name + "=" + value);
  return env;
}

std::size_t count_lines(const std::string& s) {
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

TEST(NetCli, AnotherJobsRankIsRefusedWithOneLineNamingBothIdsAndTheRendezvousGoesOn) {
  TempDir dir;
  const int port = free_port();
  const std::vector<std::string> args{"nccl", "--profile", "quick", "--timeout", "60"};
  auto rank0 = spawn_cli(args, with_var(rank_env(0, 2, port), "TORCHELASTIC_RUN_ID", "job-a"));
  auto other = run_cli(args, with_var(rank_env(1, 2, port), "TORCHELASTIC_RUN_ID", "job-b"));
  EXPECT_EQ(other.rc, 2) << other.err;
  EXPECT_EQ(count_lines(other.err), 1u) << other.err;
  EXPECT_NE(other.err.find("refused rank 1 of job 'job-b': rank 0 runs job 'job-a' (TORCHELASTIC_RUN_ID)"),
            std::string::npos)
      << other.err;
  auto mine = run_cli(args, with_var(rank_env(1, 2, port), "TORCHELASTIC_RUN_ID", "job-a"));
  EXPECT_EQ(mine.rc, 0) << mine.err;
  auto r0 = rank0.wait_for(kEnds);
  ASSERT_TRUE(r0) << "rank 0 hung";
  EXPECT_EQ(r0->rc, 0) << r0->err;
  EXPECT_EQ(count_lines(r0->err), 1u) << r0->err;
  EXPECT_NE(r0->err.find("mlbench: warning: rendezvous on 127.0.0.1:" + std::to_string(port) +
                         " refused a connection from 127.0.0.1:"),
            std::string::npos)
      << r0->err;
  EXPECT_NE(r0->err.find("claiming rank 1 of job 'job-b': rank 0 runs job 'job-a'"), std::string::npos)
      << r0->err;
}

TEST(NetCli, WithoutAJobIdRankZeroPrintsOneAndTheOtherRanksMustBeGivenIt) {
  const int port = free_port();
  auto env0 = rank_env(0, 2, port);
  auto env1 = rank_env(1, 2, port);
  // An empty variable counts as unset: none of the launcher ids reaches the ranks, whatever this test
  // inherits.
  for (const char* name : {"MLBENCH_JOB_ID", "TORCHELASTIC_RUN_ID", "PMIX_NAMESPACE",
                           "OMPI_MCA_ess_base_jobid", "OMPI_MCA_orte_ess_jobid", "SLURM_JOB_ID"}) {
    env0 = with_var(env0, name, "");
    env1 = with_var(env1, name, "");
  }
  const std::vector<std::string> args{"nccl", "--profile", "quick", "--timeout", "3"};
  auto rank0 = spawn_cli(args, env0);
  auto peer = run_cli(args, env1);
  EXPECT_EQ(peer.rc, 2) << peer.err;
  EXPECT_EQ(count_lines(peer.err), 1u) << peer.err;
  EXPECT_NE(peer.err.find("rank 1 has no job id"), std::string::npos) << peer.err;
  EXPECT_NE(peer.err.find("set MLBENCH_JOB_ID to the id rank 0 printed"), std::string::npos) << peer.err;
  auto r0 = rank0.wait_for(kEnds);
  ASSERT_TRUE(r0) << "rank 0 hung";
  EXPECT_EQ(r0->rc, 1) << r0->err;
  EXPECT_NE(r0->err.find("rank 1 of 2 never arrived"), std::string::npos) << r0->err;
  // The id it printed, and how to pass it on.
  const std::string pass_on = "start the other ranks with MLBENCH_JOB_ID=";
  const auto at = r0->err.find(pass_on);
  ASSERT_NE(at, std::string::npos) << r0->err;
  const auto id = r0->err.substr(at + pass_on.size(), 32);
  EXPECT_EQ(std::count_if(id.begin(), id.end(), [](char c) { return std::isxdigit(c) != 0; }), 32) << r0->err;
  EXPECT_NE(r0->err.find("this rendezvous is job '" + id + "'"), std::string::npos) << r0->err;
}

// Reads exactly n bytes; false when the connection closes or stays silent for kEnds.
bool read_exact(int fd, char* p, std::size_t n) {
  while (n > 0) {
    pollfd pfd{fd, POLLIN, 0};
    if (::poll(&pfd, 1, static_cast<int>(std::chrono::milliseconds(kEnds).count())) <= 0) return false;
    ssize_t r = ::recv(fd, p, n, 0);
    if (r <= 0) return false;
    p += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}

// What a proxy does to a frame's body on its way.
using Rewrite = std::function<std::string(const std::string&)>;

// Copies one frame of the bootstrap (network/bootstrap.hpp: an 8-byte little-endian length, then the body),
// through `rewrite` when given, and appends what passed (as it arrived) to `seen`.
bool forward_frame(int from, int to, std::string& seen, const Rewrite& rewrite = {}) {
  char header[8];
  if (!read_exact(from, header, sizeof header)) return false;
  std::uint64_t length = 0;
  for (int i = 0; i < 8; ++i) length |= std::uint64_t{static_cast<unsigned char>(header[i])} << (8 * i);
  if (length > (std::uint64_t{1} << 30)) return false;
  std::string body(length, '\0');
  if (!read_exact(from, body.data(), length)) return false;
  seen.append(header, sizeof header).append(body);
  if (rewrite) body = rewrite(body);
  std::string frame(8, '\0');
  for (int i = 0; i < 8; ++i)
    frame[i] = static_cast<char>(static_cast<std::uint64_t>(body.size()) >> (8 * i));
  frame += body;
  return ::send(to, frame.data(), frame.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(frame.size());
}

// Stands between one rank and rank 0 (the rank's MASTER_PORT is the proxy's): it passes the rendezvous (rank
// 0's challenge, the rank's introduction and rank 0's answer, the rank's hello and rank 0's decision), after
// which the rank is measuring, and holds everything else, so that the test can kill a rank exactly then: on
// the skip path the measurement is over in a moment, and a rank's results must not reach rank 0 before the
// kill. It can also rewrite the rank's hello or results, as a rank that lies would send them.
class RendezvousProxy {
 public:
  explicit RendezvousProxy(int root_port) : root_port_(root_port) {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a = loopback(0);
    socklen_t len = sizeof a;
    if (::bind(listener_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(listener_, 1) != 0 ||
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
      ADD_FAILURE() << "proxy: " << std::strerror(errno);
    }
    port_ = ntohs(a.sin_port);
  }
  ~RendezvousProxy() {
    cut();
    ::close(listener_);
  }
  RendezvousProxy(const RendezvousProxy&) = delete;
  RendezvousProxy& operator=(const RendezvousProxy&) = delete;

  int port() const { return port_; }

  // True once the rank behind it has rank 0's decision; its hello goes through `hello` when given.
  bool pass_rendezvous(const Rewrite& hello = {}) {
    return connect_both() && to_rank() && to_root() && to_rank() && to_root(hello) && to_rank();
  }
  // One frame each way.
  bool to_root(const Rewrite& rewrite = {}) { return forward_frame(rank_, root_, seen_, rewrite); }
  bool to_rank() { return forward_frame(root_, rank_, seen_); }
  // Every byte that passed so far.
  const std::string& seen() const { return seen_; }

  // Accepts the rank and connects to rank 0.
  bool connect_both() {
    pollfd pfd{listener_, POLLIN, 0};
    if (::poll(&pfd, 1, static_cast<int>(std::chrono::milliseconds(kEnds).count())) <= 0) return false;
    rank_ = ::accept(listener_, nullptr, nullptr);
    const auto end = std::chrono::steady_clock::now() + kEnds;
    while (root_ < 0 && std::chrono::steady_clock::now() < end) {
      int s = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in a = loopback(root_port_);
      if (::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
        root_ = s;
      } else {
        ::close(s);
        std::this_thread::sleep_for(20ms);
      }
    }
    return rank_ >= 0 && root_ >= 0;
  }

  // Closes both connections: each side sees the other vanish.
  void cut() {
    for (int* fd : {&rank_, &root_}) {
      if (*fd >= 0) ::close(*fd);
      *fd = -1;
    }
  }

 private:
  static sockaddr_in loopback(int port) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    return a;
  }

  int root_port_, port_ = 0;
  int listener_ = -1, rank_ = -1, root_ = -1;
  std::string seen_;
};

TEST(NetCli, ARankKilledDuringTheMeasurementFailsEverySurvivor) {
  TempDir dir;
  auto out = dir.path() / "cluster.json";
  const int port = free_port();
  RendezvousProxy proxy(port);
  const std::vector<std::string> args{"nccl", "--profile", "quick", "--timeout", "300"};
  auto with_output = args;
  with_output.insert(with_output.end(), {"-o", out.string()});
  auto rank0 = spawn_cli(with_output, rank_env(0, 3, port));
  auto rank1 = spawn_cli(args, rank_env(1, 3, port));
  auto rank2 = spawn_cli(args, with_var(rank_env(2, 3, port), "MASTER_PORT", std::to_string(proxy.port())));
  ASSERT_TRUE(proxy.pass_rendezvous()) << "rank 2 never got through the rendezvous";
  rank2.kill(SIGKILL);
  EXPECT_EQ(rank2.wait().signal, SIGKILL);
  proxy.cut();
  auto r0 = rank0.wait_for(kEnds);
  auto r1 = rank1.wait_for(kEnds);
  ASSERT_TRUE(r0) << "rank 0 hung on a rank that died";
  ASSERT_TRUE(r1) << "rank 1 hung on a rank that died";
  EXPECT_EQ(r0->rc, 1) << r0->err;
  EXPECT_EQ(count_lines(r0->err), 1u) << r0->err;
  EXPECT_NE(r0->err.find("mlbench: error: rank 2 closed the connection (it probably died)"),
            std::string::npos)
      << r0->err;
  // Rank 1's own results were fine: it fails because rank 0 says the world lost a rank.
  EXPECT_EQ(r1->rc, 1) << r1->err;
  EXPECT_EQ(count_lines(r1->err), 1u) << r1->err;
  EXPECT_NE(
      r1->err.find("rank 0 reports the run incomplete: rank 2 closed the connection (it probably died)"),
      std::string::npos)
      << r1->err;
  ASSERT_TRUE(std::filesystem::exists(out));
  auto report = read_json(out);
  ASSERT_TRUE(report["cluster"].contains("incomplete"));
  EXPECT_NE(report["cluster"]["incomplete"].get<std::string>().find("rank 2"), std::string::npos);
  EXPECT_EQ(validate_report_schema(out), "");
}

TEST(NetCli, RankZeroKilledDuringTheMeasurementFailsEveryRank) {
  const int port = free_port();
  RendezvousProxy proxy(port);
  const std::vector<std::string> args{"nccl", "--profile", "quick", "--timeout", "300"};
  auto rank0 = spawn_cli(args, rank_env(0, 3, port));
  auto rank1 = spawn_cli(args, rank_env(1, 3, port));
  auto rank2 = spawn_cli(args, with_var(rank_env(2, 3, port), "MASTER_PORT", std::to_string(proxy.port())));
  // Rank 0 now waits for rank 2's results, which the proxy holds.
  ASSERT_TRUE(proxy.pass_rendezvous()) << "rank 2 never got through the rendezvous";
  rank0.kill(SIGKILL);
  EXPECT_EQ(rank0.wait().signal, SIGKILL);
  proxy.cut();
  for (auto* rank : {&rank1, &rank2}) {
    auto r = rank->wait_for(kEnds);
    ASSERT_TRUE(r) << "a rank hung on a dead rank 0";
    EXPECT_EQ(r->rc, 1) << r->err;
    EXPECT_EQ(count_lines(r->err), 1u) << r->err;
    EXPECT_NE(r->err.find("rank 0"), std::string::npos) << r->err;
    EXPECT_NE(r->err.find("died"), std::string::npos) << r->err;
  }
}

TEST(NetCli, MpirunTwoRanksOnLocalhostMergeIntoOneClusterReport) {
  if (!MLBENCH_HAS_MPI) GTEST_SKIP() << "built without MPI";
  const char* mpirun = "/usr/bin/mpirun";
  if (::access(mpirun, X_OK) != 0) GTEST_SKIP() << "mpirun not installed";
  TempDir dir;
  auto out = dir.path() / "cluster.json";
  // Loopback only: MPI's own wire-up and transport stay on 127.0.0.1.
  // Open MPI keeps allocations past MPI_Finalize in components it has unloaded (LeakSanitizer cannot name
  // them to suppress them): leak checking is off for the ranks of this test only (no-op without ASan).
  auto r = spawn_program({mpirun,
                          "-np",
                          "2",
                          "--allow-run-as-root",
                          "--oversubscribe",
                          "--mca",
                          "btl",
                          "self,tcp",
                          "--mca",
                          "btl_tcp_if_include",
                          "lo",
                          "--mca",
                          "oob_tcp_if_include",
                          "lo",
                          MLBENCH_EXE,
                          "nccl",
                          "--profile",
                          "quick",
                          "--timeout",
                          "60",
                          "-o",
                          out.string()},
                         {"LSAN_OPTIONS=detect_leaks=0"})
               .wait();
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  auto report = read_json(out);
  ASSERT_TRUE(report.contains("cluster"));
  EXPECT_EQ(report["cluster"]["world_size"], 2);
  EXPECT_EQ(report["cluster"]["bootstrap"], "mpi");
  EXPECT_EQ(report["cluster"]["launcher"], "openmpi");
  ASSERT_EQ(report["cluster"]["ranks"].size(), 2u);
  EXPECT_EQ(report["cluster"]["ranks"][1]["rank"], 1);
  expect_nccl_skipped(report);
  EXPECT_EQ(validate_report_schema(out), "");
}

// ---- Ctrl-C, the job token, and ranks that lie.

// Far below the --timeout these tests give (300 s): ending within it proves the signal was heeded.
constexpr auto kHeeded = 10s;

TEST(NetCli, CtrlCEndsEveryWaitOfTheRendezvousWithExit130) {
  // Alone, rank 0 waits for its ranks.
  const int lone_port = free_port();
  const std::vector<std::string> args{"nccl", "--profile", "quick", "--timeout", "300"};
  auto lone = spawn_cli(args, rank_env(0, 2, lone_port));
  // It listens once its Ctrl-C handler is in place (cli/nccl.cpp): a signal before that would kill it.
  ASSERT_TRUE(wait_for_sockets(lone_port, TcpSockets::listening, 1)) << "rank 0 never listened";
  lone.kill(SIGINT);
  auto l = lone.wait_for(kHeeded);
  ASSERT_TRUE(l) << "rank 0 ignored SIGINT while it waited for its ranks";
  EXPECT_EQ(l->signal, 0);
  EXPECT_EQ(l->rc, 130) << l->err;
  EXPECT_EQ(l->err, "mlbench: interrupted during the rendezvous of rank 0\n");

  // Rank 2's results are held by the proxy: rank 0 waits in the final gather, rank 1 for the final status.
  TempDir dir;
  auto out = dir.path() / "cluster.json";
  const int port = free_port();
  RendezvousProxy proxy(port);
  auto with_output = args;
  with_output.insert(with_output.end(), {"-o", out.string()});
  // Rank 1 through a proxy too, whose forwarding of its results says it has measured and waits.
  RendezvousProxy proxy1(port);
  auto rank0 = spawn_cli(with_output, rank_env(0, 3, port));
  auto rank1 = spawn_cli(args, with_var(rank_env(1, 3, port), "MASTER_PORT", std::to_string(proxy1.port())));
  auto rank2 = spawn_cli(args, with_var(rank_env(2, 3, port), "MASTER_PORT", std::to_string(proxy.port())));
  // Rank 0 decides once both hellos are in: the two proxies pass the rendezvous side by side.
  auto passed1 = std::async(std::launch::async, [&] { return proxy1.pass_rendezvous(); });
  ASSERT_TRUE(proxy.pass_rendezvous()) << "rank 2 never got through the rendezvous";
  ASSERT_TRUE(passed1.get()) << "rank 1 never got through the rendezvous";
  ASSERT_TRUE(proxy1.to_root()) << "rank 1's results never came";  // rank 1 now waits for the final status
  rank1.kill(SIGINT);
  auto r1 = rank1.wait_for(kHeeded);
  ASSERT_TRUE(r1) << "rank 1 ignored SIGINT while it waited for the final status";
  EXPECT_EQ(r1->rc, 130) << r1->err;
  EXPECT_EQ(r1->err, "mlbench: interrupted during the rendezvous of rank 1\n");
  rank0.kill(SIGINT);
  auto r0 = rank0.wait_for(kHeeded);
  ASSERT_TRUE(r0) << "rank 0 ignored SIGINT while it waited for the results";
  EXPECT_EQ(r0->rc, 130) << r0->err;
  EXPECT_NE(r0->err.find("mlbench: interrupted"), std::string::npos) << r0->err;
  // Rank 0 writes what it has, saying that the other ranks' results are missing.
  ASSERT_TRUE(std::filesystem::exists(out));
  auto report = read_json(out);
  EXPECT_NE(report["cluster"]["incomplete"].get<std::string>().find("interrupted on rank 0"),
            std::string::npos)
      << report["cluster"].dump();
  EXPECT_EQ(validate_report_schema(out), "");
  // The job token never crossed the wire.
  EXPECT_NE(proxy.seen().find("mlbench-bootstrap-3"), std::string::npos);
  EXPECT_EQ(proxy.seen().find(job_token(port)), std::string::npos);
}

TEST(NetCli, AStrangerWithTheJobIdButAnotherTokenIsRefusedAndTheRealRankJoins) {
  const int port = free_port();
  const std::vector<std::string> args{"nccl", "--profile", "quick", "--timeout", "60"};
  auto rank0 = spawn_cli(args, rank_env(0, 2, port));
  // The job id (torchrun's run id here, a Slurm id elsewhere) is a name anyone may guess; the token is not.
  const std::string guessed = "guessed-token-0123456789abcdef01";
  for (const std::string& token : {guessed, std::string()}) {
    auto stranger = run_cli(args, with_var(rank_env(1, 2, port), "MLBENCH_JOB_TOKEN", token));
    EXPECT_EQ(stranger.rc, 2) << stranger.err;
    EXPECT_EQ(count_lines(stranger.err), 1u) << stranger.err;
    EXPECT_NE(
        stranger.err.find(token.empty() ? "rank 1 has no MLBENCH_JOB_TOKEN"
                                        : "refused rank 1 of job 'mlbench-test-" + std::to_string(port) +
                                              "': the proof of the job token is wrong"),
        std::string::npos)
        << stranger.err;
  }
  // Another job id and another token: told that its proof is wrong, never rank 0's job id or its source.
  auto other = run_cli(args, with_var(with_var(rank_env(1, 2, port), "MLBENCH_JOB_TOKEN", guessed),
                                      "TORCHELASTIC_RUN_ID", "job-b"));
  EXPECT_EQ(other.rc, 2) << other.err;
  EXPECT_EQ(count_lines(other.err), 1u) << other.err;
  EXPECT_NE(other.err.find("refused rank 1 of job 'job-b': the proof of the job token is wrong"),
            std::string::npos)
      << other.err;
  EXPECT_EQ(other.err.find("mlbench-test-"), std::string::npos) << other.err;
  EXPECT_EQ(other.err.find("TORCHELASTIC_RUN_ID"), std::string::npos) << other.err;
  auto mine = run_cli(args, rank_env(1, 2, port));
  EXPECT_EQ(mine.rc, 0) << mine.err;
  auto r0 = rank0.wait_for(kEnds);
  ASSERT_TRUE(r0) << "rank 0 hung";
  EXPECT_EQ(r0->rc, 0) << r0->err;
  EXPECT_EQ(count_lines(r0->err), 2u) << r0->err;
  EXPECT_NE(r0->err.find("claiming rank 1 of job 'mlbench-test-" + std::to_string(port) +
                         "': the proof of the job token is wrong"),
            std::string::npos)
      << r0->err;
}

// Rank 0 and rank 1, rank 1 behind a proxy that passes its hello through `hello` and, when given, its results
// through `results`. Returns both ranks' outcomes; no report may be written.
std::pair<CliResult, CliResult> run_with_a_lying_rank(const Rewrite& hello, const Rewrite& results = {}) {
  TempDir dir;
  auto out = dir.path() / "cluster.json";
  const int port = free_port();
  RendezvousProxy proxy(port);
  const std::vector<std::string> args{"nccl", "--profile", "quick", "--timeout", "60"};
  auto with_output = args;
  with_output.insert(with_output.end(), {"-o", out.string()});
  auto rank0 = spawn_cli(with_output, rank_env(0, 2, port));
  auto rank1 = spawn_cli(args, with_var(rank_env(1, 2, port), "MASTER_PORT", std::to_string(proxy.port())));
  EXPECT_TRUE(proxy.pass_rendezvous(hello)) << "rank 1 never got through the rendezvous";
  if (results) {
    EXPECT_TRUE(proxy.to_root(results)) << "rank 1 sent no results";
    proxy.to_rank();  // the final status
  }
  auto r0 = rank0.wait_for(kEnds);
  auto r1 = rank1.wait_for(kEnds);
  EXPECT_TRUE(r0 && r1) << "a rank hung on a lying rank";
  if (!r0 || !r1) return {};
  EXPECT_EQ(proxy.seen().find(job_token(port)), std::string::npos);
  if (!results) {
    EXPECT_FALSE(std::filesystem::exists(out)) << "a report of a world with a lying rank";
  }
  return {*r0, *r1};
}

// Rank 0 and rank 1 both fail with exit 1 and the one line that names `needle`, with no JSON parser text and
// no raw byte of the liar's.
void expect_both_fail_naming(const std::pair<CliResult, CliResult>& ranks, const std::string& needle) {
  for (const CliResult* r : {&ranks.first, &ranks.second}) {
    EXPECT_EQ(r->rc, 1) << r->err;
    EXPECT_EQ(count_lines(r->err), 1u) << r->err;
    EXPECT_NE(r->err.find(needle), std::string::npos) << r->err;
    EXPECT_EQ(r->err.find("json.exception"), std::string::npos) << r->err;
    EXPECT_TRUE(std::all_of(r->err.begin(), r->err.end(), [](char ch) {
      return ch == '\n' || (ch >= ' ' && ch < 0x7f);
    })) << r->err;
  }
}

TEST(NetCli, AHelloClaimingRankZeroFailsEveryRankWithOneLine) {
  auto ranks = run_with_a_lying_rank([](const std::string& body) {
    auto hello = json::parse(body);
    hello["rank"] = 0;
    hello["node"] = "evil-node";
    return hello.dump();
  });
  expect_both_fail_naming(ranks, "rank 1's hello: field 'rank' must be 1, the rank its connection joined as");
}

TEST(NetCli, AHelloOfWrongTypesOrRawBytesFailsEveryRankWithOneLine) {
  expect_both_fail_naming(run_with_a_lying_rank([](const std::string& body) {
                            auto hello = json::parse(body);
                            hello["local_rank"] = "one";
                            return hello.dump();
                          }),
                          "rank 1's hello: field 'local_rank' must be an integer");
  expect_both_fail_naming(run_with_a_lying_rank([](const std::string&) {
                            return std::string("{\"rank\": 1, \"node\": \"\xff\x1b[2J\"}");
                          }),
                          "rank 1's hello: not valid JSON");
}

TEST(NetCli, ResultsOfWrongTypesOrRawBytesFailEveryRankWithOneLine) {
  const auto keep = [](const std::string& body) { return body; };
  expect_both_fail_naming(
      run_with_a_lying_rank(keep,
                            [](const std::string& body) {
                              auto results = json::parse(body);
                              results[0]["status"] = 5;
                              return results.dump();
                            }),
      "rank 1's results: [0]: not a valid mlbench result (result.status: expected a string)");
  expect_both_fail_naming(
      run_with_a_lying_rank(
          keep, [](const std::string&) { return std::string("[{\"probe\": \"\xff\xfe\x07\"}]"); }),
      "rank 1's results: not valid JSON");
}

}  // namespace
}  // namespace mlbench::test
