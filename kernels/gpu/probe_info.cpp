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

}  // namespace

ProbeInfo gemm_info() {
  return {"gpu.gemm", "GEMM throughput through cuBLASLt at fp32/tf32/fp16/bf16/fp8/int8, verified",
          "a CUDA GPU", gemm_options(), kGemmParams};
}

ProbeInfo hbm_info() {
  return {"gpu.hbm",
          "GPU memory bandwidth: copy/scale/add/triad/dot/nstream/read/write kernels and cudaMemcpy",
          "a CUDA GPU", hbm_options(), kHbmParams};
}

ProbeInfo copy_info() {
  return {"gpu.copy", "Host-device (pinned/pageable, copy engine/SM) and peer-to-peer copy bandwidth",
          "a CUDA GPU", copy_options(), kCopyParams};
}

ProbeInfo conv_info() {
  return {"gpu.conv",
          "cuDNN convolution throughput on ResNet-50 layers (fwd, bwd-data, bwd-filter), verified",
          "a CUDA GPU and cuDNN", conv_options(), kConvParams};
}

std::vector<std::unique_ptr<Probe>> make_unavailable_gpu_probes(const std::string& reason) {
  std::vector<std::unique_ptr<Probe>> out;
  for (auto info : {gemm_info(), hbm_info(), copy_info(), conv_info()})
    out.push_back(make_unavailable_probe(std::move(info), reason));
  return out;
}

}  // namespace mlbench::gpu
