// The CUDA base of mlbench (library mlbench_cuda): the one CUDA runtime status check and the move-only RAII
// handles that the GPU probes (kernels/gpu) and the NCCL session (network/) share. Needs only cudart; the
// cuBLASLt check is in cublas_check.hpp so code that does not use cuBLASLt does not link it.
//
// MLBENCH_CHECK_CUDA throws mlbench::Error naming the call, file:line and the runtime's error name and
// message; destructors release without throwing. Handles made for an explicit device remember it and release
// there (restoring the caller's current device), so a multi-GPU owner need not select the right device first.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "base/error.hpp"

#define MLBENCH_CHECK_CUDA(call)                                                                             \
  do {                                                                                                       \
    cudaError_t mlbench_cuda_rc_ = (call);                                                                   \
    if (mlbench_cuda_rc_ != cudaSuccess) {                                                                   \
      ::mlbench::throw_call_error(                                                                           \
          #call, __FILE__, __LINE__,                                                                         \
          fmt::format("{} ({})", cudaGetErrorName(mlbench_cuda_rc_), cudaGetErrorString(mlbench_cuda_rc_))); \
    }                                                                                                        \
  } while (0)

namespace mlbench::gpu {

// Selects a device for the scope and restores the previous one.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = 0;
};

// Device memory from cudaMalloc. The one-argument form allocates on the current device; both forms free on
// the device that holds the memory.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);
  DeviceBuffer(std::size_t bytes, int device);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)), device_(o.device_) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* get() const { return ptr_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  std::size_t bytes() const { return bytes_; }
  int device() const { return device_; }

 private:
  void release() noexcept;

  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
  int device_ = 0;
};

// Host memory: page-aligned, first touched by the calling thread (so it lands on that thread's NUMA node),
// optionally pinned and mapped into the device address space with cudaHostRegister.
class HostBuffer {
 public:
  HostBuffer() = default;
  HostBuffer(std::size_t bytes, bool pinned);
  ~HostBuffer();
  HostBuffer(HostBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)), pinned_(o.pinned_) {}
  HostBuffer& operator=(HostBuffer&&) = delete;
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;

  void* get() const { return ptr_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  std::size_t bytes() const { return bytes_; }
  bool pinned() const { return pinned_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
  bool pinned_ = false;
};

// A non-blocking stream (no implicit synchronisation with the legacy default stream), on the current device
// or on `device`; destroyed on the device it belongs to.
class Stream {
 public:
  Stream();
  explicit Stream(int device);
  ~Stream();
  Stream(Stream&& o) noexcept : s_(std::exchange(o.s_, nullptr)), device_(o.device_) {}
  Stream& operator=(Stream&&) = delete;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }
  int device() const { return device_; }
  void sync() const;

 private:
  cudaStream_t s_ = nullptr;
  int device_ = 0;
};

class Event {
 public:
  Event();
  ~Event();
  Event(Event&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
  Event& operator=(Event&&) = delete;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return e_; }
  void record(cudaStream_t s) const;

 private:
  cudaEvent_t e_ = nullptr;
};

// Seconds between two recorded events (waits for `end`).
double elapsed_s(const Event& start, const Event& end);

// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", the form nvidia-smi and NVML use.
std::string format_uuid(const cudaUUID_t& uuid);

}  // namespace mlbench::gpu
