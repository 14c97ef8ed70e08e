// A shared library that mlbench loads when a probe first needs it (dlopen by soname), not at start-up: cuDNN
// and NCCL are not part of the CUDA toolkit, so linking them would stop `mlbench` from starting on a host
// that has the driver, cudart and cuBLASLt but not them. Their entry points (kernels/gpu/cudnn_entry.cpp,
// network/nccl_entry.cpp) forward each call to the symbol resolved here; the probes that use them check
// problem() first and are skipped with its text. Plain C++ (no CUDA header), so the CPU preset tests it.
#pragma once

#include <mutex>
#include <optional>
#include <string>

namespace mlbench::gpu {

class LazyLibrary {
 public:
  // `soname` is what dlopen looks for (LD_LIBRARY_PATH, the executable's RUNPATH, ld.so.cache, the system
  // folders); `what` names it in messages ("cuDNN 9").
  LazyLibrary(std::string soname, std::string what);
  LazyLibrary(const LazyLibrary&) = delete;
  LazyLibrary& operator=(const LazyLibrary&) = delete;

  // nullopt once the library is loaded; else one line with dlerror() and the fix (the folder that holds it on
  // LD_LIBRARY_PATH). Loads it on the first call; never unloads it.
  std::optional<std::string> problem();
  // The address of `name`: throws Error with problem()'s text when the library cannot be loaded, or naming
  // the symbol when the library lacks it.
  void* symbol(const char* name);

 private:
  std::string soname_, what_, error_;
  std::once_flag once_;
  void* handle_ = nullptr;
};

}  // namespace mlbench::gpu
