#include "sizing/model_gemm.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/units.hpp"
#include "sizing/model_terms.hpp"

namespace mlbench::sizing {

using namespace terms;

std::vector<GemmShape> training_gemm_shapes(const TransformerModel& m, int tokens, int t) {
  double M = tokens, h = m.hidden, f = m.ffn_hidden;
  // Attention projections as one GEMM of the layer's attention parameters less O (a d_v x h): the fused QKV
  // (MLA: its down and up projections, summed).
  double attn_out = static_cast<double>(m.heads) * m.v_dim();
  double qkv = m.attention_params() / h - attn_out;
  double ffn_rows = m.moe() ? std::max(1.0, M * m.top_k / m.experts) : M;  // an expert's share of the tokens
  std::vector<GemmShape> shapes{{M, qkv / t, h},
                                {M, h, attn_out / t},
                                {ffn_rows, (m.gated_ffn ? 2 : 1) * f / t, h},
                                {ffn_rows, h, f / t},
                                {M, static_cast<double>(m.vocab) / t, h}};
  if (m.dense_layers > 0) {  // a MoE model's dense layers' FFN
    double dense = m.dense_ffn_hidden;
    shapes.push_back({M, (m.gated_ffn ? 2 : 1) * dense / t, h});
    shapes.push_back({M, h, dense / t});
  }
  return shapes;
}

GemmRates gemm_rates(const GpuSpec& gpu, std::string_view precision, const Calibration& cal) {
  std::string prec(precision);
  GemmRates r{
      gpu.peak_for(peak_precision(prec)).value_or(0), cal.gemm.value,
      gpu.memory_bandwidth * cal.hbm.value,           bytes_per_element(prec),
      std::max(2.0, bytes_per_element(prec)),         cal.gemm.source == Source::assumed ? gpu.sms : 0};
  r.peak_16 = r.peak;
  r.asymptote_16 = r.asymptote;
  r.precision_16 = prec;
  if (bytes_per_element(prec) < 2)
    for (std::string_view key : kSixteenBitGemm)
      if (auto p16 = gpu.peak_for(std::string(key))) {
        r.peak_16 = *p16;
        r.asymptote_16 = r.asymptote * assumed_gemm_asymptote(gpu, key, cal.sustained).value /
                         assumed_gemm_asymptote(gpu, prec, cal.sustained).value;
        r.precision_16 = key;
        break;
      }
  return r;
}

AttentionRate attention_rate(const GpuSpec& gpu, const std::string& gemm_precision,
                             const std::string& kv_precision, bool sustained) {
  double gemm_peak = gpu.peak_for(peak_precision(gemm_precision)).value_or(0);
  for (const std::string& key : {attention_peak_precision(kv_precision), std::string("fp16")}) {
    auto p = gpu.peak_for(key);
    if (p && *p <= gemm_peak)
      return {key, *p,
              assumed_gemm_asymptote(gpu, key, sustained).value /
                  assumed_gemm_asymptote(gpu, gemm_precision, sustained).value};
  }
  return {gemm_precision, gemm_peak, 1};
}

GemmShapeModel gemm_shape_efficiency(const NamedGemm& g, const GemmRates& rates) {
  GemmRates r = rates;
  // A quantized phase (operands under 2 bytes) runs its 16-bit GEMMs at the 16-bit rates.
  bool at_16_bits = g.sixteen_bit && rates.in_bytes < 2 && rates.peak_16 > 0;
  if (at_16_bits) {
    r.peak = rates.peak_16;
    r.asymptote = rates.asymptote_16;
    r.in_bytes = r.out_bytes = 2;
  }
  const double m = g.shape[0], n = g.shape[1], k = g.shape[2];
  double launches = g.group * g.count;
  GemmShapeModel x{g};
  x.at_16_bits = at_16_bits;
  if (at_16_bits) {
    x.precision = rates.precision_16;
    x.peak_ratio = rates.peak_16 / rates.peak;
  }
  x.flops = 2 * m * n * k * launches;
  double io_bytes = ((m * k + k * n) * r.in_bytes + m * n * r.out_bytes) * launches;
  x.memory_s = io_bytes / r.hbm;
  // The time of a tiling: compute at its quantization, the roofline, and split-K's reduction, which writes
  // each slice's fp32 partial output and reads them back after the GEMM.
  auto time = [&](double quantization, int split, double* compute, double* reduction) {
    *compute = x.flops / (r.peak * r.asymptote * quantization);
    *reduction = split > 1 ? 2.0 * split * m * n * 4 * launches / r.hbm : 0;
    return std::max(*compute, x.memory_s) + *reduction;
  };
  double best = time(1, 1, &x.compute_s, &x.reduction_s);
  if (r.sms > 0) {
    best = 0;
    for (const auto& tile : assumption::kGemmTiles) {
      double unsplit = std::ceil(m / tile.m) * std::ceil(n / tile.n) * g.group;
      // Split-K is for GEMMs whose tiles leave SMs of the first wave idle.
      int splits = unsplit < r.sms ? assumption::kGemmMaxSplitK : 1;
      for (int split = 1; split <= splits; ++split) {
        if (split > 1 && k / split < assumption::kGemmMinSplitKDepth) break;
        double tiles = unsplit * split;
        double waves = std::ceil(tiles / r.sms);
        // Of the SMs' time over the waves, the share doing useful multiply-adds.
        double q = m * n * g.group * split / (waves * r.sms * tile.m * tile.n);
        double compute = 0, reduction = 0, t = time(q, split, &compute, &reduction);
        if (best == 0 || t < best) {
          best = t;
          x.tile_m = tile.m;
          x.tile_n = tile.n;
          x.split = split;
          x.tiles = tiles;
          x.waves = waves;
          x.quantization = q;
          x.compute_s = compute;
          x.reduction_s = reduction;
        }
      }
    }
  }
  x.eta = x.flops / (r.peak * best);
  return x;
}

GemmPhase gemm_phase(const std::vector<NamedGemm>& gemms, const GemmRates& r) {
  GemmPhase p;
  p.asymptote = r.asymptote;
  double flops = 0, time = 0, compute = 0, own_flops = 0, own_compute = 0;
  for (const auto& g : gemms) {
    p.classes.push_back(gemm_shape_efficiency(g, r));
    const auto& c = p.classes.back();
    flops += c.flops;
    time += c.time_s();
    compute += c.compute_s + c.reduction_s;
    if (!c.at_16_bits) {
      own_flops += c.flops;
      own_compute += c.compute_s + c.reduction_s;
    }
  }
  p.eta = flops / (r.peak * time);
  p.eta_compute = flops / (r.peak * compute);
  p.eta_own = own_compute > 0 ? own_flops / (r.peak * own_compute) : p.eta_compute;
  return p;
}

double GemmPhase::time_share(std::string_view name) const {
  double named = 0, all = 0;
  for (const auto& c : classes) {
    all += c.time_s();
    if (c.gemm.name == name) named += c.time_s();
  }
  return all > 0 ? named / all : 0;
}

std::string describe(const GemmPhase& p) {
  std::string out;
  for (const auto& c : p.classes) {
    auto [m, n, k] = c.gemm.shape;
    const char* pass = c.gemm.pass == GemmPass::dgrad   ? " dgrad"
                       : c.gemm.pass == GemmPass::wgrad ? " wgrad"
                                                        : "";
    out += fmt::format("{}{}{} {:.0f}x{:.0f}x{:.0f}{}: ", out.empty() ? "" : "; ", c.gemm.name, pass, m, n, k,
                       c.gemm.group > 1 ? fmt::format(" x {:.0f} grouped", c.gemm.group) : "");
    if (c.tile_m > 0)
      out += fmt::format("{}x{} tiles{} {:.0f} in {:.0f} wave{}, quantization {:.3f}, ", c.tile_m, c.tile_n,
                         c.split > 1 ? fmt::format(" split-K {}", c.split) : "", c.tiles, c.waves,
                         c.waves == 1 ? "" : "s", c.quantization);
    out +=
        fmt::format("{}-bound, eta {:.3f}{}", c.memory_bound() ? "memory" : "compute", c.eta,
                    c.at_16_bits ? fmt::format(" at {}, {:.3f} of the phase's peak ({})", c.precision,
                                               c.eta * c.peak_ratio,
                                               c.gemm.name == "logits" ? "the output layer stays at 16 bits"
                                                                       : "the checkpoint keeps it at 16 bits")
                                 : "");
  }
  return out;
}

std::string gemm_probe_command(const GemmPhase& p, std::string_view precision) {
  auto up16 = [](double d) { return static_cast<long long>(std::ceil(d / 16) * 16); };
  std::vector<std::string> shapes, precisions{std::string(precision)};
  for (const auto& c : p.classes) {
    auto [m, n, k] = c.gemm.shape;
    std::string s = fmt::format("{}x{}x{}", up16(m), up16(n), up16(k));
    if (std::find(shapes.begin(), shapes.end(), s) == shapes.end()) shapes.push_back(s);
    // The output layer runs at 16 bits: its rate is measured there too.
    if (c.at_16_bits && std::find(precisions.begin(), precisions.end(), c.precision) == precisions.end())
      precisions.push_back(c.precision);
  }
  return fmt::format("mlbench gemm --precisions {} --shapes {}", fmt::join(precisions, ","),
                     fmt::join(shapes, ","));
}

std::vector<NamedGemm> layer_gemms(const TransformerModel& m, double rows, int t, int ep, bool backward,
                                   int et) {
  double M = rows, h = m.hidden, f = m.ffn_hidden, up = (m.gated_ffn ? 2 : 1) * f / t, L = m.layers;
  double qkv = h + 2.0 * m.kv_heads * m.head_dim();
  std::vector<NamedGemm> out{{"QKV", {M, qkv / t, h}, 1, L}, {"O", {M, h, h / t}, 1, L}};
  if (!m.moe()) {
    out.push_back({"FFN up", {M, up, h}, 1, L});
    out.push_back({"FFN down", {M, h, f / t}, 1, L});
  } else {
    L = m.moe_layers();
    if (m.dense_layers > 0) {
      double dense = m.dense_ffn_hidden, dense_layers = m.dense_layers;
      out.push_back({"dense FFN up", {M, (m.gated_ffn ? 2 : 1) * dense / t, h}, 1, dense_layers});
      out.push_back({"dense FFN down", {M, h, dense / t}, 1, dense_layers});
    }
    if (m.shared_experts > 0) {
      double shared = m.shared_experts;
      out.push_back({"shared FFN up", {M, up, h}, shared, L});
      out.push_back({"shared FFN down", {M, h, f / t}, shared, L});
    }
    // Expert parallelism brings the routed tokens of ep ranks to this GPU's E / ep experts, each split et
    // ways (the tokens of et / t of the tensor-parallel group's rows).
    double split = et > 0 ? et : t;
    double E = m.experts, tokens = M * split / t * ep, touched = E * (1 - std::pow(1 - m.top_k / E, tokens));
    double expert_rows = std::max(1.0, tokens * m.top_k / touched);
    double group = std::max(1.0, touched / ep);
    out.push_back({"experts up", {expert_rows, (m.gated_ffn ? 2 : 1) * f / split, h}, group, L});
    out.push_back({"experts down", {expert_rows, h, f / split}, group, L});
    out.push_back({"router", {M, E, h}, 1, L});
  }
  out.push_back({"logits", {M, static_cast<double>(m.vocab) / t, h}, 1, 1, GemmPass::forward, true});
  if (backward) {
    std::size_t forward = out.size();
    for (std::size_t i = 0; i < forward; ++i) {
      const NamedGemm g = out[i];
      auto [gm, gn, gk] = g.shape;
      out.push_back({g.name, {gm, gk, gn}, g.group, g.count, GemmPass::dgrad, g.sixteen_bit});
      out.push_back({g.name, {gn, gk, gm}, g.group, g.count, GemmPass::wgrad, g.sixteen_bit});
    }
  }
  return out;
}

template <typename Num>
Num gemm_time(const Num& memory, const Num& compute) {
  return maximum(memory, compute) +
         named<Num>("unhidden", assumption::kGemmUnhiddenShare.value, fraction_shown("unhidden share")) *
             minimum(memory, compute);
}
template double gemm_time<double>(const double&, const double&);
template Formula gemm_time<Formula>(const Formula&, const Formula&);

}  // namespace mlbench::sizing
