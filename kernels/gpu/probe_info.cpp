#include "kernels/gpu/probe_info.hpp"

#include "kernels/gpu/conv_plan.hpp"
#include "kernels/gpu/copy_plan.hpp"
#include "kernels/gpu/gemm_plan.hpp"
#include "kernels/gpu/hbm_plan.hpp"

namespace mlbench::gpu {
namespace {

// The params each probe's results carry (gemm_case_params, add_device_params and the probes' plan()).
constexpr std::string_view kGemmParams[] = {"precision", "shape",  "m",           "n",   "k",
                                            "layout",    "device", "device_name", "uuid"};
constexpr std::string_view kHbmParams[] = {"kernel", "array_bytes", "dtype", "device", "device_name", "uuid"};
constexpr std::string_view kCopyParams[] = {"kind",        "direction", "bytes",    "memory", "path",
                                            "device",      "devices",   "src",      "dst",    "peer",
                                            "device_name", "uuid",      "peer_uuid"};
constexpr std::string_view kConvParams[] = {"precision", "batch",  "layout",      "layer", "shape",
                                            "direction", "device", "device_name", "uuid"};
// The metrics each probe's results carry: GEMM's rate is named by its precision's spec (gemm_plan.hpp: "tops"
// for INT8), each with its best iteration's; conv's per-layer rate and the ResNet-50 estimate.
constexpr std::string_view kGemmMetrics[] = {"tflops", "tflops_best", "tops", "tops_best", "pct_of_peak"};
constexpr std::string_view kHbmMetrics[] = {"bandwidth", "pct_of_peak", "pct_of_theoretical"};
constexpr std::string_view kCopyMetrics[] = {"bandwidth", "pct_of_peak"};
constexpr std::string_view kConvMetrics[] = {"tflops", "pct_of_peak", "images_per_s"};

}  // namespace

ProbeInfo gemm_info() {
  return {"gpu.gemm",   "GEMM throughput through cuBLASLt at fp32/tf32/fp16/bf16/fp8/int8, verified",
          "a CUDA GPU", gemm_options(),
          kGemmParams,  kGemmMetrics};
}

ProbeInfo hbm_info() {
  return {"gpu.hbm",
          "GPU memory bandwidth: copy/scale/add/triad/dot/nstream/read/write kernels and cudaMemcpy",
          "a CUDA GPU",
          hbm_options(),
          kHbmParams,
          kHbmMetrics};
}

ProbeInfo copy_info() {
  return {"gpu.copy",   "Host-device (pinned/pageable, copy engine/SM) and peer-to-peer copy bandwidth",
          "a CUDA GPU", copy_options(),
          kCopyParams,  kCopyMetrics};
}

ProbeInfo conv_info() {
  return {"gpu.conv",
          "cuDNN convolution throughput on ResNet-50 layers (fwd, bwd-data, bwd-filter), verified",
          "a CUDA GPU and cuDNN",
          conv_options(),
          kConvParams,
          kConvMetrics};
}

std::vector<std::unique_ptr<Probe>> make_unavailable_gpu_probes(const std::string& reason) {
  std::vector<std::unique_ptr<Probe>> out;
  for (auto info : {gemm_info(), hbm_info(), copy_info(), conv_info()})
    out.push_back(make_unavailable_probe(std::move(info), reason));
  return out;
}

}  // namespace mlbench::gpu
