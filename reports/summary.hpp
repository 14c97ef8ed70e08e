// Console writers for humans: the end-of-run summary table and the host inventory.
#pragma once

#include <ostream>

#include "reports/report.hpp"

namespace mlbench {

// "12.3 GB/s", "812 TFLOP/s", "85.2 us", "93.1 %": SI prefixes for rates, time units for seconds.
std::string format_metric_value(double value, const std::string& unit);
// "dtype=bf16 m=8192 ..." — a result's identity in one line, cut to `max_len` characters with "..." (the
// console summary) or whole (tables and exports).
std::string format_params(const Json& params, std::size_t max_len = std::string::npos);

// One line per result: probe, key params, status, headline metric (the first), % of peak when present; under
// it the reason (once for consecutive rows that share it) and each of its warnings; last, the warning count.
void print_summary(std::ostream& out, const Report& report);
void print_host(std::ostream& out, const Json& host);

}  // namespace mlbench
