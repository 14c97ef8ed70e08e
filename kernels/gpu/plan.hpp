// Host-side logic of the GPU probes, built without CUDA so the CPU preset tests it: what every probe's plan
// shares (device facts and selection, memory-fit checks, theoretical bandwidth, % of peak, launch-loop
// sizing). Each probe's option table, case planning and FLOP/byte tables are in the plan beside it
// (gemm_plan.hpp, hbm_plan.hpp, copy_plan.hpp, conv_plan.hpp). The CUDA code in this folder only executes
// what these functions decide.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/names.hpp"
#include "bench/gpu_catalog.hpp"
#include "bench/probe.hpp"
#include "kernels/gpu/kinds.hpp"

namespace mlbench::gpu {

// What a planner needs to know about one device: the inventory entry, plus free memory when a probe asked the
// device (cudaMemGetInfo); from the inventory alone, free_bytes is the total.
struct DeviceFacts {
  int index = 0;
  std::string name, uuid, cc;  // cc "9.0"
  int sms = 0;
  std::uint64_t memory_bytes = 0, free_bytes = 0, l2_bytes = 0;
  double memory_clock_hz = 0;
  int bus_width_bits = 0;

  int cc_number() const;  // "8.9" -> 89
};

// The `gpus` list of a host inventory (bench/sysinfo.hpp) as facts.
std::vector<DeviceFacts> device_facts_from_inventory(const Json& host);

// Why no GPU probe can run on this host (no `gpus` in the inventory), or nullopt.
std::optional<std::string> no_gpu_reason(const Json& host);

// The `devices` option every GPU probe's table has.
inline constexpr OptionSpec kDevicesOption{.name = "devices",
                                           .type = OptionType::list,
                                           .def = "all; quick: GPU 0",
                                           .help = "all or GPU indices, e.g. 0,2"};

// The `devices` of a probe's options: "all", "0,2", [0, 2] or absent (quick profile: the first GPU; otherwise
// all). Throws UsageError naming the option through `source` for malformed text, duplicates or an index this
// host does not have (`count` devices).
std::vector<int> select_devices(const Json& options, Profile profile, int count,
                                const OptionSource& source = {});

// "42" -> 42; nullopt unless the whole text is a whole number.
std::optional<std::int64_t> whole_number(std::string_view s);

// Throws UsageError "<what> needs X on GPU i (name) but only Y is free; <fix>" when `need` + a safety margin
// exceeds `facts.free_bytes`.
void check_fits(std::uint64_t need, const DeviceFacts& facts, std::string_view what, std::string_view fix);
inline constexpr std::uint64_t kMemoryMargin = 512ull << 20;  // left free for the context, cuBLAS, cuDNN

// 2 · memory clock · bus width / 8 (DDR signalling), B/s; 0 when unknown.
double theoretical_bandwidth(double memory_clock_hz, int bus_width_bits);
// 100 · value / peak, or nullopt when peak is unknown or zero.
std::optional<double> pct_of(double value, std::optional<double> peak);

// Launches per timed sample so one sample lasts about `target_s`, given one launch's seconds.
int launches_per_sample(double launch_s, double target_s, int max_launches);

// How a probe's launch loop is sized (launch_loop.hpp time_launch_loop): a loop of `sizing_launches` runs
// once untimed (lazy module loading puts a kernel's first launch at milliseconds; first-touch mappings and
// clocks settle), once timed, and a sample then holds launches_per_sample(that time, sample_s, max_launches).
struct LoopTarget {
  double sample_s = 0.02;
  int max_launches = 1000;
  int sizing_launches = 1;
};

// How far a correct GEMM or convolution output may lie from its FP64 reference Σ tᵢ (tᵢ = a·b, the products
// the device sums): verify.hpp allowed_error. The error is measured against the spread of the terms,
// √Σtᵢ², not against Σ|tᵢ|: a sum of n random-signed terms is about √Σtᵢ² in size, while Σ|tᵢ| is √n times
// more, so a bound in Σ|tᵢ| lets a zero or unrelated output through once n is large. Each part:
//   out    the output format's unit roundoff (round to nearest): |d − acc| ≤ u_out·|acc|, a hard bound;
//   in     rounding of the inputs inside the unit (TF32 truncates FP32 inputs to 10 fraction bits; cuDNN's
//          Winograd and FFT transforms round to the input format): each term off by ≲ 2·u_in·|tᵢ| with a
//          random sign, so the sum by ≲ 2·u_in·√Σtᵢ²/√3; 4·u_in·√Σtᵢ² allowed (about 3.5 standard
//          deviations);
//   acc    the accumulator: each of the ⌈n/acc_step⌉ additions into it loses up to u_acc of the running sum
//          (tensor cores truncate, so the losses need not cancel); the running sum stays about √Σtᵢ² in
//          size, so u_acc·⌈n/acc_step⌉·√Σtᵢ² bounds it;
//   parts  a split-K algorithm sums `parts` partial products, which cuBLASLt may round to the output format
//   and
//          add in it (reduction scheme in place or in the output type): each rounding is off by up to u_out
//          of a partial sum or of the running total, both about √Σtᵢ² in size, so (1 + √parts)·u_out·√Σtᵢ² (0
//          for one part);
//   floor  half the output format's smallest subnormal (an output that underflows).
// allowed = 2·u_out·|ref| + (4·u_in + u_acc·⌈n/acc_step⌉ + parts term)·√Σtᵢ² + floor. All zero for exact
// integer math.
struct ErrorModel {
  double u_out = 0, u_in = 0, u_acc = 0;
  int acc_step = 1;
  double floor = 0;
  int parts = 1;  // split-K parts of the algorithm that made the output (the probe sets it)
};

}  // namespace mlbench::gpu
