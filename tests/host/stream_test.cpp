// host.membw building blocks: the kernel table, the closed-form contents, chunking, placement, the loops of
// every ISA this CPU has, and the thread team.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <numeric>

#include "base/error.hpp"
#include "bench/sysinfo.hpp"
#include "kernels/host/mapped_array.hpp"
#include "kernels/host/stream.hpp"
#include "kernels/host/thread_team.hpp"

namespace mlbench::hostmem {
namespace {

TEST(StreamTable, ByteCountsFollowStream) {
  EXPECT_EQ(kernel_spec(Kernel::copy).bytes_per_element, 16);
  EXPECT_EQ(kernel_spec(Kernel::scale).bytes_per_element, 16);
  EXPECT_EQ(kernel_spec(Kernel::add).bytes_per_element, 24);
  EXPECT_EQ(kernel_spec(Kernel::triad).bytes_per_element, 24);
  EXPECT_EQ(kernel_from_name("triad"), Kernel::triad);
  EXPECT_FALSE(kernel_from_name("dot"));
}

TEST(StreamState, FullSequenceMatchesStream) {
  ArrayState s;
  for (const auto& k : kKernels) s = apply(k.kernel, s);
  // a = x, b = 2, c = 0 → c = x, b = 3x, c = 4x, a = 3x + 3·4x = 15x
  EXPECT_DOUBLE_EQ(s.arrays[0].alpha, 15.0);
  EXPECT_DOUBLE_EQ(s.arrays[1].alpha, 3.0);
  EXPECT_DOUBLE_EQ(s.arrays[2].alpha, 4.0);
  EXPECT_DOUBLE_EQ(s.arrays[0].beta + s.arrays[1].beta + s.arrays[2].beta, 0.0);
  auto only_triad = apply(Kernel::triad, ArrayState{});
  EXPECT_DOUBLE_EQ(only_triad.arrays[0].alpha, 0.0);
  EXPECT_DOUBLE_EQ(only_triad.arrays[0].beta, 2.0);
  EXPECT_DOUBLE_EQ(x_of(0), 1.0);
  EXPECT_DOUBLE_EQ(x_of(1023), 1.0 + 1023.0 / 1024.0);
  EXPECT_DOUBLE_EQ(x_of(1024), 1.0);
}

TEST(StreamChunks, CoverEverythingOnAlignedBoundaries) {
  auto p = partition(1000, 3, 1);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].begin, 0u);
  EXPECT_EQ(p[0].end, 333u);
  EXPECT_EQ(p[1].end, 666u);
  EXPECT_EQ(p[2].end, 1000u);
  auto q = partition(10 * 512 + 7, 4, 512);
  for (std::size_t i = 0; i < q.size(); ++i) {
    if (i > 0) {
      EXPECT_EQ(q[i].begin, q[i - 1].end);
    }
    EXPECT_EQ(q[i].begin % 512, 0u);
  }
  EXPECT_EQ(q.back().end, 10u * 512 + 7);
  EXPECT_THROW(partition(10, 0, 1), Error);
}

bool mentions(const std::vector<std::string>& warnings, std::string_view text) {
  return std::any_of(warnings.begin(), warnings.end(),
                     [&](const std::string& w) { return w.find(text) != std::string::npos; });
}

constexpr std::uint64_t kMiB = 1ULL << 20;
constexpr std::uint64_t kGiB = 1ULL << 30;
constexpr double kPlenty = 512.0 * kGiB;

TEST(StreamSizes, SmallCacheGetsTheOneGiBFloor) {
  auto s = array_size(32 * kMiB, kPlenty, false);
  EXPECT_EQ(s.bytes, kGiB);
  EXPECT_TRUE(s.warnings.empty()) << s.warnings.front();
  EXPECT_EQ(array_size(220200960, kPlenty, false).bytes, kGiB);  // 4 × 210 MiB is still below the floor
  EXPECT_EQ(array_size(0, kPlenty, false).bytes, kGiB);
}

TEST(StreamSizes, HugeCacheGetsFourTimesItRoundedTo2MiB) {
  EXPECT_EQ(array_size(1536 * kMiB, kPlenty, false).bytes, 6 * kGiB);  // e.g. two sockets of stacked L3
  EXPECT_EQ(array_size(300 * kMiB + 1, kPlenty, false).bytes, 1202 * kMiB);
  EXPECT_TRUE(array_size(1536 * kMiB, std::nullopt, false).warnings.empty());  // available unknown: no cap
}

TEST(StreamSizes, LittleMemoryGetsWhatFitsWithAWarning) {
  // Three arrays in half of 4 GiB: 682.67 MiB each, down to a 2 MiB multiple.
  auto s = array_size(32 * kMiB, 4.0 * kGiB, false);
  EXPECT_EQ(s.bytes, 682 * kMiB);
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_TRUE(mentions(s.warnings, "arrays shrunk to 682.00 MiB each")) << s.warnings[0];
  EXPECT_TRUE(mentions(s.warnings, "below the 1.00 GiB")) << s.warnings[0];
  EXPECT_EQ(array_size(32 * kMiB, 6.0 * kGiB, false).bytes, kGiB);  // exactly fits
}

TEST(StreamSizes, UnknownCacheUsesTheFloorAndSaysSo) {
  auto s = array_size(std::nullopt, kPlenty, false);
  EXPECT_EQ(s.bytes, kGiB);
  EXPECT_TRUE(mentions(s.warnings, "last-level cache size unknown")) << s.warnings.size();
}

TEST(StreamSizes, HypervisorSaysTheCacheReadingMayBeVirtual) {
  auto s = array_size(16 * kMiB, kPlenty, true);
  EXPECT_EQ(s.bytes, kGiB);
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_TRUE(mentions(s.warnings, "virtual machine")) << s.warnings[0];
  EXPECT_TRUE(mentions(s.warnings, "16.00 MiB")) << s.warnings[0];
  EXPECT_TRUE(mentions(s.warnings, "1.00 GiB floor")) << s.warnings[0];
  EXPECT_FALSE(mentions(array_size(16 * kMiB, kPlenty, false).warnings, "virtual machine"));
}

TEST(StreamSizes, RequestedSizeIsHonouredAndWarnedBelowTheRule) {
  auto s = array_size(32 * kMiB, kPlenty, false, 64 * kMiB);
  EXPECT_EQ(s.bytes, 64 * kMiB);
  EXPECT_TRUE(mentions(s.warnings, "below the 1.00 GiB")) << s.warnings.size();
  auto big = array_size(1536 * kMiB, kPlenty, false, 2 * kGiB);  // above the floor, below 4 × the LLC
  EXPECT_EQ(big.bytes, 2 * kGiB);
  EXPECT_TRUE(mentions(big.warnings, "below the 6.00 GiB")) << big.warnings.size();
  auto fine = array_size(32 * kMiB, kPlenty, false, 3 * kGiB + 8);  // not rounded: the user's size stays
  EXPECT_EQ(fine.bytes, 3 * kGiB + 8);
  EXPECT_TRUE(fine.warnings.empty());
}

TEST(StreamPlacement, OnePerCoreRoundRobinAcrossNodes) {
  auto host = collect_host_info(SysReader(std::filesystem::path(MLBENCH_TEST_DATA_DIR) / "sysfs/two_socket"));
  std::vector<int> all(16);
  std::iota(all.begin(), all.end(), 0);
  EXPECT_EQ(place_threads(host, all, 0), (std::vector<int>{0, 4, 1, 5, 2, 6, 3, 7}));
  EXPECT_EQ(place_threads(host, all, 3), (std::vector<int>{0, 4, 1}));
  EXPECT_EQ(place_threads(host, all, 10), (std::vector<int>{0, 4, 1, 5, 2, 6, 3, 7, 8, 9}));
  EXPECT_EQ(place_threads(host, {0, 1, 2, 3}, 0), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(node_of_cpu(host, 12), 1);
  EXPECT_EQ(node_of_cpu(host, 99), -1);
}

TEST(StreamVerify, FindsEveryWrongElement) {
  std::vector<double> v(100);
  Affine want{3, 1};
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = want.at(i);
  EXPECT_EQ(check_chunk(v.data(), {0, 100}, want).count, 0u);
  v[70] = 0;
  v[42] += 1e-12;
  auto m = merge({check_chunk(v.data(), {0, 50}, want), check_chunk(v.data(), {50, 100}, want)});
  EXPECT_EQ(m.count, 2u);
  EXPECT_EQ(m.first, 42u);
  EXPECT_DOUBLE_EQ(m.want, want.at(42));
}

class StreamLoops : public ::testing::TestWithParam<std::tuple<Isa, bool>> {};

TEST_P(StreamLoops, ProduceTheClosedForm) {
  auto [isa, nt] = GetParam();
  if (!isa_supported(isa)) GTEST_SKIP() << "this CPU has no " << to_string(isa);
  constexpr std::size_t n = 4096 + 13;  // a scalar tail after the unrolled vector loop
  MappedArray a(n), b(n), c(n);
  ArrayState s;
  for (std::size_t i = 0; i < n; ++i) {
    a.data()[i] = s.arrays[0].at(i);
    b.data()[i] = s.arrays[1].at(i);
    c.data()[i] = s.arrays[2].at(i);
  }
  ChunkFn fn = chunk_fn(isa);
  double* arrays[3] = {a.data(), b.data(), c.data()};
  for (const auto& k : kKernels) {
    fn(k.kernel, a.data(), b.data(), c.data(), n, kScalar, nt);
    fn(k.kernel, a.data(), b.data(), c.data(), n, kScalar, nt);  // idempotent: no kernel reads its output
    s = apply(k.kernel, s);
    for (int arr = 0; arr < 3; ++arr) {
      auto m = check_chunk(arrays[arr], {0, n}, s.arrays[static_cast<std::size_t>(arr)]);
      EXPECT_EQ(m.count, 0u) << k.name << " array " << arr << " first bad at " << m.first;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllIsas, StreamLoops,
                         ::testing::Combine(::testing::Values(Isa::avx512, Isa::avx2, Isa::sse2, Isa::scalar),
                                            ::testing::Bool()));

TEST(StreamIsa, BestIsSupportedAndUnsupportedIsRefused) {
  EXPECT_TRUE(isa_supported(best_isa()));
  EXPECT_TRUE(isa_supported(Isa::scalar));
  for (Isa isa : {Isa::avx512, Isa::avx2, Isa::sse2}) {
    if (!isa_supported(isa)) {
      EXPECT_THROW(chunk_fn(isa), Error);
    }
  }
}

TEST(ThreadTeam, RunsEveryThreadAndPropagatesErrors) {
  ThreadTeam team({0, 0, 0}, false);
  ASSERT_EQ(team.size(), 3);
  std::atomic<int> sum{0};
  team.run([&](int t) { sum += t + 1; });
  EXPECT_EQ(sum.load(), 6);
  double seconds = team.run_timed([&](int) { sum += 1; });
  EXPECT_GE(seconds, 0.0);
  EXPECT_EQ(sum.load(), 9);
  EXPECT_THROW(team.run([](int t) {
    if (t == 1) throw Error("boom");
  }),
               Error);
  team.run([&](int) { sum += 1; });  // still usable after an error
  EXPECT_EQ(sum.load(), 12);
  EXPECT_THROW(ThreadTeam({}, false), Error);
}

TEST(ThreadTeam, PinsToTheGivenCpu) {
  ThreadTeam team({0}, true);
  int cpu = -1;
  team.run([&](int) { cpu = sched_getcpu(); });
  EXPECT_EQ(cpu, 0);
}

}  // namespace
}  // namespace mlbench::hostmem
