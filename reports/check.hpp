// `mlbench check REPORT [--expect FILE]`: pass / warn / fail per metric against expectations.
//
// An expectation is a rule: a probe, a params match, a metric and bounds. `min` fails below it and warns
// below min × (1 + warn); `max` fails above it and warns above max × (1 − warn). With `select: best` the best
// value among the matching results of one device is judged (a GEMM sweep passes on its best shape); with
// `select: each` (default) every matching result is. A matching result that failed or is incorrect fails the
// rule; one that was skipped or interrupted (stopped partway: its figures cover less than asked) and a rule
// that matches nothing are "not measured", which fails too (a node
// whose driver is broken must not pass acceptance) unless CheckOptions::allow_missing makes it a warning.
//
// Without --expect the rules come from the GPU catalog: per GPU of the report's host, datasheet peak × an
// efficiency floor (kCatalogFloors). Thresholds file format: see configs/acceptance/README.md.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "base/names.hpp"
#include "bench/gpu_catalog.hpp"
#include "report/report.hpp"
#include "reports/table.hpp"

namespace mlbench {

enum class Grade { pass, warn, fail };
inline constexpr EnumName<Grade> kGradeNames[] = {
    {Grade::pass, "pass"}, {Grade::warn, "warn"}, {Grade::fail, "fail"}};
static_assert(names_cover(kGradeNames));
std::string_view to_string(Grade g);

struct Expectation {
  std::string probe;
  Json match = Json::object();  // param -> value, or a list of accepted values
  std::string metric;
  std::optional<double> min, max;
  double warn = 0.05;  // fraction: the band inside a bound that warns
  bool best = false;   // select: best (per device) instead of each
  std::string device;  // catalog rules only: the device label they apply to ("gpu0")
  std::string note;    // where the bound comes from
  std::string unit;    // of the bounds, for rows without a value when the report has none of the metric
};

struct ExpectationSet {
  std::string name;
  std::vector<Expectation> rules;
};

// The catalog's efficiency floors: fail below `fail_below` × peak, warn below `warn_below` × peak.
enum class PeakKind { compute, memory_bandwidth };
struct CatalogFloor {
  const char* probe;
  const char* metric;
  PeakKind peak;
  const char* unit;      // of the metric
  const char* selector;  // params key that picks the peak (precision) or restricts the rule ("kernel")
  std::vector<const char*> values;  // for PeakKind::memory_bandwidth: kernels the floor applies to
  double fail_below;
  double warn_below;
};
const std::vector<CatalogFloor>& catalog_floors();

// Loads a thresholds file; UsageError names the file, rule index and field.
ExpectationSet load_expectations(const std::filesystem::path& path);
ExpectationSet expectations_from_json(const Json& j, const std::string& name);
// Rules for the GPUs in `report` (host.gpus matched against the catalog), and for each catalog probe that ran
// but measured nothing (every result skipped or failed) a rule without bounds that fails as "not measured":
// a report of a node that measured nothing is a valid report of a failed node. UsageError when no rule can
// be derived (no result of a catalog probe, or a GPU the catalog lacks): the message says to pass --expect.
ExpectationSet catalog_expectations(const Report& report, const std::vector<GpuSpec>& catalog);

bool params_match(const Json& params, const Json& match);

struct CheckItem {
  std::string probe;
  Json params;
  std::string device;
  std::string metric;
  std::string unit;
  double value = 0;  // NaN when there is no value (status not ok, not measured)
  Grade grade = Grade::pass;
  std::string expected;            // "≥ 692 TFLOP/s (warn < 742 TFLOP/s)"
  std::string detail;              // the rule's note, a status reason, "not measured"
  std::optional<double> min, max;  // the rule's bounds, in `unit`
  double warn = 0;                 // the rule's warn band (fraction)
};

struct CheckResult {
  std::string file;
  std::string source;     // the thresholds file or "catalog"
  std::size_t rules = 0;  // the rules judged; each gives one item or more (per device or matching result)
  std::vector<CheckItem> items;
  std::size_t count(Grade g) const;
  bool failed() const { return count(Grade::fail) > 0; }
};

struct CheckOptions {
  bool allow_missing = false;  // --allow-missing: "not measured" warns instead of failing
};

CheckResult check_report(const Report& report, const ExpectationSet& expectations,
                         const CheckOptions& opts = {});

// One line, what happened first, then what it rests on: "check: fail — 2 of 14 checks failed, 1 warned, 11
// passed; 9 rules from H100 SXM node" (pass, "pass with warnings" or fail).
std::string check_verdict(const CheckResult& c);
Table check_table(const CheckResult& c);
// The data for spreadsheets (Format::csv): one row per item with its numbers unformatted in the row's unit
// (value, and the bounds min/max when the rule has them; warn_pct the warn band).
Table check_data(const CheckResult& c);
Json check_to_json(const CheckResult& c);

}  // namespace mlbench
