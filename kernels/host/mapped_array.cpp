#include "kernels/host/mapped_array.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "base/error.hpp"

namespace mlbench::hostmem {

MappedArray::MappedArray(std::size_t elements) : elements_(elements), bytes_(elements * sizeof(double)) {
  if (bytes_ == 0) return;
  void* p = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    int err = errno;
    throw_call_error("mmap(anonymous)", __FILE__, __LINE__,
                     fmt::format("{} bytes: errno {} ({})", bytes_, err, std::strerror(err)));
  }
  data_ = static_cast<double*>(p);
  // Huge pages are an optimisation: without them the probe still measures, with more TLB misses.
  if (::madvise(p, bytes_, MADV_HUGEPAGE) != 0) {
    int err = errno;
    huge_page_note_ = fmt::format("madvise(MADV_HUGEPAGE) failed: errno {} ({})", err, std::strerror(err));
  }
}

MappedArray::~MappedArray() { release(); }

MappedArray::MappedArray(MappedArray&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      elements_(std::exchange(other.elements_, 0)),
      bytes_(std::exchange(other.bytes_, 0)),
      huge_page_note_(std::move(other.huge_page_note_)) {}

MappedArray& MappedArray::operator=(MappedArray&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    elements_ = std::exchange(other.elements_, 0);
    bytes_ = std::exchange(other.bytes_, 0);
    huge_page_note_ = std::move(other.huge_page_note_);
  }
  return *this;
}

void MappedArray::release() noexcept {
  if (data_ != nullptr)
    ::munmap(data_, bytes_);  // a destructor cannot report; munmap of our own map succeeds
  data_ = nullptr;
}

}  // namespace mlbench::hostmem
