// The LLM training model (sizing/model_llm_training.cpp): pure functions of a workload, a node and a
// calibration, unit-tested on published cases. The step: METHODS.md "Training step"; the memory per GPU:
// METHODS.md "Training memory".
//
// Training: model FLOPs per token (GEMMs + attention, PaLM/Megatron definition, recomputation excluded from
// MFU), memory per GPU (model states by ZeRO stage, activations with tensor + sequence parallelism and flash
// attention, overheads) -> the smallest layout that fits (tensor parallel within the NVLink domain, then
// pipeline, then data), and a step time built from GEMM time at the calibrated efficiency, non-GEMM memory
// traffic at the calibrated HBM bandwidth, the pipeline bubble and the exposed part of each communication.
// MFU is the product of those factors, never a constant; HFU adds the recomputed FLOPs. Mixture of experts:
// FLOPs from the active parameters, memory from all, experts split ep ways with an all-to-all per MoE layer.
//
// The formulas are written once as templates over the number type (sizing/formula.hpp): Num = double computes
// the value the search and the planner use, Num = Formula the same value with the sheet's text. Instantiated
// for double and Formula.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/names.hpp"
#include "sizing/calibration.hpp"
#include "sizing/formula.hpp"
#include "sizing/model_gemm.hpp"
#include "sizing/model_node.hpp"
#include "sizing/workload.hpp"

namespace mlbench::sizing {

struct GemmCost {
  double gemm = 0, attention = 0;  // FLOPs per token, forward + backward (training) or forward (inference)
  double logits = 0;               // the output layer's share of `gemm` (never recomputed)
  double gemm_passes = 3;          // `gemm` in forwards: 3 (forward, input and weight gradients), 2 frozen
  double total() const { return gemm + attention; }
};
// Model FLOPs per token of training (3x forward): GEMMs 6 (N_act - V h) (the input embedding is a gather;
// 6 N_act when it is tied to the output head), the output layer's 6 V h (logits) among them, attention 2 L a
// (d_qk + d_v) s (12 L h s). LoRA (`ft`): the frozen base runs its forward and input gradient only, 4 (N_act
// - V h) with 4 V h logits, and the adapters 6 x their active parameters.
GemmCost training_flops_per_token(const TransformerModel& m, int seq_len, const FineTune& ft = {});

// LoRA's adapter parameters: r (d_in + d_out) per targeted matrix and layer, the FFN targets once per FFN
// (each expert's; active: the FFNs a token runs). q h x a d_qk, k h x kv d_qk, v h x kv d_v, o a d_v x h,
// gate and up h x f (gate only with a gated FFN), down f x h.
struct AdapterParams {
  double total = 0, active = 0;
};
AdapterParams lora_params(const TransformerModel& m, const FineTune& ft);
// The share of the parameters that train: 1, or LoRA's adapters / the base's parameters.
double trainable_share(const TransformerModel& m, const FineTune& ft);

// Activation recomputation (Korthikanti et al. 2022): selective redoes the attention core (QK^T, softmax,
// dropout, AV) in the backward, full redoes each layer's forward from its stored input.
enum class Recompute { none, selective, full };
inline constexpr EnumName<Recompute> kRecomputeNames[] = {
    {Recompute::none, "none"}, {Recompute::selective, "selective"}, {Recompute::full, "full"}};
static_assert(names_cover(kRecomputeNames));
std::string_view to_string(Recompute r);
// The precision a training step's dot-product attention multiplies in: the run's own at 16 bits and more;
// under FP8 and FP4 recipes bf16, as Transformer Engine runs it unless FP8 attention is asked for (its
// DelayedScaling fp8_dpa and Megatron-LM's fp8_dot_product_attention, both off by default: the workload's
// fp8_attention), then FP8 (NVFP4 recipes take the same switch).
std::string training_attention_precision(const LlmTraining& w);
// The rate a training step's attention multiplies at: attention_rate() at training_attention_precision(),
// except FP8 attention, which runs at the BF16 rate x the GPU's published BF16-over-FP8 fused-attention time
// ratio (assumption::kPublishedFp8Attention, log-linear between its measured powers of two, the end points
// beyond them) at the kernel's query length: the sequence's, or each rank's 1/cp of it under ring and
// all-gather context parallelism (all-to-all attends the whole sequence on 1/cp of the heads); at the BF16
// rate where none is published. `basis` says which.
struct TrainingAttentionRate {
  AttentionRate rate;
  double fp8_ratio = 1;          // forward + backward, in rate.eta_scale; 1 where none applies
  double fp8_forward_ratio = 1;  // the forward's alone: a full recompute's
  std::string basis;             // empty unless FP8 attention
};
TrainingAttentionRate training_attention_rate(const GpuSpec& gpu, const LlmTraining& w, int cp,
                                              bool sustained);

struct Layout {
  int t = 1, p = 1, d = 1, zero = 0;
  Recompute recompute = Recompute::none;
  int v = 1;            // virtual pipeline stages per GPU: 1 is plain 1F1B, more is the interleaved schedule
  int micro_batch = 1;  // sequences per micro-batch
  int c = 1;            // context parallelism: each sequence split c ways (ring attention)
  int e = 1;            // expert parallelism (MoE): routed experts split e ways within the d data ranks
  // Expert tensor parallelism (Megatron-Core's expert_tensor_parallel_size): 0 is t, its default. Below t
  // the experts fold onto their own grid (MoE parallel folding): each routed expert split et ways, the e
  // expert ranks drawn from t c d / et, not from d alone.
  int et = 0;
  int expert_t() const { return et > 0 ? et : t; }
  int gpus() const { return t * p * d * c; }
  std::string describe() const;
};

// One GPU's memory: the tensors, then the runtime's reserve (sizing/assumptions.hpp): the CUDA context, the
// cuBLAS workspace, NCCL's buffers of each communicator the GPU belongs to and the allocator's fragmentation
// of the tensors' bytes. A layout fits when the total is within the GPU's HBM.
struct MemoryBreakdown {
  double weights = 0, gradients = 0, optimizer = 0, activations = 0;
  double cuda_context = 0, workspace = 0, nccl = 0, fragmentation = 0;
  int communicators = 0;  // NCCL communicators of the GPU: one per parallel dimension it splits
  double total() const;
  std::string describe() const;  // the total's formula with its numbers and the result
};

// weights + gradients + optimizer + activations + CUDA context + cuBLAS workspace + NCCL + fragmentation.
template <typename Num>
Num memory_total(const MemoryBreakdown& b);

// Parameters one GPU holds: the dense part (attention, shared experts, router, embeddings) split t p ways,
// the routed experts t p e ways.
struct ParamSplit {
  double dense = 0, expert = 0;
  double total() const { return dense + expert; }
};
ParamSplit params_per_gpu(const TransformerModel& m, const Layout& l);
// The ranks holding the same routed experts (the expert data ranks): t c d / (expert t x e), which is
// c d / e where the experts split t ways as the rest of the layer does.
double expert_data_ranks(const Layout& l);

// Activation bytes of one transformer layer for one micro-batch on one GPU, 16-bit (Korthikanti et al.):
// s b h (10 + 24/t) + 5 a s^2 b / t without sequence parallelism, 34 s b h / t + 5 a s^2 b / t with it; the
// score term 5 a s^2 b / t only with standard attention and no recomputation; full recomputation keeps the
// layer's input, 2 s b h (/ t with sequence parallelism). s is the GPU's share of the sequence (s / c). A MoE
// layer's FFN part (16 s b h / t of the 34 for one 4h FFN) becomes top_k + shared FFNs of their width, each
// (2 or 3) x f elements, and the routed tokens' k input copies.
double layer_activation_bytes(const TransformerModel& m, const LlmTraining& w, const Layout& l);

MemoryBreakdown training_memory(const TransformerModel& m, const LlmTraining& w, const Layout& l);
// Bytes per gradient element as the optimizer keeps and reduces them: 2 (bf16, `adam`) or 4
// (`adam-fp32-grads`).
double grad_bytes(const LlmTraining& w);
// Bytes per weight ZeRO 1-2 all-gather after the optimizer step: 1 under fp8_params (Megatron-LM's
// fp8_param_gather) but for MXFP8, whose weights Megatron-LM gathers in bf16; else 2; a LoRA run gathers its
// 16-bit adapters.
double gathered_weight_bytes(const LlmTraining& w);

struct RankedLayout {
  Layout layout;
  double step_s = 0;
};

struct LayoutChoice {
  std::optional<Layout> layout;
  MemoryBreakdown memory;  // of the chosen layout, or of the most sharded one tried when nothing fits
  Layout most_sharded;
  std::string why_not;                 // when nothing fits
  std::vector<RankedLayout> compared;  // the fastest fitting candidates, best first (at most 3)
  int fitting = 0;                     // candidates that fit
};
// The fastest layout (shortest training_step) among those whose memory, the runtime's reserve included, fits
// the GPU's HBM (the planning headroom is a margin on time, not on memory). The
// workload's layout fields are fixed; the others are searched: recompute (auto: none, selective, full),
// micro-batch (1, 2, 4, 8), tensor parallel (powers of two within the NVLink domain dividing the heads),
// pipeline (powers of two up to the layers), context parallel (powers of two keeping >= 4096 tokens per
// rank), virtual stages (the divisors of floor(L / p) with the interleaved schedule) and the ZeRO stage.
// Ties keep the earlier candidate: less recomputation, smaller micro-batch, smaller t p, then ZeRO stage.
// `gpus` total GPUs; d is the largest runnable() one (a multiple of e) up to min(floor(gpus / (t p c)),
// sequences per step / micro-batch) unless fixed, so a node count that t p c d does not fill, or more GPUs
// than the batch can use, leaves the remainder idle.
LayoutChoice choose_layout(const TransformerModel& m, const LlmTraining& w, const NodeFacts& node,
                           const Calibration& cal, int gpus);

// Whether Megatron-LM runs the layout on `sequences` per step: a whole number of them that micro_batch x d
// divides (num_microbatches_calculator.py asserts global_batch_size % (micro_batch_size x data_parallel_size)
// == 0), and with the interleaved schedule (v > 1) micro-batches per replica a multiple of p (schedules.py,
// forward_backward_pipelining_with_interleaving: M must fill whole groups of
// microbatch_group_size_per_vp_stage, p by default). The layout search keeps only these.
bool runnable(const Layout& l, double sequences);
// The workload's global batch rounded to the nearest one its fixed layout fields can run: whole sequences, a
// multiple of micro_batch x dp (each 1 when not fixed) and of pp too when vp > 1 is fixed. Equal to
// global_batch_tokens when that already runs.
double runnable_batch_tokens(const LlmTraining& w);

// Pipeline bubble (METHODS.md "Pipeline bubble") as idle time relative to the ideal compute time, (p - 1) /
// (v m), with v virtual stages per GPU (1: plain 1F1B) and m micro-batches per replica per step.
double pipeline_bubble(int p, int v, double micro_batches);
// The share of the step's backward (forward) a once-per-step data-parallel reduction (weight gather) runs
// under (training_step): (v - 1)/v x min(1, p/m) + 1/(m v), the chunk-by-chunk sync of the interleaved
// schedule; 1/m, the last micro-batch's backward or the first's forward, with one chunk per rank.
double dp_sync_reach(const Layout& l, double micro_batches);
// DualPipe's bubble over m micro-batches on p stages (DeepSeek-V3), as a share of the compute.
double dualpipe_bubble(int p, double micro_batches);
// The pipeline stages' loads (METHODS.md "Pipeline bubble"): p stages run whole layers of `layer` seconds
// each; `ends` of them (the last; under DualPipe the first and the last, one per direction) share the output
// layer's `out` seconds. Megatron-LM splits the layers evenly where p divides them (its default); otherwise
// the run names an uneven split, taken as the one whose busiest stage is least busy.
struct StageLoad {
  int last_layers = 0;   // layers on each stage that runs the output layer
  int other_layers = 0;  // the most layers on any other stage
  int ends = 1;          // the stages sharing the output layer
  double layer = 0, out = 0;
  double imbalance = 0;  // the busiest stage's load over the mean, less 1
};
StageLoad stage_load(int layers, int p, double layer, double out, int ends = 1);
// The most virtual stages per GPU the interleaved schedule allows: one layer per virtual stage at least,
// v = floor(L / p); 1 without pipelining. The price, also modelled: v times the point-to-point sends.
int virtual_stages(int layers, int p);

struct TrainingStep {
  Layout layout;
  MemoryBreakdown memory;
  double micro_batches = 0;  // per data-parallel replica per step
  int virtual_stages = 1;
  double t_gemm = 0, t_attention = 0, t_recompute = 0, t_nongemm = 0;
  GemmPhase gemm;     // the micro-batch's GEMMs by the shape model: t_gemm runs at gemm.eta x the derate
  double bubble = 0;  // pipeline_bubble(p, v, micro_batches); the step takes (1 + bubble) x its compute
  StageLoad stages;   // stage_load of the step's compute; the step takes (1 + stages.imbalance) x it
  double t_tp = 0, t_pp = 0, t_cp = 0, t_cp_exposed = 0, t_dp = 0, t_dp_exposed = 0;
  double t_tp_exposed = 0;              // t_tp less the backward's collectives hidden behind their GEMMs
  double t_pp_exposed = 0;              // t_pp less the interleaved schedule's sends hidden behind compute
  double tp_overlapped_reductions = 0;  // of the all-reduce volumes per layer, those overlapped
  double t_ep = 0;                      // MoE all-to-all dispatch + combine
  double t_ep_exposed = 0;              // of it, what no computation hides (all of it but under DualPipe)
  double ep_copies = 0;  // copies of a token each all-to-all sends: top_k, or its nodes when node-limited
  double dp_busbw = 0, tp_busbw = 0, cp_busbw = 0, ep_busbw = 0;
  double ep_nvlink_busbw = 0;  // the all-to-all's NVLink rate, for the peers in this GPU's domain
  double ep_local = 0;  // of the e expert-parallel ranks, those in the worst-placed GPU's domain (itself too)
  bool ep_in_domain = true;  // the expert-parallel group spans t e GPUs within the NVLink domain
  double tp_calls = 0;  // tensor-parallel collective calls per layer and micro-batch, each paying the latency
  // Of the FFN half of the tensor-parallel volume, what runs: 1, less where folded experts (expert TP below
  // t) keep the MoE layers' FFN collectives within their expert TP ranks.
  double tp_ffn_volume = 1;
  double step_s = 0;
  double eta_compute = 0, nongemm_share = 0, comm_share = 0;
  double mfu = 0;           // model FLOPs (6ND-style, no recomputation) / (peak x step)
  double hfu = 0;           // hardware FLOPs (with the recomputed forward) / (peak x step)
  double tokens_per_s = 0;  // whole cluster
};
// The micro-batch's GEMMs of `layout` by the shape model (training_step's st.gemm).
GemmPhase training_gemm_phase(const TransformerModel& m, const LlmTraining& w, const GpuSpec& gpu,
                              const Calibration& cal, const Layout& layout);
// `gemm`: training_gemm_phase of the layout when the caller has it (a layout search shares it between the
// layouts of one micro-batch shape), else computed.
TrainingStep training_step(const TransformerModel& m, const LlmTraining& w, const NodeFacts& node,
                           const Calibration& cal, const Layout& layout, const GemmPhase* gemm = nullptr);

// (GEMM + attention [+ recompute] + non-GEMM) [x (1 + bubble)] [+ TP] [+ EP all-to-all] [+ PP] [+ CP exposed]
// [+ DP exposed]: the bracketed terms where the layout has them.
template <typename Num>
Num step_time(const TrainingStep& st);
// eta_compute x (1 - non-GEMM share) / (1 + bubble) x (1 - exposed comm share) = model FLOPs / (peak x step).
template <typename Num>
Num model_flops_utilisation(const TrainingStep& st);

}  // namespace mlbench::sizing
