// Workload descriptions (configs/workloads/*.yaml): what must be trained or served, and by when.
//
// kind: llm-training | cv-training | llm-inference. A transformer is given by its architecture (layers,
// hidden, heads, kv_heads, head_dim, ffn_hidden, vocab; latent attention's ranks) or by a parameter count
// alone, in which case the architecture is derived with the usual aspect ratio (hidden = 128 x layers,
// N = 12 L h^2) and the sheet says so. Unknown keys, missing fields and non-positive quantities are refused
// with a UsageError naming the file and key.
#pragma once

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace mlbench::sizing {

struct TransformerModel {
  int layers = 0, hidden = 0, heads = 0, kv_heads = 0, ffn_hidden = 0, vocab = 0;
  bool gated_ffn = true;  // SwiGLU: three FFN matrices instead of two
  bool rms_norm = true;   // norm: rmsnorm (Llama) or layernorm (GPT)
  bool rotary = true;     // rotary position embeddings in every layer (GPT: learned, at the input)
  bool dropout = false;   // dropout after attention and FFN and on the scores (GPT; Llama has none)
  // The output head shares the input embedding's matrix (config.json tie_word_embeddings: Granite, Gemma,
  // GPT-2/3, Llama 3.2 1B and 3B); untied, each is a vocab x hidden matrix of its own.
  bool tied_embeddings = false;
  double params = 0;           // total parameters (embeddings included)
  double active_params = 0;    // per token (MoE); equals params for dense models
  bool derived_shape = false;  // architecture derived from the parameter count
  // Mixture of experts: each layer's FFN is `experts` routed FFNs of ffn_hidden (each token runs `top_k` of
  // them, picked by a router of h x experts) plus `shared_experts` FFNs every token runs. 0: a dense FFN.
  int experts = 0, top_k = 0, shared_experts = 0;
  // Node-limited routing (DeepSeek-V3; Hugging Face config n_group, topk_group): the experts form
  // expert_groups groups and a token's top_k experts come from its best group_top_k groups. 0: none.
  int expert_groups = 0, group_top_k = 0;
  // Attention width per head when the model gives it apart from hidden / heads (Qwen3, GPT-OSS: the
  // projections are h x heads head_dim); 0: hidden / heads.
  int explicit_head_dim = 0;
  // Multi-head latent attention (DeepSeek-V2/V3): K and V are rebuilt per head from a kv_lora_rank latent
  // that, with the qk_rope_head_dim decoupled rotary key, is all the KV cache holds per token and layer; the
  // query goes through a q_lora_rank latent (0: a full h x heads (nope + rope) projection). 0: none.
  int kv_lora_rank = 0, q_lora_rank = 0, qk_rope_head_dim = 0, qk_nope_head_dim = 0, v_head_dim = 0;
  // Dense layers in a MoE model (DeepSeek-V3's first_k_dense_replace, Llama 4 Maverick's alternate layers,
  // interleave_moe_layer_step): dense_layers of the layers run one dense FFN of dense_ffn_hidden in place of
  // the router and the experts. 0: every layer of a MoE model is a MoE layer.
  int dense_layers = 0, dense_ffn_hidden = 0;
  // Local attention: in every layer but each global_every-th (0: in every layer) a query attends to at most
  // local_window tokens: the last local_window (a sliding window: Mistral, Gemma, GPT-OSS) or, local_chunked,
  // those of its own local_window-token chunk (Llama 4's attention_chunk_size). 0: every layer attends to the
  // whole context.
  int local_window = 0, global_every = 0;
  bool local_chunked = false;

  int head_dim() const { return explicit_head_dim > 0 ? explicit_head_dim : hidden / heads; }
  // The embedding matrices' parameters: the input table and the output head, vocab x hidden each, one matrix
  // when tied.
  double embedding_params() const { return (tied_embeddings ? 1.0 : 2.0) * vocab * hidden; }
  // The active parameters a token multiplies: all but the input embedding table, of which it gathers one
  // row (tied, that table is the output head's weights, which it multiplies).
  double multiplied_params() const {
    return std::max(0.0, active_params - (tied_embeddings ? 0.0 : static_cast<double>(vocab) * hidden));
  }
  // How the sheets write multiplied_params(): "(N_act - V h)", or "N_act" when the embeddings are tied.
  const char* multiplied_params_symbol() const { return tied_embeddings ? "N_act" : "(N_act - V h)"; }
  bool moe() const { return experts > 0; }
  bool mla() const { return kv_lora_rank > 0; }
  // Per head: the query-key dot product's width and the value's (MLA: nope + rope and v_head_dim).
  int qk_head_dim() const { return mla() ? qk_nope_head_dim + qk_rope_head_dim : head_dim(); }
  int v_dim() const { return mla() ? v_head_dim : head_dim(); }
  // Parameters of one layer's attention projections (Q, K, V, O; MLA: its down and up projections).
  double attention_params() const;
  // KV-cache elements per token over all layers: 2 L kv_heads head_dim, MLA L (kv_lora_rank + rope).
  double kv_elements_per_token() const;
  // Forward attention FLOPs of one query token against one context token over all layers: QK^T and AV,
  // 2 L heads (d_qk + d_v) (= 4 L h with d = h / heads). absorbed: MLA's decode form, the up projections
  // folded into the query and output, so each head dots against the latent: 2 L heads (2 kv_lora + rope).
  double attention_flops_per_context_token(bool absorbed = false) const;
  // Layers that attend within the local window (0 without local attention).
  int local_layers() const;
  // The query-key pairs of the queries at positions from + 1 .. to (a prompt: 0 .. n; decode: input .. input
  // + output) over the layers, as a share of those pairs under causal attention to the whole context in every
  // layer: 1 without local attention. The attention FLOPs and KV reads above scale by it.
  double attended_share(double from, double to) const;
  // What the sheet says of it, with the share: "" without local attention.
  std::string local_attention_text(double share) const;
  // Parameters of one FFN (one expert's, or the dense layer's).
  double ffn_params() const;
  // Parameters of a MoE model's dense-layer FFN (dense_ffn_hidden wide).
  double dense_ffn_params() const;
  // Parameters in one layer's matrices (attention QKV+O, every FFN and expert, the router), averaged over
  // the layers where a MoE model has dense ones: the weights.
  double layer_matrix_params() const;
  // The same that one token runs through (top_k routed + shared experts): its FLOPs.
  double layer_active_params() const;
  // Layers with a router and experts: all of a MoE model's but its dense ones; 0 in a dense model.
  int moe_layers() const { return moe() ? layers - dense_layers : 0; }
  // Their share of the layers: the weight of a MoE layer's per-layer terms (routing, permutation,
  // all-to-all) in a per-layer average; 0 in a dense model, however many layers it states.
  double moe_share() const { return moe() ? static_cast<double>(moe_layers()) / layers : 0.0; }
  // All routed experts' parameters of the model: MoE layers x experts x FFN (split ep ways by expert
  // parallelism).
  double expert_params() const { return static_cast<double>(moe_layers()) * experts * ffn_params(); }
  // FFNs one token runs per MoE layer: top_k + shared_experts; 1 in a dense model.
  double ffns_per_token() const { return moe() ? top_k + shared_experts : 1; }
  // The FFN width one token runs per layer, averaged over the layers: ffn_hidden in a dense model, (top_k +
  // shared_experts) ffn_hidden in a MoE layer, dense_ffn_hidden in a dense one. routed false: without the
  // routed experts (a MoE layer's shared experts only).
  double ffn_width(bool routed = true) const;
};

struct Checkpointing {
  double interval_s = 3600;
  int retention = 5;
  double allowed_stall_s = 60;
  // The local array must keep the staged checkpoint through a drive failure (it is the only recent copy
  // until drained to shared storage); false: RAID-0 may lose it and the previous one is re-read.
  bool survive_drive_loss = false;
  // Which of the above the workload gave (the others are these defaults); the sheet says which.
  bool interval_given = false, retention_given = false, stall_given = false;
};

// Fine-tuning with frozen base weights (LoRA, Hu et al. 2021): each targeted matrix W (d_in x d_out) gains
// trainable A (d_in x r) and B (r x d_out); only those carry gradients and optimizer state, and the base's
// weight-gradient GEMMs are skipped (forward + input gradient: 4 instead of 6 FLOPs per weight and token).
struct FineTune {
  int rank = 0;                      // 0: full training
  std::vector<std::string> targets;  // of kLoraTargets
  bool lora() const { return rank > 0; }
};
inline constexpr const char* kLoraTargets[] = {"q", "k", "v", "o", "gate", "up", "down"};

// Elementwise passes a training step can run fused (the workload's `fused`, a list of kFusedKernelNames):
// the norm (Transformer Engine's RMSNorm; Megatron-LM with TE always), rotary (Megatron-LM's
// apply_rope_fusion), the gated activation (its bias_activation_fusion) and the cross-entropy (its
// cross_entropy_loss_fusion: its own jit-fused kernels, or with cross_entropy_fusion_impl te Transformer
// Engine's). Unlisted, each runs as the reference PyTorch code writes it.
enum class FusedKernel { none, norm, rotary, activation, cross_entropy, te_cross_entropy };
inline constexpr std::pair<FusedKernel, const char*> kFusedKernelNames[] = {
    {FusedKernel::norm, "norm"},
    {FusedKernel::rotary, "rotary"},
    {FusedKernel::activation, "activation"},
    {FusedKernel::cross_entropy, "cross_entropy"},
    {FusedKernel::te_cross_entropy, "te_cross_entropy"}};
struct FusedKernels {
  std::vector<FusedKernel> kernels;
  bool has(FusedKernel k) const { return std::find(kernels.begin(), kernels.end(), k) != kernels.end(); }
};

// The fields of a training layout the workload fixes; the planner searches the others.
struct LayoutSpec {
  std::optional<int> tp, pp, dp, cp, vp, micro_batch;
  std::optional<int> ep;  // expert parallelism (MoE): routed experts split ep ways within the data ranks
  // Expert tensor parallelism (Megatron-Core's expert_tensor_parallel_size, a divisor of tp; tp when not
  // given). Below tp the experts fold onto their own grid: ep x etp must divide tp x cp x dp.
  std::optional<int> etp;
  // tp x pp x dp x cp when all four are fixed (the GPU count the layout needs), else nullopt.
  std::optional<int> gpus() const;
};

struct LlmTraining {
  TransformerModel model;
  double tokens = 0;
  int seq_len = 0;
  double global_batch_tokens = 4194304;
  std::string precision = "bf16";
  std::string optimizer = "adam";  // adam (16 B/param) or adam-fp32-grads (18 B/param)
  // Activation recomputation (Korthikanti et al. 2022): none, selective (the attention core), full (each
  // layer's forward from its input), or auto: the fastest mode whose layout fits.
  std::string recompute = "auto";
  bool sequence_parallel = true;    // norms and dropouts split along the sequence over the TP group
  std::string attention = "flash";  // flash (no s^2 tensors) or standard (materialised scores)
  // 1f1b, interleaved (v virtual stages per GPU) or dualpipe (DeepSeek-V3: bidirectional, each chunk's
  // all-to-all under another micro-batch's compute).
  std::string schedule = "interleaved";
  // Megatron-LM's overlap_p2p_comm: the interleaved schedule's pipeline sends and receives run under the
  // chunks' compute (its default since October 2023; earlier releases wait on each).
  bool overlap_p2p_comm = true;
  // Dot-product attention in FP8 under an FP8 or FP4 recipe (Megatron-LM's fp8_dot_product_attention); off,
  // it runs in bf16.
  bool fp8_attention = false;
  // The model's weights held in FP8 only (NeMo's fp8_params, Megatron-LM's fp8_param_gather): 1 B per
  // weight instead of 2, the optimizer keeping the fp32 master copy; a LoRA run's frozen base likewise.
  bool fp8_params = false;
  // The gated activation's input (the FFN up-projection's output) kept in FP8 for the backward (Megatron-LM's
  // activation_func_fp8_input_store): 1 B per element instead of 2.
  bool fp8_activation_input = false;
  FusedKernels fused;  // the elementwise passes that run fused (none: the reference PyTorch kernels)
  // Context parallelism's attention (kCpComms): p2p, the ring Transformer Engine and Megatron-LM run by
  // default (cp_comm_type), merging each step's partial output; all_gather, K and V gathered first, one pass;
  // a2a, all-to-alls that trade the sequence split for a head split around the attention (DeepSpeed-Ulysses).
  std::string cp_comm = "p2p";
  // The FP8 recipe's scaling (kFp8Recipes): delayed (Transformer Engine's DelayedScaling, Megatron-LM's
  // default), current (Float8CurrentScaling) or mxfp8 (MXFP8BlockScaling); it sets what the casts cost.
  std::string fp8_recipe = "delayed";
  // Precision of the MoE dispatch all-to-all's tokens: bf16 (Megatron-LM's alltoall dispatcher) or fp8
  // (DeepSeek-V3: quantized before the up-projection, then dispatched); the combine stays 16-bit.
  std::string ep_dispatch = "bf16";
  LayoutSpec layout;  // micro_batch: the workload's `micro_batch` or layout.micro_batch
  Checkpointing checkpoint;
  FineTune finetune;
  double dataset_bytes = 0;  // 0: tokens x 4 B (token ids as stored, with headroom for metadata)
};

inline constexpr const char* kRecomputeModes = "none, selective, full, auto";
inline constexpr const char* kAttentionKinds = "flash, standard";
inline constexpr const char* kSchedules = "1f1b, interleaved, dualpipe";
inline constexpr const char* kDispatchPrecisions = "bf16, fp8";
inline constexpr const char* kCpComms = "p2p, all_gather, a2a";
// All-to-all context parallelism hands each of the c CP ranks whole heads: a TP rank's query and KV heads
// (MLA: every head's) must split c ways (Transformer Engine's AttnFuncWithCPAndQKVOA2A).
inline bool a2a_splits_heads(const TransformerModel& m, int t, int c) {
  int kv = m.mla() ? m.heads : m.kv_heads;
  return m.heads % (t * c) == 0 && kv % (t * c) == 0;
}
inline constexpr const char* kFp8Recipes = "delayed, current, mxfp8";
inline constexpr const char* kScenarios = "offline, server, interactive";
inline constexpr const char* kEngines = "vllm, trtllm";
inline constexpr const char* kCapacityPolicies = "guaranteed_no_evict, max_utilization";
inline constexpr const char* kUnquantizedParts = "attention, first_last_layers";

struct CvTraining {
  double params = 0;
  double dataset_images = 0, dataset_bytes = 0;
  double epochs = 0;
  double flops_per_image = 0;  // forward FLOPs; training = 3x
  std::string precision = "bf16";
  Checkpointing checkpoint;
};

struct LlmInference {
  TransformerModel model;
  std::string precision = "fp8";
  std::string kv_precision = "fp8";
  double request_rate = 0;  // requests/s (or derived from concurrent users)
  double input_tokens = 0, output_tokens = 0;
  double ttft_s = 0,
         tpot_s = 0;     // p99 targets, as MLPerf's server and interactive scenarios set them; 0: none
  bool offline = false;  // maximise throughput, no latency targets
  // MLPerf's scenario: offline, server or interactive (server's queue at tighter p99 targets); empty: a
  // request rate with optional targets.
  std::string scenario;
  std::optional<int> tp;     // tensor-parallel degree of an instance, fixed (else searched)
  std::optional<int> batch;  // sequences decoded together, fixed (a published benchmark's batch)
  // Offline: the run's request count, all of one length (trtllm-bench's num_requests): whole batches and a
  // last, partial one. Unset: the steady state of an endless queue.
  std::optional<int> requests;
  // The serving engine (kEngines): vLLM or TensorRT-LLM, which size the KV cache and admit requests
  // differently (sizing/model_llm_inference.hpp serving_budget).
  std::string engine = "vllm";
  // TensorRT-LLM's capacity scheduler: guaranteed_no_evict (its default) reserves a request's whole input +
  // output in the KV cache when admitted, max_utilization allocates as tokens come.
  std::string capacity_scheduler_policy = "guaranteed_no_evict";
  // The serving engine's memory settings (vLLM's names; TensorRT-LLM's free_gpu_memory_fraction); unset: the
  // engine's defaults (sizing/model_llm_inference.hpp serving_budget).
  std::optional<double> gpu_memory_utilization, free_gpu_memory_fraction, cuda_graph_bytes;
  std::optional<int> max_num_batched_tokens, max_num_seqs;
  // The batch sizes the engine is asked to capture CUDA graphs at, padding a decode step up to the next one
  // (TensorRT-LLM's cuda_graph_config with enable_padding, vLLM's cudagraph_capture_sizes); TensorRT-LLM
  // captures those up to its largest decode batch and that batch itself (cuda_graph_rows); empty: the
  // decode GEMMs run at the batch's own rows.
  std::vector<int> cuda_graph_batch_sizes;
  // TensorRT-LLM's attention data parallelism with expert parallelism over the same GPUs
  // (enable_attention_dp with --ep equal to --tp): each of the tp ranks serves its own sequences with every
  // non-expert weight and its own KV cache, and holds experts / tp routed experts, which every rank's tokens
  // reach through an all-gather and return through a reduce-scatter per MoE layer; max_num_seqs and
  // max_num_batched_tokens are per rank. false: attention and experts tensor-parallel.
  bool attention_dp = false;
  // The parts of a quantized checkpoint it keeps at 16 bits besides the embedding and output head, which
  // every one keeps (serving_weight_bytes) (kUnquantizedParts): every layer's attention projections, the
  // first and last layers' FFNs. Meta's FP8 Llama 3.1 405B keeps both (Llama 3 paper, section 6.2). Empty:
  // every other weight at `precision`.
  std::vector<std::string> unquantized;
  // The model name the serving endpoint answers to (a serve.llm report's params.model): a measurement of that
  // model sizes the workload (default: the workload's name).
  std::string served_model;
};

struct Workload {
  std::string name, kind, hardware, source;
  std::optional<double> deadline_s;
  std::optional<int> nodes;  // forward planning with a fixed node count
  std::variant<LlmTraining, CvTraining, LlmInference> spec;
};

Workload load_workload(const std::filesystem::path& path);
// Bytes per element of a precision name, block scales included (fp32 4, tf32 4, bf16/fp16 2, fp8/int8 1,
// nvfp4 4.5 bits, mxfp4 4.25 bits); UsageError otherwise.
double bytes_per_element(const std::string& precision);
// The catalog's peak_tflops key a precision's GEMMs run at (nvfp4 and mxfp4: fp4).
std::string peak_precision(const std::string& precision);
// The catalog's peak_tflops key attention runs at over a KV cache in this precision (nvfp4 and mxfp4:
// fp8, int8: fp16; else the precision's own).
std::string attention_peak_precision(const std::string& kv_precision);

}  // namespace mlbench::sizing
