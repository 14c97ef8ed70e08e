// host.membw: host memory bandwidth with the STREAM kernels (copy, scale, add, triad).
//
// Measures: sustained DRAM bandwidth of the whole machine, one pinned thread per physical core by default,
// spread round-robin across NUMA nodes; each thread first-touches (initialises) and then works on its own
// contiguous chunk of the three arrays, so every node streams from its local memory.
// Formula: bandwidth = bytes_per_element × elements / t with STREAM's byte counts (copy 16, scale 16, add 24,
// triad 24 B per element: 8 B per array read or written; the write-allocate read of regular stores is not
// counted); t = last thread's end − first thread's start after a spin barrier. pct_of_peak = bandwidth /
// host.memory.theoretical_bandwidth (channels × MT/s × 8 B, only when SMBIOS was readable).
// Sizes (array_size in kernels/host/stream.hpp), in every profile: each array ≥ 1 GiB and ≥ 4× all
// last-level caches together (STREAM's rule; host.cpu.llc_total_bytes, else the CPUID value of the C
// library), shrunk with a warning to fit half of the available memory. In a VM (CPU flag `hypervisor`) the
// reported cache may be a fraction of the host's, so the 1 GiB floor keeps the arrays out of it; a warning
// says so. `size` sets the total of the three arrays instead, honoured and warned when below the rule.
// Warm-up and sampling (bench/measure.hpp): quick 1 warm-up + ≥5 samples (≤3 s per kernel), default 2 + ≥20
// samples and ≥1 s, full 3 + ≥50 samples and ≥3 s; one sample = one pass of the kernel over the arrays.
// Verification: array i holds alpha·x_i + beta (x_i = 1 + (i mod 1024)/1024, exact in binary64); after each
// kernel's timed loop every element of the array it wrote is compared with the closed form; any mismatch
// makes the result `incorrect`. Caveats: non-temporal stores (default when the arrays exceed the caches)
// avoid the write-allocate read, so the same kernel with regular stores moves ~1.3–1.5× the counted bytes;
// results on a loaded machine (other jobs on the cores) are low; transparent huge pages are requested with
// madvise and may be refused.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/measure.hpp"
#include "bench/probe.hpp"
#include "kernels/host/stream.hpp"

namespace mlbench::hostmem {

inline constexpr std::string_view kProbeId = "host.membw";

enum class Stores { automatic, non_temporal, regular };

// The probe's options (from `mlbench hostmem` flags or options.host.membw in a --config file).
struct MembwOptions {
  std::optional<int> threads;               // default: one per physical core
  std::optional<std::uint64_t> size_bytes;  // total of the three arrays; default from the LLC
  std::vector<Kernel> kernels;              // in STREAM order; default all four
  bool numa = true;                         // pin threads and first-touch per thread
  Stores stores = Stores::automatic;
  std::optional<Isa> isa;  // default: the widest this CPU supports
};
// The probe's option table (`mlbench hostmem` flags, options.host.membw in a --config file).
std::span<const OptionSpec> membw_options();
// Reads the options through the probe's table; throws UsageError naming the option as `source` gives it.
MembwOptions parse_membw_options(const Json& options, const OptionSource& source = {});

MeasurePolicy membw_policy(Profile profile);

// The last-level cache total the default size follows, and where it came from ("sysfs" or "cpuid").
struct LlcSize {
  std::uint64_t bytes = 0;
  std::string source;
};
std::optional<LlcSize> llc_size(const Json& host);

std::unique_ptr<Probe> make_membw_probe();

}  // namespace mlbench::hostmem
