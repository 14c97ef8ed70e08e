#include "bench/runner.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>

#include <fmt/format.h>

namespace mlbench {

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

std::vector<Step> schedule(const std::vector<PlannedCase>& cases) {
  std::vector<Step> steps;
  for (std::size_t i = 0; i < cases.size();) {
    const unsigned rounds = std::max(1u, cases[i].c.rounds);
    std::size_t end = i + 1;
    while (rounds > 1 && end < cases.size() && cases[end].probe == cases[i].probe &&
           cases[end].c.rounds == rounds && cases[end].c.round_group == cases[i].c.round_group)
      ++end;
    for (unsigned k = 0; k < rounds; ++k)
      for (std::size_t j = i; j < end; ++j) steps.push_back({j, k});
    i = end;
  }
  return steps;
}

std::atomic<bool>& stop_flag() {
  static std::atomic<bool> flag{false};
  return flag;
}

std::vector<PlannedCase> Runner::plan(const RunOptions& opts, std::vector<Result>& skipped) const {
  std::vector<Probe*> selected;
  if (opts.probe_ids.empty()) {
    for (const auto& p : registry_.all()) selected.push_back(p.get());
  } else {
    for (const auto& id : opts.probe_ids) {
      Probe* p = registry_.find(id);
      if (p == nullptr) {
        throw UsageError(fmt::format("unknown probe '{}'; known probes: {}", id, join(registry_.ids())));
      }
      selected.push_back(p);
    }
  }
  for (const auto& [id, _] : opts.probe_options.items()) {
    if (registry_.find(id) == nullptr) {
      throw UsageError(
          fmt::format("options given for unknown probe '{}'; known probes: {}", id, join(registry_.ids())));
    }
  }
  std::vector<PlannedCase> cases;
  for (Probe* p : selected) {
    auto info = p->info();
    if (auto why = p->unavailable(host_)) {
      Result r;
      r.probe = info.id;
      r.status = Status::skipped;
      r.reason = *why;
      skipped.push_back(std::move(r));
      continue;
    }
    Json options = opts.probe_options.value(info.id, Json::object());
    PlanContext ctx{opts.profile, host_, options,
                    opts.options_from_config ? OptionSource::config(info.id) : OptionSource{}};
    try {
      for (auto& c : p->plan(ctx)) cases.push_back({p, std::move(c)});
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("{}: {}", info.id, e.what()));
    }
  }
  return cases;
}

Report Runner::run(const RunOptions& opts, const std::function<void(const ProgressEvent&)>& progress) {
  using Clock = std::chrono::steady_clock;
  Report report;
  report.tool = tool_info();
  report.host = host_;
  std::vector<Result> skipped;
  auto cases = plan(opts, skipped);
  report.results = std::move(skipped);
  report.run = Json{{"started_utc", utc_now()},
                    {"duration_s", 0.0},
                    {"argv", opts.argv},
                    {"profile", to_string(opts.profile)},
                    {"options", opts.probe_options},
                    {"interrupted", false}};

  double total_estimate = 0;
  for (const auto& pc : cases) total_estimate += pc.c.estimate_s;
  auto start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  // The report on disk is first replaced once a case has a result: until then a crash or a SIGKILL leaves
  // the previous report as it was. A file is rewritten after every case; a stream (a FIFO, /dev/stdout)
  // gets only the final report, as one document.
  const bool each_case = opts.output && check_writable(*opts.output) == OutputKind::file;
  auto save = [&] {
    report.run["duration_s"] = elapsed();
    if (opts.output) write_report(*opts.output, report);
  };

  // Each distinct notice once, before anything runs (the storage suite's scratch file: its size and place).
  std::vector<std::string> notices;
  for (const auto& pc : cases) {
    if (pc.c.notice.empty() || std::find(notices.begin(), notices.end(), pc.c.notice) != notices.end())
      continue;
    notices.push_back(pc.c.notice);
    if (progress)
      progress(ProgressEvent{.phase = Phase::notice, .probe = pc.probe->info().id, .label = pc.c.notice});
  }

  double done_estimate = 0, done_elapsed = 0;
  std::vector<bool> ended(cases.size(), false);  // failed or skipped in an earlier round
  for (const Step& step : schedule(cases)) {
    if (stop_flag().load()) {
      interrupted_ = true;
      break;
    }
    const std::size_t i = step.index;
    // Named references, not a structured binding: clang 14 cannot capture a binding in the lambda below.
    Probe* probe = cases[i].probe;
    Case& c = cases[i].c;
    const unsigned rounds = std::max(1u, c.rounds);
    const double step_estimate = (c.estimate_s - c.setup_s) / rounds + (step.round == 0 ? c.setup_s : 0.0);
    if (ended[i]) {
      done_estimate += step_estimate;
      continue;
    }
    const bool last = step.round + 1 == rounds;
    auto id = probe->info().id;
    const auto case_start = Clock::now();
    // The ETA: the estimates left, scaled by the pace of the steps so far, less the time this one has run.
    auto event = [&](Phase phase) {
      double e = elapsed();
      double case_e = std::chrono::duration<double>(Clock::now() - case_start).count();
      double scale = done_estimate > 0 ? done_elapsed / done_estimate : 1.0;
      double eta =
          std::max(0.0, (total_estimate - done_estimate) * scale - (phase == Phase::finished ? 0 : case_e));
      return ProgressEvent{.phase = phase,
                           .index = i + 1,
                           .total = cases.size(),
                           .probe = id,
                           .label = rounds > 1 && phase != Phase::finished
                                        ? fmt::format("{} (round {}/{})", c.label, step.round + 1, rounds)
                                        : c.label,
                           .elapsed_s = e,
                           .eta_s = eta,
                           .case_elapsed_s = case_e,
                           .case_estimate_s = step_estimate};
    };
    if (progress) progress(event(Phase::start));
    double budget = std::max(opts.min_budget_s, step_estimate * opts.budget_scale);
    RunContext ctx{
        host_,
        Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(budget)),
        stop_flag()};
    if (progress) {
      ctx.live = [&](std::span<const LiveMetric> live) {
        ProgressEvent running = event(Phase::running);
        running.live = live;
        progress(running);
      };
    }
    std::vector<Result> results;
    bool failed = false;
    try {
      results = rounds > 1 ? probe->run_round(c, ctx, step.round) : probe->run(c, ctx);
    } catch (const Interrupted&) {
      interrupted_ = true;
      break;
    } catch (const Skipped& e) {
      results = {ctx.make_result(id, c)};
      results[0].status = Status::skipped;
      results[0].reason = e.what();
      failed = true;
    } catch (const std::exception& e) {
      results = {ctx.make_result(id, c)};
      results[0].status = Status::failed;
      results[0].reason = e.what();
      failed = true;
    }
    done_estimate += step_estimate;
    done_elapsed = elapsed();
    // A probe stopped partway may give what it measured until then, marked interrupted: the case ends
    // with it (in whichever round), and so does the run.
    const bool cut = std::any_of(results.begin(), results.end(),
                                 [](const Result& r) { return r.status == Status::interrupted; });
    if (!last && !failed && !cut) continue;  // the case goes on in its next round
    ended[i] = true;
    for (auto& r : results) report.results.push_back(std::move(r));
    if (each_case) save();
    if (progress) {
      ProgressEvent done = event(Phase::finished);
      done.finished = std::span<const Result>(report.results).last(results.size());
      progress(done);
    }
    if (cut) {
      interrupted_ = true;
      break;
    }
  }
  // A stop during the last case, whose probe returned what it measured before it ended (serve.llm keeps the
  // requests that finished), is an interrupted run too.
  if (stop_flag().load()) interrupted_ = true;
  report.run["interrupted"] = interrupted_;
  save();
  return report;
}

int exit_code_for(const Report& report) {
  for (const auto& r : report.results) {
    if (r.status == Status::failed || r.status == Status::incorrect) return 1;
  }
  return 0;
}

}  // namespace mlbench
