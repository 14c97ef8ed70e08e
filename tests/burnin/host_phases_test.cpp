// The burn-in's host phases, run for real: the host memory pattern test on ~96 MiB (just above the 64 MiB it
// refuses below) and the storage write-verify-read on an 8 MiB scratch file under /var/tmp, each for 1 s or
// 3 times its own estimate of a pass; the pattern checker on a real buffer with a flipped bit; the storage
// job's list of bad blocks on a scratch file with corrupted blocks; a missing scratch folder; a stop that
// ends a phase set to run for an hour; a phase given less than one pass is incomplete; each estimates its
// pass on a sample and returns by its deadline.
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "base/error.hpp"
#include "bench/probe.hpp"
#include "burnin/host_pattern.hpp"
#include "burnin/phase.hpp"
#include "reports/report_burnin.hpp"
#include "storage/io/job.hpp"
#include "storage/pattern.hpp"
#include "tests/common/sanitizers.hpp"

namespace mlbench::burnin {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// How long the real runs last: 1 s, or 5 s under the sanitizers, whose checks slow the pattern loops ~10x,
// and at least 3 times the phase's own estimate of one pass (a busy machine's first pass, page faults and
// all, can take longer than a second): a pass must fit.
constexpr auto kRunFor = std::chrono::seconds(test::kSanitized ? 5 : 1);
Clock::time_point deadline_for(Phase& phase, const PhaseContext& ctx) {
  const double pass = phase.estimate(ctx).seconds;
  return Clock::now() + std::max<Clock::duration>(kRunFor, std::chrono::duration_cast<Clock::duration>(
                                                               std::chrono::duration<double>(3 * pass)));
}

// The figures of a real run, in the test's XML/JSON output (--gtest_output).
void record(const Result& r) {
  ::testing::Test::RecordProperty("passes", r.info["iterations"].dump());
  ::testing::Test::RecordProperty("bytes", r.info["bytes"].dump());
  ::testing::Test::RecordProperty("bandwidth_Bps", fmt::format("{:.4g}", r.metrics[0].value));
}

std::unique_ptr<Phase> host_phase(PhaseId id) {
  for (auto& p : make_host_phases())
    if (p->id() == id) return std::move(p);
  return nullptr;
}

std::uint64_t mem_available_now() {
  std::FILE* f = std::fopen("/proc/meminfo", "r");
  char line[256];
  std::uint64_t kb = 0;
  while (f != nullptr && std::fgets(line, sizeof(line), f) != nullptr) {
    if (std::sscanf(line, "MemAvailable: %lu kB", &kb) == 1) break;
  }
  if (f != nullptr) std::fclose(f);
  return kb * 1024;
}

// A folder under /var/tmp (a real disk, not tmpfs), removed with what is in it.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = "/var/tmp/mlbench-burnin-test-XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) throw Error("mkdtemp under /var/tmp failed");
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::size_t entries() const {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(path), {}));
  }
};

TEST(BurninHostPattern, EveryPatternChecksCleanAndFindsAFlippedBitAtItsAddress) {
  std::vector<std::uint64_t> buf(4096);
  for (std::uint64_t pass = 0; pass < 8; ++pass) {
    const PatternPass p = pattern_pass(7, pass);
    EXPECT_EQ(p.pattern, static_cast<HostPattern>(pass % 4));
    fill_words(buf, 100, p);
    WordCheck clean;
    check_words(buf, 100, p, clean);
    EXPECT_EQ(clean.checked, buf.size());
    EXPECT_EQ(clean.bad, 0u);

    buf[1234] ^= std::uint64_t{1} << 17;
    WordCheck found;
    check_words(buf, 100, p, found);
    ASSERT_EQ(found.bad, 1u) << to_string(p.pattern);
    ASSERT_EQ(found.first.size(), 1u);
    EXPECT_EQ(found.first[0].address, reinterpret_cast<std::uintptr_t>(&buf[1234]));
    EXPECT_EQ(found.first[0].expected ^ found.first[0].actual, std::uint64_t{1} << 17);
    EXPECT_EQ(found.first[0].expected, expected_word(p, 1334, reinterpret_cast<std::uintptr_t>(&buf[1234])));
    const Json j = to_json(found.first[0]);
    EXPECT_EQ(j["address"], fmt::format("{:#x}", reinterpret_cast<std::uintptr_t>(&buf[1234])));
  }
}

TEST(BurninHostPattern, PatternsAreTheAddressWalkingAndInverseWords) {
  std::vector<std::uint64_t> buf(128);
  const auto at = [&](std::size_t i) { return reinterpret_cast<std::uintptr_t>(&buf[i]); };
  fill_words(buf, 0, pattern_pass(3, 0));
  EXPECT_EQ(buf[5], storage::pattern_word(storage::mix64(3), at(5) / 8));
  fill_words(buf, 0, pattern_pass(3, 1));
  EXPECT_EQ(buf[5], std::uint64_t{1} << 6);
  EXPECT_EQ(buf[63], std::uint64_t{1});  // (63 + 1) mod 64
  fill_words(buf, 10, pattern_pass(3, 2));
  EXPECT_EQ(buf[5], ~(std::uint64_t{1} << 17));
  fill_words(buf, 0, pattern_pass(3, 3));
  EXPECT_EQ(buf[5], ~storage::pattern_word(storage::mix64(3 + 3), at(5) / 8));
  // The address pattern changes from pass to pass.
  EXPECT_NE(expected_word(pattern_pass(3, 0), 0, at(0)), expected_word(pattern_pass(3, 4), 0, at(0)));
}

TEST(BurninHostPattern, KeepsTheLowestSixteenBadWordsAndCountsAll) {
  std::vector<std::uint64_t> buf(1024);
  const PatternPass p = pattern_pass(1, 0);
  fill_words(buf, 0, p);
  for (std::size_t i = 1000; i >= 960; --i) buf[i] = ~buf[i];
  WordCheck found;
  check_words(std::span(buf).subspan(512), 512, p, found);
  check_words(std::span(buf).first(512), 0, p, found);
  EXPECT_EQ(found.bad, 41u);
  EXPECT_EQ(found.checked, 1024u);
  ASSERT_EQ(found.first.size(), kKeptBadWords);
  EXPECT_EQ(found.first.front().address, reinterpret_cast<std::uintptr_t>(&buf[960]));
  EXPECT_EQ(found.first.back().address, reinterpret_cast<std::uintptr_t>(&buf[975]));
}

TEST(BurninHostPattern, TakesTheFractionLeavingOneGibFree) {
  constexpr std::uint64_t GiB = 1ull << 30;
  EXPECT_EQ(host_test_bytes(0.5, 16 * GiB), 8 * GiB);
  EXPECT_EQ(host_test_bytes(0.99, 4 * GiB), 3 * GiB);
  EXPECT_EQ(host_test_bytes(0.5, GiB), 0u);
  EXPECT_EQ(host_test_bytes(0.001, 16 * GiB) % (2u << 20), 0u);
  EXPECT_EQ(host_test_bytes(0, 16 * GiB), 0u);
}

TEST(BurninHostMemoryPhase, RunsPassesForOneSecondAndFindsNoError) {
  const std::uint64_t available = mem_available_now();
  if (available < (2ull << 30)) GTEST_SKIP() << "under 2 GiB of memory available";
  const Json host = Json::object();
  std::atomic<bool> stop{false};
  PhaseContext ctx{host, Clock::now(), stop};
  ctx.host_memory_fraction = static_cast<double>(96ull << 20) / static_cast<double>(available);
  auto phase = host_phase(PhaseId::host_memory);
  ctx.deadline = deadline_for(*phase, ctx);
  auto results = phase->run(ctx);
  EXPECT_LT(Clock::now() - ctx.deadline, std::chrono::seconds(1));
  ASSERT_EQ(results.size(), 1u);
  const Result& r = results[0];
  EXPECT_EQ(r.probe, fmt::format("burnin.{}", to_string(PhaseId::host_memory)));
  EXPECT_EQ(r.params["device"], "host");
  EXPECT_EQ(r.status, Status::ok) << r.reason;
  ASSERT_EQ(r.metrics.size(), 2u);
  record(r);
  EXPECT_EQ(r.metrics[0].name, "bandwidth");
  EXPECT_GT(r.metrics[0].value, 0);
  EXPECT_EQ(r.metrics[1].name, "errors");
  EXPECT_EQ(r.metrics[1].value, 0);
  EXPECT_EQ(r.metrics[1].better, Better::lower);
  EXPECT_GE(r.info["iterations"].get<int>(), 1);
  EXPECT_EQ(r.samples.size(), r.info["iterations"].get<std::size_t>());
  const auto bytes = r.info["bytes"].get<std::uint64_t>();
  EXPECT_GE(bytes, 64ull << 20);
  EXPECT_LE(bytes, 128ull << 20);
  EXPECT_GE(r.info["words_checked"].get<std::uint64_t>(), bytes / 8);
  EXPECT_TRUE(r.info["bad_words"].empty());
}

TEST(BurninHostMemoryPhase, RefusesUnderSixtyFourMib) {
  const Json host = Json::object();
  std::atomic<bool> stop{false};
  PhaseContext ctx{host, Clock::now() + std::chrono::seconds(1), stop};
  ctx.host_memory_fraction = 1e-9;
  try {
    host_phase(PhaseId::host_memory)->run(ctx);
    FAIL() << "ran on almost no memory";
  } catch (const Skipped& e) {
    EXPECT_NE(std::string(e.what()).find("64.00 MiB"), std::string::npos) << e.what();
  }
}

// 512 MiB: its first pass (page faults and all) takes longer than the half second before the stop on a
// small machine, so the stop lands inside a pass there.
TEST(BurninHostMemoryPhase, StopEndsAnHourLongRunAtOnce) {
  const std::uint64_t available = mem_available_now();
  if (available < (4ull << 30)) GTEST_SKIP() << "under 4 GiB of memory available";
  const Json host = Json::object();
  std::atomic<bool> stop{false};
  PhaseContext ctx{host, Clock::now() + std::chrono::hours(1), stop};
  ctx.host_memory_fraction = static_cast<double>(512ull << 20) / static_cast<double>(available);
  std::jthread stopper([&stop] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    stop = true;
  });
  const auto t0 = Clock::now();
  auto results = host_phase(PhaseId::host_memory)->run(ctx);
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(3));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_NE(results[0].status, Status::incorrect);
  EXPECT_EQ(results[0].metric("errors")->value, 0);
  EXPECT_EQ(results[0].samples.size(), results[0].info["iterations"].get<std::size_t>());
}

TEST(BurninStoragePhase, WritesVerifiesAndReadsForOneSecondThenRemovesItsFile) {
  TempDir dir;
  const Json host = Json::object();
  std::atomic<bool> stop{false};
  PhaseContext ctx{host, Clock::now(), stop, dir.path};
  ctx.storage_bytes = 8ull << 20;
  auto phase = host_phase(PhaseId::storage);
  ctx.deadline = deadline_for(*phase, ctx);
  auto results = phase->run(ctx);
  ASSERT_EQ(results.size(), 1u);
  const Result& r = results[0];
  EXPECT_EQ(r.probe, fmt::format("burnin.{}", to_string(PhaseId::storage)));
  EXPECT_EQ(r.params["device"], (dir.path / fmt::format("mlbench-burnin-{}.dat", ::getpid())).string());
  EXPECT_EQ(r.status, Status::ok) << r.reason;
  ASSERT_EQ(r.metrics.size(), 2u);
  record(r);
  EXPECT_EQ(r.metrics[0].name, "bandwidth");
  EXPECT_GT(r.metrics[0].value, 0);
  EXPECT_EQ(r.metrics[1].name, "errors");
  EXPECT_EQ(r.metrics[1].value, 0);
  const auto passes = r.info["iterations"].get<std::uint64_t>();
  EXPECT_GE(passes, 1u);
  EXPECT_EQ(r.info["bytes"], 8ull << 20);
  // Every pass checks every block twice (after the write, after the cache drop), and a cut pass some more.
  EXPECT_GE(r.info["blocks_checked"].get<std::uint64_t>(), passes * 2 * 8);
  EXPECT_TRUE(r.info["bad_blocks"].empty());
  EXPECT_EQ(dir.entries(), 0u) << "the scratch file is still there";
}

TEST(BurninStoragePhase, RefusesAMissingScratchFolderByName) {
  const Json host = Json::object();
  std::atomic<bool> stop{false};
  PhaseContext ctx{host, Clock::now() + std::chrono::seconds(1), stop, "/var/tmp/mlbench-no-such-folder"};
  try {
    host_phase(PhaseId::storage)->run(ctx);
    FAIL() << "ran without a scratch folder";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/var/tmp/mlbench-no-such-folder"), std::string::npos) << e.what();
  }
}

TEST(BurninStoragePhase, StopEndsAnHourLongRunAtOnceAndRemovesTheFile) {
  TempDir dir;
  const Json host = Json::object();
  std::atomic<bool> stop{false};
  PhaseContext ctx{host, Clock::now() + std::chrono::hours(1), stop, dir.path};
  ctx.storage_bytes = 8ull << 20;
  std::jthread stopper([&stop] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    stop = true;
  });
  const auto t0 = Clock::now();
  auto results = host_phase(PhaseId::storage)->run(ctx);
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(3));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].metric("errors")->value, 0);
  EXPECT_EQ(results[0].samples.size(), results[0].info["iterations"].get<std::size_t>());
  EXPECT_EQ(dir.entries(), 0u);
}

// A phase given less than one pass: no pass whole, so no rate and no pass counted; the result is incomplete
// (status skipped, iterations 0) with a reason saying how far it got and what makes a pass shorter.
TEST(BurninStoragePhase, StoppedBeforeAFullPassIsIncompleteNotOk) {
  TempDir dir;
  const Json host = Json::object();
  std::atomic<bool> stop{false};
  // Creating 1 GiB, then writing and reading it twice, takes far more than 0.2 s on any drive.
  PhaseContext ctx{host, Clock::now() + std::chrono::milliseconds(200), stop, dir.path};
  ctx.storage_bytes = 1ull << 30;
  auto results = host_phase(PhaseId::storage)->run(ctx);
  ASSERT_EQ(results.size(), 1u);
  const Result& r = results[0];
  EXPECT_EQ(r.status, Status::skipped);
  EXPECT_EQ(r.info["iterations"], 0);
  EXPECT_EQ(burnin_report::phase_outcome(r), burnin_report::PhaseOutcome::incomplete);
  EXPECT_EQ(r.reason.rfind("stopped after ", 0), 0u) << r.reason;
  EXPECT_NE(r.reason.find("% of one verified pass over the 1.00 GiB scratch file"), std::string::npos)
      << r.reason;
  EXPECT_NE(r.reason.find("give a longer --duration or a smaller --storage-size"), std::string::npos)
      << r.reason;
  EXPECT_EQ(r.metric("bandwidth"), nullptr);
  ASSERT_NE(r.metric("errors"), nullptr);
  EXPECT_EQ(r.metric("errors")->value, 0);
  EXPECT_EQ(dir.entries(), 0u);
}

// The estimate of one pass runs the phase's own pass on a sample (the whole file when smaller than a region)
// and leaves nothing behind; the phase given a few times that completes a pass.
TEST(BurninStoragePhase, EstimatesOnePassOnASampleAndLeavesNoFile) {
  TempDir dir;
  const Json host = Json::object();
  std::atomic<bool> stop{false};
  PhaseContext ctx{host, Clock::now(), stop, dir.path};
  ctx.storage_bytes = 8ull << 20;
  auto phase = host_phase(PhaseId::storage);
  const PassEstimate e = phase->estimate(ctx);
  EXPECT_GT(e.seconds, 0);
  EXPECT_NE(e.what.find("the 8.00 MiB scratch file created, written and read twice at "), std::string::npos)
      << e.what;
  EXPECT_EQ(e.smaller_with, "--storage-size");
  EXPECT_EQ(dir.entries(), 0u);
  ctx.deadline = deadline_for(*phase, ctx);
  auto results = phase->run(ctx);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_GE(results[0].info["iterations"].get<int>(), 1) << results[0].reason;
}

TEST(BurninHostMemoryPhase, EstimatesOnePassOnASampleAndReturnsByItsDeadline) {
  const std::uint64_t available = mem_available_now();
  if (available < (2ull << 30)) GTEST_SKIP() << "under 2 GiB of memory available";
  const Json host = Json::object();
  std::atomic<bool> stop{false};
  PhaseContext ctx{host, Clock::now(), stop};
  ctx.host_memory_fraction = static_cast<double>(96ull << 20) / static_cast<double>(available);
  auto phase = host_phase(PhaseId::host_memory);
  const PassEstimate e = phase->estimate(ctx);
  EXPECT_GT(e.seconds, 0);
  EXPECT_NE(e.what.find(" of host memory at "), std::string::npos) << e.what;
  EXPECT_EQ(e.smaller_with, "--host-memory-share");
  // A pass that would end past the deadline is not started, and one under way stops writing in time to
  // check what it wrote: the phase returns by its deadline (with the unmapping's few milliseconds).
  ctx.deadline = deadline_for(*phase, ctx);
  auto results = phase->run(ctx);
  EXPECT_LT(Clock::now() - ctx.deadline, std::chrono::milliseconds(test::kSanitized ? 1000 : 200));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_GE(results[0].info["iterations"].get<int>(), 1) << results[0].reason;
}

// The storage job keeps the lowest bad blocks (the burn-in's info.bad_blocks): two blocks of a file holding
// the pattern are corrupted, and a verifying read job names both.
TEST(BurninStorageJob, ListsTheBadBlocksItReadBack) {
  TempDir dir;
  const std::string path = (dir.path / "corrupt.dat").string();
  constexpr std::uint64_t kBs = 4096, kBlocks = 32, kSeed = 99;
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  ASSERT_GE(fd, 0);
  std::vector<std::byte> data(kBs * kBlocks);
  storage::fill_pattern(data, storage::target_seed(kSeed, 0), 0);
  data[3 * kBs + 10] ^= std::byte{0x40};
  data[17 * kBs] ^= std::byte{0x01};
  ASSERT_EQ(::pwrite(fd, data.data(), data.size(), 0), static_cast<ssize_t>(data.size()));
  storage::JobPlan plan;
  plan.spec.rw = storage::RwMode::read;
  plan.spec.bs = kBs;
  plan.spec.iodepth = 4;
  plan.spec.io_size = kBs * kBlocks;
  plan.spec.verify = true;
  plan.spec.engine = plan.engine = storage::EngineKind::psync;
  plan.targets = {{path, fd, 0, kBs * kBlocks, true}};
  plan.fill_seed = kSeed;
  std::atomic<bool> stop{false};
  const auto out = storage::run_job(plan, stop, Clock::now() + std::chrono::seconds(30));
  ::close(fd);
  EXPECT_EQ(out.verify_checked, kBlocks);
  EXPECT_EQ(out.verify_bad, 2u);
  ASSERT_EQ(out.verify_bad_blocks.size(), 2u);
  EXPECT_EQ(out.verify_bad_blocks[0], (std::pair<std::uint32_t, std::uint64_t>{0, 3 * kBs}));
  EXPECT_EQ(out.verify_bad_blocks[1], (std::pair<std::uint32_t, std::uint64_t>{0, 17 * kBs}));
}

}  // namespace
}  // namespace mlbench::burnin
