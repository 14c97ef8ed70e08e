// gpu.conv: cuDNN convolution throughput on the convolution layers of ResNet-50, verified on every run.
//
// Each distinct layer (plan.cpp resnet50_layers) forward, backward-data and backward-filter, NHWC, FP16 or
// BF16 with FP32 accumulation, batch 256 by default. The engine is the fastest that cuDNN's own autotuning
// finds (cudnnFind*AlgorithmEx, what cudnn.benchmark=True does; these calls are deprecated in cuDNN 9 but
// present, and need no frontend library). TFLOPS = 2·N·K·C·R·S·P·Q / t. Warm-up, then ≥ 20 samples of ~20 ms
// CUDA-event-timed loops. 16 sampled outputs per direction are checked against an FP64 host reference of the
// device's inputs, each within what a correct output may be off by (conv_plan.hpp conv_error_model). The last
// case sums the layers (count × (fwd + bwd-data + bwd-filter)) into an estimated ResNet-50 training images/s
// — convolutions only, an estimate, not a training run.
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "kernels/gpu/probes.hpp"
#include "mlbench_config.hpp"

#if MLBENCH_HAS_CUDNN
#include <cudnn.h>

#include "bench/measure.hpp"
#include "kernels/gpu/conv_plan.hpp"
#include "kernels/gpu/cuda_util.hpp"
#include "kernels/gpu/cudnn_libs.hpp"
#include "kernels/gpu/gpu_kernels.hpp"
#include "kernels/gpu/launch_loop.hpp"
#include "kernels/gpu/probe_util.hpp"
#include "kernels/gpu/verify.hpp"

#define MLBENCH_CHECK_CUDNN(call)                                                                \
  do {                                                                                           \
    cudnnStatus_t mlbench_cudnn_rc_ = (call);                                                    \
    if (mlbench_cudnn_rc_ != CUDNN_STATUS_SUCCESS) {                                             \
      ::mlbench::throw_call_error(#call, __FILE__, __LINE__,                                     \
                                  fmt::format("{} ({})", cudnnGetErrorString(mlbench_cudnn_rc_), \
                                              static_cast<int>(mlbench_cudnn_rc_)));             \
    }                                                                                            \
  } while (0)
#endif

namespace mlbench::gpu {
namespace {

#if MLBENCH_HAS_CUDNN

template <typename T, cudnnStatus_t (*Create)(T*), cudnnStatus_t (*Destroy)(T)>
class CudnnObject {
 public:
  CudnnObject() { MLBENCH_CHECK_CUDNN(Create(&h_)); }
  ~CudnnObject() {
    if (h_) Destroy(h_);
  }
  CudnnObject(const CudnnObject&) = delete;
  CudnnObject& operator=(const CudnnObject&) = delete;
  T get() const { return h_; }

 private:
  T h_ = nullptr;
};
using CudnnHandle = CudnnObject<cudnnHandle_t, cudnnCreate, cudnnDestroy>;
using TensorDesc =
    CudnnObject<cudnnTensorDescriptor_t, cudnnCreateTensorDescriptor, cudnnDestroyTensorDescriptor>;
using FilterDesc =
    CudnnObject<cudnnFilterDescriptor_t, cudnnCreateFilterDescriptor, cudnnDestroyFilterDescriptor>;
using ConvDesc = CudnnObject<cudnnConvolutionDescriptor_t, cudnnCreateConvolutionDescriptor,
                             cudnnDestroyConvolutionDescriptor>;

constexpr std::uint64_t kWorkspace = 1ull << 30;

std::vector<float> to_host(const DeviceBuffer& b, Storage s, std::size_t count) {
  std::vector<std::uint16_t> raw(count);
  MLBENCH_CHECK_CUDA(cudaMemcpy(raw.data(), b.get(), count * 2, cudaMemcpyDeviceToHost));
  std::vector<float> out(count);
  for (std::size_t i = 0; i < count; ++i) {
    out[i] = static_cast<float>(s == Storage::f16 ? half_to_double(raw[i]) : bf16_to_double(raw[i]));
  }
  return out;
}

using Key = std::tuple<int, std::string, int>;  // device, precision, batch

class ConvProbe : public Probe {
 public:
  ProbeInfo info() const override { return conv_info(); }

  // The sub-library check comes before any cuDNN call: a missing one would fail there with an opaque status.
  std::optional<std::string> unavailable(const Json& host) const override {
    if (auto reason = no_gpu_reason(host)) return reason;
    return cudnn_load_problem(CUDNN_MAJOR);
  }

  std::vector<Case> plan(const PlanContext& ctx) const override {
    auto facts = live_device_facts(ctx.host);
    std::vector<Case> out;
    for (const auto& cc : plan_conv(ctx.options, ctx.profile, facts, ctx.source)) {
      Case c;
      c.params = {{"precision", cc.precision}, {"batch", cc.batch}, {"layout", "NHWC"}};
      add_device_params(c.params, facts.at(static_cast<std::size_t>(cc.device)));
      if (cc.layer) {
        const auto& l = *cc.layer;
        c.params["layer"] = l.name;
        c.params["shape"] = {{"c", l.c}, {"k", l.k}, {"h", l.h},           {"w", l.w},
                             {"r", l.r}, {"s", l.s}, {"stride", l.stride}, {"pad", l.pad}};
        c.label = fmt::format("{} {} batch {} GPU{}", cc.precision, l.name, cc.batch, cc.device);
        c.estimate_s = 4.0;
      } else {
        c.params["layer"] = "resnet50.estimate";
        c.label = fmt::format("{} ResNet-50 training estimate GPU{}", cc.precision, cc.device);
        c.estimate_s = 0.1;
      }
      out.push_back(std::move(c));
    }
    return out;
  }

  std::vector<Result> run(const Case& c, RunContext& ctx) override {
    const int device = c.params.at("device").get<int>();
    const std::string precision = c.params.at("precision");
    const int batch = c.params.at("batch");
    const std::string layer_name = c.params.at("layer");
    const Key key{device, precision, batch};
    if (layer_name == "resnet50.estimate") return {estimate(c, ctx, key)};
    const ConvLayer* layer = nullptr;
    for (const auto& l : resnet50_layers()) {
      if (l.name == layer_name) layer = &l;
    }
    if (!layer) throw Error(fmt::format("unknown ResNet-50 layer {}", layer_name));
    const ConvLayer& l = *layer;
    DeviceFacts d = device_facts(ctx.host, device);
    DeviceGuard guard(device);
    const Storage st = precision == "fp16" ? Storage::f16 : Storage::bf16;
    const cudnnDataType_t dt = precision == "fp16" ? CUDNN_DATA_HALF : CUDNN_DATA_BFLOAT16;
    const int P = l.p(), Q = l.q();

    Stream stream;
    CudnnHandle handle;
    MLBENCH_CHECK_CUDNN(cudnnSetStream(handle.get(), stream.get()));
    TensorDesc xd, yd;
    FilterDesc wd;
    ConvDesc cd;
    MLBENCH_CHECK_CUDNN(cudnnSetTensor4dDescriptor(xd.get(), CUDNN_TENSOR_NHWC, dt, batch, l.c, l.h, l.w));
    MLBENCH_CHECK_CUDNN(cudnnSetTensor4dDescriptor(yd.get(), CUDNN_TENSOR_NHWC, dt, batch, l.k, P, Q));
    MLBENCH_CHECK_CUDNN(cudnnSetFilter4dDescriptor(wd.get(), dt, CUDNN_TENSOR_NHWC, l.k, l.c, l.r, l.s));
    MLBENCH_CHECK_CUDNN(cudnnSetConvolution2dDescriptor(cd.get(), l.pad, l.pad, l.stride, l.stride, 1, 1,
                                                        CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    MLBENCH_CHECK_CUDNN(cudnnSetConvolutionMathType(cd.get(), CUDNN_TENSOR_OP_MATH));
    int on = 0, ok_ = 0, op = 0, oq = 0;
    MLBENCH_CHECK_CUDNN(
        cudnnGetConvolution2dForwardOutputDim(cd.get(), xd.get(), wd.get(), &on, &ok_, &op, &oq));
    if (on != batch || ok_ != l.k || op != P || oq != Q) {
      throw Error(fmt::format("cuDNN computes a {}x{}x{}x{} output for {}, the model table {}x{}x{}x{}", on,
                              ok_, op, oq, l.name, batch, l.k, P, Q));
    }

    const std::size_t nx = std::size_t(batch) * l.c * l.h * l.w, ny = std::size_t(batch) * l.k * P * Q,
                      nw = std::size_t(l.k) * l.c * l.r * l.s;
    DeviceBuffer x(nx * 2), dx(nx * 2), y(ny * 2), dy(ny * 2), w(nw * 2), dw(nw * 2);
    MLBENCH_CHECK_CUDA(fill_random(x.get(), st, nx, 101, d.sms * 8, stream.get()));
    MLBENCH_CHECK_CUDA(fill_random(w.get(), st, nw, 102, d.sms * 8, stream.get()));
    MLBENCH_CHECK_CUDA(fill_random(dy.get(), st, ny, 103, d.sms * 8, stream.get()));
    std::size_t free = 0, total = 0;
    MLBENCH_CHECK_CUDA(cudaMemGetInfo(&free, &total));
    const std::size_t ws_bytes =
        std::min<std::size_t>(kWorkspace, free > kMemoryMargin ? free - kMemoryMargin : 0);
    DeviceBuffer ws(ws_bytes);
    stream.sync();

    const auto hx = to_host(x, st, nx), hw = to_host(w, st, nw), hdy = to_host(dy, st, ny);
    const float alpha = 1.0f, beta = 0.0f;
    const double flops = conv_flops(l, batch);
    std::vector<Result> out;
    ConvLayerTimes times{l.name};
    for (ConvDirection dir : {ConvDirection::fwd, ConvDirection::bwd_data, ConvDirection::bwd_filter}) {
      ctx.check_interrupted();
      Case dc = c;
      dc.params["direction"] = to_string(dir);
      Result r = ctx.make_result(info().id, dc);
      const GpuSpec* catalog = catalog_entry(d, r);
      int algo = -1;
      std::size_t algo_ws = 0;
      cudnnMathType_t math = CUDNN_DEFAULT_MATH;
      Json tried = Json::array();
      int returned = 0;
      auto pick = [&](const auto* perf, int count) {
        for (int i = 0; i < count; ++i) {
          tried.push_back({{"algo", static_cast<int>(perf[i].algo)},
                           {"status", cudnnGetErrorString(perf[i].status)},
                           {"seconds", perf[i].time / 1e3},
                           {"workspace_bytes", perf[i].memory}});
          if (algo < 0 && perf[i].status == CUDNN_STATUS_SUCCESS) {
            algo = static_cast<int>(perf[i].algo);
            algo_ws = perf[i].memory;
            math = perf[i].mathType;
          }
        }
      };
      if (dir == ConvDirection::fwd) {
        cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
        MLBENCH_CHECK_CUDNN(cudnnFindConvolutionForwardAlgorithmEx(
            handle.get(), xd.get(), x.get(), wd.get(), w.get(), cd.get(), yd.get(), y.get(),
            CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, perf, ws.get(), ws_bytes));
        pick(perf, returned);
      } else if (dir == ConvDirection::bwd_data) {
        cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
        MLBENCH_CHECK_CUDNN(cudnnFindConvolutionBackwardDataAlgorithmEx(
            handle.get(), wd.get(), w.get(), yd.get(), dy.get(), cd.get(), xd.get(), dx.get(),
            CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &returned, perf, ws.get(), ws_bytes));
        pick(perf, returned);
      } else {
        cudnnConvolutionBwdFilterAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
        MLBENCH_CHECK_CUDNN(cudnnFindConvolutionBackwardFilterAlgorithmEx(
            handle.get(), xd.get(), x.get(), yd.get(), dy.get(), cd.get(), wd.get(), dw.get(),
            CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &returned, perf, ws.get(), ws_bytes));
        pick(perf, returned);
      }
      r.info["autotune"] = tried;
      if (algo < 0) {
        r.status = Status::skipped;
        r.reason =
            fmt::format("cuDNN found no working {} algorithm for {} {}", to_string(dir), precision, l.name);
        out.push_back(std::move(r));
        continue;
      }
      MLBENCH_CHECK_CUDNN(cudnnSetConvolutionMathType(cd.get(), math));
      auto launch = [&] {
        if (dir == ConvDirection::fwd) {
          MLBENCH_CHECK_CUDNN(cudnnConvolutionForward(
              handle.get(), &alpha, xd.get(), x.get(), wd.get(), w.get(), cd.get(),
              static_cast<cudnnConvolutionFwdAlgo_t>(algo), ws.get(), algo_ws, &beta, yd.get(), y.get()));
        } else if (dir == ConvDirection::bwd_data) {
          MLBENCH_CHECK_CUDNN(cudnnConvolutionBackwardData(handle.get(), &alpha, wd.get(), w.get(), yd.get(),
                                                           dy.get(), cd.get(),
                                                           static_cast<cudnnConvolutionBwdDataAlgo_t>(algo),
                                                           ws.get(), algo_ws, &beta, xd.get(), dx.get()));
        } else {
          MLBENCH_CHECK_CUDNN(
              cudnnConvolutionBackwardFilter(handle.get(), &alpha, xd.get(), x.get(), yd.get(), dy.get(),
                                             cd.get(), static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo),
                                             ws.get(), algo_ws, &beta, wd.get(), dw.get()));
        }
      };
      Event start, stop;
      auto timed = [&](int count) { return event_timed(stream.get(), start, stop, count, launch); };
      MeasurePolicy policy;
      policy.warmup_iters = 2;
      policy.min_samples = 20;
      policy.max_samples = 100;
      policy.max_time_s = 10;
      const auto loop = time_launch_loop(timed, LoopTarget{0.02, 1000, 1}, policy, d.uuid, r, ctx);
      const auto& samples = loop.samples;
      const int per_sample = loop.launches_per_sample;
      r.work = {{"flops", flops}};
      r.samples = samples;
      Metric rate = rate_metric("tflops", flops, samples, "FLOP/s");
      r.metrics.push_back(rate);
      if (catalog) {
        if (auto pct = pct_of(rate.value, catalog->peak_for(precision)))
          r.add_metric("pct_of_peak", *pct, "%").ci = proportional_ci(rate, *pct);
      }
      const double seconds = median(samples);
      (dir == ConvDirection::fwd        ? times.fwd_s
       : dir == ConvDirection::bwd_data ? times.bwd_data_s
                                        : times.bwd_filter_s) = seconds;
      (dir == ConvDirection::fwd        ? times.fwd_se_s
       : dir == ConvDirection::bwd_data ? times.bwd_data_se_s
                                        : times.bwd_filter_se_s) =
          median_standard_error(compute_stats(samples));
      r.info["algorithm"] = {
          {"algo", algo}, {"workspace_bytes", algo_ws}, {"tensor_op_math", math != CUDNN_DEFAULT_MATH}};
      r.info["launches_per_sample"] = per_sample;
      r.info["cudnn_version"] = cudnnGetVersion();

      // Verification: 16 sampled outputs of this direction against FP64 references.
      stream.sync();
      ConvTensors t{&l, batch, hx, hw, hdy};
      std::vector<float> got;
      std::size_t extent = 0;
      if (dir == ConvDirection::fwd) {
        got = to_host(y, st, ny);
        extent = ny;
      } else if (dir == ConvDirection::bwd_data) {
        got = to_host(dx, st, nx);
        extent = nx;
      } else {
        got = to_host(dw, st, nw);
        extent = nw;
      }
      VerifyOutcome v;
      const ErrorModel model = conv_error_model(precision);
      for (auto idx : sample_indices(static_cast<std::int64_t>(extent), 16)) {
        auto i = static_cast<std::size_t>(idx);
        RefValue ref;
        if (dir == ConvDirection::fwd) {  // y[n][p][q][k]
          ref = conv_fwd_ref(t, static_cast<int>(i / (std::size_t(P) * Q * l.k)),
                             static_cast<int>(i / (Q * l.k) % P), static_cast<int>(i / l.k % Q),
                             static_cast<int>(i % l.k));
        } else if (dir == ConvDirection::bwd_data) {  // dx[n][h][w][c]
          ref = conv_bwd_data_ref(t, static_cast<int>(i / (std::size_t(l.h) * l.w * l.c)),
                                  static_cast<int>(i / (l.w * l.c) % l.h), static_cast<int>(i / l.c % l.w),
                                  static_cast<int>(i % l.c));
        } else {  // dw[k][r][s][c]
          ref = conv_bwd_filter_ref(t, static_cast<int>(i / (std::size_t(l.r) * l.s * l.c)),
                                    static_cast<int>(i / (l.s * l.c) % l.r), static_cast<int>(i / l.c % l.s),
                                    static_cast<int>(i % l.c));
        }
        v.check(got[i], ref, model, fmt::format("element {}", i));
      }
      r.info["verification"] = v.info(model);
      if (!v.ok) {
        r.status = Status::incorrect;
        r.reason = fmt::format("{} of {} sampled outputs wrong; first: {}", v.bad, v.checked, v.first_bad);
      }
      out.push_back(std::move(r));
    }
    // The stem's input needs no gradient, so the estimate does without its bwd-data.
    bool all_ok = std::all_of(out.begin(), out.end(), [&](const Result& r) {
      return r.status == Status::ok || (l.name == "conv1" && r.params.value("direction", "") == "bwd_data");
    });
    auto& list = times_[key];
    std::erase_if(list, [&](const ConvLayerTimes& t) { return t.layer == l.name; });
    if (all_ok) list.push_back(times);
    return out;
  }

 private:
  Result estimate(const Case& c, RunContext& ctx, const Key& key) {
    Result r = ctx.make_result(info().id, c);
    double images = 0, sigma = 0;
    try {
      images = resnet50_images_per_s(times_[key], std::get<2>(key));
      sigma = resnet50_images_per_s_sigma(times_[key], std::get<2>(key));
    } catch (const Error& e) {
      throw Skipped(
          fmt::format("no estimate: {} (a layer failed, was skipped or was not verified)", e.what()));
    }
    r.add_metric("images_per_s", images, "1/s").ci = sigma_ci(images, sigma);
    r.info["estimate"] = true;
    r.info["method"] =
        "batch / sum over ResNet-50 conv layers of count x (fwd + bwd_data + bwd_filter) median seconds; no "
        "stem bwd_data";
    r.warnings.push_back(
        "estimate from convolution times only: batch norm, activations, pooling, the classifier, "
        "the optimizer and data loading are not included, so real training is slower");
    return r;
  }

  std::map<Key, std::vector<ConvLayerTimes>> times_;
};

#endif

}  // namespace

#if MLBENCH_HAS_CUDNN
std::unique_ptr<Probe> make_conv_probe() { return std::make_unique<ConvProbe>(); }
#else
std::unique_ptr<Probe> make_conv_probe() {
  return make_unavailable_probe(
      conv_info(), "mlbench was built without cuDNN (cudnn.h or libcudnn not found at configure time)");
}
#endif

}  // namespace mlbench::gpu
