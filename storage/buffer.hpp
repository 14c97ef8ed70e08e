// Page-aligned anonymous memory for O_DIRECT I/O (alignment ≥ any logical block size), move-only RAII.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <span>
#include <utility>

#include "bench/error.hpp"

namespace mlbench::storage {

class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  explicit AlignedBuffer(std::size_t bytes) : size_(bytes) {
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      int e = errno;
      throw_call_error("mmap", __FILE__, __LINE__, fmt::format("errno {} ({})", e, std::strerror(e)));
    }
    data_ = static_cast<std::byte*>(p);
  }
  AlignedBuffer(AlignedBuffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  AlignedBuffer& operator=(AlignedBuffer&& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    return *this;
  }
  ~AlignedBuffer() {
    if (data_ != nullptr) ::munmap(data_, size_);
  }
  std::span<std::byte> span() const { return {data_, size_}; }
  std::byte* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace mlbench::storage
