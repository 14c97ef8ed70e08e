#include "reports/prometheus.hpp"

#include <fstream>
#include <regex>
#include <set>

#include <gtest/gtest.h>

#include "tests/reports/report_fixtures.hpp"

namespace mlbench {
namespace {

TEST(Prometheus, NamesCarryBaseUnits) {
  EXPECT_EQ(prometheus_name("bandwidth", "B/s").name, "mlbench_bandwidth_bytes_per_second");
  EXPECT_EQ(prometheus_name("lat_p99", "s").name, "mlbench_lat_p99_seconds");
  EXPECT_EQ(prometheus_name("tflops", "FLOP/s").name, "mlbench_flop_per_second");
  EXPECT_EQ(prometheus_name("pct_of_peak", "%").name, "mlbench_peak_ratio");
  EXPECT_EQ(prometheus_name("pct_of_peak", "%").scale, 0.01);
  EXPECT_EQ(prometheus_name("Odd-Name", "").name, "mlbench_odd_name");
}

TEST(Prometheus, EscapesLabelValues) { EXPECT_EQ(prometheus_escape("a\"b\\c\nd"), "a\\\"b\\\\c\\nd"); }

TEST(Prometheus, ExportsOkMetricsAndEveryStatus) {
  auto nr = test::make_report(
      "r.json", "node1",
      {test::make_result("gpu.hbm", {{"kernel", "copy"}, {"device", 1}}, "bandwidth", 3e12, "B/s")});
  nr.report.results.back().add_metric("pct_of_peak", 90, "%");
  auto failed = test::make_result("storage.io", {{"rw", "read"}}, "iops", 5, "1/s");
  failed.status = Status::failed;
  nr.report.results.push_back(failed);
  nr.report.run = Json{{"started_utc", "2026-11-28T09:14:03Z"}};
  std::string text = to_prometheus(nr);
  EXPECT_NE(
      text.find("# TYPE mlbench_bandwidth_bytes_per_second gauge\n"
                "mlbench_bandwidth_bytes_per_second{probe=\"gpu.hbm\",params=\"kernel=copy\",host=\"node1\","
                "device=\"gpu1\"} 3000000000000\n"),
      std::string::npos)
      << text;
  EXPECT_NE(
      text.find(
          "mlbench_peak_ratio{probe=\"gpu.hbm\",params=\"kernel=copy\",host=\"node1\",device=\"gpu1\"} 0.9"),
      std::string::npos);
  EXPECT_NE(text.find("status=\"failed\"} 1"), std::string::npos);
  EXPECT_EQ(text.find("mlbench_io_per_second"), std::string::npos);  // a failed result exports no value
  EXPECT_NE(text.find("mlbench_report_timestamp_seconds{host=\"node1\"} 1795857243"), std::string::npos);
}

TEST(Prometheus, GrafanaDashboardQueriesOnlyExportedFamilies) {
  auto dashboard =
      Json::parse(test::slurp(std::filesystem::path(MLBENCH_SOURCE_DIR) / "configs/grafana/mlbench.json"));
  auto reports = load_reports({test::reports_data("run_a.json").string()});
  std::string exported = to_prometheus(reports[0]);
  std::set<std::string> queried;
  for (const auto& panel : dashboard.at("panels")) {
    for (const auto& target : panel.at("targets")) {
      std::string expr = target.at("expr").get<std::string>();
      std::regex name(R"(mlbench_[a-z0-9_]+)");
      for (std::sregex_iterator it(expr.begin(), expr.end(), name), end; it != end; ++it)
        queried.insert(it->str());
    }
  }
  EXPECT_GE(queried.size(), 7u);
  for (const auto& n : queried) EXPECT_NE(exported.find("# TYPE " + n + " gauge"), std::string::npos) << n;
}

TEST(Prometheus, PromtoolAcceptsTheFixtureExport) {
  if (!test::have_tool("promtool")) GTEST_SKIP() << "promtool not installed (Debian package 'prometheus')";
  auto reports = load_reports({test::reports_data("run_b.json").string()});
  test::TempDir dir("mlbench-reports");
  auto path = dir.path() / "mlbench.prom";
  std::ofstream(path) << to_prometheus(reports[0]);
  auto log = dir.path() / "log";
  int rc = test::run_shell("promtool check metrics < '" + path.string() + "' > '" + log.string() + "' 2>&1");
  std::string out = test::slurp(log);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_EQ(out, "");  // no lint complaints either
}

}  // namespace
}  // namespace mlbench
