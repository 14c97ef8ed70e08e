// storage.io — what a server's NVMe drives and RAID sets deliver: IOPS, bandwidth and latency percentiles of
// fio-style jobs, through io_uring (psync fallback), on files mlbench creates or on existing files/devices.
//
// Formulas: iops = I/Os completed after the ramp / (last job done − ramp end); bandwidth = bytes / the same;
// lat_* = submission→completion latency percentiles from a log-linear histogram (≤ 0.4 % bucket error);
// cpu_per_io = process user+sys CPU seconds in the window / I/Os; pct_of_link = bandwidth / PCIe link
// bandwidth of the drive(s) (host inventory) × 100. Warm-up: --ramp seconds excluded; one measured window per
// case, ~20 interval samples give the spread of IOPS and bandwidth, and of each latency percentile (from the
// intervals that hold ≥ 10 I/Os beyond it, so p99's spread needs ≥ 1,000 I/Os an interval). Caveats: files
// are prefilled with random data (never sparse) so reads hit the media; O_DIRECT by default; the profile
// suite's scratch file is 1.5 × RAM so that even buffered reads cannot come from the page cache. Options: see
// storage/job_spec.hpp and `mlbench storage
// --help`.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "bench/probe.hpp"
#include "storage/target.hpp"

namespace mlbench::storage {

class StorageProbe final : public Probe {
 public:
  StorageProbe();
  ProbeInfo info() const override;
  std::optional<std::string> unavailable(const Json& host) const override;
  std::vector<Case> plan(const PlanContext& ctx) const override;
  std::vector<Result> run(const Case& c, RunContext& ctx) override;

 private:
  // The profile suite's scratch file, created by the first suite case and shared by the rest (filling a
  // file larger than RAM once, not seven times); removed when the probe goes away.
  std::unique_ptr<OpenTarget> scratch_;
  std::string scratch_dir_;
  std::uint64_t fill_seed_;
  std::uint64_t cases_run_ = 0;
};

std::unique_ptr<Probe> make_storage_probe();

}  // namespace mlbench::storage
