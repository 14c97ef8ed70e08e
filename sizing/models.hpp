// Performance models of the sizing engine (docs/METHODS.md, its sizing sections): pure functions of a
// workload, a node and a calibration, unit-tested on published cases.
//
// Training: model FLOPs per token (GEMMs + attention, PaLM/Megatron definition, recomputation excluded from
// MFU), memory per GPU (model states by ZeRO stage, activations with tensor + sequence parallelism and flash
// attention, overheads) -> the smallest layout that fits (tensor parallel within the NVLink domain, then
// pipeline, then data), and a step time built from GEMM time at the calibrated efficiency, non-GEMM memory
// traffic at the calibrated HBM bandwidth, the pipeline bubble and the exposed part of each communication.
// MFU is the product of those factors, never a constant; HFU adds the recomputed FLOPs. Mixture of experts:
// FLOPs from the active parameters, memory from all, experts split ep ways with an all-to-all per MoE layer.
// Inference: prefill and decode phases, the KV cache as a serving engine sizes it, a request queue (below).
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/names.hpp"
#include "sizing/assumptions.hpp"
#include "sizing/calibration.hpp"
#include "sizing/catalog.hpp"
#include "sizing/formula.hpp"
#include "sizing/workload.hpp"

namespace mlbench::sizing {

struct GemmCost {
  double gemm = 0, attention = 0;  // FLOPs per token, forward + backward (training) or forward (inference)
  double logits = 0;               // the output layer's share of `gemm` (never recomputed)
  double gemm_passes = 3;          // `gemm` in forwards: 3 (forward, input and weight gradients), 2 frozen
  double total() const { return gemm + attention; }
};
// Model FLOPs per token of training (3x forward): GEMMs 6 (N_act - V h), the output layer's 6 V h (logits)
// among them, attention 2 L a (d_qk + d_v) s (12 L h s). LoRA (`ft`): the frozen base runs its forward and
// input gradient only, 4 (N_act - V h) with 4 V h logits, and the adapters 6 x their active parameters.
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
// experts on a GPU): their tiles share the waves and each reads its own weights.
struct GemmRates {
  double peak = 0;       // FLOP/s at the precision
  double asymptote = 0;  // large-GEMM efficiency: published or measured
  double hbm = 0;        // B/s, datasheet x calibrated efficiency
  double in_bytes = 2, out_bytes = 2;
  int sms = 0;  // 0: no tile or wave quantization (a measured efficiency already holds it)
};
// The rates of `gpu` at `precision` under calibration `cal`: the tile/wave quantization applies where the
// asymptote is assumed (a published best-shape figure), not where a report measured the workload's shapes.
GemmRates gemm_rates(const GpuSpec& gpu, std::string_view precision, const Calibration& cal);

// A forward GEMM y = x W^T (m tokens, n outputs, k inputs) or one of its backward GEMMs: the input gradient
// (m x k x n) or the weight gradient (n x k x m).
enum class GemmPass { forward, dgrad, wgrad };
struct NamedGemm {
  std::string name;  // "QKV", "experts up"
  GemmShape shape;   // m, n, k
  double group = 1;  // GEMMs of this shape in one grouped launch (sharing its waves)
  double count = 1;  // launches per phase (a layer's GEMMs: one per layer)
  GemmPass pass = GemmPass::forward;
};
struct GemmShapeModel {
  NamedGemm gemm;
  int tile_m = 0, tile_n = 0, split = 1;  // split-K slices
  double tiles = 0, waves = 0, quantization = 1;
  double flops = 0, compute_s = 0, memory_s = 0;
  double reduction_s = 0;  // split-K's partial outputs written and read back, after the GEMM
  double eta = 0;          // flops / (peak x time)
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
  double asymptote = 0;
};
GemmPhase gemm_phase(const std::vector<NamedGemm>& gemms, const GemmRates& r);
// Each class with its efficiency and basis, "QKV 2048x1536x4096: 128x256 tiles 96 on 108 SMs = 1 wave,
// quantization 0.889, compute-bound, eta 0.772; ...".
std::string describe(const GemmPhase& p);

// The gpu.gemm command that measures the phase's GEMM shapes (each distinct m x n x k once, a grouped GEMM's
// single shape, each dimension rounded up to a multiple of 16 as FP8/INT8 tensor-core GEMMs need), so that a
// report of it calibrates the phase at its own shapes: "mlbench gemm --precisions bf16 --shapes
// 2048x7680x20480,...".
std::string gemm_probe_command(const GemmPhase& p, std::string_view precision);

// The transformer layers' GEMMs (L launches of each) and the output layer's logits (one) on one GPU of a
// tensor-parallel group of t, for `rows` tokens: QKV, O, FFN up and down at `rows` rows; a MoE layer's routed
// experts as grouped GEMMs of the ep ranks' rows x ep x top_k / touched rows each, touched = E (1 - (1 -
// k/E)^(rows ep)) of the E experts (all of them at training's token counts), touched / ep of them on this
// GPU; its router (rows x E x h). `backward`: each GEMM's input-gradient (m x k x n) and weight-gradient (n x
// k x m) GEMMs as well.
std::vector<NamedGemm> layer_gemms(const TransformerModel& m, double rows, int t, int ep, bool backward);

// Activation recomputation (Korthikanti et al. 2022): selective redoes the attention core (QK^T, softmax,
// dropout, AV) in the backward, full redoes each layer's forward from its stored input.
enum class Recompute { none, selective, full };
inline constexpr EnumName<Recompute> kRecomputeNames[] = {
    {Recompute::none, "none"}, {Recompute::selective, "selective"}, {Recompute::full, "full"}};
static_assert(names_cover(kRecomputeNames));
std::string_view to_string(Recompute r);

struct Layout {
  int t = 1, p = 1, d = 1, zero = 0;
  Recompute recompute = Recompute::none;
  int v = 1;            // virtual pipeline stages per GPU: 1 is plain 1F1B, more is the interleaved schedule
  int micro_batch = 1;  // sequences per micro-batch
  int c = 1;            // context parallelism: each sequence split c ways (ring attention)
  int e = 1;            // expert parallelism (MoE): routed experts split e ways within the d data ranks
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

// The formulas below are written once as templates over the number type (sizing/formula.hpp): Num = double
// computes the value the search and the planner use, Num = Formula the same value with the sheet's text.
// Instantiated for double and Formula.

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

// The node facts the models need.
struct NodeFacts {
  const GpuSpec* gpu = nullptr;
  int gpus = 8, domain = 8;
  double nic_bytes_per_s = 0;  // all compute-fabric NICs of one node
};

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

// Pipeline bubble (METHODS.md "Pipeline bubble") as idle time relative to the ideal compute time,
// (p - 1) / (v m), with v virtual stages per GPU (1: plain 1F1B) and m micro-batches per replica per step.
double pipeline_bubble(int p, int v, double micro_batches);
// DualPipe's bubble over m micro-batches on p stages (DeepSeek-V3), as a share of the compute.
double dualpipe_bubble(int p, double micro_batches);
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
  double t_tp = 0, t_pp = 0, t_cp = 0, t_cp_exposed = 0, t_dp = 0, t_dp_exposed = 0;
  double t_tp_exposed = 0;              // t_tp less the backward's collectives hidden behind their GEMMs
  double tp_overlapped_reductions = 0;  // of the all-reduce volumes per layer, those overlapped
  double t_ep = 0;                      // MoE all-to-all dispatch + combine
  double t_ep_exposed = 0;              // of it, what no computation hides (all of it but under DualPipe)
  double ep_copies = 0;  // copies of a token each all-to-all sends: top_k, or its nodes when node-limited
  double dp_busbw = 0, tp_busbw = 0, cp_busbw = 0, ep_busbw = 0;
  bool ep_in_domain = true;  // the expert-parallel group spans t c e GPUs within the NVLink domain
  double tp_calls = 0;  // tensor-parallel collective calls per layer and micro-batch, each paying the latency
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

struct CvStep {
  double images_per_s_gpu = 0, step_s = 0, t_dp = 0, t_dp_exposed = 0, comm_share = 0;
  double batch_per_gpu = 256;
  double flops_per_image = 0, peak = 0,
         eta = 0;  // the compute: batch x 3 x FLOP per image / (peak x eta_CNN)
};
CvStep cv_step(const CvTraining& w, const NodeFacts& node, const Calibration& cal, int gpus);
// batch / (batch x 3 x FLOP per image / (peak x eta_CNN) + exposed DP): images per second per GPU.
template <typename Num>
Num cv_images_per_s_gpu(const CvStep& st);

// work / rate / goodput: the time to train, for `work` tokens or images at `rate` per second (the cluster's).
template <typename Num>
Num time_to_train(const char* work, double amount, const char* rate, double per_s, double goodput);

// Serving (METHODS.md "Serving decode and prefill"): prefill and decode are separate phases. Prefill runs the
// prompt's tokens through the GEMMs together: compute-bound, at the GEMM efficiency of prompt-sized shapes.
// Decode runs one token per sequence of the batch: each GEMM reads the instance's weights once per step and
// does batch x 2 N_act FLOPs, so it is memory-bound below the crossover batch weights / HBM = batch x 2 N_act
// / (t peak eta) and compute-bound above it; the attention reads each sequence's KV cache and stays
// memory-bound at any batch (its FLOPs per byte are 2 a / (n_kv bytes)). The GEMMs and the attention are
// separate kernels, so the step is the sum of the two rooflines, not the roofline of the sums.

// The serving engine's memory settings of a workload on a GPU: the workload's keys, else its engine's
// defaults (sizing/assumptions.hpp: vLLM's, or TensorRT-LLM's with trtllm-bench's batch settings);
// `given` says which the workload set. The engine schedules at most max_num_seqs sequences together.
struct ServingBudget {
  bool trtllm = false;           // TensorRT-LLM: utilisation is free_gpu_memory_fraction
  bool whole_sequences = false;  // its GUARANTEED_NO_EVICT: a request reserves its input + output
  double utilisation = 0, max_num_batched_tokens = 0, max_num_seqs = 0, cuda_graphs = 0;
  bool utilisation_given = false, batched_tokens_given = false, seqs_given = false, graphs_given = false;
};
ServingBudget serving_budget(const LlmInference& w, const GpuSpec& gpu, int t);
// trtllm-bench's max_batch_size and max_num_tokens for a workload on t GPUs (kTrtllmBenchTuning).
// The bytes of a served model's weights: every parameter at the workload's precision, the parts it keeps
// unquantized (LlmInference::unquantized) at 16 bits.
double serving_weight_bytes(const LlmInference& w);
// Of those, the parameters kept at 16 bits.
double unquantized_params(const LlmInference& w);

struct TrtllmBenchSettings {
  double max_batch_size = 0, max_num_tokens = 0;
};
TrtllmBenchSettings trtllm_bench_settings(const LlmInference& w, const GpuSpec& gpu, int t);

// KV-cache capacity per GPU as serving engines compute it (vLLM's memory profiling): HBM x
// gpu_memory_utilization - weights - the activation peak of a profile forward pass of max_num_batched_tokens
// - the non-torch runtime (CUDA context, cuBLAS workspace, NCCL with t > 1) - CUDA graphs.
// TensorRT-LLM (of_free): free_gpu_memory_fraction x (HBM - weights - activation peak - runtime), the CUDA
// graphs in the rest.
struct KvCapacity {
  double hbm = 0, utilisation = 0, weights = 0, activation_peak = 0;
  double cuda_context = 0, workspace = 0, nccl = 0, cuda_graphs = 0;
  bool of_free = false;
};
template <typename Num>
Num kv_cache_per_gpu(const KvCapacity& k);
// The profile forward pass's activation peak on one GPU of t: `tokens` x (residual + normed input h and the
// FFN's (2|3) x f x FFNs per token / t intermediates) x 2 B, plus fp32 logits of `seqs` sequences x V. MoE:
// the routed copies' intermediates as vLLM's fused MoE holds them, max(2 f / t, h) + f / t each, for at most
// its 16,384-token chunk.
double profile_activation_peak(const TransformerModel& m, double tokens, double seqs, int t);

// The inputs of one decode step of a serving instance, per GPU of its t.
struct DecodeStep {
  double weights = 0;          // weight bytes read per GPU per step (MoE: the experts the batch routes to)
  double kv_read = 0;          // KV-cache bytes read per GPU: batch x context x KV per token / kv_shards
  double hbm = 0;              // B/s, datasheet x calibrated efficiency
  double batch = 0;            // sequences decoded together
  double rows = 0;             // the GEMMs' rows: the batch padded to its CUDA graph (cuda_graph_rows)
  double flops_per_token = 0;  // 2 N_act
  double attention_flops = 0;  // per token: 2 L a (d_qk + d_v) x average context (MLA: absorbed)
  double t = 1, peak = 0, eta = 0;  // eta: the GEMM efficiency at decode shapes (batch rows)
  double tp_s = 0;                  // the tensor-parallel all-reduces of the step (t > 1)
  double moe_bytes = 0;  // MoE: the routed copies' permutation to their experts and back, per GPU per step
};
// The rows a decode step of `batch` sequences runs its GEMMs at: the smallest of the workload's
// cuda_graph_batch_sizes that holds the batch (the engine pads the step to that captured graph), else the
// batch (no graphs given, or a batch above the largest one runs eagerly).
double cuda_graph_rows(const LlmInference& w, double batch);
// A GEMM's time from its memory and compute times: max(memory, compute) + s x min(memory, compute), s the
// share of the shorter that its pipeline leaves unhidden (assumption::kGemmUnhiddenShare).
template <typename Num>
Num gemm_time(const Num& memory, const Num& compute);
// gemm_time(weights / HBM, rows x 2 N_act / (t x peak x eta)).
template <typename Num>
Num decode_gemm_time(const DecodeStep& d);
// max(KV read / HBM, batch x attention / (t x peak x eta)).
template <typename Num>
Num decode_attention_time(const DecodeStep& d);
// GEMMs + attention [+ MoE permutation bytes / HBM] [+ TP all-reduces].
template <typename Num>
Num decode_step_time(const DecodeStep& d);
// The batch from which the decode GEMMs are compute-bound: (weights / HBM) / (2 N_act / (t x peak x eta)).
template <typename Num>
Num decode_crossover_batch(const DecodeStep& d);

// The prompt's forward pass of a serving instance, compute-bound.
struct Prefill {
  double tokens = 0;                // prompt length
  double flops_per_token = 0;       // 2 N_act
  double attention_flops = 0;       // whole prompt, causal: L a (d_qk + d_v) s^2
  double t = 1, peak = 0, eta = 0;  // eta: the GEMM efficiency at prefill shapes (batched prompt tokens)
  double tp_s = 0;
  double weights = 0;  // weight bytes the prompt's GEMMs read per GPU: its share of the chunk's one read
  double hbm = 0;      // B/s, datasheet x calibrated efficiency
};
// gemm_time(weights / HBM, 2 N_act x tokens / (t x peak x eta)) + attention / (t x peak x eta) [+ TP
// all-reduces].
template <typename Num>
Num prefill_time(const Prefill& p);
// prefill + one decode step.
template <typename Num>
Num time_to_first_token(const Prefill& p, double decode_step_s);

// The request queue of one instance at a request rate: M/D/c with the batch's c slots as servers, each
// request holding a slot for a deterministic service time (its prefill and `out` decode steps), the waiting
// time by the Allen-Cunneen approximation W = (1 + C_s^2)/2 x W(M/M/c), C_s = 0, with Erlang C's P(wait).
// Prefills take the instance's time share lambda x prefill from the decode steps: TPOT = step / (1 - that).
struct RequestQueue {
  double lambda = 0;     // requests/s arriving at this instance
  double servers = 0;    // batch slots
  double prefill_s = 0;  // one request's prefill
  double step_s = 0;     // the decode step at the full batch
  double out = 0;        // output tokens per request
  double prefill_share = 0, tpot_s = 0, service_s = 0, load = 0, p_wait = 0, wait_s = 0;
  // At the latency percentile (kLatencyPercentile): the queue wait, the prefills that land in one request's
  // decode and its TPOT.
  double wait_p99_s = 0, prefills_p99 = 0, tpot_p99_s = 0;
  bool stable = false;  // load < 1 and prefill share < 1
};
// MLPerf's server and interactive scenarios bound TTFT and TPOT at the 99th percentile of requests.
inline constexpr double kLatencyPercentile = 0.99;
// The smallest n with P(N <= n) >= q for N ~ Poisson(mean).
double poisson_quantile(double mean, double q);
RequestQueue request_queue(double lambda, double servers, double prefill_s, double step_s, double out);
// Erlang C: P(wait) of an M/M/c queue with c servers and offered load a = lambda x service (Erlang B
// recursion, stable for thousands of servers).
double erlang_c(double servers, double offered);
// (1 + C_s^2) / 2 x P_wait / (c / service - lambda), C_s = 0.
template <typename Num>
Num queue_wait(const RequestQueue& q);
// wait + prefill + TPOT at the rate (step / (1 - lambda x prefill)).
template <typename Num>
Num ttft_at_rate(const RequestQueue& q);
// The p99 of the queue wait. M/M/c's wait is exponential past P(wait), P(W > t) = C(c, a) exp(-(c mu -
// lambda) t) (Gross and Harris, Fundamentals of Queueing Theory, M/M/c waiting-time distribution); for other
// service times the wait given waiting is taken exponential with its mean scaled by (1 + C_s^2) / 2, as
// Allen-Cunneen scales the mean (Whitt 1993, Approximations for the GI/G/m queue):
// t_q = (1 + C_s^2) / 2 x ln(P_wait / (1 - q)) / (c / service - lambda), 0 when P_wait <= 1 - q; C_s = 0.
template <typename Num>
Num queue_wait_p99(const RequestQueue& q);
// p99 wait + prefill + TPOT at the rate: the percentile falls on the wait, the rest is deterministic.
template <typename Num>
Num ttft_p99(const RequestQueue& q);
// (out x step + n99 x prefill) / out: the request's decode steps plus the prefills that arrive during them,
// n99 the Poisson(lambda x out x TPOT) count's 99th percentile (arrivals are Poisson; each prefill stalls the
// batch's decode). Its mean is the queue's TPOT, step / (1 - lambda x prefill).
template <typename Num>
Num tpot_p99(const RequestQueue& q);

struct ServingPoint {
  int t = 1;
  double batch = 0, max_batch = 0;  // the batch served; the most the KV cache holds
  KvCapacity kv;                    // per GPU
  ServingBudget budget;             // the engine settings the KV cache was sized with
  double weights_per_gpu = 0, kv_per_token = 0, kv_budget = 0;  // kv budget for the instance (t GPUs)
  double reserved_tokens = 0;  // of the KV cache a sequence holds when admitted (ServingBudget::trtllm)
  int kv_shards = 1;           // the ways the instance's KV cache is split (kv_shards())
  double step_s = 0, prefill_s = 0, ttft_s = 0, crossover = 0;
  double tokens_per_s_instance = 0, tokens_per_s_node = 0;
  std::string bound;  // "memory" or "compute" (the decode GEMMs)
  bool meets_targets = true;
  DecodeStep decode;         // at `batch`: step_s = decode_step_time(decode)
  Prefill prefill;           // prefill_s = prefill_time(prefill)
  double output_tokens = 0;  // per request
  int instances = 1;         // per node: its GPUs / t
  std::string batch_rule;    // how the batch was chosen
};
// The ways t tensor-parallel GPUs split a KV cache: by KV head, min(t, kv_heads), the rest holding copies;
// latent attention's one latent per token is whole on every GPU (1).
int kv_shards(const TransformerModel& m, int t);
// The fixed cost of one tensor-parallel all-reduce when serving on `gpu`: the custom one-shot kernel's
// (kServingAllReduceLatency) when the GPUs share NVLink, which that kernel needs (peer-to-peer loads and
// stores); on PCIe the serving engines fall back to NCCL (kCollectiveLatency).
double serving_allreduce_latency(const GpuSpec& gpu);
// out / (out x decode step / batch + prefill) x instances: output tokens per second per node, each request
// costing its prefill plus `out` decode steps shared by the batch (continuous batching).
template <typename Num>
Num serving_tokens_per_s_node(const ServingPoint& sp);
// weights + the KV budget, per GPU.
template <typename Num>
Num serving_hbm_per_gpu(const ServingPoint& sp);
// The tensor-parallel degree (the workload's, else searched) and batch that serve the most output tokens per
// second per node while meeting the TTFT/TPOT targets scaled by (1 - headroom): the workload's batch, else
// offline the best batch up to what the KV cache holds, else the largest batch meeting the TPOT target.
// eta_prefill and eta_decode: the GEMM efficiencies of the two phases. nullopt when nothing fits.
std::optional<ServingPoint> serving_point(const LlmInference& w, const NodeFacts& node,
                                          const Calibration& cal, double eta_prefill, double eta_decode,
                                          double headroom, std::string* why_not);

// Node nameplate with `cooling`: GPUs x TDP x its GPU power factor + CPUs + DRAM (0.375 W/GB) + NICs +
// drives + other, in W.
template <typename Num>
Num node_nameplate(const NodeTemplate& n, const HardwareCatalog& c, const CoolingSpec& cooling);
double node_nameplate_w(const NodeTemplate& n, const HardwareCatalog& c, const CoolingSpec& cooling);

// The energy of a run: (nodes x nameplate x average share + switches) / 1000 x hours x PUE, in kWh.
struct EnergyUse {
  double nodes = 0, node_w = 0, average_share = 0, switch_w = 0, hours = 0, pue = 1;
};
template <typename Num>
Num energy_kwh(const EnergyUse& e);

}  // namespace mlbench::sizing
