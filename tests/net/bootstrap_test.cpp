// The TCP bootstrap for real on 127.0.0.1: ranks are threads of this test, each with its own sockets; the
// strangers (another job's rank, garbage, a flood of silent connections) are raw sockets of the test. And the
// wire format's pure functions.
#include "network/bootstrap.hpp"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <future>
#include <thread>

#include <fmt/format.h>

#include "base/error.hpp"

namespace mlbench::net {
namespace {

// A port the kernel just handed out on 127.0.0.1 (closed again, so it is free for the test's rank 0).
const JobId kJob{"job-a", "MLBENCH_JOB_ID"};

int free_port() {
  int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  socklen_t len = sizeof a;
  ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(s);
  return ntohs(a.sin_port);
}

TEST(TcpBootstrap, FourRanksBroadcastAndGather) {
  const int port = free_port();
  constexpr int kWorld = 4;
  std::vector<std::future<std::pair<std::string, std::vector<std::string>>>> ranks;
  for (int r = kWorld - 1; r >= 0; --r) {  // rank 0 last: the others must retry until it listens
    ranks.push_back(std::async(std::launch::async, [r, port] {
      TcpBootstrap boot(r, kWorld, "127.0.0.1", port, 20, kJob);
      EXPECT_EQ(boot.rank(), r);
      auto id = boot.broadcast(r == 0 ? std::string("unique-id\0bytes", 15) : std::string());
      auto all = boot.gather("hello from " + std::to_string(r));
      auto second = boot.gather(std::string(100000, static_cast<char>('a' + r)));  // larger than one read
      if (r == 0) {
        EXPECT_EQ(second.size(), static_cast<std::size_t>(kWorld));
        for (int q = 0; q < kWorld; ++q)
          EXPECT_EQ(second[q], std::string(100000, static_cast<char>('a' + q)));
      }
      return std::make_pair(id, all);
    }));
  }
  for (auto& f : ranks) {
    auto [id, all] = f.get();
    EXPECT_EQ(id, std::string("unique-id\0bytes", 15));
    if (!all.empty()) {
      ASSERT_EQ(all.size(), static_cast<std::size_t>(kWorld));
      for (int q = 0; q < kWorld; ++q) EXPECT_EQ(all[q], "hello from " + std::to_string(q));
    }
  }
}

TEST(TcpBootstrap, RootNamesTheRanksThatNeverArrived) {
  const int port = free_port();
  auto peer = std::async(std::launch::async, [port] {
    try {
      TcpBootstrap boot(2, 4, "127.0.0.1", port, 5, kJob);
      boot.broadcast("");
    } catch (const Error&) {
      // rank 0 gave up: this rank sees the connection close.
    }
  });
  auto start = std::chrono::steady_clock::now();
  try {
    TcpBootstrap root(0, 4, "127.0.0.1", port, 1, kJob);
    FAIL() << "rendezvous completed without ranks 1 and 3";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("ranks 1, 3 of 4 never arrived"), std::string::npos) << msg;
    EXPECT_NE(msg.find("127.0.0.1"), std::string::npos) << msg;
  }
  // Ends at its timeout, not never (a generous bound: this is not a speed test).
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  peer.get();
}

TEST(TcpBootstrap, PeerGivesUpWhenRankZeroNeverListens) {
  const int port = free_port();
  try {
    TcpBootstrap boot(1, 2, "127.0.0.1", port, 1, kJob);
    FAIL() << "connected to nobody";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("could not reach rank 0 at 127.0.0.1:"), std::string::npos)
        << e.what();
  }
}

TEST(TcpBootstrap, GatherReportsARankThatDied) {
  const int port = free_port();
  auto peer = std::async(std::launch::async, [port] {
    TcpBootstrap boot(1, 2, "127.0.0.1", port, 10, kJob);
    boot.broadcast("");
    // Leaves without sending its results: the socket closes when boot is destroyed.
  });
  TcpBootstrap root(0, 2, "127.0.0.1", port, 10, kJob);
  root.broadcast("id");
  peer.get();
  try {
    root.gather("mine");
    FAIL() << "gathered from a dead rank";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("rank 1 closed the connection"), std::string::npos) << e.what();
  }
}

TEST(TcpBootstrap, MissingMasterAddrIsAUsageError) {
  EXPECT_THROW(TcpBootstrap(1, 2, "", 29500, 1, kJob), UsageError);
}

// ---- The wire format.

TEST(BootstrapWire, FramesRoundTripAndTheDecoderStopsAtTheFrameEnd) {
  const std::string two = encode_frame("first") + encode_frame("second");
  FrameDecoder d(100);
  EXPECT_EQ(d.feed(two), 8u + 5u);  // not a byte of the next frame
  ASSERT_TRUE(d.done());
  EXPECT_EQ(d.body(), "first");
  FrameDecoder bytewise(100);
  for (std::size_t i = 13; i < two.size(); ++i) {
    EXPECT_FALSE(bytewise.done());
    EXPECT_EQ(bytewise.feed(std::string_view(two).substr(i, 1)), 1u);
  }
  ASSERT_TRUE(bytewise.done());
  EXPECT_EQ(bytewise.body(), "second");
  FrameDecoder empty(0);
  empty.feed(encode_frame(""));
  EXPECT_TRUE(empty.done());
}

TEST(BootstrapWire, AnOversizedLengthIsRefusedBeforeTheBody) {
  FrameDecoder d(kMaxIntroduction);
  const std::string frame = encode_frame(std::string(kMaxIntroduction + 1, 'x'));
  try {
    d.feed(frame);
    FAIL() << "took a frame over its limit";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(
                  fmt::format("{} bytes, more than the {} allowed", kMaxIntroduction + 1, kMaxIntroduction)),
              std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(d.body().empty());
}

TEST(BootstrapWire, IntroductionsParseOnlyInTheirCanonicalForm) {
  const std::string good = format_introduction({3, 8, "slurm-123.0"});
  EXPECT_EQ(good, "mlbench-bootstrap-2 3 8 slurm-123.0");
  std::string why;
  auto intro = parse_introduction(good, why);
  ASSERT_TRUE(intro) << why;
  EXPECT_EQ(intro->rank, 3);
  EXPECT_EQ(intro->world_size, 8);
  EXPECT_EQ(intro->job_id, "slurm-123.0");
  EXPECT_EQ(format_introduction(*intro), good);
  for (const char* bad :
       {"", "mlbench-bootstrap-1 3 8 j", "mlbench-bootstrap-2", "mlbench-bootstrap-2 3 8",
        "mlbench-bootstrap-2 3 8 j extra", "mlbench-bootstrap-2 03 8 j", "mlbench-bootstrap-2 +3 8 j",
        "mlbench-bootstrap-2 3 0 j", "mlbench-bootstrap-2 3  8 j", "mlbench-bootstrap-2 3 8 j\n",
        "mlbench-bootstrap-2 -1 8 j", "mlbench-bootstrap-2 9999999999 8 j", "mlbench-bootstrap-2 3 8 j ",
        "GET / HTTP/1.1"}) {
    why.clear();
    EXPECT_FALSE(parse_introduction(bad, why)) << bad;
    EXPECT_FALSE(why.empty()) << bad;
  }
  EXPECT_FALSE(parse_introduction("mlbench-bootstrap-2 1 2 " + std::string(kMaxJobIdLength + 1, 'j'), why));
  EXPECT_TRUE(parse_introduction("mlbench-bootstrap-2 1 2 " + std::string(kMaxJobIdLength, 'j'), why));
}

TEST(BootstrapWire, AnswersParseOnlyInTheirCanonicalForm) {
  auto ok = parse_answer(format_answer({true, {}}));
  ASSERT_TRUE(ok);
  EXPECT_TRUE(ok->admitted);
  auto no = parse_answer(format_answer({false, "rank 1 has already joined"}));
  ASSERT_TRUE(no);
  EXPECT_FALSE(no->admitted);
  EXPECT_EQ(no->reason, "rank 1 has already joined");
  // A reason with a control character is sent with '?' in its place, never as a second line.
  EXPECT_EQ(parse_answer(format_answer({false, "a\nb"}))->reason, "a?b");
  for (const char* bad :
       {"", "mlbench-bootstrap-2", "mlbench-bootstrap-2 okay", "mlbench-bootstrap-2 refused ",
        "mlbench-bootstrap-2 refused a\nb", "mlbench-bootstrap-1 ok", "HTTP/1.1 400"}) {
    EXPECT_FALSE(parse_answer(bad)) << bad;
  }
}

TEST(BootstrapWire, RankZeroJudgesJobWorldAndRank) {
  const JobId job{"1234.0", "SLURM_JOB_ID.SLURM_STEP_ID"};
  const std::vector<bool> joined{true, true, false, false};
  EXPECT_EQ(judge_introduction({2, 4, "1234.0"}, job, joined), "");
  auto other_job = judge_introduction({2, 4, "5678.0"}, job, joined);
  EXPECT_NE(
      other_job.find("rank 0 runs job '1234.0' (SLURM_JOB_ID.SLURM_STEP_ID), this process job '5678.0'"),
      std::string::npos)
      << other_job;
  EXPECT_NE(judge_introduction({2, 8, "1234.0"}, job, joined).find("world of 4 ranks, this rank with 8"),
            std::string::npos);
  EXPECT_NE(judge_introduction({1, 4, "1234.0"}, job, joined).find("rank 1 has already joined"),
            std::string::npos);
  EXPECT_NE(judge_introduction({0, 4, "1234.0"}, job, joined).find("not one of the ranks 1 to 3"),
            std::string::npos);
  EXPECT_NE(judge_introduction({4, 4, "1234.0"}, job, joined).find("not one of the ranks 1 to 3"),
            std::string::npos);
}

TEST(BootstrapWire, WithoutALauncherIdRankZeroMakesOneAndTheOthersAskForIt) {
  EXPECT_EQ(rendezvous_job_id(3, kJob).value, "job-a");
  auto made = rendezvous_job_id(0, std::nullopt);
  EXPECT_EQ(made.value.size(), 32u);
  EXPECT_TRUE(valid_job_id(made.value));
  EXPECT_EQ(made.source, "generated by rank 0");
  EXPECT_NE(rendezvous_job_id(0, std::nullopt).value, made.value);
  try {
    rendezvous_job_id(1, std::nullopt);
    FAIL() << "rank 1 without a job id";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("set MLBENCH_JOB_ID to the id rank 0 printed"), std::string::npos)
        << e.what();
  }
}

// ---- Who gets in: refusals over real loopback sockets.

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// A raw client of rank 0, not a TcpBootstrap: connects to 127.0.0.1:port, retrying while rank 0 is not up.
Fd connect_raw(int port) {
  const auto end = Clock::now() + 20s;
  while (Clock::now() < end) {
    Fd s(::socket(AF_INET, SOCK_STREAM, 0));
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    if (::connect(s.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) return s;
    std::this_thread::sleep_for(20ms);
  }
  ADD_FAILURE() << "rank 0 never listened on port " << port;
  return Fd();
}

void send_raw(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t w = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    ASSERT_GT(w, 0) << std::strerror(errno);
    bytes.remove_prefix(static_cast<std::size_t>(w));
  }
}

// Everything received until rank 0 closes the connection (at most 20 s).
std::string read_until_closed(int fd) {
  timeval tv{20, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  std::string all;
  char buf[4096];
  while (true) {
    ssize_t r = ::recv(fd, buf, sizeof buf, 0);
    if (r <= 0) return all;
    all.append(buf, static_cast<std::size_t>(r));
  }
}

// Rank 0's answer in what a raw client received.
std::optional<Answer> answer_in(const std::string& received) {
  FrameDecoder d(kMaxIntroduction);
  d.feed(received);
  return d.done() ? parse_answer(d.body()) : std::nullopt;
}

std::future<std::unique_ptr<TcpBootstrap>> start_root(int world, int port, StrangerLimits limits = {}) {
  return std::async(std::launch::async, [world, port, limits] {
    return std::make_unique<TcpBootstrap>(0, world, "127.0.0.1", port, 30, kJob, limits);
  });
}

TEST(TcpBootstrap, AnotherJobsRankIsRefusedOnBothSidesNamingBothIdsAndTheRendezvousGoesOn) {
  const int port = free_port();
  auto root = start_root(2, port);
  try {
    TcpBootstrap other(1, 2, "127.0.0.1", port, 30, JobId{"job-b", "SLURM_JOB_ID.SLURM_STEP_ID"});
    FAIL() << "another job's rank joined";
  } catch (const UsageError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(fmt::format("rank 0 at 127.0.0.1:{} refused rank 1 of job 'job-b'", port)),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("rank 0 runs job 'job-a' (MLBENCH_JOB_ID)"), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
  TcpBootstrap mine(1, 2, "127.0.0.1", port, 30, kJob);
  auto boot = root.get();
  ASSERT_EQ(boot->refusals().size(), 1u);
  const auto& warning = boot->refusals()[0];
  EXPECT_NE(warning.find("claiming rank 1 of job 'job-b': rank 0 runs job 'job-a'"), std::string::npos)
      << warning;
  EXPECT_NE(warning.find("from 127.0.0.1:"), std::string::npos) << warning;
  boot->broadcast("id");
  EXPECT_EQ(mine.broadcast(""), "id");
}

TEST(TcpBootstrap, OversizedAndGarbageIntroductionsAreDroppedAndTheRendezvousGoesOn) {
  const int port = free_port();
  auto root = start_root(2, port);
  // A header announcing one byte more than an introduction may have: dropped before any of it is buffered.
  Fd big = connect_raw(port);
  send_raw(big.get(),
           encode_frame(std::string(kMaxIntroduction + 1, 'x')).substr(0, 8) + std::string(100, 'x'));
  EXPECT_EQ(read_until_closed(big.get()), "") << "an oversized introduction got an answer";
  // A complete frame that is not an introduction: refused with the reason.
  Fd garbage = connect_raw(port);
  send_raw(garbage.get(), encode_frame("GET / HTTP/1.1"));
  auto answer = answer_in(read_until_closed(garbage.get()));
  ASSERT_TRUE(answer);
  EXPECT_FALSE(answer->admitted);
  EXPECT_NE(answer->reason.find("not an mlbench introduction"), std::string::npos) << answer->reason;
  TcpBootstrap mine(1, 2, "127.0.0.1", port, 30, kJob);
  auto boot = root.get();
  ASSERT_EQ(boot->refusals().size(), 2u);
  EXPECT_NE(boot->refusals()[0].find(fmt::format("more than the {} allowed", kMaxIntroduction)),
            std::string::npos)
      << boot->refusals()[0];
  EXPECT_NE(boot->refusals()[1].find("not an mlbench introduction"), std::string::npos)
      << boot->refusals()[1];
}

TEST(TcpBootstrap, StrangersBeyondTheCapWaitAndSilentOnesAreDropped) {
  const int port = free_port();
  const StrangerLimits limits{4, 1.0};
  const auto start = Clock::now();
  auto root = start_root(2, port, limits);
  // Five silent connections, in this order in the listen queue: rank 0 holds the first four until their
  // second is up; only then is there room for the fifth, which is dropped a second later again.
  std::vector<Fd> silent;
  for (int i = 0; i < 5; ++i) silent.push_back(connect_raw(port));
  EXPECT_EQ(read_until_closed(silent[4].get()), "");
  const std::chrono::duration<double> fifth = Clock::now() - start;
  EXPECT_GE(fifth.count(), 2 * limits.introduction_wait_s)
      << "the fifth stranger was held beside the other four";
  for (int i = 0; i < 4; ++i) EXPECT_EQ(read_until_closed(silent[static_cast<std::size_t>(i)].get()), "");
  TcpBootstrap mine(1, 2, "127.0.0.1", port, 30, kJob);
  auto boot = root.get();
  ASSERT_EQ(boot->refusals().size(), 5u);
  for (const auto& w : boot->refusals()) {
    EXPECT_NE(w.find("no complete introduction within 1 s"), std::string::npos) << w;
  }
}

TEST(TcpBootstrap, TakenOutOfRangeAndWrongWorldRanksAreRefusedAndTheRendezvousGoesOn) {
  const int port = free_port();
  auto root = std::async(std::launch::async, [port] {
    TcpBootstrap boot(0, 3, "127.0.0.1", port, 30, kJob);
    auto all = boot.gather("r0");
    EXPECT_EQ(all, (std::vector<std::string>{"r0", "r1", "r2"}));
    return boot.refusals();
  });
  TcpBootstrap one(1, 3, "127.0.0.1", port, 30, kJob);
  try {
    TcpBootstrap twin(1, 3, "127.0.0.1", port, 30, kJob);
    FAIL() << "rank 1 joined twice";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("rank 1 has already joined"), std::string::npos) << e.what();
  }
  try {
    TcpBootstrap wider(2, 4, "127.0.0.1", port, 30, kJob);
    FAIL() << "a rank of a world of 4 joined a world of 3";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("world of 3 ranks, this rank with 4"), std::string::npos)
        << e.what();
  }
  Fd far = connect_raw(port);
  send_raw(far.get(), encode_frame(format_introduction({7, 3, kJob.value})));
  auto answer = answer_in(read_until_closed(far.get()));
  ASSERT_TRUE(answer);
  EXPECT_FALSE(answer->admitted);
  EXPECT_NE(answer->reason.find("rank 7 is not one of the ranks 1 to 2"), std::string::npos)
      << answer->reason;
  auto two = std::async(std::launch::async, [port] {
    TcpBootstrap boot(2, 3, "127.0.0.1", port, 30, kJob);
    boot.gather("r2");
  });
  one.gather("r1");
  two.get();
  auto refusals = root.get();
  EXPECT_EQ(refusals.size(), 3u);
}

// ---- The final status.

TEST(TcpBootstrap, RankZeroCollectsTheSurvivorsAndTellsThemARankVanished) {
  const int port = free_port();
  auto root = std::async(std::launch::async, [port] {
    TcpBootstrap boot(0, 3, "127.0.0.1", port, 30, kJob);
    boot.broadcast("go");
    std::string error;
    try {
      boot.gather("r0");
    } catch (const Error& e) {
      error = e.what();
    }
    boot.finish(error.empty() ? "ok" : "incomplete");
    return error;
  });
  auto two = std::async(std::launch::async, [port] {
    TcpBootstrap boot(2, 3, "127.0.0.1", port, 30, kJob);
    boot.broadcast("");
    // Leaves without its results: the socket closes when boot is destroyed.
  });
  TcpBootstrap one(1, 3, "127.0.0.1", port, 30, kJob);
  one.broadcast("");
  two.get();
  one.gather("r1");
  EXPECT_EQ(one.finish(""), "incomplete");
  const auto error = root.get();
  EXPECT_EQ(error, "rank 2 closed the connection (it probably died)");
}

TEST(TcpBootstrap, ARankWithoutTheFinalStatusSaysRankZeroDied) {
  const int port = free_port();
  auto root = std::async(std::launch::async, [port] {
    TcpBootstrap boot(0, 2, "127.0.0.1", port, 30, kJob);
    boot.gather("r0");
    // Ends without the final status, as a rank 0 that died would.
  });
  TcpBootstrap one(1, 2, "127.0.0.1", port, 30, kJob);
  one.gather("r1");
  root.get();
  try {
    one.finish("");
    FAIL() << "a final status from a rank 0 that is gone";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("no final status from rank 0"), std::string::npos) << msg;
    EXPECT_NE(msg.find("rank 0 closed the connection (it probably died)"), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace mlbench::net
