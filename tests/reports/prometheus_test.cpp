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

// One rule for every name: the metric's words, less those that spell its unit (each replaced by the thing
// it counts, if any), then the one suffix of its unit. No name carries its unit twice.
TEST(Prometheus, OneNamingRuleWithOneUnitSuffix) {
  struct Case {
    const char *metric, *unit, *name;
    double scale;
  };
  const Case cases[] = {
      {"iops", "1/s", "mlbench_io_per_second", 1},
      {"read_iops", "1/s", "mlbench_read_io_per_second", 1},
      {"write_iops", "1/s", "mlbench_write_io_per_second", 1},
      {"files_per_s", "1/s", "mlbench_files_per_second", 1},
      {"samples_per_s", "1/s", "mlbench_samples_per_second", 1},
      {"gemm_tflops", "FLOP/s", "mlbench_gemm_flop_per_second", 1},
      {"tflops_best", "FLOP/s", "mlbench_best_flop_per_second", 1},
      {"tops", "OP/s", "mlbench_op_per_second", 1},
      {"read_bandwidth", "B/s", "mlbench_read_bandwidth_bytes_per_second", 1},
      {"seconds", "s", "mlbench_duration_seconds", 1},
      {"cpu_per_io", "s", "mlbench_cpu_per_io_seconds", 1},
      {"sm_clock_hz", "Hz", "mlbench_sm_clock_hertz", 1},
      {"power_w", "W", "mlbench_power_watts", 1},
      {"power_median", "W", "mlbench_power_median_watts", 1},
      {"temperature_c", "°C", "mlbench_temperature_celsius", 1},
      {"temperature_max", "°C", "mlbench_temperature_max_celsius", 1},
      {"pct_of_link", "%", "mlbench_link_ratio", 0.01},
      {"au", "%", "mlbench_au_ratio", 0.01},
      {"errors", "1", "mlbench_errors", 1},
  };
  for (const auto& c : cases) {
    const PromName n = prometheus_name(c.metric, c.unit);
    EXPECT_EQ(n.name, c.name) << c.metric;
    EXPECT_EQ(n.scale, c.scale) << c.metric;
  }
}

TEST(Prometheus, EscapesLabelValues) { EXPECT_EQ(prometheus_escape("a\"b\\c\nd"), "a\\\"b\\\\c\\nd"); }

// A metric name from a report may hold a newline or a backslash: its HELP line escapes them, one line.
TEST(Prometheus, HelpTextIsEscaped) {
  auto nr =
      test::make_report("r.json", "node1", {test::make_result("p", {{"k", 1}}, "odd\nname\\x", 1, "s")});
  const std::string text = to_prometheus(nr);
  EXPECT_NE(text.find("# HELP mlbench_odd_name_x_seconds mlbench result metric odd\\nname\\\\x (s)"),
            std::string::npos)
      << text;
}

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
  EXPECT_NE(text.find("# TYPE mlbench_bandwidth_bytes_per_second gauge\n"
                      "mlbench_bandwidth_bytes_per_second{probe=\"gpu.hbm\",host=\"node1\",device=\"gpu1\","
                      "kernel=\"copy\"} 3000000000000\n"),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find("mlbench_peak_ratio{probe=\"gpu.hbm\",host=\"node1\",device=\"gpu1\",kernel=\"copy\"} 0.9"),
      std::string::npos);
  EXPECT_NE(text.find("status=\"failed\"} 1"), std::string::npos);
  EXPECT_EQ(text.find("mlbench_io_per_second"), std::string::npos);  // a failed result exports no value
  EXPECT_NE(text.find("mlbench_report_timestamp_seconds{host=\"node1\"} 1795857243"), std::string::npos);
}

// Each parameter is a label of its own (a query selects bs="4096" without a regex over a joined string),
// label names are valid and never shadow the fixed ones, values are escaped, and no label is empty.
TEST(Prometheus, EachParameterIsItsOwnLabelAndNoneIsEmpty) {
  auto nr = test::make_report(
      "r.json", "node1",
      {test::make_result(
          "storage.io",
          {{"rw", "randread"}, {"bs", 4096}, {"iodepth", 32}, {"direct", true}, {"target", "/dev/nvme0n1"}},
          "iops", 1e6, "1/s")});
  nr.report.results.push_back(test::make_result("host.membw",
                                                {{"kernel", "triad"},
                                                 {"note", ""},
                                                 {"host", "x"},
                                                 {"odd-key", "a\"b"},
                                                 {"precisions", {"bf16", "fp16"}}},
                                                "bandwidth", 2e11, "B/s"));
  std::string text = to_prometheus(nr);
  EXPECT_NE(text.find("mlbench_io_per_second{probe=\"storage.io\",host=\"node1\",device=\"/dev/nvme0n1\","
                      "bs=\"4096\",direct=\"true\",iodepth=\"32\",rw=\"randread\"} 1000000\n"),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find("mlbench_bandwidth_bytes_per_second{probe=\"host.membw\",host=\"node1\",param_host=\"x\","
                "kernel=\"triad\",odd_key=\"a\\\"b\",precisions=\"bf16,fp16\"} 200000000000\n"),
      std::string::npos)
      << text;
  EXPECT_EQ(text.find("params="), std::string::npos) << text;
  EXPECT_EQ(text.find("=\"\""), std::string::npos) << text;  // no empty label value (device="", note="")
}

// Every metric the probes write (their names and units as in the probes' add_metric calls) exports under a
// name with one unit suffix, and promtool finds nothing to say about the whole exposition.
TEST(Prometheus, EveryProbeMetricPassesPromtool) {
  const std::pair<const char*, const char*> metrics[] = {
      {"bandwidth", "B/s"},
      {"read_bandwidth", "B/s"},
      {"write_bandwidth", "B/s"},
      {"iops", "1/s"},
      {"read_iops", "1/s"},
      {"write_iops", "1/s"},
      {"lat_p50", "s"},
      {"lat_p99", "s"},
      {"lat_p999", "s"},
      {"lat_max", "s"},
      {"read_lat_p99", "s"},
      {"cpu_per_io", "s"},
      {"pct_of_link", "%"},
      {"tflops", "FLOP/s"},
      {"tops", "OP/s"},
      {"tflops_best", "FLOP/s"},
      {"pct_of_peak", "%"},
      {"pct_of_theoretical", "%"},
      {"busbw", "B/s"},
      {"algbw", "B/s"},
      {"time", "s"},
      {"time_slowest_rank", "s"},
      {"images_per_s", "1/s"},
      {"samples_per_s", "1/s"},
      {"files_per_s", "1/s"},
      {"seconds", "s"},
      {"au", "%"},
      {"au_min", "%"},
      {"batch_wait_p99", "s"},
      {"open_p999", "s"},
      {"cpu_per_file", "s"},
      {"accelerators_supported", ""},
      {"errors", "1"},
      {"samples", "1"},
      {"gpus_failed", "1"},
      {"gemm_tflops", "FLOP/s"},
      {"hbm_bandwidth", "B/s"},
      {"power_median", "W"},
      {"sm_clock_median", "Hz"},
      {"temperature_max", "°C"},
      {"cpu_busy_median", "%"},
  };
  auto result = test::make_result("every.probe", {{"case", 1}}, "errors", 0, "1");
  for (const auto& [name, unit] : metrics) {
    if (std::string(name) != "errors") result.add_metric(name, 1, unit);
    const std::string family = prometheus_name(name, unit).name;
    for (const char* doubled :
         {"iops_per", "flops_per", "tops_per", "_s_per", "per_s_", "pct_", "_hz_", "_w_"})
      EXPECT_EQ(family.find(doubled), std::string::npos) << name << " -> " << family;
  }
  auto nr = test::make_report("r.json", "node1", {result});
  if (!test::have_tool("promtool")) GTEST_SKIP() << "promtool not installed (Debian package 'prometheus')";
  test::TempDir dir("mlbench-reports");
  auto path = dir.path() / "mlbench.prom";
  std::ofstream(path) << to_prometheus(nr);
  auto log = dir.path() / "log";
  int rc = test::run_shell("promtool check metrics < '" + path.string() + "' > '" + log.string() + "' 2>&1");
  EXPECT_EQ(rc, 0) << test::slurp(log);
  EXPECT_EQ(test::slurp(log), "");
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
  // Every label a panel names (legend {{label}}, max by (label, ...)) is one the export writes.
  std::set<std::string> labels;
  for (const auto& panel : dashboard.at("panels")) {
    for (const auto& target : panel.at("targets")) {
      std::string legend = target.value("legendFormat", "");
      std::regex braces(R"(\{\{([a-z_]+)\}\})");
      for (std::sregex_iterator it(legend.begin(), legend.end(), braces), end; it != end; ++it)
        labels.insert((*it)[1].str());
      std::string expr = target.at("expr").get<std::string>();
      std::smatch by;
      if (std::regex_search(expr, by, std::regex(R"(by \(([a-z_, ]+)\))"))) {
        std::regex word(R"([a-z_]+)");
        std::string list = by[1].str();
        for (std::sregex_iterator it(list.begin(), list.end(), word), end; it != end; ++it)
          labels.insert(it->str());
      }
    }
  }
  EXPECT_GE(labels.size(), 8u);
  for (const auto& l : labels) {
    const bool exported_label = exported.find("," + l + "=") != std::string::npos ||
                                exported.find("{" + l + "=") != std::string::npos;
    EXPECT_TRUE(exported_label) << l;
  }
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
