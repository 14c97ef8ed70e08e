#include "reports/check.hpp"

#include <cmath>
#include <map>

#include <gtest/gtest.h>

#include "base/error.hpp"
#include "bench/yaml_json.hpp"
#include "tests/reports/report_fixtures.hpp"

namespace mlbench {
namespace {

using test::make_result;

std::vector<GpuSpec> catalog() {
  return load_gpu_catalog(std::filesystem::path(MLBENCH_SOURCE_DIR) / "configs" / "hardware" / "gpus.yaml");
}

ExpectationSet rules(const std::string& yaml) {
  return expectations_from_json(parse_yaml(yaml, "t.yaml"), "t.yaml");
}

std::string usage_error(const std::string& yaml) {
  try {
    rules(yaml);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(Check, GradesAgainstMinMaxAndTheWarnBand) {
  auto set = rules(
      "rules:\n  - {probe: storage.io, metric: iops, min: 100, warn: 5}\n"
      "  - {probe: storage.io, metric: lat_p99, max: 0.001, warn: 10}\n");
  std::map<double, Grade> want = {{99, Grade::fail}, {104, Grade::warn}, {106, Grade::pass}};
  for (auto [iops, grade] : want) {
    Report r;
    r.results.push_back(make_result("storage.io", {{"rw", "randread"}}, "iops", iops, "1/s"));
    r.results.back().add_metric("lat_p99", 0.00095, "s", Better::lower);
    auto c = check_report(r, set);
    ASSERT_EQ(c.items.size(), 2u);
    EXPECT_EQ(c.items[0].grade, grade) << iops;
    EXPECT_EQ(c.items[1].grade, Grade::warn);  // 0.95 ms is inside 10 % of the 1 ms ceiling
    EXPECT_EQ(c.failed(), grade == Grade::fail);
  }
}

TEST(Check, MatchSupportsListsAndBestPicksThePerDeviceMaximum) {
  auto set = rules(
      "rules:\n  - probe: gpu.gemm\n    match: {precision: [bf16, fp16]}\n    metric: tflops\n"
      "    min: 700e12\n    select: best\n");
  Report r;
  for (int dev = 0; dev < 2; ++dev) {
    r.results.push_back(make_result("gpu.gemm", {{"precision", "bf16"}, {"m", 1024}, {"device", dev}},
                                    "tflops", 300e12, "FLOP/s"));
    r.results.push_back(make_result("gpu.gemm", {{"precision", "bf16"}, {"m", 8192}, {"device", dev}},
                                    "tflops", dev == 0 ? 760e12 : 650e12, "FLOP/s"));
  }
  r.results.push_back(
      make_result("gpu.gemm", {{"precision", "fp8"}, {"m", 8192}, {"device", 0}}, "tflops", 1e12, "FLOP/s"));
  auto c = check_report(r, set);
  ASSERT_EQ(c.items.size(), 2u);
  EXPECT_EQ(c.items[0].device, "gpu0");
  EXPECT_EQ(c.items[0].value, 760e12);
  EXPECT_EQ(c.items[0].grade, Grade::pass);
  EXPECT_EQ(c.items[1].device, "gpu1");
  EXPECT_EQ(c.items[1].value, 650e12);
  EXPECT_EQ(c.items[1].grade, Grade::fail);
}

// The verdict line says what happened first and what it rests on: the checks (one per rule and device or
// matching result) by grade, and the rules they come from.
TEST(Check, TheVerdictLineNamesTheCountsItRestsOn) {
  auto set = rules(
      "name: node acceptance\nrules:\n  - {probe: storage.io, metric: iops, min: 100}\n"
      "  - {probe: storage.io, metric: lat_p99, max: 0.001, warn: 10}\n");
  Report r;
  for (double iops : {99.0, 150.0}) {
    r.results.push_back(make_result("storage.io", {{"rw", "randread"}, {"bs", iops}}, "iops", iops, "1/s"));
    r.results.back().add_metric("lat_p99", 0.0005, "s", Better::lower);
  }
  auto c = check_report(r, set);
  ASSERT_EQ(c.items.size(), 4u);
  EXPECT_EQ(c.rules, 2u);
  EXPECT_EQ(check_verdict(c),
            "check: fail — 1 of 4 checks failed, 0 warned, 3 passed; 2 rules from node acceptance");
  const Json j = check_to_json(c);
  EXPECT_EQ(j["verdict"], "fail");
  EXPECT_EQ(j["rules"], 2);
  r.results[0].metrics[0].value = 104;
  EXPECT_EQ(
      check_verdict(check_report(r, set)),
      "check: pass with warnings — 0 of 4 checks failed, 1 warned, 3 passed; 2 rules from node acceptance");
  r.results[0].metrics[0].value = 200;
  EXPECT_EQ(check_verdict(check_report(r, set)),
            "check: pass — 0 of 4 checks failed, 0 warned, 4 passed; 2 rules from node acceptance");
}

TEST(Check, StatusesAndMissingResults) {
  auto set = rules(
      "rules:\n  - {probe: gpu.hbm, metric: bandwidth, min: 1}\n  - {probe: net.nccl, metric: busbw, min: "
      "1}\n");
  Report r;
  r.results.push_back(make_result("gpu.hbm", {{"kernel", "copy"}}, "bandwidth", 5, "B/s"));
  r.results.back().status = Status::incorrect;
  r.results.back().reason = "array check failed";
  r.results.push_back(make_result("gpu.hbm", {{"kernel", "triad"}}, "bandwidth", 5, "B/s"));
  r.results.back().status = Status::skipped;
  r.results.back().reason = "no GPU";
  auto c = check_report(r, set);
  ASSERT_EQ(c.items.size(), 3u);
  EXPECT_EQ(c.items[0].grade, Grade::fail);
  EXPECT_NE(c.items[0].detail.find("incorrect: array check failed"), std::string::npos);
  // Not measured is not a pass: a node whose driver is broken must not pass acceptance.
  EXPECT_EQ(c.items[1].grade, Grade::fail);
  EXPECT_EQ(c.items[1].detail, "not measured: gpu.hbm skipped — no GPU");
  EXPECT_EQ(c.items[2].grade, Grade::fail);
  EXPECT_EQ(c.items[2].detail, "not measured: no net.nccl result matches this rule");
  EXPECT_TRUE(std::isnan(c.items[2].value));
  EXPECT_TRUE(c.failed());

  auto allowed = check_report(r, set, CheckOptions{.allow_missing = true});
  ASSERT_EQ(allowed.items.size(), 3u);
  EXPECT_EQ(allowed.items[0].grade, Grade::fail);  // incorrect stays a failure
  EXPECT_EQ(allowed.items[1].grade, Grade::warn);
  EXPECT_EQ(allowed.items[2].grade, Grade::warn);
}

// A result stopped partway (interrupted) is not a measurement: "not measured", never a pass, whatever its
// figures; --allow-missing makes it a warning as for a skipped one.
TEST(Check, AnInterruptedResultIsNotMeasured) {
  auto set = rules("rules:\n  - {probe: storage.io, metric: iops, min: 1}\n");
  Report r;
  r.results.push_back(make_result("storage.io", {{"rw", "randread"}}, "iops", 5e4, "1/s"));
  r.results.back().status = Status::interrupted;
  r.results.back().reason = "interrupted after 1.00 s of measurement";
  auto c = check_report(r, set);
  ASSERT_EQ(c.items.size(), 1u);
  EXPECT_EQ(c.items[0].grade, Grade::fail);
  EXPECT_EQ(c.items[0].detail,
            "not measured: storage.io interrupted — interrupted after 1.00 s of measurement");
  EXPECT_TRUE(std::isnan(c.items[0].value));
  EXPECT_EQ(check_report(r, set, CheckOptions{.allow_missing = true}).items[0].grade, Grade::warn);
}

// A row without a value still says in which unit its bound is: from the report's other results of the
// metric, else from the rule (the catalog's floors name theirs).
TEST(Check, RowsWithoutAValueKeepTheirUnit) {
  auto set = rules("rules:\n  - {probe: gpu.hbm, metric: bandwidth, min: 2e12}\n");
  Report r;
  r.results.push_back(make_result("gpu.hbm", {{"kernel", "copy"}, {"device", 0}}, "bandwidth", 3e12, "B/s"));
  r.results.push_back(make_result("gpu.hbm", {{"kernel", "copy"}, {"device", 1}}, "bandwidth", 0, "B/s"));
  r.results.back().status = Status::failed;
  r.results.back().reason = "launch failed";
  r.results.back().metrics.clear();
  auto c = check_report(r, set);
  ASSERT_EQ(c.items.size(), 2u);
  EXPECT_EQ(c.items[1].unit, "B/s");
  EXPECT_EQ(c.items[1].expected, c.items[0].expected);
  EXPECT_NE(c.items[1].expected.find("B/s"), std::string::npos) << c.items[1].expected;

  auto with_unit = rules("rules:\n  - {probe: gpu.gemm, metric: tflops, min: 692e12, unit: FLOP/s}\n");
  auto missing = check_report(Report{}, with_unit);
  ASSERT_EQ(missing.items.size(), 1u);
  EXPECT_NE(missing.items[0].expected.find("FLOP/s"), std::string::npos) << missing.items[0].expected;
}

TEST(Check, ThresholdFileErrorsNameTheRule) {
  EXPECT_NE(usage_error("rules:\n  - {probe: a.b, metric: x}\n")
                .find("t.yaml: rule 1 (a.b x): give 'min' and/or 'max'"),
            std::string::npos);
  EXPECT_NE(usage_error("rules:\n  - {probe: a.b, metric: x, min: 1, mni: 2}\n").find("unknown key 'mni'"),
            std::string::npos);
  EXPECT_NE(usage_error("rules:\n  - {probe: a.b, metric: x, min: fast}\n").find("'min' must be a number"),
            std::string::npos);
  EXPECT_NE(usage_error("rules:\n  - {probe: a.b, metric: x, min: 1, select: worst}\n").find("'select'"),
            std::string::npos);
  EXPECT_NE(usage_error("rules:\n  - {probe: a.b, metric: x, min: 1, warn: 120}\n").find("'warn'"),
            std::string::npos);
  EXPECT_NE(usage_error("rules:\n  - {probe: a.b, metric: x, min: 2, max: 1}\n").find("above"),
            std::string::npos);
  EXPECT_NE(usage_error("gpus: []\n").find("not a thresholds file"), std::string::npos);
}

TEST(Check, CatalogFloorsForTheFixtureH100) {
  auto reports = load_reports({test::reports_data("run_a.json").string()});
  auto set = catalog_expectations(reports[0].report, catalog());
  // 5 precisions × 2 GPUs of GEMM, copy and triad (not read: no floor for it) × 2 GPUs of HBM.
  EXPECT_EQ(set.rules.size(), 14u);
  auto c = check_report(reports[0].report, set);
  std::map<std::string, Grade> gemm;
  for (const auto& i : c.items) {
    if (i.probe == "gpu.gemm" && i.device == "gpu0") gemm[i.params["precision"].get<std::string>()] = i.grade;
    if (i.probe == "gpu.hbm") {
      EXPECT_EQ(i.grade, Grade::pass) << i.params.dump();
      EXPECT_GE(i.value, 0.88 * 3.35e12);
    }
  }
  // Fixture efficiencies at 8192³: bf16/fp16 77 %, fp32 78 % → pass; tf32 74 %, fp8 71 % → inside the 70-75 %
  // band.
  EXPECT_EQ(gemm, (std::map<std::string, Grade>{{"bf16", Grade::pass},
                                                {"fp16", Grade::pass},
                                                {"fp32", Grade::pass},
                                                {"fp8", Grade::warn},
                                                {"tf32", Grade::warn}}));
  EXPECT_FALSE(c.failed());
}

// Thresholds take the flags' suffixes, read by the rule's unit (base/units.hpp, the one parser): the same
// bounds written with suffixes and as SI numbers are the same rules.
TEST(Check, BoundsTakeTheFlagsSuffixesByTheRulesUnit) {
  auto suffixed = rules(
      "rules:\n"
      "  - {probe: storage.io, metric: lat_p99, unit: s, max: 250us}\n"
      "  - {probe: storage.io, metric: iops, unit: 1/s, min: 700k}\n"
      "  - {probe: storage.io, metric: bandwidth, unit: B/s, min: 5.5G}\n"
      "  - {probe: gpu.gemm, metric: tflops, unit: FLOP/s, min: 692T}\n"
      "  - {probe: x, metric: size, unit: B, min: 4k}\n");
  ASSERT_EQ(suffixed.rules.size(), 5u);
  EXPECT_DOUBLE_EQ(*suffixed.rules[0].max, 250e-6);
  EXPECT_DOUBLE_EQ(*suffixed.rules[1].min, 700e3);
  EXPECT_DOUBLE_EQ(*suffixed.rules[2].min, 5.5e9);
  EXPECT_DOUBLE_EQ(*suffixed.rules[3].min, 692e12);
  EXPECT_DOUBLE_EQ(*suffixed.rules[4].min, 4096);
  EXPECT_THROW(rules("rules:\n  - {probe: x, metric: y, unit: s, max: 2days}\n"), UsageError);
}

TEST(Check, CatalogFailsTheSlowGpu) {
  auto reports = load_reports({test::reports_data("fleet/node07.json").string()});
  auto c = check_report(reports[0].report, catalog_expectations(reports[0].report, catalog()));
  EXPECT_TRUE(c.failed());
  for (const auto& i : c.items) {
    if (i.grade == Grade::fail) {
      EXPECT_EQ(i.device, "gpu1");
    }
  }
}

TEST(Check, CatalogNeedsAKnownGpu) {
  auto cpu = load_reports({test::reports_data("cpu_only.json").string()});
  EXPECT_THROW(catalog_expectations(cpu[0].report, catalog()), UsageError);
  Report r;
  r.host = Json{{"gpus", Json::array({Json{
                             {"index", 0}, {"name", "Imaginary GPU 9000"}, {"compute_capability", "9.9"}}})}};
  r.results.push_back(
      make_result("gpu.gemm", {{"precision", "bf16"}, {"device", 0}}, "tflops", 1e12, "FLOP/s"));
  try {
    catalog_expectations(r, catalog());
    FAIL() << "expected a UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("'Imaginary GPU 9000' is not in the hardware catalog"),
              std::string::npos);
  }
}

// A node whose catalog probes ran and measured nothing (no driver: skipped as a whole, without case params)
// is a failed node: a rule per probe that fails, or warns with allow_missing, naming why. A report that never
// ran them has nothing the catalog can judge.
TEST(Check, CatalogFailsACatalogProbeThatMeasuredNothing) {
  Report r;
  for (const char* probe : {"gpu.gemm", "gpu.hbm"}) {
    r.results.push_back(make_result(probe, Json::object(), "x", 0, ""));
    r.results.back().metrics.clear();
    r.results.back().status = Status::skipped;
    r.results.back().reason = "no NVIDIA driver";
  }
  r.results.push_back(make_result("host.membw", {{"kernel", "copy"}}, "bandwidth", 5e10, "B/s"));
  const auto set = catalog_expectations(r, catalog());
  ASSERT_EQ(set.rules.size(), 2u);
  auto c = check_report(r, set);
  ASSERT_EQ(c.items.size(), 2u);
  EXPECT_EQ(c.items[0].grade, Grade::fail);
  EXPECT_EQ(c.items[0].detail, "not measured: gpu.gemm skipped — no NVIDIA driver");
  EXPECT_EQ(c.items[0].unit, "FLOP/s");
  EXPECT_EQ(c.items[1].detail, "not measured: gpu.hbm skipped — no NVIDIA driver");
  EXPECT_TRUE(c.failed());
  EXPECT_FALSE(check_report(r, set, CheckOptions{.allow_missing = true}).failed());
  // A failed probe fails its rule with its reason.
  r.results[0].status = Status::failed;
  r.results[0].reason = "cuBLASLt init failed";
  auto failed = check_report(r, catalog_expectations(r, catalog()));
  EXPECT_EQ(failed.items[0].grade, Grade::fail);
  EXPECT_EQ(failed.items[0].detail, "failed: cuBLASLt init failed");
  r.results.erase(r.results.begin(), r.results.begin() + 2);
  EXPECT_THROW(catalog_expectations(r, catalog()), UsageError);
}

TEST(Check, ShippedAcceptanceFilesLoadAndJudgeTheFixture) {
  auto dir = std::filesystem::path(MLBENCH_SOURCE_DIR) / "configs" / "acceptance";
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    ++files;
    auto set = load_expectations(entry.path());
    EXPECT_FALSE(set.rules.empty()) << entry.path();
  }
  EXPECT_EQ(files, 5u);
  auto good = load_reports({test::reports_data("fleet/node01.json").string()});
  auto bad = load_reports({test::reports_data("fleet/node07.json").string()});
  auto h100 = load_expectations(dir / "h100-sxm.yaml");
  EXPECT_FALSE(check_report(good[0].report, h100).failed());
  EXPECT_TRUE(check_report(bad[0].report, h100).failed());
}

}  // namespace
}  // namespace mlbench
