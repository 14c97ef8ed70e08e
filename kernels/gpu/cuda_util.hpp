// CUDA status checks and move-only RAII handles shared by the GPU probes.
//
// Every CUDA runtime and cuBLASLt status is checked by a macro that throws mlbench::Error naming the call,
// file:line and the library's error name and message; destructors release without throwing.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "bench/error.hpp"

#define MLBENCH_CHECK_CUDA(call)                                                                             \
  do {                                                                                                       \
    cudaError_t mlbench_cuda_rc_ = (call);                                                                   \
    if (mlbench_cuda_rc_ != cudaSuccess) {                                                                   \
      ::mlbench::throw_call_error(                                                                           \
          #call, __FILE__, __LINE__,                                                                         \
          fmt::format("{} ({})", cudaGetErrorName(mlbench_cuda_rc_), cudaGetErrorString(mlbench_cuda_rc_))); \
    }                                                                                                        \
  } while (0)

#define MLBENCH_CHECK_CUBLAS(call)                                                                  \
  do {                                                                                              \
    cublasStatus_t mlbench_cublas_rc_ = (call);                                                     \
    if (mlbench_cublas_rc_ != CUBLAS_STATUS_SUCCESS) {                                              \
      ::mlbench::throw_call_error(#call, __FILE__, __LINE__,                                        \
                                  fmt::format("{} ({})", cublasLtGetStatusName(mlbench_cublas_rc_), \
                                              cublasLtGetStatusString(mlbench_cublas_rc_)));        \
    }                                                                                               \
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

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* get() const { return ptr_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
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

class Stream {
 public:
  Stream();
  ~Stream();
  Stream(Stream&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  Stream& operator=(Stream&&) = delete;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }
  void sync() const;

 private:
  cudaStream_t s_ = nullptr;
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
