// Anonymous page-aligned memory for the STREAM arrays: mmap'ed untouched, so pages land on the NUMA node of
// the thread that first writes them (first touch), with transparent huge pages requested to cut TLB misses.
// Move-only; unmapped in the destructor.
#pragma once

#include <cstddef>
#include <string>

namespace mlbench::hostmem {

class MappedArray {
 public:
  MappedArray() = default;
  explicit MappedArray(std::size_t elements);  // throws Error when mmap fails
  ~MappedArray();
  MappedArray(MappedArray&& other) noexcept;
  MappedArray& operator=(MappedArray&& other) noexcept;
  MappedArray(const MappedArray&) = delete;
  MappedArray& operator=(const MappedArray&) = delete;

  double* data() const { return data_; }
  std::size_t size() const { return elements_; }
  // Empty when huge pages were applied (or not asked for); else why not (kernel without THP, ...).
  const std::string& huge_page_note() const { return huge_page_note_; }

 private:
  void release() noexcept;

  double* data_ = nullptr;
  std::size_t elements_ = 0;
  std::size_t bytes_ = 0;
  std::string huge_page_note_;
};

}  // namespace mlbench::hostmem
