#include <gtest/gtest.h>

#include <cmath>
#include <random>

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

// Builds the sampled "device" results of a GEMM on the host: inputs rounded to the format, the product
// accumulated in float and rounded to the output format, as a correct device would.
std::vector<GemmSample> host_gemm_samples(Precision p, int k, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  auto round_in = [&](double v) {
    switch (p) {
      case Precision::fp16:
        return half_to_double(double_to_half(v));
      case Precision::bf16:
        return bf16_to_double(double_to_bf16(v));
      default:
        return static_cast<double>(static_cast<float>(v));
    }
  };
  std::vector<GemmSample> out;
  for (int s = 0; s < 16; ++s) {
    GemmSample g;
    g.row = s;
    g.col = s;
    float acc = 0;
    for (int i = 0; i < k; ++i) {
      g.a_row.push_back(round_in(u(rng)));
      g.b_col.push_back(round_in(u(rng)));
      acc += static_cast<float>(g.a_row.back() * g.b_col.back());
    }
    g.got = p == Precision::fp16   ? half_to_double(double_to_half(acc))
            : p == Precision::bf16 ? bf16_to_double(double_to_bf16(acc))
                                   : acc;
    out.push_back(std::move(g));
  }
  return out;
}

TEST(GpuVerify, CorrectProductsPassEachPrecisionsTolerance) {
  for (auto p : {Precision::fp32, Precision::fp16, Precision::bf16}) {
    const auto& spec = precision_table()[static_cast<std::size_t>(p)];
    auto v = verify_gemm(host_gemm_samples(p, 4096, 7), spec.tolerance);
    EXPECT_TRUE(v.ok) << spec.name << " " << v.first_bad;
    EXPECT_EQ(v.checked, 16u);
    EXPECT_LE(v.max_error, spec.tolerance);
  }
}

TEST(GpuVerify, AWrongElementIsCaught) {
  auto samples = host_gemm_samples(Precision::bf16, 1024, 3);
  samples[5].got += 0.05 * 256;  // about 5% of sum|a*b| for K=1024 (E|ab| = 1/4)
  auto v = verify_gemm(samples, precision_spec("bf16").tolerance);
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.bad, 1u);
  EXPECT_NE(v.first_bad.find("D(5,5)"), std::string::npos) << v.first_bad;
  samples = host_gemm_samples(Precision::fp32, 256, 4);
  samples[0].got = std::nan("");
  EXPECT_FALSE(verify_gemm(samples, 1e-5).ok);
}

TEST(GpuVerify, IntegerProductsMustBeExact) {
  GemmSample s{0, 0, {1, -2, 3}, {4, 5, -6}, -24};
  EXPECT_TRUE(verify_gemm({s}, 0.0).ok);
  s.got = -23;
  EXPECT_FALSE(verify_gemm({s}, 0.0).ok);
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
  // A corner output of the padded input sees 2x2 of the 3x3 window.
  auto corner = conv_fwd_ref(t, 0, 0, 0, 0);
  double expect = 0;
  for (int r = 1; r < 3; ++r)
    for (int s = 1; s < 3; ++s)
      for (int c = 0; c < 3; ++c)
        expect += double(x[((r - 1) * 5 + (s - 1)) * 3 + c]) * w[(r * 3 + s) * 3 + c];
  EXPECT_NEAR(corner.value, expect, 1e-12);
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
