// The report decoder against nlohmann::json's own parser: the same values and types for valid text, a
// rejection for every malformed text nlohmann rejects, and the report-shape errors with their paths.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "base/error.hpp"
#include "report/report.hpp"
#include "tests/common/files.hpp"

namespace mlbench {
namespace {

namespace fs = std::filesystem;

std::string wrap_params(const std::string& params) {
  return R"({"schema_version": "1.0.0", "results": [{"probe": "p", "status": "ok", "params": )" + params +
         "}]}";
}

std::string error_of(const std::string& text, ReadOptions opts = {}) {
  try {
    parse_report(text, "x.json", opts);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(ReportReader, MlbenchReportsReadBackIdentical) {
  std::size_t seen = 0;
  for (const auto& dir : {fs::path(MLBENCH_SOURCE_DIR) / "tests/data/golden",
                          fs::path(MLBENCH_SOURCE_DIR) / "tests/data/reports",
                          fs::path(MLBENCH_SOURCE_DIR) / "tests/data/reports/fleet"}) {
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.path().extension() != ".json") continue;
      std::string text = test::slurp(e.path());
      Json expected = Json::parse(text, nullptr, false);  // the bad-input fixtures are skipped
      if (expected.is_discarded() || !expected.is_object() ||
          !expected.value("schema_version", "").starts_with("1.")) {
        continue;
      }
      SCOPED_TRACE(e.path().string());
      EXPECT_EQ(to_json(parse_report(text, e.path().string())), expected);
      ++seen;
    }
  }
  EXPECT_GE(seen, 5u);
}

// A metric's confidence interval (a tail latency percentile's) reads back and writes out as it was.
TEST(ReportReader, ConfidenceIntervalsReadBack) {
  const std::string text =
      R"({"schema_version": "1.0.0", "results": [{"probe": "storage.io", "status": "ok", "metrics": [)"
      R"({"name": "lat_p9999", "value": 0.002, "unit": "s", "better": "lower", "ci": {"lo": 0.0015, "hi": 0.003}}]}]})";
  Report r = parse_report(text, "x.json");
  const Metric* m = r.results.at(0).metric("lat_p9999");
  ASSERT_NE(m, nullptr);
  ASSERT_TRUE(m->ci.has_value());
  EXPECT_DOUBLE_EQ(m->ci->lo, 0.0015);
  EXPECT_DOUBLE_EQ(m->ci->hi, 0.003);
  EXPECT_NEAR(relative_spread(*m), 0.0015 / (2 * kConfidenceZ * 0.002), 1e-12);
  EXPECT_EQ(to_json(r.results[0])["metrics"][0]["ci"], (Json{{"lo", 0.0015}, {"hi", 0.003}}));
}

// An open interval (schema 1.2: ci.open says why, the missing bound is null) reads back open, +infinity
// above, with its reason, and writes out as it was; a report without "open" is bounded as before.
TEST(ReportReader, AnOpenIntervalReadsBackOpen) {
  const std::string text =
      R"({"schema_version": "1.2.0", "results": [{"probe": "storage.io", "status": "ok", "metrics": [)"
      R"({"name": "lat_p9999", "value": 0.0093, "unit": "s", "better": "lower", "ci": {"lo": 0.0071, "hi": null, )"
      R"("open": "p99.99 of 4,851 I/Os: needs ≥ 36,887 I/Os"}}]}]})";
  Report r = parse_report(text, "x.json");
  const Metric* m = r.results.at(0).metric("lat_p9999");
  ASSERT_NE(m, nullptr);
  ASSERT_TRUE(m->ci.has_value());
  EXPECT_DOUBLE_EQ(m->ci->lo, 0.0071);
  EXPECT_TRUE(std::isinf(m->ci->hi) && m->ci->hi > 0);
  EXPECT_EQ(m->ci_open, "p99.99 of 4,851 I/Os: needs ≥ 36,887 I/Os");
  EXPECT_EQ(to_json(r.results[0])["metrics"][0]["ci"],
            (Json{{"lo", 0.0071}, {"hi", nullptr}, {"open", "p99.99 of 4,851 I/Os: needs ≥ 36,887 I/Os"}}));
}

TEST(ReportReader, SkippingSamplesKeepsEverythingElse) {
  std::string text =
      test::slurp(fs::path(MLBENCH_SOURCE_DIR) / "tests/data/golden/report-1.0.0-quick-cpu.json");
  Report all = parse_report(text, "golden");
  Report lean = parse_report(text, "golden", ReadOptions{.samples = false});
  ASSERT_EQ(all.results.size(), lean.results.size());
  std::size_t with_samples = 0;
  for (std::size_t i = 0; i < all.results.size(); ++i) {
    with_samples += all.results[i].samples.empty() ? 0 : 1;
    EXPECT_TRUE(lean.results[i].samples.empty());
    all.results[i].samples.clear();
    EXPECT_EQ(to_json(all.results[i]), to_json(lean.results[i]));
  }
  EXPECT_GT(with_samples, 0u);
}

TEST(ReportReader, NumbersKeepNlohmannTypes) {
  std::string params =
      R"({"u": 8192, "zero": 0, "neg": -3, "max": 18446744073709551615, "over": 18446744073709551616,
          "f": 1.5, "e": 1E3, "tiny": 1e-400, "negzero": -0, "min": -9223372036854775808})";
  Report r = parse_report(wrap_params(params), "x");
  Json got = r.results.at(0).params;
  Json want = Json::parse(params);
  EXPECT_EQ(got, want);
  for (const auto& [k, v] : want.items()) {
    SCOPED_TRACE(k);
    EXPECT_EQ(got[k].type(), v.type());
    EXPECT_EQ(got[k].dump(), v.dump());
  }
}

TEST(ReportReader, StringsDecodeLikeNlohmann) {
  std::string params = R"({"s": "a\"b\\c\/d\b\f\n\r\t\u00e9\u20ac\ud83d\ude00 é € 😀", "": "empty key"})";
  EXPECT_EQ(parse_report(wrap_params(params), "x").results.at(0).params, Json::parse(params));
}

TEST(ReportReader, MalformedJsonIsRejectedWithAPosition) {
  const std::string bad[] = {
      R"({"schema_version": "1.0.0", "results": [)",
      R"({"schema_version": "1.0.0", "results": [],})",
      R"({"schema_version": "1.0.0", "results": []} x)",
      wrap_params("01"),
      wrap_params("1."),
      wrap_params("1e"),
      wrap_params("-"),
      wrap_params("+1"),
      wrap_params("1e999"),
      wrap_params(R"("\x")"),
      wrap_params(R"("\u12")"),
      wrap_params(R"("\ud800")"),
      wrap_params(R"("\udc00")"),
      wrap_params("\"\xC0\x80\""),
      wrap_params("\"\xED\xA0\x80\""),
      wrap_params("\"\xF4\x90\x80\x80\""),
      wrap_params("\"\xE2\x82\""),
      wrap_params("\"tab\there\""),
      wrap_params("tru"),
      wrap_params("nul"),
      wrap_params("[1 2]"),
      wrap_params(R"({"a" 1})"),
      wrap_params("{1: 2}"),
      std::string("{\"schema_version\": \"1.0.0\", \"results\": [\0]}", 40),
      "",
  };
  for (const auto& text : bad) {
    SCOPED_TRACE(text);
    EXPECT_FALSE(Json::accept(text));
    std::string msg = error_of(text);
    EXPECT_NE(msg.find("x.json: not valid JSON (line "), std::string::npos) << msg;
  }
}

TEST(ReportReader, DeepNestingIsRefusedNotRecursedInto) {
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  std::string msg = error_of(wrap_params(deep));
  EXPECT_NE(msg.find("nested deeper than 512 levels"), std::string::npos) << msg;
}

TEST(ReportReader, ReportShapeErrorsNameTheValue) {
  auto with_result = [](const std::string& result) {
    return R"({"schema_version": "1.0.0", "results": [)" + result + "]}";
  };
  struct Case {
    std::string text, expect;
  };
  const Case cases[] = {
      {with_result(R"({"status": "ok"})"), "results[0].probe: expected a string (it is missing)"},
      {with_result(R"({"probe": 3, "status": "ok"})"), "results[0].probe: expected a string"},
      {with_result(R"({"probe": "p", "status": "weird"})"), "unknown result status 'weird'"},
      {with_result(R"({"probe": "p", "status": "ok", "metrics": [{"name": "iops", "value": "9"}]})"),
       "results[0].metrics[0].value: expected a number"},
      {with_result(R"({"probe": "p", "status": "ok", "metrics": [{"name": "iops", "value": 1,
                      "stats": {"min": 1}}]})"),
       "results[0].metrics[0].stats: expected min, p10, median, p90, max, mean, cv and n"},
      {with_result(R"({"probe": "p", "status": "ok", "metrics": [{"name": "lat_p9999", "value": 1,
                      "ci": {"lo": 1}}]})"),
       "results[0].metrics[0].ci: expected lo and hi"},
      {with_result(R"({"probe": "p", "status": "ok", "samples": ["a"]})"),
       "results[0].samples[0]: expected a number"},
      {with_result(R"({"probe": "p", "status": "ok", "warnings": "w"})"),
       "results[0].warnings: expected an array of strings"},
      {with_result("7"), "results[0]: expected an object"},
      {R"({"schema_version": "1.0.0", "results": {}})", "results: expected an array"},
      {R"({"schema_version": 1, "results": []})", "schema_version: expected a string"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    std::string msg = error_of(c.text);
    EXPECT_NE(msg.find("x.json: not a valid mlbench report ("), std::string::npos) << msg;
    EXPECT_NE(msg.find(c.expect), std::string::npos) << msg;
  }
}

TEST(ReportReader, VersionIsCheckedBeforeTheResults) {
  std::string newer = R"({"results": [{"changed": true}], "schema_version": "2.0.0"})";
  EXPECT_NE(error_of(newer).find("report schema 2.0.0 is newer"), std::string::npos) << error_of(newer);
  EXPECT_NE(error_of(R"([1, 2])").find("not an mlbench report"), std::string::npos);
  EXPECT_NE(error_of(R"({"results": []})").find("not an mlbench report"), std::string::npos);
  EXPECT_NE(error_of(R"({"schema_version": "x.1", "results": []})").find("malformed schema_version"),
            std::string::npos);
}

TEST(ReportReader, RepeatedKeysKeepTheLastLikeNlohmann) {
  std::string params = R"({"a": 1, "a": {"b": [1, 2]}})";
  EXPECT_EQ(parse_report(wrap_params(params), "x").results.at(0).params, Json::parse(params));
}

}  // namespace
}  // namespace mlbench
