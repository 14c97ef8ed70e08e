// The GPU probes of this build (gpu.gemm, gpu.hbm, gpu.copy, gpu.conv) and the GPU inventory provider, for
// cli/builtin_probes.cpp. Built only with MLBENCH_HAS_CUDA.
#pragma once

#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/probe.hpp"
#include "kernels/gpu/probe_info.hpp"

namespace mlbench::gpu {

std::unique_ptr<Probe> make_gemm_probe();
std::unique_ptr<Probe> make_hbm_probe();
std::unique_ptr<Probe> make_copy_probe();
// gpu.conv needs cuDNN: without it (MLBENCH_HAS_CUDNN 0) the probe is registered but unavailable, saying why.
std::unique_ptr<Probe> make_conv_probe();
// All four, in the order `mlbench run` executes them.
std::vector<std::unique_ptr<Probe>> make_gpu_probes();

// Matches bench/sysinfo.hpp GpuInventoryFn: the CUDA runtime's devices plus NVML fields; an empty list and a
// note ("gpus: ...") when there is no GPU.
nlohmann::json gpu_inventory(nlohmann::json& notes);

}  // namespace mlbench::gpu
