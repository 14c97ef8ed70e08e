// The burn-in's host phases (burnin/phase.hpp), each run for real until the deadline or a stop, returning by
// the deadline: after its first pass a phase starts another only when the next is predicted to end before it
// (the slowest full pass after the first, × 1.25), and a pass under way stops writing in time to check what
// it wrote. A phase without a full pass is incomplete: no rate, status skipped, a reason saying how far it
// got. Each phase's estimate() times one pass on a sample before the burn-in (the plan's minimum share):
//
// hostmem: host_test_bytes(ctx.host_memory_fraction, MemAvailable) of anonymous memory (host.membw's
//   MappedArray, huge pages asked for), one pinned thread per CPU (host.membw's ThreadTeam and placement,
//   spread across NUMA nodes), each testing its own contiguous chunk, whose pages its first pass's writes
//   fault in (first touch), so every node tests its local memory. Pass p writes the pattern p mod 4
//   (burnin/host_pattern.hpp: address, walking ones, walking zeros, address inverse) over every word, then
//   reads every word back and checks it. Each thread looks at the clock and the stop flag every 8 MiB: the
//   writes end in time for the check of what they wrote to end by the deadline (host_write_cut: at the check
//   rate of the last pass, the estimate's for the first, whose writes fault the pages in); a whole write is
//   checked whole, a cut one until the deadline; a stop ends either at once. A pass cut short counts its
//   bad words but not as an iteration. bandwidth = 2 × bytes (written + read) / pass seconds, the median over
//   the passes with stats (the first pass, page faults and all, is the slowest; the walking patterns, with no
//   mix64 per word, the fastest). estimate(): the mapping and threads, then one pass over a fresh 256 MiB,
//   scaled.
//
// storage: a scratch file ctx.scratch_dir/mlbench-burnin-<pid>.dat of ctx.storage_bytes, created by mlbench
//   (storage.io's OpenTarget: O_EXCL, allocated, filled, flock'ed, removed on every way out), O_DIRECT when
//   the filesystem takes it (else buffered, with a warning). Pass p, with a seed of its own, in 64 MiB
//   regions through the storage engine (storage.io's run_job: io_uring, psync where io_uring cannot be set
//   up): writes the pattern sequentially at queue depth 8 in 1 MiB blocks, the job's --verify read-back
//   checking every block right after it was written; then fsync and POSIX_FADV_DONTNEED, and a read job
//   reads every block again from the drive, checking each against the pattern (storage/pattern.hpp). The
//   time and the stop flag are looked at between regions (a region takes well under a second on an NVMe
//   drive): a region is written only when the last one's time still fits in two thirds of the pass's time to
//   the deadline, and read only when it fits before the deadline. bandwidth = 3 × bytes (written, read back,
//   read again) / pass seconds, as for hostmem. estimate(): a file of one region created, passed over once
//   and removed, scaled.
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
#include "report/report_burnin.hpp"
#include "storage/cpus.hpp"
#include "storage/engine.hpp"
#include "storage/io/job.hpp"
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

// What the last pass moved before the deadline or a stop cut it short, and the share of one full pass
// that is.
struct CutPass {
  double bytes = 0, seconds = 0, share = 0;
};

// The rate over the full passes, then the error count. Without a full pass the phase is incomplete
// (report/report_burnin.hpp: iterations 0, status skipped, the reason saying how far it got): a rate and a
// check of part of a pass verify nothing whole, so the cut pass gives no rate; its bad words still count.
void add_metrics(Result& r, double bytes_per_pass, const std::vector<double>& samples, std::uint64_t errors,
                 const CutPass& cut, std::string_view whole, std::string_view smaller_with) {
  r.work = Json{{"bytes", bytes_per_pass}};
  r.samples = samples;
  if (samples.empty()) {
    r.status = Status::skipped;
    r.reason = fmt::format(
        "stopped after {:.0f} % of one verified pass over the {} ({:.1f} s); give a longer --duration or a "
        "smaller {}",
        100 * cut.share, whole, cut.seconds, smaller_with);
  } else {
    r.metrics.push_back(rate_metric("bandwidth", bytes_per_pass, samples, "B/s"));
  }
  r.add_metric(std::string(burnin_report::kErrorsMetric), static_cast<double>(errors), "", Better::lower);
}

// A pass of `predicted` seconds is started only when it ends before the deadline; a pass already started
// stops writing at `write_share` of the time from its start to the deadline, leaving the rest for reading
// back what it wrote.
bool fits(const PhaseContext& ctx, double predicted) {
  return !ctx.past_deadline() &&
         std::chrono::duration<double>(ctx.deadline - Clock::now()).count() >= predicted;
}
Clock::time_point write_cut(const PhaseContext& ctx, Clock::time_point start, double write_share) {
  return start + std::chrono::duration_cast<Clock::duration>((ctx.deadline - start) * write_share);
}

// The next pass's time from the full ones so far: the slowest after the first (whose writes first-touch
// the memory or follow the file's creation), with kNextPassMargin for the patterns' different costs; the
// first alone when it is the only one.
constexpr double kNextPassMargin = 1.25;
double predicted_pass(const std::vector<double>& samples) {
  if (samples.empty()) return 0;
  if (samples.size() == 1) return samples.front();
  return kNextPassMargin * *std::max_element(samples.begin() + 1, samples.end());
}

// ---- hostmem ----

// Words between two looks at the clock and the stop flag.
constexpr std::size_t kSliceWords = (8u << 20) / sizeof(std::uint64_t);
constexpr std::size_t kHugeWords = (2u << 20) / sizeof(std::uint64_t);
// The sample a pass's time is measured on before the burn-in.
constexpr std::uint64_t kEstimateBytes = 256ull << 20;

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

// `words` of fresh anonymous memory and one pinned thread per CPU, each testing its own chunk.
class HostTest {
 public:
  HostTest(const Json& host, std::size_t words)
      : cpus_(hostmem::place_threads(host, storage::allowed_cpus(),
                                     static_cast<int>(storage::allowed_cpus().size()))),
        memory_(words),
        base_(reinterpret_cast<std::uint64_t*>(memory_.data())),
        chunks_(hostmem::partition(words, static_cast<int>(cpus_.size()),
                                   words / cpus_.size() >= 4 * kHugeWords ? kHugeWords : 4096 / 8)),
        team_(cpus_, true),
        upto_(chunks_.size()),
        per_thread_(chunks_.size()) {}

  const std::vector<int>& cpus() const { return cpus_; }
  const std::string& huge_page_note() const { return memory_.huge_page_note(); }
  // The last pass's check seconds per byte checked (reads do not fault pages in: about the same in every
  // pass).
  double check_s_per_byte() const { return check_s_per_byte_; }

  // One pass of `p`: every thread writes its chunk in slices until `stop_writing` (the first pass's writes
  // are the first touch: every page lands on the node of the thread that tests it), then checks what it
  // wrote until `stop_checking(wrote_all)`. Returns whether the pass was whole; `moved` gets the bytes it
  // wrote and checked.
  bool pass(const PatternPass& p, const std::function<bool()>& stop_writing,
            const std::function<bool(bool)>& stop_checking, WordCheck& found, double& moved) {
    team_.run([&](int t) {
      sliced(t, chunks_[static_cast<std::size_t>(t)].end, stop_writing, [&](std::size_t i, std::size_t n) {
        fill_words({base_ + i, n}, i, p);
      });
    });
    const auto t1 = Clock::now();
    const std::vector<std::size_t> written = upto_;
    const bool wrote_all = complete();
    team_.run([&](int t) {
      auto& mine = per_thread_[static_cast<std::size_t>(t)];
      mine = WordCheck{};
      sliced(
          t, written[static_cast<std::size_t>(t)], [&] { return stop_checking(wrote_all); },
          [&](std::size_t i, std::size_t n) {
            check_words({base_ + i, n}, i, p, mine);
          });
    });
    const double check_s = seconds_since(t1);
    double checked = 0;
    moved = 0;
    for (std::size_t t = 0; t < chunks_.size(); ++t) {
      checked += static_cast<double>(per_thread_[t].checked) * 8;
      moved += static_cast<double>(written[t] - chunks_[t].begin + per_thread_[t].checked) * 8;
    }
    if (checked > 0) check_s_per_byte_ = check_s / checked;
    for (const auto& w : per_thread_) found.merge(w);
    return wrote_all && complete();
  }

 private:
  // Thread t works on its chunk in slices until `cut` says stop; upto_[t] is where it stopped (`end` unless
  // cut).
  void sliced(int t, std::size_t end, const std::function<bool()>& cut,
              const std::function<void(std::size_t, std::size_t)>& f) {
    std::size_t i = chunks_[static_cast<std::size_t>(t)].begin;
    for (; i < end && !cut(); i += std::min(kSliceWords, end - i)) f(i, std::min(kSliceWords, end - i));
    upto_[static_cast<std::size_t>(t)] = std::min(i, end);
  }
  bool complete() const {
    for (std::size_t t = 0; t < chunks_.size(); ++t)
      if (upto_[t] < chunks_[t].end) return false;
    return true;
  }

  std::vector<int> cpus_;
  hostmem::MappedArray memory_;  // 8-byte elements, used as 64-bit words
  std::uint64_t* base_;
  std::vector<hostmem::Chunk> chunks_;
  hostmem::ThreadTeam team_;
  std::vector<std::size_t> upto_;
  std::vector<WordCheck> per_thread_;
  double check_s_per_byte_ = 0;
};

// When a pass's writes end, so that checking what they wrote ends by the deadline: at the later of half its
// time to the deadline (a check is no slower than the writes it reads back) and the deadline less the time
// to check every byte at `check_s_per_byte`, with kCheckMargin (in `all` the other phases compete). The
// first pass's writes fault the pages in and are slower than its check, which the second bound lets run on.
// A pass whose writes were cut is incomplete whatever its check finds: that check stops at the deadline.
constexpr double kCheckMargin = 1.5;
Clock::time_point host_write_cut(const PhaseContext& ctx, Clock::time_point start, double bytes,
                                 double check_s_per_byte) {
  const auto half = write_cut(ctx, start, 0.5);
  if (!(check_s_per_byte > 0)) return half;  // no check timed yet (run without estimate)
  const auto check_all = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(kCheckMargin * bytes * check_s_per_byte));
  return std::max(half, ctx.deadline - check_all);
}

// The bytes the phase tests: ctx's share of MemAvailable; Skipped under kMinHostTestBytes.
std::uint64_t host_bytes(const PhaseContext& ctx, std::uint64_t available) {
  const std::uint64_t bytes = host_test_bytes(ctx.host_memory_fraction, available);
  if (bytes < kMinHostTestBytes) {
    throw Skipped(fmt::format(
        "{}: {:g} of the {} available, keeping {} free, is {}: under the {} worth testing",
        to_string(PhaseId::host_memory), ctx.host_memory_fraction,
        format_bytes(static_cast<double>(available)), format_bytes(static_cast<double>(kHostReserveBytes)),
        format_bytes(static_cast<double>(bytes)), format_bytes(static_cast<double>(kMinHostTestBytes))));
  }
  return bytes;
}

class HostMemoryPhase final : public Phase {
 public:
  PhaseId id() const override { return PhaseId::host_memory; }
  std::optional<std::string> unavailable(const Json&) const override { return std::nullopt; }

  // One pass over a fresh sample of kEstimateBytes (its first touch, write and check, as the phase's first
  // pass does), scaled to the bytes the phase tests, plus the setup (mapping, threads), which is the same
  // for any size. A larger sample than the least worth testing: under load, each wake of the thread team
  // costs milliseconds that a smaller one would scale up with the bytes.
  PassEstimate estimate(const PhaseContext& ctx) override {
    std::uint64_t bytes = 0;
    try {
      bytes = host_bytes(ctx, mem_available());
    } catch (const Skipped&) {
      return {};  // run() says why
    }
    const std::uint64_t sample = std::min(bytes, kEstimateBytes);
    const auto t0 = Clock::now();
    HostTest test(ctx.host, sample / sizeof(std::uint64_t));
    const auto t1 = Clock::now();
    WordCheck found;
    double moved = 0;
    test.pass(
        pattern_pass(ctx.seed, 0), [&ctx] { return ctx.stopping(); }, [&ctx](bool) { return ctx.stopping(); },
        found, moved);
    first_check_s_per_byte_ = test.check_s_per_byte();
    const double setup = std::chrono::duration<double>(t1 - t0).count(), pass = seconds_since(t1);
    return {
        setup + pass * static_cast<double>(bytes) / static_cast<double>(sample),
        fmt::format("a write and check of {} of host memory at {}", format_bytes(static_cast<double>(bytes)),
                    format_rate(2.0 * static_cast<double>(sample) / pass, "B/s")),
        "--host-memory-share"};
  }

  std::vector<Result> run(const PhaseContext& ctx) override {
    const std::uint64_t available = mem_available();
    const std::uint64_t bytes = host_bytes(ctx, available);
    const std::size_t words = bytes / sizeof(std::uint64_t);
    HostTest test(ctx.host, words);

    Result r = phase_result(id(), "host");
    if (!test.huge_page_note().empty()) r.warnings.push_back(test.huge_page_note());

    WordCheck found;
    std::vector<double> samples;
    CutPass cut;
    std::vector<std::string> patterns;
    // The first pass's check rate is the estimate's; later ones the last pass's.
    double check_s_per_byte = first_check_s_per_byte_;
    for (std::uint64_t pass = 0; samples.empty() ? !ctx.past_deadline() : fits(ctx, predicted_pass(samples));
         ++pass) {
      const PatternPass p = pattern_pass(ctx.seed, pass);
      const auto t0 = Clock::now();
      const auto cut_at = host_write_cut(ctx, t0, static_cast<double>(bytes), check_s_per_byte);
      double moved = 0;
      // A whole write is checked whole; the check of a cut one (the pass is incomplete either way) stops at
      // the deadline. A stop cuts either short.
      const bool whole = test.pass(
          p, [&] { return ctx.stopping() || Clock::now() >= cut_at; },
          [&](bool wrote_all) { return ctx.stopping() || (!wrote_all && Clock::now() >= ctx.deadline); },
          found, moved);
      if (!whole) {
        cut = CutPass{moved, seconds_since(t0), moved / (2.0 * static_cast<double>(bytes))};
        break;
      }
      samples.push_back(seconds_since(t0));
      check_s_per_byte = test.check_s_per_byte();
      if (patterns.size() < std::size(kHostPatternNames)) patterns.emplace_back(to_string(p.pattern));
    }

    add_metrics(r, 2.0 * static_cast<double>(words * sizeof(std::uint64_t)), samples, found.bad, cut,
                format_bytes(static_cast<double>(bytes)) + " of host memory", "--host-memory-share");
    Json bad = Json::array();
    for (const auto& b : found.first) bad.push_back(to_json(b));
    r.info = Json{{"iterations", samples.size()},  {"bytes", words * sizeof(std::uint64_t)},
                  {"available_bytes", available},  {"fraction", ctx.host_memory_fraction},
                  {"threads", test.cpus().size()}, {"cpus", test.cpus()},
                  {"patterns", patterns},          {"words_checked", found.checked},
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

 private:
  double first_check_s_per_byte_ = 0;  // measured by estimate()
};

// ---- storage ----

constexpr std::uint64_t kBlock = 1u << 20;
constexpr std::uint64_t kRegion = 64u << 20;
constexpr unsigned kDepth = 8;
// A region's job that has not finished in this long is hung, not slow.
constexpr auto kJobTimeout = std::chrono::minutes(10);

// The engine to use: io_uring, or its fallback where it cannot be set up (storage::resolve_engine).
storage::EngineKind engine_here(std::vector<std::string>& warnings) {
  const storage::ResolvedEngine engine = storage::resolve_engine(storage::EngineKind::uring);
  if (!engine.warning.empty()) warnings.push_back(engine.warning);
  return engine.kind;
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

// The writes of a pass end by two thirds of its time to the deadline: the read after the cache drop moves a
// third of its bytes.
constexpr double kStorageWriteShare = 2.0 / 3;

// The scratch file's checks: the folder, the block and the size that fits.
struct ScratchPlan {
  std::string path;
  storage::TargetInfo target;
  std::uint64_t block = 0, size = 0;
};

ScratchPlan plan_scratch(const fs::path& dir, std::uint64_t bytes) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw Error(
        fmt::format("storage: the scratch folder {} does not exist; create it or give another "
                    "--scratch-dir",
                    dir.string()));
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    throw Error(fmt::format("storage: the scratch folder {} is not writable ({}); give another --scratch-dir",
                            dir.string(), std::strerror(errno)));
  }
  ScratchPlan plan;
  plan.path = (dir / fmt::format("mlbench-burnin-{}.dat", ::getpid())).string();
  plan.target = storage::inspect_target(plan.path);
  plan.block = std::min(kBlock, bytes / 4096 * 4096);
  if (plan.block == 0) {
    throw Error(
        fmt::format("storage: a scratch file of {} B is under one 4 KiB block; give a larger "
                    "--storage-size",
                    bytes));
  }
  plan.size = bytes / plan.block * plan.block;
  if (plan.size > plan.target.free_bytes) {
    throw Error(
        fmt::format("storage: the {} scratch file does not fit in the {} free on {}; give a smaller "
                    "--storage-size or another --scratch-dir",
                    format_bytes(static_cast<double>(plan.size)),
                    format_bytes(static_cast<double>(plan.target.free_bytes)), dir.string()));
  }
  return plan;
}

// Passes over a scratch file of plan.size, created (allocated and filled) here and removed on every way out:
// what the phase runs, and on a one-region file what its estimate times.
struct StorageRun {
  std::vector<double> samples;
  std::uint64_t checked = 0, bad = 0;
  CutPass cut;
  Json bad_blocks = Json::array();
  bool direct = true;
};

StorageRun storage_passes(const PhaseContext& ctx, const ScratchPlan& plan, storage::EngineKind engine,
                          bool one_pass, std::vector<std::string>& warnings) {
  StorageRun out;
  const std::uint64_t size = plan.size, block = plan.block;
  try {
    const storage::OpenTarget file =
        create_scratch(plan.target, size, storage::mix64(ctx.seed), ctx.stop, out.direct, warnings);
    // One job over [off, off + n): the pattern of `seed` written and read back, or read and checked; returns
    // its seconds.
    auto job = [&](bool write, std::uint64_t seed, std::uint64_t off, std::uint64_t n, std::uint64_t pass) {
      const auto t0 = Clock::now();
      storage::JobPlan jp;
      jp.spec.rw = write ? storage::RwMode::write : storage::RwMode::read;
      jp.spec.bs = block;
      jp.spec.iodepth = kDepth;
      jp.spec.io_size = n;
      jp.spec.direct = out.direct;
      jp.spec.verify = true;
      jp.spec.engine = engine;
      jp.engine = engine;
      jp.targets = {{plan.path, file.fd(), off, n, !write}};
      jp.fill_seed = seed;
      jp.write_seed = seed;
      const auto res = storage::run_job(jp, ctx.stop, Clock::now() + kJobTimeout);
      out.checked += res.verify_checked;
      out.bad += res.verify_bad;
      out.cut.bytes += static_cast<double>(res.total.bytes + (write ? res.verify_checked * block : 0));
      for (const auto& b : res.verify_bad_blocks) {
        if (out.bad_blocks.size() < storage::kKeptBadBlocks) {
          out.bad_blocks.push_back(
              Json{{"offset", b.second}, {"pass", pass}, {"read", write ? "after-write" : "after-drop"}});
        }
      }
      return seconds_since(t0);
    };
    auto ahead = [](Clock::time_point limit) {
      return std::chrono::duration<double>(limit - Clock::now()).count();
    };
    for (std::uint64_t pass = 0;
         out.samples.empty() ? !ctx.past_deadline() : !one_pass && fits(ctx, predicted_pass(out.samples));
         ++pass) {
      const std::uint64_t seed = storage::mix64(ctx.seed + pass + 1);
      const auto t0 = Clock::now();
      const auto cut_at = write_cut(ctx, t0, kStorageWriteShare);
      out.cut = CutPass{};
      // A region starts when the last one's time still fits before the cut.
      double region_s = 0;
      std::uint64_t written = 0;
      for (; written < size && !ctx.stopping() && (one_pass || ahead(cut_at) >= region_s);
           written += std::min(kRegion, size - written))
        region_s = job(true, seed, written, std::min(kRegion, size - written), pass);
      if (::fsync(file.fd()) != 0) {
        throw Error(fmt::format("storage: fsync of {} failed: {}", plan.path, std::strerror(errno)));
      }
      ::posix_fadvise(file.fd(), 0, 0, POSIX_FADV_DONTNEED);  // advice: a kernel that ignores it reads cache
      region_s = 0;
      std::uint64_t read = 0;
      for (; read < written && !ctx.stopping() && (one_pass || ahead(ctx.deadline) >= region_s);
           read += std::min(kRegion, written - read))
        region_s = job(false, seed, read, std::min(kRegion, written - read), pass);
      out.cut.seconds = seconds_since(t0);
      out.cut.share = out.cut.bytes / (3.0 * static_cast<double>(size));
      if (read < size) break;
      out.samples.push_back(out.cut.seconds);
      if (one_pass) break;
    }
  } catch (const Interrupted&) {
    // SIGINT mid-region: the passes before it stand, the file is gone (OpenTarget's destructor).
  }
  return out;
}

class StoragePhase final : public Phase {
 public:
  PhaseId id() const override { return PhaseId::storage; }
  std::optional<std::string> unavailable(const Json&) const override { return std::nullopt; }

  // One pass over a scratch file of one region (or the whole file when smaller), created, written and read
  // twice, and removed as the phase does, scaled to --storage-size.
  PassEstimate estimate(const PhaseContext& ctx) override {
    const ScratchPlan plan = plan_scratch(ctx.scratch_dir, ctx.storage_bytes);
    ScratchPlan sample = plan;
    sample.size = std::min(plan.size, kRegion / plan.block * plan.block);
    std::vector<std::string> warnings;
    const auto t0 = Clock::now();
    storage_passes(ctx, sample, engine_here(warnings), true, warnings);
    const double took = seconds_since(t0);
    const double scale = static_cast<double>(plan.size) / static_cast<double>(sample.size);
    return {took * scale,
            fmt::format("the {} scratch file created, written and read twice at {}",
                        format_bytes(static_cast<double>(plan.size)),
                        format_rate(4.0 * static_cast<double>(sample.size) / took, "B/s")),
            "--storage-size"};
  }

  std::vector<Result> run(const PhaseContext& ctx) override {
    const ScratchPlan plan = plan_scratch(ctx.scratch_dir, ctx.storage_bytes);
    Result r = phase_result(id(), plan.path);
    const storage::EngineKind engine = engine_here(r.warnings);
    StorageRun got = storage_passes(ctx, plan, engine, false, r.warnings);

    add_metrics(r, 3.0 * static_cast<double>(plan.size), got.samples, got.bad, got.cut,
                format_bytes(static_cast<double>(plan.size)) + " scratch file", "--storage-size");
    r.info = Json{{"iterations", got.samples.size()},
                  {"bytes", plan.size},
                  {"block_bytes", plan.block},
                  {"direct", got.direct},
                  {"engine", storage::to_string(engine)},
                  {"disk", plan.target.disk},
                  {"blocks_checked", got.checked},
                  {"bad_blocks", std::move(got.bad_blocks)}};
    if (got.bad > 0) {
      r.status = Status::incorrect;
      r.reason = fmt::format("{}: {} of {} blocks read back differ from what was written, first at offset {}",
                             plan.path, got.bad, got.checked,
                             r.info["bad_blocks"][0]["offset"].get<std::uint64_t>());
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
