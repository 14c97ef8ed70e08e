// The burn-in's orchestration (burnin/run.hpp): phase shares, cooldowns, the "all" phase in threads, the
// report's burn-in results.
#include "burnin/run.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <thread>

#include <fmt/ranges.h>

#include "base/error.hpp"
#include "base/stats.hpp"
#include "bench/probe.hpp"
#include "bench/runner.hpp"

namespace mlbench::burnin {

namespace br = burnin_report;
using Clock = std::chrono::steady_clock;

namespace {

// A cooldown (only in a burn-in with a GPU phase) has settled when every GPU's temperature moved by at most
// this much over the last kSettleWindow samples; without GPU temperatures it idles kIdleWithoutTemperatures
// instead of the maximum.
constexpr double kSettleDeltaC = 1.0;
constexpr std::size_t kSettleWindow = 10;
constexpr double kIdleWithoutTemperatures = 5.0;
constexpr double kAllPhaseGpuMemoryFraction = 0.5;
// A phase's minimum share is its measured pass (Phase::estimate) times this: a pass of the whole load on a
// busy machine can take longer than its sample, scaled (docs/NOTES.md has a loaded machine's ratio).
constexpr double kPassMargin = 2.0;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string phase_probe(PhaseId id) {
  return std::string(br::kPhaseProbePrefix) + std::string(to_string(id));
}

Result skipped_phase(PhaseId id, std::string reason) {
  Result r;
  r.probe = phase_probe(id);
  r.params = Json{{"phase", to_string(id)}};
  r.status = Status::skipped;
  r.reason = std::move(reason);
  return r;
}

Result failed_phase(PhaseId id, const std::string& why) {
  Result r = skipped_phase(id, why);
  r.status = Status::failed;
  return r;
}

// Runs one phase: Skipped (it cannot run here, e.g. too little free memory) gives a skipped result, any other
// Error a failed one (a phase that cannot start fails the node).
std::vector<Result> run_one(Phase& phase, const PhaseContext& ctx) {
  try {
    return phase.run(ctx);
  } catch (const Skipped& e) {
    return {skipped_phase(phase.id(), e.what())};
  } catch (const Error& e) {
    return {failed_phase(phase.id(), e.what())};
  }
}

// Whether every GPU's temperature has settled since `since_s` (seconds since the burn-in began); nullopt when
// no GPU reports a temperature.
std::optional<bool> temperatures_settled(const std::vector<GpuRecord>& gpus, double since_s) {
  bool any = false;
  for (const auto& g : gpus) {
    const auto* temps = g.timeline.find("temperature_c");
    if (!temps) continue;
    std::vector<double> recent;
    for (std::size_t i = 0; i < temps->size(); ++i) {
      if (g.timeline.t[i] >= since_s && std::isfinite((*temps)[i])) recent.push_back((*temps)[i]);
    }
    any = true;
    if (recent.size() < kSettleWindow) return false;
    auto tail = std::span(recent).last(kSettleWindow);
    auto [lo, hi] = std::minmax_element(tail.begin(), tail.end());
    if (*hi - *lo > kSettleDeltaC) return false;
  }
  if (!any) return std::nullopt;
  return true;
}

void sleep_until_or_stop(Clock::time_point until, const std::atomic<bool>& stop) {
  while (!stop.load() && Clock::now() < until) {
    std::this_thread::sleep_for(
        std::min<Clock::duration>(std::chrono::milliseconds(100), until - Clock::now()));
  }
}

// The unit of a GPU's rate key ("gemm_tflops") from the phase results that gave it.
std::string unit_of(const std::vector<Result>& results, const std::string& key) {
  const auto split = split_rate_key(key);
  if (!split) return "";
  const std::string probe = std::string(br::kPhaseProbePrefix) + std::string(to_string(split->first));
  for (const auto& r : results) {
    if (r.probe != probe) continue;
    if (const auto* m = r.metric(split->second)) return m->unit;
  }
  return "";
}

// The finite samples of a series (a NaN is a sample the sampler could not read).
std::vector<double> finite_values(const std::vector<double>& values) {
  std::vector<double> v;
  for (double x : values)
    if (std::isfinite(x)) v.push_back(x);
  return v;
}

// A GPU's rate (the verdict's median over its results of that phase alone, burnin/verdict.cpp) with the
// spread of the statistic it is: one result's own (its stats or ci), or the median's over several results'
// values.
Metric gpu_rate_metric(const std::vector<Result>& phase_results, const std::string& device,
                       const std::string& key, double value) {
  Metric m{key, value, unit_of(phase_results, key), Better::higher, std::nullopt, std::nullopt};
  const auto split = split_rate_key(key);
  if (!split) return m;
  const std::string phase(to_string(split->first));
  const std::string probe = std::string(br::kPhaseProbePrefix) + phase;
  std::vector<const Metric*> found;
  for (const auto& r : phase_results) {
    if (r.probe != probe || r.status != Status::ok) continue;
    if (r.params.value("device", std::string()) != device || r.params.value("phase", std::string()) != phase)
      continue;
    if (const auto* x = r.metric(split->second)) found.push_back(x);
  }
  if (found.size() == 1) {
    m.stats = found.front()->stats;
    m.ci = found.front()->ci;
  } else if (found.size() > 1) {
    std::vector<double> values;
    for (const auto* x : found) values.push_back(x->value);
    m.stats = compute_stats(values);
  }
  return m;
}

// A timeline statistic as a metric (`scale` × the series' unit) with its spread: a median carries the stats
// of the samples (the standard error of a median), a maximum the Gumbel spread of the two largest.
void add_timeline_metric(Result& r, const Json& summary, const br::Timeline& timeline, const char* series,
                         const char* stat, std::string name, const char* unit, Better better,
                         double scale = 1) {
  const auto* values = timeline.find(series);
  if (values == nullptr || !summary.contains(series) || !summary[series].contains(stat)) return;
  Metric& m = r.add_metric(std::move(name), summary[series][stat].get<double>() * scale, unit, better);
  std::vector<double> v = finite_values(*values);
  for (double& x : v) x *= scale;
  if (std::string_view(stat) == "median") {
    m.stats = compute_stats(v);
  } else {
    m.ci = sigma_ci(m.value, maximum_standard_deviation(v));
  }
}

Result gpu_result(const GpuRecord& rec, const GpuVerdict* v, const std::vector<Result>& phase_results) {
  Result r;
  r.probe = std::string(br::kGpuProbe);
  r.params = Json{{"device", rec.id.device}, {"uuid", rec.id.uuid}, {"name", rec.id.name}};
  const auto verdict = v ? v->verdict : br::Verdict::pass;
  if (v) {
    for (const auto& [key, value] : v->rates)
      r.metrics.push_back(gpu_rate_metric(phase_results, rec.id.device, key, value));
  }
  Json summary = Json::object();
  for (const auto& [name, values] : rec.timeline.series) summary[name] = series_summary(values);
  auto add_summary_metric = [&](const char* series, const char* stat, std::string name, const char* unit,
                                Better better) {
    add_timeline_metric(r, summary, rec.timeline, series, stat, std::move(name), unit, better);
  };
  add_summary_metric("sm_clock_hz", "median", "sm_clock_median", "Hz", Better::higher);
  add_summary_metric("power_w", "median", "power_median", "W", Better::higher);
  add_summary_metric("temperature_c", "max", "temperature_max", "°C", Better::lower);
  if (r.metrics.empty()) r.add_metric("samples", static_cast<double>(rec.timeline.t.size()), "");
  Json reasons = v ? Json(v->reasons) : Json::array();
  if (verdict == br::Verdict::fail) {
    r.status = Status::failed;
    r.reason = v && !v->reasons.empty() ? v->reasons.front() : "failed the burn-in";
  }
  Json counters = Json::object();
  if (rec.before) counters["before"] = to_json(*rec.before);
  if (rec.after) counters["after"] = to_json(*rec.after);
  r.info = Json{{"verdict", br::to_string(verdict)},
                {"reasons", reasons},
                {"timeline", br::to_json(br::decimate(rec.timeline))},
                {"throttle_seconds", rec.throttle_seconds},
                {"counters", counters},
                {"summary", summary},
                {"lost", rec.lost}};
  return r;
}

Result host_result(const HostRecord& host) {
  Result r;
  r.probe = std::string(br::kHostProbe);
  r.params = Json{{"device", "host"}};
  Json summary = Json::object();
  for (const auto& [name, values] : host.timeline.series) summary[name] = series_summary(values);
  if (summary.contains("cpu_busy") && summary["cpu_busy"].contains("median")) {
    add_timeline_metric(r, summary, host.timeline, "cpu_busy", "median", "cpu_busy_median", "%",
                        Better::higher, 100);
  } else {
    r.add_metric("samples", static_cast<double>(host.timeline.t.size()), "");
  }
  r.info = Json{{"timeline", br::to_json(br::decimate(host.timeline))}, {"summary", summary}};
  return r;
}

Result node_result(const NodeVerdict& v, const std::vector<br::PhaseSpan>& spans,
                   const std::vector<br::Event>& events, bool interrupted) {
  Result r;
  r.probe = std::string(br::kNodeProbe);
  std::size_t failed = 0, warned = 0;
  for (const auto& g : v.gpus) {
    failed += g.verdict == br::Verdict::fail;
    warned += g.verdict == br::Verdict::warn;
  }
  r.add_metric("gpus_failed", static_cast<double>(failed), "", Better::lower);
  r.add_metric("gpus_warned", static_cast<double>(warned), "", Better::lower);
  // An incomplete node is not a pass: its status is `failed` too, so that every reader of statuses (compare,
  // check, the fleet's node list) reads it as one, and its reason says it is incomplete.
  if (v.verdict == br::Verdict::fail) {
    r.status = Status::failed;
    r.reason = v.reasons.empty() ? "the node failed the burn-in" : v.reasons.front();
  } else if (v.verdict == br::Verdict::incomplete) {
    r.status = Status::failed;
    r.reason =
        "incomplete: " + (v.reasons.empty() ? std::string("a phase stopped before one full verified pass")
                                            : v.reasons.front());
  }
  Json phases = Json::array(), evs = Json::array();
  for (const auto& s : spans) phases.push_back(br::to_json(s));
  for (const auto& e : events) evs.push_back(br::to_json(e));
  r.info = Json{{"verdict", br::to_string(v.verdict)},
                {"reasons", v.reasons},
                {"phases", phases},
                {"events", evs},
                {"interrupted", interrupted}};
  return r;
}

}  // namespace

int BurninOutcome::exit_code() const { return interrupted ? 130 : verdict.exit_code(); }

std::vector<PhaseId> parse_phases(const std::vector<std::string>& names) {
  std::vector<PhaseId> out;
  for (const auto& n : names) {
    auto id = value_of(kPhaseNames, n);
    if (!id) {
      std::vector<std::string_view> all;
      for (const auto& row : kPhaseNames) all.push_back(row.name);
      throw UsageError(fmt::format("--phases: unknown phase '{}'; choose from {}", n, fmt::join(all, ", ")));
    }
    if (std::find(out.begin(), out.end(), *id) == out.end()) out.push_back(*id);
  }
  return out;
}

Json series_summary(const std::vector<double>& values) {
  const std::vector<double> v = finite_values(values);
  if (v.empty()) return Json::object();
  return Json{{"min", *std::min_element(v.begin(), v.end())},
              {"median", median(v)},
              {"max", *std::max_element(v.begin(), v.end())}};
}

std::vector<double> split_time(double seconds, const std::vector<double>& minimums) {
  const double least = std::accumulate(minimums.begin(), minimums.end(), 0.0);
  if (minimums.empty()) return {};
  if (seconds <= least) {
    // Too little for every minimum: each gets the same share of its minimum (none when nothing is left).
    std::vector<double> out;
    for (double m : minimums)
      out.push_back(least > 0 ? std::max(0.0, seconds) * m / least
                              : std::max(0.0, seconds) / static_cast<double>(minimums.size()));
    return out;
  }
  // The equal share `level` that the phases above their minimum get: raised phases are fixed at their minimum
  // one at a time, the largest first, while the level is below them.
  std::vector<std::size_t> order(minimums.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return minimums[a] > minimums[b]; });
  double rest = seconds;
  std::size_t k = 0;
  while (k < order.size() && minimums[order[k]] > rest / static_cast<double>(order.size() - k)) {
    rest -= minimums[order[k]];
    ++k;
  }
  const double level = rest / static_cast<double>(order.size() - k);
  std::vector<double> out(minimums.size());
  for (std::size_t i = 0; i < minimums.size(); ++i) out[i] = std::max(minimums[i], level);
  return out;
}

BurninOutcome run_burnin(const BurninOptions& opts, BurninEnvironment& env,
                         const std::function<void(const Report&)>& save) {
  static const std::atomic<bool> never{false};
  const std::atomic<bool>& stop = env.stop ? *env.stop : never;
  auto log = [&env](const std::string& line) {
    if (env.log) env.log(line);
  };
  BurninOutcome out;
  Report& report = out.report;
  report.tool = tool_info();
  report.host = env.host;
  Json phase_names = Json::array();
  std::vector<PhaseId> wanted = opts.phases;
  if (wanted.empty()) {
    for (const auto& row : kPhaseNames) wanted.push_back(row.value);
  }
  for (auto id : wanted) phase_names.push_back(to_string(id));
  report.run = Json{{"started_utc", utc_now()},
                    {"duration_s", 0.0},
                    {"argv", opts.argv},
                    {"profile", "burnin"},
                    {"options",
                     {{"duration_s", opts.duration_s},
                      {"phases", phase_names},
                      {"cooldown_max_s", opts.cooldown_max_s},
                      {"warn_pct", opts.verdict.warn_pct},
                      {"scratch_dir", opts.scratch_dir.string()},
                      {"storage_bytes", opts.storage_bytes},
                      {"seed", opts.seed}}},
                    {"interrupted", false}};

  // What can run here, in order; `all` runs the others at once and needs two of them.
  std::vector<Phase*> runnable;
  std::vector<Result> phase_results;
  bool want_all = false;
  for (auto id : wanted) {
    if (id == PhaseId::all) {
      want_all = true;
      continue;
    }
    auto it =
        std::find_if(env.phases.begin(), env.phases.end(), [id](const auto& p) { return p->id() == id; });
    if (it == env.phases.end()) {
      phase_results.push_back(skipped_phase(id, "this build has no such phase"));
    } else if (auto why = (*it)->unavailable(env.host)) {
      phase_results.push_back(skipped_phase(id, *why));
    } else {
      runnable.push_back(it->get());
    }
  }
  if (runnable.empty()) {
    throw UsageError("--phases: no selected phase can run on this machine (" +
                     (phase_results.empty() ? std::string("none selected") : phase_results.front().reason) +
                     "); choose others with --phases");
  }
  auto context_for = [&](Clock::time_point deadline) {
    PhaseContext ctx{env.host, deadline, stop};
    ctx.scratch_dir = opts.scratch_dir;
    ctx.seed = opts.seed;
    ctx.host_memory_fraction = opts.host_memory_fraction;
    ctx.storage_bytes = opts.storage_bytes;
    return ctx;
  };

  // Each phase's minimum share: one full verified pass, measured here (Phase::estimate), with kPassMargin. A
  // phase that cannot start is judged now, as when it runs.
  std::vector<Phase*> planned;
  std::vector<double> minimums;
  std::vector<std::string> needs, smaller;
  for (Phase* p : runnable) {
    PassEstimate e;
    try {
      e = p->estimate(context_for(Clock::now()));
    } catch (const Skipped& ex) {
      phase_results.push_back(skipped_phase(p->id(), ex.what()));
      continue;
    } catch (const Error& ex) {
      phase_results.push_back(failed_phase(p->id(), ex.what()));
      continue;
    }
    planned.push_back(p);
    minimums.push_back(kPassMargin * e.seconds);
    if (e.seconds > 0)
      needs.push_back(fmt::format("{} {:.1f} s: {}", to_string(p->id()), minimums.back(), e.what));
    if (!e.smaller_with.empty()) smaller.push_back(e.smaller_with);
  }
  runnable = std::move(planned);
  if (want_all && runnable.size() < 2) {
    phase_results.push_back(
        skipped_phase(PhaseId::all, fmt::format("{} phase{} can run here; 'all' needs two", runnable.size(),
                                                runnable.size() == 1 ? "" : "s")));
    want_all = false;
  }
  if (want_all) {
    // At once, the phases share the CPUs, the memory and the drives: each pass takes about as long as all of
    // them one after another.
    minimums.push_back(std::accumulate(minimums.begin(), minimums.end(), 0.0));
    if (minimums.back() > 0)
      needs.push_back(fmt::format("all {:.1f} s: every phase at once", minimums.back()));
  }
  const std::size_t total_phases = runnable.size() + (want_all ? 1 : 0);
  // Cooldowns let the GPUs' temperatures settle: only a burn-in that loads a GPU has them.
  const bool cooldowns =
      std::any_of(runnable.begin(), runnable.end(), [](const Phase* p) { return is_gpu_phase(p->id()); });
  const std::size_t n_cooldowns = cooldowns && total_phases > 0 ? total_phases - 1 : 0;
  const double needed = seconds_since(opts.start) + std::accumulate(minimums.begin(), minimums.end(), 0.0) +
                        static_cast<double>(n_cooldowns) * opts.cooldown_max_s + opts.teardown_s;
  // "hostmem 6.0 s: a write and check of ...; all 8.0 s: every phase at once; 2 cooldowns of up to 60 s"
  const std::string plan = fmt::format(
      "{}{}", needs.empty() ? "no phase minimum" : fmt::format("{}", fmt::join(needs, "; ")),
      n_cooldowns ? fmt::format("; {} cooldowns of up to {:g} s", n_cooldowns, opts.cooldown_max_s)
                  : std::string("; no cooldown (no GPU phase)"));
  if (needed > opts.duration_s && !stop.load()) {
    if (n_cooldowns) smaller.push_back("--cooldown");
    throw UsageError(fmt::format(
        "--duration {:g}s: one verified pass of each phase needs {:.0f} s here ({}; {:g} s to end; each "
        "measured pass × {:g} for a busy machine); give --duration {:.0f}s or more{}{}",
        opts.duration_s, std::ceil(needed), plan, opts.teardown_s, kPassMargin, std::ceil(needed),
        smaller.empty() ? "" : ", or a smaller ", fmt::join(smaller, " or ")));
  }
  log(fmt::format("plan: {}; {:g} s kept for the end", plan, opts.teardown_s));

  const auto t0 = Clock::now();
  Sampler sampler(std::move(env.telemetry), env.sys_root, t0, opts.sample_interval);
  sampler.start();
  std::vector<br::PhaseSpan> spans;
  auto snapshot = [&] {
    report.results = phase_results;
    report.run["duration_s"] = seconds_since(t0);
    if (save) save(report);
  };

  for (std::size_t i = 0; i < total_phases && !stop.load(); ++i) {
    const bool all = i == runnable.size();
    const PhaseId id = all ? PhaseId::all : runnable[i]->id();
    // This phase's share of what is left once the cooldowns still to come and the end are kept free.
    const std::size_t cooldowns_left = cooldowns ? total_phases - i - 1 : 0;
    const double available = opts.duration_s - seconds_since(opts.start) - opts.teardown_s -
                             static_cast<double>(cooldowns_left) * opts.cooldown_max_s;
    const double share =
        split_time(available,
                   std::vector<double>(minimums.begin() + static_cast<std::ptrdiff_t>(i), minimums.end()))
            .front();
    const auto start_s = seconds_since(t0);
    PhaseContext ctx = context_for(
        Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(share)));
    // Everything at once shares each GPU's memory: the HBM pattern test covers less of it than alone, so that
    // the GEMM, copy and NCCL buffers still fit.
    if (all) ctx.gpu_memory_fraction = kAllPhaseGpuMemoryFraction;
    log(fmt::format("phase {} for {:.0f} s", to_string(id), share));
    std::vector<Result> got;
    if (!all) {
      got = run_one(*runnable[i], ctx);
    } else {
      // Every phase at once, each on its own thread with the same deadline.
      std::vector<std::vector<Result>> each(runnable.size());
      {
        std::vector<std::jthread> threads;
        for (std::size_t k = 0; k < runnable.size(); ++k) {
          Phase* p = runnable[k];
          auto* into = &each[k];
          threads.emplace_back([p, into, &ctx] { *into = run_one(*p, ctx); });
        }
      }
      for (auto& v : each) std::move(v.begin(), v.end(), std::back_inserter(got));
    }
    for (auto& r : got) {
      r.params["phase"] = std::string(to_string(id));
      phase_results.push_back(std::move(r));
    }
    spans.push_back({std::string(to_string(id)), start_s, seconds_since(t0)});
    log(fmt::format("phase {} done", to_string(id)));
    snapshot();
    if (i + 1 == total_phases || stop.load()) break;
    if (!cooldowns) continue;
    // Cooldown: idle until the GPU temperatures settle, at most cooldown_max_s.
    const double cool_start = seconds_since(t0);
    const auto cool_end = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double>(opts.cooldown_max_s));
    while (!stop.load() && Clock::now() < cool_end) {
      sleep_until_or_stop(std::min(cool_end, Clock::now() + std::chrono::seconds(1)), stop);
      auto settled = temperatures_settled(sampler.gpu_records(), cool_start);
      if (settled.value_or(seconds_since(t0) - cool_start >=
                           std::min(kIdleWithoutTemperatures, opts.cooldown_max_s)))
        break;
    }
    spans.push_back({"cooldown", cool_start, seconds_since(t0)});
  }
  out.interrupted = stop.load();
  sampler.stop();

  const auto gpus = sampler.gpu_records();
  const auto events = sampler.events();
  out.verdict = judge(phase_results, gpus, events, opts.verdict);
  if (out.interrupted) {
    out.verdict.reasons.push_back(
        fmt::format("interrupted after {:.0f} s of {:.0f} s: the verdict covers the phases that ran",
                    seconds_since(t0), opts.duration_s));
  }
  report.results = phase_results;
  for (const auto& g : gpus) {
    auto v = std::find_if(out.verdict.gpus.begin(), out.verdict.gpus.end(),
                          [&g](const GpuVerdict& gv) { return gv.device == g.id.device; });
    report.results.push_back(gpu_result(g, v == out.verdict.gpus.end() ? nullptr : &*v, phase_results));
  }
  report.results.push_back(host_result(sampler.host_record()));
  report.results.push_back(node_result(out.verdict, spans, events, out.interrupted));
  report.run["duration_s"] = seconds_since(t0);
  report.run["interrupted"] = out.interrupted;
  if (save) save(report);
  return out;
}

}  // namespace mlbench::burnin
