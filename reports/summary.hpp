// Console writers for humans: the end-of-run summary table and the host inventory.
#pragma once

#include <functional>
#include <map>
#include <ostream>
#include <span>
#include <string>

#include "base/units.hpp"
#include "bench/probe.hpp"
#include "report/report.hpp"

namespace mlbench {

// How a console writes a value: byte rates in decimal (MB/s) or binary (MiB/s) multiples; `exact` (--verbose)
// writes a rate of 100 or more with every digit instead of three ("iops 2995/s", "bw 12268544 B/s").
struct ValueStyle {
  UnitBase units = UnitBase::decimal;
  bool exact = false;
};

// "12.3 GB/s", "812 TFLOP/s", "85.2 us", "93.1 %": SI prefixes for rates, time units for seconds; a value
// without a unit (a count) as the number alone ("0", "12"); byte rates and exact rates as `style` says.
std::string format_metric_value(double value, const std::string& unit, ValueStyle style = {});
// "rw=randread bs=4k iodepth=32 ..." — a result's identity in one line; sizes as users type them (bs=4k,
// bytes=1.2G: format_size), cut to `max_len` display columns with "..." (the console summary) or whole
// (tables and exports).
std::string format_params(const Json& params, std::size_t max_len = std::string::npos);

// A console table's width when the terminal's is not known (output to a file or a pipe).
inline constexpr std::size_t kDefaultConsoleWidth = 120;

// What the summary shows of each probe's results beyond the row: its headline set (ProbeInfo::console) and
// the unit base of its byte rates (storage.io --units); and for every row, exact rates (--verbose).
struct ProbeConsole {
  std::span<const ConsoleField> fields;
  UnitBase units = UnitBase::decimal;
};
struct SummaryOptions {
  std::map<std::string, ProbeConsole, std::less<>> probes;  // by probe id
  bool exact = false;
};

// One line per result: probe, key params, status, headline metric (the first), % of peak when present,
// within `width` columns (the params column takes what the others leave and is cut with "..."); under it the
// headline set of its probe (options.probes: storage.io's IOPS, bandwidth, latency p50/p99/p99.9, CPU per
// I/O, a line per direction when the result has each direction's own metrics — read_iops — as fio's read
// and write sections; storage.dataload's AU and its floor, bandwidth, files and samples per second, batch
// wait; storage.checkpoint's write and read-back bandwidth, stall, slowest fsync), for storage fio's lines
// after it (slat/clat/lat min, max, avg, stdev; cpu usr/sys and context switches; each disk's ios, merges,
// ticks, in_queue and util), the reason (once for consecutive rows that share it) and each of its warnings;
// last, the warning count. A result stopped partway (interrupted) shows the figures it has, like an ok one. A
// multi-target storage job's aggregate row is labelled "aggregate of N targets" and its per-target rows are
// indented beneath it, naming only their target.
void print_summary(std::ostream& out, const Report& report, std::size_t width = kDefaultConsoleWidth,
                   const SummaryOptions& options = {});
void print_host(std::ostream& out, const Json& host);

}  // namespace mlbench
