// Host-side plan of gpu.gemm (cuBLASLt): the precision table, transformer shapes, FLOP counts, L2-defeating
// buffer rotation and workspace, the option table and case planning. Plain C++ (no CUDA) so the CPU tests
// cover it; gemm_plan.cpp implements it, gemm_probe.cpp runs what it decides.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/gpu/plan.hpp"

namespace mlbench::gpu {

enum class Precision { fp32, tf32, fp16, bf16, fp8, int8 };

struct PrecisionSpec {
  Precision precision;
  std::string_view name;       // option and catalog key
  int in_bytes;                // bytes per A/B element
  int out_bytes;               // bytes per D element
  ErrorModel error;            // what a correct output may differ from its FP64 reference by
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

// The largest dimension a shape may have (the sizes and MxNxK options).
inline constexpr std::int64_t kMaxGemmDim = 1 << 17;

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

// Whether gpu.gemm times a candidate's launches as one CUDA graph, from one plain launch's seconds: only
// below kGraphBelowSeconds. Stream launches are queued ahead of the GPU, so the host's few microseconds per
// cublasLtMatmul idle the GPU only when a kernel is about that short; 40x that is far from it, and 8192^3
// GEMMs (~0.8 ms in fp8 on an H200) stay well above. A graph's stream capture (ThreadLocal mode) is best not
// held open while other threads free memory or synchronise on the same GPU, as the burn-in's all-at-once
// phase does, so it is used only where it changes what is measured.
inline constexpr double kGraphBelowSeconds = 2e-4;
constexpr bool use_launch_graph(double launch_s) { return launch_s < kGraphBelowSeconds; }

// gpu.gemm's launch loops (a CUDA graph each when use_launch_graph): every heuristic candidate over ~10 ms,
// the samples ~25 ms. A 1024^3 bf16 GEMM takes ~3 us on an H200, about what the host needs to issue one
// cublasLtMatmul, so the caps are high enough for thousands of launches per loop; they bound the graph's
// size.
inline constexpr LoopTarget kGemmTuneLoop{0.01, 4000, 8};
inline constexpr LoopTarget kGemmSampleLoop{0.025, 10000, 8};

// NVIDIA's libraries read NVIDIA_TF32_OVERRIDE=0 as "never use TF32 tensor cores", whatever the program asked
// for (CUBLAS_COMPUTE_32F_FAST_TF32 included); 0 is the one value NVIDIA documents. `value` is the variable's
// value, or nullptr when unset. The warning for a GEMM of precision `p` (a tf32 case then measures FP32), or
// nullopt.
std::optional<std::string> tf32_override_warning(Precision p, const char* value);

}  // namespace mlbench::gpu
