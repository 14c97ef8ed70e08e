#include "reports/compare.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "base/error.hpp"
#include "tests/reports/report_fixtures.hpp"

namespace mlbench {
namespace {

using test::make_report;
using test::make_result;

const MetricChange& only_change(const Comparison& c) {
  EXPECT_EQ(c.changes.size(), 1u);
  return c.changes.front();
}

bool has_note(const Comparison& c, const std::string& text) {
  return std::any_of(c.notes.begin(), c.notes.end(),
                     [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

// A result whose one metric is known to ±`spread` (relative standard uncertainty, through its ci).
Result known_to(Result r, double spread) {
  Metric& m = r.metrics.at(0);
  m.stats.reset();
  if (spread > 0) m.ci = symmetric_ci(m.value, spread * std::fabs(m.value));
  return r;
}

Comparison compare_one(double base, double other, double s_base, double s_other,
                       Better better = Better::higher, double threshold = 0.05) {
  auto result = [&](double value, double spread) {
    return known_to(make_result("gpu.hbm", {{"kernel", "triad"}}, "bandwidth", value, "B/s", 0, better),
                    spread);
  };
  return compare_reports(make_report("a.json", "h", {result(base, s_base)}),
                         make_report("b.json", "h", {result(other, s_other)}),
                         test::own_spread_only(threshold));
}

// One metric: z = 1.96 on ln(other/base). sqrt(0.03² + 0.04²) = 0.05 → the log band 0.098, which allows a
// fall of 1 − e^−0.098 = 9.3 % (and a rise of e^0.098 − 1 = 10.3 %).
TEST(Compare, NoiseBandIsTheLogBandInTheChangesDirection) {
  auto c = compare_one(100, 92, 0.03, 0.04);
  EXPECT_NEAR(only_change(c).combined_cv, 0.05, 1e-12);
  EXPECT_NEAR(c.z, kConfidenceZ, 1e-12);
  EXPECT_NEAR(only_change(c).noise_band, -std::expm1(-kConfidenceZ * 0.05), 1e-12);
  EXPECT_NEAR(only_change(c).change, -0.08, 1e-12);
  EXPECT_EQ(only_change(c).verdict, Verdict::noise);
  EXPECT_FALSE(c.has_regression());
  EXPECT_EQ(only_change(compare_one(100, 90, 0.03, 0.04)).verdict, Verdict::regression);  // ln 0.9 = −0.105
  EXPECT_NEAR(only_change(compare_one(100, 109, 0.03, 0.04)).noise_band, std::expm1(kConfidenceZ * 0.05),
              1e-12);
  EXPECT_EQ(only_change(compare_one(100, 109, 0.03, 0.04)).verdict, Verdict::noise);
  EXPECT_EQ(only_change(compare_one(100, 111, 0.03, 0.04)).verdict, Verdict::improvement);
}

// On the log scale A → B and B → A are judged alike: a latency 1 → 12 ms (+1,100 %) and 12 → 1 ms (−92 %),
// each known to ±60 % (95 %), are both beyond noise, or both inside it, never one of each.
TEST(Compare, TheVerdictIsTheSameBothWays) {
  for (double spread : {0.3, 0.6, 0.7, 1.0, 1.4}) {
    auto up = only_change(compare_one(1e-3, 12e-3, spread, spread, Better::lower));
    auto down = only_change(compare_one(12e-3, 1e-3, spread, spread, Better::lower));
    EXPECT_EQ(up.verdict == Verdict::noise, down.verdict == Verdict::noise) << spread;
  }
  // ln 12 = 2.48: inside 1.96 × sqrt(2) × 1.0 = 2.77, beyond 1.96 × sqrt(2) × 0.7 = 1.94.
  EXPECT_EQ(only_change(compare_one(1e-3, 12e-3, 1.0, 1.0, Better::lower)).verdict, Verdict::noise);
  EXPECT_EQ(only_change(compare_one(12e-3, 1e-3, 1.0, 1.0, Better::lower)).verdict, Verdict::noise);
  EXPECT_EQ(only_change(compare_one(1e-3, 12e-3, 0.7, 0.7, Better::lower)).verdict, Verdict::regression);
  EXPECT_EQ(only_change(compare_one(12e-3, 1e-3, 0.7, 0.7, Better::lower)).verdict, Verdict::improvement);
}

// 83 metrics judged at once (a quick run's count) use Šidák's z = 3.42 each, so that two runs of an unchanged
// machine, whose metrics scatter as their spreads say, show no change in 95 % of comparisons: a 2.5σ move of
// one metric among 83 is what chance gives, a 5σ move is not.
TEST(Compare, ManyMetricsAreJudgedTogetherAtTheFamilysZ) {
  auto reports = [](double moved) {
    std::vector<Result> a, b;
    for (int i = 0; i < 83; ++i) {
      a.push_back(known_to(make_result("storage.io", {{"job", i}}, "iops", 1000, "1/s"), 0.02));
      b.push_back(
          known_to(make_result("storage.io", {{"job", i}}, "iops", i == 0 ? moved : 1000, "1/s"), 0.02));
    }
    return compare_reports(make_report("a.json", "h", a), make_report("b.json", "h", b),
                           test::own_spread_only());
  };
  const double sigma = std::hypot(0.02, 0.02);
  const auto chance = reports(1000 * std::exp(-2.5 * sigma));
  EXPECT_EQ(chance.family, 83u);
  EXPECT_NEAR(chance.z, family_z95(83), 1e-12);
  EXPECT_EQ(chance.count(Verdict::regression), 0u);
  EXPECT_NE(chance.notes.front().find("83 metrics together"), std::string::npos);
  EXPECT_EQ(reports(1000 * std::exp(-5 * sigma)).count(Verdict::regression), 1u);
  // Judged alone, the same 2.5σ move is beyond 1.96σ.
  EXPECT_EQ(only_change(compare_one(1000, 1000 * std::exp(-2.5 * sigma), 0.02, 0.02)).verdict,
            Verdict::regression);
}

TEST(Compare, ThresholdIsTheFloorOfTheBand) {
  EXPECT_NEAR(only_change(compare_one(100, 96, 0, 0)).noise_band, 0.05, 1e-12);
  EXPECT_EQ(only_change(compare_one(100, 96, 0, 0)).verdict, Verdict::noise);
  EXPECT_EQ(only_change(compare_one(100, 94, 0, 0)).verdict, Verdict::regression);
  EXPECT_EQ(only_change(compare_one(100, 106, 0, 0)).verdict, Verdict::improvement);
  EXPECT_EQ(only_change(compare_one(100, 94, 0, 0, Better::higher, 0.10)).verdict, Verdict::noise);
  EXPECT_TRUE(compare_one(100, 94, 0, 0).has_regression());
}

TEST(Compare, LowerIsBetterFlipsTheSign) {
  auto worse = compare_one(100e-6, 120e-6, 0, 0, Better::lower);
  EXPECT_NEAR(only_change(worse).change, 0.2, 1e-12);
  EXPECT_NEAR(only_change(worse).gain, -0.2, 1e-12);
  EXPECT_EQ(only_change(worse).verdict, Verdict::regression);
  EXPECT_EQ(only_change(compare_one(100e-6, 80e-6, 0, 0, Better::lower)).verdict, Verdict::improvement);
}

// docs/reports.md: the change is signed so that positive is better. A latency that fell 20 % shows +20.0 % in
// the table and +20 in the CSV, a bandwidth that fell 20 % shows -20.0 %.
TEST(Compare, ChangeColumnIsPositiveWhenBetter) {
  auto column = [](const Table& t, const std::string& name) {
    auto it = std::find(t.columns.begin(), t.columns.end(), name);
    EXPECT_NE(it, t.columns.end()) << name;
    return static_cast<std::size_t>(it - t.columns.begin());
  };
  auto faster = compare_one(100e-6, 80e-6, 0, 0, Better::lower);
  const Table table = comparison_tables(faster).at(0);
  EXPECT_EQ(table.rows.at(0)[column(table, "change")].text, "+20.0 %");
  const Table data = comparison_data(faster);
  EXPECT_NEAR(std::stod(data.rows.at(0)[column(data, "change_pct")].text), 20, 1e-9);
  auto slower = compare_one(100, 80, 0, 0);
  EXPECT_EQ(comparison_tables(slower).at(0).rows.at(0)[column(table, "change")].text, "-20.0 %");
  EXPECT_NEAR(std::stod(comparison_data(slower).rows.at(0)[column(data, "change_pct")].text), -20, 1e-9);
}

// A value with no samples of its own (a tail latency percentile) brings its confidence interval: p99.99 of
// two runs 30 % apart, each known only to ±40 % (95 %), is noise, not a regression.
TEST(Compare, ConfidenceIntervalIsASpreadToo) {
  auto run = [](const std::string& file, double p9999) {
    auto r = make_result("storage.io", {{"rw", "randread"}}, "lat_p9999", p9999, "s", 0, Better::lower);
    r.metrics[0].stats.reset();
    r.metrics[0].ci = ConfidenceInterval{p9999 * 0.6, p9999 * 1.4};
    return make_report(file, "h", {r});
  };
  const auto comparison =
      compare_reports(run("a.json", 1e-3), run("b.json", 1.3e-3), test::own_spread_only());
  const auto& c = only_change(comparison);
  EXPECT_NEAR(c.combined_cv, std::hypot(0.4, 0.4) / kConfidenceZ, 1e-9);
  EXPECT_EQ(c.verdict, Verdict::noise);
}

// The spread of the statistic, not of the samples: a bandwidth that is the median of 25 samples with a CV of
// 50 % (one slow sample in a few) but a MAD of 2 % is known to 1.2533 × 1.4826 × 2 % / 5 = 0.74 %, so a 10 %
// drop is a regression; judged by the samples' CV (band ±141 %) it would have been noise.
TEST(Compare, SamplesGiveTheStandardErrorOfTheirMedianNotTheirSpread) {
  auto run = [](const std::string& file, double value) {
    auto r = make_result("host.membw", {{"kernel", "triad"}}, "bandwidth", value, "B/s", 0.5);
    r.metrics[0].stats->mad = 0.02 * value;
    r.metrics[0].stats->n = 25;
    return make_report(file, "h", {r});
  };
  const auto comparison = compare_reports(run("a.json", 100e9), run("b.json", 90e9), test::own_spread_only());
  const auto& c = only_change(comparison);
  EXPECT_NEAR(c.spread_base, kMedianEfficiency * kMadToSigma * 0.02 / 5, 1e-12);
  EXPECT_NEAR(c.spread_other, c.spread_base, 1e-12);
  EXPECT_NEAR(c.noise_band, 0.05, 1e-12);  // 2 × 1.05 % is under the threshold, the floor
  EXPECT_EQ(c.verdict, Verdict::regression);
}

// Runs of one machine differ by more than one run's samples show (a VM's disk stalls come and go): with more
// runs of the base's machine, the spread of the value across them (× t(0.975, k − 1) / 1.96 for k runs) is
// the spread of every report of that machine, when larger than its own; another machine's report keeps its
// own.
TEST(Compare, RepeatedBaseRunsGiveTheBetweenRunSpread) {
  auto run = [](const std::string& file, const std::string& host, double iops) {
    return make_report(
        file, host,
        {known_to(make_result("storage.io", {{"job", "4k-randread-qd32"}}, "iops", iops, "1/s"), 0.01)});
  };
  const std::vector<NamedReport> runs{run("r1.json", "vm", 100e3), run("r2.json", "vm", 80e3),
                                      run("r3.json", "vm", 120e3)};
  const BetweenRuns between(runs);
  // The sample SD of ln(iops) over the 3 runs, 2 dof.
  const double l1 = std::log(100e3), l2 = std::log(80e3), l3 = std::log(120e3), mean = (l1 + l2 + l3) / 3;
  const double log_sd =
      std::sqrt(((l1 - mean) * (l1 - mean) + (l2 - mean) * (l2 - mean) + (l3 - mean) * (l3 - mean)) / 2);
  const double expected = log_sd * student_t95(2) / kConfidenceZ;
  EXPECT_NEAR(between.spread("vm", runs[0].report.results[0], "iops"), expected, 1e-12);
  EXPECT_EQ(between.spread("other", runs[0].report.results[0], "iops"), 0);
  EXPECT_EQ(between.spread("vm", runs[0].report.results[0], "bandwidth"), 0);
  ASSERT_EQ(between.hosts().size(), 1u);
  EXPECT_EQ(between.hosts()[0], "vm (3 runs)");

  const NamedReport later = run("r4.json", "vm", 60e3);  // 40 % below the base
  EXPECT_EQ(only_change(compare_reports(runs[0], later, test::own_spread_only())).verdict,
            Verdict::regression);
  const auto with_runs = compare_reports(runs[0], later, test::own_spread_only(0.05, &between));
  const auto& c = only_change(with_runs);
  EXPECT_NEAR(c.spread_base, expected, 1e-12);
  EXPECT_NEAR(c.spread_other, expected, 1e-12);
  EXPECT_NEAR(c.noise_band, -std::expm1(-kConfidenceZ * std::hypot(expected, expected)), 1e-12);
  EXPECT_EQ(c.verdict, Verdict::noise);
  ASSERT_FALSE(with_runs.notes.empty());
  EXPECT_NE(with_runs.notes.back().find("vm (3 runs)"), std::string::npos);
  // The report judged never widens its own band: given as one of the runs too, it is left out of them.
  std::vector<NamedReport> with_later = runs;
  with_later.push_back(later);
  const BetweenRuns including(with_later);
  EXPECT_NEAR(
      only_change(compare_reports(runs[0], later, test::own_spread_only(0.05, &including))).spread_other,
      expected, 1e-12);
  // A report of another machine is judged with its own spread: the between-run spread is the base machine's.
  const auto elsewhere =
      compare_reports(runs[0], run("n1.json", "node1", 60e3), test::own_spread_only(0.05, &between));
  EXPECT_NEAR(only_change(elsewhere).spread_other, 0.01, 1e-12);
  // One run is no spread between runs.
  const BetweenRuns single(std::vector<NamedReport>{runs[0]});
  EXPECT_EQ(single.spread("vm", runs[0].report.results[0], "iops"), 0);
  EXPECT_TRUE(single.hosts().empty());
}

TEST(Compare, ZeroOrMissingBaseIsNotComparable) {
  auto c = compare_one(0, 5, 0, 0);
  EXPECT_EQ(only_change(c).verdict, Verdict::not_comparable);
  EXPECT_TRUE(std::isnan(only_change(c).change));
  EXPECT_EQ(only_change(compare_one(std::nan(""), 5, 0, 0)).verdict, Verdict::not_comparable);
}

TEST(Compare, IncorrectResultsAreNeverComparedAndOkToIncorrectIsARegression) {
  auto ok = make_result("gpu.gemm", {{"precision", "fp8"}}, "tflops", 1.4e15, "FLOP/s");
  auto wrong = ok;
  wrong.status = Status::incorrect;
  wrong.reason = "12 elements wrong";
  wrong.metrics.front().value = 9.9e15;  // a fast wrong answer must not show up as an improvement
  auto c = compare_reports(make_report("a.json", "h", {ok}), make_report("b.json", "h", {wrong}),
                           test::own_spread_only());
  EXPECT_TRUE(c.changes.empty());
  ASSERT_EQ(c.status_changes.size(), 1u);
  EXPECT_EQ(c.status_changes[0].other, Status::incorrect);
  EXPECT_EQ(c.status_changes[0].reason, "12 elements wrong");
  EXPECT_TRUE(c.status_changes[0].regression);
  EXPECT_TRUE(c.has_regression());

  auto other_ok = make_result("gpu.gemm", {{"precision", "bf16"}}, "tflops", 0.9e15, "FLOP/s");
  auto both = compare_reports(make_report("a.json", "h", {other_ok, wrong}),
                              make_report("b.json", "h", {other_ok, wrong}), test::own_spread_only());
  EXPECT_EQ(both.changes.size(), 1u);
  EXPECT_TRUE(both.status_changes.empty());
  EXPECT_TRUE(has_note(both, "not compared"));
}

TEST(Compare, SkippedIsAStatusChangeButNotARegression) {
  auto ok = make_result("storage.io", {{"rw", "read"}}, "iops", 1e5, "1/s");
  auto skipped = ok;
  skipped.status = Status::skipped;
  skipped.reason = "no io_uring";
  auto c = compare_reports(make_report("a.json", "h", {ok}), make_report("b.json", "h", {skipped}), {});
  ASSERT_EQ(c.status_changes.size(), 1u);
  EXPECT_FALSE(c.status_changes[0].regression);
  EXPECT_FALSE(c.has_regression());
}

// A job stopped by Ctrl-C measured a shorter window than asked: its figures are never compared with a whole
// one's, however they differ (a status change, not a regression or an improvement), nor with another
// interrupted one's.
TEST(Compare, AnInterruptedResultIsNotComparedWithAnything) {
  auto ok = make_result("storage.io", {{"rw", "randread"}}, "iops", 1e5, "1/s");
  auto cut = ok;
  cut.status = Status::interrupted;
  cut.reason = "interrupted after 1.00 s of measurement of the 60 s asked";
  cut.metrics.front().value = 1e3;  // a hundred times slower: still not a regression to report
  auto c = compare_reports(make_report("a.json", "h", {ok}), make_report("b.json", "h", {cut}), {});
  EXPECT_TRUE(c.changes.empty());
  ASSERT_EQ(c.status_changes.size(), 1u);
  EXPECT_EQ(c.status_changes[0].other, Status::interrupted);
  EXPECT_FALSE(c.status_changes[0].regression);
  EXPECT_FALSE(c.has_regression());
  auto other_ok = make_result("storage.io", {{"rw", "read"}}, "iops", 1e5, "1/s");
  auto both = compare_reports(make_report("a.json", "h", {other_ok, cut}),
                              make_report("b.json", "h", {other_ok, cut}), test::own_spread_only());
  EXPECT_EQ(both.changes.size(), 1u) << "only the whole results";
  EXPECT_TRUE(both.status_changes.empty());
}

TEST(Compare, JoinsOnProbeAndParamsAndListsOneSidedResults) {
  auto a =
      make_report("a.json", "h",
                  {make_result("gpu.hbm", {{"kernel", "copy"}, {"device", 0}}, "bandwidth", 3e12, "B/s"),
                   make_result("gpu.hbm", {{"kernel", "copy"}, {"device", 1}}, "bandwidth", 3e12, "B/s")});
  auto b =
      make_report("b.json", "h",
                  {make_result("gpu.hbm", {{"device", 0}, {"kernel", "copy"}}, "bandwidth", 2e12, "B/s"),
                   make_result("gpu.hbm", {{"kernel", "copy"}, {"device", 2}}, "bandwidth", 3e12, "B/s")});
  auto c = compare_reports(a, b, test::own_spread_only());
  ASSERT_EQ(c.changes.size(), 1u);
  EXPECT_EQ(c.changes[0].params["device"], 0);
  EXPECT_EQ(c.changes[0].verdict, Verdict::regression);
  ASSERT_EQ(c.only_in_base.size(), 1u);
  EXPECT_EQ(c.only_in_base[0].params["device"], 1);
  ASSERT_EQ(c.only_in_other.size(), 1u);
  EXPECT_EQ(c.only_in_other[0].params["device"], 2);
}

TEST(Compare, NoResultsInCommonNamesTheFile) {
  auto a =
      make_report("base.json", "h", {make_result("gpu.hbm", {{"kernel", "copy"}}, "bandwidth", 3e12, "B/s")});
  auto b = make_report("other.json", "h",
                       {make_result("gpu.hbm", {{"kernel", "triad"}}, "bandwidth", 3e12, "B/s")});
  try {
    compare_reports(a, b, {});
    FAIL() << "expected a UsageError";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("other.json: no results in common", 0), 0u) << e.what();
  }
}

// Results in common that neither report measured (skipped in both, as the GPU probes of two runs on a host
// without a GPU) leave nothing to compare: that is "no results in common", not an empty table and exit 0.
TEST(Compare, ResultsMeasuredInNeitherReportAreNoResultsInCommon) {
  auto skipped = make_result("gpu.gemm", Json::object(), "tflops", 0, "FLOP/s");
  skipped.status = Status::skipped;
  skipped.reason = "no GPU";
  skipped.metrics.clear();
  auto no_shared_metric = make_result("storage.io", {{"rw", "read"}}, "iops", 1e5, "1/s");
  auto other_metric = make_result("storage.io", {{"rw", "read"}}, "bandwidth", 4e8, "B/s");
  try {
    compare_reports(make_report("base.json", "h", {skipped, no_shared_metric}),
                    make_report("other.json", "h", {skipped, other_metric}), {});
    FAIL() << "expected a UsageError";
  } catch (const UsageError& e) {
    EXPECT_EQ(
        std::string(e.what()).rfind("other.json: no results in common with base.json that both measured "
                                    "(2 in common: 1 not ok in both, 1 with no metric in common)",
                                    0),
        0u)
        << e.what();
  }
}

TEST(Compare, DifferentToolVersionsCompareWithANote) {
  auto r = make_result("gpu.hbm", {{"kernel", "copy"}}, "bandwidth", 3e12, "B/s");
  auto c = compare_reports(make_report("a.json", "h", {r}, "0.1.0"), make_report("b.json", "h", {r}, "0.2.0"),
                           test::own_spread_only());
  EXPECT_TRUE(has_note(c, "0.1.0 vs 0.2.0"));
  EXPECT_EQ(c.changes.size(), 1u);
}

TEST(Compare, TwoRunsOfOneMachine) {
  auto reports =
      load_reports({test::reports_data("run_a.json").string(), test::reports_data("run_b.json").string()});
  auto c = compare_reports(reports[0], reports[1], test::own_spread_only());
  std::size_t regressions = 0;
  for (const auto& m : c.changes) {
    if (m.verdict == Verdict::regression) {
      ++regressions;
      EXPECT_EQ(m.probe, "gpu.hbm");
      EXPECT_EQ(m.params["kernel"], "triad");
      EXPECT_EQ(m.params["device"], 1);
    }
    if (m.verdict == Verdict::improvement) {
      EXPECT_EQ(m.probe, "storage.io");
      EXPECT_EQ(m.params["rw"], "read");
    }
  }
  EXPECT_EQ(regressions, 2u);                    // bandwidth and pct_of_peak
  EXPECT_GE(c.count(Verdict::improvement), 2u);  // sequential read: iops and bandwidth, +12 %
  EXPECT_EQ(c.count(Verdict::not_comparable), 0u);
  EXPECT_GT(c.count(Verdict::noise), c.changes.size() * 9 / 10);  // run-to-run jitter of 0.4 % is noise
  EXPECT_EQ(c.status_changes.size(), 2u);  // randwrite ok → failed, fp8 4096 on gpu1 ok → incorrect
  EXPECT_EQ(c.only_in_base.size(), 1u);
  EXPECT_EQ(c.only_in_other.size(), 1u);
  EXPECT_TRUE(c.has_regression());
  // With the project's stated spreads (one run each): the GPU and network metrics, which it never measured
  // across runs, are not judged; the status changes still regress.
  auto stated = compare_reports(reports[0], reports[1], {});
  for (const auto& m : stated.changes) {
    if (m.probe.starts_with("gpu.") || m.probe == "net.nccl") {
      EXPECT_EQ(m.verdict, Verdict::not_judged) << m.probe;
    }
  }
  EXPECT_EQ(stated.count(Verdict::regression), 0u);
  EXPECT_TRUE(stated.has_regression());
}

// The band the project's stated between-run spread gives one metric of `probe` judged with `others` more
// metrics (Šidák's z for the family), on ln(other/base): z × sqrt(2) × the expanded spread, both reports
// being one run each.
double stated_band(const std::string& probe, const std::string& metric, std::size_t family) {
  const StatedSpread* row = stated_spread(kStatedSpreads, probe, metric);
  EXPECT_NE(row, nullptr) << probe << " " << metric;
  return row == nullptr ? 0 : family_z95(family) * std::sqrt(2.0) * between_run_spread(row->sd, row->runs);
}

// One storage.io result of job `job` with its bandwidth and p50 latency, each known within the run to ±1 %
// (its own interval: the run's samples see one state of the machine).
Result storage_job(const std::string& job, double bandwidth, double p50) {
  Result r = known_to(make_result("storage.io", {{"job", job}}, "bandwidth", bandwidth, "B/s"), 0.01);
  Metric& lat = r.add_metric("lat_p50", p50, "s", Better::lower);
  lat.ci = symmetric_ci(p50, 0.01 * p50);
  return r;
}

// Two back-to-back runs of an unchanged machine differ by more than either run's samples show; one run each
// (no --base-runs), the band is the between-run spread the project measured and states for the probe and
// class of metric (reports/stated_spread.hpp): a difference inside it is noise however narrow each run's own
// interval is (judged by those alone, a 1m write at 13 → 8.25 GB/s "regressed"), one well beyond it is a
// regression.
TEST(Compare, OneRunEachIsJudgedAgainstTheStatedBetweenRunSpread) {
  const double bw_band = stated_band("storage.io", "bandwidth", 2);
  const double lat_band = stated_band("storage.io", "lat_p50", 2);
  ASSERT_GT(bw_band, 0);
  ASSERT_GT(lat_band, 0);
  auto compare = [](double bw_factor, double lat_factor) {
    return compare_reports(
        make_report("a.json", "vm", {storage_job("1m-write-qd8", 13e9, 1e-3)}),
        make_report("b.json", "vm", {storage_job("1m-write-qd8", 13e9 * bw_factor, 1e-3 * lat_factor)}), {});
  };
  // Within the band: noise, exit 0, and each change says whose spread it used.
  const auto same = compare(std::exp(-0.8 * bw_band), std::exp(0.8 * lat_band));
  EXPECT_EQ(same.count(Verdict::noise), 2u);
  EXPECT_FALSE(same.has_regression());
  for (const auto& c : same.changes) {
    EXPECT_EQ(c.between_source, SpreadSource::stated) << c.metric;
    EXPECT_GT(c.spread_base, 0.01) << c.metric;
    EXPECT_NEAR(c.spread_base, c.spread_other, 1e-12) << c.metric;
  }
  EXPECT_EQ(same.changes[0].between_class, "rates");
  EXPECT_EQ(same.changes[1].between_class, "latency");
  EXPECT_TRUE(has_note(same, std::string(kStatedSpreadSource)));
  // Well beyond it: both regress.
  const auto worse = compare(std::exp(-1.5 * bw_band), std::exp(1.5 * lat_band));
  EXPECT_EQ(worse.count(Verdict::regression), 2u);
  EXPECT_TRUE(worse.has_regression());
}

// Every stated class, one run each among a quick run's ~80 metrics: a change well beyond its band (an
// injected one: a throttled disk, a co-runner taking memory bandwidth) is a regression, in either direction
// that is worse; one inside it is noise.
TEST(Compare, EveryStatedClassCatchesAChangeBeyondItsBand) {
  constexpr std::size_t kFamily = 80;
  for (const StatedSpread& row : kStatedSpreads) {
    for (std::string_view name : row.metrics) {
      SCOPED_TRACE(::testing::Message() << row.probe << " " << name);
      const bool latency = name.starts_with("lat_");
      const Better better = latency ? Better::lower : Better::higher;
      const double band = stated_band(std::string(row.probe), std::string(name), kFamily);
      auto family = [&](double factor) {
        std::vector<Result> a, b;
        for (std::size_t i = 0; i < kFamily; ++i) {
          const double moved = i == 0 ? factor : 1.0;
          a.push_back(known_to(
              make_result(std::string(row.probe), {{"i", i}}, std::string(name), 100, "x", 0, better),
              0.005));
          b.push_back(known_to(
              make_result(std::string(row.probe), {{"i", i}}, std::string(name), 100 * moved, "x", 0, better),
              0.005));
        }
        return compare_reports(make_report("a.json", "vm", a), make_report("b.json", "vm", b), {});
      };
      const double worse = latency ? std::exp(1.5 * band) : std::exp(-1.5 * band);
      EXPECT_EQ(family(worse).count(Verdict::regression), 1u);
      EXPECT_EQ(family(latency ? std::exp(0.8 * band) : std::exp(-0.8 * band)).count(Verdict::regression),
                0u);
    }
  }
}

// A probe the project never ran twice (no stated spread: a GPU's) compared one run each is not judged, even
// halved: "needs --base-runs", no regression, exit 0 for it, out of the family. With --base-runs it is judged
// against the machine's own spread.
TEST(Compare, AProbeWithoutAStatedSpreadNeedsBaseRuns) {
  auto run = [](const std::string& file, double tflops) {
    return make_report(
        file, "gpu-node",
        {known_to(make_result("gpu.gemm", {{"dtype", "bf16"}}, "tflops", tflops, "FLOP/s"), 0.01)});
  };
  const auto one_each = compare_reports(run("a.json", 800e12), run("b.json", 400e12), {});
  const auto& c = only_change(one_each);
  EXPECT_EQ(c.verdict, Verdict::not_judged);
  EXPECT_EQ(c.between_source, SpreadSource::none);
  EXPECT_EQ(c.reason.rfind("needs --base-runs", 0), 0u) << c.reason;
  EXPECT_TRUE(std::isnan(c.noise_band));
  EXPECT_FALSE(one_each.has_regression());
  EXPECT_EQ(one_each.family, 0u);
  EXPECT_TRUE(has_note(one_each, "give --base-runs"));
  const std::vector<NamedReport> runs{run("a.json", 800e12), run("r2.json", 790e12), run("r3.json", 805e12)};
  const BetweenRuns between(runs);
  const auto with_runs = compare_reports(runs[0], run("b.json", 400e12), CompareOptions{0.05, &between});
  EXPECT_EQ(only_change(with_runs).verdict, Verdict::regression);
  EXPECT_EQ(only_change(with_runs).between_source, SpreadSource::base_runs);
}

// A tail percentile whose interval is open (too few I/Os beyond it: p99.99 of 4,851 is the slowest I/O) is
// not judged, whatever its change, with the reason the report gives; it stays out of the family.
TEST(Compare, APercentileWithAnOpenIntervalIsNotJudged) {
  auto run = [](const std::string& file, double p9999, bool open) {
    Result r =
        make_result("storage.io", {{"job", "1m-write-qd8"}}, "lat_p9999", p9999, "s", 0, Better::lower);
    r.metrics[0].stats.reset();
    r.metrics[0].ci =
        ConfidenceInterval{0.9 * p9999, open ? std::numeric_limits<double>::infinity() : 1.1 * p9999};
    if (open) r.metrics[0].ci_open = "p99.99 of 4,851 I/Os: needs ≥ 36,887 I/Os";
    r.add_metric("bandwidth", 13e9, "B/s").ci = symmetric_ci(13e9, 0.01 * 13e9);
    return make_report(file, "vm", {r});
  };
  const auto c = compare_reports(run("a.json", 690e-6, false), run("b.json", 9.27e-3, true), {});
  ASSERT_EQ(c.changes.size(), 2u);
  EXPECT_EQ(c.changes[0].verdict, Verdict::not_judged);
  EXPECT_EQ(c.changes[0].reason, "p99.99 of 4,851 I/Os: needs ≥ 36,887 I/Os (other)");
  EXPECT_EQ(c.changes[1].verdict, Verdict::noise);
  EXPECT_EQ(c.family, 1u);
  EXPECT_FALSE(c.has_regression());
}

// The table, the CSV and the JSON carry the verdict and its reason.
TEST(Compare, NotJudgedIsInTheTableCsvAndJson) {
  auto run = [](const std::string& file, double tflops) {
    return make_report(file, "gpu-node",
                       {make_result("gpu.gemm", {{"dtype", "bf16"}}, "tflops", tflops, "FLOP/s")});
  };
  const auto c = compare_reports(run("a.json", 800e12), run("b.json", 400e12), {});
  const Table table = comparison_tables(c).at(0);
  EXPECT_EQ(table.rows.at(0).back().text.rfind("not judged: needs --base-runs", 0), 0u)
      << table.rows.at(0).back().text;
  const Table data = comparison_data(c);
  EXPECT_EQ(data.rows.at(0).back().text.rfind("not judged: needs --base-runs", 0), 0u);
  const Json j = comparison_to_json(c, {});
  EXPECT_EQ(j["changes"][0]["verdict"], "not judged");
  EXPECT_EQ(j["changes"][0]["reason"].get<std::string>().rfind("needs --base-runs", 0), 0u);
  EXPECT_EQ(j["changes"][0]["between_source"], "none");
  EXPECT_TRUE(j["changes"][0]["noise_band"].is_null());
  EXPECT_EQ(j["summary"]["not_judged"], 1);
  EXPECT_EQ(j["summary"]["regression"], false);
}

}  // namespace
}  // namespace mlbench
