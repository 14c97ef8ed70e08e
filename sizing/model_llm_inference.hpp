// The LLM serving model (sizing/model_llm_inference.cpp; METHODS.md "Serving decode and prefill"): prefill
// and decode phases, the KV cache as a serving engine sizes it, a request queue (below).
//
// The formulas are written once as templates over the number type (sizing/formula.hpp): Num = double computes
// the value the search and the planner use, Num = Formula the same value with the sheet's text. Instantiated
// for double and Formula.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "sizing/assumptions.hpp"
#include "sizing/calibration.hpp"
#include "sizing/catalog.hpp"
#include "sizing/formula.hpp"
#include "sizing/model_gemm.hpp"
#include "sizing/model_node.hpp"
#include "sizing/workload.hpp"

namespace mlbench::sizing {

// Serving (METHODS.md "Serving decode and prefill"): prefill and decode are separate phases. Prefill runs the
// prompt's tokens through the GEMMs together: compute-bound, at the GEMM efficiency of prompt-sized shapes.
// Decode runs one token per sequence of the batch: each GEMM reads the instance's weights once per step and
// does batch x 2 (N_act - V h) FLOPs (the input embedding is a gather; 2 N_act when it is tied to the head),
// so it is memory-bound below the crossover batch weights / HBM = batch x 2 (N_act - V h) / (t peak eta) and
// compute-bound above it; the attention reads each sequence's KV cache and stays
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
// The bytes of a served model's weights: every parameter at the workload's precision, the input embedding
// and output head and the parts the workload keeps unquantized (LlmInference::unquantized) at 16 bits. No
// quantizer touches the embedding (a gather, not a linear layer), and quantized checkpoints keep the head at
// 16 bits (ModelOpt's default configuration disables *lm_head*; llm-compressor's recipes ignore it; vLLM's
// online FP8 quantizes linear layers, not its ParallelLMHead).
double serving_weight_bytes(const LlmInference& w);
// Whether the workload's checkpoint keeps `part` (of kUnquantizedParts) at 16 bits.
bool keeps_at_16_bits(const LlmInference& w, std::string_view part);
// Of those, the parameters kept at 16 bits.
double unquantized_params(const LlmInference& w);
// Of those, the routed experts' (a MoE model's first and last layers kept at 16 bits: its last layer, or
// both where its first is a MoE layer too).
double unquantized_routed_params(const LlmInference& w);
// The input embedding's bytes, which a step does not read whole (it gathers the batch's rows); 0 when the
// table is tied to the output head, whose GEMM reads it.
double input_embedding_read_bytes(const LlmInference& w);
// trtllm-bench's max_batch_size and max_num_tokens for a workload on t GPUs (kTrtllmBenchTuning).
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
// What the sheet says of it: the per-token terms profile_activation_peak counts.
std::string profile_activation_basis(const TransformerModel& m, double tokens);

// The elementwise passes a serving engine runs per token between its GEMMs, in fused kernels
// (kServingPasses; METHODS.md "Serving decode and prefill"): bytes per token on one GPU of t, all layers.
// `routed_in_op`: the routed experts' activation runs inside TensorRT-LLM's measured MoE op
// (published_serving_moe), so the FFN activation pass counts the shared experts' copies only.
double serving_elementwise_bytes_per_token(const LlmInference& w, int t, bool routed_in_op = false);
// The sampler's pass over one token's logits: read at 16 bits, written as fp32, read by the sampler.
double sampler_bytes_per_token(const TransformerModel& m);
// The sheet's basis for those bytes: each pass's elements, bytes per element and bytes, the layers, the
// sampler's, and the total.
std::string serving_elementwise_basis(const LlmInference& w, int t, bool routed_in_op = false);

// The inputs of one decode step of a serving instance, per GPU of its t.
struct DecodeStep {
  double weights = 0;  // weight bytes read per GPU per step (MoE: the experts the batch routes to; none with
                       // the measured MoE op, which reads its own)
  double kv_read = 0;  // KV-cache bytes read per GPU: batch x context x KV per token / kv_shards
  double hbm = 0;      // B/s, datasheet x calibrated efficiency
  double batch = 0;    // sequences decoded together
  double rows = 0;     // the GEMMs' rows: the batch padded to its CUDA graph (cuda_graph_rows)
  double flops_per_token = 0;       // 2 (N_act - V h), less the routed experts' with the measured MoE op
  double attention_flops = 0;       // per token: 2 L a (d_qk + d_v) x average context (MLA: absorbed)
  double t = 1, peak = 0, eta = 0;  // eta: the GEMM efficiency at decode shapes (batch rows)
  double tp_s = 0;       // the tensor-parallel all-reduces of the step (t > 1), or with attention data
                         // parallelism (ep) the expert-parallel all-gathers and reduce-scatters
  double moe_bytes = 0;  // MoE: the routed copies' permutation to their experts and back, per GPU per step
  double attention_peak = 0, attention_eta = 0;  // attention_rate() over the KV cache's precision
  double kv_rate = 0;                            // B/s the KV cache is read at: decode_attention_read_rate()
  double elementwise = 0;  // the batch's elementwise passes and sampler logits, bytes per GPU per step
  double moe_s = 0;        // TensorRT-LLM's measured MoE op at the step's rows, all MoE layers (else 0)
  bool tied = false;       // the embeddings are tied: the sheet writes flops_per_token as 2 N_act
  bool ep = false;         // attention data parallelism: tp_s is the expert-parallel exchange
};
// The rate a decode step reads its KV cache at: the GPU's published decode-attention read rate
// (assumption::kPublishedDecodeAttention) where there is one and it is below `hbm` (the calibrated HBM
// rate), else `hbm`; `basis` (optional) gets where it comes from.
double decode_attention_read_rate(const GpuSpec& gpu, double hbm, std::string* basis = nullptr);
// The rows a decode step of `batch` sequences runs its GEMMs at: the smallest captured CUDA graph that holds
// the batch (the engine pads the step to it), else the batch (no graphs given, or a batch above the largest
// one runs eagerly). The captured graphs are the workload's cuda_graph_batch_sizes; TensorRT-LLM keeps those
// up to its largest pure-decode batch, min(max_batch_size, max_num_tokens), and, padding, captures that batch
// itself in place of the larger sizes (model_engine.py, _filter_cuda_graph_batch_sizes).
double cuda_graph_rows(const LlmInference& w, const ServingBudget& budget, double batch);
// gemm_time(weights / HBM, rows x 2 (N_act - V h) / (t x peak x eta)).
template <typename Num>
Num decode_gemm_time(const DecodeStep& d);
// max(KV read / KV read rate, batch x attention / (t x attention peak x attention eta)).
template <typename Num>
Num decode_attention_time(const DecodeStep& d);
// Whether the decode attention's KV read (at kv_rate) lasts at least as long as its FLOPs.
bool decode_attention_memory_bound(const DecodeStep& d);
// GEMMs + attention + elementwise bytes / HBM [+ MoE permutation bytes / HBM] [+ TP all-reduces].
template <typename Num>
Num decode_step_time(const DecodeStep& d);
// The batch from which the decode GEMMs are compute-bound: (weights / HBM) / (2 (N_act - V h) / (t x peak x
// eta)).
template <typename Num>
Num decode_crossover_batch(const DecodeStep& d);

// The prompt's forward pass of a serving instance, compute-bound.
struct Prefill {
  double tokens = 0;           // prompt length
  double flops_per_token = 0;  // 2 (N_act - V h), the head's 2 V h once per prompt (less the routed experts'
                               // with the measured MoE op)
  double attention_flops = 0;  // whole prompt, causal: L a (d_qk + d_v) s^2
  double t = 1, peak = 0, eta = 0;  // eta: the GEMM efficiency at prefill shapes (batched prompt tokens)
  double tp_s = 0;                  // as DecodeStep::tp_s
  double weights = 0;  // weight bytes the prompt's GEMMs read per GPU: its share of the chunk's one read
  double hbm = 0;      // B/s, datasheet x calibrated efficiency
  double attention_peak = 0, attention_eta = 0;  // attention_rate() over the KV cache's precision
  double elementwise = 0;  // the prompt's elementwise passes and its last token's logits, bytes per GPU
  double moe_s = 0;        // the prompt's share of its chunk's measured MoE op calls, all layers (else 0)
  bool tied = false;       // as DecodeStep::tied
  bool ep = false;         // as DecodeStep::ep
  // Attention data parallelism's ranks: the fields above are the prompt's share of the instance's time, a
  // prompt itself runs on one rank, `ranks` times as long.
  double ranks = 1;
};
// gemm_time(weights / HBM, 2 (N_act - V h) x tokens / (t x peak x eta)) + attention / (t x attention peak x
// attention eta) + elementwise bytes / HBM [+ TP all-reduces].
template <typename Num>
Num prefill_time(const Prefill& p);
// prefill (a prompt's own: x ranks under attention data parallelism) + one decode step.
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
  DecodeStep decode;  // at `batch`: step_s = decode_step_time(decode)
  // TensorRT-LLM's measured MoE op where it runs the routed experts (published_serving_moe), else nullptr.
  const assumption::PublishedServingMoe* moe_op = nullptr;
  // The decode step's elementwise bytes: these per graph row plus the sampler's per sequence.
  double elementwise_per_row = 0, sampler_per_sequence = 0;
  Prefill prefill;           // prefill_s = prefill_time(prefill)
  double output_tokens = 0;  // per request
  int instances = 1;         // per node: its GPUs / t
  std::string batch_rule;    // how the batch was chosen
  // An offline run of `requests` (the workload's; 0: an endless queue): floor(requests / batch) whole
  // batches, then the remaining tail_batch sequences decode at tail_step_s.
  double requests = 0, tail_batch = 0, tail_step_s = 0;
};
// The ways t tensor-parallel GPUs split a KV cache: by KV head, min(t, kv_heads), the rest holding copies;
// latent attention's one latent per token is whole on every GPU (1).
int kv_shards(const TransformerModel& m, int t);
// The fixed cost of one tensor-parallel all-reduce when serving on `gpu`: the custom one-shot kernel's
// (kServingAllReduceLatency) when the GPUs share NVLink, which that kernel needs (peer-to-peer loads and
// stores); on PCIe the serving engines fall back to NCCL (kCollectiveLatency).
double serving_allreduce_latency(const GpuSpec& gpu);
// TensorRT-LLM's all-reduce of `elements` bf16 values on t GPUs of `gpu`, seconds per call, where its
// measured table has that GPU and TP degree (assumption::kPublishedServingAllReduce): log-log between the
// table's powers of two, its first point below them, bandwidth-bound (time in proportion to size) above them;
// else nullopt. `basis` (optional) gets where the figure comes from.
std::optional<double> published_serving_allreduce(const GpuSpec& gpu, int t, double elements,
                                                  std::string* basis = nullptr);
// TensorRT-LLM's fused MoE op for this workload on t GPUs of `gpu` (the TensorRT-LLM engine): every expert
// split t ways tensor-parallel (its mapping when no expert-parallel size is given; t 1: one GPU), or with
// attention data parallelism over t expert-parallel ranks, the measured row of its GPU, precision, shape
// (hidden, expert FFN, top-k, experts) and split (assumption::kPublishedServingMoe); the shared experts run
// beside it with the other GEMMs; else nullptr.
const assumption::PublishedServingMoe* published_serving_moe(const LlmInference& w, const GpuSpec& gpu,
                                                             int t);
// One MoE layer's op at `tokens` tokens, seconds: log-log between the row's powers of two, its first point
// below them, in proportion to the tokens above them; a split's row (tensor- or expert-parallel) at most the
// time of a coarser split's row of the same GPU and shape, at whichever release measured it. `basis`
// (optional) gets where the figure comes from, the bounding release and split named.
double published_moe_seconds(const assumption::PublishedServingMoe& p, double tokens,
                             std::string* basis = nullptr);
// A phase's tensor-parallel all-reduces on t GPUs, seconds: 2 per layer, of which it pays `tokens` of the
// `call_tokens` each call carries (a prompt its share of its chunk's calls; a decode step all of its own).
// On TensorRT-LLM, where its measured table holds the GPU and t, each call takes the table's time
// (published_serving_allreduce; `basis` gets it); else the custom kernel's latency
// (serving_allreduce_latency) + the bus bytes at the calibrated NVLink busbw.
double serving_tp_time(const LlmInference& w, const GpuSpec& gpu, const Calibration& cal,
                       const ServingBudget& budget, int t, double tokens, double call_tokens,
                       std::string* basis = nullptr);
// Attention data parallelism's expert-parallel exchange on t GPUs, seconds: per MoE layer an all-gather
// bringing every rank's tokens to each (NVFP4 activations gathered already quantized, 4 bits and an FP8
// scale per 16 elements, as TensorRT-LLM's DeepSeek-R1 throughput recipe does; others in bf16) and a
// reduce-scatter returning the experts' bf16 outputs, of the `call_tokens` each call carries, paid for
// `tokens` (the instance's): at NCCL's measured times where the GPU and t are measured
// (assumption::kPublishedNcclCollectives; `basis`, optional, gets where they come from), else (t - 1) / t of
// the tokens over each GPU's links at the calibrated NVLink rate + the custom kernel's latency
// (serving_allreduce_latency) per collective.
double serving_ep_time(const LlmInference& w, const GpuSpec& gpu, const Calibration& cal, int t,
                       double tokens, double call_tokens, std::string* basis = nullptr);
// out / (out x decode step / batch + prefill) x instances: output tokens per second per node, each request
// costing its prefill plus `out` decode steps shared by the batch (continuous batching). An offline run of N
// requests of one length runs in whole batches and a last, partial one:
// N x out / (floor(N / batch) x (out x step + batch x prefill) + out x tail step + tail x prefill) x
// instances.
template <typename Num>
Num serving_tokens_per_s_node(const ServingPoint& sp);
// weights + the KV budget, per GPU.
template <typename Num>
Num serving_hbm_per_gpu(const ServingPoint& sp);
// The tensor-parallel degree (the workload's, else searched) and batch that serve the most output tokens per
// second per node while meeting the TTFT/TPOT targets scaled by (1 - headroom): the workload's batch, else
// offline the best batch up to what the KV cache holds, else the largest batch meeting the TPOT target.
// eta_prefill and eta_decode: the GEMM efficiencies of the two phases; the attention's are scaled from
// own_prefill and own_decode, those of the GEMMs at the workload's precision (GemmPhase::eta_own; 0: the
// phases' own). nullopt when nothing fits.
std::optional<ServingPoint> serving_point(const LlmInference& w, const NodeFacts& node,
                                          const Calibration& cal, double eta_prefill, double eta_decode,
                                          double headroom, std::string* why_not, double own_prefill = 0,
                                          double own_decode = 0);

}  // namespace mlbench::sizing
