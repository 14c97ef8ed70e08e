// Every probe id, result param name and metric name that the readers of reports use is one the registry
// declares (ProbeInfo::id, ::params, ::metrics): the string literals in reports/ and sizing/, the acceptance
// floors, the thresholds files in configs/acceptance/, and the reports the tests feed them (hand-made
// fixtures and the golden report of a real quick run). A reader that asks for a name no probe writes matches
// nothing and silently measures nothing (sizing once looked for GEMM "dtype" and NCCL "op"; the probes write
// "precision" and "collective").
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
    for (auto name : info.metrics) d.metrics[info.id].insert(std::string(name));
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
