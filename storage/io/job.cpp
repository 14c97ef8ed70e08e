#include "storage/io/job.hpp"

#include <sched.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <latch>
#include <map>
#include <mutex>
#include <numeric>
#include <optional>
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

// The process's CPU use so far (getrusage RUSAGE_SELF).
struct CpuUse {
  double usr = 0, sys = 0;
  std::uint64_t ctx = 0, majf = 0, minf = 0;
  double total() const { return usr + sys; }
};
CpuUse cpu_use() {
  rusage ru{};
  ::getrusage(RUSAGE_SELF, &ru);
  auto tv = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
  };
  auto n = [](long v) { return static_cast<std::uint64_t>(std::max(0L, v)); };
  return {tv(ru.ru_utime), tv(ru.ru_stime), n(ru.ru_nvcsw) + n(ru.ru_nivcsw), n(ru.ru_majflt),
          n(ru.ru_minflt)};
}

// The statistics of `disks` now, those that can be read.
std::vector<DiskStat> read_disk_stats(const std::vector<std::string>& disks, const SysReader& sys) {
  std::vector<DiskStat> out;
  for (const auto& d : disks)
    if (auto st = read_disk_stat(d, sys)) out.push_back(std::move(*st));
  return out;
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
  // Latencies only (the sampler has the rates): the thread's, and per target (index of JobPlan::targets).
  DirectionIntervals intervals;
  std::vector<DirectionIntervals> per_target_intervals;
  std::uint64_t done_ns = 0;
  int cpu = -1;
  nlohmann::json features = nlohmann::json::object();
  nlohmann::json trial;  // the job's submission trial figures, when one ran
  std::vector<std::string> warnings;
  std::vector<std::vector<std::uint64_t>> written;  // per-target bitmaps of blocks written (verify)
  std::uint64_t read_checked = 0, read_bad = 0;
  std::string first_bad;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> bad_blocks;  // the first kKeptBadBlocks
};

// Keeps the lowest kKeptBadBlocks of `blocks` plus `add`.
void keep_bad_block(std::vector<std::pair<std::uint32_t, std::uint64_t>>& blocks,
                    std::pair<std::uint32_t, std::uint64_t> add) {
  blocks.insert(std::lower_bound(blocks.begin(), blocks.end(), add), add);
  if (blocks.size() > kKeptBadBlocks) blocks.pop_back();
}

// A job thread's measured reads and writes on one target so far, for the sampler: stored (relaxed) once per
// completion batch; each target's in its own cache line, so that threads do not share lines. Reads and
// writes, not I/Os and reads: each only grows, so the sampler's I/Os (their sum) and writes (I/Os − reads)
// never go back, however its loads interleave with the stores (an I/O count older than its read count would
// make the writes wrap).
struct alignas(64) TargetCount {
  std::atomic<std::uint64_t> reads{0}, writes{0};
};

struct alignas(64) Progress {
  std::vector<TargetCount> targets;  // per target (index of JobPlan::targets); only the thread's lane moves
  // --log-interval: the interval the thread fills (the earlier ones are merged into Shared::log).
  std::atomic<std::uint64_t> log_next{0};
  std::atomic<bool> finished{false};
};

// The current sampling interval's latencies: every I/O, reads, writes.
struct Windows {
  LatencyHistogram all, read, write;
  void record(std::uint64_t lat, bool write_io) {
    all.record(lat);
    (write_io ? write : read).record(lat);
  }
};

struct Shared {
  explicit Shared(std::ptrdiff_t n) : ready(n), go(1) {}
  std::latch ready, go;
  std::atomic<std::uint64_t> start_ns{0};
  std::atomic<bool> abort{false};
  SubmissionTrial::Tally trial;
  // The --log-interval intervals not yet final, by index: the job threads' latencies merged (LogEntry).
  std::mutex log_mu;
  std::map<std::uint64_t, LatencyHistogram> log;
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

// One job thread. set_up() runs before the start line (pinning, buffers, engine); after it the thread issues
// `depth` I/Os and, for every batch the engine completes, counts each completion (complete()) and issues the
// next I/O in its slot, until nothing is in flight; finish() then records what the thread did.
class Worker {
 public:
  Worker(const JobPlan& plan, const WorkerSetup& w, Shared& sh, Progress& prog, WorkerResult& res,
         const std::atomic<bool>& stop, std::uint64_t deadline_ns)
      : plan_(plan),
        s_(plan.spec),
        w_(w),
        sh_(sh),
        prog_(prog),
        res_(res),
        stop_(stop),
        deadline_ns_(deadline_ns),
        verify_writes_(s_.verify && writes(s_.rw)),
        verify_reads_(s_.verify && !writes(s_.rw)),
        queued_(traits(plan.engine).submission_queue) {}

  void run() {
    const bool ok = set_up();
    sh_.ready.count_down();
    sh_.go.wait();
    if (!ok || sh_.abort.load()) {
      prog_.finished.store(true);
      return;
    }
    start();
    try {  // issue() submits at once in per-I/O mode, and a failed submission throws
      std::uint64_t now = now_ns();
      last_counted_ = now;
      for (std::uint32_t slot = 0; slot < depth_; ++slot) next_io(slot, now);
      std::vector<Completion> done(depth_);
      while (inflight_ > 0 || !waiting_.empty()) {
        std::size_t n = 0;
        if (inflight_ > 0) {
          n = engine_->submit_and_reap(1, done);
        } else {
          // Only slots waiting for --rate-iops: sleep until the next I/O is due, 10 ms at most at a time so
          // that a stop is seen.
          const std::uint64_t t = now_ns();
          const std::uint64_t ns = std::min<std::uint64_t>(next_due_ > t ? next_due_ - t : 0, 10'000'000);
          const timespec ts{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
          ::nanosleep(&ts, nullptr);
        }
        now = now_ns();
        submission_->completed(now, n);
        if (issuing_) check_stop(now);
        if (now >= log_end_) roll_log(now);
        for (std::size_t i = 0; i < n; ++i) complete(done[i], now);
        release_due(now);
        for (std::uint32_t t : w_.lane) {
          prog_.targets[t].reads.store(res_.per_target[t].reads, std::memory_order_relaxed);
          prog_.targets[t].writes.store(res_.per_target[t].writes, std::memory_order_relaxed);
        }
        if (counting_ && now >= window_end_) {
          close_window();
          window_end_ = now + interval_ns_;
        }
      }
    } catch (const std::exception& e) {
      sh_.fail(fmt::format("job thread {}: {}", w_.index, e.what()));
    }
    finish();
  }

 private:
  // Before the start line, so that the ring and the buffers are set up from the CPU the thread stays on.
  // False (the job failed through sh_) when they cannot be.
  bool set_up() {
    if (!plan_.cpus.empty()) {
      const int cpu = plan_.cpus[w_.index % plan_.cpus.size()];
      if (auto why = pin_this_thread(cpu); !why.empty())
        res_.warnings.push_back(
            fmt::format("job thread {} could not be pinned to CPU {}: {}", w_.index, cpu, why));
    }
    try {
      const EngineTraits& can = traits(plan_.engine);
      unsigned depth = can.queue_depth ? s_.iodepth : 1;
      // An I/O within one base page is one memory segment whatever backs it; larger ones want huge pages
      // (buffer.hpp says why).
      const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
      const bool multi_page = s_.bs > page;
      mem_ =
          AlignedBuffer(depth * s_.bs, multi_page ? AlignedBuffer::Pages::huge : AlignedBuffer::Pages::base);
      for (unsigned i = 0; i < depth; ++i) bufs_.push_back(mem_.span().subspan(i * s_.bs, s_.bs));
      // Write data is random (never zeros); under --verify each write gets its offset's pattern instead.
      fill_pattern(mem_.span(), mix64(plan_.write_seed + w_.index + 1), 0);
      std::vector<int> fds;
      for (const auto& t : plan_.targets) fds.push_back(t.fd);
      EngineConfig cfg{.depth = depth,
                       .fds = fds,
                       .buffers = bufs_,
                       .sqpoll = s_.sqpoll && can.sqpoll,
                       .fixed_bufs = s_.fixed_bufs && can.registered_buffers,
                       .iopoll = plan_.iopoll};
      engine_ = make_engine(plan_.engine, cfg);
      res_.features = engine_->features();
      for (auto& warning : engine_->warnings()) res_.warnings.push_back(std::move(warning));
      const auto huge =
          multi_page ? mem_.huge_bytes() : std::nullopt;  // after fill_pattern touched every page
      res_.features["buffer_pages"] = huge && *huge >= mem_.size() ? "huge" : "base";
      if (multi_page && res_.features["buffer_pages"] == "base") {
        res_.warnings.push_back(
            fmt::format("the I/O buffers are in base pages, not huge pages ({}), so each {}-byte I/O reaches "
                        "the device as "
                        "up to {} memory segments, which can lower throughput",
                        huge_pages_missing_reason(), s_.bs, (s_.bs + page - 1) / page));
      }
      const std::size_t ntargets = plan_.targets.size();
      res_.per_target.resize(ntargets);
      res_.per_target_intervals.resize(ntargets);
      // A striped thread samples each target's latencies apart; a thread of one target's are the target's.
      if (w_.lane.size() > 1) target_windows_.resize(ntargets);
      if (verify_writes_) {
        res_.written.resize(ntargets);
        for (std::uint32_t t : w_.lane) res_.written[t].assign((plan_.targets[t].size / s_.bs + 63) / 64, 0);
      }
    } catch (const std::exception& e) {
      sh_.fail(fmt::format("job thread {}: {}", w_.index, e.what()));
      return false;
    }
    return true;
  }

  // After the start line: the job's clock, the slots, the submission trial and the first sampling interval.
  void start() {
    depth_ = engine_->depth();
    const std::uint64_t t0 = sh_.start_ns.load();
    const double warmup = warmup_s(s_, queued_);
    ramp_end_ = t0 + to_ns(warmup);
    end_ns_ = s_.runtime_s > 0 ? ramp_end_ + to_ns(s_.runtime_s) : UINT64_MAX;
    nblocks_ = (w_.hi - w_.lo) / s_.bs;
    // Without a submission queue there is nothing to try.
    submission_.emplace(s_.submission, is_random(s_.rw), depth_, t0, queued_ ? warmup : 0.0, sh_.trial);
    rng_ = Rng{mix64(plan_.write_seed ^ (0xa0761d6478bd642full * (w_.index + 1)))};
    cursor_ = w_.lo + static_cast<std::uint64_t>(plan_.seq_start * static_cast<double>(nblocks_)) * s_.bs;
    if (cursor_ + s_.bs > w_.hi) cursor_ = w_.lo;
    slots_.resize(depth_);
    interval_ns_ = to_ns(plan_.interval_s > 0 ? plan_.interval_s : sampling_interval_s(s_));
    if (s_.rate_iops > 0) {
      rate_ns_ = std::max<std::uint64_t>(1, 1'000'000'000 / s_.rate_iops);
      next_due_ = t0;
    }
    window_end_ = ramp_end_ + interval_ns_;
    if (s_.log_interval_s > 0) {
      log_ns_ = to_ns(s_.log_interval_s);
      log_end_ = ramp_end_ + log_ns_;
    }
  }

  // Queues the next I/O in `slot`, issued at `now`.
  void issue(std::uint32_t slot, std::uint64_t now) {
    const std::uint64_t bs = s_.bs;
    bool write;
    switch (s_.rw) {
      case RwMode::read:
      case RwMode::randread:
        write = false;
        break;
      case RwMode::write:
      case RwMode::randwrite:
        write = true;
        break;
      default:
        write = rng_.below(100) >= s_.rwmix_read;
    }
    std::uint64_t lo;
    if (is_random(s_.rw)) {
      lo = w_.lo + rng_.below(nblocks_) * bs;
    } else {
      lo = cursor_;
      cursor_ += bs;
      if (cursor_ + bs > w_.hi) cursor_ = w_.lo;
    }
    std::uint32_t t = w_.lane[0];
    std::uint64_t o = lo;
    if (w_.lane.size() > 1) {  // striped
      auto loc = stripe_map(lo, s_.stripe, static_cast<std::uint32_t>(w_.lane.size()));
      t = w_.lane[loc.target];
      o = loc.offset;
    }
    const JobTarget& jt = plan_.targets[t];
    if (write && verify_writes_) fill_pattern(bufs_[slot], target_seed(plan_.write_seed, t), jt.base + o);
    engine_->queue({slot, t, static_cast<std::uint32_t>(bs), write, jt.base + o});
    // Submitted on its own: the time the submission returned splits its latency into slat and clat
    // (IoTotals).
    std::uint64_t submitted = 0;
    if (submission_->per_io(now)) {
      engine_->submit();
      if (queued_) submitted = now_ns();
    }
    slots_[slot] = {now, submitted, o, t, write};
    ++issued_;
    ++inflight_;
  }

  // Stops issuing at the end of the runtime, on a stop or another thread's failure, or past the deadline.
  void check_stop(std::uint64_t now) {
    if (now >= end_ns_) {
      issuing_ = counting_ = false;
      last_counted_ = end_ns_;
    } else if (stop_.load(std::memory_order_relaxed) || sh_.abort.load(std::memory_order_relaxed)) {
      issuing_ = counting_ = false;
      last_counted_ = now;
    } else if (now >= deadline_ns_) {
      sh_.fail("the job ran past the case's time budget; lower --size/--io-size or raise --runtime");
      issuing_ = counting_ = false;
    }
  }

  // One completion reaped at `now`: checked, counted when it falls in the measured window, its slot reused.
  void complete(const Completion& c, std::uint64_t now) {
    const std::uint64_t bs = s_.bs;
    const Slot& io = slots_[c.slot];
    --inflight_;
    const std::uint32_t t = io.target;
    const JobTarget& jt = plan_.targets[t];
    if (c.res != static_cast<std::int64_t>(bs)) {
      sh_.fail(fmt::format("{} {} at offset {}: {}", io.write ? "writing" : "reading", jt.path,
                           jt.base + io.offset, describe_result(c.res, bs)));
      issuing_ = counting_ = false;
      return;
    }
    // Every completed write is on the target, whether it completed in the ramp, in the window or in the
    // drain after it: the read-back expects the write pattern on all of them.
    if (io.write && verify_writes_) res_.written[t][io.offset / bs / 64] |= 1ull << (io.offset / bs % 64);
    if (counting_ && now >= ramp_end_) {
      IoTotals& tt = res_.per_target[t];
      ++tt.ios;
      tt.bytes += bs;
      const std::uint64_t lat = now - io.start;
      const std::uint64_t clat = io.submitted > 0 ? now - std::min(now, io.submitted) : lat;
      if (io.submitted > 0) (io.write ? tt.write_slat : tt.read_slat).record(io.submitted - io.start);
      (io.write ? tt.write_clat : tt.read_clat).record(clat);
      if (io.write) {
        ++tt.writes;
        tt.write_lat.record(lat);
      } else {
        ++tt.reads;
        tt.read_lat.record(lat);
        if (verify_reads_ && jt.prefilled) {
          ++res_.read_checked;
          if (!matches_pattern(bufs_[c.slot], target_seed(plan_.fill_seed, t), jt.base + io.offset)) {
            if (res_.read_bad++ == 0)
              res_.first_bad = fmt::format("{} offset {}", jt.path, jt.base + io.offset);
            keep_bad_block(res_.bad_blocks, {t, jt.base + io.offset});
          }
        }
      }
      tt.lat.record(lat);
      // A striped thread records in its target's window too (one more record, ~ns), rather than merging the
      // targets' windows into its own at each interval's end: T × 3 merges of every bucket there would stall
      // the thread's reaping for the I/Os then in flight, which are what its tail percentiles read.
      window_.record(lat, io.write);
      if (!target_windows_.empty()) target_windows_[t].record(lat, io.write);
      if (log_ns_ > 0) log_window_.record(lat);
      last_counted_ = now;
    }
    next_io(c.slot, now);
  }

  // Issues the next I/O in the free `slot` unless the thread is done; under --rate-iops only when the
  // thread's next I/O is due (one every 1/rate s, fio's rate_iops per job thread), else the slot waits for
  // it. A thread that fell behind (a stall) catches up by at most one I/O, so no burst exceeds the cap.
  void next_io(std::uint32_t slot, std::uint64_t now) {
    if (!issuing_ || (w_.limit_ios > 0 && issued_ >= w_.limit_ios)) return;
    if (rate_ns_ > 0 && now < next_due_) {
      waiting_.push_back(slot);
      return;
    }
    issue(slot, now);
    if (rate_ns_ > 0) next_due_ = std::max(next_due_, now - std::min(now, rate_ns_)) + rate_ns_;
  }

  // Issues the waiting slots whose I/O is due; drops them once the thread stops issuing.
  void release_due(std::uint64_t now) {
    while (!waiting_.empty() && issuing_ && now >= next_due_) {
      const std::uint32_t slot = waiting_.back();
      waiting_.pop_back();
      next_io(slot, now);
    }
    if (!issuing_) waiting_.clear();
  }

  // Closes the current sampling interval of every direction, the thread's and each target's: an interval with
  // any I/O gives each percentile its value and its maximum.
  void close_window() {
    close(window_, res_.intervals);
    for (std::size_t t = 0; t < target_windows_.size(); ++t)
      close(target_windows_[t], res_.per_target_intervals[t]);
  }
  static void close(Windows& window, DirectionIntervals& into) {
    close(window.all, into.all);
    close(window.read, into.read);
    close(window.write, into.write);
  }
  static void close(LatencyHistogram& window, IntervalSeries& into) {
    if (window.count() == 0) return;
    for (std::size_t q = 0; q < kLatencyPercentiles.size(); ++q)
      into.lat[q].push_back(window.percentile(kLatencyPercentiles[q].second) * 1e-9);
    into.lat_max.push_back(static_cast<double>(window.max()) * 1e-9);
    into.lat_min.push_back(static_cast<double>(window.min()) * 1e-9);
    into.lat_mean.push_back(window.mean() * 1e-9);
    into.lat_stdev.push_back(window.stddev() * 1e-9);
    window.reset();
  }

  // The --log-interval interval this thread fills ends before `now`: its latencies go to the job's, and the
  // thread moves on to the interval holding `now` (skipping any it had no completion in).
  void roll_log(std::uint64_t now) {
    merge_log();
    log_k_ = (now - ramp_end_) / log_ns_;
    log_end_ = ramp_end_ + (log_k_ + 1) * log_ns_;
    prog_.log_next.store(log_k_);
  }
  void merge_log() {
    if (log_window_.count() == 0) return;
    if (log_k_ < kMaxLogIntervals) {
      std::lock_guard lock(sh_.log_mu);
      sh_.log[log_k_].merge(log_window_);
    }
    log_window_.reset();
  }

  void finish() {
    merge_log();
    if (queued_) {
      const bool per_io = submission_->per_io(UINT64_MAX);
      res_.features["submission"] = per_io ? "per_io" : "batched";
      if (submission_->trial()) {
        const double warmup = warmup_s(s_, queued_);
        res_.trial = {{"batched_iops", submission_->batched_iops()},
                      {"per_io_iops", submission_->per_io_iops()},
                      {"chosen", per_io ? "per_io" : "batched"},
                      {"ramp_s", warmup},
                      {"ramp_added", warmup > s_.ramp_s}};
      }
    }
    if (w_.lane.size() == 1) res_.per_target_intervals[w_.lane[0]] = res_.intervals;
    res_.done_ns = std::max(last_counted_, ramp_end_);
    res_.cpu = ::sched_getcpu();
    prog_.finished.store(true);
  }

  // What is in flight in a slot.
  struct Slot {
    std::uint64_t start = 0;      // issue time
    std::uint64_t submitted = 0;  // when its own submission returned; 0: submitted with the wait (batched)
    std::uint64_t offset = 0;     // inside the target's region
    std::uint32_t target = 0;
    bool write = false;
  };

  const JobPlan& plan_;
  const JobSpec& s_;
  const WorkerSetup& w_;
  Shared& sh_;
  Progress& prog_;
  WorkerResult& res_;
  const std::atomic<bool>& stop_;
  const std::uint64_t deadline_ns_;
  const bool verify_writes_, verify_reads_;
  const bool queued_;  // the engine has a submission queue: the trial and the "submission" feature

  std::unique_ptr<Engine> engine_;
  AlignedBuffer mem_;
  std::vector<std::span<std::byte>> bufs_;

  unsigned depth_ = 0;
  std::uint64_t ramp_end_ = 0, end_ns_ = 0, nblocks_ = 0;
  std::optional<SubmissionTrial> submission_;
  Rng rng_{0};
  std::uint64_t cursor_ = 0;
  std::vector<Slot> slots_;
  std::uint64_t issued_ = 0, inflight_ = 0;
  bool issuing_ = true, counting_ = true;
  std::uint64_t rate_ns_ = 0, next_due_ = 0;  // --rate-iops: ns between I/Os, when the next one is due
  std::vector<std::uint32_t> waiting_;        // free slots waiting for their I/O to be due
  std::uint64_t last_counted_ = 0;
  // The current sampling interval's latencies, closed by this thread itself (no sharing with the sampler):
  // the thread's, and when striped each target's too (index of JobPlan::targets), each I/O recorded in both.
  Windows window_;
  std::vector<Windows> target_windows_;
  std::uint64_t interval_ns_ = 0, window_end_ = 0;
  // --log-interval: this thread's latencies of interval log_k_, which ends at log_end_ (never without a log).
  LatencyHistogram log_window_;
  std::uint64_t log_ns_ = 0, log_k_ = 0, log_end_ = UINT64_MAX;
};

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
        keep_bad_block(out.verify_bad_blocks, {static_cast<std::uint32_t>(t), jt.base + b * bs});
      }
    }
  }
}

// A job thread's latency samples added to the job's.
void append(IntervalSeries& to, const IntervalSeries& from) {
  for (std::size_t q = 0; q < kLatencyPercentiles.size(); ++q)
    to.lat[q].insert(to.lat[q].end(), from.lat[q].begin(), from.lat[q].end());
  to.lat_max.insert(to.lat_max.end(), from.lat_max.begin(), from.lat_max.end());
  to.lat_min.insert(to.lat_min.end(), from.lat_min.begin(), from.lat_min.end());
  to.lat_mean.insert(to.lat_mean.end(), from.lat_mean.begin(), from.lat_mean.end());
  to.lat_stdev.insert(to.lat_stdev.end(), from.lat_stdev.begin(), from.lat_stdev.end());
}
void append(DirectionIntervals& to, const DirectionIntervals& from) {
  append(to.all, from.all);
  append(to.read, from.read);
  append(to.write, from.write);
}

}  // namespace

double sampling_interval_s(const JobSpec& s) {
  return s.runtime_s > 0 ? std::clamp(s.runtime_s / 20, 0.1, 1.0) : 0.1;
}

void keep_once(std::vector<std::string>& list, const std::string& item) {
  if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
}

JobOutcome merge_rounds(const std::vector<JobOutcome>& rounds) {
  auto join = [](IntervalSeries& to, const IntervalSeries& from) {
    append(to, from);
    to.iops.insert(to.iops.end(), from.iops.begin(), from.iops.end());
  };
  JobOutcome out = rounds.front();
  for (std::size_t k = 1; k < rounds.size(); ++k) {
    const JobOutcome& r = rounds[k];
    for (std::size_t t = 0; t < out.per_target.size() && t < r.per_target.size(); ++t)
      out.per_target[t].merge(r.per_target[t]);
    out.total.merge(r.total);
    out.first_done_s = out.last_done_s + r.first_done_s;
    out.last_done_s += r.last_done_s;
    out.warmup_s += r.warmup_s;
    out.cpu_s += r.cpu_s;
    out.usr_s += r.usr_s;
    out.sys_s += r.sys_s;
    out.cpu_wall_s += r.cpu_wall_s;
    out.ctx += r.ctx;
    out.majf += r.majf;
    out.minf += r.minf;
    for (auto [to, from] : {std::pair{&out.interval_usr_cpu, &r.interval_usr_cpu},
                            std::pair{&out.interval_sys_cpu, &r.interval_sys_cpu}})
      to->insert(to->end(), from->begin(), from->end());
    for (const auto& d : r.disk_stats) {
      auto it = std::find_if(out.disk_stats.begin(), out.disk_stats.end(),
                             [&](const DiskStat& x) { return x.name == d.name; });
      if (it == out.disk_stats.end()) {
        out.disk_stats.push_back(d);
      } else {
        add_disk_stat(*it, d);
      }
    }
    join(out.intervals, r.intervals);
    join(out.read_intervals, r.read_intervals);
    join(out.write_intervals, r.write_intervals);
    out.per_target_intervals.resize(std::max(out.per_target_intervals.size(), r.per_target_intervals.size()));
    for (std::size_t t = 0; t < r.per_target_intervals.size(); ++t) {
      for (auto part : {&DirectionIntervals::all, &DirectionIntervals::read, &DirectionIntervals::write})
        join(out.per_target_intervals[t].*part, r.per_target_intervals[t].*part);
    }
    out.interval_cpu_per_io.insert(out.interval_cpu_per_io.end(), r.interval_cpu_per_io.begin(),
                                   r.interval_cpu_per_io.end());
    out.interrupted = out.interrupted || r.interrupted;
    out.threads = std::max(out.threads, r.threads);
    out.thread_cpus = r.thread_cpus;
    for (const auto& w : r.warnings) keep_once(out.warnings, w);
    out.verify_checked += r.verify_checked;
    out.verify_bad += r.verify_bad;
    if (out.verify_first_bad.empty()) out.verify_first_bad = r.verify_first_bad;
    for (const auto& b : r.verify_bad_blocks) keep_bad_block(out.verify_bad_blocks, b);
  }
  return out;
}

void IoTotals::merge(const IoTotals& o) {
  ios += o.ios;
  bytes += o.bytes;
  reads += o.reads;
  writes += o.writes;
  lat.merge(o.lat);
  read_lat.merge(o.read_lat);
  write_lat.merge(o.write_lat);
  read_clat.merge(o.read_clat);
  write_clat.merge(o.write_clat);
  read_slat.merge(o.read_slat);
  write_slat.merge(o.write_slat);
}

JobOutcome run_job(const JobPlan& plan, const std::atomic<bool>& stop,
                   std::chrono::steady_clock::time_point deadline, const std::function<void(double)>& live) {
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
  for (auto& p : progress) p.targets = std::vector<TargetCount>(ntargets);
  const auto deadline_ns = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(deadline.time_since_epoch()).count());
  std::vector<std::jthread> threads;
  threads.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    threads.emplace_back(
        [&, i] { Worker(plan, setups[i], sh, progress[i], results[i], stop, deadline_ns).run(); });
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
  // The measured I/Os and reads so far per target, summed over the job threads; the job's are their sums, so
  // that the targets' interval rates add up to the job's.
  struct Counts {
    std::vector<std::uint64_t> ios, reads;
  };
  auto counts = [&] {
    Counts c{std::vector<std::uint64_t>(ntargets), std::vector<std::uint64_t>(ntargets)};
    for (const auto& p : progress) {
      for (std::uint32_t t = 0; t < ntargets; ++t) {
        const std::uint64_t reads = p.targets[t].reads.load(std::memory_order_relaxed);
        c.reads[t] += reads;
        c.ios[t] += reads + p.targets[t].writes.load(std::memory_order_relaxed);
      }
    }
    return c;
  };
  auto sum = [](const std::vector<std::uint64_t>& v) {
    return std::accumulate(v.begin(), v.end(), std::uint64_t{0});
  };
  auto total_ios = [&] { return sum(counts().ios); };
  const double warmup = warmup_s(s, traits(plan.engine).submission_queue);
  const std::uint64_t ramp_end = t0 + to_ns(warmup);
  constexpr auto kPoll = std::chrono::milliseconds(10);
  while (now_ns() < ramp_end && !all_done()) std::this_thread::sleep_for(kPoll);
  const SysReader sys;
  const std::vector<DiskStat> disks0 = read_disk_stats(plan.disks, sys);
  const std::uint64_t window0 = now_ns();
  const CpuUse cpu0 = cpu_use();
  const double interval_s = plan.interval_s > 0 ? plan.interval_s : sampling_interval_s(s);
  std::uint64_t tick = now_ns();
  Counts last = counts();
  CpuUse last_cpu = cpu0;
  out.per_target_intervals.resize(ntargets);
  // One interval's rates of every I/O and of each direction, from the I/Os and reads it completed.
  auto add_rates = [](IntervalSeries& all, IntervalSeries& read, IntervalSeries& write, std::uint64_t done,
                      std::uint64_t reads, double seconds) {
    all.iops.push_back(static_cast<double>(done) / seconds);
    read.iops.push_back(static_cast<double>(reads) / seconds);
    write.iops.push_back(static_cast<double>(done - reads) / seconds);
  };
  // --log-interval: the intervals every job thread has moved past (or finished before), taken from the
  // threads' merged latencies; `seconds` the length of each (the window's last may be shorter).
  const std::uint64_t log_ns = s.log_interval_s > 0 ? to_ns(s.log_interval_s) : 0;
  std::uint64_t logged = 0;
  auto take_log = [&](std::uint64_t upto, auto seconds_of) {
    upto = std::min<std::uint64_t>(upto, kMaxLogIntervals);
    for (; logged < upto; ++logged) {
      LogEntry e;
      e.seconds = seconds_of(logged);
      e.t_s = static_cast<double>(logged) * s.log_interval_s + e.seconds;
      e.lat_p50 = e.lat_p99 = std::nan("");
      std::lock_guard lock(sh.log_mu);
      if (auto it = sh.log.find(logged); it != sh.log.end()) {
        e.ios = it->second.count();
        e.lat_p50 = it->second.percentile(0.50) * 1e-9;
        e.lat_p99 = it->second.percentile(0.99) * 1e-9;
        sh.log.erase(it);
      }
      out.log.push_back(e);
    }
  };
  auto log_whole = [&](std::uint64_t) { return s.log_interval_s; };
  // The live rate for the console: measured I/Os completed over the last half second.
  std::uint64_t live_tick = tick, live_ios = sum(last.ios);
  auto report_live = [&] {
    const std::uint64_t now = now_ns();
    if (!live || now - live_tick < to_ns(0.5)) return;
    const std::uint64_t ios = total_ios();
    live(static_cast<double>(ios - live_ios) / (static_cast<double>(now - live_tick) * 1e-9));
    live_tick = now;
    live_ios = ios;
  };
  while (!all_done()) {
    std::this_thread::sleep_for(kPoll);
    report_live();
    std::uint64_t now = now_ns();
    if (log_ns > 0) {
      std::uint64_t ready = now > ramp_end ? (now - ramp_end) / log_ns : 0;  // intervals that have ended
      for (const auto& p : progress)
        if (!p.finished.load()) ready = std::min(ready, p.log_next.load());
      take_log(ready, log_whole);
    }
    if (now - tick >= to_ns(interval_s) && !all_done()) {
      const Counts c = counts();
      const CpuUse cpu = cpu_use();
      const double seconds = static_cast<double>(now - tick) * 1e-9;
      for (std::uint32_t t = 0; t < ntargets; ++t) {
        DirectionIntervals& pt = out.per_target_intervals[t];
        add_rates(pt.all, pt.read, pt.write, c.ios[t] - last.ios[t], c.reads[t] - last.reads[t], seconds);
      }
      const std::uint64_t done = sum(c.ios) - sum(last.ios);
      add_rates(out.intervals, out.read_intervals, out.write_intervals, done, sum(c.reads) - sum(last.reads),
                seconds);
      if (done > 0)
        out.interval_cpu_per_io.push_back((cpu.total() - last_cpu.total()) / static_cast<double>(done));
      const double thread_s = seconds * static_cast<double>(n);
      out.interval_usr_cpu.push_back(100.0 * (cpu.usr - last_cpu.usr) / thread_s);
      out.interval_sys_cpu.push_back(100.0 * (cpu.sys - last_cpu.sys) / thread_s);
      last = c;
      last_cpu = cpu;
      tick = now;
    }
  }
  threads.clear();
  const CpuUse cpu1 = cpu_use();
  const std::uint64_t window1 = now_ns();
  out.cpu_s = cpu1.total() - cpu0.total();
  out.usr_s = cpu1.usr - cpu0.usr;
  out.sys_s = cpu1.sys - cpu0.sys;
  out.ctx = cpu1.ctx - cpu0.ctx;
  out.majf = cpu1.majf - cpu0.majf;
  out.minf = cpu1.minf - cpu0.minf;
  out.cpu_wall_s = static_cast<double>(window1 - window0) * 1e-9;
  for (const auto& after : read_disk_stats(plan.disks, sys)) {
    for (const auto& before : disks0)
      if (before.name == after.name)
        out.disk_stats.push_back(disk_delta(after, before, out.cpu_wall_s * 1e3));
  }

  if (!sh.error.empty()) throw Error(sh.error);
  const bool stopped = stop.load();

  out.per_target.resize(ntargets);
  std::uint64_t first_done = UINT64_MAX, last_done = 0;
  std::vector<std::vector<std::uint64_t>> written(ntargets);
  for (auto& r : results) {
    for (std::uint32_t t = 0; t < ntargets; ++t) {
      out.per_target[t].merge(r.per_target[t]);
      append(out.per_target_intervals[t], r.per_target_intervals[t]);
    }
    append(out.intervals, r.intervals.all);
    append(out.read_intervals, r.intervals.read);
    append(out.write_intervals, r.intervals.write);
    out.thread_cpus.push_back(r.cpu);
    first_done = std::min(first_done, r.done_ns);
    last_done = std::max(last_done, r.done_ns);
    out.verify_checked += r.read_checked;
    out.verify_bad += r.read_bad;
    if (out.verify_first_bad.empty()) out.verify_first_bad = r.first_bad;
    for (const auto& b : r.bad_blocks) keep_bad_block(out.verify_bad_blocks, b);
    for (std::uint32_t t = 0; t < ntargets && !r.written.empty(); ++t) {
      if (r.written[t].empty()) continue;
      if (written[t].empty()) written[t].assign(r.written[t].size(), 0);
      for (std::size_t k = 0; k < written[t].size(); ++k) written[t][k] |= r.written[t][k];
    }
  }
  for (const auto& t : out.per_target) out.total.merge(t);
  out.warmup_s = warmup;
  out.first_done_s = static_cast<double>(first_done - ramp_end) * 1e-9;
  out.last_done_s = static_cast<double>(last_done - ramp_end) * 1e-9;
  out.engine_features = results.front().features;
  out.submission_trial = results.front().trial;  // the job's: its threads tried and decided together
  for (const auto& r : results)                  // each thread's engine warns alike: keep one of each
    for (const auto& w : r.warnings) keep_once(out.warnings, w);
  if (out.total.ios == 0 || out.last_done_s <= 0) {
    if (stopped) throw Interrupted();
    throw Error("no I/O completed after the ramp; lengthen --runtime or shorten --ramp");
  }
  out.interrupted = stopped;
  if (log_ns > 0) {
    // The rest of the window's intervals, the last one ending with it.
    const double whole = out.last_done_s / s.log_interval_s;
    auto intervals = static_cast<std::uint64_t>(std::ceil(whole - 1e-9));
    if (!sh.log.empty()) intervals = std::max(intervals, sh.log.rbegin()->first + 1);
    out.log_truncated = intervals > kMaxLogIntervals;
    take_log(intervals, [&](std::uint64_t k) {
      const double left = out.last_done_s - static_cast<double>(k) * s.log_interval_s;
      return left > 0 ? std::min(left, s.log_interval_s) : s.log_interval_s;
    });
  }
  if (s.verify && writes(s.rw) && !stopped) {
    for (std::uint32_t t = 0; t < ntargets; ++t) {
      if (!written[t].empty()) verify_region(plan, t, written[t], out);
    }
  }
  return out;
}

}  // namespace mlbench::storage
