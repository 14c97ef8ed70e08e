#include "storage/job.hpp"

#include <sched.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <latch>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "base/error.hpp"
#include "storage/buffer.hpp"
#include "storage/cpus.hpp"
#include "storage/pattern.hpp"

namespace mlbench::storage {
namespace {

inline std::uint64_t now_ns() {
  timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

std::uint64_t to_ns(double s) { return static_cast<std::uint64_t>(s * 1e9); }

double cpu_seconds() {
  rusage ru{};
  ::getrusage(RUSAGE_SELF, &ru);
  auto tv = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
  };
  return tv(ru.ru_utime) + tv(ru.ru_stime);
}

// splitmix64 stream: one add and the finalizer per number.
struct Rng {
  std::uint64_t state;
  std::uint64_t next() { return mix64(state += 0x9e3779b97f4a7c15ull); }
  // Uniform in [0, n) without a division (Lemire's multiply-shift).
  std::uint64_t below(std::uint64_t n) {
    __extension__ using U128 = unsigned __int128;  // GCC/Clang builtin; -Wpedantic would flag it otherwise
    return static_cast<std::uint64_t>((static_cast<U128>(next()) * n) >> 64);
  }
};

struct WorkerSetup {
  unsigned index = 0;
  std::vector<std::uint32_t> lane;  // targets this thread addresses: one, or all when striped
  std::uint64_t lo = 0, hi = 0;     // logical byte range [lo, hi)
  std::uint64_t limit_ios = 0;      // 0 = bound by time only
};

struct WorkerResult {
  std::vector<IoTotals> per_target;
  std::array<std::vector<double>, kLatencyPercentiles.size()> interval_lat;
  std::uint64_t done_ns = 0;
  int cpu = -1;
  nlohmann::json features = nlohmann::json::object();
  nlohmann::json trial;  // the job's submission trial figures, when one ran
  std::vector<std::string> warnings;
  std::vector<std::vector<std::uint64_t>> written;  // per-target bitmaps of blocks written (verify)
  std::uint64_t read_checked = 0, read_bad = 0;
  std::string first_bad;
};

struct alignas(64) Progress {
  std::atomic<std::uint64_t> ios{0};
  std::atomic<bool> finished{false};
};

struct Shared {
  explicit Shared(std::ptrdiff_t n) : ready(n), go(1) {}
  std::latch ready, go;
  std::atomic<std::uint64_t> start_ns{0};
  std::atomic<bool> abort{false};
  SubmissionTrial::Tally trial;
  std::mutex mu;
  std::string error;
  void fail(std::string what) {
    std::lock_guard lock(mu);
    if (error.empty()) error = std::move(what);
    abort.store(true);
  }
};

std::string describe_result(std::int64_t res, std::uint64_t want) {
  if (res < 0) {
    int e = static_cast<int>(-res);
    std::string tag = e == ENOSPC ? "ENOSPC" : e == EIO ? "EIO" : fmt::format("errno {}", e);
    return fmt::format("{} ({})", std::strerror(e), tag);
  }
  return fmt::format("short transfer: {} of {} bytes", res, want);
}

void worker_main(const JobPlan& plan, const WorkerSetup& w, Shared& sh, Progress& prog, WorkerResult& res,
                 const std::atomic<bool>& stop, std::uint64_t deadline_ns) {
  const JobSpec& s = plan.spec;
  const std::size_t ntargets = plan.targets.size();
  const bool verify_writes = s.verify && writes(s.rw);
  const bool verify_reads = s.verify && !writes(s.rw);
  std::unique_ptr<Engine> engine;
  AlignedBuffer mem;
  std::vector<std::span<std::byte>> bufs;
  bool ok = true;
  if (!plan.cpus.empty()) {
    // Before the ring and the buffers exist, so that both are set up from the CPU the thread stays on.
    const int cpu = plan.cpus[w.index % plan.cpus.size()];
    if (auto why = pin_this_thread(cpu); !why.empty())
      res.warnings.push_back(
          fmt::format("job thread {} could not be pinned to CPU {}: {}", w.index, cpu, why));
  }
  try {
    const EngineTraits& can = traits(plan.engine);
    unsigned depth = can.queue_depth ? s.iodepth : 1;
    // An I/O within one base page is one memory segment whatever backs it; larger ones want huge pages
    // (buffer.hpp says why).
    const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    const bool multi_page = s.bs > page;
    mem = AlignedBuffer(depth * s.bs, multi_page ? AlignedBuffer::Pages::huge : AlignedBuffer::Pages::base);
    for (unsigned i = 0; i < depth; ++i) bufs.push_back(mem.span().subspan(i * s.bs, s.bs));
    // Write data is random (never zeros); under --verify each write gets its offset's pattern instead.
    fill_pattern(mem.span(), mix64(plan.write_seed + w.index + 1), 0);
    std::vector<int> fds;
    for (const auto& t : plan.targets) fds.push_back(t.fd);
    EngineConfig cfg{.depth = depth,
                     .fds = fds,
                     .buffers = bufs,
                     .sqpoll = s.sqpoll && can.sqpoll,
                     .fixed_bufs = s.fixed_bufs && can.registered_buffers,
                     .iopoll = plan.iopoll};
    engine = make_engine(plan.engine, cfg);
    res.features = engine->features();
    for (auto& warning : engine->warnings()) res.warnings.push_back(std::move(warning));
    const auto huge = multi_page ? mem.huge_bytes() : std::nullopt;  // after fill_pattern touched every page
    res.features["buffer_pages"] = huge && *huge >= mem.size() ? "huge" : "base";
    if (multi_page && res.features["buffer_pages"] == "base") {
      res.warnings.push_back(fmt::format(
          "the I/O buffers are in base pages, not huge pages ({}), so each {}-byte I/O reaches the device as "
          "up to {} memory segments, which can lower throughput",
          huge_pages_missing_reason(), s.bs, (s.bs + page - 1) / page));
    }
    res.per_target.resize(ntargets);
    if (verify_writes) {
      res.written.resize(ntargets);
      for (std::uint32_t t : w.lane) res.written[t].assign((plan.targets[t].size / s.bs + 63) / 64, 0);
    }
  } catch (const std::exception& e) {
    sh.fail(fmt::format("job thread {}: {}", w.index, e.what()));
    ok = false;
  }
  sh.ready.count_down();
  sh.go.wait();
  if (!ok || sh.abort.load()) {
    prog.finished.store(true);
    return;
  }

  const unsigned depth = engine->depth();
  const std::uint64_t t0 = sh.start_ns.load();
  const std::uint64_t ramp_end = t0 + to_ns(s.ramp_s);
  const std::uint64_t end_ns = s.runtime_s > 0 ? ramp_end + to_ns(s.runtime_s) : UINT64_MAX;
  const std::uint64_t bs = s.bs;
  const std::uint64_t nblocks = (w.hi - w.lo) / bs;
  const bool random = is_random(s.rw);
  const bool queued = traits(plan.engine).submission_queue;  // without a submission queue, no trial
  SubmissionTrial submission(s.submission, random, depth, t0, queued ? s.ramp_s : 0.0, sh.trial);
  const bool striped = w.lane.size() > 1;
  const auto nlane = static_cast<std::uint32_t>(w.lane.size());
  Rng rng{mix64(plan.write_seed ^ (0xa0761d6478bd642full * (w.index + 1)))};
  std::uint64_t cursor = w.lo;

  std::vector<std::uint64_t> start(depth);
  std::vector<std::uint32_t> tgt(depth);
  std::vector<std::uint64_t> off(depth);  // offset inside the target's region
  std::vector<std::uint8_t> is_write(depth);
  std::uint64_t issued = 0, inflight = 0, measured = 0;
  bool issuing = true, counting = true;

  auto issue = [&](std::uint32_t slot, std::uint64_t now) {
    bool write;
    switch (s.rw) {
      case RwMode::read:
      case RwMode::randread:
        write = false;
        break;
      case RwMode::write:
      case RwMode::randwrite:
        write = true;
        break;
      default:
        write = rng.below(100) >= s.rwmix_read;
    }
    std::uint64_t lo;
    if (random) {
      lo = w.lo + rng.below(nblocks) * bs;
    } else {
      lo = cursor;
      cursor += bs;
      if (cursor + bs > w.hi) cursor = w.lo;
    }
    std::uint32_t t = w.lane[0];
    std::uint64_t o = lo;
    if (striped) {
      auto loc = stripe_map(lo, s.stripe, nlane);
      t = w.lane[loc.target];
      o = loc.offset;
    }
    const JobTarget& jt = plan.targets[t];
    if (write && verify_writes) fill_pattern(bufs[slot], target_seed(plan.write_seed, t), jt.base + o);
    engine->queue({slot, t, static_cast<std::uint32_t>(bs), write, jt.base + o});
    if (submission.per_io(now)) engine->submit();
    start[slot] = now;
    tgt[slot] = t;
    off[slot] = o;
    is_write[slot] = write;
    ++issued;
    ++inflight;
  };

  // The current sampling interval's latencies, closed by this thread itself (no sharing with the sampler).
  LatencyHistogram window;
  const std::uint64_t interval_ns = to_ns(sampling_interval_s(s));
  std::uint64_t window_end = ramp_end + interval_ns;
  auto close_window = [&] {
    for (std::size_t q = 0; q < kLatencyPercentiles.size(); ++q) {
      const double beyond = static_cast<double>(window.count()) * (1 - kLatencyPercentiles[q].second);
      if (beyond >= 10)
        res.interval_lat[q].push_back(window.percentile(kLatencyPercentiles[q].second) * 1e-9);
    }
    window.reset();
  };

  std::vector<Completion> done(depth);
  std::uint64_t now = now_ns();
  std::uint64_t last_counted = now;
  try {  // issue() submits at once in per-I/O mode, and a failed submission throws
    for (std::uint32_t slot = 0; slot < depth; ++slot) {
      if (w.limit_ios > 0 && issued >= w.limit_ios) break;
      issue(slot, now);
    }
    while (inflight > 0) {
      std::size_t n = engine->submit_and_reap(1, done);
      now = now_ns();
      submission.completed(now, n);
      if (issuing) {
        if (now >= end_ns) {
          issuing = counting = false;
          last_counted = end_ns;
        } else if (stop.load(std::memory_order_relaxed) || sh.abort.load(std::memory_order_relaxed)) {
          issuing = counting = false;
          last_counted = now;
        } else if (now >= deadline_ns) {
          sh.fail("the job ran past the case's time budget; lower --size/--io-size or raise --runtime");
          issuing = counting = false;
        }
      }
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t slot = done[i].slot;
        --inflight;
        const std::uint32_t t = tgt[slot];
        if (done[i].res != static_cast<std::int64_t>(bs)) {
          sh.fail(fmt::format("{} {} at offset {}: {}", is_write[slot] ? "writing" : "reading",
                              plan.targets[t].path, plan.targets[t].base + off[slot],
                              describe_result(done[i].res, bs)));
          issuing = counting = false;
          continue;
        }
        // Every completed write is on the target, whether it completed in the ramp, in the window or in the
        // drain after it: the read-back expects the write pattern on all of them.
        if (is_write[slot] && verify_writes)
          res.written[t][off[slot] / bs / 64] |= 1ull << (off[slot] / bs % 64);
        if (counting && now >= ramp_end) {
          IoTotals& tt = res.per_target[t];
          ++tt.ios;
          tt.bytes += bs;
          if (is_write[slot]) {
            ++tt.writes;
          } else {
            ++tt.reads;
            if (verify_reads && plan.targets[t].prefilled) {
              ++res.read_checked;
              if (!matches_pattern(bufs[slot], target_seed(plan.fill_seed, t),
                                   plan.targets[t].base + off[slot])) {
                if (res.read_bad++ == 0)
                  res.first_bad =
                      fmt::format("{} offset {}", plan.targets[t].path, plan.targets[t].base + off[slot]);
              }
            }
          }
          tt.lat.record(now - start[slot]);
          window.record(now - start[slot]);
          ++measured;
          last_counted = now;
        }
        if (issuing && (w.limit_ios == 0 || issued < w.limit_ios)) issue(slot, now);
      }
      prog.ios.store(measured, std::memory_order_relaxed);
      if (counting && now >= window_end) {
        close_window();
        window_end = now + interval_ns;
      }
    }
  } catch (const std::exception& e) {
    sh.fail(fmt::format("job thread {}: {}", w.index, e.what()));
  }
  if (queued) {
    const bool per_io = submission.per_io(UINT64_MAX);
    res.features["submission"] = per_io ? "per_io" : "batched";
    if (submission.trial()) {
      res.trial = {{"batched_iops", submission.batched_iops()},
                   {"per_io_iops", submission.per_io_iops()},
                   {"chosen", per_io ? "per_io" : "batched"}};
    }
  }
  res.done_ns = std::max(last_counted, ramp_end);
  res.cpu = ::sched_getcpu();
  prog.finished.store(true);
}

// Reads back every block a write job touched (and, on prefilled targets, the rest) and compares patterns.
void verify_region(const JobPlan& plan, std::size_t t, const std::vector<std::uint64_t>& written,
                   JobOutcome& out) {
  const JobTarget& jt = plan.targets[t];
  const std::uint64_t bs = plan.spec.bs;
  const std::uint64_t per = std::max<std::uint64_t>(1, (4u << 20) / bs);
  AlignedBuffer buf(per * bs, AlignedBuffer::Pages::huge);
  const std::uint64_t blocks = jt.size / bs;
  for (std::uint64_t b0 = 0; b0 < blocks; b0 += per) {
    std::uint64_t nb = std::min(per, blocks - b0);
    std::size_t bytes = nb * bs, got = 0;
    while (got < bytes) {
      ssize_t r = ::pread(jt.fd, buf.data() + got, bytes - got, static_cast<off_t>(jt.base + b0 * bs + got));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) {
        throw Error(fmt::format("verify: reading {} at offset {}: {}", jt.path, jt.base + b0 * bs + got,
                                r < 0 ? std::strerror(errno) : "unexpected end of file"));
      }
      got += static_cast<std::size_t>(r);
    }
    for (std::uint64_t i = 0; i < nb; ++i) {
      std::uint64_t b = b0 + i;
      bool was_written = (written[b / 64] >> (b % 64)) & 1;
      if (!was_written && !jt.prefilled) continue;
      std::uint64_t seed = was_written ? target_seed(plan.write_seed, t) : target_seed(plan.fill_seed, t);
      ++out.verify_checked;
      if (!matches_pattern(buf.span().subspan(i * bs, bs), seed, jt.base + b * bs)) {
        if (out.verify_bad++ == 0)
          out.verify_first_bad = fmt::format("{} offset {}", jt.path, jt.base + b * bs);
      }
    }
  }
}

}  // namespace

double sampling_interval_s(const JobSpec& s) {
  return s.runtime_s > 0 ? std::clamp(s.runtime_s / 20, 0.1, 1.0) : 0.1;
}

SubmissionTrial::SubmissionTrial(Submission mode, bool random, unsigned depth, std::uint64_t t0_ns,
                                 double ramp_s, Tally& tally)
    : mode_(mode == Submission::per_io || (mode == Submission::automatic && !random && depth > 1) ? 1 : 0),
      tally_(tally) {
  if (mode == Submission::automatic && random && depth > 1 && ramp_s >= kMinRamp) {
    start_ns_ = t0_ns + to_ns(ramp_s / 2);
    slice_ns_ = to_ns(ramp_s / 8);
  }
}

bool SubmissionTrial::per_io(std::uint64_t now_ns) {
  if (slice_ns_ == 0 || decided_ || now_ns < start_ns_) return mode_ == 1;
  const std::uint64_t k = (now_ns - start_ns_) / slice_ns_;
  if (k < tally_.counts.size()) return k == 1 || k == 2;  // batched, per-I/O, per-I/O, batched
  int open = -1;
  tally_.decision.compare_exchange_strong(open, per_io_iops() > batched_iops() ? 1 : 0);
  mode_ = tally_.decision.load();
  decided_ = true;
  return mode_ == 1;
}

void SubmissionTrial::completed(std::uint64_t now_ns, std::size_t n) {
  if (slice_ns_ == 0 || decided_ || now_ns < start_ns_) return;
  const std::uint64_t k = (now_ns - start_ns_) / slice_ns_;
  if (k < tally_.counts.size()) tally_.counts[k].fetch_add(n, std::memory_order_relaxed);
}

double SubmissionTrial::rate(std::size_t a, std::size_t b) const {
  if (slice_ns_ == 0) return 0;
  const auto ios =
      tally_.counts[a].load(std::memory_order_relaxed) + tally_.counts[b].load(std::memory_order_relaxed);
  return static_cast<double>(ios) / (2e-9 * static_cast<double>(slice_ns_));  // two slices
}

void IoTotals::merge(const IoTotals& o) {
  ios += o.ios;
  bytes += o.bytes;
  reads += o.reads;
  writes += o.writes;
  lat.merge(o.lat);
}

JobOutcome run_job(const JobPlan& plan, const std::atomic<bool>& stop,
                   std::chrono::steady_clock::time_point deadline) {
  const JobSpec& s = plan.spec;
  const auto ntargets = static_cast<std::uint32_t>(plan.targets.size());
  std::vector<WorkerSetup> setups;
  std::uint64_t limit = s.number_ios > 0 ? s.number_ios : (s.io_size + s.bs - 1) / s.bs;
  auto add_workers = [&](std::vector<std::uint32_t> lane, std::uint64_t span) {
    for (unsigned j = 0; j < s.jobs; ++j) {
      WorkerSetup w;
      w.index = static_cast<unsigned>(setups.size());
      w.lane = lane;
      w.limit_ios = limit;
      if (is_random(s.rw)) {
        w.hi = span;
      } else {
        w.lo = span * j / s.jobs / s.bs * s.bs;
        w.hi = span * (j + 1) / s.jobs / s.bs * s.bs;
      }
      if (w.hi - w.lo < s.bs) throw UsageError("the region is too small for this many --jobs at this --bs");
      setups.push_back(std::move(w));
    }
  };
  if (s.stripe > 0 && ntargets > 1) {
    std::uint64_t per = UINT64_MAX;
    for (const auto& t : plan.targets) per = std::min(per, t.size / s.stripe * s.stripe);
    std::vector<std::uint32_t> lane(ntargets);
    for (std::uint32_t i = 0; i < ntargets; ++i) lane[i] = i;
    add_workers(lane, per * ntargets);
  } else {
    for (std::uint32_t t = 0; t < ntargets; ++t) add_workers({t}, plan.targets[t].size);
  }

  const std::size_t n = setups.size();
  Shared sh(static_cast<std::ptrdiff_t>(n));
  std::vector<WorkerResult> results(n);
  std::vector<Progress> progress(n);
  const auto deadline_ns = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(deadline.time_since_epoch()).count());
  std::vector<std::jthread> threads;
  threads.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    threads.emplace_back(
        [&, i] { worker_main(plan, setups[i], sh, progress[i], results[i], stop, deadline_ns); });
  }
  sh.ready.wait();
  const std::uint64_t t0 = now_ns();
  sh.start_ns.store(t0);
  sh.go.count_down();

  JobOutcome out;
  out.threads = static_cast<unsigned>(n);
  auto all_done = [&] {
    return std::all_of(progress.begin(), progress.end(), [](const Progress& p) { return p.finished.load(); });
  };
  auto total_ios = [&] {
    std::uint64_t sum = 0;
    for (const auto& p : progress) sum += p.ios.load(std::memory_order_relaxed);
    return sum;
  };
  const std::uint64_t ramp_end = t0 + to_ns(s.ramp_s);
  constexpr auto kPoll = std::chrono::milliseconds(10);
  while (now_ns() < ramp_end && !all_done()) std::this_thread::sleep_for(kPoll);
  const double cpu0 = cpu_seconds();
  const double interval_s = sampling_interval_s(s);
  std::uint64_t tick = now_ns(), last_ios = total_ios();
  while (!all_done()) {
    std::this_thread::sleep_for(kPoll);
    std::uint64_t now = now_ns();
    if (now - tick >= to_ns(interval_s) && !all_done()) {
      std::uint64_t ios = total_ios();
      out.interval_iops.push_back(static_cast<double>(ios - last_ios) /
                                  (static_cast<double>(now - tick) * 1e-9));
      last_ios = ios;
      tick = now;
    }
  }
  threads.clear();
  out.cpu_s = cpu_seconds() - cpu0;

  if (!sh.error.empty()) throw Error(sh.error);
  if (stop.load()) throw Interrupted();

  out.per_target.resize(ntargets);
  std::uint64_t first = UINT64_MAX, last = 0;
  std::vector<std::vector<std::uint64_t>> written(ntargets);
  for (auto& r : results) {
    for (std::uint32_t t = 0; t < ntargets; ++t) out.per_target[t].merge(r.per_target[t]);
    for (std::size_t q = 0; q < kLatencyPercentiles.size(); ++q)
      out.interval_lat[q].insert(out.interval_lat[q].end(), r.interval_lat[q].begin(),
                                 r.interval_lat[q].end());
    out.thread_cpus.push_back(r.cpu);
    first = std::min(first, r.done_ns);
    last = std::max(last, r.done_ns);
    out.verify_checked += r.read_checked;
    out.verify_bad += r.read_bad;
    if (out.verify_first_bad.empty()) out.verify_first_bad = r.first_bad;
    for (std::uint32_t t = 0; t < ntargets && !r.written.empty(); ++t) {
      if (r.written[t].empty()) continue;
      if (written[t].empty()) written[t].assign(r.written[t].size(), 0);
      for (std::size_t k = 0; k < written[t].size(); ++k) written[t][k] |= r.written[t][k];
    }
  }
  for (const auto& t : out.per_target) out.total.merge(t);
  out.first_done_s = static_cast<double>(first - ramp_end) * 1e-9;
  out.last_done_s = static_cast<double>(last - ramp_end) * 1e-9;
  out.engine_features = results.front().features;
  out.submission_trial = results.front().trial;  // the job's: its threads tried and decided together
  for (const auto& r : results) {                // each thread's engine warns alike: keep one of each
    for (const auto& w : r.warnings)
      if (std::find(out.warnings.begin(), out.warnings.end(), w) == out.warnings.end())
        out.warnings.push_back(w);
  }
  if (out.total.ios == 0 || out.last_done_s <= 0) {
    throw Error("no I/O completed after the ramp; lengthen --runtime or shorten --ramp");
  }
  if (s.verify && writes(s.rw)) {
    for (std::uint32_t t = 0; t < ntargets; ++t) {
      if (!written[t].empty()) verify_region(plan, t, written[t], out);
    }
  }
  return out;
}

}  // namespace mlbench::storage
