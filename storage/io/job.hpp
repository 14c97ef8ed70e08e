// Runs one storage job: its threads, their engines and the measurement window.
//
// Every job thread owns one engine (one ring), depth slots each with its own aligned buffer, and its own
// histograms; it keeps `depth` I/Os in flight, and per batch takes ONE clock reading (CLOCK_MONOTONIC, vDSO,
// ~20 ns) that is both the completion time of everything it reaped and the issue time of what it queues next
// — so latency costs one clock call per batch, not two per I/O. How queued I/Os reach the kernel: see
// SubmissionTrial (storage/io/submission_trial.hpp). Results count only I/Os
// completing after the ramp; a runtime-bound job stops issuing at the end of its runtime and drains without
// counting, a count-bound one counts until its last completion ("done" time). Aggregates: IOPS = ios / (last
// done − start), bandwidth = bytes / the same; CPU per I/O = process user+sys time in the window / ios. The
// --verify read-back expects the write pattern on every block a completed write reached, ramp and drain too.
// Every figure also has per-interval values (IntervalSeries): the measured window is cut into ~20 sampling
// intervals, and each interval's IOPS, latency percentiles, latency maximum and CPU per I/O are the samples
// whose spread compare and the fleet judge a difference against. Reads and writes are counted and sampled
// apart as well as together, so a randrw job reports each direction like fio's read and write sections; and
// with several targets each target is counted and sampled apart too, so its own results have spreads of the
// same kinds (JobOutcome::per_target_intervals).
//
// Offsets: sequential jobs split the region into one contiguous slice per thread; random jobs draw uniform
// block numbers over the whole region. With several targets and a stripe chunk, the region is the RAID-0
// concatenation (chunk k lives on target k mod N at chunk k / N); without one, each target gets its own
// `jobs` threads.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/disk_stats.hpp"
#include "storage/engine.hpp"
#include "storage/histogram.hpp"
#include "storage/io/job_spec.hpp"
#include "storage/io/submission_trial.hpp"

namespace mlbench::storage {

struct JobTarget {
  std::string path;  // for messages
  int fd = -1;
  std::uint64_t base = 0;  // where the region starts
  std::uint64_t size = 0;  // region length, a multiple of bs
  bool prefilled = false;  // holds the fill pattern (a file mlbench created)
};

struct JobPlan {
  JobSpec spec;
  EngineKind engine = EngineKind::uring;
  bool iopoll = false;
  std::vector<JobTarget> targets;
  std::uint64_t fill_seed = 0;     // pattern the prefilled targets hold
  std::uint64_t write_seed = 0;    // pattern written under --verify
  std::vector<int> cpus;           // job thread i is pinned to cpus[i % size]; empty = not pinned
  std::vector<std::string> disks;  // /sys/block names whose statistics are read over the window (disk_stats)
  // A round of a job measured in rounds (the profile suite's, kSuiteRounds): sequential threads start this
  // fraction into their slices (round k of R at k/R), so the rounds spread over the region instead of each
  // re-reading its start from a cache below O_DIRECT; and the sampling interval is the whole job's
  // (sampling_interval_s of its full runtime), so a job has ~20 intervals however it is split (each
  // window's last, partial one is dropped: 16 of 20 in four rounds). 0: one window.
  double seq_start = 0;
  double interval_s = 0;
};

// Where logical offset `o` of a striped region lives: target index and byte offset inside that target's
// region. Pure; unit-tested.
struct StripeLoc {
  std::uint32_t target;
  std::uint64_t offset;
};
inline StripeLoc stripe_map(std::uint64_t o, std::uint64_t chunk, std::uint32_t n) {
  std::uint64_t k = o / chunk;
  return {static_cast<std::uint32_t>(k % n), (k / n) * chunk + o % chunk};
}

// A direction's latencies as fio splits them: lat = issue to completion (every I/O); slat = issue to the
// return of the submission that handed it to the kernel, and clat = from there to its completion, for the
// I/Os submitted one at a time (io_uring per-I/O submission). Where submission and completion are one step —
// io_uring batched (the submission rides on the wait's system call), psync (the call returns when the I/O is
// done) — the engine cannot tell them apart: the I/O has no slat and its clat is its lat, as fio reports
// its synchronous engines.
struct IoTotals {
  std::uint64_t ios = 0, bytes = 0, reads = 0, writes = 0;
  LatencyHistogram lat;                  // every I/O
  LatencyHistogram read_lat, write_lat;  // by direction
  LatencyHistogram read_clat, write_clat, read_slat, write_slat;
  void merge(const IoTotals& o);
};

// The latency percentiles reported, and for each the per-interval values that give its spread.
inline constexpr std::array<std::pair<const char*, double>, 5> kLatencyPercentiles{
    {{"lat_p50", 0.50}, {"lat_p90", 0.90}, {"lat_p99", 0.99}, {"lat_p999", 0.999}, {"lat_p9999", 0.9999}}};

// Length of the sampling intervals behind the spread of every figure: ~20 per run, 0.1 s to 1 s each.
double sampling_interval_s(const JobSpec& s);

// One direction's values per sampling interval (every I/O, reads or writes) of the job or of one target.
struct IntervalSeries {
  std::vector<double> iops;  // the job's (target's), from the sampler
  // Per percentile of kLatencyPercentiles: its value (s) in each sampling interval of each job thread (batch
  // quantiles). An interval too short for a tail percentile (p99.99 of 1,000 I/Os) gives its slowest I/O
  // there, so a tail's spread is the spread of the intervals' tails: wide where stalls come and go, which is
  // what moves a tail from run to run; the order-statistic interval from the whole window's count
  // (storage/io/probe.cpp) assumes independent I/Os and cannot see that (a stall delays every I/O in flight).
  std::array<std::vector<double>, kLatencyPercentiles.size()> lat;
  std::vector<double> lat_max;    // s, each interval's slowest I/O, per job thread
  std::vector<double> lat_min;    // s, each interval's fastest I/O, per job thread
  std::vector<double> lat_mean;   // s, each interval's mean latency, per job thread
  std::vector<double> lat_stdev;  // s, each interval's latency standard deviation, per job thread
};

// The interval series of one set of I/Os, every I/O and each direction.
struct DirectionIntervals {
  IntervalSeries all, read, write;
};

// One interval of the --log-interval log (fio's log_avg_msec): its end after the warm-up and its length (the
// last one ends with the window), the I/Os completed in it, and their latency p50 and p99 (NaN without I/O).
// Each job thread closes its own interval on the job's clock, before it counts the completions of a batch
// reaped past the interval's end, and merges its latencies into the job's; the interval is final once every
// thread has moved past it or finished.
struct LogEntry {
  double t_s = 0, seconds = 0;
  std::uint64_t ios = 0;
  double lat_p50 = 0, lat_p99 = 0;  // s
};

struct JobOutcome {
  // Stopped by the stop flag (SIGINT/SIGTERM) after some I/Os were measured: the figures are those of the
  // window until then (last_done_s), and no --verify read-back ran.
  bool interrupted = false;
  std::vector<LogEntry> log;   // --log-interval; at most kMaxLogIntervals entries
  bool log_truncated = false;  // a count-bound job ran past kMaxLogIntervals intervals
  std::vector<IoTotals> per_target;
  // Per target (as per_target), the series of the I/Os that reached it: IOPS from the sampler's per-target
  // counts (they sum to the job's in each interval), latencies per job thread and target (a thread of a
  // striped job samples each target apart; a thread of one target's gives its own series).
  std::vector<DirectionIntervals> per_target_intervals;
  IoTotals total;
  double first_done_s = 0, last_done_s = 0;  // from the end of the warm-up
  double warmup_s = 0;                       // excluded before the window (warmup_s above)
  double cpu_s = 0;                          // process user+sys in the measured window
  // The process's user and system CPU seconds, context switches (voluntary and not) and page faults (major,
  // minor) over cpu_wall_s, the measured window to the job threads' end (getrusage RUSAGE_SELF: the job
  // threads and mlbench's sampler): fio's usr_cpu, sys_cpu, ctx, majf and minf. usr_cpu = 100 × usr_s /
  // (cpu_wall_s × threads), the mean per job thread, as fio's group_reporting sums its threads' times.
  double usr_s = 0, sys_s = 0, cpu_wall_s = 0;
  std::uint64_t ctx = 0, majf = 0, minf = 0;
  std::vector<double> interval_usr_cpu, interval_sys_cpu;  // % per job thread in each sampling interval
  // Each disk of JobPlan::disks over the same window (/sys/block/<disk>/stat after − before), when readable.
  std::vector<DiskStat> disk_stats;
  IntervalSeries intervals;  // every I/O
  IntervalSeries read_intervals, write_intervals;
  std::vector<double> interval_cpu_per_io;  // process CPU seconds per I/O in each sampling interval
  unsigned threads = 0;
  std::vector<int> thread_cpus;  // the CPU each job thread was running on when it finished
  nlohmann::json engine_features = nlohmann::json::object();
  // When --submission auto ran a trial: {batched_iops, per_io_iops, chosen, ramp_s, ramp_added}; null
  // otherwise. ramp_added: the job had no --ramp long enough and mlbench added one for the trial.
  nlohmann::json submission_trial;
  std::vector<std::string> warnings;
  std::uint64_t verify_checked = 0, verify_bad = 0;  // blocks
  std::string verify_first_bad;
  // The lowest (target index, byte offset) of the blocks that failed verification, at most kKeptBadBlocks:
  // where a burn-in's bad blocks are (burnin/host_phases.cpp lists them).
  std::vector<std::pair<std::uint32_t, std::uint64_t>> verify_bad_blocks;
};
inline constexpr std::size_t kKeptBadBlocks = 16;

// Adds `item` to `list` unless it is there already (a warning every thread or round gives alike, kept once).
void keep_once(std::vector<std::string>& list, const std::string& item);

// The rounds of one job (Case::rounds: the profile suite measures each job in rounds interleaved with the
// other jobs') as one outcome: the totals and interval series (the job's and each target's) together, the
// measured windows, warm-ups and CPU time summed (first_done_s the last round's on the joined window); the
// first round's engine features and submission trial. `rounds` is not empty.
JobOutcome merge_rounds(const std::vector<JobOutcome>& rounds);

// Runs the job; throws Error on an I/O error or short transfer (naming target, offset and errno), Interrupted
// when `stop` is set before any I/O was measured (after that: the outcome so far, `interrupted`), Error when
// `deadline` passes first. Verification (JobSpec::verify) checks reads of
// prefilled targets inline and, after writes, reads the region back.
// `live`, when set, gets the job's completion rate (measured I/Os per second, after the ramp) about twice a
// second, on the calling thread (the console's live status line).
JobOutcome run_job(const JobPlan& plan, const std::atomic<bool>& stop,
                   std::chrono::steady_clock::time_point deadline,
                   const std::function<void(double iops)>& live = {});

}  // namespace mlbench::storage
