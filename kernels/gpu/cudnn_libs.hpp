// cuDNN 9 is a shim (libcudnn.so.9, which gpu.conv loads at its first cuDNN call, cudnn_entry.cpp) and
// sub-libraries that the shim dlopens by bare soname at its first call. glibc resolves such a name from the
// calling library's RUNPATH (the shim's $ORIGIN), LD_LIBRARY_PATH, ld.so.cache and the system folders, never
// from the executable's RUNPATH; a shim copied without its sub-libraries, or a sub-library whose own
// dependency (libz.so.1) is missing, fails only there, with an opaque cuDNN status. gpu.conv checks first and
// is skipped with the missing library and the fix. Plain C++ (no cuDNN header), so the CPU preset tests it.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace mlbench::gpu {

// The sub-libraries of cuDNN `major` that the legacy convolution API (cudnnFind*AlgorithmEx,
// cudnnConvolution*) needs: the graph API library, the legacy ops/cnn libraries and the engine and heuristic
// libraries behind them — the "FULL" configuration of the cuDNN 9 library overview, less libcudnn_adv (RNN,
// multi-head attention).
std::vector<std::string> cudnn_sublibraries(int major);

struct LoadFailure {
  std::string name;   // the library that cannot be loaded
  std::string error;  // dlerror() of the bare-name attempt
};

// The first of `names` that dlopen(RTLD_LAZY | RTLD_LOCAL) loads neither by its bare name nor from one of
// `dirs`; nullopt when all load. Each library is closed again after its check.
std::optional<LoadFailure> first_unloadable(const std::vector<std::string>& names,
                                            const std::vector<std::string>& dirs);

// The skip reason for `failure`, a sub-library of the cuDNN shim `shim` (its file name) in `shim_dir`.
std::string cudnn_sublibrary_reason(const LoadFailure& failure, const std::string& shim,
                                    const std::string& shim_dir);

// Why cuDNN `major` cannot run here (the shim or one of its sub-libraries cannot be loaded), or nullopt. The
// sub-libraries are looked for where the shim's own dlopen looks: its search list (RTLD_DI_SERINFO: RUNPATH
// with $ORIGIN expanded, LD_LIBRARY_PATH, system folders) and, through the bare name, ld.so.cache.
std::optional<std::string> cudnn_load_problem(int major);

}  // namespace mlbench::gpu
