// Console writers for humans: the end-of-run summary table and the host inventory.
#pragma once

#include <ostream>

#include "reports/report.hpp"

namespace mlbench {

// "12.3 GB/s", "812 TFLOP/s", "85.2 us", "93.1 %": SI prefixes for rates, time units for seconds; a value
// without a unit (a count) as the number alone ("0", "12").
std::string format_metric_value(double value, const std::string& unit);
// "rw=randread bs=4k iodepth=32 ..." — a result's identity in one line; sizes as users type them (bs=4k,
// bytes=1.2G: format_size), cut to `max_len` display columns with "..." (the console summary) or whole
// (tables and exports).
std::string format_params(const Json& params, std::size_t max_len = std::string::npos);

// A console table's width when the terminal's is not known (output to a file or a pipe).
inline constexpr std::size_t kDefaultConsoleWidth = 120;

// One line per result: probe, key params, status, headline metric (the first), % of peak when present,
// within `width` columns (the params column takes what the others leave and is cut with "..."); under it the
// I/O summary of a storage result (IOPS, bandwidth, latency p50/p99/p99.9, CPU per I/O; read and write
// apart when the result has both) and fio's lines after it (slat/clat/lat min, max, avg, stdev; cpu usr/sys
// and context switches; each disk's ios, merges, ticks, in_queue and util), the reason (once for consecutive
// rows that share it) and each of its warnings; last, the warning count. A multi-target storage job's
// aggregate row is labelled "aggregate of N targets" and its per-target rows are indented beneath it, naming
// only their target.
void print_summary(std::ostream& out, const Report& report, std::size_t width = kDefaultConsoleWidth);
void print_host(std::ostream& out, const Json& host);

}  // namespace mlbench
