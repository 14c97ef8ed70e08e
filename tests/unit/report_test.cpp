#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "base/error.hpp"
#include "report/report.hpp"
#include "tests/common/files.hpp"

namespace mlbench {
namespace {

namespace fs = std::filesystem;

Report sample_report() {
  Report r;
  r.tool = tool_info();
  r.host = Json{{"hostname", "node01"}, {"gpus", Json::array()}};
  r.run = Json{{"started_utc", "2026-11-30T10:00:00Z"},
               {"duration_s", 12.5},
               {"argv", {"mlbench", "run"}},
               {"profile", "quick"}};
  Result ok;
  ok.probe = "host.membw";
  ok.params = Json{{"kernel", "triad"}, {"threads", 2}};
  ok.work = Json{{"bytes", 3.0 * 8 * (1 << 20)}};
  ok.samples = {0.010, 0.011, 0.012};
  ok.metrics.push_back(rate_metric("bandwidth", 3.0 * 8 * (1 << 20), ok.samples, "B/s"));
  ok.info = Json{{"verified", true}};
  r.results.push_back(ok);
  Result skipped;
  skipped.probe = "gpu.gemm";
  skipped.status = Status::skipped;
  skipped.reason = "no CUDA GPU found";
  r.results.push_back(skipped);
  return r;
}

TEST(Report, RateMetricIsWorkOverMedianSeconds) {
  std::vector<double> t{2.0, 1.0, 4.0};
  Metric m = rate_metric("bandwidth", 8.0, t, "B/s");
  EXPECT_DOUBLE_EQ(m.value, 4.0);  // 8 / median(1,2,4)=2
  ASSERT_TRUE(m.stats.has_value());
  EXPECT_DOUBLE_EQ(m.stats->max, 8.0);
  EXPECT_DOUBLE_EQ(m.stats->min, 2.0);
  EXPECT_EQ(m.stats->n, 3u);
}

// A share of a peak is a fixed multiple of its rate: it carries the rate's relative spread, so compare
// judges both alike.
TEST(Report, ProportionalMetricsCarryTheRelativeSpreadOfTheirRate) {
  const Metric bw = rate_metric("bandwidth", 1e9, {1.0, 1.1, 0.9, 1.2, 0.8, 1.05, 0.95}, "B/s");
  ASSERT_GT(relative_spread(bw), 0);
  Metric pct{"pct_of_peak", 40, "%", Better::higher, std::nullopt, proportional_ci(bw, 40)};
  EXPECT_NEAR(relative_spread(pct), relative_spread(bw), 1e-12);
  const Metric exact{"bandwidth", 1e9, "B/s"};
  EXPECT_FALSE(proportional_ci(exact, 40).has_value());
}

// A statistic's standard uncertainty becomes its 95 % interval; no uncertainty gives no interval, not a
// zero-width one that would claim a noiseless value.
TEST(Report, SigmaCiIsTheValuePlusMinusZSigmaAndAbsentWithoutASigma) {
  const auto ci = sigma_ci(10.0, 0.5);
  ASSERT_TRUE(ci.has_value());
  EXPECT_DOUBLE_EQ(ci->lo, 10.0 - kConfidenceZ * 0.5);
  EXPECT_DOUBLE_EQ(ci->hi, 10.0 + kConfidenceZ * 0.5);
  EXPECT_FALSE(sigma_ci(10.0, 0.0).has_value());
  EXPECT_FALSE(sigma_ci(10.0, -1.0).has_value());
  EXPECT_FALSE(sigma_ci(10.0, std::numeric_limits<double>::quiet_NaN()).has_value());
  EXPECT_FALSE(sigma_ci(10.0, std::numeric_limits<double>::infinity()).has_value());
}

// widen_to_rounds: a round at half the others' rate widens the whole's ci to the spread between the rounds
// (t(0.975, 3) · SD of ln(value) / 2 for 4 rounds); rounds that agree, a ci already wider, a metric some
// round lacks and a single round leave it as it was.
TEST(Report, WidenToRoundsTakesTheSpreadBetweenRoundsWhereItIsWider) {
  auto result = [](std::vector<std::pair<std::string, double>> values) {
    Result r;
    for (const auto& [name, v] : values) r.add_metric(name, v, "1/s", Better::higher);
    return r;
  };
  Result whole = result({{"iops", 87.5}, {"alike", 100}, {"wide", 100}, {"partial", 100}});
  const ConfidenceInterval narrow{86.5, 88.5}, wide{10, 1000};
  whole.metrics[0].ci = narrow;
  whole.metrics[2].ci = wide;
  std::vector<Result> rounds;
  for (double v : {100.0, 100.0, 100.0, 50.0})
    rounds.push_back(result({{"iops", v}, {"alike", 100}, {"wide", v}, {"partial", v}}));
  rounds[3].metrics.pop_back();  // the last round has no "partial"

  Result one = whole;
  widen_to_rounds(one, {rounds[0]});
  EXPECT_DOUBLE_EQ(one.metrics[0].ci->lo, narrow.lo);

  widen_to_rounds(whole, rounds);
  const double l = std::log(0.5), mean = l / 4;
  const double sd = std::sqrt((3 * mean * mean + (l - mean) * (l - mean)) / 3);
  const double h = 3.182 * sd / 2;
  ASSERT_TRUE(whole.metrics[0].ci);
  EXPECT_NEAR(whole.metrics[0].ci->lo, 87.5 * std::exp(-h), 1e-9);
  EXPECT_NEAR(whole.metrics[0].ci->hi, 87.5 * std::exp(h), 1e-9);
  EXPECT_NEAR(relative_spread(whole.metrics[0]), (std::exp(h) - std::exp(-h)) / (2 * kConfidenceZ), 1e-9);
  EXPECT_FALSE(whole.metrics[1].ci);  // rounds alike: no zero-width interval
  EXPECT_DOUBLE_EQ(whole.metrics[2].ci->lo, wide.lo);
  EXPECT_FALSE(whole.metrics[3].ci);
}

TEST(Report, RoundTripsThroughJsonFile) {
  test::TempDir dir;
  auto path = dir / "roundtrip.json";
  Report r = sample_report();
  write_report(path, r);
  Report back = load_report(path);
  EXPECT_EQ(to_json(back), to_json(r));
  EXPECT_EQ(back.results[1].status, Status::skipped);
  EXPECT_EQ(back.results[0].metric("bandwidth")->unit, "B/s");
}

TEST(Report, NonFiniteValuesBecomeNull) {
  Result r;
  r.probe = "host.membw";
  r.add_metric("bandwidth", std::nan(""), "B/s");
  Json j = to_json(r);
  EXPECT_TRUE(j["metrics"][0]["value"].is_null());
  EXPECT_TRUE(std::isnan(result_from_json(j).metrics[0].value));
}

TEST(Report, AtomicWriteLeavesNoTempFiles) {
  test::TempDir dir;
  write_report(dir / "r.json", sample_report());
  write_report(dir / "r.json", sample_report());
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 1u);
}

void expect_usage_error(const fs::path& path, const std::string& needle) {
  try {
    load_report(path);
    FAIL() << "loaded " << path;
  } catch (const UsageError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find(path.string()), std::string::npos) << what;
    EXPECT_NE(what.find(needle), std::string::npos) << what;
  }
}

TEST(Report, RefusesNewerMajorMalformedAndForeignFiles) {
  test::TempDir dir;
  auto path = dir / "bad.json";
  Json j = to_json(sample_report());
  j["schema_version"] = "2.0.0";
  std::ofstream(path) << j.dump();
  expect_usage_error(path, "newer than this mlbench understands");
  std::ofstream(path) << j.dump().substr(0, 100);
  expect_usage_error(path, "not valid JSON");
  std::ofstream(path) << R"({"name": "something else"})";
  expect_usage_error(path, "not an mlbench report");
  std::ofstream(path) << R"({"schema_version": "1.0.0", "results": [{"probe": "x.y"}]})";
  expect_usage_error(path, "not a valid mlbench report");
  expect_usage_error(dir / "missing.json", "cannot open");
}

TEST(Report, GoldenReportsOfOlderVersionsStillLoad) {
  std::size_t seen = 0;
  for (const auto& e : fs::directory_iterator(fs::path(MLBENCH_TEST_DATA_DIR) / "golden")) {
    if (e.path().extension() != ".json") continue;
    Report r = load_report(e.path());
    EXPECT_FALSE(r.results.empty()) << e.path();
    EXPECT_EQ(r.schema_version.substr(0, 2), "1.") << e.path();
    ++seen;
  }
  EXPECT_GE(seen, 1u);
}

TEST(Report, CheckWritableRejectsMissingFolder) {
  EXPECT_THROW(check_writable("/nonexistent-mlbench-dir/r.json"), UsageError);
  EXPECT_THROW(check_writable(fs::temp_directory_path()), UsageError);
  test::TempDir dir;
  EXPECT_NO_THROW(check_writable(dir / "w.json"));
}

}  // namespace
}  // namespace mlbench
