#include "kernels/gpu/cudnn_libs.hpp"

#include <dlfcn.h>
#include <limits.h>

#include <fmt/format.h>

namespace mlbench::gpu {

std::vector<std::string> cudnn_sublibraries(int major) {
  std::vector<std::string> out;
  for (const char* name :
       {"graph", "ops", "cnn", "engines_precompiled", "engines_runtime_compiled", "heuristic"})
    out.push_back(fmt::format("libcudnn_{}.so.{}", name, major));
  return out;
}

std::optional<LoadFailure> first_unloadable(const std::vector<std::string>& names,
                                            const std::vector<std::string>& dirs) {
  for (const auto& name : names) {
    void* h = dlopen(name.c_str(), RTLD_LAZY | RTLD_LOCAL);
    const std::string error = h ? "" : dlerror();
    for (auto dir = dirs.begin(); !h && dir != dirs.end(); ++dir)
      h = dlopen(fmt::format("{}/{}", *dir, name).c_str(), RTLD_LAZY | RTLD_LOCAL);
    if (!h) return LoadFailure{name, error};
    dlclose(h);
  }
  return std::nullopt;
}

std::string cudnn_sublibrary_reason(const LoadFailure& failure, const std::string& shim,
                                    const std::string& shim_dir) {
  return fmt::format(
      "{} cannot be loaded ({} in {} loads it at its first call): {}; "
      "run with LD_LIBRARY_PATH={} (the folder of {}, where cuDNN keeps its sub-libraries) "
      "or put the folder that holds {} on the library path",
      failure.name, shim, shim_dir, failure.error, shim_dir, shim, failure.name);
}

std::optional<std::string> cudnn_load_problem(int major) {
  const std::string shim = fmt::format("libcudnn.so.{}", major);
  // The shim is loaded at gpu.conv's first cuDNN call (cudnn_entry.cpp), by this same name; once it is,
  // RTLD_NOLOAD just returns it.
  void* h = dlopen(shim.c_str(), RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
  if (!h) h = dlopen(shim.c_str(), RTLD_LAZY | RTLD_LOCAL);
  if (!h) {
    return fmt::format(
        "{} cannot be loaded: {}; put the folder that holds it (a cuDNN {} installation or the "
        "nvidia-cudnn wheel's site-packages/nvidia/cudnn/lib) on LD_LIBRARY_PATH",
        shim, dlerror(), major);
  }
  std::vector<std::string> dirs;
  Dl_serinfo size{};
  if (dlinfo(h, RTLD_DI_SERINFOSIZE, &size) == 0) {
    // Dl_serinfo elements as storage keep the buffer aligned for the struct it holds.
    std::vector<Dl_serinfo> buf((size.dls_size + sizeof(Dl_serinfo) - 1) / sizeof(Dl_serinfo));
    buf[0] = size;
    if (dlinfo(h, RTLD_DI_SERINFO, buf.data()) == 0) {
      for (unsigned i = 0; i < buf[0].dls_cnt; ++i) dirs.emplace_back(buf[0].dls_serpath[i].dls_name);
    }
  }
  char origin[PATH_MAX] = {};
  const std::string shim_dir = dlinfo(h, RTLD_DI_ORIGIN, origin) == 0 ? origin : "its folder";
  dlclose(h);
  if (auto failure = first_unloadable(cudnn_sublibraries(major), dirs))
    return cudnn_sublibrary_reason(*failure, shim, shim_dir);
  return std::nullopt;
}

}  // namespace mlbench::gpu
