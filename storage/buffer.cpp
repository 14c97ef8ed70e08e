#include "storage/buffer.hpp"

#include <sys/mman.h>
#include <sys/prctl.h>

#include <cerrno>
#include <cstring>

#include "base/error.hpp"
#include "bench/sysinfo.hpp"

namespace mlbench::storage {

namespace {

void* map_or_throw(std::size_t bytes) {
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    int e = errno;
    throw_call_error("mmap", __FILE__, __LINE__, fmt::format("errno {} ({})", e, std::strerror(e)));
  }
  return p;
}

}  // namespace

std::optional<std::size_t> transparent_huge_page_size() {
  static const std::optional<std::size_t> size = []() -> std::optional<std::size_t> {
    SysReader sys;
    auto enabled = sys.read("/sys/kernel/mm/transparent_hugepage/enabled");
    if (!enabled || enabled->find("[never]") != std::string::npos) return std::nullopt;
    auto bytes = sys.read_int("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size");
    constexpr long long kLargest = 32LL << 20;
    if (!bytes || *bytes <= 0 || *bytes > kLargest || (*bytes & (*bytes - 1)) != 0) return std::nullopt;
    return static_cast<std::size_t>(*bytes);
  }();
  return size;
}

std::string huge_pages_missing_reason() {
  if (!transparent_huge_page_size())
    return "transparent huge pages are off in /sys/kernel/mm/transparent_hugepage";
  if (::prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) == 1)
    return "huge pages are disabled for this process (prctl PR_SET_THP_DISABLE)";
  return "the kernel had none free";
}

AlignedBuffer::AlignedBuffer(std::size_t bytes, Pages pages) : size_(bytes), mapped_(bytes) {
  auto huge = pages == Pages::huge ? transparent_huge_page_size() : std::nullopt;
  if (!huge) {
    data_ = static_cast<std::byte*>(map_or_throw(bytes));
    return;
  }
  // Over-map by one huge page, then trim both ends so that the mapping starts and ends on huge-page
  // boundaries: the kernel only backs whole aligned huge pages that lie inside one mapping.
  mapped_ = (bytes + *huge - 1) / *huge * *huge;
  auto raw = reinterpret_cast<std::uintptr_t>(map_or_throw(mapped_ + *huge));
  auto start = (raw + *huge - 1) / *huge * *huge;
  if (start > raw) ::munmap(reinterpret_cast<void*>(raw), start - raw);
  ::munmap(reinterpret_cast<void*>(start + mapped_), raw + *huge - start);
  data_ = reinterpret_cast<std::byte*>(start);
  // Advice only: without it (or when the kernel refuses) the buffer stays in base pages, which huge_bytes()
  // tells.
  ::madvise(data_, mapped_, MADV_HUGEPAGE);
}

AlignedBuffer::~AlignedBuffer() {
  if (data_ != nullptr) ::munmap(data_, mapped_);
}

std::optional<std::uint64_t> AlignedBuffer::huge_bytes() const {
  if (data_ == nullptr) return std::nullopt;
  auto smaps = SysReader().read("/proc/self/smaps");
  if (!smaps) return std::nullopt;
  return parse_smaps_anon_huge(*smaps, reinterpret_cast<std::uintptr_t>(data_)).value_or(0);
}

}  // namespace mlbench::storage
