#include "serve/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "base/stats.hpp"

namespace mlbench::serve {

PointFigures summarize(const std::vector<Record>& records, double seconds,
                       const std::vector<std::int64_t>& input_tokens, const Targets& targets) {
  PointFigures f;
  f.seconds = seconds;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const Record& r = records[i];
    if (r.start < 0) continue;  // never sent (interrupted first)
    ++f.sent;
    if (!r.ok()) {
      ++f.failed;
      ++f.errors[std::string(to_string(r.error))];
      continue;
    }
    ++f.completed;
    const double ttft = r.first - r.start;
    const double e2e = r.last - r.start;
    std::int64_t out = r.completion_tokens;
    if (out < 0) {
      out = r.chunks;
      f.tokens_exact = false;
    }
    f.output_tokens += out;
    f.input_tokens +=
        r.prompt_tokens >= 0 ? r.prompt_tokens : (i < input_tokens.size() ? input_tokens[i] : 0);
    double tpot = 0;
    if (out > 1) {
      tpot = (e2e - ttft) / static_cast<double>(out - 1);
      f.tpot.push_back(tpot);
    }
    f.ttft.push_back(ttft);
    f.e2e.push_back(e2e);
    f.itl.insert(f.itl.end(), r.itl.begin(), r.itl.end());
    const bool good = (!targets.ttft || ttft <= *targets.ttft) && (!targets.tpot || tpot <= *targets.tpot) &&
                      (!targets.e2e || e2e <= *targets.e2e);
    if (good) ++f.good;
  }
  for (auto* v : {&f.ttft, &f.tpot, &f.itl, &f.e2e}) std::sort(v->begin(), v->end());
  return f;
}

Metric percentile_metric(std::string name, const std::vector<double>& sorted, double q,
                         std::string_view samples) {
  Metric m{std::move(name), percentile_sorted(sorted, q), "s", Better::lower, std::nullopt, std::nullopt, {}};
  const double n = static_cast<double>(sorted.size());
  const RankInterval ranks = quantile_rank_interval(n, q);
  constexpr double inf = std::numeric_limits<double>::infinity();
  const double lo = ranks.lo >= 1 ? sorted[static_cast<std::size_t>(ranks.lo) - 1] : -inf;
  const double hi = ranks.hi <= n ? sorted[static_cast<std::size_t>(ranks.hi) - 1] : inf;
  m.ci = ConfidenceInterval{lo, hi};
  if (!std::isfinite(lo) || !std::isfinite(hi))
    m.ci_open = fmt::format("p{:g} of {} {}: needs ≥ {} {}", 100 * q, sorted.size(), samples,
                            quantile_samples_needed(q), samples);
  return m;
}

std::vector<Metric> point_metrics(const PointFigures& f, bool goodput) {
  std::vector<Metric> m;
  const double secs = f.seconds > 0 ? f.seconds : 1;
  auto rate = [&](std::string name, double value, std::string unit) {
    m.push_back(
        Metric{std::move(name), value, std::move(unit), Better::higher, std::nullopt, std::nullopt, {}});
  };
  rate("output_tokens_per_s", static_cast<double>(f.output_tokens) / secs, "token/s");
  rate("requests_per_s", static_cast<double>(f.completed) / secs, "1/s");
  rate("total_tokens_per_s", static_cast<double>(f.input_tokens + f.output_tokens) / secs, "token/s");
  if (goodput) rate("goodput", static_cast<double>(f.good) / secs, "1/s");
  const std::pair<std::string_view, const std::vector<double>*> series[] = {
      {"ttft", &f.ttft}, {"tpot", &f.tpot}, {"itl", &f.itl}, {"e2e", &f.e2e}};
  for (const auto& [what, values] : series) {
    if (values->empty()) continue;
    const std::string_view counted = what == "itl" ? "gaps" : "requests";
    const Stats s = compute_stats(*values);
    m.push_back(Metric{fmt::format("{}_mean", what),
                       s.mean,
                       "s",
                       Better::lower,
                       std::nullopt,
                       sigma_ci(s.mean, mean_standard_error(s)),
                       {}});
    for (const auto& [suffix, q] : kQuantiles)
      m.push_back(percentile_metric(fmt::format("{}_{}", what, suffix), *values, q, counted));
  }
  if (f.sent > 0)
    m.push_back(Metric{"error_rate",
                       100.0 * static_cast<double>(f.failed) / static_cast<double>(f.sent),
                       "%",
                       Better::lower,
                       std::nullopt,
                       std::nullopt,
                       {}});
  return m;
}

}  // namespace mlbench::serve
