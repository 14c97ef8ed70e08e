#include "kernels/gpu/verify.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

namespace mlbench::gpu {
namespace {

// Encodes v into a binary float of `mant` mantissa bits and exponent bias `bias`, no infinity handling
// beyond saturating to the largest finite exponent field `max_exp_field`; round to nearest even.
std::uint32_t encode_small(double v, int mant, int bias, int exp_bits) {
  std::uint32_t sign = std::signbit(v) ? 1u : 0u;
  double a = std::fabs(v);
  std::uint32_t out_sign = sign << (mant + exp_bits);
  if (std::isnan(v)) return out_sign | (((1u << exp_bits) - 1) << mant) | 1u;
  if (a == 0) return out_sign;
  int e = 0;
  std::frexp(a, &e);  // a = f·2^e, f in [0.5, 1)
  int exp_field = e - 1 + bias;
  if (exp_field <= 0) {  // subnormal: units of 2^(1-bias-mant)
    double units = std::nearbyint(std::ldexp(a, bias - 1 + mant));
    return out_sign | static_cast<std::uint32_t>(units);
  }
  double scaled = std::nearbyint(std::ldexp(a, mant - (e - 1)));  // in [2^mant, 2^(mant+1)]
  auto m = static_cast<std::uint32_t>(scaled);
  if (m == (1u << (mant + 1))) {
    m >>= 1;
    ++exp_field;
  }
  if (exp_field >= (1 << exp_bits) - 1) return out_sign | (((1u << exp_bits) - 1) << mant);  // infinity
  return out_sign | (static_cast<std::uint32_t>(exp_field) << mant) | (m & ((1u << mant) - 1));
}

}  // namespace

double half_to_double(std::uint16_t bits) {
  int sign = bits >> 15, exp = (bits >> 10) & 0x1f, mant = bits & 0x3ff;
  double v;
  if (exp == 0) {
    v = std::ldexp(mant, -24);
  } else if (exp == 31) {
    v = mant ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  } else {
    v = std::ldexp(1024 + mant, exp - 25);
  }
  return sign ? -v : v;
}

double bf16_to_double(std::uint16_t bits) {
  return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16));
}

double e4m3_to_double(std::uint8_t bits) {
  int sign = bits >> 7, exp = (bits >> 3) & 0xf, mant = bits & 0x7;
  if (exp == 15 && mant == 7) return std::numeric_limits<double>::quiet_NaN();
  double v = exp == 0 ? std::ldexp(mant, -9) : std::ldexp(8 + mant, exp - 10);
  return sign ? -v : v;
}

std::uint16_t double_to_half(double v) { return static_cast<std::uint16_t>(encode_small(v, 10, 15, 5)); }

std::uint16_t double_to_bf16(double v) {
  auto bits = std::bit_cast<std::uint32_t>(static_cast<float>(v));
  if (std::isnan(v)) return static_cast<std::uint16_t>((bits >> 16) | 0x40);
  bits += 0x7fff + ((bits >> 16) & 1);
  return static_cast<std::uint16_t>(bits >> 16);
}

std::size_t storage_bytes(Storage s) {
  switch (s) {
    case Storage::f32:
    case Storage::i32:
      return 4;
    case Storage::f16:
    case Storage::bf16:
      return 2;
    case Storage::e4m3:
    case Storage::i8:
      return 1;
  }
  return 1;
}

double decode(Storage s, const void* base, std::size_t index) {
  const auto* p = static_cast<const unsigned char*>(base) + index * storage_bytes(s);
  switch (s) {
    case Storage::f32: {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
    case Storage::i32: {
      std::int32_t i;
      std::memcpy(&i, p, 4);
      return i;
    }
    case Storage::f16:
    case Storage::bf16: {
      std::uint16_t u;
      std::memcpy(&u, p, 2);
      return s == Storage::f16 ? half_to_double(u) : bf16_to_double(u);
    }
    case Storage::e4m3:
      return e4m3_to_double(*p);
    case Storage::i8:
      return static_cast<std::int8_t>(*p);
  }
  return 0;
}

Storage input_storage(Precision p) {
  switch (p) {
    case Precision::fp32:
    case Precision::tf32:
      return Storage::f32;
    case Precision::fp16:
      return Storage::f16;
    case Precision::bf16:
      return Storage::bf16;
    case Precision::fp8:
      return Storage::e4m3;
    case Precision::int8:
      return Storage::i8;
  }
  return Storage::f32;
}

Storage output_storage(Precision p) {
  switch (p) {
    case Precision::fp32:
    case Precision::tf32:
      return Storage::f32;
    case Precision::fp16:
      return Storage::f16;
    case Precision::bf16:
    case Precision::fp8:
      return Storage::bf16;
    case Precision::int8:
      return Storage::i32;
  }
  return Storage::f32;
}

RefValue dot_ref(std::span<const double> a, std::span<const double> b) {
  RefValue out;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) out.add(a[i] * b[i]);
  out.finish();
  return out;
}

double allowed_error(const ErrorModel& m, const RefValue& ref) {
  const double steps = std::ceil(static_cast<double>(ref.terms) / std::max(m.acc_step, 1));
  const double split = m.parts > 1 ? (1 + std::sqrt(static_cast<double>(m.parts))) * m.u_out : 0.0;
  return 2 * m.u_out * std::fabs(ref.value) + (4 * m.u_in + m.u_acc * steps + split) * ref.spread + m.floor;
}

void VerifyOutcome::check(double got, const RefValue& ref, const ErrorModel& model,
                          const std::string& where) {
  const double err = std::fabs(got - ref.value), allowed = allowed_error(model, ref);
  // Exact math (allowed 0) is 0 or infinitely off; NaN never passes.
  const double ratio = std::isnan(got) ? std::numeric_limits<double>::infinity()
                       : allowed > 0   ? err / allowed
                       : err == 0      ? 0.0
                                       : std::numeric_limits<double>::infinity();
  ++checked;
  if (!(ratio <= 1)) {
    if (bad++ == 0) {
      first_bad = fmt::format("{} = {}, expected {} (off by {:.3g}, a correct result by at most {:.3g})",
                              where, got, ref.value, err, allowed);
    }
    ok = false;
  }
  if (!(ratio <= max_error)) max_error = ratio;
}

Json VerifyOutcome::info(const ErrorModel& m) const {
  return {{"checked", checked},
          {"bad", bad},
          {"max_error_over_allowed", max_error},
          {"error_model",
           {{"u_out", m.u_out},
            {"u_in", m.u_in},
            {"u_acc", m.u_acc},
            {"acc_step", m.acc_step},
            {"floor", m.floor},
            {"parts", m.parts}}},
          {"reference",
           "FP64 on the host from the device's inputs; allowed = 2*u_out*|ref| + (4*u_in + "
           "u_acc*ceil(n/acc_step) + (parts > 1 ? (1 + sqrt(parts))*u_out : 0))*sqrt(sum t^2) + floor"}};
}

VerifyOutcome verify_gemm(const std::vector<GemmSample>& samples, const ErrorModel& model) {
  VerifyOutcome out;
  for (const auto& s : samples)
    out.check(s.got, dot_ref(s.a_row, s.b_col), model, fmt::format("D({},{})", s.row, s.col));
  return out;
}

std::vector<std::int64_t> sample_indices(std::int64_t extent, int count) {
  std::vector<std::int64_t> out;
  if (extent <= 0 || count <= 0) return out;
  if (count == 1 || extent == 1) return {0};
  for (int i = 0; i < count; ++i) {
    auto v = static_cast<std::int64_t>(std::llround(static_cast<double>(i) * (extent - 1) / (count - 1)));
    if (out.empty() || out.back() != v) out.push_back(v);
  }
  return out;
}

RefValue conv_fwd_ref(const ConvTensors& t, int n, int p, int q, int k) {
  const auto& l = *t.layer;
  RefValue out;
  for (int r = 0; r < l.r; ++r) {
    int h = p * l.stride - l.pad + r;
    if (h < 0 || h >= l.h) continue;
    for (int s = 0; s < l.s; ++s) {
      int w = q * l.stride - l.pad + s;
      if (w < 0 || w >= l.w) continue;
      for (int c = 0; c < l.c; ++c) {
        out.add(static_cast<double>(t.x[((static_cast<std::size_t>(n) * l.h + h) * l.w + w) * l.c + c]) *
                t.w[((static_cast<std::size_t>(k) * l.r + r) * l.s + s) * l.c + c]);
      }
    }
  }
  out.finish();
  return out;
}

RefValue conv_bwd_data_ref(const ConvTensors& t, int n, int h, int w, int c) {
  const auto& l = *t.layer;
  const int P = l.p(), Q = l.q();
  RefValue out;
  for (int r = 0; r < l.r; ++r) {
    int ph = h + l.pad - r;
    if (ph < 0 || ph % l.stride) continue;
    int p = ph / l.stride;
    if (p >= P) continue;
    for (int s = 0; s < l.s; ++s) {
      int qw = w + l.pad - s;
      if (qw < 0 || qw % l.stride) continue;
      int q = qw / l.stride;
      if (q >= Q) continue;
      for (int k = 0; k < l.k; ++k) {
        out.add(static_cast<double>(t.y[((static_cast<std::size_t>(n) * P + p) * Q + q) * l.k + k]) *
                t.w[((static_cast<std::size_t>(k) * l.r + r) * l.s + s) * l.c + c]);
      }
    }
  }
  out.finish();
  return out;
}

RefValue conv_bwd_filter_ref(const ConvTensors& t, int k, int r, int s, int c) {
  const auto& l = *t.layer;
  const int P = l.p(), Q = l.q();
  RefValue out;
  for (int n = 0; n < t.batch; ++n) {
    for (int p = 0; p < P; ++p) {
      int h = p * l.stride - l.pad + r;
      if (h < 0 || h >= l.h) continue;
      for (int q = 0; q < Q; ++q) {
        int w = q * l.stride - l.pad + s;
        if (w < 0 || w >= l.w) continue;
        out.add(static_cast<double>(t.y[((static_cast<std::size_t>(n) * P + p) * Q + q) * l.k + k]) *
                t.x[((static_cast<std::size_t>(n) * l.h + h) * l.w + w) * l.c + c]);
      }
    }
  }
  out.finish();
  return out;
}

std::uint64_t count_pattern_mismatches(std::span<const std::uint64_t> data, std::uint64_t seed,
                                       std::uint64_t* first_bad) {
  std::uint64_t bad = 0;
  for (std::uint64_t i = 0; i < data.size(); ++i) {
    if (data[i] != pattern_word(i, seed)) {
      if (bad++ == 0 && first_bad) *first_bad = i;
    }
  }
  return bad;
}

void fill_pattern(std::span<std::uint64_t> data, std::uint64_t seed) {
  for (std::uint64_t i = 0; i < data.size(); ++i) data[i] = pattern_word(i, seed);
}

std::uint64_t hash_bytes(std::span<const unsigned char> bytes) {
  constexpr std::uint64_t kOffset = 0xcbf29ce484222325ull, kPrime = 0x100000001b3ull;
  std::uint64_t h = kOffset;
  std::size_t i = 0;
  for (; i + 8 <= bytes.size(); i += 8) {
    std::uint64_t w = 0;
    std::memcpy(&w, bytes.data() + i, sizeof w);
    if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
    h = (h ^ w) * kPrime;
  }
  for (; i < bytes.size(); ++i) h = (h ^ bytes[i]) * kPrime;
  return h;
}

}  // namespace mlbench::gpu
