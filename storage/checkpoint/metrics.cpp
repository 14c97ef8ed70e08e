#include <algorithm>
#include <cmath>

#include "base/stats.hpp"
#include "storage/checkpoint/checkpoint.hpp"

namespace mlbench::storage {
namespace {

// The slowest of the ranks' times and its Gumbel spread (base/stats.hpp).
struct Slowest {
  double value = 0, sigma = 0;
};
Slowest slowest(const std::vector<double>& t) {
  return {*std::max_element(t.begin(), t.end()), maximum_standard_deviation(t)};
}

// 100 × (max − min) / max of the ranks' times; each extreme has its Gumbel spread (the fastest that of the
// negated times), propagated to first order through 1 − min / max.
Metric spread_metric(const std::vector<double>& t, std::string name) {
  const Slowest hi = slowest(t);
  std::vector<double> negated;
  for (double x : t) negated.push_back(-x);
  const double lo = *std::min_element(t.begin(), t.end());
  const double lo_sigma = maximum_standard_deviation(negated);
  Metric m{
      std::move(name), hi.value > 0 ? 100 * (hi.value - lo) / hi.value : 0, "%", Better::lower, std::nullopt,
      std::nullopt};
  if (hi.value > 0)
    m.ci = sigma_ci(m.value, 100 * std::hypot(lo_sigma / hi.value, lo * hi.sigma / (hi.value * hi.value)));
  return m;
}

}  // namespace

std::vector<Metric> checkpoint_metrics(const std::vector<RankOutcome>& ranks, std::uint64_t shard,
                                       bool read_back) {
  std::vector<double> w, rd, fs_t;
  for (const auto& k : ranks) {
    w.push_back(k.write_s);
    rd.push_back(k.read_s);
    fs_t.push_back(k.fsync_s);
  }
  const double total = static_cast<double>(shard) * static_cast<double>(ranks.size());
  const Slowest wmax = slowest(w), rmax = slowest(rd), fsmax = slowest(fs_t);
  // bytes / the slowest time: the slowest time's relative spread (first order).
  auto rate = [](std::string name, double bytes, const Slowest& t) {
    const double v = bytes / t.value;
    return Metric{
        std::move(name), v, "B/s", Better::higher, std::nullopt, sigma_ci(v, v * t.sigma / t.value)};
  };
  std::vector<Metric> m;
  m.push_back(rate("write_bandwidth", total, wmax));
  if (read_back) m.push_back(rate("read_bandwidth", total, rmax));
  m.push_back(
      Metric{"stall", wmax.value, "s", Better::lower, std::nullopt, sigma_ci(wmax.value, wmax.sigma)});
  m.push_back(
      Metric{"fsync_max", fsmax.value, "s", Better::lower, std::nullopt, sigma_ci(fsmax.value, fsmax.sigma)});
  m.push_back(rate("write_bandwidth_slowest_rank", static_cast<double>(shard), wmax));
  m.push_back(spread_metric(w, "write_spread"));
  if (read_back) m.push_back(spread_metric(rd, "read_spread"));
  return m;
}

}  // namespace mlbench::storage
