#include "fake_llm_model.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace mlbench::fake_llm {

void Engine::submit(std::uint64_t id, int prompt, int output, double t) {
  waiting_.push_back({id, prompt, std::max(1, output), 0, false, t});
  if (phase_ == Phase::idle) {
    phase_ = Phase::pending;
    at_ = t;
  }
}

void Engine::cancel(std::uint64_t id) {
  auto is = [id](const Seq& s) { return s.id == id; };
  waiting_.erase(std::remove_if(waiting_.begin(), waiting_.end(), is), waiting_.end());
  running_.erase(std::remove_if(running_.begin(), running_.end(), is), running_.end());
}

double Engine::next_event() const {
  return phase_ == Phase::idle ? std::numeric_limits<double>::infinity() : at_;
}

void Engine::start_step(double t) {
  // An empty batch waits for the first arrival (a server that woke late may hold one that arrived after t).
  if (running_.empty() && !waiting_.empty()) t = std::max(t, waiting_.front().arrival);
  while (!waiting_.empty() && static_cast<int>(running_.size()) < p_.max_batch &&
         waiting_.front().arrival <= t) {
    running_.push_back(waiting_.front());
    waiting_.pop_front();
  }
  if (running_.empty()) {
    phase_ = Phase::idle;
    return;
  }
  double prompt = 0;
  for (const auto& s : running_)
    if (!s.prefilled) prompt += s.prompt;
  prefill_step_ = std::any_of(running_.begin(), running_.end(), [](const Seq& s) { return !s.prefilled; });
  double d = prefill_step_ ? p_.prefill_s_per_token * prompt
                           : p_.step_s + p_.step_s_per_seq * static_cast<double>(running_.size());
  phase_ = Phase::stepping;
  at_ = t + d;
}

bool Engine::advance(double now, std::vector<Emit>& out) {
  if (phase_ == Phase::pending && at_ < now) {
    start_step(at_);
    return true;
  }
  if (phase_ != Phase::stepping || at_ > now) return false;
  const double t = at_;
  for (auto& s : running_) {
    if (prefill_step_ && s.prefilled) continue;
    s.prefilled = true;
    ++s.emitted;
    out.push_back({s.id, s.emitted, s.emitted >= s.output, t});
  }
  running_.erase(
      std::remove_if(running_.begin(), running_.end(), [](const Seq& s) { return s.emitted >= s.output; }),
      running_.end());
  phase_ = running_.empty() && waiting_.empty() ? Phase::idle : Phase::pending;
  at_ = t;
  return true;
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  double pos = q / 100 * static_cast<double>(v.size() - 1);
  auto lo = static_cast<std::size_t>(std::floor(pos));
  std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

SimResult simulate(const ModelParams& p, int isl, int osl, double rate, int requests, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Engine engine(p);
  SimResult r;
  r.requests.resize(static_cast<std::size_t>(requests));
  std::vector<double> first(r.requests.size(), 0), last(r.requests.size(), 0);
  std::vector<Emit> out;
  auto take = [&] {
    for (const auto& e : out) {
      if (e.index == 1) first[e.id] = e.t;
      last[e.id] = e.t;
    }
    out.clear();
  };
  double t = 0;
  for (int i = 0; i < requests; ++i) {
    t += -std::log(1.0 - u(rng)) / rate;
    while (engine.advance(t, out)) take();
    r.requests[static_cast<std::size_t>(i)].arrival = t;
    engine.submit(static_cast<std::uint64_t>(i), isl, osl, t);
  }
  while (engine.advance(std::numeric_limits<double>::infinity(), out)) take();
  std::vector<double> ttft, tpot;
  double end = 0;
  for (std::size_t i = 0; i < r.requests.size(); ++i) {
    auto& q = r.requests[i];
    q.ttft = first[i] - q.arrival;
    q.e2e = last[i] - q.arrival;
    q.tpot = osl > 1 ? (last[i] - first[i]) / (osl - 1) : 0;
    ttft.push_back(q.ttft);
    tpot.push_back(q.tpot);
    end = std::max(end, last[i]);
  }
  r.ttft_p50 = percentile(ttft, 50);
  r.ttft_p99 = percentile(ttft, 99);
  r.tpot_p50 = percentile(tpot, 50);
  r.tpot_p99 = percentile(tpot, 99);
  if (!r.requests.empty() && end > r.requests.front().arrival) {
    double span = end - r.requests.front().arrival;
    r.output_tokens_per_s = static_cast<double>(requests) * osl / span;
    r.requests_per_s = requests / span;
  }
  return r;
}

RateTruth find_rate(const ModelParams& p, int isl, int osl, double ttft_target, double tpot_target,
                    int requests, std::uint64_t seed) {
  auto meets = [&](double rate, RateTruth& at) {
    SimResult s = simulate(p, isl, osl, rate, requests, seed);
    at = {rate, s.ttft_p99, s.tpot_p99};
    return (ttft_target <= 0 || s.ttft_p99 <= ttft_target) && (tpot_target <= 0 || s.tpot_p99 <= tpot_target);
  };
  // The engine's saturation rate: a full batch through one prefill and osl - 1 decode steps.
  const double service =
      p.prefill_s_per_token * isl * p.max_batch + (osl - 1) * (p.step_s + p.step_s_per_seq * p.max_batch);
  double hi = 4 * p.max_batch / std::max(service, 1e-9);
  double lo = hi / 4096;
  RateTruth best, probe;
  if (!meets(lo, best)) return {};
  if (meets(hi, probe)) return probe;
  while (hi / lo > 1.005) {
    double mid = std::sqrt(lo * hi);
    if (meets(mid, probe)) {
      lo = mid;
      best = probe;
    } else {
      hi = mid;
    }
  }
  return best;
}

}  // namespace mlbench::fake_llm
