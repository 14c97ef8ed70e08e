#include "storage/io/metrics.hpp"

#include <cmath>

#include <fmt/format.h>

#include "base/stats.hpp"
#include "storage/io/fio.hpp"

namespace mlbench::storage {
namespace {

// Stats of the per-interval values times `scale`; none with fewer than two.
std::optional<Stats> interval_stats(const std::vector<double>& samples, double scale = 1.0) {
  if (samples.size() < 2) return std::nullopt;
  std::vector<double> v;
  v.reserve(samples.size());
  for (double x : samples) v.push_back(x * scale);
  return compute_stats(v);
}

// The relative standard error of a figure that is the mean over the sampling intervals (all I/Os over the
// window: IOPS, bandwidth, CPU per I/O) from the intervals' stats; 0 without two intervals.
double mean_relative_error(const std::optional<Stats>& s) {
  return s && s->mean != 0 ? mean_standard_error(*s) / std::fabs(s->mean) : 0.0;
}

// value ± 1.96 × value × `relative_error`; none when there is no error to state.
std::optional<ConfidenceInterval> relative_ci(double value, double relative_error) {
  if (relative_error <= 0) return std::nullopt;
  return symmetric_ci(value, std::fabs(value) * relative_error);
}

// One direction's metrics, named `prefix` + iops, bandwidth, lat_p50 ... lat_p9999, lat_max. `in` (the job's
// or the target's series) gives each its per-interval stats; each percentile also gets its confidence
// interval from the count, which is what a tail percentile has when its intervals hold too few I/Os beyond
// it.
void add_direction(Result& r, const std::string& prefix, std::uint64_t ios, const LatencyHistogram& lat,
                   double seconds, const JobSpec& s, const IntervalSeries& in, bool headline_iops) {
  const double iops = static_cast<double>(ios) / seconds;
  const auto bs = static_cast<double>(s.bs);
  const std::optional<Stats> rates = interval_stats(in.iops);
  const double rate_error = mean_relative_error(rates);
  Metric iops_m{prefix + "iops", iops, "1/s", Better::higher, rates, relative_ci(iops, rate_error)};
  Metric bw_m{prefix + "bandwidth",
              iops * bs,
              "B/s",
              Better::higher,
              interval_stats(in.iops, bs),
              relative_ci(iops * bs, rate_error)};
  if (headline_iops) {
    r.metrics.push_back(std::move(iops_m));
    r.metrics.push_back(std::move(bw_m));
  } else {
    r.metrics.push_back(std::move(bw_m));
    r.metrics.push_back(std::move(iops_m));
  }
  for (std::size_t i = 0; i < kLatencyPercentiles.size(); ++i) {
    const auto& [name, q] = kLatencyPercentiles[i];
    Metric& m = r.add_metric(prefix + name, lat.percentile(q) * 1e-9, "s", Better::lower);
    m.stats = interval_stats(in.lat[i]);
    set_percentile_ci(m, lat, q, "I/Os");
  }
  Metric& max = r.add_metric(prefix + "lat_max", static_cast<double>(lat.max()) * 1e-9, "s", Better::lower);
  max.stats = interval_stats(in.lat_max);
  if (const double sigma = maximum_standard_deviation(in.lat_max); sigma > 0)
    max.ci = symmetric_ci(max.value, sigma);
  // fio's min, avg and stdev. The minimum is an extreme, as the maximum: the Gumbel spread of the two fastest
  // intervals. The mean's ci is its standard error (stdev / sqrt(I/Os)); the standard deviation's is
  // stdev / sqrt(2 (n − 1)), a normal sample's, which a heavy tail widens: a floor, stated as such.
  Metric& min = r.add_metric(prefix + "lat_min", static_cast<double>(lat.min()) * 1e-9, "s", Better::lower);
  min.stats = interval_stats(in.lat_min);
  std::vector<double> negated;
  for (double x : in.lat_min) negated.push_back(-x);
  if (const double sigma = maximum_standard_deviation(negated); sigma > 0)
    min.ci = symmetric_ci(min.value, sigma);
  const double stdev = lat.stddev() * 1e-9, n = static_cast<double>(lat.count());
  Metric& mean = r.add_metric(prefix + "lat_mean", lat.mean() * 1e-9, "s", Better::lower);
  mean.stats = interval_stats(in.lat_mean);
  if (n > 1) mean.ci = sigma_ci(mean.value, stdev / std::sqrt(n));
  Metric& sd = r.add_metric(prefix + "lat_stdev", stdev, "s", Better::lower);
  sd.stats = interval_stats(in.lat_stdev);
  if (n > 1) sd.ci = sigma_ci(stdev, stdev / std::sqrt(2 * (n - 1)));
}

// One latency as fio's JSON writes it (ns): min, max, mean, stddev, N, and with `percentiles` fio's default
// percentile list ("99.990000": ns).
Json fio_latency(const LatencyHistogram& h, bool percentiles) {
  Json j{{"min", h.min()}, {"max", h.max()}, {"mean", h.mean()}, {"stddev", h.stddev()}, {"N", h.count()}};
  if (percentiles && h.count() > 0) {
    Json p = Json::object();
    for (double q : kFioPercentiles)
      p[fmt::format("{:f}", q)] = static_cast<std::uint64_t>(std::llround(h.percentile(q / 100)));
    j["percentile"] = p;
  }
  return j;
}

// fio's latency distribution of `h`: per range of fio_latency_ranges(), the share of I/Os in it (%), at least
// 0.01 where any I/O is (fio's stat_calc_lat).
Json fio_latency_distribution(const LatencyHistogram& h) {
  Json out = Json::object();
  const auto total = static_cast<double>(h.count());
  for (const auto& r : fio_latency_ranges()) {
    Json part = Json::object();
    std::uint64_t below = h.count_below(r.unit_ns == 1 ? 0 : r.unit_ns);
    auto share = [&](std::uint64_t n) {
      const double pct = total > 0 ? 100.0 * static_cast<double>(n) / total : 0.0;
      return n > 0 ? std::max(pct, 0.01) : 0.0;
    };
    for (std::uint64_t b : r.bounds) {
      const std::uint64_t upto = h.count_below(b * r.unit_ns);
      part[std::to_string(b)] = share(upto - below);
      below = upto;
    }
    if (r.open_last) part[fmt::format(">={}", r.bounds.back())] = share(h.count() - below);
    out[std::string(r.key)] = part;
  }
  return out;
}

}  // namespace

// Every I/O's metrics, and for randrw each direction's apart (read_iops ... write_lat_max, as fio's read and
// write sections), the job's or one target's: `t` its totals, `all`, `read` and `write` its interval series.
void add_io_metrics(Result& r, const IoTotals& t, double seconds, const JobSpec& s, const IntervalSeries& all,
                    const IntervalSeries& read, const IntervalSeries& write, bool headline_iops) {
  add_direction(r, "", t.ios, t.lat, seconds, s, all, headline_iops);
  if (mixed(s.rw)) {
    add_direction(r, "read_", t.reads, t.read_lat, seconds, s, read, headline_iops);
    add_direction(r, "write_", t.writes, t.write_lat, seconds, s, write, headline_iops);
  }
  r.work = Json{
      {"ios", t.ios}, {"bytes", t.bytes}, {"reads", t.reads}, {"writes", t.writes}, {"seconds", seconds}};
  // Each direction's latencies as fio's JSON has them (IoTotals says when an I/O has a slat), and fio's
  // latency distribution, of the completion latencies as fio's.
  Json directions = Json::object();
  LatencyHistogram clat;
  for (auto [name, n, slat, c, total] :
       {std::tuple{"read", t.reads, &t.read_slat, &t.read_clat, &t.read_lat},
        std::tuple{"write", t.writes, &t.write_slat, &t.write_clat, &t.write_lat}}) {
    if (n == 0) continue;
    directions[name] = {{"slat_ns", fio_latency(*slat, false)},
                        {"clat_ns", fio_latency(*c, true)},
                        {"lat_ns", fio_latency(*total, false)}};
    clat.merge(*c);
  }
  r.info["io_latency"] = directions;
  r.info["latency_distribution"] = fio_latency_distribution(clat);
}

namespace {

// A count-bound job's time to finish as it would have been at each interval's rate: value × mean rate / the
// interval's (intervals without a completion left out).
std::optional<Stats> time_stats(double value, const std::vector<double>& interval_iops) {
  std::vector<double> rates;
  for (double x : interval_iops)
    if (x > 0) rates.push_back(x);
  if (rates.size() < 2) return std::nullopt;
  double mean = 0;
  for (double x : rates) mean += x;
  mean /= static_cast<double>(rates.size());
  std::vector<double> times;
  for (double x : rates) times.push_back(value * mean / x);
  return compute_stats(times);
}

}  // namespace

bool round_estimates(const Metric& m, const IoTotals& round) {
  if (m.name.ends_with("lat_max")) return false;
  for (const auto& [name, q] : kLatencyPercentiles) {
    if (!m.name.ends_with(name)) continue;
    const std::uint64_t n = m.name.starts_with("read_")    ? round.reads
                            : m.name.starts_with("write_") ? round.writes
                                                           : round.ios;
    // (1 − q) is inexact in binary (100,000 × (1 − 0.9999) < 10): a relative tolerance.
    return static_cast<double>(n) * (1.0 - q) >= static_cast<double>(kRoundTail) * (1 - 1e-9);
  }
  return true;
}

// The job's metrics from its outcome (every I/O's, CPU per I/O, the share of the link when `link` > 0, the
// times of a count-bound job). Each figure's ci is that of the statistic it is: a mean over the intervals
// (CPU per I/O), or a fixed multiple of the I/O rate (share of the link) or its inverse (a count-bound job's
// time), whose relative error is the rate's to first order.
void add_job_metrics(Result& r, const JobOutcome& out, const JobSpec& s, double link, bool headline_iops) {
  add_io_metrics(r, out.total, out.last_done_s, s, out.intervals, out.read_intervals, out.write_intervals,
                 headline_iops);
  const double rate_error = mean_relative_error(interval_stats(out.intervals.iops));
  Metric& cpu =
      r.add_metric("cpu_per_io", out.cpu_s / static_cast<double>(out.total.ios), "s", Better::lower);
  cpu.stats = interval_stats(out.interval_cpu_per_io);
  cpu.ci = relative_ci(cpu.value, mean_relative_error(cpu.stats));
  // fio's usr_cpu and sys_cpu: % of one CPU per job thread (JobOutcome says how).
  const double thread_s = out.cpu_wall_s * static_cast<double>(std::max(1u, out.threads));
  for (auto [name, seconds, intervals] : {std::tuple{"usr_cpu", out.usr_s, &out.interval_usr_cpu},
                                          std::tuple{"sys_cpu", out.sys_s, &out.interval_sys_cpu}}) {
    Metric& m = r.add_metric(name, thread_s > 0 ? 100.0 * seconds / thread_s : 0.0, "%", Better::lower);
    m.stats = interval_stats(*intervals);
    m.ci = relative_ci(m.value, mean_relative_error(m.stats));
  }
  if (link > 0) {
    Metric& pct = r.add_metric("pct_of_link",
                               100.0 * static_cast<double>(out.total.bytes) / out.last_done_s / link, "%");
    pct.stats = interval_stats(out.intervals.iops, 100.0 * static_cast<double>(s.bs) / link);
    pct.ci = relative_ci(pct.value, rate_error);
  }
  if (s.runtime_s <= 0) {
    for (auto [name, seconds] : {std::pair{"first_done", out.first_done_s}, {"last_done", out.last_done_s}}) {
      Metric& d = r.add_metric(name, seconds, "s", Better::lower);
      d.stats = time_stats(seconds, out.intervals.iops);
      d.ci = relative_ci(seconds, rate_error);
    }
  }
}

}  // namespace mlbench::storage
