// Every probe id, result param name and metric name that the readers of reports use is one the registry
// declares (ProbeInfo::id, ::params, ::metrics): the string literals in reports/ and sizing/ (and the metric
// names read in monitor/, burnin/ and cli/), compare's stated spreads, the acceptance floors, the thresholds
// files in configs/acceptance/, and the reports the tests feed them (hand-made fixtures and the golden report
// of a real quick run). A reader that asks for a name no probe writes matches nothing and silently measures
// nothing (sizing once looked for GEMM "dtype" and NCCL "op"; the probes write "precision" and "collective").
#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bench/registry.hpp"
#include "reports/check.hpp"
#include "reports/stated_spread.hpp"
#include "tests/common/files.hpp"

namespace mlbench {
namespace {

namespace fs = std::filesystem;
const fs::path kSource = MLBENCH_SOURCE_DIR;

struct Declared {
  std::set<std::string> ids;
  std::map<std::string, std::set<std::string>> params;   // probe id -> its param names
  std::set<std::string> any_params;                      // every probe's
  std::map<std::string, std::set<std::string>> metrics;  // probe id -> its metric names
  std::set<std::string> any_metrics;                     // every probe's
};

Declared declared() {
  Declared d;
  const auto registry = builtin_registry();
  for (const auto& p : registry.all()) {
    auto info = p->info();
    d.ids.insert(info.id);
    for (auto name : info.params) {
      d.params[info.id].insert(std::string(name));
      d.any_params.insert(std::string(name));
    }
    for (auto name : info.metrics) {
      d.metrics[info.id].insert(std::string(name));
      d.any_metrics.insert(std::string(name));
    }
  }
  return d;
}

struct Used {
  std::vector<std::string> ids, params;
};

// The probe ids and param names a reader's source text uses: "gpu.gemm"-shaped literals, and the first string
// argument of the ways reports/ and sizing/ read a param (param("x"), param_text(r, "x"), param_number(r,
// "x"), params["x"], params.contains/value/at("x")).
Used scan(const std::string& text) {
  static const std::regex id(R"re("((?:gpu|storage|host|net)\.[a-z_]+)")re");
  static const std::regex call(R"re(\bparam(?:_text|_number)?\((?:\w+,\s*)?"(\w+)")re");
  static const std::regex member(R"re(\bparams(?:\.contains\(|\.value\(|\.at\(|\[)"(\w+)")re");
  Used u;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), id); it != std::sregex_iterator(); ++it)
    u.ids.push_back((*it)[1]);
  for (const auto* re : {&call, &member})
    for (auto it = std::sregex_iterator(text.begin(), text.end(), *re); it != std::sregex_iterator(); ++it)
      u.params.push_back((*it)[1]);
  return u;
}

// A metric read by name: the probe it belongs to where the reader names it (collect_bars), else empty (the
// name must be one some probe declares).
struct MetricRead {
  std::string probe, metric;
  bool operator==(const MetricRead&) const = default;
};

// The metric names a reader's source text reads by string: the name argument of Result::metric and of the
// calibration intake's metric(r, "x") (after a direction prefix too: prefix + "x"), the monitor's
// take(ceiling, "x"), the probe and metric of the HTML report's collect_bars(reports, machines, "probe",
// "metric", ...), and the rows of sizing's tables that read by name (raid's {rw, metric, label, unit, scale,
// field} and calibration's {metric, unit, low, high}).
std::vector<MetricRead> scan_metrics(const std::string& text) {
  static const std::regex call(R"re(\bmetric\((?:\w+,\s*)?(?:\w+ \+ )?"(\w+)")re");
  static const std::regex take(R"re(\btake\([\w.]+,\s*"(\w+)"\))re");
  static const std::regex raid_row(R"re(\{"\w+", "(\w+)", "[^"]*", "[^"]*", [\d.e]+, &)re");
  static const std::regex range_row(R"re(\{"(\w+)", "[^"]*", [\d.e+-]+, [\d.e+-]+\})re");
  static const std::regex bars(R"re(\bcollect_bars\(\s*\w+,\s*\w+,\s*"([\w.]+)",\s*"(\w+)")re");
  std::vector<MetricRead> out;
  for (const auto* re : {&call, &take, &raid_row, &range_row})
    for (auto it = std::sregex_iterator(text.begin(), text.end(), *re); it != std::sregex_iterator(); ++it)
      out.push_back({"", (*it)[1]});
  for (auto it = std::sregex_iterator(text.begin(), text.end(), bars); it != std::sregex_iterator(); ++it)
    out.push_back({(*it)[1], (*it)[2]});
  return out;
}

TEST(RegistryNames, TheScannerFindsIdsAndParamsAsTheReadersWriteThem) {
  auto u = scan(R"(if (!usable(r, "net.nccl") || param_text(r, "op") != "all_reduce") continue;
                   bars(collect_bars(reports, machines, "gpu.gemm", "tflops", param("precision"));
                   if (r.params.contains("device")) x = r.params["bytes"];)");
  EXPECT_EQ(u.ids, (std::vector<std::string>{"net.nccl", "gpu.gemm"}));
  EXPECT_EQ(u.params, (std::vector<std::string>{"op", "precision", "device", "bytes"}));
  // The name that once hid a bug is not one the NCCL probe declares.
  auto d = declared();
  EXPECT_FALSE(d.params["net.nccl"].count("op"));
  EXPECT_TRUE(d.params["net.nccl"].count("collective"));
}

TEST(RegistryNames, TheScannerFindsMetricReadsAsTheReadersWriteThem) {
  auto reads = scan_metrics(R"(const Metric* tf = intake.metric(r, "tflops");
      if (const Metric* p = r.metric("pct_of_peak")) x = r->metric(prefix + "iops");
      take(c.storage_read_iops, "read_iops");
      {"read", "bandwidth", "read", "GB/s", 1e9, &DriveFigures::read},
      {"busbw", "B/s", 1e3, 1e15},
      {"memory.theoretical_bandwidth", "B/s", 1e3, 1e15},
      bars(collect_bars(
          reports, machines, "gpu.copy", "bandwidth", job, {}, "copies"));)");
  EXPECT_EQ(reads, (std::vector<MetricRead>{{"", "tflops"},
                                            {"", "pct_of_peak"},
                                            {"", "iops"},
                                            {"", "read_iops"},
                                            {"", "bandwidth"},
                                            {"", "busbw"},
                                            {"gpu.copy", "bandwidth"}}));
  // A name no probe declares is one the check below would report.
  auto d = declared();
  EXPECT_FALSE(d.any_metrics.count("read_bw"));
  EXPECT_TRUE(d.any_metrics.count("busbw"));
}

TEST(RegistryNames, EveryProbeDeclaresItsParams) {
  auto d = declared();
  for (const auto& id : d.ids) EXPECT_FALSE(d.params[id].empty()) << id << " declares no params";
}

TEST(RegistryNames, EveryProbeDeclaresItsMetrics) {
  auto d = declared();
  for (const auto& id : d.ids) EXPECT_FALSE(d.metrics[id].empty()) << id << " declares no metrics";
}

// The console's headline sets (ProbeInfo::console) read the probe's own metrics: a field naming another
// would silently show nothing. storage.io, storage.dataload and storage.checkpoint each have one.
TEST(RegistryNames, ConsoleHeadlineSetsNameDeclaredMetrics) {
  const auto registry = builtin_registry();
  for (const auto& p : registry.all()) {
    auto info = p->info();
    for (const auto& f : info.console) {
      EXPECT_NE(std::find(info.metrics.begin(), info.metrics.end(), f.metric), info.metrics.end())
          << info.id << " shows undeclared metric " << f.metric;
      EXPECT_FALSE(f.label.empty()) << info.id << " " << f.metric;
    }
  }
  for (const char* id : {"storage.io", "storage.dataload", "storage.checkpoint"})
    EXPECT_FALSE(registry.find(id)->info().console.empty()) << id;
}

TEST(RegistryNames, ReportsAndSizingSourcesUseOnlyDeclaredNames) {
  auto d = declared();
  int files = 0;
  for (const char* folder : {"reports", "sizing"}) {
    for (const auto& e : fs::directory_iterator(kSource / folder)) {
      auto ext = e.path().extension();
      if (ext != ".cpp" && ext != ".hpp") continue;
      ++files;
      auto u = scan(test::slurp(e.path()));
      auto where = fs::relative(e.path(), kSource).string();
      for (const auto& id : u.ids) EXPECT_TRUE(d.ids.count(id)) << where << " uses probe id " << id;
      for (const auto& p : u.params) EXPECT_TRUE(d.any_params.count(p)) << where << " reads param " << p;
    }
  }
  EXPECT_GT(files, 10);
}

// Every metric that sizing, the reports (compare, html, summary, fio JSON), the monitor's exporter, burn-in
// and the CLI read by name is one a probe declares: for the probe the reader names, else for some probe.
TEST(RegistryNames, MetricReadsByNameUseDeclaredMetrics) {
  auto d = declared();
  int reads = 0;
  for (const char* folder : {"reports", "sizing", "monitor", "burnin", "cli"}) {
    for (const auto& e : fs::recursive_directory_iterator(kSource / folder)) {
      auto ext = e.path().extension();
      if (ext != ".cpp" && ext != ".hpp") continue;
      auto where = fs::relative(e.path(), kSource).string();
      for (const auto& r : scan_metrics(test::slurp(e.path()))) {
        ++reads;
        if (r.probe.empty()) {
          EXPECT_TRUE(d.any_metrics.count(r.metric)) << where << " reads metric " << r.metric;
        } else {
          ASSERT_TRUE(d.ids.count(r.probe)) << where << " reads probe " << r.probe;
          EXPECT_TRUE(d.metrics[r.probe].count(r.metric)) << where << " reads " << r.probe << " " << r.metric;
        }
      }
    }
  }
  EXPECT_GT(reads, 30);
  // compare's stated between-run spreads name their probe's metrics.
  for (const auto& s : kStatedSpreads) {
    ASSERT_TRUE(d.ids.count(std::string(s.probe))) << s.probe;
    for (auto m : s.metrics)
      EXPECT_TRUE(d.metrics[std::string(s.probe)].count(std::string(m))) << s.probe << " spread of " << m;
  }
}

TEST(RegistryNames, AcceptanceFloorsAndThresholdFilesUseDeclaredNames) {
  auto d = declared();
  for (const auto& f : catalog_floors()) {
    ASSERT_TRUE(d.ids.count(f.probe)) << f.probe;
    EXPECT_TRUE(d.metrics[f.probe].count(f.metric)) << f.probe << " floor judges " << f.metric;
    EXPECT_TRUE(d.params[f.probe].count(f.selector)) << f.probe << " floor selects by " << f.selector;
  }
  int rules = 0;
  for (const auto& e : fs::directory_iterator(kSource / "configs/acceptance")) {
    if (e.path().extension() != ".yaml") continue;
    for (const auto& rule : load_expectations(e.path()).rules) {
      ++rules;
      auto where = e.path().filename().string() + " " + rule.probe;
      ASSERT_TRUE(d.ids.count(rule.probe)) << where;
      EXPECT_TRUE(d.metrics[rule.probe].count(rule.metric)) << where << " judges metric " << rule.metric;
      for (const auto& [key, _] : rule.match.items())
        EXPECT_TRUE(d.params[rule.probe].count(key)) << where << " matches on " << key;
    }
  }
  EXPECT_GT(rules, 0);
}

// The golden report is a real quick run (host.membw, storage.io with randrw's read_ and write_ metrics,
// storage.dataload); the fixtures carry the GPU probes' and NCCL's.
TEST(RegistryNames, TestReportsCarryOnlyDeclaredParamsAndMetrics) {
  auto d = declared();
  std::vector<fs::path> reports = {kSource / "tests/data/golden/report-1.0.0-quick-cpu.json",
                                   kSource / "tests/data/reports/run_a.json",
                                   kSource / "tests/data/reports/run_b.json",
                                   kSource / "tests/data/reports/fleet/node01.json",
                                   kSource / "tests/data/sizing/report-a100-8gpu.json",
                                   kSource / "tests/data/sizing/report-cpu-only.json"};
  for (const auto& path : reports) {
    auto doc = Json::parse(test::slurp(path));
    ASSERT_FALSE(doc["results"].empty()) << path;
    for (const auto& r : doc["results"]) {
      const std::string probe = r["probe"];
      auto where = path.filename().string() + " " + probe;
      ASSERT_TRUE(d.ids.count(probe)) << where;
      for (const auto& [key, _] : r["params"].items())
        EXPECT_TRUE(d.params[probe].count(key)) << where << " carries param " << key;
      for (const auto& m : r["metrics"])
        EXPECT_TRUE(d.metrics[probe].count(m["name"].get<std::string>()))
            << where << " carries metric " << m["name"];
    }
  }
}

}  // namespace
}  // namespace mlbench
