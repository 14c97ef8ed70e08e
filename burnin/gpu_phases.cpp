// The burn-in's GPU phases (burnin/phase.hpp make_gpu_phases), each on every GPU at once and each built on a
// probe's own code, looped until the phase's deadline or SIGINT:
//
//   gemm  gpu.gemm's cuBLASLt case (make_gemm_probe) at 8192³ in bf16, and fp8 where the GPU's compute
//         capability has it (precision table min_cc), one host thread per GPU running the probe's case again
//         and again: each run autotunes, times ≥ 20 samples and verifies its sampled outputs against an FP64
//         reference (a miss: an error). Rate "tflops": the median over the runs of each run's median, stats
//         over the runs. Every run also hashes its whole output (info.output_hash); all GPUs get the same
//         seeded inputs, so the hashes must agree across GPUs of one model (burnin/gpu_checks.hpp
//         hash_mismatches): each run whose hash differs from the group's reference is an error of its GPU.
//   hbm   the HBM pattern test (kernels/gpu/hbm_pattern.hpp), one host thread per GPU: gpu_memory_fraction of
//         the free memory (cudaMemGetInfo) allocated in as few chunks as fit, then pass after pass: write one
//         pattern (address, inverse address, walking ones, walking zeros, random) over all of it, read every
//         word back and count each that differs on the device, the first 16 recorded with address, expected
//         and read values. Rate "bandwidth" = (bytes written + bytes read) / the pass's CUDA-event time.
//   copy  gpu.copy's pinned copy-engine host↔device case in both directions at once on every GPU (one host
//         thread each, bound to the GPU's NUMA node by the probe), and with ≥ 2 GPUs its peer case between
//         each GPU and the next (both ways at once), alternately; the probe checks every copied word. Results
//         per GPU and link ("host", "peer"): rate "bandwidth" (bidirectional bytes / s).
//   nccl  net.nccl's session (network/nccl_session.hpp): all_reduce of 256 MiB of float32 over every
//         local GPU from one process; each run is one correctness call on fresh inputs, checked on the device
//         as the probe does, then 20 timed calls (5 warm-up calls before the first run's). NCCL drives the
//         GPUs of one process from one thread (grouped calls), so this phase has one thread for all. Rate
//         "busbw" per GPU from its rank's time (nccl-tests' bus factor 2(n−1)/n); the check sums wrong
//         elements over the ranks, so they count against every GPU.
//
// Each result: probe "burnin.<phase>", params {device: "gpu<k>" (PCI bus order, as the telemetry names GPUs),
// uuid, ...}, metrics: the rate then "errors"; info {iterations, ...}. A GPU whose thread hits a CUDA, cuBLAS
// or NCCL error (every status is checked by the probes' macros) gets a `failed` result with one error, the
// others go on. Without CUDA (the cpu preset) every phase is unavailable with kBuiltWithoutCuda.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "bench/host_view.hpp"
#include "bench/probe.hpp"
#include "burnin/gpu_checks.hpp"
#include "burnin/phase.hpp"
#include "kernels/gpu/plan.hpp"
#include "mlbench_config.hpp"
#include "network/nccl_probe.hpp"

#if MLBENCH_HAS_CUDA
#include "kernels/gpu/cuda_util.hpp"
#include "kernels/gpu/gemm_plan.hpp"
#include "kernels/gpu/hbm_pattern.hpp"
#include "kernels/gpu/probes.hpp"
#endif
#if MLBENCH_HAS_NCCL
#include "network/collectives.hpp"
#include "network/nccl_options.hpp"
#include "network/nccl_session.hpp"
#endif

namespace mlbench::burnin {
namespace {

using Clock = std::chrono::steady_clock;

// What every GPU phase needs before it can run: CUDA in the build and a GPU in the inventory.
std::optional<std::string> gpu_unavailable(const Json& host) {
  if (!MLBENCH_HAS_CUDA) return std::string(kBuiltWithoutCuda);
  return gpu::no_gpu_reason(host);
}

#if MLBENCH_HAS_CUDA

// One GPU as the phases see it: its CUDA index (inventory order), burn-in name, uuid and model.
struct GpuSlot {
  int index = 0;
  std::string device, uuid, model;
  gpu::DeviceFacts facts;
};

std::vector<GpuSlot> gpu_slots(const Json& host) {
  const auto facts = gpu::device_facts_from_inventory(host);
  const auto names = gpu_device_names(host);
  std::vector<GpuSlot> out;
  for (std::size_t i = 0; i < facts.size(); ++i) {
    out.push_back({static_cast<int>(i), names.at(i), facts[i].uuid, facts[i].name, facts[i]});
  }
  return out;
}

// A result for a GPU whose run ended in an error: `failed`, one error.
Result failed_result(PhaseId phase, const GpuSlot& g, const std::string& what) {
  Result r = phase_result(phase, g.device, g.uuid);
  r.status = Status::failed;
  r.reason = fmt::format("{}: {}", g.device, what);
  add_errors(r, 1, r.reason);
  return r;
}

// Runs body(gpu) on one thread per GPU, all at once, and returns the results in GPU order. An error a body
// lets out becomes that GPU's failed result.
template <typename Body>
std::vector<Result> on_every_gpu(PhaseId phase, const std::vector<GpuSlot>& gpus, const Body& body) {
  std::vector<std::vector<Result>> per_gpu(gpus.size());
  {
    std::vector<std::jthread> threads;
    for (std::size_t i = 0; i < gpus.size(); ++i) {
      threads.emplace_back([&gpus, &per_gpu, &body, phase, i] {
        try {
          per_gpu[i] = body(gpus[i]);
        } catch (const std::exception& e) {
          per_gpu[i] = {failed_result(phase, gpus[i], e.what())};
        }
      });
    }
  }
  std::vector<Result> out;
  for (auto& rs : per_gpu) {
    for (auto& r : rs) out.push_back(std::move(r));
  }
  return out;
}

// A probe run inside a phase gets the phase's deadline, but at least this long: the probes' measurement loop
// throws when fewer than 3 samples fit, and a run that started before the deadline should finish.
constexpr std::chrono::seconds kProbeRunMinimum{3};

RunContext probe_context(const PhaseContext& ctx) {
  return RunContext{ctx.host, std::max(ctx.deadline, Clock::now() + kProbeRunMinimum), ctx.stop};
}

// --- gemm -------------------------------------------------------------------------------------------------

constexpr std::int64_t kGemmSize = 8192;

class GemmPhase final : public Phase {
 public:
  PhaseId id() const override { return PhaseId::gemm; }
  std::optional<std::string> unavailable(const Json& host) const override { return gpu_unavailable(host); }

  std::vector<Result> run(const PhaseContext& ctx) override {
    const auto gpus = gpu_slots(ctx.host);
    // One plan for every GPU (the quick profile tunes 4 candidates per run); fp8 only where the GPU has it.
    const Json options{{"precisions", "bf16,fp8"},
                       {"sizes", std::to_string(kGemmSize)},
                       {"shapes", "square"},
                       {"devices", "all"}};
    const auto planned = gpu::make_gemm_probe()->plan(PlanContext{Profile::quick, ctx.host, options});
    std::map<int, std::vector<Case>> cases;  // by CUDA index
    for (const auto& c : planned) {
      const int dev = c.params.at("device").get<int>();
      const auto& spec = gpu::precision_spec(c.params.at("precision").get<std::string>());
      if (gpus.at(static_cast<std::size_t>(dev)).facts.cc_number() >= spec.min_cc) cases[dev].push_back(c);
    }

    struct Run {
      std::string precision;
      std::vector<double> rates;
      std::vector<std::string> hashes;  // one per run
      std::vector<bool> incorrect;      // one per run: the probe's verification failed
      std::string first_incorrect, skipped;
    };
    std::map<std::string, std::vector<Run>> runs;  // by device
    std::mutex runs_lock;
    auto results = on_every_gpu(PhaseId::gemm, gpus, [&](const GpuSlot& g) {
      auto probe = gpu::make_gemm_probe();
      const auto found = cases.find(g.index);
      const std::vector<Case> mine = found == cases.end() ? std::vector<Case>{} : found->second;
      if (mine.empty()) {
        Result r = phase_result(PhaseId::gemm, g.device, g.uuid);
        r.status = Status::skipped;
        r.reason = fmt::format("{}: bf16 GEMM needs compute capability {}.{} or newer; {} is {}", g.device,
                               gpu::precision_spec("bf16").min_cc / 10,
                               gpu::precision_spec("bf16").min_cc % 10, g.model, g.facts.cc);
        return std::vector<Result>{std::move(r)};
      }
      std::vector<Run> per_case(mine.size());
      std::vector<bool> live(mine.size(), true);
      for (std::size_t i = 0; i < mine.size(); ++i) {
        per_case[i].precision = mine[i].params.at("precision").get<std::string>();
      }
      std::optional<std::string> failure;
      while (!failure && !ctx.past_deadline() && std::count(live.begin(), live.end(), true) > 0) {
        for (std::size_t i = 0; i < mine.size() && !failure && !ctx.past_deadline(); ++i) {
          if (!live[i]) continue;
          RunContext rc = probe_context(ctx);
          try {
            const auto out = probe->run(mine[i], rc);
            const Result& pr = out.front();
            per_case[i].rates.push_back(pr.metrics.front().value);
            per_case[i].hashes.push_back(pr.info.value("output_hash", std::string()));
            per_case[i].incorrect.push_back(pr.status == Status::incorrect);
            if (pr.status == Status::incorrect && per_case[i].first_incorrect.empty()) {
              per_case[i].first_incorrect = pr.reason;
            }
          } catch (const Skipped& e) {
            live[i] = false;
            per_case[i].skipped = e.what();
          } catch (const Interrupted&) {
            break;
          } catch (const Error& e) {
            failure = e.what();
          }
        }
      }
      // A GPU that failed has its failed result only; the others' runs are judged together below.
      if (failure) return std::vector<Result>{failed_result(PhaseId::gemm, g, *failure)};
      std::lock_guard lock(runs_lock);
      runs[g.device] = std::move(per_case);
      return std::vector<Result>{};
    });

    // Every run's hash against its peers' (each report indexed back to its device, case and run).
    struct Origin {
      std::string device;
      std::size_t c = 0, run = 0;
    };
    std::vector<OutputHash> reports;
    std::vector<Origin> origin;
    for (const auto& g : gpus) {
      const auto& per_case = runs[g.device];
      for (std::size_t i = 0; i < per_case.size(); ++i) {
        for (std::size_t k = 0; k < per_case[i].hashes.size(); ++k) {
          reports.push_back({g.device, g.model, per_case[i].precision, per_case[i].hashes[k]});
          origin.push_back({g.device, i, k});
        }
      }
    }
    // (device, case) -> the runs whose hash differs, and the first reason.
    std::map<std::pair<std::string, std::size_t>, std::pair<std::vector<std::size_t>, std::string>>
        mismatches;
    for (const auto& m : hash_mismatches(reports)) {
      const Origin& o = origin[m.index];
      auto& entry = mismatches[{o.device, o.c}];
      if (entry.first.empty()) entry.second = m.reason;
      entry.first.push_back(o.run);
    }

    for (const auto& g : gpus) {
      const auto& per_case = runs[g.device];
      for (std::size_t i = 0; i < per_case.size(); ++i) {
        const Run& run = per_case[i];
        Result r = phase_result(PhaseId::gemm, g.device, g.uuid);
        r.params["precision"] = run.precision;
        r.params["shape"] = fmt::format("{0}x{0}x{0}", kGemmSize);
        if (!run.skipped.empty() && run.rates.empty()) {
          r.status = Status::skipped;
          r.reason = run.skipped;
          results.push_back(std::move(r));
          continue;
        }
        add_iteration_rate(r, "tflops", run.rates, "FLOP/s");
        // An error per run that failed its verification or whose output differs from its peers'.
        const auto& [differ, differ_reason] = mismatches[{g.device, i}];
        std::vector<bool> wrong = run.incorrect;
        for (std::size_t k : differ) wrong[k] = true;
        const auto verification_errors = std::count(run.incorrect.begin(), run.incorrect.end(), true);
        std::string reason =
            verification_errors > 0
                ? fmt::format("{}: {} of {} runs failed verification; first: {}", g.device,
                              verification_errors, run.rates.size(), run.first_incorrect)
                : fmt::format("{} ({} of {} runs)", differ_reason, differ.size(), run.hashes.size());
        add_errors(r, static_cast<std::uint64_t>(std::count(wrong.begin(), wrong.end(), true)), reason);
        r.info["iterations"] = run.rates.size();
        if (!run.hashes.empty()) r.info["output_hash"] = run.hashes.front();
        r.info["verification_failures"] = verification_errors;
        r.info["hash_mismatches"] = differ.size();
        if (ctx.stopping()) r.warnings.push_back("interrupted: the phase ended early");
        results.push_back(std::move(r));
      }
    }
    return results;
  }
};

// --- hbm --------------------------------------------------------------------------------------------------

class HbmPhase final : public Phase {
 public:
  PhaseId id() const override { return PhaseId::hbm; }
  std::optional<std::string> unavailable(const Json& host) const override { return gpu_unavailable(host); }

  std::vector<Result> run(const PhaseContext& ctx) override {
    return on_every_gpu(PhaseId::hbm, gpu_slots(ctx.host), [&ctx](const GpuSlot& g) {
      gpu::DeviceGuard guard(g.index);
      std::size_t free_bytes = 0, total_bytes = 0;
      MLBENCH_CHECK_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
      const auto target =
          static_cast<std::uint64_t>(ctx.gpu_memory_fraction * static_cast<double>(free_bytes));
      gpu::HbmPatternRegion region(g.index, target);
      gpu::Stream stream;
      gpu::DeviceBuffer counters(sizeof(gpu::HbmPatternCounters));
      gpu::Event start, stop;
      int grid = 0;
      MLBENCH_CHECK_CUDA(gpu::hbm_pattern_grid(g.facts.sms, &grid));

      BadWordLog log;
      std::vector<double> rates;
      std::uint64_t passes = 0;
      while (!ctx.past_deadline()) {
        const gpu::HbmPass pass = gpu::hbm_pass(passes, ctx.seed);
        MLBENCH_CHECK_CUDA(cudaMemsetAsync(counters.get(), 0, counters.bytes(), stream.get()));
        start.record(stream.get());
        for (const auto& c : region.chunks())
          MLBENCH_CHECK_CUDA(gpu::hbm_pattern_write(c, pass, grid, stream.get()));
        for (const auto& c : region.chunks()) {
          MLBENCH_CHECK_CUDA(
              gpu::hbm_pattern_check(c, pass, counters.as<gpu::HbmPatternCounters>(), grid, stream.get()));
        }
        stop.record(stream.get());
        gpu::HbmPatternCounters seen;
        MLBENCH_CHECK_CUDA(
            cudaMemcpyAsync(&seen, counters.get(), sizeof seen, cudaMemcpyDeviceToHost, stream.get()));
        stream.sync();
        rates.push_back(2.0 * static_cast<double>(region.bytes()) / gpu::elapsed_s(start, stop));
        log.add(seen, pass);
        ++passes;
      }

      Result r = phase_result(PhaseId::hbm, g.device, g.uuid);
      add_iteration_rate(r, "bandwidth", rates, "B/s");
      add_errors(r, log.count(), log.reason(g.device, region.bytes(), passes));
      r.info["iterations"] = passes;
      r.info["bad_words"] = log.to_json();
      r.info["bytes_tested"] = region.bytes();
      r.info["free_bytes"] = free_bytes;
      r.info["chunks"] = region.chunks().size();
      r.info["bandwidth_basis"] = "bytes written + bytes read per pass / the pass's CUDA-event time";
      return std::vector<Result>{std::move(r)};
    });
  }
};

// --- copy -------------------------------------------------------------------------------------------------

class CopyPhase final : public Phase {
 public:
  PhaseId id() const override { return PhaseId::copy; }
  std::optional<std::string> unavailable(const Json& host) const override { return gpu_unavailable(host); }

  std::vector<Result> run(const PhaseContext& ctx) override {
    const auto gpus = gpu_slots(ctx.host);
    const Json options{{"directions", "bidir"}, {"memory", "pinned"}, {"paths", "ce"}, {"devices", "all"}};
    const auto planned = gpu::make_copy_probe()->plan(PlanContext{Profile::standard, ctx.host, options});
    std::map<int, Case> host_case;
    std::optional<Case> peer_case;
    for (const auto& c : planned) {
      if (c.params.at("kind") == "host") host_case[c.params.at("device").get<int>()] = c;
      if (c.params.at("kind") == "p2p") peer_case = c;
    }

    return on_every_gpu(PhaseId::copy, gpus, [&](const GpuSlot& g) {
      auto probe = gpu::make_copy_probe();
      struct Link {
        Result result;
        std::optional<Case> c;
        std::vector<double> rates;
        std::uint64_t errors = 0;
        std::string first_error;
      };
      std::vector<Link> links;
      links.push_back({phase_result(PhaseId::copy, g.device, g.uuid), host_case.at(g.index)});
      links.back().result.params["link"] = "host";
      if (peer_case) {
        const auto& next = gpus[(static_cast<std::size_t>(g.index) + 1) % gpus.size()];
        Case c = *peer_case;
        c.params["devices"] = Json::array({g.index, next.index});
        links.push_back({phase_result(PhaseId::copy, g.device, g.uuid), c});
        links.back().result.params["link"] = "peer";
        links.back().result.params["peer"] = next.device;
      }
      std::uint64_t iterations = 0;
      while (!ctx.past_deadline()) {
        for (auto& link : links) {
          if (ctx.past_deadline()) break;
          RunContext rc = probe_context(ctx);
          std::vector<Result> out;
          try {
            out = probe->run(*link.c, rc);
          } catch (const Interrupted&) {
            break;
          }
          for (const auto& pr : out) {
            // The peer case gives one way each and both ways at once: the rate is both ways at once.
            if (pr.params.value("direction", std::string()) == "bidir") {
              link.rates.push_back(pr.metrics.front().value);
            }
            if (pr.status == Status::incorrect && link.errors++ == 0) link.first_error = pr.reason;
          }
        }
        ++iterations;
      }
      std::vector<Result> results;
      for (auto& link : links) {
        add_iteration_rate(link.result, "bandwidth", link.rates, "B/s");
        add_errors(link.result, link.errors,
                   fmt::format("{}: {} {} copy result{} with wrong words over {} runs; first: {}", g.device,
                               link.errors, link.result.params["link"].get<std::string>(),
                               link.errors == 1 ? "" : "s", iterations, link.first_error));
        link.result.info["iterations"] = link.rates.size();
        link.result.info["bytes_per_copy"] = link.c->params.at("bytes");
        results.push_back(std::move(link.result));
      }
      return results;
    });
  }
};

#endif  // MLBENCH_HAS_CUDA

// --- nccl -------------------------------------------------------------------------------------------------

#if MLBENCH_HAS_NCCL
constexpr std::uint64_t kNcclBytes = 256ull << 20;
constexpr int kNcclIters = 20;
constexpr int kNcclWarmup = 5;
#endif

class NcclPhase final : public Phase {
 public:
  PhaseId id() const override { return PhaseId::nccl; }

  std::optional<std::string> unavailable(const Json& host) const override {
    if (auto why = gpu_unavailable(host)) return why;
    if (auto why = net::nccl_unavailable()) return why;
    const std::size_t n = HostView(host).gpus.size();
    if (n < static_cast<std::size_t>(net::kMinRanks)) {
      return fmt::format("all_reduce needs at least {} GPUs; this host has {}", net::kMinRanks, n);
    }
    return std::nullopt;
  }

  std::vector<Result> run(const PhaseContext& ctx) override {
#if MLBENCH_HAS_NCCL
    const auto gpus = gpu_slots(ctx.host);
    const int n = static_cast<int>(gpus.size());
    net::SessionSetup setup;
    setup.world_size = n;
    for (const auto& g : gpus) setup.devices.push_back(g.index);
    setup.timeout_s = net::parse_nccl_options(Json::object(), Profile::standard).timeout_s;
    setup.host = HostView(ctx.host).hostname;
    if (setup.host.empty()) setup.host = "this host";
    const auto op = net::Collective::all_reduce;
    const auto dtype = net::DataType::float32;
    const auto size = net::call_size(op, kNcclBytes, net::spec(dtype).size, n);

    std::vector<std::vector<double>> busbw(gpus.size());
    std::uint64_t wrong = 0, checked = 0, runs = 0;
    std::optional<std::string> failure;
    try {
      net::NcclSession session(setup);
      session.reserve(size.send_bytes, size.recv_bytes);
      while (!ctx.past_deadline()) {
        const auto m = session.run(op, dtype, size, false, runs == 0 ? kNcclWarmup : 0, kNcclIters);
        for (std::size_t r = 0; r < gpus.size(); ++r) {
          busbw[r].push_back(net::bus_factor(op, n) * static_cast<double>(size.bytes) /
                             m.seconds_per_rank[r]);
        }
        wrong += m.wrong_elements;
        checked += m.checked_elements;
        ++runs;
      }
    } catch (const Error& e) {
      failure = e.what();
    }
    std::vector<Result> out;
    for (std::size_t r = 0; r < gpus.size(); ++r) {
      const auto& g = gpus[r];
      if (failure) {
        out.push_back(failed_result(PhaseId::nccl, g, *failure));
        continue;
      }
      Result res = phase_result(PhaseId::nccl, g.device, g.uuid);
      add_iteration_rate(res, "busbw", busbw[r], "B/s");
      add_errors(
          res, wrong,
          fmt::format("{}: {} of {} checked all_reduce elements wrong over {} runs (summed over the {} "
                      "GPUs: the check does not say which)",
                      g.device, wrong, checked, runs, n));
      res.info["iterations"] = runs;
      res.info["bytes"] = size.bytes;
      res.info["calls_per_run"] = kNcclIters;
      res.info["checked_elements"] = checked;
      res.info["wrong_elements"] = wrong;
      res.info["nccl_version"] = net::nccl_version_string();
      out.push_back(std::move(res));
    }
    return out;
#else
    (void)ctx;
    throw Error(MLBENCH_HAS_CUDA ? net::local_gpus().why_none : std::string(kBuiltWithoutCuda));
#endif
  }
};

#if !MLBENCH_HAS_CUDA
// The phases of a build without CUDA: listed, and unavailable with kBuiltWithoutCuda.
class UnbuiltPhase final : public Phase {
 public:
  explicit UnbuiltPhase(PhaseId id) : id_(id) {}
  PhaseId id() const override { return id_; }
  std::optional<std::string> unavailable(const Json& /*host*/) const override {
    return std::string(kBuiltWithoutCuda);
  }
  std::vector<Result> run(const PhaseContext& /*ctx*/) override {
    throw Error(std::string(kBuiltWithoutCuda));
  }

 private:
  PhaseId id_;
};
#endif

}  // namespace

std::vector<std::unique_ptr<Phase>> make_gpu_phases() {
  std::vector<std::unique_ptr<Phase>> out;
#if MLBENCH_HAS_CUDA
  out.push_back(std::make_unique<GemmPhase>());
  out.push_back(std::make_unique<HbmPhase>());
  out.push_back(std::make_unique<CopyPhase>());
#else
  for (auto id : {PhaseId::gemm, PhaseId::hbm, PhaseId::copy})
    out.push_back(std::make_unique<UnbuiltPhase>(id));
#endif
  out.push_back(std::make_unique<NcclPhase>());
  return out;
}

}  // namespace mlbench::burnin
