// storage.io — what a server's NVMe drives and RAID sets deliver: IOPS, bandwidth and latency percentiles of
// fio-style jobs, through io_uring (psync fallback), on files mlbench creates or on existing files/devices.
//
// Metrics (names are stable; compare, fleet, check and the acceptance files read them): iops, bandwidth,
// lat_p50, lat_p90, lat_p99, lat_p999, lat_p9999, lat_max, lat_min, lat_mean, lat_stdev, cpu_per_io,
// usr_cpu, sys_cpu, pct_of_link (when the drive's PCIe link is known), first_done and last_done (count-bound
// jobs); a randrw job adds each direction apart, as fio's read and write sections: read_iops,
// read_bandwidth, read_lat_p50 ... read_lat_p9999, read_lat_max ... read_lat_stdev, and the same with
// write_. Per-target results of several targets carry the I/O metrics (no cpu_per_io, usr_cpu, sys_cpu).
//
// What fio prints beside them goes to the result's info in fio's own shape, for the console's fio-style
// lines and the fio JSON (reports/fio_json.hpp): io_latency (per direction slat_ns, clat_ns with fio's
// percentile list, lat_ns: min, max, mean, stddev, N; IoTotals, storage/io/job.hpp, says when an I/O has a
// slat: io_uring submitting per I/O, not batched or psync), latency_distribution (fio's latency_ns/us/ms),
// rusage (ctx, majf, minf) and disk_stats (bench/disk_stats.hpp: each disk of the targets over the window,
// with util). The I/O totals are the result's work (ios, bytes, reads, writes, seconds).
//
// Formulas: iops = I/Os completed after the warm-up / (last job done − warm-up end); bandwidth = bytes / the
// same; lat_* = submission→completion latency percentiles from a log-linear histogram (≤ 0.4 % bucket
// error), lat_min/mean/stdev exact; cpu_per_io = process user+sys CPU seconds in the window / I/Os; usr_cpu
// (sys_cpu) = process user (system) CPU seconds / (window × job threads) × 100; pct_of_link = bandwidth /
// PCIe link bandwidth of the drive(s) (host inventory) × 100. Warm-up: --ramp seconds excluded, or the
// submission trial's automatic ramp (storage/io/submission_trial.hpp) when --ramp is shorter; one
// measured window per case, except the profile suite's, which measure in kSuiteRounds rounds the runner
// interleaves across the suite (storage/io/job_spec.hpp), their totals and intervals joined (merge_rounds,
// storage/io/job.hpp).
//
// Spread — every metric carries one, so that compare and the fleet judge a difference against the run's own
// noise: ~20 sampling intervals give stats of IOPS and bandwidth, CPU per I/O, lat_max (each interval's
// slowest I/O) and each latency percentile (each interval's own; one too short for a tail gives its slowest
// I/O: job.hpp, IntervalSeries). The `ci` is that of the statistic the value is (base/stats.hpp): IOPS,
// bandwidth and CPU per I/O are means over the intervals (mean ± 1.96·s/sqrt(n)); pct_of_link and
// first_done/last_done take the rate's relative error; each percentile has the order statistics at
// the exact binomial 2.5 % and 97.5 % ranks of the window's I/O count (base/stats.hpp,
// quantile_rank_interval) with the histogram bucket's resolution added (width/sqrt(12)), an interval open
// above when too few I/Os lie beyond the percentile for any I/O to bound it (p99.99 of fewer than 36,887
// I/Os; ci.open says so, and compare does not judge it); lat_max, an extreme, the Gumbel spread from the two
// slowest intervals; a suite job's ci is widened to the spread between its rounds where that is wider
// (widen_to_rounds, reports/report.hpp). relative_spread takes the larger of the ci and the standard error of
// the intervals' median. Per-target results of several targets have the same: each target's I/Os are counted
// and sampled apart (JobOutcome::per_target_intervals), so their IOPS, bandwidth, percentiles and lat_max get
// stats and ci as the aggregate's (no cpu_per_io: the process's CPU time is not split by target).
//
// Targets: a folder (mlbench creates a hidden scratch file there), an existing file or block device, or a
// new file's path in an existing folder (fio's --filename habit: created, filled and removed like the
// folder's unless --keep; storage/target.hpp). Caveats: files are prefilled with random data (never sparse)
// so reads hit the media; O_DIRECT by default; the profile suite's scratch file is 1.5 × RAM so that even
// buffered reads cannot come from the page cache. Options: see storage/io/job_spec.hpp and `mlbench storage
// --help`.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "bench/probe.hpp"
#include "storage/io/job.hpp"
#include "storage/io/metrics.hpp"
#include "storage/target.hpp"

namespace mlbench::storage {

class StorageProbe final : public Probe {
 public:
  StorageProbe();
  ProbeInfo info() const override;
  std::optional<std::string> unavailable(const Json& host) const override;
  std::vector<Case> plan(const PlanContext& ctx) const override;
  std::vector<Result> run(const Case& c, RunContext& ctx) override;
  std::vector<Result> run_round(const Case& c, RunContext& ctx, unsigned round) override;

 private:
  // The profile suite's scratch file, created by the first suite case and shared by the rest (filling a
  // file larger than RAM once, not seven times); removed when the probe goes away.
  std::unique_ptr<OpenTarget> scratch_;
  std::string scratch_dir_;
  // What the rounds a case has run so far (Case::rounds) gave, by case label: their outcomes and warnings.
  struct Rounds {
    std::vector<JobOutcome> outcomes;
    std::vector<std::string> warnings;
  };
  std::map<std::string, Rounds> rounds_;
  std::uint64_t fill_seed_;
  std::uint64_t cases_run_ = 0;
};

std::unique_ptr<Probe> make_storage_probe();

}  // namespace mlbench::storage
