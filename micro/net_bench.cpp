// What net.nccl's timed loop adds to each collective call, on a stub that stands in for the NCCL group
// (ncclGroupStart, the calls, ncclGroupEnd): the plain loop of stub calls that nccl-tests' blocking launch
// amounts to; the same loop through Watchdog::guarded (the use lock and the trip check every call takes in
// network/nccl_session.cpp) with the watchdog thread polling a stub communicator set; and the non-blocking
// pattern, where NCCL starts a thread for every ncclGroupEnd and the caller polls until it is done. The
// difference between the first two is the per-call overhead of `timing: blocking` (target: under 2 µs).
#include <benchmark/benchmark.h>

#include <atomic>
#include <optional>
#include <string>
#include <thread>

#include "network/watchdog.hpp"

namespace mlbench::net {
namespace {

std::atomic<unsigned long> g_calls{0};

// The library call: opaque to the optimiser, a little work like an enqueue.
[[gnu::noinline]] int stub_group_call() {
  g_calls.fetch_add(1, std::memory_order_relaxed);
  return 0;
}

class StubControl final : public CommControl {
 public:
  std::optional<std::string> async_error() override {
    polls.fetch_add(1, std::memory_order_relaxed);
    return std::nullopt;
  }
  void abort_all() override {}
  std::atomic<unsigned long> polls{0};
};

void BM_NcclLoopPlain(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(stub_group_call());
}
BENCHMARK(BM_NcclLoopPlain);

void BM_NcclLoopGuarded(benchmark::State& state) {
  StubControl control;
  Watchdog watchdog;
  watchdog.watch(&control);
  watchdog.arm("timed calls of a stub", 3600);
  for (auto _ : state) {
    int rc = watchdog.guarded([] { return stub_group_call(); });
    benchmark::DoNotOptimize(rc);
  }
  watchdog.disarm();
  state.counters["watchdog_polls"] = static_cast<double>(control.polls.load());
}
BENCHMARK(BM_NcclLoopGuarded)->UseRealTime();

void BM_NcclLoopNonblocking(benchmark::State& state) {
  StubControl control;
  Watchdog watchdog;
  watchdog.watch(&control);
  for (auto _ : state) {
    std::atomic<bool> done{false};
    std::thread launcher([&done] {
      stub_group_call();
      done.store(true, std::memory_order_release);
    });
    watchdog.arm("enqueueing a stub", 3600);
    while (!done.load(std::memory_order_acquire)) {
      watchdog.guarded([] {});
      std::this_thread::yield();
    }
    watchdog.disarm();
    launcher.join();
  }
}
BENCHMARK(BM_NcclLoopNonblocking)->UseRealTime();

}  // namespace
}  // namespace mlbench::net
