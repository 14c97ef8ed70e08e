#include "kernels/gpu/driver_check.hpp"

#include <dlfcn.h>

#include <system_error>

namespace mlbench::gpu {

bool has_nvidia_device_node(const std::filesystem::path& dev_dir) {
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dev_dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename().string().starts_with("nvidia")) return true;
  }
  return false;
}

bool library_loadable(const char* soname) {
  void* handle = dlopen(soname, RTLD_LAZY | RTLD_LOCAL);
  if (!handle) return false;
  dlclose(handle);
  return true;
}

std::optional<std::string> missing_driver_reason(bool device_nodes, bool libcuda) {
  if (device_nodes || libcuda) return std::nullopt;
  return "no NVIDIA driver (no /dev/nvidia*, libcuda not found)";
}

std::optional<std::string> missing_driver_reason() {
  return missing_driver_reason(has_nvidia_device_node(), library_loadable());
}

}  // namespace mlbench::gpu
