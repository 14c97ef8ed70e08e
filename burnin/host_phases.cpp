// The burn-in's host phases (burnin/phase.hpp), each run for real until the deadline or a stop:
//
// hostmem: host_test_bytes(ctx.host_memory_fraction, MemAvailable) of anonymous memory (host.membw's
//   MappedArray, huge pages asked for), one pinned thread per CPU (host.membw's ThreadTeam and placement,
//   spread across NUMA nodes), each testing its own contiguous chunk, whose pages its first pass's writes
//   fault in (first touch), so every node tests its local memory. Pass p writes the pattern p mod 4
//   (burnin/host_pattern.hpp: address, walking ones, walking zeros, address inverse) over every word, then
//   reads every word back and checks it. Each thread looks at the clock and the stop flag every 8 MiB: the
//   deadline ends the writes and what was written is still checked whole (the phase overruns its deadline by
//   at most one read-back), a stop ends either at once. A pass cut short counts its bad words but not as an
//   iteration. bandwidth = 2 × bytes (written + read) / pass seconds, the median over the passes with stats
//   (the first pass, page faults and all, is the slowest; the walking patterns, with no mix64 per word, the
//   fastest); a phase shorter than one pass gives the cut pass's rate, with a warning.
//
// storage: a scratch file ctx.scratch_dir/mlbench-burnin-<pid>.dat of ctx.storage_bytes, created by mlbench
//   (storage.io's OpenTarget: O_EXCL, allocated, filled, flock'ed, removed on every way out), O_DIRECT when
//   the filesystem takes it (else buffered, with a warning). Pass p, with a seed of its own, in 64 MiB
//   regions through the storage engine (storage.io's run_job: io_uring, psync where io_uring cannot be set
//   up): writes the pattern sequentially at queue depth 8 in 1 MiB blocks, the job's --verify read-back
//   checking every block right after it was written; then fsync and POSIX_FADV_DONTNEED, and a read job
//   reads every block again from the drive, checking each against the pattern (storage/pattern.hpp). The
//   deadline and the stop flag are looked at between regions (a region takes well under a second on an NVMe
//   drive). bandwidth = 3 × bytes (written, read back, read again) / pass seconds, as for hostmem.
//
// Why two read-backs: the first catches data corrupted on the way to the drive while the pages may still be
// cached; the second, after the cache is dropped, what the drive holds.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/units.hpp"
#include "bench/probe.hpp"
#include "bench/sysinfo_parse.hpp"
#include "bench/sysinfo_reader.hpp"
#include "burnin/host_pattern.hpp"
#include "burnin/phase.hpp"
#include "kernels/host/mapped_array.hpp"
#include "kernels/host/stream.hpp"
#include "kernels/host/thread_team.hpp"
#include "reports/report_burnin.hpp"
#include "storage/cpus.hpp"
#include "storage/engine.hpp"
#include "storage/job.hpp"
#include "storage/pattern.hpp"
#include "storage/target.hpp"

namespace mlbench::burnin {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

Result phase_result(PhaseId id, std::string device) {
  Result r;
  r.probe = fmt::format("{}{}", burnin_report::kPhaseProbePrefix, to_string(id));
  r.params = Json{{"device", std::move(device)}};
  return r;
}

// What the last pass moved before the deadline or a stop cut it short.
struct CutPass {
  double bytes = 0, seconds = 0;
};

// The rate over the full passes, then the error count. Without a full pass (a phase shorter than one pass:
// 11 GiB of host memory took over 40 s on a busy 2-CPU VM) the rate is the cut pass's, with a warning, and
// a phase that moved nothing is skipped.
void add_metrics(Result& r, double bytes_per_pass, const std::vector<double>& samples, std::uint64_t errors,
                 const CutPass& cut, std::string_view whole) {
  r.work = Json{{"bytes", bytes_per_pass}};
  r.samples = samples;
  const auto phase = r.probe.substr(burnin_report::kPhaseProbePrefix.size());
  if (samples.empty() && cut.bytes > 0 && cut.seconds > 0) {
    r.add_metric("bandwidth", cut.bytes / cut.seconds, "B/s");
    r.warnings.push_back(
        fmt::format("{}: no full pass over the {} fit in the phase's time; the rate and the "
                    "check cover the {} the first pass moved",
                    phase, whole, format_bytes(cut.bytes)));
  } else if (samples.empty()) {
    r.add_metric("bandwidth", 0, "B/s");
    r.status = Status::skipped;
    r.reason = fmt::format("{}: stopped before any of the {} was tested", phase, whole);
  } else {
    r.metrics.push_back(rate_metric("bandwidth", bytes_per_pass, samples, "B/s"));
  }
  r.add_metric("errors", static_cast<double>(errors), "1", Better::lower);
}

// ---- hostmem ----

// Words between two looks at the clock and the stop flag.
constexpr std::size_t kSliceWords = (8u << 20) / sizeof(std::uint64_t);
constexpr std::size_t kHugeWords = (2u << 20) / sizeof(std::uint64_t);

std::uint64_t mem_available() {
  const SysReader sys;
  auto text = sys.read("/proc/meminfo");
  if (!text)
    throw Error(fmt::format("{}: /proc/meminfo is not readable, so the free memory is unknown",
                            to_string(PhaseId::host_memory)));
  auto kv = sysparse::parse_key_values(*text, ':');
  auto it = kv.find("MemAvailable");
  auto bytes = it == kv.end() ? std::nullopt : sysparse::parse_kb(it->second);
  if (!bytes)
    throw Error(fmt::format("{}: /proc/meminfo has no MemAvailable line (kernel older than 3.14)",
                            to_string(PhaseId::host_memory)));
  return *bytes;
}

class HostMemoryPhase final : public Phase {
 public:
  PhaseId id() const override { return PhaseId::host_memory; }
  std::optional<std::string> unavailable(const Json&) const override { return std::nullopt; }

  std::vector<Result> run(const PhaseContext& ctx) override {
    const std::uint64_t available = mem_available();
    const std::uint64_t bytes = host_test_bytes(ctx.host_memory_fraction, available);
    if (bytes < kMinHostTestBytes) {
      throw Skipped(fmt::format(
          "{}: {:g} of the {} available, keeping {} free, is {}: under the {} worth testing", to_string(id()),
          ctx.host_memory_fraction, format_bytes(static_cast<double>(available)),
          format_bytes(static_cast<double>(kHostReserveBytes)), format_bytes(static_cast<double>(bytes)),
          format_bytes(static_cast<double>(kMinHostTestBytes))));
    }
    const std::size_t words = bytes / sizeof(std::uint64_t);
    const auto allowed = storage::allowed_cpus();
    const auto cpus = hostmem::place_threads(ctx.host, allowed, static_cast<int>(allowed.size()));
    hostmem::MappedArray memory(words);  // 8-byte elements, used as 64-bit words
    auto* base = reinterpret_cast<std::uint64_t*>(memory.data());
    const auto chunks = hostmem::partition(words, static_cast<int>(cpus.size()),
                                           words / cpus.size() >= 4 * kHugeWords ? kHugeWords : 4096 / 8);
    hostmem::ThreadTeam team(cpus, true);

    Result r = phase_result(id(), "host");
    if (!memory.huge_page_note().empty()) r.warnings.push_back(memory.huge_page_note());

    // Each thread works on its chunk in slices until `cut` says stop; `upto[t]` is where it stopped (the
    // chunk's end unless cut).
    std::vector<std::size_t> upto(chunks.size());
    auto sliced = [&](int t, std::size_t end, bool (PhaseContext::*cut)() const,
                      const std::function<void(std::size_t, std::size_t)>& f) {
      std::size_t i = chunks[static_cast<std::size_t>(t)].begin;
      for (; i < end && !(ctx.*cut)(); i += std::min(kSliceWords, end - i))
        f(i, std::min(kSliceWords, end - i));
      upto[static_cast<std::size_t>(t)] = std::min(i, end);
    };
    auto complete = [&] {
      for (std::size_t t = 0; t < chunks.size(); ++t)
        if (upto[t] < chunks[t].end) return false;
      return true;
    };

    WordCheck found;
    std::vector<WordCheck> per_thread(chunks.size());
    std::vector<double> samples;
    CutPass cut;
    std::vector<std::string> patterns;
    for (std::uint64_t pass = 0; !ctx.past_deadline(); ++pass) {
      const PatternPass p = pattern_pass(ctx.seed, pass);
      const auto t0 = Clock::now();
      // The first pass's writes are the first touch: every page lands on the node of the thread that tests
      // it.
      team.run([&](int t) {
        sliced(t, chunks[static_cast<std::size_t>(t)].end, &PhaseContext::past_deadline,
               [&](std::size_t i, std::size_t n) {
                 fill_words({base + i, n}, i, p);
               });
      });
      // What was written is checked whole, past the deadline too; only a stop cuts the check short.
      const std::vector<std::size_t> written = upto;
      const bool wrote_all = complete();
      team.run([&](int t) {
        auto& mine = per_thread[static_cast<std::size_t>(t)];
        mine = WordCheck{};
        sliced(t, written[static_cast<std::size_t>(t)], &PhaseContext::stopping,
               [&](std::size_t i, std::size_t n) {
                 check_words({base + i, n}, i, p, mine);
               });
      });
      for (const auto& w : per_thread) found.merge(w);
      if (!wrote_all || !complete()) {
        for (std::size_t t = 0; t < chunks.size(); ++t)
          cut.bytes += static_cast<double>(written[t] - chunks[t].begin + per_thread[t].checked) * 8;
        cut.seconds = seconds_since(t0);
        break;
      }
      samples.push_back(seconds_since(t0));
      if (patterns.size() < std::size(kHostPatternNames)) patterns.emplace_back(to_string(p.pattern));
    }

    add_metrics(r, 2.0 * static_cast<double>(words * sizeof(std::uint64_t)), samples, found.bad, cut,
                "memory");
    Json bad = Json::array();
    for (const auto& b : found.first) bad.push_back(to_json(b));
    r.info = Json{{"iterations", samples.size()}, {"bytes", words * sizeof(std::uint64_t)},
                  {"available_bytes", available}, {"fraction", ctx.host_memory_fraction},
                  {"threads", cpus.size()},       {"cpus", cpus},
                  {"patterns", patterns},         {"words_checked", found.checked},
                  {"bad_words", std::move(bad)}};
    if (found.bad > 0) {
      const auto& b = found.first.front();
      r.status = Status::incorrect;
      r.reason = fmt::format(
          "host: {} of {} words read back wrong in the host memory pattern test, first at {:#x} "
          "(expected {:#018x}, read {:#018x})",
          found.bad, found.checked, b.address, b.expected, b.actual);
    }
    return {std::move(r)};
  }
};

// ---- storage ----

constexpr std::uint64_t kBlock = 1u << 20;
constexpr std::uint64_t kRegion = 64u << 20;
constexpr unsigned kDepth = 8;
// A region's job that has not finished in this long is hung, not slow.
constexpr auto kJobTimeout = std::chrono::minutes(10);

// The engine to use: io_uring, or its fallback where it cannot be set up (as storage.io does).
storage::EngineKind engine_here(std::vector<std::string>& warnings) {
  const auto& uring = storage::traits(storage::EngineKind::uring);
  if (uring.unavailable != nullptr) {
    if (auto why = uring.unavailable(); !why.empty()) {
      warnings.push_back(fmt::format("{} unavailable ({}); fell back to the {} engine", uring.label, why,
                                     storage::to_string(uring.fallback)));
      return uring.fallback;
    }
  }
  return storage::EngineKind::uring;
}

// The scratch file, with O_DIRECT when the filesystem takes it.
storage::OpenTarget create_scratch(const storage::TargetInfo& t, std::uint64_t size, std::uint64_t seed,
                                   const std::atomic<bool>& stop, bool& direct,
                                   std::vector<std::string>& warnings) {
  try {
    direct = true;
    return storage::OpenTarget::create_at(t, size, seed, true, false, stop);
  } catch (const Interrupted&) {
    throw;
  } catch (const Error& e) {  // the failed attempt's file is already removed
    direct = false;
    warnings.push_back(
        fmt::format("O_DIRECT refused ({}): the storage phase runs buffered, through the page "
                    "cache (dropped before each read-back)",
                    e.what()));
  }
  return storage::OpenTarget::create_at(t, size, seed, false, false, stop);
}

class StoragePhase final : public Phase {
 public:
  PhaseId id() const override { return PhaseId::storage; }
  std::optional<std::string> unavailable(const Json&) const override { return std::nullopt; }

  std::vector<Result> run(const PhaseContext& ctx) override {
    const fs::path& dir = ctx.scratch_dir;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
      throw Error(
          fmt::format("storage: the scratch folder {} does not exist; create it or give another "
                      "--scratch-dir",
                      dir.string()));
    }
    if (::access(dir.c_str(), W_OK) != 0) {
      throw Error(
          fmt::format("storage: the scratch folder {} is not writable ({}); give another --scratch-dir",
                      dir.string(), std::strerror(errno)));
    }
    const std::string path = (dir / fmt::format("mlbench-burnin-{}.dat", ::getpid())).string();
    const storage::TargetInfo target = storage::inspect_target(path);
    const std::uint64_t block = std::min(kBlock, ctx.storage_bytes / 4096 * 4096);
    if (block == 0) {
      throw Error(
          fmt::format("storage: a scratch file of {} B is under one 4 KiB block; give a larger "
                      "--storage-size",
                      ctx.storage_bytes));
    }
    const std::uint64_t size = ctx.storage_bytes / block * block;
    if (size > target.free_bytes) {
      throw Error(
          fmt::format("storage: the {} scratch file does not fit in the {} free on {}; give a smaller "
                      "--storage-size or another --scratch-dir",
                      format_bytes(static_cast<double>(size)),
                      format_bytes(static_cast<double>(target.free_bytes)), dir.string()));
    }

    Result r = phase_result(id(), path);
    const storage::EngineKind engine = engine_here(r.warnings);
    bool direct = true;
    std::vector<double> samples;
    std::uint64_t checked = 0, bad = 0;
    CutPass cut;
    Json bad_blocks = Json::array();
    try {
      const storage::OpenTarget file =
          create_scratch(target, size, storage::mix64(ctx.seed), ctx.stop, direct, r.warnings);
      // One job over [off, off + n): the pattern of `seed` written and read back, or read and checked.
      auto job = [&](bool write, std::uint64_t seed, std::uint64_t off, std::uint64_t n, std::uint64_t pass) {
        storage::JobPlan plan;
        plan.spec.rw = write ? storage::RwMode::write : storage::RwMode::read;
        plan.spec.bs = block;
        plan.spec.iodepth = kDepth;
        plan.spec.io_size = n;
        plan.spec.direct = direct;
        plan.spec.verify = true;
        plan.spec.engine = engine;
        plan.engine = engine;
        plan.targets = {{path, file.fd(), off, n, !write}};
        plan.fill_seed = seed;
        plan.write_seed = seed;
        const auto out = storage::run_job(plan, ctx.stop, Clock::now() + kJobTimeout);
        checked += out.verify_checked;
        bad += out.verify_bad;
        cut.bytes += static_cast<double>(out.total.bytes + (write ? out.verify_checked * block : 0));
        for (const auto& b : out.verify_bad_blocks) {
          if (bad_blocks.size() < storage::kKeptBadBlocks) {
            bad_blocks.push_back(
                Json{{"offset", b.second}, {"pass", pass}, {"read", write ? "after-write" : "after-drop"}});
          }
        }
      };
      for (std::uint64_t pass = 0; !ctx.past_deadline(); ++pass) {
        const std::uint64_t seed = storage::mix64(ctx.seed + pass + 1);
        const auto t0 = Clock::now();
        cut = CutPass{};
        std::uint64_t written = 0;
        for (; written < size && !ctx.past_deadline(); written += std::min(kRegion, size - written))
          job(true, seed, written, std::min(kRegion, size - written), pass);
        if (::fsync(file.fd()) != 0) {
          throw Error(fmt::format("storage: fsync of {} failed: {}", path, std::strerror(errno)));
        }
        ::posix_fadvise(file.fd(), 0, 0,
                        POSIX_FADV_DONTNEED);  // advice: a kernel that ignores it reads cache
        std::uint64_t read = 0;
        for (; read < written && !ctx.past_deadline(); read += std::min(kRegion, written - read))
          job(false, seed, read, std::min(kRegion, written - read), pass);
        cut.seconds = seconds_since(t0);
        if (read < size) break;
        samples.push_back(cut.seconds);
      }
    } catch (const Interrupted&) {
      // SIGINT mid-region: the passes before it stand, the file is gone (OpenTarget's destructor).
    }

    add_metrics(r, 3.0 * static_cast<double>(size), samples, bad, cut, "scratch file");
    r.info = Json{{"iterations", samples.size()},
                  {"bytes", size},
                  {"block_bytes", block},
                  {"direct", direct},
                  {"engine", storage::to_string(engine)},
                  {"disk", target.disk},
                  {"blocks_checked", checked},
                  {"bad_blocks", std::move(bad_blocks)}};
    if (bad > 0) {
      r.status = Status::incorrect;
      r.reason = fmt::format("{}: {} of {} blocks read back differ from what was written, first at offset {}",
                             path, bad, checked, r.info["bad_blocks"][0]["offset"].get<std::uint64_t>());
    }
    return {std::move(r)};
  }
};

}  // namespace

std::vector<std::unique_ptr<Phase>> make_host_phases() {
  std::vector<std::unique_ptr<Phase>> phases;
  phases.push_back(std::make_unique<HostMemoryPhase>());
  phases.push_back(std::make_unique<StoragePhase>());
  return phases;
}

}  // namespace mlbench::burnin
