// gpu.gemm: dense GEMM throughput through cuBLASLt, verified on every run.
//
// Measures D = op(A)·B in the TN layout (A stored K×M and transposed, B K×N, D M×N, column-major) for fp32
// (CUBLAS_COMPUTE_32F, no tensor cores), tf32 (COMPUTE_32F_FAST_TF32), fp16/bf16 (FP32 accumulate, D in the
// input type), fp8 (E4M3×E4M3, device scale pointers = 1, D in BF16, fast accumulation; needs cc ≥ 8.9) and
// int8 (INT32 accumulate and output). TFLOPS = 2·M·N·K / t (INT8: TOPS).
// Inputs are random full-entropy values; A/B sets are rotated so their total is ≥ 2× L2. The heuristic's top
// candidates are each timed over ~10 ms and the fastest kept (recorded in info.algorithm). Warm-up ≥ 0.2 s,
// then ≥ 20 samples of ~25 ms; median and best reported.
//
// A timed loop of a GEMM that runs under 0.2 ms is one CUDA graph of its launches between two events
// (gemm_plan.hpp use_launch_graph). A small GEMM (1024³ bf16: ~3 µs on an H200) runs about as long as the
// host takes to issue one cublasLtMatmul, so a loop of stream launches would time the host's issue rate, with
// the GPU idling between kernels; more launches per loop would not change that. The graph is issued with one
// call and its kernels run back to back on the device (cuBLAS supports stream capture; the workspace is
// passed explicitly, so no capture-time allocation). A longer GEMM (8192³) is timed with plain launches: the
// host issues the next long before the GPU needs it, and no stream capture is open while other threads of
// the burn-in free memory or synchronise on the same GPU. Sizing comes from a warmed-up 8-launch loop (the
// first launches load the kernels lazily). Sampled outputs (8 rows × 8
// columns) are checked against an FP64 host reference of the device's own (rounded) inputs, each within what
// a correct output may be off by (the precision's error model, gemm_plan.cpp) — a miss makes the result
// `incorrect`.
//
// info.output_hash: a 64-bit hash (verify.hpp hash_bytes) of the whole of D = A₀·B₀ (input set 0), computed
// on the host from a copy of D after the verification. It comes from the heuristic's first candidate that
// launched, not from the fastest one: the heuristic's order depends only on the GPU model, the shape and the
// library, while the fastest varies with timing noise. cuBLAS gives bit-identical results for the same
// algorithm and inputs on GPUs of the same architecture and SM count (cuBLAS guide, "Results
// reproducibility"; cublasLtMatmul with its own workspace), and the inputs come from fixed seeds, so every
// healthy GPU of one model reports the same hash for a case; the burn-in (burnin/gpu_checks.hpp) holds a GPU
// whose hash differs from its peers' as faulty.
#include <algorithm>
#include <cstdlib>
#include <memory>

#include <fmt/format.h>

#include "bench/measure.hpp"
#include "kernels/gpu/cublas_check.hpp"
#include "kernels/gpu/cuda_util.hpp"
#include "kernels/gpu/gemm_plan.hpp"
#include "kernels/gpu/gpu_kernels.hpp"
#include "kernels/gpu/launch_loop.hpp"
#include "kernels/gpu/probe_util.hpp"
#include "kernels/gpu/probes.hpp"
#include "kernels/gpu/verify.hpp"

namespace mlbench::gpu {
namespace {

template <typename T, cublasStatus_t (*Destroy)(T)>
class LtObject {
 public:
  LtObject() = default;
  ~LtObject() {
    if (h_) Destroy(h_);
  }
  LtObject(const LtObject&) = delete;
  LtObject& operator=(const LtObject&) = delete;
  T* out() { return &h_; }
  T get() const { return h_; }

 private:
  T h_ = nullptr;
};
using LtHandle = LtObject<cublasLtHandle_t, cublasLtDestroy>;
using LtDesc = LtObject<cublasLtMatmulDesc_t, cublasLtMatmulDescDestroy>;
using LtLayout = LtObject<cublasLtMatrixLayout_t, cublasLtMatrixLayoutDestroy>;
using LtPref = LtObject<cublasLtMatmulPreference_t, cublasLtMatmulPreferenceDestroy>;

struct LtTypes {
  cudaDataType_t in, out, scale;
  cublasComputeType_t compute;
};

LtTypes lt_types(Precision p) {
  switch (p) {
    case Precision::fp32:
      return {CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F};
    case Precision::tf32:
      return {CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32};
    case Precision::fp16:
      return {CUDA_R_16F, CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F};
    case Precision::bf16:
      return {CUDA_R_16BF, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F};
    case Precision::fp8:
      return {CUDA_R_8F_E4M3, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F};
    case Precision::int8:
      return {CUDA_R_8I, CUDA_R_32I, CUDA_R_32I, CUBLAS_COMPUTE_32I};
  }
  throw Error("unhandled precision");
}

template <typename T>
void set_attr(cublasLtMatmulDesc_t d, cublasLtMatmulDescAttributes_t a, const T& v) {
  MLBENCH_CHECK_CUBLAS(cublasLtMatmulDescSetAttribute(d, a, &v, sizeof v));
}

Json algo_info(const cublasLtMatmulAlgo_t& algo) {
  Json j;
  auto get = [&](cublasLtMatmulAlgoConfigAttributes_t a, const char* name) {
    std::int32_t v = 0;
    std::size_t written = 0;
    if (cublasLtMatmulAlgoConfigGetAttribute(&algo, a, &v, sizeof v, &written) == CUBLAS_STATUS_SUCCESS) {
      j[name] = v;
    }
  };
  get(CUBLASLT_ALGO_CONFIG_ID, "id");
  get(CUBLASLT_ALGO_CONFIG_TILE_ID, "tile");
  get(CUBLASLT_ALGO_CONFIG_STAGES_ID, "stages");
  get(CUBLASLT_ALGO_CONFIG_SPLITK_NUM, "splitk");
  return j;
}

// A launch that cuBLASLt refused (an algorithm the heuristic offered but this shape cannot run).
struct LaunchRefused : Error {
  explicit LaunchRefused(cublasStatus_t st)
      : Error(fmt::format("cublasLtMatmul refused a launch: {}", cublasLtGetStatusName(st))) {}
};

// One executable CUDA graph of a loop of launches, kept while the same candidate and count are timed again.
class LaunchGraph {
 public:
  LaunchGraph() = default;
  ~LaunchGraph() { reset(); }
  LaunchGraph(const LaunchGraph&) = delete;
  LaunchGraph& operator=(const LaunchGraph&) = delete;

  bool holds(int candidate, int count) const { return exec_ && candidate_ == candidate && count_ == count; }

  // Captures `count` calls of launch(i) on `stream`; throws LaunchRefused when one returns an error.
  template <typename Launch>
  void capture(cudaStream_t stream, int candidate, int count, Launch&& launch) {
    reset();
    MLBENCH_CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    cublasStatus_t refused = CUBLAS_STATUS_SUCCESS;
    for (int i = 0; i < count && refused == CUBLAS_STATUS_SUCCESS; ++i) refused = launch(i);
    cudaGraph_t graph = nullptr;
    MLBENCH_CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
    if (refused != CUBLAS_STATUS_SUCCESS) {
      cudaGraphDestroy(graph);
      throw LaunchRefused(refused);
    }
    const cudaError_t rc = cudaGraphInstantiate(&exec_, graph, 0);
    cudaGraphDestroy(graph);
    MLBENCH_CHECK_CUDA(rc);
    // Stream-ordered before the first timed launch, so that launch does not pay for the upload.
    MLBENCH_CHECK_CUDA(cudaGraphUpload(exec_, stream));
    candidate_ = candidate;
    count_ = count;
  }

  void launch(cudaStream_t stream) const { MLBENCH_CHECK_CUDA(cudaGraphLaunch(exec_, stream)); }

 private:
  void reset() {
    if (exec_) cudaGraphExecDestroy(exec_);
    exec_ = nullptr;
  }

  cudaGraphExec_t exec_ = nullptr;
  int candidate_ = -1, count_ = 0;
};

std::vector<double> copy_decoded(const void* dev_ptr, Storage s, std::size_t count) {
  std::vector<unsigned char> raw(count * storage_bytes(s));
  MLBENCH_CHECK_CUDA(cudaMemcpy(raw.data(), dev_ptr, raw.size(), cudaMemcpyDeviceToHost));
  std::vector<double> out(count);
  for (std::size_t i = 0; i < count; ++i) out[i] = decode(s, raw.data(), i);
  return out;
}

class GemmProbe : public Probe {
 public:
  ProbeInfo info() const override { return gemm_info(); }

  std::optional<std::string> unavailable(const Json& host) const override { return no_gpu_reason(host); }

  std::vector<Case> plan(const PlanContext& ctx) const override {
    auto facts = live_device_facts(ctx.host);
    std::vector<Case> out;
    for (const auto& g : plan_gemm(ctx.options, ctx.profile, facts, ctx.source)) {
      const auto& d = facts.at(static_cast<std::size_t>(g.device));
      Case c;
      c.label = fmt::format("{} {} {}x{}x{} GPU{}", g.spec->name, g.shape.name, g.shape.m, g.shape.n,
                            g.shape.k, g.device);
      c.params = gemm_case_params(g, d);
      c.config = {{"buffer_sets", g.buffer_sets}, {"workspace_bytes", g.workspace}, {"algos", g.algos}};
      const GpuSpec* spec = match_gpu(gpu_catalog(), d.name, d.cc);
      double peak = spec && spec->peak_for(g.spec->name) ? *spec->peak_for(g.spec->name) : 50e12;
      double launch = gemm_flops(g.shape.m, g.shape.n, g.shape.k) / (0.5 * peak);
      c.estimate_s = 1.5 + std::max(launch, 0.025) * (3.0 * g.algos + 30.0);
      out.push_back(std::move(c));
    }
    return out;
  }

  std::vector<Result> run(const Case& c, RunContext& ctx) override {
    const int device = c.params.at("device").get<int>();
    DeviceFacts d = device_facts(ctx.host, device);
    const PrecisionSpec& spec = precision_spec(c.params.at("precision").get<std::string>());
    if (d.cc_number() < spec.min_cc) {
      throw Skipped(fmt::format("{} needs compute capability {}.{} or newer; GPU {} ({}) is {}", spec.name,
                                spec.min_cc / 10, spec.min_cc % 10, d.index, d.name, d.cc));
    }
    DeviceGuard guard(device);
    Result r = ctx.make_result(info().id, c);
    const GpuSpec* catalog = catalog_entry(d, r);
    // NVIDIA_TF32_OVERRIDE=0 silently takes TF32 away from a tf32 case (plan.hpp tf32_override_warning).
    const char* tf32_override = std::getenv("NVIDIA_TF32_OVERRIDE");
    if (tf32_override && (spec.precision == Precision::fp32 || spec.precision == Precision::tf32)) {
      r.info["nvidia_tf32_override"] = tf32_override;
    }
    if (auto warning = tf32_override_warning(spec.precision, tf32_override)) r.warnings.push_back(*warning);

    const std::int64_t m = c.params.at("m"), n = c.params.at("n"), k = c.params.at("k");
    const int sets = c.config.at("buffer_sets");
    const std::size_t ws_bytes = c.config.at("workspace_bytes");
    const int algos = c.config.at("algos");
    const Storage in = input_storage(spec.precision), out = output_storage(spec.precision);
    const LtTypes types = lt_types(spec.precision);
    const std::size_t a_elems = static_cast<std::size_t>(m * k), b_elems = static_cast<std::size_t>(k * n);

    Stream stream;
    std::vector<DeviceBuffer> a, b;
    for (int i = 0; i < sets; ++i) {
      a.emplace_back(a_elems * storage_bytes(in));
      b.emplace_back(b_elems * storage_bytes(in));
      MLBENCH_CHECK_CUDA(fill_random(a.back().get(), in, a_elems, 2 * i + 1, d.sms * 8, stream.get()));
      MLBENCH_CHECK_CUDA(fill_random(b.back().get(), in, b_elems, 2 * i + 2, d.sms * 8, stream.get()));
    }
    DeviceBuffer dmat(static_cast<std::size_t>(m * n) * storage_bytes(out));
    DeviceBuffer workspace(ws_bytes);
    DeviceBuffer scales(2 * sizeof(float));
    MLBENCH_CHECK_CUDA(fill_f32(scales.as<float>(), 1.0f, 2, stream.get()));
    stream.sync();

    LtHandle handle;
    MLBENCH_CHECK_CUBLAS(cublasLtCreate(handle.out()));
    LtDesc desc;
    MLBENCH_CHECK_CUBLAS(cublasLtMatmulDescCreate(desc.out(), types.compute, types.scale));
    set_attr(desc.get(), CUBLASLT_MATMUL_DESC_TRANSA, CUBLAS_OP_T);
    set_attr(desc.get(), CUBLASLT_MATMUL_DESC_TRANSB, CUBLAS_OP_N);
    if (spec.precision == Precision::fp8) {
      const float* a_scale = scales.as<float>();
      const float* b_scale = scales.as<float>() + 1;
      set_attr(desc.get(), CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, a_scale);
      set_attr(desc.get(), CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, b_scale);
      set_attr(desc.get(), CUBLASLT_MATMUL_DESC_FAST_ACCUM, std::int8_t{1});
    }
    LtLayout la, lb, ld;
    MLBENCH_CHECK_CUBLAS(cublasLtMatrixLayoutCreate(la.out(), types.in, k, m, k));
    MLBENCH_CHECK_CUBLAS(cublasLtMatrixLayoutCreate(lb.out(), types.in, k, n, k));
    MLBENCH_CHECK_CUBLAS(cublasLtMatrixLayoutCreate(ld.out(), types.out, m, n, m));
    LtPref pref;
    MLBENCH_CHECK_CUBLAS(cublasLtMatmulPreferenceCreate(pref.out()));
    const std::uint64_t ws_attr = ws_bytes;
    MLBENCH_CHECK_CUBLAS(cublasLtMatmulPreferenceSetAttribute(
        pref.get(), CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_attr, sizeof ws_attr));
    std::vector<cublasLtMatmulHeuristicResult_t> heur(static_cast<std::size_t>(algos));
    int returned = 0;
    MLBENCH_CHECK_CUBLAS(cublasLtMatmulAlgoGetHeuristic(handle.get(), desc.get(), la.get(), lb.get(),
                                                        ld.get(), ld.get(), pref.get(), algos, heur.data(),
                                                        &returned));
    if (returned <= 0) {
      throw Skipped(
          fmt::format("cuBLASLt offers no algorithm for {} {}x{}x{} on {}", spec.name, m, n, k, d.name));
    }

    const float alpha_f = 1.0f, beta_f = 0.0f;
    const std::int32_t alpha_i = 1, beta_i = 0;
    const void* alpha = types.scale == CUDA_R_32I ? static_cast<const void*>(&alpha_i) : &alpha_f;
    const void* beta = types.scale == CUDA_R_32I ? static_cast<const void*>(&beta_i) : &beta_f;
    auto launch = [&](const cublasLtMatmulAlgo_t& algo, int set) {
      return cublasLtMatmul(handle.get(), desc.get(), alpha, a[set].get(), la.get(), b[set].get(), lb.get(),
                            beta, dmat.get(), ld.get(), dmat.get(), ld.get(), &algo, workspace.get(),
                            ws_bytes, stream.get());
    };
    Event start, stop;
    LaunchGraph graph;
    // Per candidate: whether its loops are CUDA graphs (use_launch_graph, from one plain launch's time).
    std::vector<char> graphs(static_cast<std::size_t>(returned), 0);
    // Seconds per launch of candidate `cand` over `count` launches rotating the input sets: one graph, or
    // plain launches on the stream.
    auto timed = [&](int cand, int count) {
      if (graphs[static_cast<std::size_t>(cand)]) {
        if (!graph.holds(cand, count)) {
          graph.capture(stream.get(), cand, count, [&](int i) { return launch(heur[cand].algo, i % sets); });
        }
        start.record(stream.get());
        graph.launch(stream.get());
        stop.record(stream.get());
      } else {
        start.record(stream.get());
        for (int i = 0; i < count; ++i) {
          if (const cublasStatus_t st = launch(heur[cand].algo, i % sets); st != CUBLAS_STATUS_SUCCESS) {
            throw LaunchRefused(st);
          }
        }
        stop.record(stream.get());
      }
      return elapsed_s(start, stop) / count;
    };

    // Autotuning: each heuristic candidate warmed up, then timed over ~10 ms of launches.
    const double flops = gemm_flops(m, n, k);
    int best = -1;
    double best_s = 0;
    Json candidates = Json::array();
    int first_launched = -1;  // the candidate output_hash is computed with
    for (int i = 0; i < returned; ++i) {
      if (heur[i].state != CUBLAS_STATUS_SUCCESS) continue;
      Json cand = algo_info(heur[i].algo);
      cand["workspace_bytes"] = heur[i].workspaceSize;
      double t = -1;
      try {
        // One plain launch first: a refusal shows before any capture, and cuBLASLt's and the kernel's lazy
        // set-up (module loading, attributes) happen outside it.
        if (const cublasStatus_t st = launch(heur[i].algo, 0); st != CUBLAS_STATUS_SUCCESS) {
          throw LaunchRefused(st);
        }
        stream.sync();
        graphs[static_cast<std::size_t>(i)] = use_launch_graph(timed(i, 1));
        const int count = size_loop([&](int launches) { return timed(i, launches); }, kGemmTuneLoop);
        t = timed(i, count);
        cand["launches"] = count;
      } catch (const LaunchRefused& e) {
        cand["refused"] = e.what();
      }
      if (t > 0) {
        if (first_launched < 0) first_launched = i;
        cand["seconds"] = t;
        cand[std::string(spec.rate_name)] = flops / t;
        if (best < 0 || t < best_s) {
          best = i;
          best_s = t;
        }
      } else {
        cand["failed"] = true;
      }
      candidates.push_back(std::move(cand));
      ctx.check_interrupted();
    }
    MLBENCH_CHECK_CUDA(cudaGetLastError());
    if (best < 0)
      throw Error(
          fmt::format("every cuBLASLt candidate for {} {}x{}x{} failed to launch", spec.name, m, n, k));
    const auto& algo = heur[best].algo;

    MeasurePolicy policy;
    policy.warmup_iters = 3;
    policy.warmup_s = 0.2;
    policy.min_samples = 20;
    policy.max_samples = 200;
    policy.min_time_s = 0.5;
    policy.max_time_s = 20;
    const auto loop = time_launch_loop([&](int count) { return timed(best, count); }, kGemmSampleLoop, policy,
                                       d.uuid, r, ctx);
    const auto& samples = loop.samples;
    const int per_sample = loop.launches_per_sample;

    r.work = {{"flops", flops}};
    r.samples = samples;
    Metric rate = rate_metric(std::string(spec.rate_name), flops, samples, std::string(spec.rate_unit));
    double best_rate = flops / *std::min_element(samples.begin(), samples.end());
    r.metrics.push_back(rate);
    // The best iteration is a maximum of the per-iteration rates: its spread is their Gumbel one
    // (base/stats.hpp).
    std::vector<double> rates;
    for (double t : samples) rates.push_back(flops / t);
    Metric& best_m =
        r.add_metric(fmt::format("{}_best", spec.rate_name), best_rate, std::string(spec.rate_unit));
    if (const double sigma = maximum_standard_deviation(rates); sigma > 0)
      best_m.ci = symmetric_ci(best_rate, sigma);
    if (catalog) {
      if (auto pct = pct_of(rate.value, catalog->peak_for(spec.name))) {
        r.add_metric("pct_of_peak", *pct, "%").ci = proportional_ci(rate, *pct);
      } else {
        r.warnings.push_back(fmt::format("the catalog has no {} peak for {}", spec.name, catalog->name));
      }
    }

    // Verification of the last product from input set 0.
    MLBENCH_CHECK_CUBLAS(launch(algo, 0));
    stream.sync();
    std::vector<GemmSample> checks;
    for (auto row : sample_indices(m, 8)) {
      auto a_row = copy_decoded(a[0].as<unsigned char>() + row * k * storage_bytes(in), in,
                                static_cast<std::size_t>(k));
      for (auto col : sample_indices(n, 8)) {
        GemmSample s;
        s.row = row;
        s.col = col;
        s.a_row = a_row;
        s.b_col = copy_decoded(b[0].as<unsigned char>() + col * k * storage_bytes(in), in,
                               static_cast<std::size_t>(k));
        s.got = copy_decoded(dmat.as<unsigned char>() + (row + col * m) * storage_bytes(out), out, 1)[0];
        checks.push_back(std::move(s));
      }
    }
    ErrorModel model = spec.error;
    std::int32_t splitk = 1;
    std::size_t written = 0;
    if (cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof splitk,
                                             &written) == CUBLAS_STATUS_SUCCESS &&
        splitk > 1) {
      model.parts = splitk;
    }
    auto v = verify_gemm(checks, model);
    r.info["verification"] = v.info(model);
    if (!v.ok) {
      r.status = Status::incorrect;
      r.reason = fmt::format("{} of {} sampled outputs wrong; first: {}", v.bad, v.checked, v.first_bad);
    }
    if (first_launched != best) {
      MLBENCH_CHECK_CUBLAS(launch(heur[first_launched].algo, 0));
      stream.sync();
    }
    std::vector<unsigned char> d_bytes(static_cast<std::size_t>(m * n) * storage_bytes(out));
    MLBENCH_CHECK_CUDA(cudaMemcpy(d_bytes.data(), dmat.get(), d_bytes.size(), cudaMemcpyDeviceToHost));
    r.info["output_hash"] = fmt::format("{:016x}", hash_bytes(d_bytes));
    Json hashed = algo_info(heur[first_launched].algo);
    hashed["candidate"] = first_launched;
    r.info["output_hash_algorithm"] = std::move(hashed);
    Json chosen = algo_info(algo);
    chosen["workspace_bytes"] = heur[best].workspaceSize;
    chosen["waves"] = heur[best].wavesCount;
    r.info["algorithm"] = chosen;
    r.info["candidates"] = candidates;
    r.info["buffer_sets"] = sets;
    r.info["workspace_limit_bytes"] = ws_bytes;
    r.info["launches_per_sample"] = per_sample;
    r.info["timing"] =
        graphs[static_cast<std::size_t>(best)]
            ? "one CUDA graph of launches_per_sample launches between two CUDA events per sample"
            : "launches_per_sample stream launches between two CUDA events per sample";
    r.info["cublaslt_version"] = cublasLtGetVersion();
    if (spec.precision == Precision::fp8)
      r.info["fp8"] = {{"a", "e4m3"}, {"b", "e4m3"}, {"d", "bf16"}, {"fast_accum", true}};
    return {std::move(r)};
  }
};

}  // namespace

std::unique_ptr<Probe> make_gemm_probe() { return std::make_unique<GemmProbe>(); }

}  // namespace mlbench::gpu
