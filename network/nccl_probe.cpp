#include "network/nccl_probe.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "base/stats.hpp"
#include "bench/host_view.hpp"
#include "bench/net_counters.hpp"
#include "mlbench_config.hpp"
#include "network/launch_env.hpp"
#include "network/nccl_options.hpp"

#if MLBENCH_HAS_NCCL
#include "network/nccl_session.hpp"
#endif

namespace mlbench::net {
namespace {

constexpr const char* kProbeId = "net.nccl";
// The params its results carry: the case's (plan), each size's bytes and the peak summary's (run).
constexpr std::string_view kParams[] = {"collective", "dtype", "placement", "ranks", "bytes", "summary"};
constexpr std::string_view kMetrics[] = {"busbw", "algbw", "time", "time_slowest_rank"};
constexpr const char* kNoNccl =
    "built without NCCL (configure found no nccl.h/libnccl; install NCCL and rebuild with "
    "MLBENCH_ENABLE_NCCL=ON)";

class NcclProbe final : public Probe {
 public:
  explicit NcclProbe(std::optional<ClusterRole> cluster) : cluster_(std::move(cluster)) {}

  ProbeInfo info() const override {
    return {kProbeId,
            "NCCL collectives: algbw and busbw per collective and size (nccl-tests conventions)",
            "NCCL and one CUDA GPU per rank",
            nccl_option_table(),
            kParams,
            kMetrics};
  }

  std::optional<std::string> unavailable(const Json& /*host*/) const override {
    // The world's reason first: it names the rank and host it comes from.
    if (cluster_ && cluster_->skip_reason) return *cluster_->skip_reason;
    if (auto why = nccl_unavailable()) return why;
    if (cluster_) return too_few_ranks(cluster_->world_size);
    auto gpus = local_gpus();
    if (gpus.count == 0) return gpus.why_none;
    return too_few_ranks(gpus.count);
  }

  std::vector<Case> plan(const PlanContext& ctx) const override {
    auto opts = parse_nccl_options(ctx.options, ctx.profile, ctx.source);
    int ranks = 1;
    std::optional<std::uint64_t> free_bytes;
    if (cluster_) {
      ranks = cluster_->world_size;
      free_bytes = cluster_->free_memory_bytes;
    } else {
      int visible = local_gpus().count;
      if (opts.gpus > visible) {
        throw UsageError(
            fmt::format("{0} {1} but this host has {2} GPU{3}: the world size disagrees with the GPUs "
                        "found; lower {0}",
                        ctx.source.name("gpus"), opts.gpus, visible, visible == 1 ? "" : "s"));
      }
      ranks = opts.gpus > 0 ? opts.gpus : visible;
      for (int d = 0; d < ranks; ++d) {
        auto f = local_gpu_facts(d)["free_bytes"].get<std::uint64_t>();
        free_bytes = free_bytes ? std::min(*free_bytes, f) : f;
      }
    }
    auto plan = plan_nccl(opts, ranks, free_bytes);
    std::vector<Case> cases;
    for (const auto& cp : plan.cases) {
      const auto& op = spec(cp.op);
      Case c;
      std::string placement = cp.in_place ? "in_place" : "out_of_place";
      c.label = fmt::format("{} {} {} x{}", op.name, spec(cp.dtype).name, placement, ranks);
      c.params = Json{{"collective", op.name},
                      {"dtype", spec(cp.dtype).name},
                      {"placement", placement},
                      {"ranks", ranks}};
      c.config = Json{{"sizes", cp.sizes},           {"iters", opts.iters},       {"warmup", opts.warmup},
                      {"timeout_s", opts.timeout_s}, {"blocking", opts.blocking}, {"gpus", ranks}};
      if (plan.capped_at) c.config["capped_by_free_memory_at"] = *plan.capped_at;
      double est = 0.5;
      for (auto s : cp.sizes) {
        est += (opts.iters + opts.warmup + 1) * (20e-6 + 2.0 * static_cast<double>(s) / 50e9);
      }
      c.estimate_s = est;
      cases.push_back(std::move(c));
    }
    // The communicators go after the last case, so that the GPU probes after this one run without them.
    if (!cases.empty()) cases.back().config["ends_session"] = true;
    return cases;
  }

  std::vector<Result> run(const Case& c, RunContext& ctx) override;

 private:
  std::optional<ClusterRole> cluster_;
#if MLBENCH_HAS_NCCL
  std::unique_ptr<NcclSession> session_;
  std::string session_error_;
#endif
};

#if MLBENCH_HAS_NCCL

std::vector<Result> NcclProbe::run(const Case& c, RunContext& ctx) {
  const Collective op = collective_from_name(c.params["collective"].get<std::string>());
  const DataType dtype = data_type_from_name(c.params["dtype"].get<std::string>());
  const bool in_place = c.params["placement"] == "in_place";
  const int ranks = c.params["ranks"].get<int>();
  const int iters = c.config["iters"].get<int>();
  const int warmup = c.config["warmup"].get<int>();
  const double timeout_s = c.config["timeout_s"].get<double>();
  const bool blocking = c.config["blocking"].get<bool>();
  const auto sizes = c.config["sizes"].get<std::vector<std::uint64_t>>();

  if (!session_error_.empty()) throw Error("not run: " + session_error_);
  if (!session_) {
    SessionSetup setup;
    setup.world_size = ranks;
    setup.timeout_s = timeout_s;
    setup.blocking = blocking;
    setup.host = HostView(ctx.host).hostname;
    if (setup.host.empty()) setup.host = "this host";
    if (cluster_) {
      setup.first_rank = cluster_->rank;
      setup.devices = {cluster_->device};
      setup.unique_id = cluster_->unique_id;
    } else {
      for (int d = 0; d < ranks; ++d) setup.devices.push_back(d);
    }
    try {
      session_ = std::make_unique<NcclSession>(std::move(setup));
    } catch (const Error& e) {
      session_error_ = e.what();
      throw;
    }
  }

  const auto env = nccl_env(process_env());
  Json common_info = nccl_algorithm_info(env);
  common_info["nccl_version"] = nccl_version_string();
  common_info["nccl_env"] = env;
  common_info["mode"] = cluster_ ? "one process per GPU" : "one process, every local GPU";
  common_info["timing"] = session_->blocking() ? "blocking" : "nonblocking";
  common_info["iters"] = iters;
  common_info["warmup"] = warmup;
  if (c.config.contains("capped_by_free_memory_at")) {
    common_info["capped_by_free_memory_at"] = c.config["capped_by_free_memory_at"];
  }
  const bool in_network = common_info["in_network_reduction"] == true;

  std::uint64_t max_send = 0, max_recv = 0;
  for (auto s : sizes) {
    auto cs = call_size(op, s, spec(dtype).size, ranks);
    max_send = std::max(max_send, cs.send_bytes);
    max_recv = std::max({max_recv, cs.recv_bytes, cs.send_bytes});
  }

  std::vector<Result> results;
  std::optional<std::size_t> best;  // index of the size with the highest busbw
  // The buffers live for this case only; the communicators until the last case.
  struct EndOfCase {
    NcclProbe& p;
    bool ends_session;
    ~EndOfCase() {
      if (!p.session_) return;
      p.session_->release();
      if (ends_session) p.session_.reset();
    }
  } end_of_case{*this, c.config.value("ends_session", false)};
  try {
    session_->reserve(max_send, max_recv);
  } catch (const Error& e) {
    session_error_ = e.what();
    throw;
  }
  // This host's NICs during each size's calls, when the world's traffic crosses the network: on rank 0, whose
  // results the report keeps (the other ranks would read them for nothing, each delaying its first call).
  std::optional<LinkRateWindow> nics;
  TimedWindow window;
  if (cluster_ && cluster_->nodes > 1 && cluster_->rank == 0) {
    nics.emplace(SysReader("/"));
    window = {[&nics] { nics->begin(); }, [&nics] { nics->end(); }};
  }
  for (auto s : sizes) {
    ctx.check_interrupted();
    auto cs = call_size(op, s, spec(dtype).size, ranks);
    Result r = ctx.make_result(kProbeId, c);
    r.params["bytes"] = cs.bytes;
    r.work = Json{{"bytes", cs.bytes}};
    r.info = common_info;
    r.info["count"] = cs.count;
    try {
      auto m = session_->run(op, dtype, cs, in_place, warmup, iters, window);
      auto t = summarize(op, cs.bytes, ranks, m.seconds_per_rank);
      if (auto rates = nics ? nics->rates() : std::nullopt) r.info["nic_rates"] = link_rates_json(*rates);
      r.samples = {t.mean_s};
      add_size_metrics(r, t, m.seconds_per_rank, m.chunk_seconds);
      r.info["slowest_rank"] = t.slowest_rank;
      r.info["wrong_elements"] = m.wrong_elements;
      r.info["checked_elements"] = m.checked_elements;
      if (m.wrong_elements > 0) {
        r.status = Status::incorrect;
        r.reason = fmt::format("{} of {} checked elements wrong after one {} call", m.wrong_elements,
                               m.checked_elements, spec(op).name);
      }
      if (in_network) {
        r.warnings.push_back(
            "NCCL_ALGO allows NVLS/CollNet (in-network reduction): busbw is not a physical link rate");
      }
    } catch (const Interrupted&) {
      throw;
    } catch (const Error& e) {
      r.status = Status::failed;
      r.reason = e.what();
      session_error_ = e.what();  // the communicator may be aborted: later cases do not reuse it
    }
    results.push_back(std::move(r));
    if (results.back().status != Status::ok) {
      if (results.back().status == Status::failed) break;
      continue;
    }
    if (!best || results.back().metric("busbw")->value > results[*best].metric("busbw")->value) {
      best = results.size() - 1;
    }
  }
  if (best) {
    const Result& top = results[*best];
    Result peak = ctx.make_result(kProbeId, c);
    peak.params["summary"] = "peak";
    // The peak is one size's figures: its spread is that size's.
    for (const char* name : {"busbw", "algbw"}) peak.metrics.push_back(*top.metric(name));
    peak.info = common_info;
    peak.info["bytes"] = top.params["bytes"];
    peak.warnings = top.warnings;
    results.push_back(std::move(peak));
  }
  return results;
}

#else

std::vector<Result> NcclProbe::run(const Case& /*c*/, RunContext& /*ctx*/) { throw Skipped(kNoNccl); }

#endif

}  // namespace

void add_size_metrics(Result& r, const Timing& t, std::span<const double> seconds_per_rank,
                      std::span<const double> chunk_seconds) {
  const Stats chunks = compute_stats(chunk_seconds);
  const double loop_sigma = chunks.n > 1 && chunks.mean > 0 ? mean_standard_error(chunks) / chunks.mean : 0.0;
  const double time_sigma =
      std::max(mean_standard_error(compute_stats(seconds_per_rank)), loop_sigma * t.mean_s);
  const double relative = time_sigma / t.mean_s;
  r.add_metric("busbw", t.busbw, "B/s").ci = sigma_ci(t.busbw, t.busbw * relative);
  r.add_metric("algbw", t.algbw, "B/s").ci = sigma_ci(t.algbw, t.algbw * relative);
  r.add_metric("time", t.mean_s, "s", Better::lower).ci = sigma_ci(t.mean_s, time_sigma);
  r.add_metric("time_slowest_rank", t.slowest_s, "s", Better::lower).ci =
      sigma_ci(t.slowest_s, std::max(maximum_standard_deviation(seconds_per_rank), loop_sigma * t.slowest_s));
}

std::unique_ptr<Probe> make_nccl_probe(std::optional<ClusterRole> cluster) {
  return std::make_unique<NcclProbe>(std::move(cluster));
}

std::optional<std::string> nccl_unavailable() {
#if MLBENCH_HAS_NCCL
  return nccl_load_problem();
#else
  return std::string(MLBENCH_HAS_CUDA ? kNoNccl : kBuiltWithoutCuda);
#endif
}

LocalGpus local_gpus() {
#if MLBENCH_HAS_NCCL
  if (auto why = nccl_load_problem()) return {0, *why};
  LocalGpus g;
  g.count = cuda_device_count(g.why_none);
  return g;
#else
  return {0, kNoNccl};
#endif
}

Json local_gpu_facts(int device) {
#if MLBENCH_HAS_NCCL
  return Json{
      {"device", device}, {"bus_id", device_bus_id(device)}, {"free_bytes", device_free_bytes(device)}};
#else
  throw Error(fmt::format("GPU {}: {}", device, kNoNccl));
#endif
}

std::string new_unique_id() {
#if MLBENCH_HAS_NCCL
  return make_unique_id();
#else
  throw Error(kNoNccl);
#endif
}

}  // namespace mlbench::net
