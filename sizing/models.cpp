#include "sizing/models.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/units.hpp"

namespace mlbench::sizing {
namespace {

constexpr double kActivationBytes = 2;  // 16-bit activations

// Elementwise (non-GEMM) passes of one transformer layer per token, forward, as a PyTorch training step runs
// them (RMSNorm and rotary upcast to fp32, unfused SwiGLU): bytes read + written per element, elements in
// units of hidden (h) or FFN width (f), and whether the pass runs inside the tensor-parallel region (split t
// ways by heads or FFN columns) or outside it (norms, residuals: split only by sequence parallelism, else
// every TP rank repeats it). Backward costs twice the forward. Which passes a layer has follows its
// architecture: RMSNorm as the reference code writes it (six elementwise kernels) or LayerNorm, one kernel
// (torch.nn.LayerNorm, Megatron's fused LayerNorm: read 2 B, write 2 B); rotary embeddings or none (GPT's
// learned positions are added once at the embedding).
enum class PassOf { every_layer, rms_norm, layer_norm, rotary };
struct ElementwisePass {
  const char* op;
  double h_elements, f_elements, bytes;
  bool in_tp_region;
  PassOf of = PassOf::every_layer;
};
constexpr ElementwisePass kElementwisePasses[] = {
    {"2x RMSNorm: upcast 6, square 8, mean 4, scale 8, downcast 6, weight 4", 2, 0, 36, false,
     PassOf::rms_norm},
    {"2x LayerNorm: one kernel, read 2, write 2", 2, 0, 4, false, PassOf::layer_norm},
    {"rotary on q and k: upcast, complex multiply, downcast", 2, 0, 20, true, PassOf::rotary},
    {"attention kernel q, k, v in / o out + layout copies", 1, 0, 20, true},
    {"2x residual add", 2, 0, 6, false},
    {"SwiGLU: silu, multiply", 0, 1, 10, true},
};

bool has_pass(const TransformerModel& m, PassOf of) {
  switch (of) {
    case PassOf::rms_norm:
      return m.rms_norm;
    case PassOf::layer_norm:
      return !m.rms_norm;
    case PassOf::rotary:
      return m.rotary;
    case PassOf::every_layer:
      return true;
  }
  return true;
}

// MoE: each routed copy of a token is permuted to its expert and back (read + write, 2 B) and scaled by its
// router weight on the way back: 3 passes of 4 B over k h elements, in the tensor-parallel region.
constexpr double kMoePermuteBytes = 12;

// Forward elementwise bytes per token and layer on one GPU of a TP group of t (tokens counted per group).
double nongemm_bytes_per_token_layer(const TransformerModel& m, int t, bool sequence_parallel) {
  double forward = 0;
  for (const auto& p : kElementwisePasses) {
    if (!has_pass(m, p.of)) continue;
    double f_elements = m.gated_ffn ? p.f_elements : p.f_elements * 0.4;  // plain FFN: one GeLU pass
    double bytes = (p.h_elements * m.hidden + f_elements * m.ffns_per_token() * m.ffn_hidden) * p.bytes;
    forward += p.in_tp_region || sequence_parallel ? bytes / t : bytes;
  }
  if (m.moe()) forward += kMoePermuteBytes * m.top_k * m.hidden / t;
  return forward;
}

// Standard attention materialises the a x s x s scores per layer: QK^T writes them (2 B), scale + mask +
// softmax reads and writes (4 B), dropout reads, writes and stores its mask (5 B), AV reads them (2 B).
constexpr double kScoreBytesForward = 13;

// Cross-entropy over the vocabulary per token, fp32: upcast, softmax, loss, forward + backward.
constexpr double kCrossEntropyBytesPerVocab = 60;

// Bus bandwidth a data-parallel group sees: in-node NVLink while it stays in one node, else its share of the
// node's NICs (all groups of a node share them), capped by NVLink.
double dp_busbw(const NodeFacts& node, const Calibration& cal, const Layout& l, int nodes) {
  double nvlink = node.gpu->link_bandwidth * cal.nvlink.value;
  if (nodes <= 1) return nvlink;
  int groups_per_node = std::min(node.gpus, l.t * l.p);
  double network = node.nic_bytes_per_s * cal.network.value / groups_per_node;
  return std::min(nvlink, network);
}

bool standard_attention(const LlmTraining& w) { return w.attention == "standard"; }

}  // namespace

std::string_view to_string(Recompute r) { return name_of(kRecomputeNames, r); }

double grad_bytes(const LlmTraining& w) { return w.optimizer == "adam-fp32-grads" ? 4 : 2; }

AdapterParams lora_params(const TransformerModel& m, const FineTune& ft) {
  AdapterParams a;
  double h = m.hidden, f = m.ffn_hidden, kv = m.mla() ? m.heads : m.kv_heads;
  double q_out = static_cast<double>(m.heads) * m.qk_head_dim(),
         o_in = static_cast<double>(m.heads) * m.v_dim();
  double ffns = m.moe() ? m.experts + m.shared_experts : 1;
  for (const auto& t : ft.targets) {
    double attention = t == "q"   ? h + q_out
                       : t == "k" ? h + kv * m.qk_head_dim()
                       : t == "v" ? h + kv * m.v_dim()
                       : t == "o" ? o_in + h
                                  : 0;
    double ffn = (t == "gate" && m.gated_ffn) || t == "up" || t == "down" ? h + f : 0;
    a.total += ft.rank * m.layers * (attention + ffns * ffn);
    a.active += ft.rank * m.layers * (attention + m.ffns_per_token() * ffn);
  }
  return a;
}

double trainable_share(const TransformerModel& m, const FineTune& ft) {
  return ft.lora() ? lora_params(m, ft).total / m.params : 1;
}

GemmCost training_flops_per_token(const TransformerModel& m, int seq_len, const FineTune& ft) {
  double matrix_params = m.active_params - static_cast<double>(m.vocab) * m.hidden;
  // Attention: 3 x the forward's QK^T and AV against the whole sequence, 2 L a (d_qk + d_v) s (12 L h s
  // when the heads are hidden / heads wide); it has no weights, so a frozen base still runs all three.
  double attention = 3 * m.attention_flops_per_context_token() * seq_len;
  if (!ft.lora()) return {6 * matrix_params, attention, 6.0 * m.vocab * m.hidden};
  // Frozen weights skip their weight-gradient GEMMs: forward 2 + input gradient 2 FLOPs per weight.
  double adapters = 6 * lora_params(m, ft).active;
  return {4 * matrix_params + adapters, attention, 4.0 * m.vocab * m.hidden,
          (4 * matrix_params + adapters) / (2 * matrix_params + adapters / 3)};
}

std::vector<GemmShape> training_gemm_shapes(const TransformerModel& m, int tokens, int t) {
  double M = tokens, h = m.hidden, f = m.ffn_hidden;
  // Attention projections as one GEMM of the layer's attention parameters less O (a d_v x h): the fused QKV
  // (MLA: its down and up projections, summed).
  double attn_out = static_cast<double>(m.heads) * m.v_dim();
  double qkv = m.attention_params() / h - attn_out;
  double ffn_rows = m.moe() ? std::max(1.0, M * m.top_k / m.experts) : M;  // an expert's share of the tokens
  return {{M, qkv / t, h},
          {M, h, attn_out / t},
          {ffn_rows, (m.gated_ffn ? 2 : 1) * f / t, h},
          {ffn_rows, h, f / t},
          {M, static_cast<double>(m.vocab) / t, h}};
}

GemmRates gemm_rates(const GpuSpec& gpu, std::string_view precision, const Calibration& cal) {
  std::string prec(precision);
  return {gpu.peak_for(peak_precision(prec)).value_or(0), cal.gemm.value,
          gpu.memory_bandwidth * cal.hbm.value,           bytes_per_element(prec),
          std::max(2.0, bytes_per_element(prec)),         cal.gemm.source == Source::assumed ? gpu.sms : 0};
}

GemmShapeModel gemm_shape_efficiency(const NamedGemm& g, const GemmRates& r) {
  const double m = g.shape[0], n = g.shape[1], k = g.shape[2];
  double launches = g.group * g.count;
  GemmShapeModel x{g};
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
  double flops = 0, time = 0, compute = 0;
  for (const auto& g : gemms) {
    p.classes.push_back(gemm_shape_efficiency(g, r));
    const auto& c = p.classes.back();
    flops += c.flops;
    time += c.time_s();
    compute += c.compute_s + c.reduction_s;
  }
  p.eta = flops / (r.peak * time);
  p.eta_compute = flops / (r.peak * compute);
  return p;
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
    out += fmt::format("{}-bound, eta {:.3f}", c.memory_bound() ? "memory" : "compute", c.eta);
  }
  return out;
}

std::string gemm_probe_command(const GemmPhase& p, std::string_view precision) {
  auto up16 = [](double d) { return static_cast<long long>(std::ceil(d / 16) * 16); };
  std::vector<std::string> shapes;
  for (const auto& c : p.classes) {
    auto [m, n, k] = c.gemm.shape;
    std::string s = fmt::format("{}x{}x{}", up16(m), up16(n), up16(k));
    if (std::find(shapes.begin(), shapes.end(), s) == shapes.end()) shapes.push_back(s);
  }
  return fmt::format("mlbench gemm --precisions {} --shapes {}", precision, fmt::join(shapes, ","));
}

std::vector<NamedGemm> layer_gemms(const TransformerModel& m, double rows, int t, int ep, bool backward) {
  double M = rows, h = m.hidden, f = m.ffn_hidden, up = (m.gated_ffn ? 2 : 1) * f / t, L = m.layers;
  double qkv = h + 2.0 * m.kv_heads * m.head_dim();
  std::vector<NamedGemm> out{{"QKV", {M, qkv / t, h}, 1, L}, {"O", {M, h, h / t}, 1, L}};
  if (!m.moe()) {
    out.push_back({"FFN up", {M, up, h}, 1, L});
    out.push_back({"FFN down", {M, h, f / t}, 1, L});
  } else {
    if (m.shared_experts > 0) {
      double shared = m.shared_experts;
      out.push_back({"shared FFN up", {M, up, h}, shared, L});
      out.push_back({"shared FFN down", {M, h, f / t}, shared, L});
    }
    // Expert parallelism brings the routed tokens of ep ranks to this GPU's E / ep experts.
    double E = m.experts, tokens = M * ep, touched = E * (1 - std::pow(1 - m.top_k / E, tokens));
    double expert_rows = std::max(1.0, tokens * m.top_k / touched);
    double group = std::max(1.0, touched / ep);
    out.push_back({"experts up", {expert_rows, up, h}, group, L});
    out.push_back({"experts down", {expert_rows, h, f / t}, group, L});
    out.push_back({"router", {M, E, h}, 1, L});
  }
  out.push_back({"logits", {M, static_cast<double>(m.vocab) / t, h}});
  if (backward) {
    std::size_t forward = out.size();
    for (std::size_t i = 0; i < forward; ++i) {
      const NamedGemm g = out[i];
      auto [gm, gn, gk] = g.shape;
      out.push_back({g.name, {gm, gk, gn}, g.group, g.count, GemmPass::dgrad});
      out.push_back({g.name, {gn, gk, gm}, g.group, g.count, GemmPass::wgrad});
    }
  }
  return out;
}

std::string Layout::describe() const {
  return fmt::format("TP {} x PP {} x DP {}{}{}, {}ZeRO-{}, micro-batch {}, recompute {}", t, p, d,
                     c > 1 ? fmt::format(" x CP {}", c) : "", e > 1 ? fmt::format(" (EP {})", e) : "",
                     v > 1 ? fmt::format("interleaved v {}, ", v) : "", zero, micro_batch,
                     to_string(recompute));
}

namespace {

// How a term prints on the sheet: its label and its value in the unit of the line.
auto bytes_shown(const char* label) {
  return [label](double v) { return fmt::format("{} {}", label, format_bytes(v)); };
}
auto seconds_shown(const char* label, int decimals = 3) {
  return [label, decimals](double v) { return fmt::format("{} {:.{}f} s", label, v, decimals); };
}
auto fraction_shown(const char* label) {
  return [label](double v) { return fmt::format("{} {:.3f}", label, v); };
}
auto count_shown(const char* label) {
  return [label](double v) { return fmt::format("{} {:.0f}", label, v); };
}
auto flops_shown(const char* label) {
  return [label](double v) { return fmt::format("{} {:.3g} FLOP", label, v); };
}

}  // namespace

template <typename Num>
Num memory_total(const MemoryBreakdown& b) {
  return named<Num>("weights", b.weights, bytes_shown("weights")) +
         named<Num>("gradients", b.gradients, bytes_shown("gradients")) +
         named<Num>("optimizer", b.optimizer, bytes_shown("optimizer")) +
         named<Num>("activations", b.activations, bytes_shown("activations")) +
         named<Num>("cuda_context", b.cuda_context, bytes_shown("CUDA context")) +
         named<Num>("workspace", b.workspace, bytes_shown("cuBLAS workspace")) +
         named<Num>("nccl", b.nccl,
                    [&b](double v) {
                      return fmt::format("NCCL {} communicator{} {}", b.communicators,
                                         b.communicators == 1 ? "" : "s", format_bytes(v));
                    }) +
         named<Num>("fragmentation", b.fragmentation, bytes_shown("fragmentation"));
}
template double memory_total<double>(const MemoryBreakdown&);
template Formula memory_total<Formula>(const MemoryBreakdown&);

double MemoryBreakdown::total() const { return memory_total<double>(*this); }

std::string MemoryBreakdown::describe() const {
  return fmt::format("{} = {}", memory_total<Formula>(*this).shown(), format_bytes(total()));
}

ParamSplit params_per_gpu(const TransformerModel& m, const Layout& l) {
  double expert = std::min(m.params, m.expert_params());
  return {(m.params - expert) / (l.t * l.p), expert / (static_cast<double>(l.t) * l.p * l.e)};
}

double layer_activation_bytes(const TransformerModel& m, const LlmTraining& w, const Layout& l) {
  double s = static_cast<double>(w.seq_len) / l.c, b = l.micro_batch, h = m.hidden, t = l.t;
  bool sp = w.sequence_parallel;
  if (l.recompute == Recompute::full) return 2 * s * b * h / (sp ? t : 1);
  double per_layer = s * b * h * (sp ? 34 / t : 10 + 24 / t);
  if (m.moe()) {
    double ffn = m.ffns_per_token() * (m.gated_ffn ? 3 : 2) * 2.0 * m.ffn_hidden;  // bytes per token
    per_layer += s * b * (ffn - 16 * h + 2.0 * (m.top_k - 1) * h) / t;
  }
  // Scores of this rank's s queries against the whole sequence's keys.
  if (standard_attention(w) && l.recompute == Recompute::none)
    per_layer += 5.0 * m.heads * s * w.seq_len * b / t;
  return per_layer;
}

MemoryBreakdown training_memory(const TransformerModel& m, const LlmTraining& w, const Layout& l) {
  MemoryBreakdown b;
  ParamSplit params = params_per_gpu(m, l);
  // Ranks holding the same weights: data x context parallel for the dense part, that / e for the experts.
  double shards = static_cast<double>(l.d) * l.c;
  auto held = [&](double bytes_per_param, int from_stage) {
    bool sharded = l.zero >= from_stage;
    return bytes_per_param *
           (params.dense / (sharded ? shards : 1) + params.expert / (sharded ? shards / l.e : 1));
  };
  // LoRA: the frozen base holds its 16-bit weights only; the adapters (the trainable share, sharded as the
  // base) hold weights, gradients and optimizer state.
  double trainable = trainable_share(m, w.finetune);
  // DualPipe feeds micro-batches from both ends of the pipeline, so each GPU holds two stages' parameters
  // and PP + 1 micro-batches in flight (DeepSeek-V3 report, Table 2).
  bool dualpipe = w.schedule == "dualpipe" && l.p > 1;
  b.weights = held(2, 3) * (w.finetune.lora() ? 1 + trainable : 1) * (dualpipe ? 2 : 1);
  b.gradients = held(grad_bytes(w), 2) * trainable;
  b.optimizer = held(12, 1) * trainable;
  double micro_batches = w.global_batch_tokens / (static_cast<double>(l.d) * l.micro_batch * w.seq_len);
  // 1F1B keeps min(p, m) micro-batches of L/p layers in flight on the first stage; the interleaved
  // schedule x (1 + (p - 1) / (p v)) (Korthikanti et al.).
  double interleave = l.v > 1 ? 1 + (l.p - 1.0) / (l.p * l.v) : 1;
  double in_flight = m.layers / static_cast<double>(l.p) *
                     std::min<double>(l.p + (dualpipe ? 1 : 0), std::ceil(micro_batches));
  b.activations = in_flight * layer_activation_bytes(m, w, l) * interleave;
  if (l.recompute == Recompute::full) {  // the layer being recomputed holds its whole activations
    Layout whole = l;
    whole.recompute = Recompute::none;
    b.activations += layer_activation_bytes(m, w, whole);
  }
  b.activations += static_cast<double>(w.seq_len) / l.c * l.micro_batch * m.vocab * 4.0 / l.t;  // fp32 logits
  b.cuda_context = assumption::kCudaContext.value;
  b.workspace = assumption::kCublasWorkspace.value;
  b.communicators = (l.t > 1) + (l.p > 1) + (static_cast<long long>(l.d) * l.c > 1) + (l.c > 1) + (l.e > 1);
  b.nccl = b.communicators * assumption::kNcclCommunicator.value;
  b.fragmentation =
      assumption::kFragmentation.value * (b.weights + b.gradients + b.optimizer + b.activations);
  return b;
}

double pipeline_bubble(int p, int v, double micro_batches) { return (p - 1) / (v * micro_batches); }

double dualpipe_bubble(int p, double micro_batches) {
  // DeepSeek-V3 report, Table 2: (p/2 - 1)(F&B + B - 3W) against 1F1B's (p - 1)(F + B), with the overlapped
  // F&B as long as F + B, the full backward B = 2F and its weight part W = F (2 FLOPs per weight each):
  // 2 (p/2 - 1) F over the m micro-batches' 3 m F.
  return 2 * (p / 2.0 - 1) / (3 * micro_batches);
}

bool runnable(const Layout& l, double sequences) {
  double per_step = static_cast<double>(l.micro_batch) * l.d;
  if (sequences != std::floor(sequences) || std::fmod(sequences, per_step) != 0) return false;
  double micro_batches = sequences / per_step;
  return l.v <= 1 || std::fmod(micro_batches, l.p) == 0;
}

double runnable_batch_tokens(const LlmTraining& w) {
  const LayoutSpec& f = w.layout;
  double granule = static_cast<double>(f.micro_batch.value_or(1)) * f.dp.value_or(1) *
                   (f.vp && *f.vp > 1 && f.pp ? *f.pp : 1);
  double sequences = std::max(1.0, std::round(w.global_batch_tokens / w.seq_len / granule)) * granule;
  return sequences * w.seq_len;
}

int virtual_stages(int layers, int p) { return p > 1 ? std::max(1, layers / p) : 1; }

namespace {

std::vector<int> powers_of_two_upto(int limit) {
  std::vector<int> out;
  for (int x = 1; x <= limit; x *= 2) out.push_back(x);
  return out;
}

// The candidate layouts of choose_layout, in tie-break order.
std::vector<Layout> layout_candidates(const TransformerModel& m, const LlmTraining& w, const NodeFacts& node,
                                      int gpus) {
  const LayoutSpec& fix = w.layout;
  std::vector<Recompute> modes;
  if (w.recompute == "auto")
    modes = {Recompute::none, Recompute::selective, Recompute::full};
  else
    modes = {w.recompute == "full"        ? Recompute::full
             : w.recompute == "selective" ? Recompute::selective
                                          : Recompute::none};
  // Selective recomputation only drops the score tensors; flash attention never stores them.
  if (w.recompute == "auto" && !standard_attention(w)) modes.erase(modes.begin() + 1);
  std::vector<int> mbs = fix.micro_batch ? std::vector<int>{*fix.micro_batch} : std::vector<int>{1, 2, 4, 8};
  std::vector<int> ts, ps, cs;
  if (fix.tp)
    ts = {*fix.tp};
  else
    for (int t : powers_of_two_upto(node.domain))
      if (m.heads % t == 0) ts.push_back(t);
  ps = fix.pp ? std::vector<int>{*fix.pp} : powers_of_two_upto(m.layers);
  if (fix.cp)
    cs = {*fix.cp};
  else
    for (int c : powers_of_two_upto(w.seq_len / 4096))
      if (w.seq_len % c == 0) cs.push_back(c);
  if (cs.empty()) cs = {1};
  std::vector<int> es{1};  // expert parallelism: divisors of the experts that also divide d (below)
  if (fix.ep)
    es = {*fix.ep};
  else if (m.moe())
    for (int e : powers_of_two_upto(m.experts))
      if (e > 1 && m.experts % e == 0) es.push_back(e);
  std::vector<std::pair<int, int>> tp_pairs;  // (t, p) by t p, then the larger t (NVLink before pipeline)
  for (int t : ts)
    for (int p : ps) tp_pairs.push_back({t, p});
  std::stable_sort(tp_pairs.begin(), tp_pairs.end(), [](const auto& a, const auto& b) {
    return a.first * a.second != b.first * b.second ? a.first * a.second < b.first * b.second
                                                    : a.first > b.first;
  });
  double sequences = w.global_batch_tokens / w.seq_len;
  std::vector<Layout> out;
  for (auto mode : modes)
    for (int mb : mbs)
      for (int c : cs)
        for (const auto& tp : tp_pairs) {
          const int t = tp.first, p = tp.second;
          long long wide = static_cast<long long>(t) * p * c;  // fixed degrees can be large: no int overflow
          if (wide > gpus) continue;
          if (w.schedule == "dualpipe" && p % 2 != 0 && p > 1) continue;  // two directions of p / 2 stages
          int model_gpus = static_cast<int>(wide);
          // More replicas than micro-batches in a step have nothing to compute: those GPUs idle.
          int d_max =
              fix.dp ? *fix.dp : static_cast<int>(std::min<double>(gpus / model_gpus, sequences / mb));
          if (d_max < 1 || static_cast<long long>(d_max) * model_gpus > gpus) continue;
          // The most replicas (a multiple of e) that split the batch the way Megatron-LM runs it; fewer
          // leave GPUs idle, which the planner reports.
          auto replicas = [&](int e, int v) {
            for (int d = d_max; d >= 1 && (!fix.dp || d == *fix.dp); --d)
              if (d % e == 0 && runnable(Layout{t, p, d, 0, mode, v, mb, c, e}, sequences)) return d;
            return 0;
          };
          std::vector<int> vs{1};
          if (w.schedule == "interleaved" && p > 1) {
            int vmax = virtual_stages(m.layers, p);
            if (fix.vp)
              vs = {*fix.vp};
            else
              for (int v = 2; v <= vmax; ++v)
                if (vmax % v == 0) vs.push_back(v);
          }
          for (int e : es) {
            std::vector<int> ds;
            for (int v : vs) ds.push_back(replicas(e, v));
            for (int zero = 0; zero <= 3; ++zero)
              for (std::size_t i = 0; i < vs.size(); ++i)
                if (ds[i]) out.push_back({t, p, ds[i], zero, mode, vs[i], mb, c, e});
          }
        }
  return out;
}

}  // namespace

LayoutChoice choose_layout(const TransformerModel& m, const LlmTraining& w, const NodeFacts& node,
                           const Calibration& cal, int gpus) {
  LayoutChoice out;
  double limit = node.gpu->memory_bytes;
  auto candidates = layout_candidates(m, w, node, gpus);
  std::vector<std::pair<std::array<int, 4>, GemmPhase>> phases;
  std::vector<RankedLayout> fitting;
  MemoryBreakdown best_memory;
  for (const auto& c : candidates) {
    auto mem = training_memory(m, w, c);
    if (mem.total() > limit) {
      if (fitting.empty()) {
        out.most_sharded = c;
        out.memory = mem;
      }
      continue;
    }
    // The GEMM phase depends on the micro-batch's rows and the t and e splits only.
    auto key = std::array{c.micro_batch, c.c, c.t, c.e};
    auto phase = std::find_if(phases.begin(), phases.end(), [&](const auto& p) { return p.first == key; });
    if (phase == phases.end())
      phase = phases.insert(phases.end(), {key, training_gemm_phase(m, w, *node.gpu, cal, c)});
    double step = training_step(m, w, node, cal, c, &phase->second).step_s;
    // Strictly faster only, so equal step times keep the earlier candidate (the tie-break order).
    if (fitting.empty() || step < fitting.front().step_s) best_memory = mem;
    // One entry per layout shape: ZeRO stages of the same shape differ by little, the best one stands.
    auto same_shape = [&](const RankedLayout& r) {
      Layout a = r.layout;
      a.zero = c.zero;
      return a.t == c.t && a.p == c.p && a.d == c.d && a.c == c.c && a.e == c.e && a.v == c.v &&
             a.micro_batch == c.micro_batch && a.recompute == c.recompute;
    };
    ++out.fitting;
    if (auto it = std::find_if(fitting.begin(), fitting.end(), same_shape); it != fitting.end()) {
      if (step < it->step_s) *it = {c, step};
    } else {
      fitting.push_back({c, step});
    }
    std::stable_sort(fitting.begin(), fitting.end(),
                     [](const auto& a, const auto& b) { return a.step_s < b.step_s; });
    if (fitting.size() > 3) fitting.pop_back();
  }
  if (!fitting.empty()) {
    out.layout = fitting.front().layout;
    out.memory = best_memory;
    out.compared = fitting;
    return out;
  }
  out.why_not = candidates.empty()
                    ? fmt::format(
                          "{} GPUs allow no tensor/pipeline/context split of {} heads, {} layers and {} "
                          "tokens with the layout given",
                          gpus, m.heads, m.layers, w.seq_len)
                    : fmt::format("nothing fits the {} HBM; the most sharded layout tried ({}) needs {}",
                                  format_bytes(limit), out.most_sharded.describe(), out.memory.describe());
  return out;
}

GemmPhase training_gemm_phase(const TransformerModel& m, const LlmTraining& w, const GpuSpec& gpu,
                              const Calibration& cal, const Layout& l) {
  return gemm_phase(layer_gemms(m, static_cast<double>(l.micro_batch) * w.seq_len / l.c, l.t, l.e, true),
                    gemm_rates(gpu, w.precision, cal));
}

TrainingStep training_step(const TransformerModel& m, const LlmTraining& w, const NodeFacts& node,
                           const Calibration& cal, const Layout& l, const GemmPhase* gemm) {
  TrainingStep st;
  st.layout = l;
  st.memory = training_memory(m, w, l);
  const GpuSpec& gpu = *node.gpu;
  int gpus = l.gpus();
  int nodes = std::max(1, gpus / node.gpus);
  double peak = gpu.peak_for(peak_precision(w.precision)).value_or(0);
  double tokens_gpu = w.global_batch_tokens / gpus;  // tokens one GPU computes per step
  auto flops = training_flops_per_token(m, w.seq_len, w.finetune);
  double trainable = trainable_share(m, w.finetune);
  double eta = cal.gemm.value * assumption::kTrainingGemmDerate.value;
  bool standard = standard_attention(w);
  // The GEMMs at the micro-batch's shapes, their efficiency weighted by their FLOPs.
  st.gemm = gemm ? *gemm : training_gemm_phase(m, w, gpu, cal, l);
  st.t_gemm = tokens_gpu * flops.gemm / (peak * st.gemm.eta * assumption::kTrainingGemmDerate.value);
  // Causal flash attention computes half of the full-sequence FLOPs the model counts, in its own kernels;
  // standard attention runs the whole s x s products as batched GEMMs and masks afterwards.
  st.t_attention =
      standard ? tokens_gpu * flops.attention / (peak * eta)
               : tokens_gpu * flops.attention * 0.5 / (peak * eta * assumption::kAttentionRelative.value);
  // Recomputation redoes forwards (a third of forward + backward, a half of a frozen GEMM's): full, every
  // layer's (not the output layer's); selective, the attention core's, which flash attention's backward
  // already redoes inside its kernel time.
  double recompute_flops = 0;
  if (l.recompute == Recompute::full) {
    st.t_recompute =
        st.t_gemm * (flops.gemm - flops.logits) / flops.gemm / flops.gemm_passes + st.t_attention / 3;
    recompute_flops = tokens_gpu * ((flops.gemm - flops.logits) / flops.gemm_passes + flops.attention / 3);
  } else if (l.recompute == Recompute::selective && standard) {
    st.t_recompute = st.t_attention / 3;
    recompute_flops = tokens_gpu * flops.attention / 3;
  }
  double hbm = gpu.memory_bandwidth * cal.hbm.value;
  st.micro_batches = w.global_batch_tokens / (l.d * l.micro_batch * static_cast<double>(w.seq_len));
  double layer_mbs = m.layers / static_cast<double>(l.p) * st.micro_batches;  // layer passes per GPU
  ParamSplit split = params_per_gpu(m, l);
  double params_gpu = split.total();
  // Elementwise traffic: forward, twice that backward, and the forward again under full recomputation.
  // Per GPU: its replica's tokens over L/p layers and its share of the TP group = tokens_gpu x L x t.
  double passes = l.recompute == Recompute::full ? 4 : 3;
  double bytes =
      passes * tokens_gpu * l.t * m.layers * nongemm_bytes_per_token_layer(m, l.t, w.sequence_parallel);
  if (standard) {
    double scores = static_cast<double>(m.heads) * w.seq_len / l.c * w.seq_len * l.micro_batch / l.t;
    double score_passes = 3 + (l.recompute == Recompute::none ? 0 : 1);
    bytes += layer_mbs * scores * kScoreBytesForward * score_passes;
  }
  // The cross-entropy, gradient accumulation per micro-batch, the optimizer step over this rank's shard.
  bytes += tokens_gpu * kCrossEntropyBytesPerVocab * m.vocab / (l.t * l.p);
  bytes += st.micro_batches * params_gpu * trainable * 3 * grad_bytes(w);
  double dp_ranks = static_cast<double>(l.d) * l.c;  // gradients are reduced over data and context ranks
  double optimizer_params =
      l.zero >= 1 ? split.dense / dp_ranks + split.expert / (dp_ranks / l.e) : params_gpu;
  bytes += optimizer_params * trainable * (26 + grad_bytes(w));
  st.t_nongemm = bytes / hbm;
  double t_compute = st.t_gemm + st.t_attention + st.t_recompute;
  st.virtual_stages = l.v;
  bool dualpipe = w.schedule == "dualpipe" && l.p > 1;  // without a pipeline there is nothing to pair
  st.bubble = dualpipe ? dualpipe_bubble(l.p, st.micro_batches) : pipeline_bubble(l.p, l.v, st.micro_batches);

  double latency = assumption::kCollectiveLatency.value;
  double tokens_mb = static_cast<double>(l.micro_batch) * w.seq_len / l.c;  // per GPU per micro-batch
  double per_gpu_nic = node.nic_bytes_per_s * cal.network.value / node.gpus;
  double nvlink = gpu.link_bandwidth * cal.nvlink.value;
  st.tp_busbw = nvlink;
  if (l.t > 1) {
    // All-reduce equivalents of b s h per layer and micro-batch: 2 forward, 2 backward; the recomputed
    // forward repeats its 2; sequence parallelism (all-gather + reduce-scatter, the same volume) gathers
    // the two column-parallel inputs again in the backward instead of storing them: one more.
    double reductions = 4 + (l.recompute == Recompute::full ? 2 : w.sequence_parallel ? 1 : 0);
    st.tp_calls = reductions * (w.sequence_parallel ? 2 : 1);
    double elements = reductions * 2 * tokens_mb * m.hidden * (l.t - 1) / l.t;
    st.t_tp = layer_mbs * (elements * kActivationBytes / st.tp_busbw + st.tp_calls * latency);
    // Megatron-LM overlaps the backward's collectives of the column-parallel linears (QKV, FC1) with their
    // own GEMMs (tensor_parallel/layers.py, LinearWithGradAccumulationAndAsyncCommunication; on by default,
    // --no-async-tensor-model-parallel-allreduce turns it off): the input gradient's all-reduce (its
    // reduce-scatter under sequence parallelism) runs during the weight-gradient GEMM, and the
    // sequence-parallel re-gather of the input during the input-gradient GEMM. That is 2 of the reductions
    // above (1 under full recomputation with sequence parallelism, which re-gathers nothing); the forward's
    // and the row-parallel backward's stay exposed. Hidden as overlapped data-parallel traffic is, within the
    // backward's GEMM time.
    st.tp_overlapped_reductions = w.sequence_parallel && l.recompute == Recompute::full ? 1 : 2;
    double overlapped = std::min(st.t_tp * st.tp_overlapped_reductions / reductions, (2.0 / 3.0) * st.t_gemm);
    st.t_tp_exposed = st.t_tp - assumption::kOverlapHidden.value * overlapped;
  }
  if (m.moe() && l.e > 1) {
    // Expert parallelism: each MoE layer sends this GPU's tokens' k routed copies to the experts' ranks and
    // back (dispatch, combine) in the forward, their gradients in the backward (4 all-to-alls; 6 with the
    // recomputed forward); (e - 1)/e of each leaves the GPU. The group is t c e consecutive ranks: NVLink
    // while it stays in the domain, else this GPU's share of the fabric. Tokens per GPU: the TP group's
    // split of the micro-batch with sequence parallelism, all of it without.
    st.ep_in_domain = l.t * l.c * l.e <= node.domain;
    st.ep_busbw = st.ep_in_domain ? gpu.link_bandwidth * cal.alltoall_nvlink.value
                                  : node.nic_bytes_per_s * cal.alltoall_network.value / node.gpus;
    double tokens = tokens_mb / (w.sequence_parallel ? l.t : 1);
    // Node-limited routing sends a token once to each node its experts are on, at most group_top_k groups'
    // nodes (DeepSeek-V3 report, section 3.2.2: IB to each target node, then NVLink to the experts there);
    // within the NVLink domain each routed copy goes to its expert's GPU.
    st.ep_copies = m.top_k;
    if (!st.ep_in_domain && m.expert_groups > 0) {
      double ep_nodes = std::ceil(static_cast<double>(l.t) * l.c * l.e / node.domain);
      st.ep_copies =
          std::min({st.ep_copies, ep_nodes,
                    m.group_top_k * std::max(1.0, ep_nodes / static_cast<double>(m.expert_groups))});
    }
    double size = tokens * st.ep_copies * m.hidden * (l.e - 1) / l.e;
    // Bytes per element of each all-to-all: the forward's dispatch (and its recomputation) in the dispatch
    // precision, the combine and the backward's two gradient all-to-alls in 16 bits.
    double dispatch = w.ep_dispatch == "fp8" ? 1 : kActivationBytes;
    double forwards = l.recompute == Recompute::full ? 2 : 1;
    double calls = 2 * forwards + 2;
    st.t_ep =
        layer_mbs * (size * (forwards * (dispatch + kActivationBytes) + 2 * kActivationBytes) / st.ep_busbw +
                     calls * latency);
    st.t_ep_exposed = st.t_ep;
  }
  if (l.c > 1) {
    // Ring attention: c - 1 exchanges of this rank's K and V per layer forward; the backward sends K, V
    // and their gradients (2x). Hidden behind the chunk's attention compute where that lasts longer.
    st.cp_busbw = l.t * l.c <= node.domain ? nvlink : per_gpu_nic;
    // The K and V each rank passes on: kv_heads (MLA: every head's, rebuilt from the latent) x d_qk + d_v.
    double kv_width = (m.mla() ? m.heads : m.kv_heads) * static_cast<double>(m.qk_head_dim() + m.v_dim());
    double kv = tokens_mb * kv_width * kActivationBytes / l.t;
    double per_layer = 3 * (l.c - 1) * (kv / st.cp_busbw + latency);
    double attention_per_layer =
        (st.t_attention + (l.recompute == Recompute::none ? 0 : st.t_recompute)) / layer_mbs;
    st.t_cp = layer_mbs * per_layer;
    st.t_cp_exposed = layer_mbs * std::max(0.0, per_layer - attention_per_layer);
  }
  if (l.p > 1) {
    double bytes_mb = tokens_mb * m.hidden * kActivationBytes / l.t;
    st.t_pp = 2 * st.micro_batches * l.v * (bytes_mb / per_gpu_nic + latency);
  }
  if (dp_ranks > 1) {
    st.dp_busbw = dp_busbw(node, cal, l, nodes);
    // Each parameter's gradient is reduced over the ranks holding it: the dense ones over dp x cp, the
    // routed experts' over dp x cp / e; in the precision the optimizer keeps gradients in (grad_bytes).
    auto reduce = [&](double params, double ranks) {
      return ranks > 1 && params > 0 ? params * grad_bytes(w) * 2 * (ranks - 1) / ranks / st.dp_busbw +
                                           latency * 2 * std::log2(ranks)
                                     : 0.0;
    };
    double all_reduce =
        reduce(split.dense * trainable, dp_ranks) + reduce(split.expert * trainable, dp_ranks / l.e);
    // ZeRO 0-2: one gradient all-reduce per step, final only in the last micro-batch's backward (2/3 of its
    // compute), so it overlaps there. ZeRO-3/FSDP: weight all-gathers and gradient reduce-scatters, ~1.5x the
    // all-reduce volume, in every micro-batch, overlapping the whole forward and backward.
    st.t_dp = l.zero >= 3 ? assumption::kZero3Traffic.value * all_reduce * st.micro_batches : all_reduce;
    double window = l.zero >= 3 ? t_compute : (2.0 / 3.0) * t_compute / st.micro_batches;
    double overlapped = std::min(st.t_dp, window);
    st.t_dp_exposed = (st.t_dp - overlapped) + (1 - assumption::kOverlapHidden.value) * overlapped;
  }
  if (dualpipe && st.t_ep > 0) {
    // DualPipe pairs one micro-batch's forward chunk with another's backward chunk and runs each one's
    // all-to-all under the other's computation (DeepSeek-V3 report, section 3.2.1): hidden as other
    // overlapped traffic, up to the step's compute.
    double overlapped = std::min(st.t_ep, t_compute + st.t_nongemm);
    st.t_ep_exposed = st.t_ep - assumption::kOverlapHidden.value * overlapped;
  }
  double t_comm = st.t_tp_exposed + st.t_ep_exposed + st.t_pp + st.t_cp_exposed + st.t_dp_exposed;
  st.step_s = step_time<double>(st);
  double model_flops = tokens_gpu * flops.total();
  st.eta_compute = model_flops / (peak * t_compute);
  st.nongemm_share = st.t_nongemm / (t_compute + st.t_nongemm);
  st.comm_share = t_comm / st.step_s;
  st.mfu = model_flops_utilisation<double>(st);
  st.hfu = (model_flops + recompute_flops) / (peak * st.step_s);
  st.tokens_per_s = w.global_batch_tokens / st.step_s;
  return st;
}

template <typename Num>
Num step_time(const TrainingStep& st) {
  const Layout& l = st.layout;
  Num compute = named<Num>("t_gemm", st.t_gemm, seconds_shown("GEMM")) +
                named<Num>("t_attention", st.t_attention, seconds_shown("attention"));
  if (l.recompute != Recompute::none)
    compute = compute + named<Num>("t_recompute", st.t_recompute, seconds_shown("recompute"));
  Num pipe = compute + named<Num>("t_nongemm", st.t_nongemm, seconds_shown("non-GEMM"));
  if (l.p > 1) pipe = pipe * (1 + named<Num>("bubble", st.bubble, fraction_shown("bubble")));
  std::optional<Num> comm;
  auto add = [&](Num t) { comm = comm ? *comm + t : t; };
  if (l.t > 1) add(named<Num>("t_tp_exposed", st.t_tp_exposed, seconds_shown("TP exposed")));
  if (l.e > 1) add(named<Num>("t_ep_exposed", st.t_ep_exposed, seconds_shown("EP exposed")));
  if (l.p > 1) add(named<Num>("t_pp", st.t_pp, seconds_shown("PP sends")));
  if (l.c > 1) add(named<Num>("t_cp_exposed", st.t_cp_exposed, seconds_shown("CP exposed")));
  if (l.d * l.c > 1) add(named<Num>("t_dp_exposed", st.t_dp_exposed, seconds_shown("DP exposed")));
  return comm ? pipe + *comm : pipe;
}
template double step_time<double>(const TrainingStep&);
template Formula step_time<Formula>(const TrainingStep&);

template <typename Num>
Num model_flops_utilisation(const TrainingStep& st) {
  return named<Num>("eta_compute", st.eta_compute, fraction_shown("eta_compute")) *
         (1 - named<Num>("nongemm_share", st.nongemm_share, fraction_shown("non-GEMM"))) /
         (1 + named<Num>("bubble", st.bubble, fraction_shown("bubble"))) *
         (1 - named<Num>("comm_share", st.comm_share, fraction_shown("exposed comm")));
}
template double model_flops_utilisation<double>(const TrainingStep&);
template Formula model_flops_utilisation<Formula>(const TrainingStep&);

CvStep cv_step(const CvTraining& w, const NodeFacts& node, const Calibration& cal, int gpus) {
  CvStep st;
  double peak = node.gpu->peak_for(peak_precision(w.precision)).value_or(0);
  double compute = st.batch_per_gpu * 3 * w.flops_per_image / (peak * cal.conv.value);
  if (gpus > 1) {
    Layout l{1, 1, gpus};
    double busbw = dp_busbw(node, cal, l, std::max(1, gpus / node.gpus));
    st.t_dp = w.params * 4 * 2 * (gpus - 1) / gpus / busbw +
              assumption::kCollectiveLatency.value * 2 * std::log2(gpus);
    double window = (2.0 / 3.0) * compute;
    double overlapped = std::min(st.t_dp, window);
    st.t_dp_exposed = (st.t_dp - overlapped) + (1 - assumption::kOverlapHidden.value) * overlapped;
  }
  st.step_s = compute + st.t_dp_exposed;
  st.comm_share = st.t_dp_exposed / st.step_s;
  st.flops_per_image = w.flops_per_image;
  st.peak = peak;
  st.eta = cal.conv.value;
  st.images_per_s_gpu = cv_images_per_s_gpu<double>(st);
  return st;
}

template <typename Num>
Num cv_images_per_s_gpu(const CvStep& st) {
  Num batch = named<Num>("batch", st.batch_per_gpu, count_shown("batch"));
  Num compute =
      3 * batch * named<Num>("flops_per_image", st.flops_per_image, flops_shown("per image")) /
      (named<Num>("peak", st.peak, [](double v) { return fmt::format("peak {:.0f} TFLOPS", v / 1e12); }) *
       named<Num>("eta_cnn", st.eta, fraction_shown("eta_CNN")));
  return batch / (compute + named<Num>("t_dp_exposed", st.t_dp_exposed, seconds_shown("exposed DP", 4)));
}
template double cv_images_per_s_gpu<double>(const CvStep&);
template Formula cv_images_per_s_gpu<Formula>(const CvStep&);

template <typename Num>
Num time_to_train(const char* work, double amount, const char* rate, double per_s, double goodput) {
  return named<Num>("work", amount, [work](double v) { return fmt::format("{} {:.7g}", work, v); }) /
         named<Num>("rate", per_s, [rate](double v) { return fmt::format("{} {:.7g}/s", rate, v); }) /
         named<Num>("goodput", goodput, [](double v) { return fmt::format("goodput {:.6g}", v); });
}
template double time_to_train<double>(const char*, double, const char*, double, double);
template Formula time_to_train<Formula>(const char*, double, const char*, double, double);

TrtllmBenchSettings trtllm_bench_settings(const LlmInference& w, const GpuSpec& gpu, int t) {
  const auto& tune = assumption::kTrtllmBenchTuning;
  const TransformerModel& m = w.model;
  double in = w.input_tokens, out = w.output_tokens;
  // Its KV bytes per token: every layer's K and V of max(t, kv_heads) heads (one per GPU at least).
  double kv_token =
      2.0 * m.layers * std::max(t, m.kv_heads) * m.head_dim() * bytes_per_element(w.kv_precision);
  double free = tune.kv_fraction * (gpu.memory_bytes * t - m.params * bytes_per_element(w.precision));
  double raw_bs = std::min(std::max(0.0, free) / (kv_token * (in + out)), tune.max_requests);
  double raw_tokens = std::min(raw_bs * (1 + in / out), tune.max_tokens);
  auto up = [](double v, double step) { return step * std::ceil(v / step); };
  TrtllmBenchSettings s;
  s.max_batch_size = raw_bs < 256    ? std::max(64.0, up(raw_bs, 32))
                     : raw_bs < 1024 ? up(raw_bs, 128)
                                     : up(raw_bs, 256);
  s.max_num_tokens = raw_tokens < 4096   ? std::max(2048.0, up(raw_tokens, 256))
                     : raw_tokens < 8192 ? up(raw_tokens, 512)
                                         : up(raw_tokens, 1024);
  return s;
}

ServingBudget serving_budget(const LlmInference& w, const GpuSpec& gpu, int t) {
  ServingBudget b;
  b.utilisation_given = w.gpu_memory_utilization.has_value() || w.free_gpu_memory_fraction.has_value();
  b.batched_tokens_given = w.max_num_batched_tokens.has_value();
  b.seqs_given = w.max_num_seqs.has_value();
  b.graphs_given = w.cuda_graph_bytes.has_value();
  if (w.engine == "trtllm") {
    b.trtllm = true;
    b.whole_sequences = w.capacity_scheduler_policy == "guaranteed_no_evict";
    const TrtllmBenchSettings bench = trtllm_bench_settings(w, gpu, t);
    b.utilisation = w.free_gpu_memory_fraction.value_or(assumption::kTrtllmFreeGpuMemoryFraction.value);
    b.max_num_batched_tokens = w.max_num_batched_tokens.value_or(bench.max_num_tokens);
    b.max_num_seqs = w.max_num_seqs.value_or(bench.max_batch_size);
    return b;
  }
  bool large = gpu.memory_bytes >= assumption::kVllmLargeGpuBytes &&
               !gpu.name.starts_with(assumption::kVllmSmallDefaultsGpu);
  const auto* d =
      std::find_if(std::begin(assumption::kVllmBatchDefaults), std::end(assumption::kVllmBatchDefaults),
                   [&](const auto& x) { return x.large_gpu == large && x.offline == w.offline; });
  b.utilisation = w.gpu_memory_utilization.value_or(assumption::kGpuMemoryUtilization.value);
  b.max_num_batched_tokens = w.max_num_batched_tokens.value_or(d->max_num_batched_tokens);
  b.max_num_seqs = w.max_num_seqs.value_or(d->max_num_seqs);
  b.cuda_graphs = w.cuda_graph_bytes.value_or(assumption::kCudaGraphs.value);
  return b;
}

// vLLM's fused MoE (fused_moe.py, fused_experts_impl) runs the batch in chunks of VLLM_FUSED_MOE_CHUNK_SIZE
// tokens (vllm/envs.py default 16 x 1024) and, per routed copy of a token, holds the gate/up output (2 f / t)
// and the down output (h) in one shared buffer (intermediate_cache13, the larger of the two) and the
// activated f / t apart (intermediate_cache2), in the activations' 16 bits.
constexpr double kFusedMoeChunkTokens = 16 * 1024;

double profile_activation_peak(const TransformerModel& m, double tokens, double seqs, int t) {
  double up = (m.gated_ffn ? 2.0 : 1.0) * m.ffn_hidden / t, down_in = static_cast<double>(m.ffn_hidden) / t;
  if (!m.moe()) return tokens * (2.0 * m.hidden + up + down_in) * 2 + seqs * m.vocab * 4.0;
  double shared = m.shared_experts * (up + down_in);
  double routed = m.top_k * (std::max(up, static_cast<double>(m.hidden)) + down_in);
  return (tokens * (2.0 * m.hidden + shared) + std::min(tokens, kFusedMoeChunkTokens) * routed) * 2 +
         seqs * m.vocab * 4.0;
}

template <typename Num>
Num kv_cache_per_gpu(const KvCapacity& k) {
  if (k.of_free)
    return (named<Num>("hbm", k.hbm, bytes_shown("HBM")) -
            named<Num>("weights", k.weights, bytes_shown("weights")) -
            named<Num>("activation_peak", k.activation_peak, bytes_shown("activation peak")) -
            (named<Num>("cuda_context", k.cuda_context, bytes_shown("CUDA context")) +
             named<Num>("workspace", k.workspace, bytes_shown("cuBLAS workspace")) +
             named<Num>("nccl", k.nccl, bytes_shown("NCCL")))) *
           named<Num>("utilisation", k.utilisation, fraction_shown("free_gpu_memory_fraction"));
  return named<Num>("hbm", k.hbm, bytes_shown("HBM")) *
             named<Num>("utilisation", k.utilisation, fraction_shown("gpu_memory_utilization")) -
         named<Num>("weights", k.weights, bytes_shown("weights")) -
         named<Num>("activation_peak", k.activation_peak, bytes_shown("activation peak")) -
         (named<Num>("cuda_context", k.cuda_context, bytes_shown("CUDA context")) +
          named<Num>("workspace", k.workspace, bytes_shown("cuBLAS workspace")) +
          named<Num>("nccl", k.nccl, bytes_shown("NCCL"))) -
         named<Num>("cuda_graphs", k.cuda_graphs, bytes_shown("CUDA graphs"));
}
template double kv_cache_per_gpu<double>(const KvCapacity&);
template Formula kv_cache_per_gpu<Formula>(const KvCapacity&);

double erlang_c(double servers, double offered) {
  if (offered >= servers) return 1;
  double b = 1;  // Erlang B with 0 servers
  for (int k = 1; k <= static_cast<int>(servers); ++k) b = offered * b / (k + offered * b);
  return servers * b / (servers - offered * (1 - b));
}

RequestQueue request_queue(double lambda, double servers, double prefill_s, double step_s, double out) {
  RequestQueue q{lambda, servers, prefill_s, step_s, out};
  q.prefill_share = lambda * prefill_s;
  if (q.prefill_share >= 1) return q;
  q.tpot_s = step_s / (1 - q.prefill_share);
  q.service_s = prefill_s + out * q.tpot_s;
  q.load = lambda * q.service_s / servers;
  if (q.load >= 1) return q;
  q.stable = true;
  q.p_wait = erlang_c(servers, lambda * q.service_s);
  q.wait_s = queue_wait<double>(q);
  q.wait_p99_s = queue_wait_p99<double>(q);
  q.prefills_p99 = poisson_quantile(lambda * out * q.tpot_s, kLatencyPercentile);
  q.tpot_p99_s = tpot_p99<double>(q);
  return q;
}

double poisson_quantile(double mean, double q) {
  double cdf = 0;
  double limit = mean + 20 * std::sqrt(mean) + 20;
  for (double n = 0; n <= limit; ++n) {
    cdf += std::exp(n * std::log(mean) - mean - std::lgamma(n + 1));
    if (cdf >= q) return n;
  }
  return std::ceil(limit);
}

// The servers' spare rate: slots / service - lambda (the M/M/c tail's decay rate and the mean wait's
// denominator).
template <typename Num>
Num spare_rate(const RequestQueue& q) {
  return named<Num>("slots", q.servers, count_shown("slots")) /
             named<Num>("service", q.service_s, seconds_shown("service")) -
         named<Num>("lambda", q.lambda, [](double v) { return fmt::format("lambda {:.3f}/s", v); });
}

template <typename Num>
Num queue_wait_p99(const RequestQueue& q) {
  double tail = 1 - kLatencyPercentile;
  if (q.p_wait <= tail) return named<Num>("wait_p99", 0, seconds_shown("wait p99 (P(wait) below 1 %)", 4));
  double ln_tail = std::log(q.p_wait / tail);
  return 0.5 *
         named<Num>("ln_wait_tail", ln_tail,
                    [&](double v) {
                      return fmt::format("ln(P(wait) Erlang C {:.3f} / 0.01) {:.3f}", q.p_wait, v);
                    }) /
         spare_rate<Num>(q);
}
template double queue_wait_p99<double>(const RequestQueue&);
template Formula queue_wait_p99<Formula>(const RequestQueue&);

// Time to the first token after a wait: the wait, the prefill, and the first decode step stretched by the
// prefills that share the steps.
template <typename Num>
Num ttft_after_wait(const RequestQueue& q, Num wait) {
  Num prefill = named<Num>("t_prefill", q.prefill_s, seconds_shown("prefill", 4));
  Num lambda = named<Num>("lambda", q.lambda, [](double v) { return fmt::format("lambda {:.3f}/s", v); });
  return wait + prefill +
         named<Num>("t_step", q.step_s, seconds_shown("decode step", 4)) / (1 - lambda * prefill);
}

template <typename Num>
Num ttft_p99(const RequestQueue& q) {
  return ttft_after_wait<Num>(q, queue_wait_p99<Num>(q));
}
template double ttft_p99<double>(const RequestQueue&);
template Formula ttft_p99<Formula>(const RequestQueue&);

template <typename Num>
Num tpot_p99(const RequestQueue& q) {
  Num out = named<Num>("out", q.out, count_shown("out"));
  return (out * named<Num>("t_step", q.step_s, seconds_shown("decode step", 4)) +
          named<Num>("prefills_p99", q.prefills_p99, count_shown("prefills p99")) *
              named<Num>("t_prefill", q.prefill_s, seconds_shown("prefill", 4))) /
         out;
}
template double tpot_p99<double>(const RequestQueue&);
template Formula tpot_p99<Formula>(const RequestQueue&);

template <typename Num>
Num queue_wait(const RequestQueue& q) {
  return 0.5 * named<Num>("p_wait", q.p_wait, fraction_shown("P(wait) Erlang C")) / spare_rate<Num>(q);
}
template double queue_wait<double>(const RequestQueue&);
template Formula queue_wait<Formula>(const RequestQueue&);

template <typename Num>
Num ttft_at_rate(const RequestQueue& q) {
  return ttft_after_wait<Num>(q, queue_wait<Num>(q));
}
template double ttft_at_rate<double>(const RequestQueue&);
template Formula ttft_at_rate<Formula>(const RequestQueue&);

int kv_shards(const TransformerModel& m, int t) { return m.mla() ? 1 : std::min(t, m.kv_heads); }

double serving_allreduce_latency(const GpuSpec& gpu) {
  return gpu.link.starts_with("NVLink") ? assumption::kServingAllReduceLatency.value
                                        : assumption::kCollectiveLatency.value;
}

std::optional<ServingPoint> serving_point(const LlmInference& w, const NodeFacts& node,
                                          const Calibration& cal, double eta_prefill, double eta_decode,
                                          double headroom, std::string* why_not) {
  const GpuSpec& gpu = *node.gpu;
  const TransformerModel& m = w.model;
  double peak = gpu.peak_for(peak_precision(w.precision)).value_or(0);
  double hbm = gpu.memory_bandwidth * cal.hbm.value;
  double bytes = bytes_per_element(w.precision);
  double weights = m.params * bytes;
  double kv_token = m.kv_elements_per_token() * bytes_per_element(w.kv_precision);
  double in = w.input_tokens, out = w.output_tokens;
  double ctx_avg = in + out / 2;
  double per_token_flops = 2 * m.active_params;
  double tpot_limit = w.tpot_s > 0 ? w.tpot_s * (1 - headroom) : 0;
  std::optional<ServingPoint> best;
  std::string rejected;
  for (int t = 1; t <= node.domain; t *= 2) {
    if (w.tp ? t != *w.tp : m.heads % t != 0 || node.gpus % t != 0) continue;
    const ServingBudget budget = serving_budget(w, gpu, t);
    ServingPoint sp;
    sp.t = t;
    sp.kv_per_token = kv_token;
    sp.kv_shards = kv_shards(m, t);
    sp.weights_per_gpu = weights / t;
    sp.budget = budget;
    sp.kv = {gpu.memory_bytes,
             budget.utilisation,
             sp.weights_per_gpu,
             profile_activation_peak(m, budget.max_num_batched_tokens, budget.max_num_seqs, t),
             assumption::kCudaContext.value,
             assumption::kCublasWorkspace.value,
             t > 1 ? assumption::kNcclCommunicator.value : 0,
             budget.cuda_graphs,
             budget.trtllm};
    sp.kv_budget = kv_cache_per_gpu<double>(sp.kv) * sp.kv_shards;
    // What a sequence holds of the cache when admitted: vLLM (and TensorRT-LLM's MAX_UTILIZATION) allocate
    // blocks as tokens come (the average context), TensorRT-LLM's GUARANTEED_NO_EVICT reserves the whole
    // input
    // + output.
    sp.reserved_tokens = budget.whole_sequences ? in + out : ctx_avg;
    sp.max_batch = std::floor(sp.kv_budget / (kv_token * sp.reserved_tokens));
    if (sp.kv_budget <= kv_token * (in + out) || sp.max_batch < 1) {
      rejected = fmt::format("TP {}: KV cache {} per GPU after weights, activations, runtime and CUDA graphs",
                             t, format_bytes(sp.kv_budget / sp.kv_shards));
      continue;
    }
    if (w.batch && *w.batch > sp.max_batch) {
      rejected = fmt::format("TP {}: batch {} needs {} of KV cache, {} left", t, *w.batch,
                             format_bytes(*w.batch * ctx_avg * kv_token), format_bytes(sp.kv_budget));
      continue;
    }
    double tp_busbw = gpu.link_bandwidth * cal.nvlink.value;
    // 2 all-reduces per layer of the step's tokens; each call's latency is paid once per step, which a
    // prompt shares with the others batched with it (chunked prefill of max_num_batched_tokens): its share.
    auto tp_time = [&](double tokens, double latency_share) {
      if (t == 1) return 0.0;
      double msg = tokens * m.hidden * 2.0 * 2 * (t - 1) / t;
      return 2.0 * m.layers * (serving_allreduce_latency(gpu) * latency_share + msg / tp_busbw);
    };
    // MoE: a step reads the experts its batch routes to, E (1 - (1 - k/E)^batch) of them per layer.
    auto weights_read = [&](double batch) {
      if (!m.moe()) return sp.weights_per_gpu;
      double expert = std::min(m.params, m.expert_params());
      double touched = 1 - std::pow(1 - static_cast<double>(m.top_k) / m.experts, batch);
      return ((m.params - expert) + expert * touched) * bytes / t;
    };
    auto decode = [&](double batch) {
      // The batch's k routed copies of h per MoE layer, permuted to their experts and back and scaled by the
      // router weights (the training step's passes, forward only).
      double moe_bytes = m.moe() ? batch * m.layers * kMoePermuteBytes * m.top_k * m.hidden / t : 0.0;
      return DecodeStep{weights_read(batch),
                        batch * ctx_avg * kv_token / sp.kv_shards,
                        hbm,
                        batch,
                        cuda_graph_rows(w, batch),
                        per_token_flops,
                        m.attention_flops_per_context_token(true) * ctx_avg,
                        static_cast<double>(t),
                        peak,
                        eta_decode,
                        tp_time(batch, 1),
                        moe_bytes};
    };
    sp.prefill = {in,
                  per_token_flops,
                  0.5 * m.attention_flops_per_context_token() * in * in,
                  static_cast<double>(t),
                  peak,
                  eta_prefill,
                  tp_time(in, in / std::max(in, budget.max_num_batched_tokens))};
    sp.prefill_s = prefill_time<double>(sp.prefill);
    sp.output_tokens = out;
    sp.instances = node.gpus / t;
    auto throughput = [&](double batch) {
      ServingPoint at = sp;
      at.batch = batch;
      at.step_s = decode_step_time<double>(decode(batch));
      return serving_tokens_per_s_node<double>(at);
    };
    if (w.batch) {
      sp.batch = *w.batch;
      sp.batch_rule = "the workload's batch";
    } else {
      // The engine schedules at most max_num_seqs sequences however many the KV cache holds.
      double limit = std::min(sp.max_batch, budget.max_num_seqs);
      std::string held = limit < sp.max_batch ? fmt::format("max_num_seqs {:.0f} (the KV cache holds {:.0f})",
                                                            limit, sp.max_batch)
                                              : fmt::format("the KV cache's {:.0f}", sp.max_batch);
      if (w.offline && budget.trtllm) {
        // trtllm-bench sets max_batch_size itself and the scheduler admits every request the limit allows.
        sp.batch = limit;
        sp.batch_rule = fmt::format("{}: every offline request queued at once", held);
      } else if (w.offline) {
        // Offline: the batch with the most tokens/s, among powers of two and the limit.
        sp.batch = limit;
        for (double b = 1; b < limit; b *= 2)
          if (throughput(b) > throughput(sp.batch)) sp.batch = b;
        sp.batch_rule = fmt::format("the best of batches 1, 2, 4, ... and {}", held);
      } else {
        sp.batch = limit;
        if (tpot_limit > 0)
          while (sp.batch > 1 && decode_step_time<double>(decode(sp.batch)) > tpot_limit)
            sp.batch = std::floor(sp.batch * 0.95);
        sp.batch_rule =
            tpot_limit > 0
                ? fmt::format("the largest batch up to {} whose decode step meets the TPOT target", held)
                : fmt::format("{} sequences", held);
      }
    }
    sp.decode = decode(sp.batch);
    sp.step_s = decode_step_time<double>(sp.decode);
    sp.crossover = decode_crossover_batch<double>(sp.decode);
    sp.bound = sp.batch < sp.crossover ? "memory" : "compute";
    sp.ttft_s = time_to_first_token<double>(sp.prefill, sp.step_s);
    sp.meets_targets = (tpot_limit <= 0 || sp.step_s <= tpot_limit) &&
                       (w.ttft_s <= 0 || sp.ttft_s <= w.ttft_s * (1 - headroom));
    sp.tokens_per_s_node = serving_tokens_per_s_node<double>(sp);
    sp.tokens_per_s_instance = sp.tokens_per_s_node / sp.instances;
    bool better = !best || (sp.meets_targets && !best->meets_targets) ||
                  (sp.meets_targets == best->meets_targets && sp.tokens_per_s_node > best->tokens_per_s_node);
    if (better) best = sp;
  }
  if (!best && why_not)
    *why_not = fmt::format("{} of {} weights plus {} fit no tensor-parallel degree {} on {}{}",
                           format_bytes(weights), w.precision,
                           w.batch ? fmt::format("a batch of {} {}-token contexts", *w.batch, in + out)
                                   : fmt::format("one {}-token context", in + out),
                           w.tp ? fmt::format("{} (given)", *w.tp) : fmt::format("up to {}", node.domain),
                           gpu.name, rejected.empty() ? "" : " (" + rejected + ")");
  return best;
}

// The FLOP rate of t GPUs at the calibrated efficiency, shared by decode and prefill.
template <typename Num>
Num instance_flops(double t, double peak, double eta) {
  return named<Num>("t", t, count_shown("t")) *
         named<Num>("peak", peak, [](double v) { return fmt::format("peak {:.0f} TFLOPS", v / 1e12); }) *
         named<Num>("eta", eta, fraction_shown("eta"));
}

double cuda_graph_rows(const LlmInference& w, double batch) {
  for (int size : w.cuda_graph_batch_sizes)
    if (size >= batch) return size;
  return batch;
}

template <typename Num>
Num decode_gemm_time(const DecodeStep& d) {
  Num hbm = named<Num>("hbm", d.hbm, [](double v) { return fmt::format("HBM {:.2f} GB/s", v / 1e9); });
  return maximum(named<Num>("weights", d.weights, bytes_shown("weights read")) / hbm,
                 (d.rows > d.batch ? named<Num>("rows", d.rows, count_shown("CUDA graph rows"))
                                   : named<Num>("batch", d.batch, count_shown("batch"))) *
                     named<Num>("flops_per_token", d.flops_per_token, flops_shown("2 N_act")) /
                     instance_flops<Num>(d.t, d.peak, d.eta));
}

template <typename Num>
Num decode_attention_time(const DecodeStep& d) {
  Num hbm = named<Num>("hbm", d.hbm, [](double v) { return fmt::format("HBM {:.2f} GB/s", v / 1e9); });
  return maximum(named<Num>("kv_read", d.kv_read, bytes_shown("KV read")) / hbm,
                 named<Num>("batch", d.batch, count_shown("batch")) *
                     named<Num>("attention_flops", d.attention_flops, flops_shown("attention")) /
                     instance_flops<Num>(d.t, d.peak, d.eta));
}

template <typename Num>
Num decode_step_time(const DecodeStep& d) {
  Num step = decode_gemm_time<Num>(d) + decode_attention_time<Num>(d);
  if (d.moe_bytes > 0)
    step =
        step + named<Num>("moe_bytes", d.moe_bytes, bytes_shown("MoE permute")) /
                   named<Num>("hbm", d.hbm, [](double v) { return fmt::format("HBM {:.2f} GB/s", v / 1e9); });
  if (d.t > 1) step = step + named<Num>("t_tp", d.tp_s, seconds_shown("TP all-reduces", 4));
  return step;
}

template <typename Num>
Num decode_crossover_batch(const DecodeStep& d) {
  return named<Num>("weights", d.weights, bytes_shown("weights read")) /
         named<Num>("hbm", d.hbm, [](double v) { return fmt::format("HBM {:.2f} GB/s", v / 1e9); }) /
         (named<Num>("flops_per_token", d.flops_per_token, flops_shown("2 N_act")) /
          instance_flops<Num>(d.t, d.peak, d.eta));
}

template <typename Num>
Num prefill_time(const Prefill& p) {
  Num compute = (named<Num>("flops_per_token", p.flops_per_token, flops_shown("2 N_act")) *
                     named<Num>("prompt", p.tokens, count_shown("prompt tokens")) +
                 named<Num>("attention_flops", p.attention_flops, flops_shown("attention"))) /
                instance_flops<Num>(p.t, p.peak, p.eta);
  if (p.t > 1) compute = compute + named<Num>("t_tp_prefill", p.tp_s, seconds_shown("TP all-reduces", 4));
  return compute;
}

template <typename Num>
Num time_to_first_token(const Prefill& p, double decode_step_s) {
  return prefill_time<Num>(p) + named<Num>("decode_step", decode_step_s, seconds_shown("decode step", 4));
}

template <typename Num>
Num serving_hbm_per_gpu(const ServingPoint& sp) {
  return named<Num>("weights", sp.weights_per_gpu, bytes_shown("weights")) +
         named<Num>("kv_budget", sp.kv_budget / sp.kv_shards, bytes_shown("KV cache"));
}

template <typename Num>
Num serving_tokens_per_s_node(const ServingPoint& sp) {
  Num out = named<Num>("out", sp.output_tokens, count_shown("out"));
  return out /
         (out * named<Num>("t_step", sp.step_s, seconds_shown("decode step", 4)) /
              named<Num>("batch", sp.batch, count_shown("batch")) +
          named<Num>("t_prefill", sp.prefill_s, seconds_shown("prefill", 4))) *
         named<Num>("instances", sp.instances, count_shown("instances"));
}
template double serving_tokens_per_s_node<double>(const ServingPoint&);
template Formula serving_tokens_per_s_node<Formula>(const ServingPoint&);

template double decode_gemm_time<double>(const DecodeStep&);
template Formula decode_gemm_time<Formula>(const DecodeStep&);
template double decode_attention_time<double>(const DecodeStep&);
template Formula decode_attention_time<Formula>(const DecodeStep&);
template double decode_step_time<double>(const DecodeStep&);
template Formula decode_step_time<Formula>(const DecodeStep&);
template double decode_crossover_batch<double>(const DecodeStep&);
template Formula decode_crossover_batch<Formula>(const DecodeStep&);
template double prefill_time<double>(const Prefill&);
template Formula prefill_time<Formula>(const Prefill&);
template double time_to_first_token<double>(const Prefill&, double);
template Formula time_to_first_token<Formula>(const Prefill&, double);
template double serving_hbm_per_gpu<double>(const ServingPoint&);
template Formula serving_hbm_per_gpu<Formula>(const ServingPoint&);

template <typename Num>
Num node_nameplate(const NodeTemplate& n, const HardwareCatalog& c, const CoolingSpec& cool) {
  const auto& gpu = c.gpu(n.gpu);
  auto count = [](const char* label) {
    return [label](double v) { return fmt::format("{:.0f} {}", v, label); };
  };
  auto watts = [](double v) { return fmt::format("{:g} W", v); };
  return named<Num>("gpus", n.gpus, count("GPUs")) * named<Num>("gpu_w", gpu.tdp_w, watts) *
             named<Num>("gpu_factor", cool.gpu_power_factor,
                        [&](double v) { return fmt::format("{} cooling {:.4f}", cool.name, v); }) +
         named<Num>("sockets", n.sockets, count("CPUs")) * named<Num>("cpu_w", c.cpu(n.cpu).tdp_w, watts) +
         named<Num>("dram_gb", n.ram_bytes / 1e9, [](double v) { return fmt::format("DRAM {:g} GB", v); }) *
             named<Num>("dram_w_per_gb", assumption::kDramWattsPerGb.value,
                        [](double v) { return fmt::format("{:g} W/GB", v); }) +
         named<Num>("nics", n.nics, count("NICs")) * named<Num>("nic_w", c.nic(n.nic).power_w, watts) +
         named<Num>("drives", n.drives, count("drives")) *
             named<Num>("drive_w", c.drive(n.drive).power_w, watts) +
         named<Num>("other_w", n.other_w, [](double v) { return fmt::format("other {:g} W", v); });
}
template double node_nameplate<double>(const NodeTemplate&, const HardwareCatalog&, const CoolingSpec&);
template Formula node_nameplate<Formula>(const NodeTemplate&, const HardwareCatalog&, const CoolingSpec&);

double node_nameplate_w(const NodeTemplate& n, const HardwareCatalog& c, const CoolingSpec& cool) {
  return node_nameplate<double>(n, c, cool);
}

template <typename Num>
Num energy_kwh(const EnergyUse& e) {
  return (named<Num>("nodes", e.nodes, [](double v) { return fmt::format("{:.0f} nodes", v); }) *
              named<Num>("node_w", e.node_w, [](double v) { return fmt::format("{:.1f} W", v); }) *
              named<Num>("average_share", e.average_share,
                         [](double v) { return fmt::format("average / nameplate {:g}", v); }) +
          named<Num>("switch_w", e.switch_w, [](double v) { return fmt::format("switches {:.1f} W", v); })) /
         1000 * named<Num>("hours", e.hours, [](double v) { return fmt::format("{:.2f} h", v); }) *
         named<Num>("pue", e.pue, [](double v) { return fmt::format("PUE {:g}", v); });
}
template double energy_kwh<double>(const EnergyUse&);
template Formula energy_kwh<Formula>(const EnergyUse&);

}  // namespace mlbench::sizing
