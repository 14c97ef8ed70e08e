// Host-side logic of the GPU probes, built without CUDA so the CPU preset tests it: each probe's option
// table, device selection, case planning and memory-fit checks, per-variant FLOP/byte tables, theoretical
// bandwidth, % of peak. The CUDA code in this folder only executes what these functions decide. The shared
// part is in plan.cpp; each probe's plan is in the file beside it (gemm_plan.cpp, hbm_plan.cpp,
// copy_plan.cpp, conv_plan.cpp).
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

// ---- gpu.gemm --------------------------------------------------------------------------------------------
enum class Precision { fp32, tf32, fp16, bf16, fp8, int8 };

struct PrecisionSpec {
  Precision precision;
  std::string_view name;       // option and catalog key
  int in_bytes;                // bytes per A/B element
  int out_bytes;               // bytes per D element
  double tolerance;            // max |d - ref| / sum_k |a_k b_k|
  int min_cc;                  // 89 for FP8
  int dim_multiple;            // every dimension a multiple of this (FP8/INT8 tensor-core kernels)
  std::string_view rate_name;  // headline metric: "tflops", or "tops" for INT8
  std::string_view rate_unit;  // "FLOP/s" or "OP/s"
};
const std::vector<PrecisionSpec>& precision_table();
// Throws UsageError listing the known precisions.
const PrecisionSpec& precision_spec(std::string_view name);

struct GemmShape {
  std::string name;  // "square" or "llama3-8b.qkv"
  std::int64_t m = 0, n = 0, k = 0;
};

// 2·M·N·K·batch.
double gemm_flops(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch = 1);

// The GEMMs of real transformer layers (y = x·Wᵀ: M tokens, N output features, K input features).
std::vector<GemmShape> transformer_shapes(std::int64_t tokens);

struct GemmCase {
  int device = 0;
  const PrecisionSpec* spec = nullptr;
  GemmShape shape;
  int buffer_sets = 2;          // A/B sets rotated so their total is >= 2x L2
  std::uint64_t workspace = 0;  // cuBLASLt workspace bytes
  std::uint64_t bytes_needed = 0;
  int algos = 8;  // heuristic candidates timed
};

// Bytes of one A+B set, of D, and the rotation count for a device's L2.
std::uint64_t gemm_set_bytes(const PrecisionSpec& p, const GemmShape& s);
int gemm_buffer_sets(std::uint64_t set_bytes, std::uint64_t l2_bytes);
std::uint64_t gemm_workspace_bytes(int cc_number);  // 32 MiB on Hopper and newer, 4 MiB before

// The option table: precisions, sizes (square), shapes ("square,transformer" or a list "MxNxK"), tokens,
// algos, devices.
std::span<const OptionSpec> gemm_options();
// Throws UsageError for bad options (named through `source`) and sizes that cannot fit (checked here, before
// any allocation).
std::vector<GemmCase> plan_gemm(const Json& options, Profile profile, const std::vector<DeviceFacts>& devices,
                                const OptionSource& source = {});
// The device-independent part of plan_gemm (the CLI calls it on a machine without a GPU).
void validate_gemm_options(const Json& options, const OptionSource& source = {});
Json gemm_case_params(const GemmCase& c, const DeviceFacts& d);

// gpu.gemm's launch loops, each one CUDA graph: every heuristic candidate over ~10 ms, the samples ~25 ms.
// A 1024^3 bf16 GEMM takes ~3 us on an H200, about what the host needs to issue one cublasLtMatmul, so the
// caps are high enough for thousands of launches per loop; they bound the graph's size.
inline constexpr LoopTarget kGemmTuneLoop{0.01, 4000, 8};
inline constexpr LoopTarget kGemmSampleLoop{0.025, 10000, 8};

// NVIDIA's libraries read NVIDIA_TF32_OVERRIDE=0 as "never use TF32 tensor cores", whatever the program asked
// for (CUBLAS_COMPUTE_32F_FAST_TF32 included); 0 is the one value NVIDIA documents. `value` is the variable's
// value, or nullptr when unset. The warning for a GEMM of precision `p` (a tf32 case then measures FP32), or
// nullopt.
std::optional<std::string> tf32_override_warning(Precision p, const char* value);

// ---- gpu.hbm ---------------------------------------------------------------------------------------------
struct HbmKernelSpec {
  HbmKernel kernel;
  std::string_view name;
  int reads, writes;  // arrays read and written per element
};
const std::vector<HbmKernelSpec>& hbm_kernel_table();
const HbmKernelSpec& hbm_kernel_spec(std::string_view name);  // UsageError

inline constexpr int kHbmArrays = 3;
inline constexpr std::uint64_t kHbmElementBytes = 8;  // FP64, BabelStream's default

// Bytes moved by one launch over arrays of `array_bytes` each (cudaMemcpy D2D counts read + write).
double hbm_bytes(const HbmKernelSpec& k, std::uint64_t array_bytes);

// The values a, b, c hold (and the dot/read sum) after `launches` launches of one kernel from the initial
// values; the device run is checked against these.
struct HbmValues {
  double a = 0.1, b = 0.2, c = 0.3;
  double sum = 0;  // dot: Σ a·b; read: Σ a — over all elements
};
inline constexpr double kHbmScalar = 0.4;
inline constexpr double kHbmWriteValue = 0.5;
HbmValues hbm_expected(HbmKernel k, std::int64_t launches, std::uint64_t elements);

struct HbmCase {
  int device = 0;
  const HbmKernelSpec* kernel = nullptr;
  std::uint64_t array_bytes = 0;
};

// Default array size: free/8 clamped to [4·L2, cap], a multiple of 1 MiB; the cap is 1 GiB in quick, 2 GiB
// otherwise.
std::uint64_t default_hbm_array_bytes(const DeviceFacts& d, Profile profile);
std::span<const OptionSpec> hbm_options();  // kernels, size, devices
void validate_hbm_options(const Json& options, const OptionSource& source = {});
std::vector<HbmCase> plan_hbm(const Json& options, Profile profile, const std::vector<DeviceFacts>& devices,
                              const OptionSource& source = {});

// ---- gpu.copy --------------------------------------------------------------------------------------------
enum class CopyDirection { h2d, d2h, bidir };
inline constexpr EnumName<CopyDirection> kCopyDirectionNames[] = {
    {CopyDirection::h2d, "h2d"}, {CopyDirection::d2h, "d2h"}, {CopyDirection::bidir, "bidir"}};
static_assert(names_cover(kCopyDirectionNames));
inline std::string_view to_string(CopyDirection d) { return name_of(kCopyDirectionNames, d); }

enum class CopyPath { copy_engine, sm_kernel };
inline constexpr EnumName<CopyPath> kCopyPathNames[] = {{CopyPath::copy_engine, "copy_engine"},
                                                        {CopyPath::sm_kernel, "sm_kernel"}};
static_assert(names_cover(kCopyPathNames));
inline std::string_view to_string(CopyPath p) { return name_of(kCopyPathNames, p); }

struct CopyCase {
  std::string kind;  // "host" (one GPU), "all" (every selected GPU at once), "p2p" (matrix)
  std::vector<int> devices;
  CopyDirection direction = CopyDirection::h2d;
  bool pinned = true;
  CopyPath path = CopyPath::copy_engine;
  std::uint64_t bytes = 0;
};
std::span<const OptionSpec> copy_options();  // directions, memory, paths, size, devices
void validate_copy_options(const Json& options, const OptionSource& source = {});
std::vector<CopyCase> plan_copy(const Json& options, Profile profile, const std::vector<DeviceFacts>& devices,
                                const OptionSource& source = {});
// Bytes a copy case moves per repetition and device (bidirectional moves the buffer both ways).
double copy_bytes(const CopyCase& c);
// Per-direction PCIe peak of a GPU from its inventory entry: the link's maximum (sysfs max_link_*, else
// NVML's max generation and width), since an idle GPU's link often trains down to Gen1 until it is loaded;
// nullopt when no maximum is known.
std::optional<double> pcie_peak(const Json& gpu);

// ---- gpu.conv --------------------------------------------------------------------------------------------
struct ConvLayer {
  std::string name;
  int c = 0, k = 0, h = 0, w = 0, r = 0, s = 0, stride = 1, pad = 0;
  int count = 1;  // occurrences in the network
  int p() const { return (h + 2 * pad - r) / stride + 1; }
  int q() const { return (w + 2 * pad - s) / stride + 1; }
};
enum class ConvDirection { fwd, bwd_data, bwd_filter };
inline constexpr EnumName<ConvDirection> kConvDirectionNames[] = {{ConvDirection::fwd, "fwd"},
                                                                  {ConvDirection::bwd_data, "bwd_data"},
                                                                  {ConvDirection::bwd_filter, "bwd_filter"}};
static_assert(names_cover(kConvDirectionNames));
inline std::string_view to_string(ConvDirection d) { return name_of(kConvDirectionNames, d); }

// ResNet-50 v1.5 (torchvision: stride on the 3x3), each distinct convolution once with its count.
const std::vector<ConvLayer>& resnet50_layers();
// 2·N·K·C·R·S·P·Q (the same for all three directions).
double conv_flops(const ConvLayer& l, int batch);

struct ConvCase {
  int device = 0;
  std::string precision;  // fp16 | bf16
  int batch = 0;
  const ConvLayer* layer = nullptr;  // nullptr: the ResNet-50 estimate case that sums the layers
};
std::span<const OptionSpec> conv_options();  // precisions, batch, layers, devices
void validate_conv_options(const Json& options, const OptionSource& source = {});
std::vector<ConvCase> plan_conv(const Json& options, Profile profile, const std::vector<DeviceFacts>& devices,
                                const OptionSource& source = {});
std::uint64_t conv_bytes_needed(const ConvLayer& l, int batch, int elem_bytes, std::uint64_t workspace);

// Images/s of ResNet-50 training estimated from per-layer seconds (sum over layers of count × (fwd + bwd-data
// + bwd-filter); the stem has no bwd-data, as its input needs no gradient). Convolutions only: an estimate.
struct ConvLayerTimes {
  std::string layer;
  double fwd_s = 0, bwd_data_s = 0, bwd_filter_s = 0;
};
double resnet50_images_per_s(const std::vector<ConvLayerTimes>& times, int batch);

}  // namespace mlbench::gpu
