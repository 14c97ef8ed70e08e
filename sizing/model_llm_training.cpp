#include "sizing/model_llm_training.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/units.hpp"
#include "sizing/model_terms.hpp"

namespace mlbench::sizing {

using namespace terms;

namespace {

// Elementwise (non-GEMM) passes of one transformer layer per token, forward: bytes read + written per
// element, elements in units of hidden (h) or FFN width (f), and whether the pass runs inside the
// tensor-parallel region (split t ways by heads or FFN columns) or outside it (norms, residuals: split only
// by sequence parallelism, else every TP rank repeats it). Backward costs twice the forward. Which passes a
// layer has follows its architecture: RMSNorm or LayerNorm; rotary embeddings or none (GPT's learned
// positions are added once at the embedding); dropout or none (Megatron fuses the hidden dropout into the
// bias and residual add: it writes a 1 B mask per element more); a gated (SwiGLU) or plain (GeLU) FFN. A pass
// that a fused kernel can run (the workload's `fused`) costs its reference PyTorch kernels' bytes unless
// fused: RMSNorm as the reference code writes it (six elementwise kernels, fp32 upcast) or Transformer
// Engine's one kernel; rotary upcast to fp32 or Megatron-LM's apply_rope_fusion; SwiGLU as silu then multiply
// or its bias_activation_fusion kernel. LayerNorm (torch.nn.LayerNorm, Megatron's fused LayerNorm) and GeLU
// are one kernel either way.
enum class PassOf { every_layer, rms_norm, layer_norm, rotary, dropout, gated_ffn, plain_ffn };
struct ElementwisePass {
  const char* op;
  double h_elements, f_elements, bytes;
  bool in_tp_region;
  PassOf of = PassOf::every_layer;
  FusedKernel fusable = FusedKernel::none;
  double fused_bytes = 0;
};
constexpr ElementwisePass kElementwisePasses[] = {
    {"2x RMSNorm: upcast 6, square 8, mean 4, scale 8, downcast 6, weight 4; fused: read 2, write 2", 2, 0,
     36, false, PassOf::rms_norm, FusedKernel::norm, 4},
    {"2x LayerNorm: one kernel, read 2, write 2", 2, 0, 4, false, PassOf::layer_norm},
    {"rotary on q and k: upcast, complex multiply, downcast; fused: read 2, write 2", 2, 0, 20, true,
     PassOf::rotary, FusedKernel::rotary, 4},
    {"attention kernel q, k, v in / o out + layout copies", 1, 0, 20, true},
    {"2x residual add", 2, 0, 6, false},
    {"2x dropout mask, fused with the residual add", 2, 0, 1, false, PassOf::dropout},
    {"SwiGLU: silu 4, multiply 6; fused: read 2 x 2, write 2", 0, 1, 10, true, PassOf::gated_ffn,
     FusedKernel::activation, 6},
    {"GeLU: one kernel, read 2, write 2", 0, 1, 4, true, PassOf::plain_ffn},
};

bool has_pass(const TransformerModel& m, PassOf of) {
  switch (of) {
    case PassOf::rms_norm:
      return m.rms_norm;
    case PassOf::layer_norm:
      return !m.rms_norm;
    case PassOf::rotary:
      return m.rotary;
    case PassOf::dropout:
      return m.dropout;
    case PassOf::gated_ffn:
      return m.gated_ffn;
    case PassOf::plain_ffn:
      return !m.gated_ffn;
    case PassOf::every_layer:
      return true;
  }
  return true;
}

// Forward elementwise bytes per token and layer on one GPU of a TP group of t (tokens counted per group).
double nongemm_bytes_per_token_layer(const TransformerModel& m, const LlmTraining& w, int t) {
  double forward = 0;
  for (const auto& p : kElementwisePasses) {
    if (!has_pass(m, p.of)) continue;
    double per_element = p.fusable != FusedKernel::none && w.fused.has(p.fusable) ? p.fused_bytes : p.bytes;
    double bytes = (p.h_elements * m.hidden + p.f_elements * m.ffn_width()) * per_element;
    forward += p.in_tp_region || w.sequence_parallel ? bytes / t : bytes;
  }
  if (m.moe()) forward += m.moe_share() * kMoePermuteBytes * m.top_k * m.hidden / t;
  return forward;
}

// Transformer Engine's low-precision GEMM operands, per token and layer on one GPU of a TP group of t,
// forward and backward (module/linear.py, layernorm_linear.py and base.py's grad_output_preprocess): a Linear
// whose input comes in 16-bit casts it and keeps a transposed copy for the weight gradient
// (fp8_cast_transpose_fused: read 2 B, write e B twice per element, e the recipe's bytes per element), and
// every Linear's output gradient is cast and transposed likewise. Megatron-LM runs its own activation between
// the two FFN Linears, so FC2's input (every expert's) comes in 16-bit, as do the O projection's and, in a
// MoE layer, each routed copy of a token into its expert. The inputs a fused TE norm feeds
// (TELayerNormColumnParallelLinear: QKV, a dense FC1, MLA's up projections): under delayed scaling the norm
// writes them already cast (e B instead of 2) and the backward transposes them (read e, write e); under
// current scaling and the block-scaled formats (MXFP8, NVFP4: csrc/extensions/normalization.cpp) it writes 16
// bits (with the amax) and a quantize pass casts both copies; without a fused norm they are 16-bit inputs
// like the rest. Current scaling reads every other 16-bit tensor once more for its amax (nvte_compute_amax);
// block formats take their scales in the quantizing kernel. h-wide tensors outside the TP region (the norms'
// outputs, routed copies) split by sequence parallelism; the gathered ones the backward transposes and the
// row-parallel outputs' gradients are the TP group's whole sequence; the rest split by t.
struct CastBytes {
  double forward = 0, backward = 0;
};
CastBytes low_precision_cast_bytes(const TransformerModel& m, const LlmTraining& w, int t) {
  double e = bytes_per_element(w.precision);
  if (e >= 2) return {};
  double h = m.hidden, heads = m.heads, o_in = heads * m.v_dim();
  // The attention projections' outputs, and MLA's up projections' latent inputs.
  double qkv_out = m.attention_params() / h - o_in, latents = 0;
  if (m.mla()) {
    latents = m.q_lora_rank + m.kv_lora_rank;
    qkv_out =
        latents + m.qk_rope_head_dim + heads * m.qk_head_dim() + heads * (m.qk_nope_head_dim + m.v_dim());
  }
  // Per layer, averaged over a MoE model's MoE and dense layers: the FFN width a token runs and its routed
  // copies (a dense layer's FC1 input is norm-fed).
  double copies = m.ffns_per_token() * m.moe_share(), f = m.ffn_width(), f_up = (m.gated_ffn ? 2 : 1) * f;
  bool current = w.precision == "fp8" && w.fp8_recipe == "current";
  bool delayed = w.precision == "fp8" && w.fp8_recipe == "delayed";
  double cast_transpose = 2 + 2 * e, amax = current ? 2 : 0, sp = w.sequence_parallel ? t : 1;
  // Norm-fed inputs: the attention's, a dense FC1's (a MoE layer's go through the router as routed copies);
  // the gathered whole-sequence copy the backward transposes under delayed scaling.
  double norm_h = (2 - m.moe_share()) * h;
  double norm_fed = norm_h / sp + latents / t, gathered = norm_h + latents / t;
  double sixteen_bit = (o_in + f) / t + copies * h / sp;
  CastBytes c;
  c.forward = (cast_transpose + amax) * sixteen_bit;
  if (!w.fused.has(FusedKernel::norm)) {
    c.forward += (cast_transpose + amax) * norm_fed;
  } else if (delayed) {
    c.forward -= (2 - e) * norm_fed;
    c.backward += 2 * e * gathered;
  } else {
    c.forward += cast_transpose * norm_fed;
  }
  c.backward += (cast_transpose + amax) * ((qkv_out + f_up) / t + h + (copies + 1 - m.moe_share()) * h);
  return c;
}

// The bytes of an element the all-to-all moves: Transformer Engine quantizes Q, K, V before the exchange and
// exchanges the output and the gradients in FP8 under FP8 attention, 16-bit otherwise.
double a2a_element_bytes(const LlmTraining& w) { return w.fp8_attention ? 1 : kActivationBytes; }

// The HBM bytes context parallelism adds to the attention, per token and layer on one GPU of a TP group of t,
// forward and backward. Ring attention over c ranks, as Transformer Engine's AttnFuncWithCP runs it
// (attention.py): K and V copied into the ring's send buffer; each of the c steps writes its own partial
// output (c - 1 more than one attention) into an output first zeroed, merged into it by
// flash_attn_fwd_out_correction (read both, write one); the backward writes a dq and a dK/dV per step and
// accumulates them (read both, write one). All-gather context parallelism (Llama 3's) computes each rank's
// queries against the gathered K and V in one pass: none. All-to-all context parallelism
// (flash_attn_a2a_communicate) copies each exchanged tensor into the layout the all-to-all sends (movedim,
// contiguous) and reorders what it receives (index_select): 4 passes of an element (8 B in 16 bits, 4 B in
// FP8 attention), over Q, K, V and the output forward and the output, its gradient and dQ, dK, dV backward.
struct CpAttentionBytes {
  double forward = 0, backward = 0;
};
CpAttentionBytes cp_attention_bytes(const TransformerModel& m, const LlmTraining& w, int c, int t) {
  if (c <= 1 || w.cp_comm == "all_gather") return {};
  double heads = m.heads, kv_heads = m.mla() ? m.heads : m.kv_heads;
  double o = heads * m.v_dim() / t, q = heads * m.qk_head_dim() / t;  // the output, dq
  double kv = kv_heads * (m.qk_head_dim() + m.v_dim()) / t;           // K and V together
  CpAttentionBytes r;
  if (w.cp_comm == "a2a") {
    double passes = 4 * a2a_element_bytes(w);
    r.forward = passes * (q + kv + o);
    r.backward = passes * (q + kv + 2 * o);
    return r;
  }
  r.forward = 4 * kv + 2 * o * (c - 1) + 2 * o + 6 * o * c;
  r.backward = 4 * kv + 2 * q * (c - 1) + 6 * q * c + 2 * kv * (c - 1) + 6 * kv * c;
  return r;
}

// Standard attention materialises the a x s x s scores per layer: QK^T writes them (2 B), scale + mask +
// softmax reads and writes (4 B), dropout (where the model has it) reads, writes and stores its mask (5 B),
// AV reads them (2 B).
double score_bytes_forward(const TransformerModel& m) { return 8 + (m.dropout ? 5 : 0); }

// Cross-entropy over the vocabulary per token, forward + backward, bytes per vocabulary entry
// (tensor_parallel/cross_entropy.py's passes): as PyTorch runs it 60 (the logits upcast to fp32; max, shift,
// exp, sum, normalise and the gradient's scale, each a pass at 4 B, the gradient cast back); Megatron-LM's
// jit-fused kernels (fusions/fused_cross_entropy.py) 28 (upcast + max 6, shift + exp + sum 8, normalise 8,
// gradient + cast 6); Transformer Engine's (triton/cross_entropy.py, before its fp32-gradient change) 10: the
// online softmax reads the logits, the loss kernel reads them and writes the gradient in their place, the
// backward scales it.
double cross_entropy_bytes_per_vocab(const FusedKernels& fused) {
  if (fused.has(FusedKernel::te_cross_entropy)) return 10;
  return fused.has(FusedKernel::cross_entropy) ? 28 : 60;
}

bool standard_attention(const LlmTraining& w) { return w.attention == "standard"; }

}  // namespace

namespace terms {

// Bus bandwidth a data-parallel group sees: in-node NVLink while it stays in one node, else its share of the
// node's NICs (all groups of a node share them), capped by NVLink.
double dp_busbw(const NodeFacts& node, const Calibration& cal, const Layout& l, int nodes) {
  double nvlink = node.gpu->link_bandwidth * cal.nvlink.value;
  if (nodes <= 1) return nvlink;
  int groups_per_node = std::min(node.gpus, l.t * l.p);
  double network = node.nic_bytes_per_s * cal.network.value / groups_per_node;
  return std::min(nvlink, network);
}

}  // namespace terms

std::string_view to_string(Recompute r) { return name_of(kRecomputeNames, r); }

std::string training_attention_precision(const LlmTraining& w) {
  if (bytes_per_element(w.precision) >= 2) return w.precision;
  return w.fp8_attention ? "fp8" : "bf16";
}

TrainingAttentionRate training_attention_rate(const GpuSpec& gpu, const LlmTraining& w, int cp,
                                              bool sustained) {
  if (!w.fp8_attention)
    return {attention_rate(gpu, w.precision, training_attention_precision(w), sustained), 1, 1, ""};
  TrainingAttentionRate r{attention_rate(gpu, w.precision, "bf16", sustained), 1, 1, ""};
  // The kernel's query length: ring and all-gather context parallelism attend each rank's 1/cp of the
  // sequence (against one chunk per ring step, against the gathered keys and values), all-to-all the whole
  // sequence on 1/cp of the heads.
  bool chunked = cp > 1 && w.cp_comm != "a2a";
  double tokens = chunked ? static_cast<double>(w.seq_len) / cp : w.seq_len;
  for (const auto& p : assumption::kPublishedFp8Attention) {
    if (p.gpu != gpu.name) continue;
    // Log-linear in the sequence length between the measured powers of two, the end points beyond them.
    int first = assumption::kPublishedFp8AttentionFirstLog2;
    double last = static_cast<double>(p.fp8_s.size() - 1);
    double raw = std::log2(std::max(1.0, tokens)) - first;
    double x = std::clamp(raw, 0.0, last);
    auto i = std::min(static_cast<size_t>(x), p.fp8_s.size() - 2);
    double f = x - static_cast<double>(i);
    auto at = [&](const std::array<double, 9>& s) {
      return std::exp(std::log(s[i]) * (1 - f) + std::log(s[i + 1]) * f);
    };
    r.fp8_ratio = at(p.bf16_s) / at(p.fp8_s);
    r.fp8_forward_ratio = at(p.bf16_forward_s) / at(p.fp8_forward_s);
    r.rate.eta_scale *= r.fp8_ratio;
    double measured = std::exp2(first + x);
    std::string where =
        raw < 0 || raw > last
            ? fmt::format("{:.0f}, the nearest measured length to the kernel's {:.0f}", measured, tokens)
        : x == std::floor(x) ? fmt::format("{:.0f}", tokens)
                             : fmt::format("{:.0f}, between the measured {:.0f} and {:.0f}", tokens,
                                           std::exp2(first + i), std::exp2(first + i + 1));
    r.basis = fmt::format(
        "FP8 attention at the bf16 rate x {:.3f}, cuDNN's BF16 over FP8 fused-attention time, forward + "
        "backward, at {} tokens{}, the forward alone x {:.3f} (a full recompute's); {}",
        r.fp8_ratio, where, chunked ? " (each rank's 1/cp of the sequence)" : "", r.fp8_forward_ratio,
        p.basis);
    return r;
  }
  r.basis = fmt::format(
      "FP8 attention at the bf16 rate: no FP8 fused-attention training figure published for "
      "the {}",
      gpu.name);
  return r;
}

double grad_bytes(const LlmTraining& w) { return w.optimizer == "adam-fp32-grads" ? 4 : 2; }

// Megatron-LM gathers MXFP8 weights through the gradient buffer viewed as bf16
// (reuse_grad_buf_for_mxfp8_param_ag, param_and_grad_buffer.py): 2 B, fp8_params or not.
double gathered_weight_bytes(const LlmTraining& w) {
  return w.fp8_params && !w.finetune.lora() && !(w.precision == "fp8" && w.fp8_recipe == "mxfp8") ? 1 : 2;
}

AdapterParams lora_params(const TransformerModel& m, const FineTune& ft) {
  AdapterParams a;
  double h = m.hidden, f = m.ffn_hidden, kv = m.mla() ? m.heads : m.kv_heads;
  double q_out = static_cast<double>(m.heads) * m.qk_head_dim(),
         o_in = static_cast<double>(m.heads) * m.v_dim();
  // A MoE model's FFN adapters: every expert's in its MoE layers, the dense FFN's in its dense layers.
  double moe_layers = m.moe_layers(), dense_layers = m.layers - moe_layers;
  double ffns = moe_layers * (m.experts + m.shared_experts), active_ffns = moe_layers * m.ffns_per_token();
  double dense_f = m.moe() ? m.dense_ffn_hidden : f;
  for (const auto& t : ft.targets) {
    double attention = t == "q"   ? h + q_out
                       : t == "k" ? h + kv * m.qk_head_dim()
                       : t == "v" ? h + kv * m.v_dim()
                       : t == "o" ? o_in + h
                                  : 0;
    bool ffn_target = (t == "gate" && m.gated_ffn) || t == "up" || t == "down";
    double ffn = ffn_target ? h + f : 0, dense = ffn_target ? h + dense_f : 0;
    a.total += ft.rank * (m.layers * attention + ffns * ffn + dense_layers * dense);
    a.active += ft.rank * (m.layers * attention + active_ffns * ffn + dense_layers * dense);
  }
  return a;
}

double trainable_share(const TransformerModel& m, const FineTune& ft) {
  return ft.lora() ? lora_params(m, ft).total / m.params : 1;
}

GemmCost training_flops_per_token(const TransformerModel& m, int seq_len, const FineTune& ft) {
  double matrix_params = m.multiplied_params();
  // Attention: 3 x the forward's QK^T and AV against the whole sequence, 2 L a (d_qk + d_v) s (12 L h s
  // when the heads are hidden / heads wide), less what local attention's layers skip; it has no weights, so
  // a frozen base still runs all three.
  double attention = 3 * m.attention_flops_per_context_token() * seq_len * m.attended_share(0, seq_len);
  if (!ft.lora()) return {6 * matrix_params, attention, 6.0 * m.vocab * m.hidden};
  // Frozen weights skip their weight-gradient GEMMs: forward 2 + input gradient 2 FLOPs per weight.
  double adapters = 6 * lora_params(m, ft).active;
  return {4 * matrix_params + adapters, attention, 4.0 * m.vocab * m.hidden,
          (4 * matrix_params + adapters) / (2 * matrix_params + adapters / 3)};
}

std::string Layout::describe() const {
  return fmt::format("TP {} x PP {} x DP {}{}{}, {}ZeRO-{}, micro-batch {}, recompute {}", t, p, d,
                     c > 1 ? fmt::format(" x CP {}", c) : "",
                     e > 1 ? expert_t() != t ? fmt::format(" (EP {}, expert TP {})", e, expert_t())
                                             : fmt::format(" (EP {})", e)
                           : "",
                     v > 1 ? fmt::format("interleaved v {}, ", v) : "", zero, micro_batch,
                     to_string(recompute));
}

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
  return {(m.params - expert) / (l.t * l.p), expert / (static_cast<double>(l.expert_t()) * l.p * l.e)};
}

double expert_data_ranks(const Layout& l) {
  return static_cast<double>(l.t) * l.c * l.d / (static_cast<double>(l.expert_t()) * l.e);
}

double layer_activation_bytes(const TransformerModel& m, const LlmTraining& w, const Layout& l) {
  double s = static_cast<double>(w.seq_len) / l.c, b = l.micro_batch, h = m.hidden, t = l.t;
  bool sp = w.sequence_parallel;
  if (l.recompute == Recompute::full) return 2 * s * b * h / (sp ? t : 1);
  // What a layer's forward keeps for its backward, per token, tensor by tensor as Korthikanti et al. (2022,
  // section 4.1) count it: 2 B per 16-bit element, 1 B per dropout-mask element. Outside the tensor-parallel
  // region (split t ways only by sequence parallelism): the two norms' inputs, the QKV projection's and the
  // FFN's inputs, and the two dropout masks where the model has dropout; MLA adds its two latents (their
  // norm's and their up projection's inputs). Inside it (split t ways): Q, K and V at their own widths (K and
  // V over the KV heads; MLA rebuilds them per head), the attention output into the O projection, and the
  // FFN's GeLU input and output or SwiGLU's gate, up and product, f wide each. GPT's layer (K, V as wide as
  // Q, a 4h GeLU FFN, dropout) gives the paper's 10 + 24 / t; Llama 3 405B's (8 of 128 KV heads, SwiGLU
  // of 3.25h) 8 + 23.75 / t.
  double kv = m.mla() ? m.heads : m.kv_heads;
  double outside = 8 * h + (m.dropout ? 2 * h : 0) + (m.mla() ? 4.0 * (m.q_lora_rank + m.kv_lora_rank) : 0);
  double attention = 2.0 * (m.heads * m.qk_head_dim() + kv * m.qk_head_dim() + kv * m.v_dim() +
                            static_cast<double>(m.heads) * m.v_dim());
  // The activation's input (GeLU's, or SwiGLU's gate and up), SwiGLU's in FP8 where the workload keeps it
  // so (fp8_activation_input: Megatron-LM's bias_swiglu_impl), and its output, the down projection's input.
  double act_in = (m.gated_ffn ? 2 * (w.fp8_activation_input ? 1.0 : 2.0) : 2.0) * m.ffn_width();
  double act_out = 2.0 * m.ffn_width();
  // Each of a token's top_k routed copies is its own expert's input (in the MoE layers).
  double routed_in = m.moe() ? m.moe_share() * 2.0 * (m.top_k - 1) * h : 0;
  auto targeted = [&](std::initializer_list<const char*> names) {
    for (const char* n : names)
      if (std::find(w.finetune.targets.begin(), w.finetune.targets.end(), n) != w.finetune.targets.end())
        return true;
    return false;
  };
  bool lora = w.finetune.lora();
  if (lora) {
    // A frozen weight has no weight gradient, so Transformer Engine's linear keeps no copy of its input for
    // the backward (module/linear.py: backward_needs_input = weight.requires_grad); an adapter on the same
    // projection keeps it for its own. The norms' inputs, Q, K, V, the attention output and the activation's
    // input stay: their own backward reads them.
    if (!targeted({"q", "k", "v"})) {  // the QKV projection's input; MLA's up-projections' latents too
      outside -= 2 * h + (m.mla() ? 2.0 * (m.q_lora_rank + m.kv_lora_rank) : 0);
    }
    if (!(m.gated_ffn ? targeted({"gate", "up"})
                      : targeted({"up"}))) {  // the FFN's input, each routed copy's
      outside -= 2 * h;
      routed_in = 0;
    }
    if (!targeted({"down"})) act_out = 0;
  }
  double ffn = act_in + act_out + routed_in;
  double per_layer = s * b * (outside / (sp ? t : 1) + (attention + ffn) / t);
  // Scores of this rank's s queries against the whole sequence's keys: the softmax output (2 B) and, with
  // dropout, its mask (1 B) and output (2 B).
  if (standard_attention(w) && l.recompute == Recompute::none)
    per_layer += (m.dropout ? 5.0 : 2.0) * m.heads * s * w.seq_len * b / t;
  return per_layer;
}

MemoryBreakdown training_memory(const TransformerModel& m, const LlmTraining& w, const Layout& l) {
  MemoryBreakdown b;
  ParamSplit params = params_per_gpu(m, l);
  // Ranks holding the same weights: data x context parallel for the dense part, the expert data ranks for
  // the routed experts.
  double shards = static_cast<double>(l.d) * l.c;
  auto held = [&](double bytes_per_param, int from_stage) {
    bool sharded = l.zero >= from_stage;
    return bytes_per_param *
           (params.dense / (sharded ? shards : 1) + params.expert / (sharded ? expert_data_ranks(l) : 1));
  };
  // LoRA: the frozen base holds its 16-bit weights only; the adapters (the trainable share, sharded as the
  // base) hold weights, gradients and optimizer state.
  double trainable = trainable_share(m, w.finetune);
  // DualPipe feeds micro-batches from both ends of the pipeline, so each GPU holds two stages' parameters
  // and PP + 1 micro-batches in flight (DeepSeek-V3 report, Table 2).
  bool dualpipe = w.schedule == "dualpipe" && l.p > 1;
  // FP8 weights (fp8_params) hold 1 B each; a LoRA run's adapters stay 16-bit.
  b.weights =
      (held(w.fp8_params ? 1 : 2, 3) + (w.finetune.lora() ? held(2, 3) * trainable : 0)) * (dualpipe ? 2 : 1);
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
  b.communicators = (l.t > 1) + (l.p > 1) + (static_cast<long long>(l.d) * l.c > 1) + (l.c > 1) + (l.e > 1) +
                    (l.expert_t() != l.t && expert_data_ranks(l) > 1);
  b.nccl = b.communicators * assumption::kNcclCommunicator.value;
  b.fragmentation =
      assumption::kFragmentation.value * (b.weights + b.gradients + b.optimizer + b.activations);
  return b;
}

double pipeline_bubble(int p, int v, double micro_batches) { return (p - 1) / (v * micro_batches); }

double dp_sync_reach(const Layout& l, double micro_batches) {
  double groups = l.v > 1 ? (l.v - 1.0) / l.v * std::min(1.0, l.p / micro_batches) : 0.0;
  return groups + 1 / (micro_batches * l.v);
}

double dualpipe_bubble(int p, double micro_batches) {
  // DeepSeek-V3 report, Table 2: (p/2 - 1)(F&B + B - 3W) against 1F1B's (p - 1)(F + B), with the overlapped
  // F&B as long as F + B, the full backward B = 2F and its weight part W = F (2 FLOPs per weight each):
  // 2 (p/2 - 1) F over the m micro-batches' 3 m F.
  return 2 * (p / 2.0 - 1) / (3 * micro_batches);
}

StageLoad stage_load(int layers, int p, double layer, double out, int ends) {
  StageLoad s{.last_layers = layers, .layer = layer, .out = out};
  if (p <= 1 || layer <= 0) return s;
  s.ends = ends = std::min(ends, p);
  double mean = (layers * layer + out) / p;
  if (ends == p) {  // DualPipe on 2 stages: each runs half the layers and half the output layer
    s.last_layers = (layers + p - 1) / p;
    s.imbalance = (s.last_layers * layer + out / p) / mean - 1;
    return s;
  }
  double busiest = std::numeric_limits<double>::infinity();
  for (int last = 0; last * ends <= layers; ++last) {
    if (layers % p == 0 && last != layers / p) continue;
    int other = static_cast<int>(std::ceil((layers - ends * last) / static_cast<double>(p - ends)));
    double load = std::max(last * layer + out / ends, other * layer);
    if (load <= busiest) {
      busiest = load;
      s.last_layers = last;
      s.other_layers = other;
    }
  }
  s.imbalance = busiest / mean - 1;
  return s;
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
          // All-to-all context parallelism splits each TP rank's query and KV heads c ways.
          if (w.cp_comm == "a2a" && c > 1 && !a2a_splits_heads(m, t, c)) continue;
          // The workload's expert tensor parallelism, 0 where not given; the workload fixes tp with it and
          // checks that it divides tp (check_ep).
          const int et = fix.etp.value_or(0);
          long long wide = static_cast<long long>(t) * p * c;  // fixed degrees can be large: no int overflow
          if (wide > gpus) continue;
          if (w.schedule == "dualpipe" && p % 2 != 0 && p > 1) continue;  // two directions of p / 2 stages
          int model_gpus = static_cast<int>(wide);
          // More replicas than micro-batches in a step have nothing to compute: those GPUs idle.
          int d_max =
              fix.dp ? *fix.dp : static_cast<int>(std::min<double>(gpus / model_gpus, sequences / mb));
          if (d_max < 1 || static_cast<long long>(d_max) * model_gpus > gpus) continue;
          // The most replicas that split the batch the way Megatron-LM runs it and hold whole expert groups
          // (a multiple of e; under MoE parallel folding, t c d a multiple of et e); fewer leave GPUs idle,
          // which the planner reports.
          auto holds_experts = [&](int d, int e) {
            return et > 0 && et < t
                       ? (static_cast<long long>(t) * c * d) % (static_cast<long long>(et) * e) == 0
                       : d % e == 0;
          };
          auto replicas = [&](int e, int v) {
            for (int d = d_max; d >= 1 && (!fix.dp || d == *fix.dp); --d)
              if (holds_experts(d, e) && runnable(Layout{t, p, d, 0, mode, v, mb, c, e}, sequences)) return d;
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
                if (ds[i]) out.push_back({t, p, ds[i], zero, mode, vs[i], mb, c, e, et});
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
  std::vector<std::pair<std::array<int, 5>, GemmPhase>> phases;
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
    auto key = std::array{c.micro_batch, c.c, c.t, c.e, c.et};
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
      return a.t == c.t && a.p == c.p && a.d == c.d && a.c == c.c && a.e == c.e && a.et == c.et &&
             a.v == c.v && a.micro_batch == c.micro_batch && a.recompute == c.recompute;
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
  out.why_not =
      candidates.empty()
          ? fmt::format(
                "{} GPUs allow no tensor/pipeline/context split of {} heads, {} layers and {} "
                "tokens with the layout given{}",
                gpus, m.heads, m.layers, w.seq_len,
                w.cp_comm == "a2a" ? fmt::format(" (cp_comm a2a: tp x cp must divide the {} KV heads)",
                                                 m.mla() ? m.heads : m.kv_heads)
                                   : std::string())
          : fmt::format("nothing fits the {} HBM; the most sharded layout tried ({}) needs {}",
                        format_bytes(limit), out.most_sharded.describe(), out.memory.describe());
  return out;
}

GemmPhase training_gemm_phase(const TransformerModel& m, const LlmTraining& w, const GpuSpec& gpu,
                              const Calibration& cal, const Layout& l) {
  return gemm_phase(
      layer_gemms(m, static_cast<double>(l.micro_batch) * w.seq_len / l.c, l.t, l.e, true, l.expert_t()),
      gemm_rates(gpu, w.precision, cal));
}

TrainingStep training_step(const TransformerModel& m, const LlmTraining& w, const NodeFacts& node,
                           const Calibration& cal, const Layout& l, const GemmPhase* gemm) {
  TrainingStep st;
  st.layout = l;
  st.memory = training_memory(m, w, l);
  const GpuSpec& gpu = *node.gpu;
  int gpus = l.gpus();
  int nodes = std::max(1, (gpus + node.gpus - 1) / node.gpus);  // the last may hold part of the layout
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
  // standard attention runs the whole s x s products as batched GEMMs and masks afterwards. Either runs at
  // the rate of the precision it multiplies in (training_attention_rate).
  const TrainingAttentionRate training_attention = training_attention_rate(gpu, w, l.c, cal.sustained);
  const AttentionRate& attention = training_attention.rate;
  double attention_rate_flops = attention.peak * eta * attention.eta_scale;
  // Standard attention masks after multiplying: it computes every pair local attention skips.
  double attention_computed = standard ? flops.attention / m.attended_share(0, w.seq_len) : flops.attention;
  st.t_attention = standard ? tokens_gpu * attention_computed / attention_rate_flops
                            : tokens_gpu * flops.attention * 0.5 /
                                  (attention_rate_flops * assumption::kAttentionRelative.value);
  // Recomputation redoes forwards (a third of forward + backward, a half of a frozen GEMM's): full, every
  // layer's (not the output layer's); selective, the attention core's, which flash attention's backward
  // already redoes inside its kernel time.
  double recompute_flops = 0;
  // The output layer's share of the GEMM time: of its FLOPs, at its own 16-bit rate in a quantized run.
  double logits_share = st.gemm.time_share("logits");
  if (l.recompute == Recompute::full) {
    // The recomputed forward's attention at the forward's own FP8-over-BF16 ratio.
    st.t_recompute = st.t_gemm * (1 - logits_share) / flops.gemm_passes +
                     st.t_attention / 3 * training_attention.fp8_ratio / training_attention.fp8_forward_ratio;
    recompute_flops = tokens_gpu * ((flops.gemm - flops.logits) / flops.gemm_passes + attention_computed / 3);
  } else if (l.recompute == Recompute::selective && standard) {
    st.t_recompute = st.t_attention / 3;
    recompute_flops = tokens_gpu * attention_computed / 3;
  }
  double hbm = gpu.memory_bandwidth * cal.hbm.value;
  st.micro_batches = w.global_batch_tokens / (l.d * l.micro_batch * static_cast<double>(w.seq_len));
  double layer_mbs = m.layers / static_cast<double>(l.p) * st.micro_batches;  // layer passes per GPU
  ParamSplit split = params_per_gpu(m, l);
  double params_gpu = split.total();
  // Elementwise traffic: forward, twice that backward, and the forward again under full recomputation.
  // Per GPU: its replica's tokens over L/p layers and its share of the TP group = tokens_gpu x L x t.
  double passes = l.recompute == Recompute::full ? 4 : 3;
  double bytes = passes * tokens_gpu * l.t * m.layers * nongemm_bytes_per_token_layer(m, w, l.t);
  CastBytes casts = low_precision_cast_bytes(m, w, l.t);
  CpAttentionBytes cp_bytes = cp_attention_bytes(m, w, l.c, l.t);
  bytes += tokens_gpu * l.t * m.layers *
           ((casts.forward + cp_bytes.forward) * (l.recompute == Recompute::full ? 2 : 1) + casts.backward +
            cp_bytes.backward);
  if (standard) {
    double scores = static_cast<double>(m.heads) * w.seq_len / l.c * w.seq_len * l.micro_batch / l.t;
    double score_passes = 3 + (l.recompute == Recompute::none ? 0 : 1);
    bytes += layer_mbs * scores * score_bytes_forward(m) * score_passes;
  }
  // The cross-entropy, gradient accumulation per micro-batch, the optimizer step over this rank's shard.
  double cross_entropy = tokens_gpu * m.vocab * cross_entropy_bytes_per_vocab(w.fused);
  bytes += cross_entropy;
  bytes += st.micro_batches * params_gpu * trainable * 3 * grad_bytes(w);
  double dp_ranks = static_cast<double>(l.d) * l.c;  // gradients are reduced over data and context ranks
  double optimizer_params =
      l.zero >= 1 ? split.dense / dp_ranks + split.expert / expert_data_ranks(l) : params_gpu;
  bytes += optimizer_params * trainable * (26 + grad_bytes(w));
  st.t_nongemm = bytes / hbm;
  double t_compute = st.t_gemm + st.t_attention + st.t_recompute;
  st.virtual_stages = l.v;
  bool dualpipe = w.schedule == "dualpipe" && l.p > 1;  // without a pipeline there is nothing to pair
  st.bubble = dualpipe ? dualpipe_bubble(l.p, st.micro_batches) : pipeline_bubble(l.p, l.v, st.micro_batches);
  // Every stage passes every micro-batch, so the busiest sets the pace. The last runs the output layer's
  // GEMMs and the cross-entropy on all of its replica's tokens: p times this GPU's averaged share of them.
  double t_out = st.t_gemm * logits_share + cross_entropy / hbm;
  double t_stage = t_compute + st.t_nongemm;
  // DualPipe's two directions end on ranks 0 and p - 1, each running half the micro-batches' output layer.
  st.stages = stage_load(m.layers, l.p, (t_stage - t_out) * l.p / m.layers, t_out * l.p, dualpipe ? 2 : 1);

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
    // Half of them are the FFN's. Under MoE parallel folding (expert TP et below t) a MoE layer's run within
    // the et ranks on et / t of the tokens, (et - 1)/(t - 1) of the volume; at et 1 there are none.
    // Shared experts stay on the tensor-parallel grid with their own collectives (Megatron-Core's
    // SharedExpertMLP), so a model with them keeps the FFN half whole.
    double ffn_volume = 1, ffn_calls = 1;
    if (m.moe() && l.expert_t() < l.t && m.shared_experts == 0) {
      ffn_volume = 1 - m.moe_share() * (1 - (l.expert_t() - 1.0) / (l.t - 1));
      ffn_calls = l.expert_t() > 1 ? 1 : 1 - m.moe_share();
    }
    st.tp_calls = reductions * (w.sequence_parallel ? 2 : 1) * (0.5 + 0.5 * ffn_calls);
    st.tp_ffn_volume = ffn_volume;
    double elements = reductions * (0.5 + 0.5 * ffn_volume) * 2 * tokens_mb * m.hidden * (l.t - 1) / l.t;
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
    // recomputed forward); (e - 1)/e of each leaves the GPU. Megatron-Core lays the experts out on their own
    // grid, expert tensor parallelism et (by default t) innermost and context parallelism folded into the
    // expert data ranks: the group is the e ranks strided by et among et e consecutive ones. A domain of D
    // GPUs holds D / et of them (all e while et e fits); groups laid from a domain's first GPU leave the
    // worst-placed GPU e mod (D / et) peers in its domain where that does not divide. The copies to those
    // cross NVLink, the rest this GPU's share of the fabric; NCCL posts every peer's send and receive at
    // once, so the two run together and the slower sets the time. Tokens per GPU: the TP group's split of the
    // micro-batch with sequence parallelism, all of it without.
    st.ep_in_domain = l.expert_t() * l.e <= node.domain;
    int per_domain = std::max(1, node.domain / l.expert_t());
    st.ep_local = st.ep_in_domain ? l.e : (l.e % per_domain != 0 ? l.e % per_domain : per_domain);
    st.ep_nvlink_busbw = gpu.link_bandwidth * cal.alltoall_nvlink.value;
    st.ep_busbw =
        st.ep_in_domain ? st.ep_nvlink_busbw : node.nic_bytes_per_s * cal.alltoall_network.value / node.gpus;
    double tokens = tokens_mb / (w.sequence_parallel ? l.t : 1);
    // Node-limited routing sends a token once to each node its experts are on, at most group_top_k groups'
    // nodes (DeepSeek-V3 report, section 3.2.2: IB to each target node, then NVLink to the experts there);
    // within the NVLink domain each routed copy goes to its expert's GPU.
    st.ep_copies = m.top_k;
    if (!st.ep_in_domain && m.expert_groups > 0) {
      double ep_nodes = std::ceil(static_cast<double>(l.expert_t()) * l.e / node.domain);
      st.ep_copies =
          std::min({st.ep_copies, ep_nodes,
                    m.group_top_k * std::max(1.0, ep_nodes / static_cast<double>(m.expert_groups))});
    }
    // Seconds per element byte of one all-to-all: the copies to the domain's peers over NVLink, those beyond
    // it (top_k, or the nodes under node-limited routing) over the fabric.
    double per_byte = tokens * m.hidden / l.e *
                      (st.ep_in_domain ? st.ep_copies * (l.e - 1) / st.ep_busbw
                                       : std::max(m.top_k * (st.ep_local - 1) / st.ep_nvlink_busbw,
                                                  st.ep_copies * (l.e - st.ep_local) / st.ep_busbw));
    // Bytes per element of each all-to-all: the forward's dispatch (and its recomputation) in the dispatch
    // precision, the combine and the backward's two gradient all-to-alls in 16 bits.
    double dispatch = w.ep_dispatch == "fp8" ? 1 : kActivationBytes;
    double forwards = l.recompute == Recompute::full ? 2 : 1;
    double calls = 2 * forwards + 2;
    // Per MoE layer: a model's dense layers route nothing.
    st.t_ep =
        layer_mbs * m.moe_share() *
        (per_byte * (forwards * (dispatch + kActivationBytes) + 2 * kActivationBytes) + calls * latency);
    st.t_ep_exposed = st.t_ep;
  }
  if (l.c > 1) {
    // Ring attention: c - 1 exchanges of this rank's K and V per layer forward; the backward sends K, V
    // and their gradients (2x). Hidden behind the chunk's attention compute where that lasts longer.
    // All-gather context parallelism moves the same bytes before the attention can start: exposed ("the
    // all-gather communication latency is exposed in the critical path", Llama 3 paper, section 3.3.2).
    st.cp_busbw = l.t * l.c <= node.domain ? nvlink : per_gpu_nic;
    // The K and V each rank passes on: kv_heads (MLA: every head's, rebuilt from the latent) x d_qk + d_v.
    double kv_heads = m.mla() ? m.heads : m.kv_heads;
    double kv_width = kv_heads * static_cast<double>(m.qk_head_dim() + m.v_dim());
    double kv = tokens_mb * kv_width * kActivationBytes / l.t;
    double per_layer = 3 * (l.c - 1) * (kv / st.cp_busbw + latency);
    if (w.cp_comm == "a2a") {
      // All-to-all context parallelism: each rank keeps 1/c of its tokens' Q, K and V and sends the rest
      // before the attention, then the output back after it (4 all-to-alls, one per tensor: Transformer
      // Engine's flash_attn_a2a_communicate); the backward exchanges the saved output and its gradient
      // again, then dQ, dK, dV (5); full recomputation repeats the forward's. Each waited on, at the
      // all-to-all's own busbw, in FP8 under FP8 attention.
      st.cp_busbw = l.t * l.c <= node.domain ? gpu.link_bandwidth * cal.alltoall_nvlink.value
                                             : node.nic_bytes_per_s * cal.alltoall_network.value / node.gpus;
      double o = static_cast<double>(m.heads) * m.v_dim(), qkv = kv_width + m.heads * m.qk_head_dim();
      double forwards = l.recompute == Recompute::full ? 2 : 1;
      double widths = forwards * (qkv + o) + (qkv + 2 * o);
      per_layer = tokens_mb * widths * a2a_element_bytes(w) / l.t * (l.c - 1) / l.c / st.cp_busbw +
                  (4 * forwards + 5) * latency;
    }
    double attention_per_layer =
        (st.t_attention + (l.recompute == Recompute::none ? 0 : st.t_recompute)) / layer_mbs;
    st.t_cp = layer_mbs * per_layer;
    st.t_cp_exposed =
        w.cp_comm == "p2p" ? layer_mbs * std::max(0.0, per_layer - attention_per_layer) : st.t_cp;
  }
  if (l.p > 1) {
    double bytes_mb = tokens_mb * m.hidden * kActivationBytes / l.t;
    st.t_pp = 2 * st.micro_batches * l.v * (bytes_mb / per_gpu_nic + latency);
    // With overlap_p2p_comm, Megatron-LM's interleaved schedule posts each chunk's sends and receives
    // asynchronously and waits for them only when the next chunk needs their data, so they run under the
    // chunks' compute: hidden as other overlapped traffic. Its training/arguments.py forces the option off
    // for the non-interleaved schedule, which waits on each.
    st.t_pp_exposed = st.t_pp;
    if (l.v > 1 && !dualpipe && w.overlap_p2p_comm)
      st.t_pp_exposed -= assumption::kOverlapHidden.value * std::min(st.t_pp, t_compute + st.t_nongemm);
  }
  if (dp_ranks > 1 || expert_data_ranks(l) > 1) {
    // Folded experts (expert TP below t) can have data ranks where the dense part has none: those sit in the
    // TP group, on NVLink.
    st.dp_busbw = dp_ranks > 1 ? dp_busbw(node, cal, l, nodes) : node.gpu->link_bandwidth * cal.nvlink.value;
    // Each parameter is synchronised over the ranks holding it: the dense ones over dp x cp, the routed
    // experts' over their expert data ranks (dp x cp / e, or t cp dp / (expert t e) folded); bytes per
    // parameter and (r - 1)/r, each collective paying its latency.
    auto reduce = [&](double params, double ranks, double per_param) {
      return ranks > 1 && params > 0
                 ? params * per_param * (ranks - 1) / ranks / st.dp_busbw + latency * 2 * std::log2(ranks)
                 : 0.0;
    };
    auto sync = [&](double per_param) {
      return reduce(split.dense * trainable, dp_ranks, per_param) +
             reduce(split.expert * trainable, expert_data_ranks(l), per_param);
    };
    // Of `part`, what `window` of compute hides; where the part runs chunk by chunk, the chunk that is
    // last to be ready runs its 1/v share under its own compute (`own`) only, the collectives taking turns.
    auto expose = [&](double part, double window, double own) {
      double overlapped = std::min({part, window, part - std::max(0.0, part / l.v - own)});
      return (part - overlapped) + (1 - assumption::kOverlapHidden.value) * overlapped;
    };
    if (l.zero >= 3) {
      // ZeRO-3/FSDP: weight all-gathers and gradient reduce-scatters, ~1.5x the all-reduce volume, in every
      // micro-batch, overlapping the whole forward and backward.
      st.t_dp = assumption::kZero3Traffic.value * sync(2 * grad_bytes(w)) * st.micro_batches;
      st.t_dp_exposed = expose(st.t_dp, t_compute, t_compute);
    } else {
      // The gradients: ZeRO 0 all-reduces them (2 x grad_bytes), ZeRO 1 (Megatron-LM's distributed optimizer,
      // a whole gradient buffer) reduce-scatters them once per step, ZeRO 2 (gradients sharded) in every
      // micro-batch's backward, which it overlaps. ZeRO 1-2 then all-gather the updated weights.
      //
      // A once-per-step sync overlaps where the gradients become final and the weights are first needed.
      // With one model chunk per rank (v = 1): the last micro-batch's backward (2/3 of its compute) for the
      // reduction, bucket by bucket, and the next step's first forward (1/3) for the gather
      // (overlap_param_gather, as NeMo's recipes and MLPerf's configs run it). Under the interleaved schedule
      // Megatron-LM syncs chunk by chunk (schedules.py: a chunk's buckets reduce from its last backward on,
      // chunk j + 1's weights are gathered from chunk j's first forward on), so each chunk's share also runs
      // under the next group of p micro-batches' chunks: windows of ((v - 1)/v x min(1, p/m) + 1/(m v)) of
      // the step's backward and forward.
      double reach = dp_sync_reach(l, st.micro_batches);
      double once = sync(l.zero == 0 ? 2 * grad_bytes(w) : grad_bytes(w));
      double reduced = l.zero == 2 ? once * st.micro_batches : once;
      double gathered = l.zero == 0 ? 0.0 : sync(gathered_weight_bytes(w));
      st.t_dp = reduced + gathered;
      // The last chunk's reduction (first chunk's gather) runs under that chunk's own last backward (first
      // forward) only: 1/(m v) of the step's.
      double own = 1 / (st.micro_batches * l.v);
      st.t_dp_exposed =
          (l.zero == 2 ? expose(reduced, (2.0 / 3.0) * t_compute, (2.0 / 3.0) * t_compute)
                       : expose(reduced, (2.0 / 3.0) * t_compute * reach, (2.0 / 3.0) * t_compute * own)) +
          expose(gathered, (1.0 / 3.0) * t_compute * reach, (1.0 / 3.0) * t_compute * own);
    }
  }
  if (dualpipe && st.t_ep > 0) {
    // DualPipe pairs one micro-batch's forward chunk with another's backward chunk and runs each one's
    // all-to-all under the other's computation (DeepSeek-V3 report, section 3.2.1): hidden as other
    // overlapped traffic, up to the step's compute.
    double overlapped = std::min(st.t_ep, t_compute + st.t_nongemm);
    st.t_ep_exposed = st.t_ep - assumption::kOverlapHidden.value * overlapped;
  }
  double t_comm = st.t_tp_exposed + st.t_ep_exposed + st.t_pp_exposed + st.t_cp_exposed + st.t_dp_exposed;
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
  if (l.p > 1)
    pipe = pipe * (1 + named<Num>("imbalance", st.stages.imbalance, fraction_shown("stage imbalance"))) *
           (1 + named<Num>("bubble", st.bubble, fraction_shown("bubble")));
  std::optional<Num> comm;
  auto add = [&](Num t) { comm = comm ? *comm + t : t; };
  if (l.t > 1) add(named<Num>("t_tp_exposed", st.t_tp_exposed, seconds_shown("TP exposed")));
  if (l.e > 1) add(named<Num>("t_ep_exposed", st.t_ep_exposed, seconds_shown("EP exposed")));
  if (l.p > 1) add(named<Num>("t_pp_exposed", st.t_pp_exposed, seconds_shown("PP exposed")));
  if (l.c > 1) add(named<Num>("t_cp_exposed", st.t_cp_exposed, seconds_shown("CP exposed")));
  if (l.d * l.c > 1) add(named<Num>("t_dp_exposed", st.t_dp_exposed, seconds_shown("DP exposed")));
  return comm ? pipe + *comm : pipe;
}
template double step_time<double>(const TrainingStep&);
template Formula step_time<Formula>(const TrainingStep&);

template <typename Num>
Num model_flops_utilisation(const TrainingStep& st) {
  Num busy = named<Num>("eta_compute", st.eta_compute, fraction_shown("eta_compute")) *
             (1 - named<Num>("nongemm_share", st.nongemm_share, fraction_shown("non-GEMM")));
  if (st.layout.p > 1)
    busy = busy / (1 + named<Num>("imbalance", st.stages.imbalance, fraction_shown("stage imbalance")));
  return busy / (1 + named<Num>("bubble", st.bubble, fraction_shown("bubble"))) *
         (1 - named<Num>("comm_share", st.comm_share, fraction_shown("exposed comm")));
}
template double model_flops_utilisation<double>(const TrainingStep&);
template Formula model_flops_utilisation<Formula>(const TrainingStep&);

}  // namespace mlbench::sizing
