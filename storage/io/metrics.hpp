// The metrics of a storage.io result, from a job's outcome: what storage/io/probe.hpp lists, with the
// formulas and spreads it states (every I/O's figures by direction, CPU per I/O, fio's usr/sys CPU, the
// share of the link, a count-bound job's times), and the figures fio prints beside them in fio's own shape
// (the result's info: io_latency, latency_distribution).
#pragma once

#include <cstdint>

#include "bench/probe.hpp"
#include "storage/io/job.hpp"
#include "storage/io/job_spec.hpp"

namespace mlbench::storage {

// Every I/O's metrics, and for randrw each direction's apart (read_iops ... write_lat_max, as fio's read and
// write sections), the job's or one target's: `t` its totals over `seconds`, `all`, `read` and `write` its
// interval series; `headline_iops` puts IOPS before bandwidth. Also the result's work and fio's latencies.
void add_io_metrics(Result& r, const IoTotals& t, double seconds, const JobSpec& s, const IntervalSeries& all,
                    const IntervalSeries& read, const IntervalSeries& write, bool headline_iops);
// The job's metrics from its outcome: add_io_metrics', CPU per I/O, usr_cpu and sys_cpu, pct_of_link when
// `link` (the PCIe link's bandwidth, B/s) > 0, and first_done/last_done of a count-bound job.
void add_job_metrics(Result& r, const JobOutcome& out, const JobSpec& s, double link, bool headline_iops);

// Whether a round's value of metric `m` estimates what the whole job's does, so that the spread between the
// rounds is its spread (widen_to_rounds): a rate or a mean over the window does; lat_max does not (the
// whole's is the largest round's, not a mean of them); a latency percentile does when the round (`round`: its
// I/Os, by direction for read_/write_ metrics) holds at least kRoundTail I/Os beyond it. Below that a round
// reads the percentile from a handful of I/Os, near its slowest (p99.99 of a 0.5 s round at QD1 is its
// slowest I/O), and the rounds differ by far more than the whole's value does: widened by them, the tails'
// median one-run noise band was ±1,300 % to ±3.7 × 10⁶ % in the first sets of the suite in rounds
// (docs/NOTES.md). Pure; unit-tested.
inline constexpr std::uint64_t kRoundTail = 10;
bool round_estimates(const Metric& m, const IoTotals& round);

}  // namespace mlbench::storage
