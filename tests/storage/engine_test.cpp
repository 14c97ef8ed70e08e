#include "storage/engine.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "mlbench_config.hpp"
#include "storage/buffer.hpp"
#include "storage/checkpoint/checkpoint.hpp"
#include "storage/io/job_spec.hpp"
#include "storage/pattern.hpp"
#include "tests/storage/storage_test_util.hpp"

namespace mlbench::storage {
namespace {

constexpr std::uint32_t kBs = 4096;
constexpr unsigned kDepth = 8;

// Writes kDepth×4 blocks through the engine, reads them back through it, and checks every byte.
void round_trip(EngineKind kind, bool fixed_bufs) {
  test::TempDir dir;
  auto path = dir.path() / "data";
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_DIRECT, 0600);
  ASSERT_GE(fd, 0);
  AlignedBuffer mem(kDepth * kBs);
  std::vector<std::span<std::byte>> bufs;
  for (unsigned i = 0; i < kDepth; ++i) bufs.push_back(mem.span().subspan(i * kBs, kBs));
  auto engine = make_engine(kind, {kDepth, {fd}, bufs, false, fixed_bufs, false});
  ASSERT_EQ(engine->kind(), kind);
  const unsigned depth = engine->depth();
  std::vector<Completion> done(depth);
  constexpr std::uint64_t kSeed = 42;
  constexpr unsigned kBlocks = kDepth * 4;
  for (bool write : {true, false}) {
    for (unsigned b0 = 0; b0 < kBlocks; b0 += depth) {
      for (unsigned s = 0; s < depth; ++s) {
        std::uint64_t off = std::uint64_t{b0 + s} * kBs;
        if (write) {
          fill_pattern(bufs[s], kSeed, off);
        } else {
          std::fill(bufs[s].begin(), bufs[s].end(), std::byte{0});
        }
        engine->queue({s, 0, kBs, write, off});
      }
      unsigned got = 0;
      while (got < depth) {
        std::size_t n = engine->submit_and_reap(1, done);
        for (std::size_t i = 0; i < n; ++i) {
          ASSERT_EQ(done[i].res, kBs);
          if (!write) {
            std::uint64_t off = std::uint64_t{b0 + done[i].slot} * kBs;
            ASSERT_TRUE(matches_pattern(bufs[done[i].slot], kSeed, off)) << "block at " << off;
          }
        }
        got += static_cast<unsigned>(n);
      }
    }
  }
  EXPECT_EQ(static_cast<std::uint64_t>(::lseek(fd, 0, SEEK_END)), std::uint64_t{kBlocks} * kBs);
  ::close(fd);
}

TEST(Engine, UringRoundTripWithRegisteredBuffers) {
  if (!MLBENCH_HAS_URING) GTEST_SKIP() << "built without liburing";
  if (auto why = uring_unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
  round_trip(EngineKind::uring, true);
}

TEST(Engine, UringRoundTripWithPlainBuffers) {
  if (!MLBENCH_HAS_URING) GTEST_SKIP() << "built without liburing";
  if (auto why = uring_unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
  round_trip(EngineKind::uring, false);
}

TEST(Engine, PsyncRoundTrip) { round_trip(EngineKind::psync, false); }

TEST(Engine, UringReportsTheFeaturesItUses) {
  if (!MLBENCH_HAS_URING) GTEST_SKIP() << "built without liburing";
  if (auto why = uring_unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
  AlignedBuffer mem(kBs);
  int fd = ::open("/dev/null", O_RDONLY);
  auto engine = make_engine(EngineKind::uring, {1, {fd}, {mem.span()}, false, true, false});
  auto f = engine->features();
  EXPECT_TRUE(f.contains("ring_flags"));
  EXPECT_TRUE(f.value("fixed_files", false));
  EXPECT_TRUE(f.contains("fixed_bufs"));
  engine.reset();
  ::close(fd);
}

TEST(Engine, NullEngineCompletesEverythingAtOnce) {
  AlignedBuffer mem(kDepth * kBs);
  std::vector<std::span<std::byte>> bufs(kDepth, mem.span().first(kBs));
  auto engine = make_engine(EngineKind::null, {kDepth, {-1}, bufs, false, false, false});
  for (std::uint32_t s = 0; s < kDepth; ++s) engine->queue({s, 0, kBs, false, 0});
  std::vector<Completion> done(kDepth);
  EXPECT_EQ(engine->submit_and_reap(1, done), kDepth);
  for (const auto& c : done) EXPECT_EQ(c.res, kBs);
  EXPECT_EQ(engine->submit_and_reap(1, done), 0u);
}

TEST(Engine, ForcedUringFailureIsReported) {
  ::setenv("MLBENCH_FORCE_URING_FAILURE", "1", 1);
  EXPECT_NE(uring_unavailable_reason(), "");
  AlignedBuffer mem(kBs);
  if (MLBENCH_HAS_URING) {
    EXPECT_THROW(make_engine(EngineKind::uring, {1, {0}, {mem.span()}, false, false, false}), Error);
  }
  ::unsetenv("MLBENCH_FORCE_URING_FAILURE");
}

// One resolution for every caller (storage.io, storage.checkpoint, the burn-in's storage phase): an engine
// runs where unavailable() gives no reason, its fallback with the reason and the warning where it does.
TEST(Engine, ResolveRunsTheFallbackOnlyWhereTheEngineIsUnavailable) {
  for (const EngineTraits& t : engine_table()) {
    if (t.unavailable != nullptr) continue;
    const ResolvedEngine r = resolve_engine(t.kind);
    EXPECT_EQ(r.kind, t.kind) << t.label;
    EXPECT_EQ(r.why, "");
    EXPECT_EQ(r.warning, "");
  }
  EngineTraits refused = traits(EngineKind::uring);
  refused.unavailable = [] { return std::string("no ring here"); };
  const ResolvedEngine r = resolve_engine(refused);
  EXPECT_EQ(r.kind, refused.fallback);
  EXPECT_EQ(r.why, "no ring here");
  EXPECT_EQ(r.warning, "io_uring unavailable (no ring here); fell back to the psync engine");

  ::setenv("MLBENCH_FORCE_URING_FAILURE", "1", 1);
  const ResolvedEngine forced = resolve_engine(EngineKind::uring);
  ::unsetenv("MLBENCH_FORCE_URING_FAILURE");
  EXPECT_EQ(forced.kind, EngineKind::psync);
  EXPECT_NE(forced.warning.find("fell back to the psync engine"), std::string::npos) << forced.warning;
}

// storage.dataload resolves through the same fallback, asking its reader's own check as well: an engine whose
// reader cannot run here resolves to its fallback with the reason and the same warning as storage.io's, while
// its job loop still runs; an engine without a reader is refused, never named while another reader reads.
TEST(Engine, DataloadResolvesItsReaderThroughTheSameFallback) {
  for (const EngineTraits& t : engine_table()) {
    if (t.unavailable != nullptr || t.dataload_unavailable != nullptr || t.dataload == FileReader::none)
      continue;
    const ResolvedEngine r = resolve_engine(t, EngineUse::dataload);
    EXPECT_EQ(r.kind, t.kind) << t.label;
    EXPECT_EQ(r.why, "");
  }
  EngineTraits chainless = traits(EngineKind::uring);
  chainless.unavailable = nullptr;
  chainless.dataload_unavailable = [] { return std::string("no direct descriptors"); };
  EXPECT_EQ(resolve_engine(chainless).kind, EngineKind::uring);
  const ResolvedEngine r = resolve_engine(chainless, EngineUse::dataload);
  EXPECT_EQ(r.kind, chainless.fallback);
  EXPECT_EQ(r.why, "no direct descriptors");
  EXPECT_EQ(r.warning, "io_uring unavailable (no direct descriptors); fell back to the psync engine");
  // The engine itself refused: the reader is never asked, the reason is the engine's.
  chainless.unavailable = [] { return std::string("no ring here"); };
  EXPECT_EQ(resolve_engine(chainless, EngineUse::dataload).why, "no ring here");

  EngineTraits readerless = traits(EngineKind::psync);
  readerless.dataload = FileReader::none;
  EXPECT_EQ(resolve_engine(readerless).kind, EngineKind::psync);
  EXPECT_THROW(resolve_engine(readerless, EngineUse::dataload), Error);
}

TEST(AlignedBuffer, HugePagesBackMultiPageBuffers) {
  const auto huge = transparent_huge_page_size();
  if (!huge) GTEST_SKIP() << "transparent huge pages are off in /sys/kernel/mm/transparent_hugepage";
  const std::size_t bytes = *huge + 3 * kBs;  // one huge page and a bit: rounded up to two
  AlignedBuffer mem(bytes, AlignedBuffer::Pages::huge);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(mem.data()) % *huge, 0u);
  EXPECT_EQ(mem.size(), bytes);
  EXPECT_EQ(mem.huge_bytes(), 0u) << "nothing is allocated before the pages are touched";
  fill_pattern(mem.span(), 7, 0);
  EXPECT_EQ(mem.huge_bytes(), 2 * *huge);
  EXPECT_TRUE(matches_pattern(mem.span(), 7, 0));

  AlignedBuffer moved = std::move(mem);
  EXPECT_EQ(moved.size(), bytes);
  // The moved-from buffer's state is what this checks.
  EXPECT_EQ(mem.huge_bytes(), std::nullopt);  // NOLINT(bugprone-use-after-move)
}

TEST(Engine, NamesRoundTrip) {
  for (const auto& t : engine_table()) EXPECT_EQ(engine_from_string(to_string(t.kind)), t.kind);
  try {
    engine_from_string("libaio");
    FAIL() << "accepted libaio";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "--engine: unknown engine 'libaio' (use uring, psync or null)");
  }
}

// Each row says what its engine does: an engine set up at depth 8 keeps 8 I/Os in flight exactly when its
// row says queue_depth, and it names its own kind.
TEST(Engine, EveryRowDescribesItsEngine) {
  test::TempDir dir;
  int fd = ::open((dir.path() / "data").c_str(), O_RDWR | O_CREAT, 0600);
  ASSERT_GE(fd, 0);
  AlignedBuffer mem(kDepth * kBs);
  std::vector<std::span<std::byte>> bufs;
  for (unsigned i = 0; i < kDepth; ++i) bufs.push_back(mem.span().subspan(i * kBs, kBs));
  for (const auto& t : engine_table()) {
    EXPECT_EQ(&traits(t.kind), &t);
    if (t.unavailable != nullptr) {
      if (auto why = t.unavailable(); !why.empty()) {
        EXPECT_TRUE(traits(t.fallback).unavailable == nullptr) << "the fallback of " << to_string(t.kind);
        continue;
      }
    }
    auto engine = make_engine(t.kind, {kDepth, {fd}, bufs, false, t.registered_buffers, false});
    EXPECT_EQ(engine->kind(), t.kind);
    EXPECT_EQ(engine->depth(), t.queue_depth ? kDepth : 1u) << to_string(t.kind);
    // Registration can be refused (the memlock limit); an engine without the trait never registers.
    if (!t.registered_buffers) {
      EXPECT_FALSE(engine->features().value("fixed_bufs", false)) << to_string(t.kind);
    }
  }
  ::close(fd);
  EXPECT_EQ(engines_with(&EngineTraits::sqpoll), "uring");
  EXPECT_EQ(engines_with(&EngineTraits::touches_disk), "uring or psync");
  EXPECT_EQ(engines_with(&EngineTraits::queue_depth), "uring or null");
}

// --engine's help where the job loop runs (storage.io, storage.checkpoint) names the fallback of each row
// that has one, read from the rows (engine_option_help()), in the same words in both probes.
TEST(Engine, TheEngineHelpNamesEachRowsFallback) {
  auto help_of = [](std::span<const OptionSpec> options) {
    for (const auto& o : options) {
      if (o.name == "engine") return std::string(o.help);
    }
    return std::string();
  };
  const std::string help = help_of(job_options());
  EXPECT_EQ(help, engine_option_help());
  EXPECT_EQ(help_of(checkpoint_options()), help);
  for (const auto& t : engine_table()) {
    const std::string says = fmt::format("{} when {} is refused", to_string(t.fallback), t.label);
    EXPECT_EQ(help.find(says) != std::string::npos, t.fallback != t.kind) << help;
  }
  EXPECT_EQ(help, "I/O engine (psync when io_uring is refused)");
}

}  // namespace
}  // namespace mlbench::storage
