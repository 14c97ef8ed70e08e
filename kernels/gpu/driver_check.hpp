// Is an NVIDIA driver installed at all? When the CUDA runtime finds no device, its error (often
// cudaErrorInsufficientDriver, "driver version is insufficient") sends users to upgrade a driver that may not
// be there; these checks let the reason say so instead. Plain C++ (no CUDA), so every build tests them.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace mlbench::gpu {

// True when `dev_dir` holds a node named nvidia* (nvidia0, nvidiactl, nvidia-uvm, ...).
bool has_nvidia_device_node(const std::filesystem::path& dev_dir = "/dev");
// True when the dynamic loader finds `soname` (the driver's libcuda.so.1 by default).
bool library_loadable(const char* soname = "libcuda.so.1");

// "no NVIDIA driver (no /dev/nvidia*, libcuda not found)" when neither is there; nullopt when either is (a
// driver is installed, and the CUDA runtime's own error is then the better reason).
std::optional<std::string> missing_driver_reason(bool device_nodes, bool libcuda);
// The same for this machine.
std::optional<std::string> missing_driver_reason();

}  // namespace mlbench::gpu
