// Run-time verification math of the GPU probes, host-only so it is unit-tested with host-computed "device"
// results: decoding of the narrow formats the devices wrote, FP64 references of sampled GEMM and convolution
// outputs, and the copy pattern both sides can compute.
#pragma once

#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kernels/gpu/conv_plan.hpp"
#include "kernels/gpu/gemm_plan.hpp"
#include "kernels/gpu/kinds.hpp"

namespace mlbench::gpu {

// IEEE binary16, bfloat16 and FP8 E4M3 (OCP: bias 7, no infinities, S.1111.111 is NaN) to double, exactly.
double half_to_double(std::uint16_t bits);
double bf16_to_double(std::uint16_t bits);
double e4m3_to_double(std::uint8_t bits);
// Round-to-nearest-even encoders, for tests that build "device" results on the host.
std::uint16_t double_to_half(double v);
std::uint16_t double_to_bf16(double v);

// One element of a storage type (kinds.hpp), decoded.
double decode(Storage s, const void* base, std::size_t index);
std::size_t storage_bytes(Storage s);
Storage input_storage(Precision p);
Storage output_storage(Precision p);

// The FP64 reference of one output, Σ tᵢ over its terms, with their spread √Σtᵢ² and their count.
struct RefValue {
  double value = 0, spread = 0;
  std::size_t terms = 0;
  void add(double term) {
    value += term;
    spread += term * term;  // Σtᵢ² until finish()
    ++terms;
  }
  void finish() { spread = std::sqrt(spread); }
};
RefValue dot_ref(std::span<const double> a, std::span<const double> b);

// What a correct output may differ from `ref` by under `model` (plan.hpp ErrorModel).
double allowed_error(const ErrorModel& model, const RefValue& ref);

struct VerifyOutcome {
  bool ok = true;
  std::size_t checked = 0, bad = 0;
  double max_error = 0;   // largest |got − ref| / allowed_error: a correct output is at most 1
  std::string first_bad;  // "D(12,40) = 3.5, expected 1.25" for the reason
  // Counts `got` against `ref`: bad when NaN or off by more than the model allows; `where` names the element.
  void check(double got, const RefValue& ref, const ErrorModel& model, const std::string& where);
  // The result's info.verification fields (checked, bad, max_error_over_allowed, error_model).
  Json info(const ErrorModel& model) const;
};

struct GemmSample {
  std::int64_t row = 0, col = 0;
  std::vector<double> a_row, b_col;  // length K, decoded inputs as the device stored them
  double got = 0;                    // decoded output
};
VerifyOutcome verify_gemm(const std::vector<GemmSample>& samples, const ErrorModel& model);

// The rows and columns a GEMM check samples: `count` evenly spread indices in [0, extent), ends included.
std::vector<std::int64_t> sample_indices(std::int64_t extent, int count);

// Convolution references over NHWC tensors (x: N·H·W·C, w: K·R·S·C, y: N·P·Q·K), decoded to double.
struct ConvTensors {
  const ConvLayer* layer = nullptr;
  int batch = 0;
  std::span<const float> x, w, y;  // fp16/bf16 values are exact in float
};
// The reference of one element of y (fwd), dx (bwd-data, from y as dy) or dw (bwd-filter).
RefValue conv_fwd_ref(const ConvTensors& t, int n, int p, int q, int k);
RefValue conv_bwd_data_ref(const ConvTensors& t, int n, int h, int w, int c);
RefValue conv_bwd_filter_ref(const ConvTensors& t, int k, int r, int s, int c);

// Words of `data` that differ from the pattern (the first bad index in `first_bad`, when any).
std::uint64_t count_pattern_mismatches(std::span<const std::uint64_t> data, std::uint64_t seed,
                                       std::uint64_t* first_bad = nullptr);
void fill_pattern(std::span<std::uint64_t> data, std::uint64_t seed);

// A 64-bit hash of a buffer's bytes: FNV-1a over its 8-byte words (little-endian), then over the bytes of a
// tail shorter than a word. Each step is a bijection of the running hash for a given input, so any two
// buffers of the same length that differ in exactly one word always hash differently. gpu.gemm's
// info.output_hash, which the burn-in compares across GPUs given the same inputs.
std::uint64_t hash_bytes(std::span<const unsigned char> bytes);

}  // namespace mlbench::gpu
