#include "storage/dataload/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "base/stats.hpp"

namespace mlbench::storage {
namespace {

// s / sqrt(n) / mean of the values: the relative standard error of their mean; 0 for fewer than two.
double mean_relative_error(const std::vector<double>& values) {
  const Stats s = compute_stats(values);
  return s.mean != 0 ? mean_standard_error(s) / std::fabs(s.mean) : 0.0;
}

// The standard error of the mean of n values from their sum and sum of squares; 0 for fewer than two.
double standard_error(double n, double sum, double sum_sq) {
  if (n < 2) return 0;
  return std::sqrt(std::max(0.0, (sum_sq - sum * sum / n) / (n - 1)) / n);
}

// A latency percentile (s) of the histogram with its order-statistic confidence interval (`samples`: what the
// histogram counted, for the reason an interval is open).
Metric percentile_metric(std::string name, const LatencyHistogram& h, double q, std::string_view samples) {
  Metric m{std::move(name), h.percentile(q) * 1e-9, "s", Better::lower, std::nullopt, std::nullopt};
  set_percentile_ci(m, h, q, samples);
  return m;
}

}  // namespace

std::vector<Metric> train_metrics(const LoadOutcome& o) {
  double timed = 0, step_sum = 0, step_sq = 0, wait_sum = 0, wait_sq = 0;
  std::vector<double> au, lowest_au, cpu_per_file;
  for (const auto& a : o.accelerators) {
    au.push_back(a.au() * 100);
    lowest_au.push_back(-a.au() * 100);
    if (a.steps < 2) continue;
    timed += static_cast<double>(a.steps - 1);
    step_sum += a.step_sum_s;
    step_sq += a.step_sq_s2;
    wait_sum += a.wait_s;
    wait_sq += a.wait_sq_s2;
  }
  for (const auto& r : o.readers)
    if (r.files > 0) cpu_per_file.push_back(r.cpu_s / static_cast<double>(r.files));
  std::vector<Metric> m;
  auto add = [&m](std::string name, double value, std::string unit, Better better,
                  std::optional<ConfidenceInterval> ci) {
    m.push_back(Metric{std::move(name), value, std::move(unit), better, std::nullopt, ci});
  };
  // The window's flow of samples, and of the files and bytes that carry them, is paced by the steps: its
  // relative error is the mean step duration's.
  const double step_error =
      step_sum > 0 ? standard_error(timed, step_sum, step_sq) / (step_sum / timed) : 0.0;
  auto flow = [&add, step_error](std::string name, double value, std::string unit) {
    add(std::move(name), value, std::move(unit), Better::higher, sigma_ci(value, value * step_error));
  };
  const double secs = o.seconds > 0 ? o.seconds : 1;
  flow("samples_per_s", static_cast<double>(o.samples) / secs, "1/s");
  flow("bandwidth", static_cast<double>(o.bytes) / secs, "B/s");
  flow("files_per_s", static_cast<double>(o.files) / secs, "1/s");
  add("au", o.au() * 100, "%", Better::higher,
      sigma_ci(o.au() * 100, mean_standard_error(compute_stats(au))));
  add("au_min", o.au_min() * 100, "%", Better::higher,
      sigma_ci(o.au_min() * 100, maximum_standard_deviation(lowest_au)));
  add("batch_wait_mean", o.batch_wait.mean() * 1e-9, "s", Better::lower,
      sigma_ci(o.batch_wait.mean() * 1e-9, standard_error(timed, wait_sum, wait_sq)));
  m.push_back(percentile_metric("batch_wait_p99", o.batch_wait, 0.99, "batches"));
  constexpr std::pair<const char*, double> kQ[] = {{"p50", 0.5}, {"p99", 0.99}, {"p999", 0.999}};
  const std::tuple<const char*, const LatencyHistogram*, const char*> latencies[] = {
      {"open", &o.open, "opens"}, {"read", &o.read, "reads"}, {"close", &o.close, "closes"}};
  for (const auto& [what, h, counted] : latencies) {
    for (const auto& [suffix, q] : kQ)
      m.push_back(percentile_metric(fmt::format("{}_{}", what, suffix), *h, q, counted));
  }
  if (o.files > 0) {
    const double cpu = o.cpu_s / static_cast<double>(o.files);
    add("cpu_per_file", cpu, "s", Better::lower, sigma_ci(cpu, cpu * mean_relative_error(cpu_per_file)));
  }
  return m;
}

}  // namespace mlbench::storage
