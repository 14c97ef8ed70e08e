// The burn-in report pieces: timelines (with bucket-mean decimation), phase spans and events, to and from
// JSON.
#include "report/report_burnin.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/ranges.h>

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

PhaseOutcome phase_outcome(const Result& r) {
  const Metric* errors = r.metric(kErrorsMetric);
  if (r.status == Status::failed || r.status == Status::incorrect || (errors != nullptr && errors->value > 0))
    return PhaseOutcome::failed;
  const auto it = r.info.is_object() ? r.info.find("iterations") : r.info.end();
  const bool ran = r.info.is_object() && it != r.info.end() && it->is_number();
  if (ran && it->get<double>() == 0) return PhaseOutcome::incomplete;
  return r.status == Status::skipped ? PhaseOutcome::skipped : PhaseOutcome::passed;
}

namespace {

std::string plural(std::size_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

std::string param(const Result& r, const char* key) {
  return r.params.is_object() && r.params.contains(key) && r.params[key].is_string()
             ? r.params[key].get<std::string>()
             : std::string();
}

// "hostmem" for a result of the hostmem phase, "storage" for storage's result in "all", "gemm gpu1" for a
// GPU's.
std::string load_label(const Result& r, const std::string& phase) {
  std::string label = r.probe.substr(std::min(r.probe.size(), kPhaseProbePrefix.size()));
  const std::string device = param(r, "device");
  if (label == phase) label.clear();
  if (device.starts_with("gpu")) label += (label.empty() ? "" : " ") + device;
  return label;
}

// info.iterations: the full verified passes of a result; nullopt when it does not say.
std::optional<std::uint64_t> passes_of(const Result& r) {
  if (!r.info.is_object()) return std::nullopt;
  const auto it = r.info.find("iterations");
  if (it == r.info.end() || !it->is_number()) return std::nullopt;
  return static_cast<std::uint64_t>(it->get<double>());
}

}  // namespace

std::string verdict_banner(const std::vector<Result>& results) {
  const Result* node = nullptr;
  std::size_t gpus = 0;
  std::size_t gpu_verdicts[std::size(kVerdictNames)] = {};
  // The phases in the order they ran, each with its results.
  std::vector<std::pair<std::string, std::vector<const Result*>>> phases;
  for (const auto& r : results) {
    if (r.probe == kNodeProbe) {
      node = &r;
    } else if (r.probe == kGpuProbe) {
      ++gpus;
      if (r.info.is_object() && r.info.contains("verdict") && r.info["verdict"].is_string()) {
        if (auto v = value_of(kVerdictNames, r.info["verdict"].get<std::string>()))
          ++gpu_verdicts[static_cast<std::size_t>(*v)];
      }
    } else if (r.probe != kHostProbe && r.probe.starts_with(kPhaseProbePrefix)) {
      std::string phase = param(r, "phase");
      if (phase.empty()) phase = r.probe.substr(kPhaseProbePrefix.size());
      auto it = std::find_if(phases.begin(), phases.end(), [&](const auto& p) { return p.first == phase; });
      if (it == phases.end()) it = phases.emplace(phases.end(), phase, std::vector<const Result*>{});
      it->second.push_back(&r);
    }
  }
  std::optional<Verdict> verdict;
  if (node != nullptr && node->info.is_object() && node->info.contains("verdict") &&
      node->info["verdict"].is_string())
    verdict = value_of(kVerdictNames, node->info["verdict"].get<std::string>());

  std::size_t by_outcome[4] = {};
  std::vector<std::string> parts;
  std::vector<std::pair<std::string, std::vector<std::string>>> skipped;  // reason → phases, in order
  for (const auto& [phase, rs] : phases) {
    std::vector<std::string> failed_on, passes;
    const Result* incomplete = nullptr;
    std::size_t n_skipped = 0;
    std::uint64_t total = 0;
    for (const Result* r : rs) {
      switch (phase_outcome(*r)) {
        case PhaseOutcome::failed:
          failed_on.push_back(load_label(*r, phase));
          break;
        case PhaseOutcome::incomplete:
          if (incomplete == nullptr) incomplete = r;
          break;
        case PhaseOutcome::skipped:
          ++n_skipped;
          break;
        case PhaseOutcome::passed:
          if (auto n = passes_of(*r)) {  // a result that does not say passed uncounted
            std::string label = load_label(*r, phase);
            if (label.empty() && rs.size() > 1) label = param(*r, "device");
            passes.push_back(fmt::format("{}{}{}", label, label.empty() ? "" : " ", *n));
            total += *n;
          }
          break;
      }
    }
    if (!failed_on.empty()) {
      ++by_outcome[static_cast<std::size_t>(PhaseOutcome::failed)];
      failed_on.erase(std::remove(failed_on.begin(), failed_on.end(), std::string()), failed_on.end());
      parts.push_back(failed_on.empty() ? fmt::format("{} failed", phase)
                                        : fmt::format("{} failed on {}", phase, fmt::join(failed_on, ", ")));
    } else if (incomplete != nullptr) {
      ++by_outcome[static_cast<std::size_t>(PhaseOutcome::incomplete)];
      const std::string label = load_label(*incomplete, phase);
      parts.push_back(fmt::format("{} incomplete{}: {}", phase, label.empty() ? "" : " (" + label + ")",
                                  incomplete->reason.empty() ? "no full verified pass" : incomplete->reason));
    } else if (n_skipped == rs.size()) {
      ++by_outcome[static_cast<std::size_t>(PhaseOutcome::skipped)];
      const std::string& why = rs.front()->reason;
      auto it = std::find_if(skipped.begin(), skipped.end(), [&](const auto& s) { return s.first == why; });
      if (it == skipped.end()) it = skipped.emplace(skipped.end(), why, std::vector<std::string>{});
      it->second.push_back(phase);
    } else {
      ++by_outcome[static_cast<std::size_t>(PhaseOutcome::passed)];
      const bool one = passes.size() == 1 && passes.front().find(' ') == std::string::npos;
      parts.push_back(
          passes.empty() ? fmt::format("{} passed", phase)
          : one ? fmt::format("{} passed ({})", phase, plural(total, "verified pass", "verified passes"))
                : fmt::format("{} passed ({} verified passes)", phase, fmt::join(passes, ", ")));
    }
  }
  for (const auto& [why, names] : skipped)
    parts.push_back(
        fmt::format("{} skipped: {}", fmt::join(names, ", "), why.empty() ? "no reason given" : why));

  std::string word = verdict ? std::string(to_string(*verdict)) : std::string("no node verdict");
  std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) { return std::toupper(c); });
  const std::size_t ran = phases.size() - by_outcome[static_cast<std::size_t>(PhaseOutcome::skipped)];
  std::string counts =
      fmt::format("{} of {} passed", by_outcome[static_cast<std::size_t>(PhaseOutcome::passed)],
                  plural(ran, "phase", "phases"));
  if (auto n = by_outcome[static_cast<std::size_t>(PhaseOutcome::incomplete)])
    counts += fmt::format(", {} incomplete", n);
  if (auto n = by_outcome[static_cast<std::size_t>(PhaseOutcome::failed)])
    counts += fmt::format(", {} failed", n);
  if (auto n = by_outcome[static_cast<std::size_t>(PhaseOutcome::skipped)])
    counts += fmt::format("; {} skipped", n);
  if (gpus == 0) {
    counts += "; no GPU";
  } else {
    counts += fmt::format("; {}:", plural(gpus, "GPU", "GPUs"));
    for (const auto& v : kVerdictNames) {
      if (v.value == Verdict::incomplete) continue;  // a GPU's own verdict is pass, warn or fail
      counts += fmt::format(" {} {},", gpu_verdicts[static_cast<std::size_t>(v.value)], v.name);
    }
    counts.pop_back();
  }
  return fmt::format("{} ({}){}{}", word, counts, parts.empty() ? "" : " — ", fmt::join(parts, "; "));
}

bool is_burnin(const Result& r) { return r.probe.starts_with(kPhaseProbePrefix); }

namespace {

// A verdict as a result's info holds it: a string as it is, anything else as JSON.
Verdict verdict_in(const Json& info) {
  const Json& v = info["verdict"];
  return verdict_from_string(v.is_null() ? "" : (v.is_string() ? v.get<std::string>() : v.dump()));
}

}  // namespace

std::optional<Burnin> read_burnin(const std::vector<Result>& results) {
  Burnin b;
  bool any = false;
  for (const auto& r : results) {
    if (!is_burnin(r)) continue;
    any = true;
    try {
      if (r.probe == kNodeProbe) {
        b.node = &r;
        for (const auto& p : r.info.value("phases", Json::array()))
          b.spans.push_back(phase_span_from_json(p));
        for (const auto& e : r.info.value("events", Json::array())) b.events.push_back(event_from_json(e));
        if (r.info.contains("verdict")) verdict_in(r.info);
      } else if (r.probe == kGpuProbe) {
        b.gpus.push_back(
            GpuPart{&r, r.info.contains("timeline") ? timeline_from_json(r.info["timeline"]) : Timeline{}});
        if (r.info.contains("verdict")) verdict_in(r.info);
      } else if (r.probe == kHostProbe) {
        if (r.info.contains("timeline")) b.host = timeline_from_json(r.info["timeline"]);
      } else {
        b.phases.push_back(&r);
      }
    } catch (const UsageError&) {
      throw;
    } catch (const Error& e) {
      throw BadBurninResult(r, e.what());
    }
  }
  if (!any) return std::nullopt;
  return b;
}

std::optional<Verdict> verdict_of(const Result& r) {
  if (!r.info.contains("verdict")) return std::nullopt;
  return verdict_in(r.info);
}

}  // namespace mlbench::burnin_report
