#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include <fmt/format.h>

#include "kernels/gpu/verify.hpp"

namespace mlbench::gpu {
namespace {

TEST(GpuVerify, DecodesNarrowFormats) {
  EXPECT_DOUBLE_EQ(half_to_double(0x3c00), 1.0);
  EXPECT_DOUBLE_EQ(half_to_double(0xc000), -2.0);
  EXPECT_DOUBLE_EQ(half_to_double(0x0001), std::ldexp(1.0, -24));  // smallest subnormal
  EXPECT_DOUBLE_EQ(half_to_double(0x7bff), 65504.0);
  EXPECT_DOUBLE_EQ(bf16_to_double(0x3f80), 1.0);
  EXPECT_DOUBLE_EQ(bf16_to_double(0xc040), -3.0);
  EXPECT_DOUBLE_EQ(e4m3_to_double(0x38), 1.0);    // exponent 7 = bias
  EXPECT_DOUBLE_EQ(e4m3_to_double(0x7e), 448.0);  // largest finite
  EXPECT_DOUBLE_EQ(e4m3_to_double(0x01), std::ldexp(1.0, -9));
  EXPECT_TRUE(std::isnan(e4m3_to_double(0x7f)));
  for (double v : {0.0, 1.0, -0.333251953125, 1e-5, 1234.5}) {
    EXPECT_DOUBLE_EQ(half_to_double(double_to_half(v)),
                     static_cast<double>(half_to_double(double_to_half(v))));
    EXPECT_NEAR(half_to_double(double_to_half(v)), v, std::fabs(v) * 1e-3 + 1e-7);
    EXPECT_NEAR(bf16_to_double(double_to_bf16(v)), v, std::fabs(v) * 4e-3);
  }
  EXPECT_EQ(double_to_half(1.0), 0x3c00);
  EXPECT_EQ(double_to_bf16(1.0), 0x3f80);
  std::int32_t i = -7;
  EXPECT_DOUBLE_EQ(decode(Storage::i32, &i, 0), -7.0);
  std::int8_t b[2] = {5, -64};
  EXPECT_DOUBLE_EQ(decode(Storage::i8, b, 1), -64.0);
}

// A correct device simulated on the host, as each precision's error model (gemm_plan.cpp) describes it:
// inputs as the probe fills them (uniform in [-1, 1] rounded to the input format; int8 in [-64, 64]), the
// product summed the way the unit sums it, the result rounded to the output format.
double truncate_to(double v, int fraction_bits) {
  if (v == 0) return 0;
  int e = 0;
  std::frexp(v, &e);  // |v| in [2^(e-1), 2^e)
  const double unit = std::ldexp(1.0, e - 1 - fraction_bits);
  return std::trunc(v / unit) * unit;
}

double round_e4m3(double v) {
  if (v == 0) return 0;
  int e = 0;
  std::frexp(v, &e);
  const double unit = std::ldexp(1.0, std::max(e - 1, -6) - 3);  // 3 fraction bits, subnormals below 2^-6
  return std::nearbyint(v / unit) * unit;
}

double round_input(Precision p, double v) {
  switch (p) {
    case Precision::fp16:
      return half_to_double(double_to_half(v));
    case Precision::bf16:
      return bf16_to_double(double_to_bf16(v));
    case Precision::fp8:
      return round_e4m3(v);
    case Precision::int8:
      return std::nearbyint(v * 64);
    default:
      return static_cast<double>(static_cast<float>(v));
  }
}

double round_output(Storage s, double v) {
  switch (s) {
    case Storage::f16:
      return half_to_double(double_to_half(v));
    case Storage::bf16:
      return bf16_to_double(double_to_bf16(v));
    case Storage::f32:
      return static_cast<double>(static_cast<float>(v));
    default:
      return v;
  }
}

// One output as the device computes it: FP32 on the CUDA cores is a chain of fused multiply-adds rounded to
// nearest; the tensor cores add blocks of exact products into a truncating accumulator (TF32 truncating its
// inputs first).
double device_dot(Precision p, std::span<const double> a, std::span<const double> b) {
  if (p == Precision::int8) return dot_ref(a, b).value;
  if (p == Precision::fp32) {
    float acc = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
      acc = std::fma(static_cast<float>(a[i]), static_cast<float>(b[i]), acc);
    return acc;
  }
  const std::size_t block = p == Precision::fp8 ? 32 : 8;
  const int bits = p == Precision::fp8 ? 13 : 23;
  double acc = 0;
  for (std::size_t i = 0; i < a.size(); i += block) {
    double sum = 0;
    for (std::size_t j = i; j < std::min(a.size(), i + block); ++j) {
      sum += p == Precision::tf32 ? truncate_to(a[j], 10) * truncate_to(b[j], 10) : a[j] * b[j];
    }
    acc = truncate_to(acc + sum, bits);
  }
  return acc;
}

// Uniform draws from 2^16 evenly spaced points of [-1, 1], rounded to the input format: a table lookup per
// element, so the tests can afford the 3.2M-term sums of a convolution's gradient.
std::vector<double> random_inputs(Precision p, std::size_t k, std::mt19937_64& rng) {
  static std::vector<double> tables[6];
  auto& table = tables[static_cast<std::size_t>(p)];
  if (table.empty()) {
    for (int i = 0; i < 1 << 16; ++i) table.push_back(round_input(p, -1 + (i + 0.5) / (1 << 15)));
  }
  const std::uint64_t seed = rng();
  std::vector<double> v(k);
  for (std::size_t i = 0; i < k; ++i) v[i] = table[pattern_word(i, seed) & 0xffff];
  return v;
}

// 64 sampled outputs (the probe's 8 rows x 8 columns) of a correct device, K deep.
std::vector<GemmSample> host_gemm_samples(Precision p, std::int64_t k, unsigned seed) {
  std::mt19937_64 rng(seed);
  const Storage out = output_storage(p);
  std::vector<GemmSample> samples;
  for (int row = 0; row < 8; ++row) {
    auto a = random_inputs(p, static_cast<std::size_t>(k), rng);
    for (int col = 0; col < 8; ++col) {
      GemmSample g;
      g.row = row;
      g.col = col;
      g.a_row = a;
      g.b_col = random_inputs(p, static_cast<std::size_t>(k), rng);
      g.got = round_output(out, device_dot(p, g.a_row, g.b_col));
      samples.push_back(std::move(g));
    }
  }
  return samples;
}

// The largest K of each shape set the plan offers (square sizes of every profile, the transformer layers).
std::vector<std::int64_t> largest_ks() {
  DeviceFacts big;
  big.name = "simulated";
  big.cc = "9.0";
  big.memory_bytes = big.free_bytes = 1ull << 50;
  big.l2_bytes = 50 << 20;
  std::vector<std::int64_t> out;
  for (const char* set : {"square", "transformer"}) {
    std::int64_t k = 0;
    for (auto profile : {Profile::quick, Profile::standard, Profile::full}) {
      for (const auto& c : plan_gemm(Json{{"shapes", set}, {"precisions", "bf16"}}, profile, {big})) {
        k = std::max(k, c.shape.k);
      }
    }
    out.push_back(k);
  }
  return out;
}

TEST(GpuVerify, LargestKsAreTheShapeSets) {
  EXPECT_EQ(largest_ks(), (std::vector<std::int64_t>{16384, 28672}));  // ffn_down of llama3-70b
}

constexpr Precision kPrecisions[] = {Precision::fp32, Precision::tf32, Precision::fp16,
                                     Precision::bf16, Precision::fp8,  Precision::int8};

// For every precision at the largest K of every shape set: a correct device passes, and each of the faults
// fails (an all-zero D, one output off by 10% of its value, a transposed operand, a wrong scale).
TEST(GpuVerify, CorrectProductsPassAndEveryFaultFailsAtTheLargestK) {
  for (auto k : largest_ks()) {
    for (auto p : kPrecisions) {
      const auto& spec = precision_table()[static_cast<std::size_t>(p)];
      SCOPED_TRACE(fmt::format("{} K={}", spec.name, k));
      const auto good = host_gemm_samples(p, k, static_cast<unsigned>(k) + static_cast<unsigned>(p));
      const auto v = verify_gemm(good, spec.error);
      EXPECT_TRUE(v.ok) << v.first_bad;
      EXPECT_EQ(v.checked, 64u);
      EXPECT_LE(v.max_error, 1.0);
      RecordProperty(fmt::format("{}_k{}_max_error_over_allowed", spec.name, k),
                     fmt::format("{:.3g}", v.max_error));

      auto zeros = good;
      for (auto& s : zeros) s.got = 0;
      EXPECT_FALSE(verify_gemm(zeros, spec.error).ok) << "all-zero D";

      // The output largest against its terms' spread, off by 10% of its value.
      auto one = good;
      auto worst = std::max_element(one.begin(), one.end(), [](const GemmSample& x, const GemmSample& y) {
        auto rx = dot_ref(x.a_row, x.b_col), ry = dot_ref(y.a_row, y.b_col);
        return std::fabs(rx.value) / rx.spread < std::fabs(ry.value) / ry.spread;
      });
      worst->got += 0.1 * std::fabs(dot_ref(worst->a_row, worst->b_col).value);
      const auto v1 = verify_gemm(one, spec.error);
      EXPECT_FALSE(v1.ok) << "one output 10% off";
      EXPECT_EQ(v1.bad, 1u);

      // op(A) wrong: each output is the dot product of other elements of A with the right column of B.
      auto transposed = good;
      std::mt19937_64 rng(99);
      for (auto& s : transposed) {
        s.got =
            round_output(output_storage(p), device_dot(p, random_inputs(p, s.a_row.size(), rng), s.b_col));
      }
      EXPECT_FALSE(verify_gemm(transposed, spec.error).ok) << "transposed operand";

      for (double scale : {2.0, 0.5}) {
        auto scaled = good;
        for (auto& s : scaled) s.got = round_output(output_storage(p), s.got * scale);
        EXPECT_FALSE(verify_gemm(scaled, spec.error).ok) << "scale " << scale;
      }
    }
  }
}

// A split-K algorithm whose parts cuBLASLt rounds to the output format and adds in it (reduction in place or
// in the output type): with the algorithm's part count in the model, a correct result passes and the faults
// still fail.
TEST(GpuVerify, SplitKReducedInTheOutputFormatPasses) {
  const std::int64_t k = largest_ks().back();
  for (auto p : {Precision::fp32, Precision::fp16, Precision::bf16, Precision::fp8}) {
    for (int parts : {2, 16, 64}) {
      const auto& spec = precision_table()[static_cast<std::size_t>(p)];
      SCOPED_TRACE(fmt::format("{} K={} in {} parts", spec.name, k, parts));
      const Storage out = output_storage(p);
      auto samples = host_gemm_samples(p, k, 11);
      for (auto& s : samples) {
        const std::size_t slice = s.a_row.size() / static_cast<std::size_t>(parts);
        double acc = 0;
        for (int j = 0; j < parts; ++j) {
          const auto from = static_cast<std::ptrdiff_t>(slice * static_cast<std::size_t>(j));
          const double part = round_output(out, device_dot(p, std::span(s.a_row).subspan(from, slice),
                                                           std::span(s.b_col).subspan(from, slice)));
          acc = round_output(out, acc + part);
        }
        s.got = acc;
      }
      ErrorModel model = spec.error;
      model.parts = parts;
      const auto v = verify_gemm(samples, model);
      EXPECT_TRUE(v.ok) << v.first_bad;
      auto zeros = samples;
      for (auto& s : zeros) s.got = 0;
      EXPECT_FALSE(verify_gemm(zeros, model).ok);
      auto scaled = samples;
      for (auto& s : scaled) s.got *= 2;
      EXPECT_FALSE(verify_gemm(scaled, model).ok);
    }
  }
}

// The largest K a custom shape may have: a correct device still passes, and no result unrelated to the
// product (zeros, another product) passes.
TEST(GpuVerify, CorrectProductsPassAtTheLargestCustomK) {
  for (auto p : kPrecisions) {
    const auto& spec = precision_table()[static_cast<std::size_t>(p)];
    SCOPED_TRACE(spec.name);
    const auto good = host_gemm_samples(p, kMaxGemmDim, 5);
    const auto v = verify_gemm(good, spec.error);
    EXPECT_TRUE(v.ok) << v.first_bad;
    auto zeros = good;
    for (auto& s : zeros) s.got = 0;
    EXPECT_FALSE(verify_gemm(zeros, spec.error).ok);
  }
}

// The old bound (error / Σ|a·b| ≤ 5e-2 for fp8) let a zero output through at K = 8192: it is off by about
// (4/3)/√K = 1.5e-2 of Σ|a·b|, so all 64 outputs had to fall beyond 3.4 standard deviations to be caught.
// The error model catches nearly every one.
TEST(GpuVerify, AnAllZeroFp8ProductFailsAtK8192) {
  auto samples = host_gemm_samples(Precision::fp8, 8192, 3);
  std::size_t old_passed = 0;
  for (auto& s : samples) {
    double mag = 0;
    for (std::size_t i = 0; i < s.a_row.size(); ++i) mag += std::fabs(s.a_row[i] * s.b_col[i]);
    if (std::fabs(dot_ref(s.a_row, s.b_col).value) / mag <= 5e-2) ++old_passed;
    s.got = 0;
  }
  EXPECT_GE(old_passed, 60u);  // what the old tolerance let through
  auto v = verify_gemm(samples, precision_spec("fp8").error);
  EXPECT_FALSE(v.ok);
  EXPECT_GT(v.bad, 48u);
}

TEST(GpuVerify, NanNeverPasses) {
  auto samples = host_gemm_samples(Precision::fp32, 256, 4);
  samples[0].got = std::nan("");
  EXPECT_FALSE(verify_gemm(samples, precision_spec("fp32").error).ok);
}

TEST(GpuVerify, IntegerProductsMustBeExact) {
  GemmSample s{0, 0, {1, -2, 3}, {4, 5, -6}, -24};
  EXPECT_TRUE(verify_gemm({s}, precision_spec("int8").error).ok);
  s.got = -23;
  EXPECT_FALSE(verify_gemm({s}, precision_spec("int8").error).ok);
}

// gpu.conv: the sums of every direction over the ResNet-50 layers at batch 256 (backward-filter sums N·P·Q
// terms, up to 3.2M) under the convolution error model: a correct tensor-core sum passes; zeros, one output
// 10% off and a wrong scale fail.
TEST(GpuVerify, ConvolutionSumsPassWhenCorrectAndFailWhenWrong) {
  constexpr int kBatch = 256;
  std::int64_t fwd = 0, bwd_data = 0, bwd_filter = 0;
  for (const auto& l : resnet50_layers()) {
    fwd = std::max<std::int64_t>(fwd, std::int64_t{l.c} * l.r * l.s);
    bwd_data = std::max<std::int64_t>(bwd_data, std::int64_t{l.k} * l.r * l.s);
    bwd_filter = std::max<std::int64_t>(bwd_filter, std::int64_t{kBatch} * l.p() * l.q());
  }
  ASSERT_EQ(bwd_filter, 256 * 112 * 112);  // the stem's gradient sums 3.2M terms
  for (const char* precision : {"fp16", "bf16"}) {
    const Precision p = precision == std::string_view("fp16") ? Precision::fp16 : Precision::bf16;
    const ErrorModel model = conv_error_model(precision);
    for (auto n : {fwd, bwd_data, bwd_filter}) {
      SCOPED_TRACE(fmt::format("{} n={}", precision, n));
      std::mt19937_64 rng(static_cast<std::uint64_t>(n));
      std::vector<RefValue> refs;
      std::vector<double> got;
      for (int i = 0; i < 16; ++i) {  // the probe's 16 sampled outputs
        auto a = random_inputs(p, static_cast<std::size_t>(n), rng);
        auto b = random_inputs(p, static_cast<std::size_t>(n), rng);
        refs.push_back(dot_ref(a, b));
        got.push_back(round_output(output_storage(p), device_dot(p, a, b)));
      }
      auto verify = [&](const std::vector<double>& values) {
        VerifyOutcome v;
        for (std::size_t i = 0; i < refs.size(); ++i) v.check(values[i], refs[i], model, "y");
        return v;
      };
      const auto v = verify(got);
      EXPECT_TRUE(v.ok) << v.first_bad;
      EXPECT_FALSE(verify(std::vector<double>(got.size(), 0.0)).ok) << "zero gradient";
      auto one = got;
      std::size_t worst = 0;
      for (std::size_t i = 0; i < refs.size(); ++i) {
        if (std::fabs(refs[i].value) / refs[i].spread > std::fabs(refs[worst].value) / refs[worst].spread)
          worst = i;
      }
      one[worst] += 0.1 * std::fabs(refs[worst].value);
      EXPECT_EQ(verify(one).bad, 1u) << "one output 10% off";
      auto scaled = got;
      for (auto& g : scaled) g *= 2;
      EXPECT_FALSE(verify(scaled).ok) << "scale 2";
    }
  }
}

TEST(GpuVerify, SampleIndicesSpreadAndIncludeEnds) {
  EXPECT_EQ(sample_indices(100, 3), (std::vector<std::int64_t>{0, 50, 99}));
  EXPECT_EQ(sample_indices(2, 8), (std::vector<std::int64_t>{0, 1}));
  EXPECT_TRUE(sample_indices(0, 4).empty());
}

TEST(GpuVerify, ConvolutionReferencesAgreeWithADirectLoop) {
  // A 2-image, 3-channel, 5x5 input, 4 filters of 3x3, stride 2, pad 1: P = Q = 3.
  ConvLayer l{"t", 3, 4, 5, 5, 3, 3, 2, 1, 1};
  const int n = 2, P = l.p(), Q = l.q();
  ASSERT_EQ(P, 3);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> x(n * 5 * 5 * 3), w(4 * 3 * 3 * 3), dy(n * P * Q * 4);
  for (auto* v : {&x, &w, &dy}) {
    for (auto& e : *v) e = u(rng);
  }
  ConvTensors t{&l, n, x, w, dy};
  // Forward and backward-data are adjoint: <dy, conv(x)> = <conv_bwd_data(dy), x>.
  double lhs = 0, rhs = 0;
  for (int b = 0; b < n; ++b) {
    for (int p = 0; p < P; ++p)
      for (int q = 0; q < Q; ++q)
        for (int k = 0; k < 4; ++k)
          lhs += dy[((b * P + p) * Q + q) * 4 + k] * conv_fwd_ref(t, b, p, q, k).value;
    for (int h = 0; h < 5; ++h)
      for (int ww = 0; ww < 5; ++ww)
        for (int c = 0; c < 3; ++c)
          rhs += x[((b * 5 + h) * 5 + ww) * 3 + c] * conv_bwd_data_ref(t, b, h, ww, c).value;
  }
  EXPECT_NEAR(lhs, rhs, 1e-9 * std::fabs(lhs) + 1e-9);
  // ... and backward-filter too: <dy, conv(x)> = <dw, w>.
  double wsum = 0;
  for (int k = 0; k < 4; ++k)
    for (int r = 0; r < 3; ++r)
      for (int s = 0; s < 3; ++s)
        for (int c = 0; c < 3; ++c)
          wsum += w[((k * 3 + r) * 3 + s) * 3 + c] * conv_bwd_filter_ref(t, k, r, s, c).value;
  EXPECT_NEAR(lhs, wsum, 1e-9 * std::fabs(lhs) + 1e-9);
  // Its terms: every (image, output position) whose window covers the filter tap, each counted once.
  auto grad = conv_bwd_filter_ref(t, 0, 1, 1, 0);
  EXPECT_EQ(grad.terms, static_cast<std::size_t>(n * P * Q));
  // A corner output of the padded input sees 2x2 of the 3x3 window.
  auto corner = conv_fwd_ref(t, 0, 0, 0, 0);
  double expect = 0;
  for (int r = 1; r < 3; ++r)
    for (int s = 1; s < 3; ++s)
      for (int c = 0; c < 3; ++c)
        expect += double(x[((r - 1) * 5 + (s - 1)) * 3 + c]) * w[(r * 3 + s) * 3 + c];
  EXPECT_NEAR(corner.value, expect, 1e-12);
  EXPECT_EQ(corner.terms, 2u * 2u * 3u);
}

TEST(GpuVerify, CopyPatternDetectsEveryChangedWord) {
  std::vector<std::uint64_t> data(1000);
  fill_pattern(data, 5);
  EXPECT_EQ(count_pattern_mismatches(data, 5), 0u);
  EXPECT_EQ(count_pattern_mismatches(data, 6), 1000u);
  data[17] ^= 1;
  data[900] = 0;
  std::uint64_t first = 0;
  EXPECT_EQ(count_pattern_mismatches(data, 5, &first), 2u);
  EXPECT_EQ(first, 17u);
}

// gpu.gemm's info.output_hash: FNV-1a over little-endian 8-byte words, then the tail bytes.
TEST(GpuVerify, OutputHashIsFnv1aOverWordsAndSeesAnyChangedWord) {
  EXPECT_EQ(hash_bytes({}), 0xcbf29ce484222325ull);  // the FNV-1a offset basis
  const unsigned char one[1] = {0x61};
  EXPECT_EQ(hash_bytes(one), 0xaf63dc4c8601ec8cull);  // FNV-1a 64 of "a"
  std::vector<unsigned char> d(4096 + 3);
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = static_cast<unsigned char>(i * 7 + 1);
  const std::uint64_t h = hash_bytes(d);
  EXPECT_EQ(hash_bytes(d), h);
  for (std::size_t i : {std::size_t{0}, std::size_t{8}, std::size_t{2047}, std::size_t{4095}, d.size() - 1}) {
    auto changed = d;
    changed[i] ^= 0x80;
    EXPECT_NE(hash_bytes(changed), h) << "byte " << i;
  }
  auto swapped = d;  // the same bytes in another order
  std::swap(swapped[0], swapped[8]);
  EXPECT_NE(hash_bytes(swapped), h);
}

}  // namespace
}  // namespace mlbench::gpu
