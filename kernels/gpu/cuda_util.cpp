#include "kernels/gpu/cuda_util.hpp"

#include <cstdlib>
#include <cstring>
#include <new>

namespace mlbench::gpu {
namespace {

int current_device() {
  int d = 0;
  MLBENCH_CHECK_CUDA(cudaGetDevice(&d));
  return d;
}

// Runs `release` with `device` current and restores the caller's device. For destructors: it never throws,
// and when the device cannot be selected it still attempts the release rather than leak.
template <typename F>
void release_on(int device, F release) noexcept {
  int previous = 0;
  const bool switched =
      cudaGetDevice(&previous) == cudaSuccess && previous != device && cudaSetDevice(device) == cudaSuccess;
  release();
  if (switched) cudaSetDevice(previous);
}

}  // namespace

DeviceGuard::DeviceGuard(int device) {
  MLBENCH_CHECK_CUDA(cudaGetDevice(&previous_));
  MLBENCH_CHECK_CUDA(cudaSetDevice(device));
}

DeviceGuard::~DeviceGuard() { cudaSetDevice(previous_); }

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes), device_(current_device()) {
  if (bytes > 0) MLBENCH_CHECK_CUDA(cudaMalloc(&ptr_, bytes));
}

DeviceBuffer::DeviceBuffer(std::size_t bytes, int device) : bytes_(bytes), device_(device) {
  if (bytes == 0) return;
  DeviceGuard guard(device);
  MLBENCH_CHECK_CUDA(cudaMalloc(&ptr_, bytes));
}

void DeviceBuffer::release() noexcept {
  if (!ptr_) return;
  release_on(device_, [this] { cudaFree(ptr_); });
  ptr_ = nullptr;
}

DeviceBuffer::~DeviceBuffer() { release(); }

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    release();
    ptr_ = std::exchange(o.ptr_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
    device_ = o.device_;
  }
  return *this;
}

HostBuffer::HostBuffer(std::size_t bytes, bool pinned) : bytes_(bytes) {
  if (bytes == 0) return;
  constexpr std::size_t kPage = 4096;
  std::size_t rounded = (bytes + kPage - 1) / kPage * kPage;
  ptr_ = std::aligned_alloc(kPage, rounded);
  if (!ptr_) throw Error(fmt::format("could not allocate {} bytes of host memory", bytes));
  std::memset(ptr_, 0, rounded);  // first touch: the pages land on this thread's NUMA node
  if (pinned) {
    cudaError_t rc = cudaHostRegister(ptr_, rounded, cudaHostRegisterPortable | cudaHostRegisterMapped);
    if (rc != cudaSuccess) {
      std::free(ptr_);
      ptr_ = nullptr;
      throw_call_error("cudaHostRegister(ptr, bytes, Portable | Mapped)", __FILE__, __LINE__,
                       fmt::format("{} ({}); the memlock limit (ulimit -l) may be too low for {} bytes",
                                   cudaGetErrorName(rc), cudaGetErrorString(rc), rounded));
    }
    pinned_ = true;
  }
}

HostBuffer::~HostBuffer() {
  if (!ptr_) return;
  if (pinned_) cudaHostUnregister(ptr_);
  std::free(ptr_);
}

Stream::Stream() : device_(current_device()) {
  MLBENCH_CHECK_CUDA(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking));
}

Stream::Stream(int device) : device_(device) {
  DeviceGuard guard(device);
  MLBENCH_CHECK_CUDA(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking));
}

Stream::~Stream() {
  if (s_) release_on(device_, [this] { cudaStreamDestroy(s_); });
}

void Stream::sync() const { MLBENCH_CHECK_CUDA(cudaStreamSynchronize(s_)); }

Event::Event() { MLBENCH_CHECK_CUDA(cudaEventCreate(&e_)); }

Event::~Event() {
  if (e_) cudaEventDestroy(e_);
}

void Event::record(cudaStream_t s) const { MLBENCH_CHECK_CUDA(cudaEventRecord(e_, s)); }

double elapsed_s(const Event& start, const Event& end) {
  MLBENCH_CHECK_CUDA(cudaEventSynchronize(end.get()));
  float ms = 0;
  MLBENCH_CHECK_CUDA(cudaEventElapsedTime(&ms, start.get(), end.get()));
  return ms / 1e3;
}

std::string format_uuid(const cudaUUID_t& uuid) {
  const auto* b = reinterpret_cast<const unsigned char*>(uuid.bytes);
  std::string hex;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) hex += '-';
    hex += fmt::format("{:02x}", b[i]);
  }
  return "GPU-" + hex;
}

}  // namespace mlbench::gpu
