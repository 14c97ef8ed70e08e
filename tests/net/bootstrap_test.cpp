// The TCP bootstrap for real on 127.0.0.1: ranks are threads of this test, each with its own sockets.
#include "network/bootstrap.hpp"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

#include "bench/error.hpp"

namespace mlbench::net {
namespace {

// A port the kernel just handed out on 127.0.0.1 (closed again, so it is free for the test's rank 0).
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
      TcpBootstrap boot(r, kWorld, "127.0.0.1", port, 20);
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
      TcpBootstrap boot(2, 4, "127.0.0.1", port, 5);
      boot.broadcast("");
    } catch (const Error&) {
      // rank 0 gave up: this rank sees the connection close.
    }
  });
  auto start = std::chrono::steady_clock::now();
  try {
    TcpBootstrap root(0, 4, "127.0.0.1", port, 1);
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
    TcpBootstrap boot(1, 2, "127.0.0.1", port, 1);
    FAIL() << "connected to nobody";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("could not reach rank 0 at 127.0.0.1:"), std::string::npos)
        << e.what();
  }
}

TEST(TcpBootstrap, GatherReportsARankThatDied) {
  const int port = free_port();
  auto peer = std::async(std::launch::async, [port] {
    TcpBootstrap boot(1, 2, "127.0.0.1", port, 10);
    boot.broadcast("");
    // Leaves without sending its results: the socket closes when boot is destroyed.
  });
  TcpBootstrap root(0, 2, "127.0.0.1", port, 10);
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
  EXPECT_THROW(TcpBootstrap(1, 2, "", 29500, 1), UsageError);
}

}  // namespace
}  // namespace mlbench::net
