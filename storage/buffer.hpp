// Page-aligned anonymous memory for O_DIRECT I/O (alignment ≥ any logical block size), move-only RAII.
//
// Pages::huge asks for transparent huge pages: the mapping is aligned to and rounded up to the huge-page size
// and advised MADV_HUGEPAGE, so that an I/O spanning several base pages is physically contiguous and reaches
// the device as one memory segment instead of one per 4 KiB page. That matters: without indirect descriptors,
// a virtio disk's ring holds a request's header, status and every segment, so a ring fills after a few large
// reads in 4 KiB pages and the rest wait in the I/O scheduler and merge (docs/NOTES.md has measured figures).
// NVMe SGLs and PRP lists shrink the same way. The
// kernel may still hand out base pages (huge pages disabled, memory too fragmented): huge_bytes() says what
// it did.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>

namespace mlbench::storage {

class AlignedBuffer {
 public:
  enum class Pages { base, huge };
  AlignedBuffer() = default;
  explicit AlignedBuffer(std::size_t bytes, Pages pages = Pages::base);
  AlignedBuffer(AlignedBuffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)),
        size_(std::exchange(o.size_, 0)),
        mapped_(std::exchange(o.mapped_, 0)) {}
  AlignedBuffer& operator=(AlignedBuffer&& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(mapped_, o.mapped_);
    return *this;
  }
  ~AlignedBuffer();
  std::span<std::byte> span() const { return {data_, size_}; }
  std::byte* data() const { return data_; }
  std::size_t size() const { return size_; }
  // Bytes of the mapping backed by huge pages now (/proc/self/smaps AnonHugePages); nullopt when that cannot
  // be read. Pages are only allocated when touched: ask after writing the buffer.
  std::optional<std::uint64_t> huge_bytes() const;

 private:
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;    // as asked for
  std::size_t mapped_ = 0;  // rounded up to the huge-page size for Pages::huge
};

// The size of a transparent huge page when the kernel hands them out on MADV_HUGEPAGE (THP "always" or
// "madvise"); nullopt when THP is off, unknown or impractically large (arm64 with 64 KiB pages: 512 MiB).
std::optional<std::size_t> transparent_huge_page_size();

// Why a Pages::huge buffer ended up in base pages: THP off system-wide, off for this process, or none free.
std::string huge_pages_missing_reason();

}  // namespace mlbench::storage
