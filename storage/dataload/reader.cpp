#include "storage/dataload/reader.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <numeric>
#include <random>
#include <system_error>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "base/error.hpp"
#include "mlbench_config.hpp"
#include "storage/buffer.hpp"
#include "storage/dataload/reader_engine.hpp"
#include "storage/pattern.hpp"

namespace mlbench::storage {

#if !MLBENCH_HAS_URING
std::string uring_chain_unavailable() { return "this mlbench was built without liburing"; }
void run_uring_reader(ReaderFeed&, unsigned, bool, std::size_t, const std::vector<DataFile>&, ReaderStats&) {}
#endif

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::uint64_t kBlock = 4096;
constexpr auto kPoll = std::chrono::milliseconds(20);

std::uint64_t round_up(std::uint64_t v, std::uint64_t to) { return (v + to - 1) / to * to; }
std::uint64_t ns_between(Clock::time_point a, Clock::time_point b) {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count());
}
double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}
// User + sys CPU seconds of the process (RUSAGE_SELF) or of the calling thread (RUSAGE_THREAD).
double cpu_seconds(int who = RUSAGE_SELF) {
  rusage ru{};
  ::getrusage(who, &ru);
  auto s = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
  };
  return s(ru.ru_utime) + s(ru.ru_stime);
}

// Sleeps until `t` (or a signal): clock_nanosleep with an absolute time on CLOCK_MONOTONIC, the clock of
// std::chrono::steady_clock on Linux, so a late start of the call does not move the wake-up.
void sleep_until_monotonic(Clock::time_point t) {
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
  const timespec ts{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
  ::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
}

// What every feed shares: the end of the window, the stop flag, the first error, the read counts.
struct Shared {
  const LoadConfig& cfg;
  const std::atomic<bool>& stop;
  std::optional<Clock::time_point> window_end;
  std::atomic<bool> failed{false};
  std::mutex error_mutex;
  std::string error;
  std::vector<std::atomic<std::uint32_t>> reads;
  // The null engine's pacing: the time the next file may complete.
  std::mutex pace_mutex;
  Clock::time_point pace_next{};

  bool interrupted() const {
    return stop.load(std::memory_order_relaxed) || failed.load(std::memory_order_relaxed);
  }
  bool ended() const { return interrupted() || (window_end && Clock::now() >= *window_end); }
};

class Feed final : public ReaderFeed {
 public:
  Feed(Shared& shared, unsigned index)
      : shared_(shared),
        cfg_(shared.cfg),
        index_(index),
        cap_(std::max<std::uint64_t>(1, cfg_.prefetch) * cfg_.batch_size * std::max(1u, cfg_.read_threads)) {}

  bool next(FileJob& job, bool wait) override {
    std::unique_lock lk(m_);
    for (;;) {
      if (closed_ || shared_.ended()) {
        close_locked();
        return false;
      }
      if (reserved_ - consumed_ < cap_ || reserved_ == consumed_) {
        if (cursor_ == share_.size()) {
          if (!advance_epoch()) {
            close_locked();
            return false;
          }
          continue;
        }
        job.file = share_[cursor_++];
        const DataFile& f = (*cfg_.files)[job.file];
        job.path = f.path.c_str();
        job.reads = plan_reads(f.size, cfg_.samples_per_file, cfg_.direct, cfg_.max_read, cfg_.sample_shuffle,
                               mix64(cfg_.seed ^ (std::uint64_t{job.file} << 20) ^ (epochs_started_ << 52)));
        reserved_ += cfg_.samples_per_file;
        return true;
      }
      if (!wait) return false;
      cv_.wait_for(lk, kPoll);
    }
  }
  void deliver(std::uint32_t samples) override {
    {
      std::lock_guard lk(m_);
      ready_ += samples;
    }
    cv_.notify_all();
  }
  void file_done(std::uint32_t file) override {
    if (!shared_.reads.empty()) shared_.reads[file].fetch_add(1, std::memory_order_relaxed);
  }
  void fail(std::string why) override {
    {
      std::lock_guard lk(shared_.error_mutex);
      if (shared_.error.empty()) shared_.error = std::move(why);
    }
    shared_.failed = true;
    cv_.notify_all();
  }

  // The accelerator: takes a batch, computes for the step time, until the data or the window ends.
  AcceleratorOutcome consume(LatencyHistogram& waits, LatencyHistogram& overruns) {
    AcceleratorOutcome o;
    std::optional<Clock::time_point> start;
    Clock::time_point end{};
    const auto step = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(cfg_.step_s));
    // A sleeping thread wakes up to its timer slack late (50 µs by default): 1 ns keeps the wake-up well
    // inside kStepSpin, so the spin, not the timer, ends the step.
    if (cfg_.step_s > 0) ::prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    for (;;) {
      const auto t0 = Clock::now();
      std::unique_lock lk(m_);
      bool window_hit = false;
      for (;;) {
        if (ready_ - consumed_ >= cfg_.batch_size) break;
        if (closed_ && reserved_ == ready_) break;
        if (shared_.stop.load(std::memory_order_relaxed) || shared_.failed.load(std::memory_order_relaxed))
          break;
        auto now = Clock::now();
        if (shared_.window_end && now >= *shared_.window_end) {
          window_hit = true;
          break;
        }
        auto until = now + kPoll;
        if (shared_.window_end) until = std::min(until, *shared_.window_end);
        cv_.wait_until(lk, until);
      }
      const std::uint64_t take = std::min<std::uint64_t>(cfg_.batch_size, ready_ - consumed_);
      const bool ended = shared_.stop.load(std::memory_order_relaxed) ||
                         shared_.failed.load(std::memory_order_relaxed) ||
                         (shared_.window_end && Clock::now() >= *shared_.window_end);
      if (take == 0 || window_hit || ended) {
        // Starved at the end of the window: that wait counts against AU.
        if (window_hit && start) end = *shared_.window_end;
        break;
      }
      consumed_ += take;
      lk.unlock();
      cv_.notify_all();
      const auto t1 = Clock::now();
      const bool timed = start.has_value();
      if (!timed) {
        start = t1;
      } else {
        const double wait = seconds_between(t0, t1);
        o.wait_s += wait;
        o.wait_sq_s2 += wait * wait;
        waits.record(ns_between(t0, t1));
      }
      if (cfg_.step_s > 0) {
        const auto deadline = t1 + step;
        end = emulate_step(deadline);
        if (end >= deadline) {
          // MLPerf Storage's compute time is the nominal step's; the emulation's lateness is its error,
          // recorded, and counts as wall time.
          o.compute_s += cfg_.step_s;
          overruns.record(ns_between(deadline, end));
        } else {
          o.compute_s += seconds_between(t1, end);  // cut short by a stop or a failure
        }
      } else {
        end = Clock::now();
      }
      if (timed) {
        const double duration = seconds_between(t0, end);
        o.step_sum_s += duration;
        o.step_sq_s2 += duration * duration;
      }
      ++o.steps;
      o.samples += take;
    }
    if (start) o.wall_s = std::max(0.0, seconds_between(*start, end));
    {
      std::lock_guard lk(m_);
      closed_ = true;
    }
    cv_.notify_all();
    return o;
  }

  // One step of compute ending at `deadline`: sleeps until kStepSpin before it, in slices of at most kPoll so
  // that a stop or a failed run is seen, then spins on the clock to it. A woken thread is late by the
  // scheduler's latency, a spinning one by a clock read, so the step ends on time unless the host ran the
  // thread late. Returns when it ended: before the deadline only when the run was stopped or failed.
  Clock::time_point emulate_step(Clock::time_point deadline) {
    const auto wake = deadline - std::chrono::duration_cast<Clock::duration>(kStepSpin);
    for (auto now = Clock::now(); now < wake; now = Clock::now()) {
      if (shared_.interrupted()) return now;
      const auto until = std::min(wake, now + kPoll);
      if (cfg_.sleep_until) {
        cfg_.sleep_until(until);
      } else {
        sleep_until_monotonic(until);
      }
    }
    auto now = Clock::now();
    while (now < deadline && !shared_.interrupted()) now = Clock::now();
    return now;
  }

  // Epochs whose files this accelerator's readers all handed out and completed.
  std::uint64_t epochs_done() {
    std::lock_guard lk(m_);
    bool current_done = cursor_ == share_.size() && reserved_ == ready_;
    return current_done ? epochs_started_ : (epochs_started_ > 0 ? epochs_started_ - 1 : 0);
  }

 private:
  void close_locked() {
    if (!closed_) {
      closed_ = true;
      cv_.notify_all();
    }
  }
  bool advance_epoch() {
    if (cfg_.epochs > 0 && epochs_started_ >= cfg_.epochs) return false;
    auto order = epoch_order(static_cast<std::uint32_t>(cfg_.files->size()), cfg_.seed, epochs_started_,
                             cfg_.file_shuffle);
    share_.clear();
    for (std::size_t i = index_; i < order.size(); i += cfg_.accelerators) share_.push_back(order[i]);
    cursor_ = 0;
    ++epochs_started_;
    return !share_.empty();
  }

  Shared& shared_;
  const LoadConfig& cfg_;
  unsigned index_;
  std::uint64_t cap_;
  std::mutex m_;
  std::condition_variable cv_;
  std::vector<std::uint32_t> share_;
  std::size_t cursor_ = 0;
  std::uint64_t epochs_started_ = 0;
  std::uint64_t reserved_ = 0, ready_ = 0, consumed_ = 0;
  bool closed_ = false;
};

// Plain calls: open, pread each span, close — one file at a time.
void run_plain_reader(ReaderFeed& feed, bool direct, std::size_t buf_bytes,
                      const std::vector<DataFile>& files, ReaderStats& st) {
  AlignedBuffer buf(std::max<std::size_t>(buf_bytes, kBlock));
  FileJob job;
  while (feed.next(job, true)) {
    const auto t0 = Clock::now();
    int fd = ::open(job.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | (direct ? O_DIRECT : 0));
    if (fd < 0) {
      feed.fail(fmt::format("open {}: {}", job.path, std::strerror(errno)));
      return;
    }
    const auto t1 = Clock::now();
    const std::uint64_t size = files[job.file].size;
    for (const auto& op : job.reads) {
      ssize_t r;
      do {
        r = ::pread(fd, buf.data(), op.len, static_cast<off_t>(op.offset));
      } while (r < 0 && errno == EINTR);
      if (r < 0 || static_cast<std::uint64_t>(r) != expected_bytes(op, size)) {
        feed.fail(r < 0 ? fmt::format("read {}: {}", job.path, std::strerror(errno))
                        : fmt::format("read {} at {}: {} of {} bytes (the file changed size?)", job.path,
                                      op.offset, r, expected_bytes(op, size)));
        ::close(fd);
        return;
      }
      st.io_bytes += static_cast<std::uint64_t>(r);
      st.bytes += op.logical;
      if (op.samples > 0) feed.deliver(op.samples);
    }
    const auto t2 = Clock::now();
    ::close(fd);
    const auto t3 = Clock::now();
    st.open.record(ns_between(t0, t1));
    st.read.record(ns_between(t1, t2));
    st.close.record(ns_between(t2, t3));
    ++st.files;
    feed.file_done(job.file);
  }
}

// No file touched: every read completes at once, or at the --null-rate pace shared by all readers.
void run_null_reader(ReaderFeed& feed, Shared& shared, ReaderStats& st) {
  FileJob job;
  const double rate = shared.cfg.null_rate;
  while (feed.next(job, true)) {
    if (rate > 0) {
      Clock::time_point at;
      {
        std::lock_guard lk(shared.pace_mutex);
        at = std::max(Clock::now(), shared.pace_next);
        shared.pace_next =
            at + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / rate));
      }
      std::this_thread::sleep_until(at);
    }
    for (const auto& op : job.reads) {
      st.bytes += op.logical;
      st.io_bytes += op.len;
      if (op.samples > 0) feed.deliver(op.samples);
    }
    st.open.record(0);
    st.read.record(0);
    st.close.record(0);
    ++st.files;
    feed.file_done(job.file);
  }
}

}  // namespace

double LoadOutcome::au() const {
  double c = 0, w = 0;
  for (const auto& a : accelerators) {
    c += a.compute_s;
    w += a.wall_s;
  }
  return w > 0 ? c / w : 0;
}

double LoadOutcome::au_min() const {
  double m = accelerators.empty() ? 0 : 1e300;
  for (const auto& a : accelerators) m = std::min(m, a.au());
  return m;
}

std::vector<std::uint32_t> epoch_order(std::uint32_t n, std::uint64_t seed, std::uint64_t epoch,
                                       bool shuffle) {
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  if (!shuffle) return order;
  // Fisher–Yates with splitmix64 draws: the same order on every platform and standard library.
  std::uint64_t state = mix64(seed ^ mix64(epoch + 0x9e37));
  for (std::uint32_t i = n; i > 1; --i) {
    state = mix64(state);
    std::uint32_t j = static_cast<std::uint32_t>(state % i);
    std::swap(order[i - 1], order[j]);
  }
  return order;
}

std::vector<ReadOp> plan_reads(std::uint64_t size, std::uint64_t samples, bool direct, std::uint64_t max_read,
                               bool shuffle, std::uint64_t seed) {
  std::vector<ReadOp> ops;
  if (samples <= 1) {
    const std::uint64_t chunk = direct ? std::max(kBlock, max_read / kBlock * kBlock) : max_read;
    std::uint64_t off = 0;
    do {
      std::uint64_t len = std::min(chunk, size - off);
      std::uint64_t span = direct ? round_up(len, kBlock) : len;
      bool last = off + len >= size;
      ops.push_back({off, static_cast<std::uint32_t>(span), last ? 1u : 0u, len});
      off += len;
    } while (off < size);
    return ops;
  }
  const std::uint64_t rec = size / samples;
  auto order = epoch_order(static_cast<std::uint32_t>(samples), seed, 0, shuffle);
  for (std::uint32_t r : order) {
    std::uint64_t off = r * rec;
    std::uint64_t lo = direct ? off / kBlock * kBlock : off;
    std::uint64_t hi = direct ? round_up(off + rec, kBlock) : off + rec;
    ops.push_back({lo, static_cast<std::uint32_t>(hi - lo), 1u, rec});
  }
  return ops;
}

unsigned find_supported(unsigned max, const std::function<Trial(unsigned)>& trial,
                        std::vector<Trial>& trials) {
  unsigned pass = 0, fail = max + 1;
  auto run = [&](unsigned n) {
    trials.push_back(trial(n));
    trials.back().accelerators = n;
    if (trials.back().passed) {
      pass = n;
    } else {
      fail = n;
    }
    return trials.back().passed;
  };
  for (unsigned n = 1; n <= max;) {
    if (!run(n)) break;
    if (n == max) break;
    n = n > max / 2 ? max : n * 2;
  }
  while (fail - pass > 1) run(pass + (fail - pass) / 2);
  return pass;
}

ReaderChoice choose_reader(const EngineTraits& engine) {
  constexpr std::string_view kPlain = "plain open/pread/close";
  switch (engine.dataload) {
    case FileReader::uring_chain:
      if (std::string why = uring_chain_unavailable(); !why.empty())
        return {FileReader::plain, std::string(kPlain), why};
      return {FileReader::uring_chain, "io_uring linked open/read/close, direct descriptors", {}};
    case FileReader::plain:
      return {FileReader::plain, std::string(kPlain), fmt::format("--engine {}", to_string(engine.kind))};
    case FileReader::null:
      return {FileReader::null, "null (no file touched)", {}};
    case FileReader::none:
      break;
  }
  throw Error(fmt::format("storage.dataload has no reader for the {} engine", engine.label));
}

LoadOutcome run_dataload(const LoadConfig& cfg, const std::atomic<bool>& stop) {
  const auto& files = *cfg.files;
  Shared shared{cfg,
                stop,
                std::nullopt,
                {},
                {},
                {},
                std::vector<std::atomic<std::uint32_t>>(cfg.count_reads ? files.size() : 0),
                {},
                {}};
  LoadOutcome out;
  // The largest read any file needs.
  std::uint64_t max_size = 0;
  for (const auto& f : files) max_size = std::max(max_size, f.size);
  std::size_t buf_bytes = static_cast<std::size_t>(
      cfg.samples_per_file <= 1
          ? std::min(round_up(std::max<std::uint64_t>(max_size, 1), kBlock), round_up(cfg.max_read, kBlock))
          : round_up(max_size / cfg.samples_per_file, kBlock) + kBlock);

  const ReaderChoice reader = choose_reader(traits(cfg.engine));
  out.method = reader.method;
  out.fallback_reason = reader.fallback_reason;

  std::vector<std::unique_ptr<Feed>> feeds;
  for (unsigned a = 0; a < cfg.accelerators; ++a) feeds.push_back(std::make_unique<Feed>(shared, a));
  std::vector<ReaderStats> stats(static_cast<std::size_t>(cfg.accelerators) * cfg.read_threads);
  std::vector<LatencyHistogram> waits(cfg.accelerators), overruns(cfg.accelerators);
  out.accelerators.resize(cfg.accelerators);

  const double cpu0 = cpu_seconds();
  const auto t0 = Clock::now();
  if (cfg.runtime_s > 0)
    shared.window_end =
        t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(cfg.runtime_s));
  std::vector<std::thread> threads;
  // A thread that cannot start (address-space or task limit) fails every feed, so the started readers and
  // accelerators end and are joined, and the run ends with that error rather than std::terminate.
  auto start = [&](auto&& body) {
    try {
      threads.emplace_back(std::forward<decltype(body)>(body));
      return true;
    } catch (const std::system_error& e) {
      for (auto& f : feeds) f->fail(fmt::format("starting a thread: {}", e.what()));
      return false;
    }
  };
  bool started = true;
  for (unsigned a = 0; a < cfg.accelerators && started; ++a) {
    for (unsigned r = 0; r < cfg.read_threads && started; ++r) {
      ReaderStats& st = stats[a * cfg.read_threads + r];
      Feed& feed = *feeds[a];
      started = start([&cfg, &feed, &st, &shared, &files, &reader, buf_bytes] {
        try {
          switch (reader.reader) {
            case FileReader::null:
              run_null_reader(feed, shared, st);
              break;
            case FileReader::uring_chain:
              run_uring_reader(feed, cfg.depth, cfg.direct, buf_bytes, files, st);
              break;
            case FileReader::plain:
            case FileReader::none:  // choose_reader never gives none
              run_plain_reader(feed, cfg.direct, buf_bytes, files, st);
              break;
          }
        } catch (const std::exception& e) {
          feed.fail(e.what());
        }
        st.cpu_s = cpu_seconds(RUSAGE_THREAD);
      });
    }
    if (started)
      started = start([&out, &feeds, &waits, &overruns, a] {
        out.accelerators[a] = feeds[a]->consume(waits[a], overruns[a]);
      });
  }
  for (auto& t : threads) t.join();
  out.seconds = seconds_between(t0, Clock::now());
  out.cpu_s = cpu_seconds() - cpu0;

  for (const auto& st : stats) {
    out.open.merge(st.open);
    out.read.merge(st.read);
    out.close.merge(st.close);
    out.files += st.files;
    out.bytes += st.bytes;
    out.io_bytes += st.io_bytes;
    out.readers.push_back({st.files, st.cpu_s});
  }
  for (const auto& w : waits) out.batch_wait.merge(w);
  for (const auto& h : overruns) out.step_overrun.merge(h);
  out.step_s = cfg.step_s;
  for (const auto& a : out.accelerators) out.samples += a.samples;
  out.epochs_done = UINT64_MAX;
  for (auto& f : feeds) out.epochs_done = std::min(out.epochs_done, f->epochs_done());
  if (feeds.empty()) out.epochs_done = 0;
  for (const auto& r : shared.reads) out.file_reads.push_back(r.load());
  out.error = shared.error;
  out.stopped = stop.load();
  return out;
}

}  // namespace mlbench::storage
