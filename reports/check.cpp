#include "reports/check.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "base/error.hpp"
#include "bench/host_view.hpp"
#include "bench/yaml_json.hpp"
#include "reports/inputs.hpp"
#include "reports/summary.hpp"

namespace mlbench {
namespace {

constexpr double kDefaultWarnPct = 5;

Grade grade_value(double v, const Expectation& e) {
  if (!std::isfinite(v)) return Grade::fail;
  if (e.min && v < *e.min) return Grade::fail;
  if (e.max && v > *e.max) return Grade::fail;
  if (e.min && v < *e.min * (1 + e.warn)) return Grade::warn;
  if (e.max && v > *e.max * (1 - e.warn)) return Grade::warn;
  return Grade::pass;
}

std::string expected_text(const Expectation& e, const std::string& unit) {
  std::string out;
  if (e.min) {
    out = fmt::format("≥ {} (warn < {})", format_metric_value(*e.min, unit),
                      format_metric_value(*e.min * (1 + e.warn), unit));
  }
  if (e.max) {
    out += (out.empty() ? "" : ", ") + fmt::format("≤ {} (warn > {})", format_metric_value(*e.max, unit),
                                                   format_metric_value(*e.max * (1 - e.warn), unit));
  }
  return out;
}

double number_field(const Json& rule, const char* key, const std::string& where) {
  const Json& v = rule.at(key);
  if (!v.is_number())
    throw UsageError(fmt::format("{}: '{}' must be a number (SI units: FLOP/s, B/s, 1/s, s)", where, key));
  return v.get<double>();
}

// A bound in the rule's unit: a number, or a quantity in the flags' grammar read by that unit
// (bench/yaml_json.hpp quantity_value): "250us" with unit s, "700k" with 1/s, "5.5G" with B/s, "4k" with B.
double bound_field(const Json& rule, const char* key, std::string_view unit, const std::string& where) {
  try {
    return quantity_value(rule.at(key), unit, key);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format(
        "{}: '{}' must be a number (SI units: FLOP/s, B/s, 1/s, s) or a quantity in the rule's unit (250us, "
        "700k, 5.5G): {}",
        where, key, e.what()));
  }
}

std::string text_field(const Json& j, const char* key, const std::string& fallback,
                       const std::string& where) {
  if (!j.contains(key)) return fallback;
  if (!j[key].is_string()) throw UsageError(fmt::format("{}: '{}' must be a string", where, key));
  return j[key].get<std::string>();
}

// The entry of host.gpus for a device index (by its `index` field, else by position).
const Json* host_gpu(const Json& host, long long index) {
  const Json& gpus = HostView(host).gpus;
  for (const auto& g : gpus) {
    if (g.is_object() && g.value("index", -1LL) == index) return &g;
  }
  if (index >= 0 && static_cast<std::size_t>(index) < gpus.size())
    return &gpus[static_cast<std::size_t>(index)];
  return nullptr;
}

// The unit of a rule's metric: as the report's results of its probe carry it, else the rule's own.
std::string unit_of(const Report& report, const Expectation& e) {
  for (const auto& r : report.results) {
    if (r.probe != e.probe) continue;
    if (const Metric* m = r.metric(e.metric)) return m->unit;
  }
  return e.unit;
}

std::string str_field(const Json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

}  // namespace

std::string_view to_string(Grade g) { return name_of(kGradeNames, g); }

const std::vector<CatalogFloor>& catalog_floors() {
  // GEMM: published best-shape BF16 numbers sit at 80-87 % of the dense peak, so < 70 % is a broken or
  // throttled GPU and 70-75 % is worth a look. HBM: good STREAM kernels reach ~90 %. Both: METHODS.md
  // "Reference figures".
  static const std::vector<CatalogFloor> kFloors = {
      {"gpu.gemm", "tflops", PeakKind::compute, "FLOP/s", "precision", {}, 0.70, 0.75},
      {"gpu.hbm",
       "bandwidth",
       PeakKind::memory_bandwidth,
       "B/s",
       "kernel",
       {"copy", "scale", "add", "triad"},
       0.85,
       0.88},
  };
  return kFloors;
}

bool params_match(const Json& params, const Json& match) {
  if (!match.is_object()) return true;
  for (const auto& [key, want] : match.items()) {
    if (!params.is_object() || !params.contains(key)) return false;
    const Json& have = params[key];
    if (want.is_array()) {
      if (std::find(want.begin(), want.end(), have) == want.end()) return false;
    } else if (have != want) {
      return false;
    }
  }
  return true;
}

ExpectationSet expectations_from_json(const Json& j, const std::string& name) {
  static const std::set<std::string> kTop = {"name", "description", "warn", "rules"};
  static const std::set<std::string> kRule = {"probe", "match",  "metric", "min", "max",
                                              "warn",  "select", "note",   "unit"};
  if (!j.is_object() || !j.contains("rules") || !j["rules"].is_array()) {
    throw UsageError(fmt::format("{}: not a thresholds file (expected a mapping with a 'rules' list)", name));
  }
  for (const auto& [key, _] : j.items()) {
    if (!kTop.count(key)) {
      throw UsageError(
          fmt::format("{}: unknown key '{}' (allowed: name, description, warn, rules)", name, key));
    }
  }
  double default_warn = kDefaultWarnPct;
  if (j.contains("warn")) default_warn = number_field(j, "warn", name);
  ExpectationSet set;
  set.name = text_field(j, "name", name, name);
  std::size_t i = 0;
  for (const auto& rule : j["rules"]) {
    std::string where = fmt::format("{}: rule {}", name, ++i);
    if (!rule.is_object()) throw UsageError(where + ": must be a mapping with probe, metric and min/max");
    for (const auto& [key, _] : rule.items()) {
      if (!kRule.count(key)) {
        throw UsageError(fmt::format(
            "{}: unknown key '{}' (allowed: probe, match, metric, min, max, warn, select, note, unit)", where,
            key));
      }
    }
    Expectation e;
    if (!rule.contains("probe") || !rule["probe"].is_string() || !rule.contains("metric") ||
        !rule["metric"].is_string()) {
      throw UsageError(where + ": 'probe' and 'metric' are required strings");
    }
    e.probe = rule["probe"].get<std::string>();
    e.metric = rule["metric"].get<std::string>();
    where += fmt::format(" ({} {})", e.probe, e.metric);
    if (rule.contains("match")) {
      if (!rule["match"].is_object()) throw UsageError(where + ": 'match' must map params to values");
      e.match = rule["match"];
    }
    e.unit = text_field(rule, "unit", "", where);
    if (rule.contains("min")) e.min = bound_field(rule, "min", e.unit, where);
    if (rule.contains("max")) e.max = bound_field(rule, "max", e.unit, where);
    if (!e.min && !e.max) throw UsageError(where + ": give 'min' and/or 'max'");
    if (e.min && e.max && *e.min > *e.max) throw UsageError(where + ": 'min' is above 'max'");
    double warn_pct = rule.contains("warn") ? number_field(rule, "warn", where) : default_warn;
    if (warn_pct < 0 || warn_pct >= 100) throw UsageError(where + ": 'warn' is a percentage in [0, 100)");
    e.warn = warn_pct / 100;
    std::string select = text_field(rule, "select", "each", where);
    if (select != "each" && select != "best") throw UsageError(where + ": 'select' is 'each' or 'best'");
    e.best = select == "best";
    e.note = text_field(rule, "note", "", where);
    set.rules.push_back(std::move(e));
  }
  if (set.rules.empty()) throw UsageError(fmt::format("{}: 'rules' is empty", name));
  return set;
}

ExpectationSet load_expectations(const std::filesystem::path& path) {
  return expectations_from_json(load_yaml_file(path), path.string());
}

ExpectationSet catalog_expectations(const Report& report, const std::vector<GpuSpec>& catalog) {
  ExpectationSet set;
  set.name = "catalog";
  std::set<std::string> made;
  std::set<std::string> unknown;
  for (const auto& r : report.results) {
    for (const auto& floor : catalog_floors()) {
      if (r.probe != floor.probe || !r.params.is_object() || !r.params.contains(floor.selector)) continue;
      const Json& sel = r.params[floor.selector];
      if (!sel.is_string()) continue;
      std::string selected = sel.get<std::string>();
      bool has_device = r.params.contains("device") && r.params["device"].is_number_integer();
      long long index = has_device ? r.params["device"].get<long long>() : 0;
      const Json* gpu = host_gpu(report.host, index);
      if (gpu == nullptr) continue;
      const GpuSpec* spec =
          match_gpu(catalog, str_field(*gpu, "name"), str_field(*gpu, "compute_capability"));
      if (spec == nullptr) {
        unknown.insert(str_field(*gpu, "name"));
        continue;
      }
      double peak = 0;
      std::string peak_text;
      if (floor.peak == PeakKind::compute) {
        auto p = spec->peak_for(selected);
        if (!p) continue;
        peak = *p;
        peak_text = fmt::format("{} {} peak {}", spec->name, selected, format_metric_value(peak, floor.unit));
      } else {
        if (std::find(floor.values.begin(), floor.values.end(), selected) == floor.values.end()) continue;
        peak = spec->memory_bandwidth;
        peak_text = fmt::format("{} datasheet {}", spec->name, format_metric_value(peak, floor.unit));
      }
      std::string key = fmt::format("{}/{}/{}/{}", floor.probe, floor.metric, index, selected);
      if (!made.insert(key).second) continue;
      Expectation e;
      e.probe = floor.probe;
      e.metric = floor.metric;
      e.match = Json{{floor.selector, selected}};
      if (has_device) e.match["device"] = index;
      e.min = peak * floor.fail_below;
      e.warn = floor.warn_below / floor.fail_below - 1;
      e.best = floor.peak == PeakKind::compute;
      e.device = fmt::format("gpu{}", index);
      e.unit = floor.unit;
      e.note = fmt::format("{:.0f} % of {}", 100 * floor.fail_below, peak_text);
      set.rules.push_back(std::move(e));
    }
  }
  // A catalog probe that ran but measured nothing (skipped as a whole: no driver, no GPU; or failed) is a
  // failed node, not a report without anything to check: one rule per such probe, without bounds, whose row
  // says why nothing was measured (check_report). A GPU the catalog lacks stays bad input: no floor judges
  // it.
  for (const auto& floor : unknown.empty() ? catalog_floors() : std::vector<CatalogFloor>{}) {
    bool ran = false, measured = false;
    for (const auto& r : report.results) {
      if (r.probe != floor.probe) continue;
      ran = true;
      measured = measured || r.status == Status::ok;
    }
    if (!ran || measured) continue;
    Expectation e;
    e.probe = floor.probe;
    e.metric = floor.metric;
    e.unit = floor.unit;
    set.rules.push_back(std::move(e));
  }
  if (set.rules.empty()) {
    std::string why = unknown.empty()
                          ? "no gpu.gemm or gpu.hbm results of a GPU in the catalog"
                          : fmt::format("GPU '{}' is not in the hardware catalog", *unknown.begin());
    throw UsageError(
        fmt::format("nothing to check against the catalog ({}); pass --expect FILE "
                    "(see configs/acceptance/)",
                    why));
  }
  return set;
}

std::size_t CheckResult::count(Grade g) const {
  return static_cast<std::size_t>(
      std::count_if(items.begin(), items.end(), [g](const CheckItem& i) { return i.grade == g; }));
}

CheckResult check_report(const Report& report, const ExpectationSet& expectations, const CheckOptions& opts) {
  CheckResult out;
  out.source = expectations.name;
  out.rules = expectations.rules.size();
  const Grade missing = opts.allow_missing ? Grade::warn : Grade::fail;
  for (const auto& e : expectations.rules) {
    auto add = [&](CheckItem item) {  // every row carries its rule's bounds, for the CSV
      item.min = e.min;
      item.max = e.max;
      item.warn = e.warn;
      out.items.push_back(std::move(item));
    };
    // Per device: the matching results, in report order.
    std::map<std::string, std::vector<const Result*>> by_device;
    for (const auto& r : report.results) {
      if (r.probe == e.probe && params_match(r.params, e.match)) by_device[device_label(r)].push_back(&r);
    }
    const std::string unit = unit_of(report, e);
    if (by_device.empty()) {
      // A probe skipped as a whole (no GPU, no driver) left one result without its case params: its reason
      // is why nothing matches.
      auto skipped = std::find_if(report.results.begin(), report.results.end(), [&](const Result& r) {
        return r.probe == e.probe && r.status == Status::skipped;
      });
      add(CheckItem{e.probe, e.match, e.device, e.metric, unit, std::nan(""), missing, expected_text(e, unit),
                    skipped != report.results.end()
                        ? fmt::format("not measured: {} skipped — {}", e.probe, skipped->reason)
                        : fmt::format("not measured: no {} result matches this rule", e.probe)});
      continue;
    }
    for (const auto& [device, results] : by_device) {
      const Result* best = nullptr;
      const Metric* best_metric = nullptr;
      for (const Result* r : results) {
        // Skipped, or stopped partway (its figures cover less than the case asked): not a measurement.
        if (r->status == Status::skipped || r->status == Status::interrupted) {
          add(CheckItem{r->probe, r->params, device, e.metric, unit, std::nan(""), missing,
                        expected_text(e, unit),
                        fmt::format("not measured: {} {} — {}", r->probe, to_string(r->status), r->reason)});
          continue;
        }
        if (r->status != Status::ok) {
          add(CheckItem{r->probe, r->params, device, e.metric, unit, std::nan(""), Grade::fail,
                        expected_text(e, unit), fmt::format("{}: {}", to_string(r->status), r->reason)});
          continue;
        }
        const Metric* m = r->metric(e.metric);
        if (m == nullptr) {
          add(CheckItem{r->probe, r->params, device, e.metric, unit, std::nan(""), Grade::fail,
                        expected_text(e, unit), "the result has no such metric"});
          continue;
        }
        if (!e.best) {
          add(CheckItem{r->probe, r->params, device, e.metric, m->unit, m->value, grade_value(m->value, e),
                        expected_text(e, m->unit), e.note});
          continue;
        }
        bool better = best_metric == nullptr || (m->better == Better::higher ? m->value > best_metric->value
                                                                             : m->value < best_metric->value);
        if (better) {
          best = r;
          best_metric = m;
        }
      }
      if (best != nullptr) {
        add(CheckItem{best->probe, best->params, device, e.metric, best_metric->unit, best_metric->value,
                      grade_value(best_metric->value, e), expected_text(e, best_metric->unit),
                      e.note.empty() ? "best of the matching results" : e.note + " (best result)"});
      }
    }
  }
  return out;
}

std::string check_verdict(const CheckResult& c) {
  const char* verdict = c.failed() ? "fail" : (c.count(Grade::warn) > 0 ? "pass with warnings" : "pass");
  return fmt::format("check: {} — {} of {} checks failed, {} warned, {} passed; {} rule{} from {}", verdict,
                     c.count(Grade::fail), c.items.size(), c.count(Grade::warn), c.count(Grade::pass),
                     c.rules, c.rules == 1 ? "" : "s", c.source);
}

Table check_table(const CheckResult& c) {
  Table t{fmt::format("{} against {}: {} pass, {} warn, {} fail", c.file, c.source, c.count(Grade::pass),
                      c.count(Grade::warn), c.count(Grade::fail)),
          {"grade", "probe", "device", "params", "metric", "value", "expected", "detail"},
          {}};
  for (const auto& i : c.items) {
    Tone tone = i.grade == Grade::pass ? Tone::good : (i.grade == Grade::warn ? Tone::warn : Tone::bad);
    t.rows.push_back(
        {Cell{std::string(to_string(i.grade)), tone}, Cell{i.probe}, Cell{i.device},
         Cell{format_params(params_without_device(i.params))}, Cell{i.metric},
         Cell{std::isfinite(i.value) ? format_metric_value(i.value, i.unit) : "-", Tone::plain, true},
         Cell{i.expected}, Cell{i.detail}});
  }
  return t;
}

Table check_data(const CheckResult& c) {
  Table t{
      "",
      {"grade", "probe", "device", "params", "metric", "unit", "value", "min", "max", "warn_pct", "detail"},
      {}};
  auto opt = [](const std::optional<double>& v) { return v ? csv_number(*v) : std::string(); };
  for (const auto& i : c.items) {
    t.rows.push_back({Cell{std::string(to_string(i.grade))}, Cell{i.probe}, Cell{i.device},
                      Cell{format_params(params_without_device(i.params))}, Cell{i.metric}, Cell{i.unit},
                      Cell{csv_number(i.value)}, Cell{opt(i.min)}, Cell{opt(i.max)},
                      Cell{csv_number(100 * i.warn)}, Cell{i.detail}});
  }
  return t;
}

Json check_to_json(const CheckResult& c) {
  Json items = Json::array();
  for (const auto& i : c.items) {
    items.push_back(Json{{"grade", to_string(i.grade)},
                         {"probe", i.probe},
                         {"params", i.params},
                         {"device", i.device},
                         {"metric", i.metric},
                         {"unit", i.unit},
                         {"value", std::isfinite(i.value) ? Json(i.value) : Json(nullptr)},
                         {"expected", i.expected},
                         {"detail", i.detail}});
  }
  return Json{
      {"file", c.file},
      {"expectations", c.source},
      {"rules", c.rules},
      {"verdict", c.failed() ? "fail" : "pass"},
      {"summary",
       {{"pass", c.count(Grade::pass)}, {"warn", c.count(Grade::warn)}, {"fail", c.count(Grade::fail)}}},
      {"items", std::move(items)}};
}

}  // namespace mlbench
