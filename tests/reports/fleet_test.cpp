#include "reports/fleet.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <set>

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "base/error.hpp"
#include "report/report_burnin.hpp"
#include "tests/reports/report_fixtures.hpp"

namespace mlbench {
namespace {

using test::make_report;
using test::make_result;

// One report a host, each value known to ±1 % (its relative standard uncertainty, through its ci).
std::vector<NamedReport> population(const std::vector<double>& values, Better better = Better::higher) {
  std::vector<NamedReport> out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::string host = "node" + std::to_string(i);
    auto r = make_result("storage.io", {{"rw", "randread"}}, better == Better::higher ? "iops" : "lat_p99",
                         values[i], better == Better::higher ? "1/s" : "s", 0.01, better);
    r.metrics[0].ci = symmetric_ci(values[i], 0.01 * values[i]);
    out.push_back(make_report(host + ".json", host, {r}));
  }
  return out;
}

const FleetMember& member(const FleetAnalysis& f, const std::string& host) {
  for (const auto& m : f.groups.at(0).members) {
    if (m.host == host) return m;
  }
  throw std::runtime_error("no member " + host);
}

TEST(Fleet, RobustZUsesMadAndFallsBackToMeanAbsoluteDeviation) {
  EXPECT_DOUBLE_EQ(robust_z(10, 5, 2, 99), 0.6745 * 5 / 2);
  EXPECT_DOUBLE_EQ(robust_z(80, 100, 0, 4), -20 / (1.253314 * 4));
  EXPECT_EQ(robust_z(80, 100, 0, 0), 0);
}

TEST(Fleet, MadZeroStillFindsTheOddOneOut) {
  auto f = analyze_fleet(population({100, 100, 100, 100, 97, 100, 100, 100, 100, 100}), {});
  ASSERT_EQ(f.groups.size(), 1u);
  EXPECT_EQ(f.groups[0].mad, 0);
  EXPECT_EQ(f.groups[0].median, 100);
  const auto& odd = member(f, "node4");
  EXPECT_NEAR(odd.z, -3 / (1.253314 * 0.3), 1e-9);  // meanAD = 3/10
  EXPECT_TRUE(odd.outlier);
  EXPECT_TRUE(odd.worse);  // |z| > 3.5 below the median, although only 3 % below it
  EXPECT_EQ(f.outliers(), 1u);
}

TEST(Fleet, IdenticalMembersHaveNoOutliers) {
  auto f = analyze_fleet(population({7, 7, 7, 7}), {});
  EXPECT_EQ(f.outliers(), 0u);
  for (const auto& m : f.groups[0].members) EXPECT_EQ(m.z, 0);
}

TEST(Fleet, ThresholdIsDirectionAware) {
  // Wide spread: |z| stays below 3.5, so only the direction-aware threshold decides.
  auto f = analyze_fleet(population({1.0, 1.2, 0.8, 1.1, 0.9, 1.3, 0.7, 1.0, 1.2, 0.8}, Better::lower), {});
  EXPECT_NEAR(f.groups[0].mad, 0.2, 1e-12);
  const auto& slow = member(f, "node5");  // 1.3: 30 % above the median latency
  EXPECT_NEAR(slow.z, 0.6745 * 0.3 / 0.2, 1e-9);
  EXPECT_NEAR(slow.deviation, -0.3, 1e-12);
  EXPECT_TRUE(slow.outlier);
  EXPECT_TRUE(slow.worse);
  const auto& fast = member(f, "node6");  // 0.7: 30 % better
  EXPECT_FALSE(fast.outlier);
  EXPECT_TRUE(f.has_worse_outlier());
}

TEST(Fleet, ZScoreOutliersMustExceedTheirOwnMeasurementNoise) {
  // MAD 0.1 % of the median: a 0.8 % deviation is |z| ≈ 5.4, yet inside 2 × the 1 % uncertainty of the value.
  auto f = analyze_fleet(population({100, 100.1, 99.9, 100.1, 99.9, 100, 99.2, 100, 100.1, 99.9}), {});
  EXPECT_NEAR(member(f, "node6").spread, 0.01, 1e-12);
  EXPECT_GT(std::fabs(member(f, "node6").z), kOutlierZ);
  EXPECT_FALSE(member(f, "node6").outlier);
}

// The same model as compare: a host with several reports in the fleet is measured again and again, and the
// spread of its other runs (× t(0.975, k − 1) / 1.96; a run never widens its own band) is its members' noise
// when larger than their own. node9's other two runs (100.5, 99.5: 0.7 %, × 6.5 for 1 degree of freedom) make
// its 97 a run-to-run swing, which its within-run ±0.1 % alone would have flagged (|z| = 20).
TEST(Fleet, RepeatedRunsOfAHostGiveItsMembersTheBetweenRunSpread) {
  auto reports = population({100, 100.1, 99.9, 100.1, 99.9, 100, 100.1, 99.9, 100});
  for (double v : {97.0, 100.5, 99.5}) {
    reports.push_back(make_report(fmt::format("node9-{}.json", v), "node9",
                                  {make_result("storage.io", {{"rw", "randread"}}, "iops", v, "1/s")}));
  }
  for (auto& r : reports) {
    Metric& m = r.report.results[0].metrics[0];
    m.stats.reset();
    m.ci = symmetric_ci(m.value, 0.001 * m.value);
  }
  const auto f = analyze_fleet(reports, {});
  const std::vector<double> node9{97, 100.5, 99.5};
  for (const auto& m : f.groups.at(0).members) {
    SCOPED_TRACE(m.host);
    double expected = 0.001;
    if (m.host == "node9") {
      std::vector<double> others;
      std::copy_if(node9.begin(), node9.end(), std::back_inserter(others),
                   [&m](double v) { return v != m.value; });
      // The spread of ln(value) between runs (compare's scale; ≈ the relative SD for small spreads).
      expected = std::fabs(std::log(others[0]) - std::log(others[1])) / std::sqrt(2.0) * student_t95(1) /
                 kConfidenceZ;
    }
    EXPECT_NEAR(m.spread, expected, 1e-12);
    EXPECT_FALSE(m.outlier);
  }
  ASSERT_FALSE(f.notes.empty());
  EXPECT_NE(f.notes[0].find("node9 (3 runs)"), std::string::npos);
  // Without the repeated runs, the 97 of one run of node9 is an outlier beyond its own noise.
  reports.erase(reports.end() - 2, reports.end());
  EXPECT_TRUE(member(analyze_fleet(reports, {}), "node9").outlier);
}

// A metric that carries no spread has unknown noise, not none: a z-score outlier needs compare's floor, the
// threshold, instead of being flagged 2-3 % from a tight median.
TEST(Fleet, MetricsWithoutSpreadNeedTheThresholdForAZScoreOutlier) {
  auto reports = population({100, 100.5, 99.5, 100.2, 99.8, 100, 97.5, 100.3, 99.7, 100.1});
  for (auto& r : reports) {
    r.report.results[0].metrics[0].stats.reset();
    r.report.results[0].metrics[0].ci.reset();
  }
  auto f = analyze_fleet(reports, {});
  const auto& odd = member(f, "node6");
  EXPECT_GT(std::fabs(odd.z), kOutlierZ);
  EXPECT_EQ(odd.spread, 0);
  EXPECT_FALSE(odd.outlier);
  EXPECT_FALSE(f.has_worse_outlier());
  // Beyond the threshold it is one, with or without a spread.
  reports[6].report.results[0].metrics[0].value = 94;
  EXPECT_TRUE(member(analyze_fleet(reports, {}), "node6").worse);
  // A confidence interval is a spread too: ±0.5 % (1.96 sigma) makes 2.5 % a real deviation.
  reports[6].report.results[0].metrics[0].value = 97.5;
  for (auto& r : reports) {
    Metric& m = r.report.results[0].metrics[0];
    m.ci = ConfidenceInterval{m.value * 0.995, m.value * 1.005};
  }
  const auto fleet = analyze_fleet(reports, {});
  const auto& flagged = member(fleet, "node6");
  EXPECT_NEAR(flagged.spread, 0.005 / kConfidenceZ, 1e-9);
  EXPECT_TRUE(flagged.worse);
}

// The threshold is the floor of a member's band, as in compare, not a way around its noise: 8 % below the
// median is worse beyond the threshold, but not beyond a value known only to ±10 % (band ±20 %).
TEST(Fleet, WorseThanTheThresholdMustAlsoBeBeyondTheMembersNoise) {
  auto reports = population({100, 100.5, 99.5, 100.2, 99.8, 100, 92});
  EXPECT_TRUE(member(analyze_fleet(reports, {}), "node6").worse);  // ±1 %: band 2 %, under the threshold
  Metric& noisy = reports[6].report.results[0].metrics[0];
  noisy.ci = symmetric_ci(noisy.value, 0.10 * noisy.value);
  const auto f = analyze_fleet(reports, {});
  EXPECT_NEAR(member(f, "node6").deviation, -0.08, 1e-12);
  EXPECT_FALSE(member(f, "node6").outlier);
  EXPECT_FALSE(f.has_worse_outlier());
}

// The MAD of a few values is no scale: the middle of n absolute deviations, one of which is the median's own
// 0. Three runs of one machine with two alike put a 4 % lower one at |z| ≈ 13 from a MAD of 0.2 %. Below
// kMinRobustZValues values a member is judged as compare judges a change: beyond the threshold and beyond its
// own noise band, on either side; the population says so and how many reports it rests on.
TEST(Fleet, FewValuesAreJudgedOnTheirOwnSpreadAndTheThresholdNotTheMad) {
  auto f = analyze_fleet(population({100, 100.2, 96}), {});
  ASSERT_EQ(f.groups.size(), 1u);
  EXPECT_FALSE(f.groups[0].robust_z);
  EXPECT_EQ(f.groups[0].reports, 3u);
  EXPECT_GT(std::fabs(member(f, "node2").z), kOutlierZ);  // what the MAD would say
  EXPECT_FALSE(member(f, "node2").outlier);
  EXPECT_FALSE(f.fails());
  EXPECT_EQ(fleet_verdict(f),
            "fleet verdict: pass — no worse outlier; 3 reports, 1 population (1 of fewer than 10 values: "
            "judged on the members' own spread and the 5 % threshold)");
  const Json j = fleet_to_json(f, {});
  EXPECT_EQ(j["groups"][0]["reports"], 3);
  EXPECT_EQ(j["groups"][0]["test"], "spread");
  EXPECT_EQ(j["groups"][0]["members"][0]["z"], nullptr);
  const auto tables = fleet_tables(f);
  const Table& groups = tables.at(1);
  EXPECT_EQ(groups.columns, (std::vector<std::string>{"probe", "params", "metric", "n", "reports", "test",
                                                      "median", "MAD", "worse", "better"}));
  EXPECT_EQ(groups.rows[0][4].text, "3");
  EXPECT_EQ(groups.rows[0][5].text, "spread");
  EXPECT_EQ(groups.rows[0][7].text, "-");  // no MAD is used

  // Beyond the threshold and its noise: worse, or better.
  auto slow = analyze_fleet(population({100, 100.2, 92}), {});
  EXPECT_TRUE(member(slow, "node2").worse);
  EXPECT_EQ(fleet_verdict(slow),
            "fleet verdict: fail — 1 worse outlier; 3 reports, 1 population (1 of fewer "
            "than 10 values: judged on the members' own spread and the 5 % threshold)");
  EXPECT_EQ(fleet_tables(slow).at(0).rows.at(0).back().text, "-");  // no z
  EXPECT_EQ(fleet_data(slow).rows.at(0).back().text, "");
  auto fast = analyze_fleet(population({100, 100.2, 108}), {});
  EXPECT_TRUE(member(fast, "node2").outlier);
  EXPECT_FALSE(member(fast, "node2").worse);
  // ... and beyond its noise: 8 % below, known to ±10 %, is not shown to be worse.
  auto noisy = population({100, 100.2, 92});
  noisy[2].report.results[0].metrics[0].ci = symmetric_ci(92, 9.2);
  EXPECT_FALSE(member(analyze_fleet(noisy, {}), "node2").outlier);

  // From kMinRobustZValues values on, the robust z decides again (with the noise band).
  auto many = analyze_fleet(population({100, 100.2, 99.8, 100.1, 99.9, 100, 100.2, 99.8, 100.1, 96}), {});
  EXPECT_TRUE(many.groups[0].robust_z);
  EXPECT_TRUE(member(many, "node9").worse);
  EXPECT_EQ(fleet_verdict(many), "fleet verdict: fail — 1 worse outlier; 10 reports, 1 population");
}

TEST(Fleet, NeedsThreeReports) { EXPECT_THROW(analyze_fleet(population({1, 2}), {}), UsageError); }

// An outlier on the good side is listed as better and does not fail the fleet; a worse one does.
TEST(Fleet, OutliersSayWhetherTheyAreWorseOrBetter) {
  auto f = analyze_fleet(population({100, 100.5, 99.5, 100.2, 99.8, 100, 130}), {});
  const auto& fast = member(f, "node6");
  EXPECT_TRUE(fast.outlier);
  EXPECT_FALSE(fast.worse);
  EXPECT_FALSE(f.has_worse_outlier());
  auto tables = fleet_tables(f);
  const Table& outliers = tables.at(0);
  auto side = std::find(outliers.columns.begin(), outliers.columns.end(), "side");
  ASSERT_NE(side, outliers.columns.end());
  ASSERT_EQ(outliers.rows.size(), 1u);
  const Cell& cell = outliers.rows[0][static_cast<std::size_t>(side - outliers.columns.begin())];
  EXPECT_EQ(cell.text, "better");
  EXPECT_EQ(cell.tone, Tone::good);
  const Table& groups = tables.at(1);
  ASSERT_EQ(groups.rows.size(), 1u);
  EXPECT_EQ(groups.rows[0][8].text, "0");
  EXPECT_EQ(groups.rows[0][9].text, "1");

  auto slow = analyze_fleet(population({100, 100.5, 99.5, 100.2, 99.8, 100, 70}), {});
  EXPECT_TRUE(slow.has_worse_outlier());
  EXPECT_EQ(fleet_tables(slow).at(0).rows[0][static_cast<std::size_t>(side - outliers.columns.begin())].text,
            "worse");
}

// Unreadable reports were left out by the loader: each is named in a note, and they do not count towards the
// three a fleet needs.
TEST(Fleet, UnreadableReportsAreNamedAndDoNotCount) {
  const std::vector<UnreadableReport> unreadable = {
      {"bad.json", "bad.json: not valid JSON (line 1, column 2: ...)"}};
  auto f = analyze_fleet(population({5, 5, 5}), {}, unreadable);
  ASSERT_FALSE(f.notes.empty());
  EXPECT_EQ(f.notes[0], "left out, unreadable: bad.json: not valid JSON (line 1, column 2: ...)");
  try {
    analyze_fleet(population({5, 5}), {}, unreadable);
    FAIL() << "expected a UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("at least 3 readable reports (got 2; 1 unreadable: bad.json)"),
              std::string::npos)
        << e.what();
  }
}

TEST(Fleet, SmallPopulationsAreLeftOutWithANote) {
  auto reports = population({5, 5, 5});
  reports[0].report.results.push_back(make_result("gpu.hbm", {{"kernel", "copy"}}, "bandwidth", 3e12, "B/s"));
  auto f = analyze_fleet(reports, {});
  EXPECT_EQ(f.groups.size(), 1u);
  ASSERT_EQ(f.notes.size(), 1u);
  EXPECT_NE(f.notes[0].find("fewer than 3"), std::string::npos);
}

TEST(Fleet, GpusOfAllHostsFormOnePopulation) {
  std::vector<NamedReport> reports;
  for (int h = 0; h < 3; ++h) {
    std::vector<Result> results;
    for (int d = 0; d < 4; ++d) {
      double v = (h == 2 && d == 3) ? 600e12 : 760e12 + h * 1e12 + d * 0.5e12;
      results.push_back(
          make_result("gpu.gemm", {{"precision", "bf16"}, {"device", d}}, "tflops", v, "FLOP/s"));
    }
    reports.push_back(make_report("h" + std::to_string(h) + ".json", "h" + std::to_string(h), results));
  }
  auto f = analyze_fleet(reports, {});
  ASSERT_EQ(f.groups.size(), 1u);
  EXPECT_EQ(f.groups[0].members.size(), 12u);
  EXPECT_FALSE(f.groups[0].params.contains("device"));
  ASSERT_EQ(f.outliers(), 1u);
  const auto& bad = f.groups[0].members.front();  // sorted worst first
  EXPECT_EQ(bad.host, "h2");
  EXPECT_EQ(bad.device, "gpu3");
  EXPECT_TRUE(bad.worse);
}

// A burn-in's per-GPU result names its GPU by index and UUID: both are the device, so every GPU of one model
// across the fleet is one population.
TEST(Fleet, BurninGpusOfAllHostsFormOnePopulationDespiteTheirUuids) {
  std::vector<NamedReport> reports;
  for (int h = 0; h < 3; ++h) {
    std::vector<Result> results;
    for (int d = 0; d < 2; ++d) {
      results.push_back(make_result(
          "burnin.gpu",
          {{"device", d}, {"uuid", fmt::format("GPU-{}{}", h, d)}, {"name", "NVIDIA H100 80GB HBM3"}},
          "gemm:tflops", h == 1 && d == 1 ? 600e12 : 760e12, "FLOP/s"));
    }
    reports.push_back(make_report("h" + std::to_string(h) + ".json", "h" + std::to_string(h), results));
  }
  auto f = analyze_fleet(reports, {});
  ASSERT_EQ(f.groups.size(), 1u);
  EXPECT_EQ(f.groups[0].members.size(), 6u);
  EXPECT_EQ(f.groups[0].params, (Json{{"name", "NVIDIA H100 80GB HBM3"}}));
  EXPECT_EQ(f.groups[0].members.front().host, "h1");
  EXPECT_TRUE(f.groups[0].members.front().worse);
}

TEST(Fleet, FindsTheBadGpuInTheFixtureFleet) {
  auto reports = load_reports({test::reports_data("fleet").string()});
  ASSERT_EQ(reports.size(), 12u);
  auto f = analyze_fleet(reports, {});
  // Beyond the 5 % threshold: only node07's gpu1, in every GEMM and HBM population. Other worse-side outliers
  // may exist by the z-score alone, but only past their own measurement noise.
  std::set<std::pair<std::string, std::string>> beyond;
  std::set<std::string> probes;
  std::size_t node07_populations = 0;
  for (const auto& g : f.groups) {
    for (const auto& m : g.members) {
      if (m.worse && m.deviation < -0.05) {
        beyond.emplace(m.host, m.device);
        probes.insert(g.probe);
        ++node07_populations;
      } else if (m.outlier) {
        EXPECT_GT(std::fabs(m.z), kOutlierZ);
        EXPECT_GT(std::fabs(m.deviation), noise_band(m.spread, f.threshold));
      }
    }
  }
  EXPECT_EQ(beyond, (std::set<std::pair<std::string, std::string>>{{"node07", "gpu1"}}));
  EXPECT_EQ(probes, (std::set<std::string>{"gpu.gemm", "gpu.hbm"}));
  EXPECT_EQ(node07_populations, 2u * (10 + 3));  // tflops and pct_of_peak of 10 GEMMs and 3 HBM kernels
  const FleetMember* bad = nullptr;
  for (const auto& g : f.groups) {
    if (g.probe == "gpu.gemm" && g.metric == "tflops" && g.params["precision"] == "bf16" &&
        g.params["m"] == 8192) {
      bad = &g.members.front();
    }
  }
  ASSERT_NE(bad, nullptr);
  EXPECT_EQ(bad->host, "node07");
  EXPECT_NEAR(bad->deviation, -0.19, 0.02);
  EXPECT_EQ(bad->uuid.rfind("GPU-07", 0), 0u);
}

FleetOptions expecting(std::vector<std::string> hosts) { return FleetOptions{0.05, std::move(hosts)}; }

// A node that was started but wrote no report is named, and fails the fleet; the same fleet with every node
// present passes.
TEST(Fleet, AnExpectedHostWithoutAReportIsMissing) {
  auto f = analyze_fleet(population({5, 5, 5}), expecting({"node0", "node1", "node2", "node07"}));
  EXPECT_EQ(f.missing, (std::vector<std::string>{"node07"}));
  EXPECT_FALSE(f.has_worse_outlier());
  EXPECT_TRUE(f.fails());
  EXPECT_EQ(fleet_verdict(f),
            "fleet verdict: fail — missing: node07 (no report); 3 reports, 1 population (1 of fewer than 10 "
            "values: judged on the members' own spread and the 5 % threshold)");
  const auto tables = fleet_tables(f);
  ASSERT_EQ(tables.size(), 3u);  // the failing nodes, then the outliers and the populations as before
  EXPECT_EQ(tables[0].columns, (std::vector<std::string>{"host", "verdict", "why"}));
  ASSERT_EQ(tables[0].rows.size(), 1u);
  EXPECT_EQ(tables[0].rows[0][0].text, "node07");
  EXPECT_EQ(tables[0].rows[0][1].text, "missing");
  EXPECT_EQ(tables[0].rows[0][2].text, "no report");
  const Json j = fleet_to_json(f, expecting({}));
  EXPECT_EQ(j["missing"], Json::array({"node07"}));
  EXPECT_EQ(j["verdict"], "fail");

  auto all = analyze_fleet(population({5, 5, 5}), expecting({"node0", "node1", "node2"}));
  EXPECT_TRUE(all.missing.empty());
  EXPECT_FALSE(all.fails());
  EXPECT_EQ(
      fleet_verdict(all),
      "fleet verdict: pass — no worse outlier; 3 reports, 1 population (1 of fewer than 10 values: judged "
      "on the members' own spread and the 5 % threshold)");
  EXPECT_EQ(fleet_tables(all).size(), 2u);
}

// Slurm names nodes by their short name; a report's hostname may be the full one.
TEST(Fleet, ExpectedHostsMatchOnTheShortName) {
  auto reports = population({5, 5, 5});
  reports[1].report.host["hostname"] = "node1.cluster.example";
  auto f = analyze_fleet(reports, expecting({"node0", "node1", "node2.cluster.example"}));
  EXPECT_TRUE(f.missing.empty());
  EXPECT_TRUE(f.notes.empty());
}

TEST(Fleet, ReportsFromHostsNotExpectedAreNoted) {
  auto f = analyze_fleet(population({5, 5, 5}), expecting({"node0", "node1"}));
  EXPECT_FALSE(f.fails());
  ASSERT_EQ(f.notes.size(), 1u);
  EXPECT_EQ(f.notes[0], "reports from hosts not expected: node2");
}

// A one-node fleet (or one where most nodes died) cannot have outliers, but its missing nodes are still the
// verdict; without --expect it stays bad input.
TEST(Fleet, WithExpectedHostsAFleetTooSmallForOutliersIsJudgedOnPresence) {
  auto f = analyze_fleet(population({5}), expecting({"node0", "node-a", "node-b"}));
  EXPECT_TRUE(f.groups.empty());
  EXPECT_EQ(f.missing, (std::vector<std::string>{"node-a", "node-b"}));
  EXPECT_EQ(fleet_verdict(f),
            "fleet verdict: fail — missing: node-a, node-b (no report); 1 report, no outlier analysis");
  ASSERT_EQ(f.notes.size(), 1u);
  EXPECT_EQ(f.notes[0], "no outlier analysis: it needs at least 3 reports (got 1)");
  ASSERT_EQ(fleet_tables(f).size(), 1u);

  auto none = analyze_fleet({}, expecting({"node0", "node1"}));
  EXPECT_EQ(none.missing, (std::vector<std::string>{"node0", "node1"}));

  auto alone = analyze_fleet(population({5}), expecting({"node0"}));
  EXPECT_FALSE(alone.fails());
  EXPECT_TRUE(fleet_tables(alone).empty());
  EXPECT_THROW(analyze_fleet(population({5}), {}), UsageError);

  auto different = population({5, 5, 5});
  different[2].report.results[0].probe = "host.membw";
  auto judged = analyze_fleet(different, expecting({"node0", "node1", "node2"}));
  EXPECT_TRUE(judged.groups.empty());
  EXPECT_FALSE(judged.fails());
  EXPECT_NE(std::find(judged.notes.begin(), judged.notes.end(),
                      "no outlier analysis: no result appears in at least 3 of the 3 reports"),
            judged.notes.end());
  EXPECT_THROW(analyze_fleet(different, {}), UsageError);
}

Result node_verdict(Status status, std::string reason, Json reasons = Json::array()) {
  Result r;
  r.probe = std::string(burnin_report::kNodeProbe);
  r.status = status;
  r.reason = std::move(reason);
  r.info = Json{{"verdict", status == Status::failed ? "fail" : "pass"}, {"reasons", std::move(reasons)}};
  return r;
}

// A burn-in report whose node verdict failed names that node and fails the fleet, even with no outlier.
TEST(Fleet, AFailedBurninNodeVerdictFailsTheFleet) {
  auto reports = population({5, 5, 5});
  reports[0].report.results.push_back(node_verdict(Status::ok, ""));
  reports[1].report.results.push_back(node_verdict(Status::failed, "gpu1: 12 bad words in the HBM pattern"));
  reports[2].report.results.push_back(
      node_verdict(Status::failed, "", Json::array({"gpu0: XID 79", "gpu3: PCIe Gen4 x16 below Gen5"})));
  auto f = analyze_fleet(reports, {});
  EXPECT_FALSE(f.has_worse_outlier());
  ASSERT_EQ(f.failed_nodes.size(), 2u);
  EXPECT_EQ(f.failed_nodes[0].host, "node1");
  EXPECT_EQ(f.failed_nodes[0].file, "node1.json");
  EXPECT_EQ(f.failed_nodes[1].reason, "gpu0: XID 79, gpu3: PCIe Gen4 x16 below Gen5");
  EXPECT_TRUE(f.fails());
  EXPECT_EQ(
      fleet_verdict(f),
      "fleet verdict: fail — failed burn-in: node1 (gpu1: 12 bad words in the HBM pattern), node2 (gpu0: "
      "XID 79, gpu3: PCIe Gen4 x16 below Gen5); 3 reports, 1 population (1 of fewer than 10 values: judged "
      "on "
      "the members' own spread and the 5 % threshold)");
  const auto tables = fleet_tables(f);
  ASSERT_EQ(tables[0].rows.size(), 2u);
  EXPECT_EQ(tables[0].rows[0][1].text, "failed");
  EXPECT_EQ(tables[0].rows[0][2].text, "burnin.node: gpu1: 12 bad words in the HBM pattern (node1.json)");
  EXPECT_EQ(fleet_to_json(f, {})["failed_nodes"][0]["host"], "node1");
}

TEST(Fleet, ExpectedHostsAreAListOrAFile) {
  EXPECT_EQ(parse_expected_hosts("node01,node02 node03,node01"),
            (std::vector<std::string>{"node01", "node02", "node03"}));
  test::TempDir dir;
  std::ofstream(dir / "hosts.txt") << "node01\nnode02\n\nnode03\n";
  EXPECT_EQ(parse_expected_hosts("@" + (dir / "hosts.txt").string()),
            (std::vector<std::string>{"node01", "node02", "node03"}));
  EXPECT_THROW(parse_expected_hosts("@" + (dir / "absent.txt").string()), UsageError);
  EXPECT_THROW(parse_expected_hosts(" , "), UsageError);
  std::ofstream(dir / "empty.txt") << "\n";
  EXPECT_THROW(parse_expected_hosts("@" + (dir / "empty.txt").string()), UsageError);
}

}  // namespace
}  // namespace mlbench
