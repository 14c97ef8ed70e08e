// The GEMM shape model (METHODS.md "GEMM shape model") shared by the training and serving models
// (sizing/model_gemm.cpp): a workload's GEMM shapes, their efficiency by tile and wave quantization over the
// GPU's SMs, and the gpu.gemm command that measures them.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "sizing/calibration.hpp"
#include "sizing/catalog.hpp"
#include "sizing/workload.hpp"

namespace mlbench::sizing {

// The workload's GEMMs per micro-batch and tensor-parallel rank: QKV, O, FFN up, FFN down, logits (m, n, k).
std::vector<GemmShape> training_gemm_shapes(const TransformerModel& m, int tokens_per_micro_batch, int t);

// The shape model of GEMM efficiency. A tensor-core GEMM kernel computes its m x n output in CTA tiles
// (assumption::kGemmTiles), each tile on one SM, the tiles in waves of the GPU's SM count: a GEMM of `tiles`
// tiles takes ceil(tiles / SMs) waves, and the padding of its edge tiles and its last wave's idle SMs leave
// the quantization m n / (waves x SMs x tile area) of the GPU working. A GEMM of few tiles and a deep k may
// split k into s slices when its tiles leave SMs of the first wave idle (split-K: s times the tiles, each 1/s
// as long; a reduction then writes and reads back its s fp32 partial outputs), as cuBLAS's heuristics do. The
// kernel takes the tile and split with the shortest time. Compute runs at the GPU's large-GEMM asymptote (a
// published best-shape figure, or the measured efficiency of a report) x that quantization; the GEMM also
// reads A and B and writes C from HBM, and takes max(compute, memory) (roofline): small-m GEMMs (decode, an
// expert's few routed rows) are memory-bound. `group` GEMMs of one shape run as one grouped launch (a layer's
// experts on a GPU): their tiles share the waves and each reads its own weights. The output layer's GEMM
// (the logits) stays at 16 bits in a quantized model: Megatron-LM's output layer is a ColumnParallelLinear,
// not a Transformer Engine module, so FP8 and FP4 training leave it in bf16, and quantized checkpoints keep
// lm_head at 16 bits (ModelOpt's default configuration disables *lm_head*, llm-compressor's recipes ignore
// it); it runs at the 16-bit peak and asymptote (kSixteenBitGemm).
struct GemmRates {
  double peak = 0;       // FLOP/s at the precision
  double asymptote = 0;  // large-GEMM efficiency: published or measured
  double hbm = 0;        // B/s, datasheet x calibrated efficiency
  double in_bytes = 2, out_bytes = 2;
  int sms = 0;  // 0: no tile or wave quantization (a measured efficiency already holds it)
  // The 16-bit GEMMs' peak and asymptote: the precision's own at 16 bits or wider, else the bf16 peak (fp16's
  // on a GPU without bf16) at the asymptote scaled by the two precisions' assumed asymptotes (as
  // attention_rate scales its efficiency); precision_16 names it.
  double peak_16 = 0, asymptote_16 = 0;
  std::string precision_16;
};
// The rates of `gpu` at `precision` under calibration `cal`: the tile/wave quantization applies where the
// asymptote is assumed (a published best-shape figure), not where a report measured the workload's shapes.
GemmRates gemm_rates(const GpuSpec& gpu, std::string_view precision, const Calibration& cal);
// The precisions the 16-bit GEMMs of a quantized model run at, the first the GPU has.
inline constexpr std::string_view kSixteenBitGemm[] = {"bf16", "fp16"};

// The rate attention multiplies at, over a KV cache (or, in training, activations) in `kv_precision` beside
// GEMMs in `gemm_precision`: the catalog peak of the cache's precision as attention reads it
// (attention_peak_precision), else FP16's (a GPU without that precision dequantizes to 16 bits), never above
// the GEMMs' peak, which it takes where neither fits. Its efficiency is the GEMMs' scaled by the ratio of the
// two precisions' assumed large-GEMM asymptotes (assumed_gemm_asymptote, at sustained clocks where
// `sustained`, as the calibration's GEMM figure is): 1 at the GEMMs' own precision.
struct AttentionRate {
  std::string precision;  // catalog peak key ("fp8"), or gemm_precision where attention runs at its peak
  double peak = 0;        // FLOP/s
  double eta_scale = 1;   // attention efficiency / the GEMMs' efficiency
};
AttentionRate attention_rate(const GpuSpec& gpu, const std::string& gemm_precision,
                             const std::string& kv_precision, bool sustained);

// A forward GEMM y = x W^T (m tokens, n outputs, k inputs) or one of its backward GEMMs: the input gradient
// (m x k x n) or the weight gradient (n x k x m).
enum class GemmPass { forward, dgrad, wgrad };
struct NamedGemm {
  std::string name;  // "QKV", "experts up"
  GemmShape shape;   // m, n, k
  double group = 1;  // GEMMs of this shape in one grouped launch (sharing its waves)
  double count = 1;  // launches per phase (a layer's GEMMs: one per layer)
  GemmPass pass = GemmPass::forward;
  // At 16 bits whatever the workload's precision: the output layer, and a served checkpoint's unquantized
  // parts.
  bool sixteen_bit = false;
};
struct GemmShapeModel {
  NamedGemm gemm;
  int tile_m = 0, tile_n = 0, split = 1;  // split-K slices
  double tiles = 0, waves = 0, quantization = 1;
  double flops = 0, compute_s = 0, memory_s = 0;
  double reduction_s = 0;   // split-K's partial outputs written and read back, after the GEMM
  double eta = 0;           // flops / (peak x time), at its own precision's peak
  bool at_16_bits = false;  // a 16-bit GEMM in a quantized model (GemmRates::peak_16)
  std::string precision;    // at_16_bits: GemmRates::precision_16
  double peak_ratio = 1;    // its peak / the phase's: eta x this is its efficiency at the phase's peak
  double time_s() const { return std::max(compute_s, memory_s) + reduction_s; }
  bool memory_bound() const { return memory_s > compute_s; }
};
GemmShapeModel gemm_shape_efficiency(const NamedGemm& g, const GemmRates& r);

// A phase's GEMMs (a training micro-batch's forward and backward, a prefill chunk, a decode step) on one GPU.
struct GemmPhase {
  std::vector<GemmShapeModel> classes;
  double eta = 0;          // sum of FLOPs / (peak x sum of max(compute, memory) + reductions)
  double eta_compute = 0;  // sum of FLOPs / (peak x sum of compute + reductions): the memory roofline left
                           // to the caller
  // eta_compute over the classes at the phase's own precision (the 16-bit ones left out): the efficiency the
  // phase's other kernels are scaled from.
  double eta_own = 0;
  double asymptote = 0;
  // The share of the phase's GEMM time in the classes named `name` ("logits": the output layer).
  double time_share(std::string_view name) const;
};
GemmPhase gemm_phase(const std::vector<NamedGemm>& gemms, const GemmRates& r);
// Each class with its efficiency and basis, "QKV 2048x1536x4096: 128x256 tiles 96 on 108 SMs = 1 wave,
// quantization 0.889, compute-bound, eta 0.772; ...".
std::string describe(const GemmPhase& p);

// The gpu.gemm command that measures the phase's GEMM shapes (each distinct m x n x k once, a grouped GEMM's
// single shape, each dimension rounded up to a multiple of 16 as FP8/INT8 tensor-core GEMMs need), so that a
// report of it calibrates the phase at its own shapes: "mlbench gemm --precisions bf16 --shapes
// 2048x7680x20480,..."; at the 16-bit precision as well where the output layer runs there.
std::string gemm_probe_command(const GemmPhase& p, std::string_view precision);

// The transformer layers' GEMMs (L launches of each) and the output layer's logits (one) on one GPU of a
// tensor-parallel group of t, for `rows` tokens: QKV, O, FFN up and down at `rows` rows; a MoE layer's routed
// experts as grouped GEMMs of the ep ranks' rows x ep x top_k / touched rows each, touched = E (1 - (1 -
// k/E)^(rows ep)) of the E experts (all of them at training's token counts), touched / ep of them on this
// GPU; its router (rows x E x h). `backward`: each GEMM's input-gradient (m x k x n) and weight-gradient (n x
// k x m) GEMMs as well. `et`: the routed experts' tensor-parallel split, t where 0; below t (MoE parallel
// folding) a GPU brings its own et / t of the rows to the expert all-to-all and runs 1/et of each expert.
std::vector<NamedGemm> layer_gemms(const TransformerModel& m, double rows, int t, int ep, bool backward,
                                   int et = 0);

// A GEMM's time from its memory and compute times: max(memory, compute) + s x min(memory, compute), s the
// share of the shorter that its pipeline leaves unhidden (assumption::kGemmUnhiddenShare).
template <typename Num>
Num gemm_time(const Num& memory, const Num& compute);

}  // namespace mlbench::sizing
