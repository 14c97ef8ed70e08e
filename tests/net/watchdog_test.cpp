// The watchdog's contract without NCCL: an asynchronous error or an overdue wait aborts the communicators
// once, the trip is visible to the next holder of the use lock, a disarmed wait is left alone, and a wait
// stuck inside a call (use lock held) reaches the last resort instead of hanging.
#include "network/watchdog.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <thread>

#include "base/error.hpp"

namespace mlbench::net {
namespace {

using namespace std::chrono_literals;

class FakeControl : public CommControl {
 public:
  std::optional<std::string> async_error() override {
    ++polls;
    if (error_after_polls > 0 && polls >= error_after_polls) return std::string("remote process exited");
    return std::nullopt;
  }
  void abort_all() override {
    aborting = true;
    std::this_thread::sleep_for(abort_takes);
    ++aborts;
  }

  std::atomic<int> polls{0}, aborts{0};
  std::atomic<bool> aborting{false};
  int error_after_polls = 0;  // 0: never
  std::chrono::milliseconds abort_takes{0};
};

template <typename Pred>
bool eventually(Pred p, std::chrono::milliseconds limit = 5000ms) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (p()) return true;
    std::this_thread::sleep_for(1ms);
  }
  return p();
}

std::string error_of(const Watchdog& w) {
  try {
    w.check();
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

TEST(Watchdog, AnAsyncErrorAbortsOnceAndTheNextHolderSeesTheTrip) {
  FakeControl c;
  c.error_after_polls = 3;
  c.abort_takes = 50ms;
  Watchdog w(Watchdog::Settings{1ms, 10000ms, {}});
  w.arm("all_reduce of 8 B on rank 0", 60);
  w.watch(&c);
  ASSERT_TRUE(eventually([&] { return c.aborting.load(); }));
  // The abort is under way with the use lock held: taking it waits for the abort, and then check() throws.
  {
    auto hold = w.hold();
    EXPECT_EQ(c.aborts.load(), 1);
    EXPECT_THROW(w.check(), Error);
  }
  EXPECT_TRUE(w.tripped());
  std::string msg = error_of(w);
  EXPECT_NE(msg.find("all_reduce of 8 B on rank 0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("remote process exited"), std::string::npos) << msg;
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(c.aborts.load(), 1) << "an aborted set is never polled or aborted again";
  int polls = c.polls.load();
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(c.polls.load(), polls);
}

TEST(Watchdog, AnOverdueWaitIsAbortedWithItsName) {
  FakeControl c;
  Watchdog w(Watchdog::Settings{1ms, 10000ms, {}});
  w.watch(&c);
  w.arm("12 timed calls of broadcast", 0.02);
  ASSERT_TRUE(eventually([&] { return w.tripped(); }));
  EXPECT_EQ(c.aborts.load(), 1);
  std::string msg = error_of(w);
  EXPECT_NE(msg.find("12 timed calls of broadcast did not complete within --timeout 0.02 s"),
            std::string::npos)
      << msg;
}

TEST(Watchdog, ADisarmedWaitAndAnIdleSetAreLeftAlone) {
  FakeControl c;
  Watchdog w(Watchdog::Settings{1ms, 10000ms, {}});
  w.watch(&c);
  {
    // No poll runs under the use lock, so the wait is disarmed before the watchdog can see it, however late
    // this thread runs after arm() on a loaded machine.
    auto hold = w.hold();
    w.arm("warm-up", 0.01);
    w.disarm();
  }
  ASSERT_TRUE(eventually([&] { return c.polls.load() > 30; }));
  EXPECT_FALSE(w.tripped());
  EXPECT_EQ(c.aborts.load(), 0);
  EXPECT_NO_THROW(w.check());
}

TEST(Watchdog, PollsOnlyWhenTheUseLockIsFree) {
  FakeControl c;
  Watchdog w(Watchdog::Settings{1ms, 10000ms, {}});
  w.watch(&c);
  ASSERT_TRUE(eventually([&] { return c.polls.load() > 0; }));
  {
    auto hold = w.hold();
    int before = c.polls.load();
    std::this_thread::sleep_for(30ms);
    EXPECT_EQ(c.polls.load(), before) << "polled while the owner held the use lock";
  }
  ASSERT_TRUE(eventually([&] { return c.polls.load() > 0; }));
}

TEST(Watchdog, AWaitStuckInsideACallReachesTheLastResort) {
  FakeControl c;
  std::atomic<int> last_resorts{0};
  std::string said;
  std::mutex said_mu;
  Watchdog w(Watchdog::Settings{1ms, 30ms, [&](const std::string& m) {
                                  std::lock_guard lock(said_mu);
                                  said = m;
                                  ++last_resorts;
                                }});
  w.watch(&c);
  {
    auto hold = w.hold();  // the owner is "inside" a blocking call that never returns on its own
    w.arm("ncclCommInitRankConfig of a world of 4 ranks", 0.01);
    ASSERT_TRUE(eventually([&] { return last_resorts.load() > 0; }));
    EXPECT_EQ(c.aborts.load(), 0) << "no abort while the owner is inside a call";
  }
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(last_resorts.load(), 1);
  EXPECT_EQ(c.aborts.load(), 0);
  EXPECT_TRUE(w.tripped());
  std::lock_guard lock(said_mu);
  EXPECT_NE(said.find("ncclCommInitRankConfig of a world of 4 ranks did not complete"), std::string::npos)
      << said;
}

TEST(Watchdog, GuardedRunsUnderTheLockAndRefusesATrippedSet) {
  FakeControl c;
  c.error_after_polls = 1;
  Watchdog w(Watchdog::Settings{1ms, 10000ms, {}});
  EXPECT_EQ(w.guarded([] { return 7; }), 7);
  w.watch(&c);
  ASSERT_TRUE(eventually([&] { return w.tripped(); }));
  int calls = 0;
  EXPECT_THROW(w.guarded([&] { ++calls; }), Error);
  EXPECT_EQ(calls, 0);
}

TEST(Watchdog, StopsPromptly) {
  FakeControl c;
  auto t0 = std::chrono::steady_clock::now();
  {
    Watchdog w;
    w.watch(&c);
    w.arm("a wait", 3600);
  }
  // Far below the hour it is armed for, and wide enough for a loaded machine under a sanitizer.
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 10s);
}

}  // namespace
}  // namespace mlbench::net
