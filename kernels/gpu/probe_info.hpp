// The GPU probes' identities, in the order `mlbench run` executes them: used by the CUDA probes themselves
// and, in a build without CUDA or cuDNN, to list them as unavailable with the reason.
#pragma once

#include "bench/probe.hpp"

namespace mlbench::gpu {

ProbeInfo gemm_info();
ProbeInfo hbm_info();
ProbeInfo copy_info();
ProbeInfo conv_info();

// Every GPU probe, each unavailable with `reason` (cli/builtin_probes.cpp, when built without CUDA).
std::vector<std::unique_ptr<Probe>> make_unavailable_gpu_probes(const std::string& reason);

}  // namespace mlbench::gpu
