// Parsing of sizes, durations and counts given by users (flags, config, workload and thresholds files: one
// grammar), and human formatting for writers.
//
// Sizes follow fio: a plain number is bytes, suffixes k/K, m/M, g/G, t/T (optionally followed by "i" and/or
// "b"/"B") are binary multiples (4k = 4096). Durations: a plain number is seconds; suffixes us, ms, s, m, h.
// Counts and rates (tokens, parameters, I/Os, FLOP/s, B/s): decimal multiples k (1e3), M (1e6), G or B
// (1e9: "13B" parameters), T (1e12: "1T" tokens), P (1e15), either case.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/names.hpp"

namespace mlbench {

// How a console shows byte quantities: decimal multiples (MB/s, GB/s: 1000) or binary ones (MiB/s, GiB/s,
// KiB: 1024, fio's kb_base=1024). Reports always store bytes; only the console's rendering changes.
enum class UnitBase { decimal, binary };
inline constexpr EnumName<UnitBase> kUnitBaseNames[] = {{UnitBase::decimal, "decimal"},
                                                        {UnitBase::binary, "binary"}};
static_assert(names_cover(kUnitBaseNames));
// The option (a choice of kUnitBaseNames) by which a probe's results ask for one: storage.io's --units.
inline constexpr std::string_view kUnitsOption = "units";

// Throws UsageError naming `what` (e.g. "--bs") on a malformed or negative value.
std::uint64_t parse_size(std::string_view text, std::string_view what);
double parse_duration(std::string_view text, std::string_view what);
double parse_count(std::string_view text, std::string_view what);
// A value in a report unit, by that unit: "s" a duration, "B" a size, anything else ("B/s", "1/s", "FLOP/s",
// "" for a plain count) a count: "2ms", "4k" (4096 B), "700k" (IOPS), "5.5G" (B/s), "13B".
double parse_quantity(std::string_view text, std::string_view unit, std::string_view what);

// A size as a user types it, with the suffixes parse_size takes (binary): "4k", "128k", "1M", "1.2G", "512".
// A whole multiple of a suffix is exact ("1536k" for 1.5 MiB is "1.5M": exact too); any other size shows
// three significant digits of the largest suffix it reaches ("1.2G"). Every console table shows sizes this
// way.
std::string format_size(double bytes);
// "1.50 GiB", "512 B" — binary units for capacities.
std::string format_bytes(double bytes);
// "12.3 GB/s" — decimal units for rates (reports store B/s, writers convert); with UnitBase::binary
// "11.7 MiB/s" (for byte units: the prefix steps by 1024 and reads Ki, Mi, Gi...).
std::string format_rate(double value, std::string_view unit, UnitBase base = UnitBase::decimal);

}  // namespace mlbench
