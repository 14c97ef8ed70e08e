#include "sizing/model_llm_inference.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/units.hpp"
#include "sizing/headroom.hpp"
#include "sizing/model_terms.hpp"

namespace mlbench::sizing {

using namespace terms;

bool keeps_at_16_bits(const LlmInference& w, std::string_view part) {
  return std::find(w.unquantized.begin(), w.unquantized.end(), part) != w.unquantized.end();
}

double unquantized_params(const LlmInference& w) {
  const TransformerModel& m = w.model;
  double params = m.embedding_params();
  for (const auto& part : w.unquantized)
    if (part == "attention")
      params += m.layers * m.attention_params();
    else if (part == "first_last_layers")
      // A MoE model's dense layers come first (DeepSeek-V3) or alternate from the first (Llama 4 Maverick):
      // its first layer is dense, its last a MoE layer.
      params += !m.moe()             ? 2 * m.ffn_params()
                : m.dense_layers > 0 ? m.dense_ffn_params() + m.ffn_params() * (m.experts + m.shared_experts)
                                     : 2 * m.ffn_params() * (m.experts + m.shared_experts);
  return params;
}

double unquantized_routed_params(const LlmInference& w) {
  const TransformerModel& m = w.model;
  if (!keeps_at_16_bits(w, "first_last_layers") || !m.moe()) return 0;
  return (m.dense_layers > 0 ? 1.0 : 2.0) * m.ffn_params() * m.experts;
}

double serving_weight_bytes(const LlmInference& w) {
  double bytes = bytes_per_element(w.precision);
  return w.model.params * bytes + unquantized_params(w) * std::max(0.0, kActivationBytes - bytes);
}

double input_embedding_read_bytes(const LlmInference& w) {
  const TransformerModel& m = w.model;
  double bytes = std::max(kActivationBytes, bytes_per_element(w.precision));
  return m.tied_embeddings ? 0.0 : static_cast<double>(m.vocab) * m.hidden * bytes;
}

namespace {
const assumption::TrtllmBenchBytes* trtllm_bench_entry(std::string_view precision) {
  for (const auto& b : assumption::kTrtllmBenchBytes)
    if (b.precision == precision) return &b;
  return nullptr;
}
double trtllm_bench_bytes(std::string_view precision) {
  const auto* b = trtllm_bench_entry(precision);
  return b ? b->bytes : assumption::kTrtllmBenchUnlistedBytes;
}
// The elements of the checkpoint's safetensors header: the quantized parameters at their elements each, the
// parts kept at 16 bits one each.
double trtllm_bench_checkpoint_elements(const LlmInference& w) {
  const auto* b = trtllm_bench_entry(w.precision);
  double kept = unquantized_params(w);
  return (w.model.params - kept) * (b ? b->elements_per_param : 1.0) + kept;
}
}  // namespace

TrtllmBenchSettings trtllm_bench_settings(const LlmInference& w, const GpuSpec& gpu, int t) {
  const auto& tune = assumption::kTrtllmBenchTuning;
  const TransformerModel& m = w.model;
  double in = w.input_tokens, out = w.output_tokens;
  // Its KV bytes per token: every layer's K and V of max(t, kv_heads) heads (one per GPU at least).
  double kv_token =
      2.0 * m.layers * std::max(t, m.kv_heads) * m.head_dim() * trtllm_bench_bytes(w.kv_precision);
  // tuning.py's engine size: every element of the checkpoint at its quantization's bytes per element.
  double free = tune.kv_fraction * (gpu.memory_bytes * t -
                                    trtllm_bench_checkpoint_elements(w) * trtllm_bench_bytes(w.precision));
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

// The elementwise passes of one transformer layer per token as the serving engines run them, fused
// (TensorRT-LLM's and vLLM's fused add + RMSNorm or LayerNorm, SiLU-and-multiply or GeLU, each writing its
// output already quantized for the next GEMM; rotary embedding fused with the KV-cache append): bytes read +
// written per element, counted in the residual stream's bytes (r, 16 bits) and the GEMMs' input bytes (q, the
// workload's precision: the engines quantize activations to it), over the hidden size (h), the query, key
// and value elements the rotary and KV-append pass touches, or the FFN width per routed copy (f); split t
// ways inside the tensor-parallel region (by heads, by FFN columns) and repeated on every rank outside it
// (the norms and residual adds run on the whole hidden state after the all-reduce). The GEMMs' own operand
// traffic is in their roofline, not here.
namespace {
enum class Over { hidden, qkv, ffn };
struct ServingPass {
  const char* op;
  Over over;
  double count;                   // elements of `over` per token and layer
  double r_accesses, q_accesses;  // per element; the FFN activation also reads its 1 or 2 inputs (r)
  bool reads_ffn_inputs, in_tp_region;
};
constexpr ServingPass kServingPasses[] = {
    {"add + norm (x2): read residual and sublayer output, write residual (r), write GEMM input (q)",
     Over::hidden, 2, 3, 1, false, false},
    {"rotary on q and k (where the model has it) with the KV-cache append: read, write (r)", Over::qkv, 1, 2,
     0, false, true},
    {"FFN activation: read 1 (GeLU) or 2 (gated) inputs (r), write GEMM input (q)", Over::ffn, 1, 0, 1, true,
     true},
};
// The sampler's pass over each token's logits: read at 16 bits, written as fp32, read back by the sampler.
constexpr double kSamplerBytesPerVocab = 2 + 4 + 4;

struct PassBytes {
  double r, q, ffn_inputs;
};
PassBytes pass_bytes(const LlmInference& w) {
  double q = bytes_per_element(w.precision);
  return {std::max(kActivationBytes, q), q, w.model.gated_ffn ? 2.0 : 1.0};
}
// The elements a pass runs over per token and layer: h, the rotated queries and keys (none without rotary)
// with the keys and values the cache appends, or f per routed copy.
double pass_elements(const ServingPass& p, const TransformerModel& m, bool routed_in_op) {
  switch (p.over) {
    case Over::hidden:
      return p.count * m.hidden;
    case Over::qkv:
      return p.count * ((m.rotary ? static_cast<double>(m.heads) * m.qk_head_dim() : 0) +
                        m.kv_elements_per_token() / m.layers);
    case Over::ffn:
      return p.count * m.ffn_width(!routed_in_op);
  }
  return 0;
}
double pass_bytes_per_element(const ServingPass& p, const PassBytes& b) {
  return (p.r_accesses + (p.reads_ffn_inputs ? b.ffn_inputs : 0)) * b.r + p.q_accesses * b.q;
}
// One pass's bytes per token and layer on one GPU of t.
double pass_bytes_per_token_layer(const ServingPass& p, const TransformerModel& m, const PassBytes& b, int t,
                                  bool routed_in_op) {
  return pass_elements(p, m, routed_in_op) * pass_bytes_per_element(p, b) / (p.in_tp_region ? t : 1);
}
}  // namespace

double serving_elementwise_bytes_per_token(const LlmInference& w, int t, bool routed_in_op) {
  PassBytes b = pass_bytes(w);
  double bytes = 0;
  for (const auto& p : kServingPasses) bytes += pass_bytes_per_token_layer(p, w.model, b, t, routed_in_op);
  return bytes * w.model.layers;
}

double sampler_bytes_per_token(const TransformerModel& m) { return kSamplerBytesPerVocab * m.vocab; }

std::string serving_elementwise_basis(const LlmInference& w, int t, bool routed_in_op) {
  PassBytes b = pass_bytes(w);
  std::string out = fmt::format(
      "r {:g} B, q {:g} B ({}); per token and layer on {}{}:", b.r, b.q, w.precision,
      w.attention_dp ? std::string("one attention data-parallel rank (its passes whole)")
                     : fmt::format("one GPU of TP {}", t),
      w.model.dense_layers > 0 ? fmt::format(" (the FFN activation averaged over {} MoE and {} dense layers)",
                                             w.model.moe_layers(), w.model.dense_layers)
                               : "");
  double layer = 0;
  for (const auto& p : kServingPasses) {
    double bytes = pass_bytes_per_token_layer(p, w.model, b, t, routed_in_op);
    layer += bytes;
    out += fmt::format(" {} {:.7g} elements x {:g} B{} = {:.0f} B;", p.op,
                       pass_elements(p, w.model, routed_in_op), pass_bytes_per_element(p, b),
                       p.in_tp_region && t > 1 ? fmt::format(" / t {}", t) : "", bytes);
  }
  double passes = layer * w.model.layers, sampler = sampler_bytes_per_token(w.model);
  return out + fmt::format(
                   " {:.0f} B x {} layers = {:.0f} B; sampler {:g} B x vocab {} = {:.0f} B; total "
                   "{:.0f} B",
                   layer, w.model.layers, passes, kSamplerBytesPerVocab, w.model.vocab, sampler,
                   passes + sampler);
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
  double moe_layer = tokens * (2.0 * m.hidden + shared) + std::min(tokens, kFusedMoeChunkTokens) * routed;
  // A dense layer's FFN, where the model has them: the peak is the larger layer's.
  double dense_up = (m.gated_ffn ? 2.0 : 1.0) * m.dense_ffn_hidden / t;
  double dense_layer = m.dense_layers > 0 ? tokens * (2.0 * m.hidden + dense_up + m.dense_ffn_hidden / t) : 0;
  return std::max(moe_layer, dense_layer) * 2 + seqs * m.vocab * 4.0;
}

std::string profile_activation_basis(const TransformerModel& m, double tokens) {
  int up = m.gated_ffn ? 2 : 1;
  if (!m.moe()) return fmt::format("{:.0f} x (2 h + {} f / t) x 2 B", tokens, up + 1);
  // The routed copies run in fused-MoE chunks of at most kFusedMoeChunkTokens.
  std::string shared =
      m.shared_experts > 0 ? fmt::format(" + shared {} x {} f / t", m.shared_experts, up + 1) : "";
  std::string moe =
      fmt::format("{:.0f} x (2 h{}) + chunk {:.0f} x top_k {} x (max({} f / t, h) + f / t), x 2 B", tokens,
                  shared, std::min(tokens, kFusedMoeChunkTokens), m.top_k, up);
  return m.dense_layers > 0
             ? fmt::format(
                   "the larger of a MoE layer's {} and a dense layer's {:.0f} x (2 h + {} f_dense / t) x 2 B",
                   moe, tokens, up + 1)
             : moe;
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

namespace {
// Seconds at 2^x calls of a table measured at 2^0, 2^1, ... (x counted from its first point): log-log between
// its points, its first point below them, in proportion to the size above them. A point above a larger
// size's time takes that time: the smaller call can always run padded to the larger.
double between_powers_of_two(std::span<const double> measured, double x) {
  // The time at point i: the least of its own and every larger size's.
  auto at = [&](size_t i) {
    return *std::min_element(measured.begin() + static_cast<std::ptrdiff_t>(i), measured.end());
  };
  double last = static_cast<double>(measured.size() - 1);
  if (x <= 0) return at(0);
  if (x >= last) return measured.back() * std::exp2(x - last);
  auto i = static_cast<size_t>(x);
  double f = x - static_cast<double>(i);
  return std::exp(std::log(at(i)) * (1 - f) + std::log(at(i + 1)) * f);
}
}  // namespace

std::optional<double> published_serving_allreduce(const GpuSpec& gpu, int t, double elements,
                                                  std::string* basis) {
  for (const auto& p : assumption::kPublishedServingAllReduce) {
    if (p.gpu != gpu.name || p.tp != t) continue;
    double seconds = between_powers_of_two(
        p.seconds, std::log2(std::max(elements, 1.0)) - assumption::kPublishedAllReduceFirstLog2);
    if (basis)
      *basis = fmt::format(
          "TensorRT-LLM {}'s AllReduce on {} TP {}: {:.1f} us per call of {:.3g} bf16 elements, between its "
          "measured powers of two (NVIDIA aiconfigurator, custom_allreduce_perf)",
          p.version, gpu.name, t, seconds * 1e6, elements);
    return seconds;
  }
  return std::nullopt;
}

const assumption::PublishedServingMoe* published_serving_moe(const LlmInference& w, const GpuSpec& gpu,
                                                             int t) {
  const TransformerModel& m = w.model;
  // The op measures every expert at the workload's precision: not so where the first and last layers stay at
  // 16 bits.
  bool edge_layers_16 = keeps_at_16_bits(w, "first_last_layers");
  if (w.engine != "trtllm" || !m.moe() || !m.gated_ffn || edge_layers_16) return nullptr;
  int ep = w.attention_dp ? t : 1, tp = w.attention_dp ? 1 : t;
  // FP16 runs the same grouped GEMMs as BF16 at the same tensor-core rate: an fp16 workload takes the bf16
  // row.
  std::string_view precision = w.precision == "fp16" ? "bf16" : std::string_view(w.precision);
  for (const auto& p : assumption::kPublishedServingMoe)
    if (p.gpu == gpu.name && p.precision == precision && p.hidden == m.hidden &&
        p.ffn_hidden == m.ffn_hidden && p.top_k == m.top_k && p.experts == m.experts && p.ep == ep &&
        p.tp == tp)
      return &p;
  return nullptr;
}

double published_moe_seconds(const assumption::PublishedServingMoe& p, double tokens, std::string* basis) {
  double log2_tokens = std::log2(std::max(tokens, 1.0));
  double seconds = between_powers_of_two(p.seconds, log2_tokens);
  // A GPU holding a finer slice of every expert, or fewer of the experts, given the same tokens, does at most
  // the work of one holding more: a measured split slower than a coarser one is bounded by it.
  const assumption::PublishedServingMoe* bound = nullptr;
  auto coarser_split = [&](const assumption::PublishedServingMoe& q) {
    return q.tp <= p.tp && q.ep <= p.ep && (q.tp < p.tp || q.ep < p.ep) && p.tp % q.tp == 0 &&
           p.ep % q.ep == 0;
  };
  for (const auto& q : assumption::kPublishedServingMoe)
    if (q.gpu == p.gpu && q.precision == p.precision && q.hidden == p.hidden &&
        q.ffn_hidden == p.ffn_hidden && q.top_k == p.top_k && q.experts == p.experts && coarser_split(q))
      if (double coarser = between_powers_of_two(q.seconds, log2_tokens); coarser < seconds) {
        seconds = coarser;
        bound = &q;
      }
  if (basis) {
    std::string holding = p.ep > 1 ? fmt::format(" holding {} of the {} experts (expert-parallel {})",
                                                 p.experts / p.ep, p.experts, p.ep)
                          : p.tp > 1
                              ? fmt::format(" holding 1/{} of every expert (tensor-parallel {})", p.tp, p.tp)
                              : "";
    *basis = fmt::format(
        "TensorRT-LLM {}'s fused MoE on one {}{} ({}): {:.1f} us per layer at {:.0f} tokens, between its "
        "measured powers of two (NVIDIA aiconfigurator, moe_perf, power-law routing alpha 1.2){}",
        p.version, p.gpu, holding, p.precision, seconds * 1e6, tokens,
        bound
            ? fmt::format("; the time TensorRT-LLM {} measured on {}, which bounds this slower {}-way "
                          "measurement",
                          bound->version,
                          bound->tp * bound->ep == 1 ? std::string("one GPU holding every expert")
                                                     : fmt::format("the {}-way split", bound->tp * bound->ep),
                          p.tp * p.ep)
            : "");
  }
  return seconds;
}

double serving_tp_time(const LlmInference& w, const GpuSpec& gpu, const Calibration& cal,
                       const ServingBudget& budget, int t, double tokens, double call_tokens,
                       std::string* basis) {
  if (t == 1) return 0;
  const TransformerModel& m = w.model;
  if (budget.trtllm)
    if (auto call = published_serving_allreduce(gpu, t, call_tokens * m.hidden, basis))
      return 2.0 * m.layers * *call * tokens / call_tokens;
  double msg = tokens * m.hidden * 2.0 * 2 * (t - 1) / t;
  return 2.0 * m.layers *
         (serving_allreduce_latency(gpu) * tokens / call_tokens +
          msg / (gpu.link_bandwidth * cal.nvlink.value));
}

double serving_ep_time(const LlmInference& w, const GpuSpec& gpu, const Calibration& cal, int t,
                       double tokens, double call_tokens, std::string* basis) {
  const TransformerModel& m = w.model;
  double dispatch = w.precision == "nvfp4" ? bytes_per_element(w.precision) : kActivationBytes;
  // NCCL's measured collectives: the gathered tokens' bytes and the reduced outputs' elements, each as
  // half-precision elements of the whole tensor (nccl-tests' message).
  const assumption::PublishedNcclCollective *gather = nullptr, *scatter = nullptr;
  for (const auto& c : assumption::kPublishedNcclCollectives)
    if (c.gpu == gpu.name && c.gpus == t) {
      if (c.op == "all_gather") gather = &c;
      if (c.op == "reduce_scatter") scatter = &c;
    }
  if (gather && scatter) {
    double gathered = call_tokens * m.hidden * dispatch / kActivationBytes, reduced = call_tokens * m.hidden;
    auto at = [](const assumption::PublishedNcclCollective& c, double elements) {
      return between_powers_of_two(c.seconds,
                                   std::log2(std::max(elements, 1.0)) - assumption::kPublishedNcclFirstLog2);
    };
    double call = at(*gather, gathered) + at(*scatter, reduced);
    if (basis)
      *basis = fmt::format(
          "NCCL {}'s all-gather ({:.1f} us of {:.3g} half-precision elements) and reduce-scatter ({:.1f} us "
          "of "
          "{:.3g}) on {} {}, between their measured powers of two (NVIDIA aiconfigurator, nccl_perf)",
          gather->version, 1e6 * at(*gather, gathered), gathered, 1e6 * at(*scatter, reduced), reduced, t,
          gpu.name);
    return m.moe_layers() * call * tokens / call_tokens;
  }
  double bytes = tokens * m.hidden * (dispatch + kActivationBytes) * (t - 1) / t;
  return m.moe_layers() * (2 * serving_allreduce_latency(gpu) * tokens / call_tokens +
                           bytes / (gpu.link_bandwidth * cal.nvlink.value));
}

std::optional<ServingPoint> serving_point(const LlmInference& w, const NodeFacts& node,
                                          const Calibration& cal, double eta_prefill, double eta_decode,
                                          double headroom, std::string* why_not, double own_prefill,
                                          double own_decode) {
  // The attention kernels' efficiency follows the GEMMs at the workload's precision, not the 16-bit ones'.
  if (own_prefill <= 0) own_prefill = eta_prefill;
  if (own_decode <= 0) own_decode = eta_decode;
  const GpuSpec& gpu = *node.gpu;
  const TransformerModel& m = w.model;
  double peak = gpu.peak_for(peak_precision(w.precision)).value_or(0);
  const AttentionRate attention = attention_rate(gpu, w.precision, w.kv_precision, cal.sustained);
  // The engines' attention kernels are flash attention's (fused, causal in prefill): the GEMMs' efficiency
  // at the cache's precision x the attention-vs-GEMM share the training step uses.
  double attention_share = attention.eta_scale * assumption::kAttentionRelative.value;
  double hbm = gpu.memory_bandwidth * cal.hbm.value;
  double kv_rate = decode_attention_read_rate(gpu, hbm);
  double bytes = bytes_per_element(w.precision);
  double weights = serving_weight_bytes(w);
  double kv_token = m.kv_elements_per_token() * bytes_per_element(w.kv_precision);
  double in = w.input_tokens, out = w.output_tokens;
  double ctx_avg = in + out / 2;
  double per_token_flops = 2 * m.multiplied_params();
  double tpot_limit = w.tpot_s > 0 ? within_headroom(w.tpot_s, headroom) : 0;
  std::optional<ServingPoint> best;
  std::string rejected;
  // The search tries powers of two within the NVLink domain; a stated degree is taken as given if it divides
  // the node's GPUs, PCIe GPUs beyond the domain included (its all-reduces then at the GPU's link terms,
  // serving_tp_time). One that does not would leave GPUs idle that the sheet counts.
  if (w.tp && (*w.tp > node.gpus || node.gpus % *w.tp != 0)) {
    if (why_not)
      *why_not = *w.tp > node.gpus
                     ? fmt::format("TP {} (given) exceeds the node's {} GPUs", *w.tp, node.gpus)
                     : fmt::format("TP {} (given) does not divide the node's {} GPUs: give a divisor of {}",
                                   *w.tp, node.gpus, node.gpus);
    return std::nullopt;
  }
  std::vector<int> degrees;
  if (w.tp)
    degrees.push_back(*w.tp);
  else
    for (int t = 1; t <= node.domain; t *= 2)
      if (m.heads % t == 0 && node.gpus % t == 0) degrees.push_back(t);
  for (int t : degrees) {
    const ServingBudget budget = serving_budget(w, gpu, t);
    // Attention data parallelism (attention_dp): each of the t ranks serves its own sequences with every
    // non-expert weight, its own KV cache and its own max_num_seqs and max_num_batched_tokens, and holds
    // experts / t of the routed experts; `ranks` divides a phase's work between them.
    bool adp = w.attention_dp;
    double ranks = adp ? t : 1;
    double routed_bytes = m.moe() ? std::min(m.params, m.expert_params()) * bytes +
                                        unquantized_routed_params(w) * std::max(0.0, kActivationBytes - bytes)
                                  : 0.0;
    ServingPoint sp;
    sp.t = t;
    sp.kv_per_token = kv_token;
    sp.kv_shards = adp ? t : kv_shards(m, t);
    sp.weights_per_gpu = adp ? weights - routed_bytes + routed_bytes / t : weights / t;
    sp.budget = budget;
    sp.kv = {gpu.memory_bytes,
             budget.utilisation,
             sp.weights_per_gpu,
             profile_activation_peak(m, budget.max_num_batched_tokens, budget.max_num_seqs, adp ? 1 : t),
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
    // A sequence's cache lives on one rank under attention data parallelism.
    if (sp.kv_budget / ranks <= kv_token * (in + out) || sp.max_batch < 1) {
      rejected = fmt::format("TP {}: KV cache {} per GPU after weights, activations, runtime and CUDA graphs",
                             t, format_bytes(sp.kv_budget / sp.kv_shards));
      continue;
    }
    if (w.batch && *w.batch > sp.max_batch) {
      rejected = fmt::format("TP {}: batch {} needs {} of KV cache, {} left", t, *w.batch,
                             format_bytes(*w.batch * ctx_avg * kv_token), format_bytes(sp.kv_budget));
      continue;
    }
    // TensorRT-LLM's measured MoE op, where published, runs the routed experts: their weights, FLOPs,
    // activation and permutation leave the step's other terms for it.
    const assumption::PublishedServingMoe* moe_op =
        budget.trtllm ? published_serving_moe(w, gpu, t) : nullptr;
    sp.moe_op = moe_op;
    double routed_flops = moe_op ? 2.0 * m.moe_layers() * m.top_k * m.ffn_params() : 0.0;
    auto moe_s = [&](double tokens) {
      return moe_op ? m.moe_layers() * published_moe_seconds(*moe_op, tokens) : 0.0;
    };
    sp.elementwise_per_row = serving_elementwise_bytes_per_token(w, adp ? 1 : t, moe_op != nullptr);
    sp.sampler_per_sequence = sampler_bytes_per_token(m);
    // The exchange a phase's `tokens` (the instance's) pay, `call_tokens` to a call: the all-reduces of
    // tensor parallelism, or attention data parallelism's expert-parallel all-gathers and reduce-scatters.
    auto tp_time = [&](double tokens, double call_tokens) {
      return adp ? serving_ep_time(w, gpu, cal, t, tokens, call_tokens)
                 : serving_tp_time(w, gpu, cal, budget, t, tokens, call_tokens);
    };
    // A step reads its weights but the input embedding table, of which it gathers the batch's rows; MoE: the
    // experts its batch (every rank's, under attention data parallelism) routes to, E (1 - (1 - k/E)^batch)
    // of them per layer.
    double gathered = input_embedding_read_bytes(w) / (adp ? 1 : t);
    auto weights_read = [&](double batch) {
      if (!m.moe()) return sp.weights_per_gpu - gathered;
      double touched = moe_op ? 0.0 : 1 - std::pow(1 - static_cast<double>(m.top_k) / m.experts, batch);
      if (adp) return weights - routed_bytes + routed_bytes * touched / t - gathered;
      return (weights - routed_bytes * (1 - touched)) / t - gathered;
    };
    // The context a decode step's query reads and multiplies, less what local attention's layers skip.
    double attended = ctx_avg * m.attended_share(in, in + out);
    auto decode = [&](double batch) {
      // The batch's k routed copies of h per MoE layer, permuted to their experts and back and scaled by the
      // router weights (the training step's passes, forward only). Experts split tensor-parallel hold a slice
      // of every expert, so each GPU permutes every routed copy whole and writes its whole partial output;
      // split by expert (attention data parallelism) a GPU moves only the copies routed to its own experts.
      double moe_bytes = m.moe() && !moe_op
                             ? batch * m.moe_layers() * kMoePermuteBytes * m.top_k * m.hidden / (adp ? t : 1)
                             : 0.0;
      // Each rank pads its own sequences to its CUDA graph.
      double rows = ranks * cuda_graph_rows(w, budget, batch / ranks);
      DecodeStep d{weights_read(batch), batch * attended * kv_token / sp.kv_shards, hbm, batch, rows,
                   per_token_flops - routed_flops, m.attention_flops_per_context_token(true) * attended,
                   static_cast<double>(t), peak, eta_decode, tp_time(rows, rows), moe_bytes, attention.peak,
                   own_decode * attention_share, kv_rate,
                   // The passes run inside the captured graph over its padded rows.
                   (rows * sp.elementwise_per_row + batch * sp.sampler_per_sequence) / ranks, moe_s(rows),
                   m.tied_embeddings};
      d.ep = adp;
      return d;
    };
    double chunk = std::max(in, budget.max_num_batched_tokens);
    // A prompt's logits are its last token's only (the engines gather the last position before the head).
    double head_flops = 2.0 * m.vocab * m.hidden;
    // (Clamped at the head alone: a model given by its parameter count alone may hold less than the default
    // vocabulary's matrices.)
    // Under attention data parallelism the ranks each run a chunk of their own prompts at once: the MoE
    // layers see all of them.
    double round = ranks * chunk;
    sp.prefill = {in, std::max(0.0, per_token_flops - routed_flops - head_flops) + head_flops / in,
                  0.5 * m.attention_flops_per_context_token() * in * in * m.attended_share(0, in),
                  static_cast<double>(t), peak, eta_prefill, tp_time(in, round),
                  // The chunk reads the weights once; a prompt shares that read with the prompts batched
                  // with it, as it shares the all-reduces' latency and the MoE op's calls.
                  weights_read(round) * in / round, hbm, attention.peak, own_prefill * attention_share,
                  // Every prompt token's passes; only its last token's logits reach the sampler.
                  (in * sp.elementwise_per_row + sp.sampler_per_sequence) / ranks, moe_s(round) * in / round,
                  m.tied_embeddings};
    sp.prefill.ep = adp;
    sp.prefill.ranks = ranks;
    sp.prefill_s = prefill_time<double>(sp.prefill);
    sp.output_tokens = out;
    sp.instances = node.gpus / t;
    // An offline run of the workload's requests: whole batches, then a last one of the rest at its own step.
    if (w.offline && w.requests) sp.requests = *w.requests;
    auto finish_run = [&](ServingPoint& at) {
      if (at.requests <= 0) return;
      at.tail_batch = at.requests - std::floor(at.requests / at.batch) * at.batch;
      at.tail_step_s = at.tail_batch > 0 ? decode_step_time<double>(decode(at.tail_batch)) : 0;
    };
    auto throughput = [&](double batch) {
      ServingPoint at = sp;
      at.batch = batch;
      at.step_s = decode_step_time<double>(decode(batch));
      finish_run(at);
      return serving_tokens_per_s_node<double>(at);
    };
    if (w.batch) {
      sp.batch = *w.batch;
      sp.batch_rule = "the workload's batch";
    } else {
      // The engine schedules at most max_num_seqs sequences however many the KV cache holds.
      double limit = std::min(sp.max_batch, ranks * budget.max_num_seqs);
      std::string seqs = adp ? fmt::format("{} ranks x max_num_seqs {:.0f}", t, budget.max_num_seqs)
                             : fmt::format("max_num_seqs {:.0f}", limit);
      std::string held = limit < sp.max_batch
                             ? fmt::format("{} (the KV cache holds {:.0f})", seqs, sp.max_batch)
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
    if (sp.requests > 0 && sp.batch > sp.requests) {
      sp.batch = sp.requests;
      sp.batch_rule += fmt::format(", at most the run's {:.0f} requests", sp.requests);
    }
    sp.decode = decode(sp.batch);
    sp.step_s = decode_step_time<double>(sp.decode);
    finish_run(sp);
    sp.crossover = decode_crossover_batch<double>(sp.decode);
    sp.bound = sp.batch < sp.crossover ? "memory" : "compute";
    sp.ttft_s = time_to_first_token<double>(sp.prefill, sp.step_s);
    sp.meets_targets = (tpot_limit <= 0 || sp.step_s <= tpot_limit) &&
                       (w.ttft_s <= 0 || sp.ttft_s <= within_headroom(w.ttft_s, headroom));
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

// The calibrated HBM rate as a named term of the decode and prefill formulas.
template <typename Num>
Num hbm_rate(double bytes_per_s) {
  return named<Num>("hbm", bytes_per_s, [](double v) { return fmt::format("HBM {:.2f} GB/s", v / 1e9); });
}

// The FLOP rate of t GPUs at the calibrated efficiency, shared by decode and prefill.
template <typename Num>
Num instance_flops(double t, double peak, double eta) {
  return named<Num>("t", t, count_shown("t")) *
         named<Num>("peak", peak, [](double v) { return fmt::format("peak {:.0f} TFLOPS", v / 1e12); }) *
         named<Num>("eta", eta, fraction_shown("eta"));
}
// The attention's FLOP rate on t GPUs (attention_rate).
template <typename Num>
Num attention_flops_rate(double t, double peak, double eta) {
  return named<Num>("t", t, count_shown("t")) *
         named<Num>("attention_peak", peak,
                    [](double v) { return fmt::format("attention peak {:.0f} TFLOPS", v / 1e12); }) *
         named<Num>("attention_eta", eta, fraction_shown("attention eta"));
}

namespace {
// The GEMMs' FLOPs per token: 2 (N_act - V h) (2 N_act with tied embeddings), less the routed experts'
// where the measured MoE op runs them; a prompt's tokens run the output head once per prompt (its last
// token's logits), a share 1 / prompt tokens of it per token.
const char* flops_label(double moe_s, bool tied, bool prompt = false) {
  // [prompt][tied][moe op]
  static constexpr const char* kLabels[2][2][2] = {
      {{"2 (N_act - V h)", "2 (N_act - V h) less the routed experts'"},
       {"2 N_act", "2 N_act less the routed experts'"}},
      {{"2 (N_act - 2 V h) + 2 V h / prompt", "2 (N_act - 2 V h) + 2 V h / prompt less the routed experts'"},
       {"2 (N_act - V h) + 2 V h / prompt", "2 (N_act - V h) + 2 V h / prompt less the routed experts'"}}};
  return kLabels[prompt][tied][moe_s > 0];
}
}  // namespace

double decode_attention_read_rate(const GpuSpec& gpu, double hbm, std::string* basis) {
  for (const auto& published : assumption::kPublishedDecodeAttention)
    if (published.gpu == gpu.name && published.bytes_per_s < hbm) {
      if (basis) *basis = std::string(published.basis);
      return published.bytes_per_s;
    }
  return hbm;
}

double cuda_graph_rows(const LlmInference& w, const ServingBudget& budget, double batch) {
  double cap = budget.trtllm ? std::min(budget.max_num_seqs, budget.max_num_batched_tokens)
                             : std::numeric_limits<double>::infinity();
  for (int size : w.cuda_graph_batch_sizes) {
    double captured = std::min<double>(size, cap);
    if (captured >= batch) return captured;
    if (size > cap) break;
  }
  return batch;
}

template <typename Num>
Num decode_gemm_time(const DecodeStep& d) {
  Num hbm = hbm_rate<Num>(d.hbm);
  return gemm_time<Num>(
      named<Num>("weights", d.weights, bytes_shown("weights read")) / hbm,
      (d.rows > d.batch ? named<Num>("rows", d.rows, count_shown("CUDA graph rows"))
                        : named<Num>("batch", d.batch, count_shown("batch"))) *
          named<Num>("flops_per_token", d.flops_per_token, flops_shown(flops_label(d.moe_s, d.tied))) /
          instance_flops<Num>(d.t, d.peak, d.eta));
}

template <typename Num>
Num decode_attention_time(const DecodeStep& d) {
  Num rate = d.kv_rate < d.hbm
                 ? named<Num>("kv_rate", d.kv_rate,
                              [](double v) { return fmt::format("KV read rate {:.2f} GB/s", v / 1e9); })
                 : hbm_rate<Num>(d.hbm);
  return maximum(named<Num>("kv_read", d.kv_read, bytes_shown("KV read")) / rate,
                 named<Num>("batch", d.batch, count_shown("batch")) *
                     named<Num>("attention_flops", d.attention_flops, flops_shown("attention")) /
                     attention_flops_rate<Num>(d.t, d.attention_peak, d.attention_eta));
}

bool decode_attention_memory_bound(const DecodeStep& d) {
  return d.kv_read / d.kv_rate >= d.batch * d.attention_flops / (d.t * d.attention_peak * d.attention_eta);
}

template <typename Num>
Num decode_step_time(const DecodeStep& d) {
  Num step = decode_gemm_time<Num>(d) + decode_attention_time<Num>(d) +
             named<Num>("elementwise", d.elementwise, bytes_shown("elementwise")) / hbm_rate<Num>(d.hbm);
  if (d.moe_bytes > 0)
    step = step + named<Num>("moe_bytes", d.moe_bytes, bytes_shown("MoE permute")) / hbm_rate<Num>(d.hbm);
  if (d.moe_s > 0) step = step + named<Num>("t_moe", d.moe_s, seconds_shown("MoE layers", 4));
  if (d.t > 1)
    step = step + named<Num>("t_tp", d.tp_s, seconds_shown(d.ep ? "EP exchange" : "TP all-reduces", 4));
  return step;
}

template <typename Num>
Num decode_crossover_batch(const DecodeStep& d) {
  return named<Num>("weights", d.weights, bytes_shown("weights read")) / hbm_rate<Num>(d.hbm) /
         (named<Num>("flops_per_token", d.flops_per_token, flops_shown(flops_label(d.moe_s, d.tied))) /
          instance_flops<Num>(d.t, d.peak, d.eta));
}

template <typename Num>
Num prefill_time(const Prefill& p) {
  Num compute =
      gemm_time<Num>(
          named<Num>("weights", p.weights, bytes_shown("weights read")) / hbm_rate<Num>(p.hbm),
          named<Num>("flops_per_token", p.flops_per_token, flops_shown(flops_label(p.moe_s, p.tied, true))) *
              named<Num>("prompt", p.tokens, count_shown("prompt tokens")) /
              instance_flops<Num>(p.t, p.peak, p.eta)) +
      named<Num>("attention_flops", p.attention_flops, flops_shown("attention")) /
          attention_flops_rate<Num>(p.t, p.attention_peak, p.attention_eta) +
      named<Num>("elementwise", p.elementwise, bytes_shown("elementwise")) / hbm_rate<Num>(p.hbm);
  if (p.moe_s > 0) compute = compute + named<Num>("t_moe_prefill", p.moe_s, seconds_shown("MoE layers", 6));
  if (p.t > 1)
    compute = compute +
              named<Num>("t_tp_prefill", p.tp_s, seconds_shown(p.ep ? "EP exchange" : "TP all-reduces", 4));
  return compute;
}

template <typename Num>
Num time_to_first_token(const Prefill& p, double decode_step_s) {
  Num prefill = prefill_time<Num>(p);
  if (p.ranks > 1)
    prefill = named<Num>("ranks", p.ranks, count_shown("attention data-parallel ranks")) * prefill;
  return prefill + named<Num>("decode_step", decode_step_s, seconds_shown("decode step", 4));
}

template <typename Num>
Num serving_hbm_per_gpu(const ServingPoint& sp) {
  return named<Num>("weights", sp.weights_per_gpu, bytes_shown("weights")) +
         named<Num>("kv_budget", sp.kv_budget / sp.kv_shards, bytes_shown("KV cache"));
}

template <typename Num>
Num serving_tokens_per_s_node(const ServingPoint& sp) {
  Num out = named<Num>("out", sp.output_tokens, count_shown("out"));
  Num step = named<Num>("t_step", sp.step_s, seconds_shown("decode step", 4));
  Num batch = named<Num>("batch", sp.batch, count_shown("batch"));
  Num prefill = named<Num>("t_prefill", sp.prefill_s, seconds_shown("prefill", 4));
  Num instances = named<Num>("instances", sp.instances, count_shown("instances"));
  if (sp.requests <= 0) return out / (out * step / batch + prefill) * instances;
  Num run = named<Num>("waves", std::floor(sp.requests / sp.batch), count_shown("whole batches")) *
            (out * step + batch * prefill);
  if (sp.tail_batch > 0) {
    Num tail = named<Num>("tail", sp.tail_batch, count_shown("tail batch"));
    run = run + out * named<Num>("t_tail", sp.tail_step_s, seconds_shown("tail step", 4)) + tail * prefill;
  }
  return named<Num>("requests", sp.requests, count_shown("requests")) * out / run * instances;
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

}  // namespace mlbench::sizing
