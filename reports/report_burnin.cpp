// The burn-in report pieces: timelines (with bucket-mean decimation), phase spans and events, to and from
// JSON.
#include "reports/report_burnin.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "base/error.hpp"

namespace mlbench::burnin_report {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Json number_or_null(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

std::vector<double> numbers(const Json& j, std::string_view key) {
  if (!j.is_array()) throw Error(fmt::format("burn-in timeline: '{}' is not an array", key));
  std::vector<double> out;
  out.reserve(j.size());
  for (const auto& v : j) {
    if (v.is_null()) {
      out.push_back(kNaN);
    } else if (v.is_number()) {
      out.push_back(v.get<double>());
    } else {
      throw Error(fmt::format("burn-in timeline: '{}' holds a value that is not a number", key));
    }
  }
  return out;
}

const Json& member(const Json& j, std::string_view key, std::string_view what) {
  if (!j.is_object() || !j.contains(key)) throw Error(fmt::format("burn-in {}: no '{}'", what, key));
  return j.at(std::string(key));
}

}  // namespace

Verdict verdict_from_string(std::string_view s) {
  if (auto v = value_of(kVerdictNames, s)) return *v;
  throw Error(fmt::format("burn-in verdict: unknown verdict '{}' (pass, warn or fail)", s));
}

const std::vector<double>* Timeline::find(std::string_view name) const {
  for (const auto& [n, v] : series) {
    if (n == name) return &v;
  }
  return nullptr;
}

void Timeline::append(double time_s, const std::vector<std::pair<std::string, double>>& values) {
  for (const auto& sample : values) {
    const std::string& name = sample.first;
    auto it = std::find_if(series.begin(), series.end(), [&name](const auto& s) { return s.first == name; });
    if (it == series.end()) {
      series.emplace_back(name, std::vector<double>(t.size(), kNaN));
      it = std::prev(series.end());
    }
    it->second.push_back(sample.second);
  }
  t.push_back(time_s);
  for (auto& s : series) s.second.resize(t.size(), kNaN);  // series not in `values` get NaN
}

Timeline decimate(const Timeline& in, std::size_t max_points) {
  if (max_points == 0 || in.t.size() <= max_points) return in;
  const std::size_t n = in.t.size();
  auto bucket_mean = [&](const std::vector<double>& v, std::size_t lo, std::size_t hi) {
    double sum = 0;
    std::size_t count = 0;
    for (std::size_t i = lo; i < hi; ++i) {
      if (std::isfinite(v[i])) {
        sum += v[i];
        ++count;
      }
    }
    return count ? sum / static_cast<double>(count) : kNaN;
  };
  Timeline out;
  out.series.reserve(in.series.size());
  for (const auto& s : in.series) out.series.emplace_back(s.first, std::vector<double>{});
  for (std::size_t b = 0; b < max_points; ++b) {
    const std::size_t lo = b * n / max_points, hi = (b + 1) * n / max_points;
    if (lo == hi) continue;
    out.t.push_back(bucket_mean(in.t, lo, hi));
    for (std::size_t k = 0; k < in.series.size(); ++k) {
      out.series[k].second.push_back(bucket_mean(in.series[k].second, lo, hi));
    }
  }
  return out;
}

Json to_json(const Timeline& t) {
  Json j = Json::object();
  auto array = [](const std::vector<double>& v) {
    Json a = Json::array();
    for (double x : v) a.push_back(number_or_null(x));
    return a;
  };
  j["t"] = array(t.t);
  for (const auto& [name, values] : t.series) j[name] = array(values);
  return j;
}

Timeline timeline_from_json(const Json& j) {
  Timeline t;
  t.t = numbers(member(j, "t", "timeline"), "t");
  for (const auto& [key, value] : j.items()) {
    if (key == "t") continue;
    auto v = numbers(value, key);
    if (v.size() != t.t.size()) {
      throw Error(
          fmt::format("burn-in timeline: '{}' has {} points and 't' has {}", key, v.size(), t.t.size()));
    }
    t.series.emplace_back(key, std::move(v));
  }
  return t;
}

Json to_json(const PhaseSpan& p) {
  return Json{{"phase", p.phase}, {"start_s", p.start_s}, {"end_s", p.end_s}};
}

PhaseSpan phase_span_from_json(const Json& j) {
  const auto& phase = member(j, "phase", "phase");
  const auto& start = member(j, "start_s", "phase");
  const auto& end = member(j, "end_s", "phase");
  if (!phase.is_string() || !start.is_number() || !end.is_number()) {
    throw Error("burn-in phase: 'phase' must be a string and 'start_s'/'end_s' numbers");
  }
  return {phase.get<std::string>(), start.get<double>(), end.get<double>()};
}

Json to_json(const Event& e) {
  return Json{
      {"time_s", e.time_s}, {"device", e.device}, {"kind", e.kind}, {"code", e.code}, {"text", e.text}};
}

Event event_from_json(const Json& j) {
  const auto& time = member(j, "time_s", "event");
  const auto& device = member(j, "device", "event");
  const auto& kind = member(j, "kind", "event");
  if (!time.is_number() || !device.is_string() || !kind.is_string()) {
    throw Error("burn-in event: 'time_s' must be a number and 'device'/'kind' strings");
  }
  Event e{time.get<double>(), device.get<std::string>(), kind.get<std::string>(), 0, ""};
  if (j.contains("code") && j["code"].is_number_integer()) e.code = j["code"].get<int>();
  if (j.contains("text") && j["text"].is_string()) e.text = j["text"].get<std::string>();
  return e;
}

}  // namespace mlbench::burnin_report
