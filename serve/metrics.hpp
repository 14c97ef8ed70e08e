// serve.llm's figures of one load point, defined as vLLM's serving benchmark (benchmarks/serve.py,
// calculate_metrics) defines them, so that its numbers and mlbench's can be put side by side:
//  - TTFT: the first token chunk's arrival less the request's dispatch (the server's queueing included);
//  - TPOT: (E2E − TTFT) / (output tokens − 1), per request with more than one output token;
//  - ITL: every gap between consecutive token chunks, over all requests (a chunk of several tokens is one
//    gap, as vLLM counts it);
//  - E2E: the last token chunk's arrival less the dispatch;
//  - output tokens: usage.completion_tokens (stream_options.include_usage) where the server sends it, else
//  the
//    token chunks (approximate, said in info.tokens);
//  - requests/s, output tokens/s and total tokens/s over the load point's duration (the first dispatch to the
//    last response's end), completed requests only;
//  - goodput: completed requests meeting every target given (TTFT, TPOT, E2E), per second; a request with
//    one output token has TPOT 0 there, as in vLLM.
// GenAI-Perf differs in names and one end: its "inter-token latency" is vLLM's TPOT, and its request latency
// ends at the last response message, not the last token chunk.
// Percentiles are numpy's linear interpolation (base/stats.hpp percentile_sorted, as vLLM's np.percentile),
// each with its order-statistic 95 % interval; means carry s/sqrt(n).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/report.hpp"
#include "serve/client.hpp"

namespace mlbench::serve {

struct Targets {
  std::optional<double> ttft, tpot, e2e;  // s
  bool any() const { return ttft || tpot || e2e; }
};

struct PointFigures {
  std::size_t sent = 0, completed = 0, failed = 0, good = 0;
  std::map<std::string, std::size_t> errors;  // by ErrorKind name
  double seconds = 0;
  std::int64_t input_tokens = 0, output_tokens = 0;
  bool tokens_exact = true;                  // every completed request's output count came from usage
  std::vector<double> ttft, tpot, itl, e2e;  // sorted, s
};

// `input_tokens[i]`: job i's prompt length as planned, used where the server's usage gives none.
PointFigures summarize(const std::vector<Record>& records, double seconds,
                       const std::vector<std::int64_t>& input_tokens, const Targets& targets);

// The percentile names and quantiles every latency gets: p50, p90, p99, p999.
struct Quantile {
  std::string_view suffix;
  double q;
};
inline constexpr Quantile kQuantiles[] = {{"p50", 0.50}, {"p90", 0.90}, {"p99", 0.99}, {"p999", 0.999}};

// The load point's metrics (names in serve/probe.cpp's table), the headline output_tokens_per_s first;
// goodput only when a target is given.
std::vector<Metric> point_metrics(const PointFigures& f, bool goodput);

// A percentile of sorted values with its order-statistic interval (open sides ±infinity, and why in
// ci_open, `samples` naming what was counted).
Metric percentile_metric(std::string name, const std::vector<double>& sorted, double q,
                         std::string_view samples);

}  // namespace mlbench::serve
