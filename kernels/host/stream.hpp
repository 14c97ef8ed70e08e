// host.membw building blocks that need no threads or timing: the STREAM kernel table with its byte counts,
// the closed-form array contents used for verification, chunking, thread placement and ISA dispatch.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/names.hpp"
#include "kernels/host/stream_kernel.hpp"

namespace mlbench::hostmem {

struct KernelSpec {
  Kernel kernel;
  std::string_view name;
  int bytes_per_element;  // STREAM convention: 8 B per array read or written, write-allocate not counted
  int destination;        // array written: 0 = a, 1 = b, 2 = c
  std::string_view formula;
};

// In STREAM's order, which is also the order they run in (verification relies on it).
inline constexpr std::array<KernelSpec, 4> kKernels{{
    {Kernel::copy, "copy", 16, 2, "c = a"},
    {Kernel::scale, "scale", 16, 1, "b = q*c"},
    {Kernel::add, "add", 24, 2, "c = a + b"},
    {Kernel::triad, "triad", 24, 0, "a = b + q*c"},
}};
inline constexpr double kScalar = 3.0;  // q
static_assert(kKernels[0].kernel == Kernel::copy && kKernels[1].kernel == Kernel::scale &&
                  kKernels[2].kernel == Kernel::add && kKernels[3].kernel == Kernel::triad,
              "a Kernel's value indexes kKernels");

const KernelSpec& kernel_spec(Kernel k);
std::optional<Kernel> kernel_from_name(std::string_view name);

// Arrays hold affine functions alpha·x_i + beta of x_i = 1 + (i mod 1024)/1024: not constant, and with q = 3
// every kernel's result is exact in binary64, so verification can demand equality.
double x_of(std::size_t i);
struct Affine {
  double alpha = 0, beta = 0;
  double at(std::size_t i) const { return alpha * x_of(i) + beta; }
};
struct ArrayState {
  std::array<Affine, 3> arrays{{{1, 0}, {0, 2}, {0, 0}}};  // a = x, b = 2, c = 0 after initialisation
};
// The state after kernel k ran (once or many times: no kernel reads the array it writes).
ArrayState apply(Kernel k, ArrayState s);

struct Chunk {
  std::size_t begin = 0, end = 0;
};

// Elements of out[begin, end) that differ from the closed form, and the first of them.
struct Mismatch {
  std::size_t count = 0;
  std::size_t first = 0;
  double got = 0, want = 0;
};
Mismatch check_chunk(const double* out, Chunk chunk, const Affine& want);
// Sums per-thread mismatches, keeping the lowest-index first mismatch.
Mismatch merge(const std::vector<Mismatch>& parts);

// Splits [0, n) into `parts` contiguous chunks as equal as possible whose boundaries are multiples of `align`
// elements (the last chunk takes the remainder).
std::vector<Chunk> partition(std::size_t n, int parts, std::size_t align);

// The smallest default array. A VM reports a last-level cache of its hypervisor's choosing, often a fraction
// of the host's, and 4x that figure (STREAM's rule) can still sit in the host's cache; 1 GiB per array puts
// the 2-3 arrays a kernel streams (2-3 GiB) above the largest last-level cache per socket sold today
// (about 1.1 GiB).
inline constexpr std::uint64_t kArrayFloorBytes = 1ULL << 30;
// The three default arrays never take more than this share of the memory still available.
inline constexpr double kMaxMemoryShare = 0.5;

struct ArraySize {
  std::uint64_t bytes = 0;            // per array
  std::vector<std::string> warnings;  // why the size may let a cache in, or cannot be trusted
};
// Bytes per array. The rule: max(kArrayFloorBytes, 4x all last-level caches together) rounded up to 2 MiB.
// `requested` (per array, from the size option) is honoured as given, with a warning when it is below the
// rule. Otherwise the rule's size, shrunk to a 2 MiB multiple when three arrays exceed kMaxMemoryShare of
// `available_bytes`, with a warning. `hypervisor` (running in a VM) adds a warning that the reported cache
// size may be smaller than the host's, so the floor is what keeps the arrays out of the caches.
ArraySize array_size(std::optional<std::uint64_t> llc_total_bytes, std::optional<double> available_bytes,
                     bool hypervisor, std::optional<std::uint64_t> requested = std::nullopt);

// One CPU per thread: the first logical CPU of each physical core (host.cpu.core_cpus, else every CPU),
// restricted to `allowed` (the process affinity), taken round-robin across NUMA nodes so that every node's
// memory channels work. threads <= 0 means one per available core; more threads than cores wrap onto the
// remaining logical CPUs.
std::vector<int> place_threads(const nlohmann::json& host, const std::vector<int>& allowed, int threads);
// NUMA node of a CPU from host.numa, -1 when unknown.
int node_of_cpu(const nlohmann::json& host, int cpu);

enum class Isa { avx512, avx2, sse2, scalar };
inline constexpr EnumName<Isa> kIsaNames[] = {
    {Isa::avx512, "avx512"}, {Isa::avx2, "avx2"}, {Isa::sse2, "sse2"}, {Isa::scalar, "scalar"}};
static_assert(names_cover(kIsaNames));
inline std::string_view to_string(Isa isa) { return name_of(kIsaNames, isa); }
bool isa_supported(Isa isa);
Isa best_isa();
using ChunkFn = void (*)(Kernel, double*, double*, double*, std::size_t, double, bool);
ChunkFn chunk_fn(Isa isa);

}  // namespace mlbench::hostmem
