#include "sizing/models.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "bench/units.hpp"

namespace mlbench::sizing {
namespace {

constexpr double kActivationBytes = 2;  // 16-bit activations
constexpr double kDramWattsPerGb = 0.375;

double grad_bytes(const LlmTraining& w) { return w.optimizer == "adam-fp32-grads" ? 4 : 2; }

// Elementwise (non-GEMM) passes of one transformer layer per token, forward, as a PyTorch training step runs
// them (norms and rotary upcast to fp32, unfused SwiGLU): bytes read + written per element, and elements in
// units of hidden (h) or FFN width (f). Backward costs twice the forward.
struct ElementwisePass {
  const char* op;
  double h_elements, f_elements, bytes;
};
constexpr ElementwisePass kElementwisePasses[] = {
    {"2x RMSNorm: upcast 6, square 8, mean 4, scale 8, downcast 6, weight 4", 2, 0, 36},
    {"rotary on q and k: upcast, complex multiply, downcast", 2, 0, 20},
    {"attention kernel q, k, v in / o out + layout copies", 1, 0, 20},
    {"2x residual add", 2, 0, 6},
    {"SwiGLU: silu, multiply", 0, 1, 10},
};

double nongemm_bytes_per_token_layer(const TransformerModel& m) {
  double forward = 0;
  for (const auto& p : kElementwisePasses) {
    double f_elements = m.gated_ffn ? p.f_elements : p.f_elements * 0.4;  // plain FFN: one GeLU pass
    forward += (p.h_elements * m.hidden + f_elements * m.ffn_hidden) * p.bytes;
  }
  return 3 * forward;
}

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

}  // namespace

GemmCost training_flops_per_token(const TransformerModel& m, int seq_len) {
  double matrix_params = m.active_params - static_cast<double>(m.vocab) * m.hidden;
  return {6 * matrix_params, 12.0 * m.layers * m.hidden * seq_len};
}

std::vector<GemmShape> training_gemm_shapes(const TransformerModel& m, int tokens, int t) {
  double M = tokens, h = m.hidden, f = m.ffn_hidden;
  double qkv = h + 2.0 * m.kv_heads * m.head_dim();
  return {{M, qkv / t, h},
          {M, h, h / t},
          {M, (m.gated_ffn ? 2 : 1) * f / t, h},
          {M, h, f / t},
          {M, static_cast<double>(m.vocab) / t, h}};
}

std::string Layout::describe() const {
  return fmt::format("TP {} x PP {} x DP {}, ZeRO-{}{}", t, p, d, zero,
                     full_recompute ? ", full recompute" : "");
}

std::string MemoryBreakdown::describe() const {
  return fmt::format("weights {} + gradients {} + optimizer {} + activations {} + overhead {} = {}",
                     format_bytes(weights), format_bytes(gradients), format_bytes(optimizer),
                     format_bytes(activations), format_bytes(overhead), format_bytes(total()));
}

MemoryBreakdown training_memory(const TransformerModel& m, const LlmTraining& w, const Layout& l) {
  MemoryBreakdown b;
  double params = m.params / (l.t * l.p);
  double d = l.d;
  b.weights = 2 * params / (l.zero >= 3 ? d : 1);
  b.gradients = grad_bytes(w) * params / (l.zero >= 2 ? d : 1);
  b.optimizer = 12 * params / (l.zero >= 1 ? d : 1);
  double s = w.seq_len, bsz = w.micro_batch, h = m.hidden;
  // Flash attention drops the 5as/h term; 1F1B keeps p micro-batches of L/p layers on the first stage: L
  // layers, x (1 + (p - 1) / (p v)) with v interleaved virtual stages.
  double interleave = l.p > 1 ? 1 + (l.p - 1.0) / (l.p * virtual_stages(m.layers, l.p)) : 1;
  double per_layer = (l.full_recompute ? 2 * s * bsz * h / l.t : s * bsz * h / l.t * 34) * interleave;
  double extra = l.full_recompute ? s * bsz * h / l.t * 34 : 0;  // the layer being recomputed
  double logits = s * bsz * m.vocab * 4.0 / l.t;                 // fp32 logits of the last stage
  b.activations = m.layers * per_layer + extra + logits;
  double modelled = b.weights + b.gradients + b.optimizer + b.activations;
  b.overhead = Assumptions::kRuntimeOverhead + Assumptions::kFragmentation * modelled;
  return b;
}

double pipeline_bubble(int p, int v, double micro_batches) { return (p - 1) / (v * micro_batches); }

int virtual_stages(int layers, int p) { return p > 1 ? std::max(1, layers / p) : 1; }

LayoutChoice choose_layout(const TransformerModel& m, const LlmTraining& w, const NodeFacts& node,
                           const Calibration& cal, int gpus, double headroom) {
  LayoutChoice out;
  double limit = (1 - headroom) * node.gpu->memory_bytes;
  double sequences = w.global_batch_tokens / w.seq_len;
  std::vector<Layout> candidates;
  for (bool recompute : {false, true}) {
    for (int mp = 1; mp <= gpus; mp *= 2) {
      for (int t = std::min(mp, node.domain); t >= 1; t /= 2) {
        int p = mp / t;
        if (t * p != mp || m.heads % t != 0 || p > m.layers) continue;
        // More replicas than sequences in a step have nothing to compute: those GPUs idle.
        int d = std::min(gpus / mp, static_cast<int>(sequences / w.micro_batch));
        if (d < 1) continue;
        for (int zero = 0; zero <= 3; ++zero) candidates.push_back({t, p, d, zero, recompute});
      }
    }
  }
  double best_step = 0;
  for (const auto& c : candidates) {
    auto mem = training_memory(m, w, c);
    if (mem.total() > limit) {
      if (!out.layout) {
        out.most_sharded = c;
        out.memory = mem;
      }
      continue;
    }
    // Strictly faster only, so equal step times keep the earlier candidate (the tie-break order).
    double step = training_step(m, w, node, cal, c).step_s;
    if (!out.layout || step < best_step) {
      out.layout = c;
      out.memory = mem;
      best_step = step;
    }
  }
  if (out.layout) return out;
  out.why_not = candidates.empty()
                    ? fmt::format("{} GPUs allow no tensor/pipeline split of {} heads and {} layers", gpus,
                                  m.heads, m.layers)
                    : fmt::format(
                          "nothing fits {} (1 - headroom {:.2f}) of {} HBM; the most sharded layout tried "
                          "({}) needs {}",
                          format_bytes(limit), headroom, format_bytes(node.gpu->memory_bytes),
                          out.most_sharded.describe(), out.memory.describe());
  return out;
}

TrainingStep training_step(const TransformerModel& m, const LlmTraining& w, const NodeFacts& node,
                           const Calibration& cal, const Layout& l) {
  TrainingStep st;
  st.layout = l;
  st.memory = training_memory(m, w, l);
  const GpuSpec& gpu = *node.gpu;
  int gpus = l.t * l.p * l.d;
  int nodes = std::max(1, gpus / node.gpus);
  double peak = gpu.peak_for(w.precision).value_or(0);
  double tokens_gpu = w.global_batch_tokens / gpus;  // tokens one GPU computes per step
  auto flops = training_flops_per_token(m, w.seq_len);
  double eta = cal.gemm.value * Assumptions::kTrainingGemmDerate;
  st.t_gemm = tokens_gpu * flops.gemm / (peak * eta);
  // Causal flash attention computes half of the full-sequence FLOPs the model counts.
  st.t_attention = tokens_gpu * flops.attention * 0.5 / (peak * eta * Assumptions::kAttentionRelative);
  if (l.full_recompute) st.t_recompute = (st.t_gemm + st.t_attention) / 3;
  double hbm = gpu.memory_bandwidth * cal.hbm.value;
  st.micro_batches = w.global_batch_tokens / (l.d * w.micro_batch * static_cast<double>(w.seq_len));
  double params_gpu = m.params / (l.t * l.p);
  // Elementwise traffic, gradient accumulation per micro-batch, the optimizer step over this rank's shard.
  // Per GPU: its replica's tokens over L/p layers, split t ways by sequence parallelism = tokens_gpu x L.
  double bytes = tokens_gpu * m.layers * nongemm_bytes_per_token_layer(m);
  bytes += tokens_gpu * kCrossEntropyBytesPerVocab * m.vocab / (l.t * l.p);
  bytes += st.micro_batches * params_gpu * 3 * grad_bytes(w);
  bytes += params_gpu / (l.zero >= 1 ? l.d : 1) * (26 + grad_bytes(w));
  st.t_nongemm = bytes / hbm;
  double t_compute = st.t_gemm + st.t_attention + st.t_recompute;
  st.virtual_stages = virtual_stages(m.layers, l.p);
  st.bubble = pipeline_bubble(l.p, st.virtual_stages, st.micro_batches);
  double t_pipe = (t_compute + st.t_nongemm) / pipeline_efficiency(st.bubble);

  double latency = Assumptions::kCollectiveLatency;
  st.tp_busbw = gpu.link_bandwidth * cal.nvlink.value;
  if (l.t > 1) {
    double elements = 8.0 * w.micro_batch * w.seq_len * m.hidden * (l.t - 1) / l.t;
    double per_layer = elements * kActivationBytes / st.tp_busbw + 4 * latency;
    st.t_tp = per_layer * (m.layers / static_cast<double>(l.p)) * st.micro_batches;
  }
  if (l.p > 1) {
    double per_gpu_nic = node.nic_bytes_per_s * cal.network.value / node.gpus;
    double bytes_mb = static_cast<double>(w.micro_batch) * w.seq_len * m.hidden * kActivationBytes / l.t;
    st.t_pp = 2 * st.micro_batches * st.virtual_stages * (bytes_mb / per_gpu_nic + latency);
  }
  if (l.d > 1) {
    st.dp_busbw = dp_busbw(node, cal, l, nodes);
    double all_reduce = params_gpu * 4 * 2 * (l.d - 1) / l.d / st.dp_busbw + latency * 2 * std::log2(l.d);
    // ZeRO 0-2: one gradient all-reduce per step, final only in the last micro-batch's backward (2/3 of its
    // compute), so it overlaps there. ZeRO-3/FSDP: weight all-gathers and gradient reduce-scatters, ~1.5x the
    // all-reduce volume, in every micro-batch, overlapping the whole forward and backward.
    st.t_dp = l.zero >= 3 ? 1.5 * all_reduce * st.micro_batches : all_reduce;
    double window = l.zero >= 3 ? t_compute : (2.0 / 3.0) * t_compute / st.micro_batches;
    double overlapped = std::min(st.t_dp, window);
    st.t_dp_exposed = (st.t_dp - overlapped) + (1 - Assumptions::kOverlapHidden) * overlapped;
  }
  double t_comm = st.t_tp + st.t_pp + st.t_dp_exposed;
  st.step_s = t_pipe + t_comm;
  double model_flops = tokens_gpu * flops.total();
  st.eta_compute = model_flops / (peak * t_compute);
  st.nongemm_share = st.t_nongemm / (t_compute + st.t_nongemm);
  st.comm_share = t_comm / st.step_s;
  st.mfu = model_flops / (peak * st.step_s);
  st.tokens_per_s = w.global_batch_tokens / st.step_s;
  return st;
}

CvStep cv_step(const CvTraining& w, const NodeFacts& node, const Calibration& cal, int gpus) {
  CvStep st;
  double peak = node.gpu->peak_for(w.precision).value_or(0);
  double compute = st.batch_per_gpu * 3 * w.flops_per_image / (peak * cal.conv.value);
  if (gpus > 1) {
    Layout l{1, 1, gpus, 0, false};
    double busbw = dp_busbw(node, cal, l, std::max(1, gpus / node.gpus));
    st.t_dp =
        w.params * 4 * 2 * (gpus - 1) / gpus / busbw + Assumptions::kCollectiveLatency * 2 * std::log2(gpus);
    double window = (2.0 / 3.0) * compute;
    double overlapped = std::min(st.t_dp, window);
    st.t_dp_exposed = (st.t_dp - overlapped) + (1 - Assumptions::kOverlapHidden) * overlapped;
  }
  st.step_s = compute + st.t_dp_exposed;
  st.comm_share = st.t_dp_exposed / st.step_s;
  st.images_per_s_gpu = st.batch_per_gpu / st.step_s;
  return st;
}

std::optional<ServingPoint> serving_point(const LlmInference& w, const NodeFacts& node,
                                          const Calibration& cal, double headroom, std::string* why_not) {
  const GpuSpec& gpu = *node.gpu;
  const TransformerModel& m = w.model;
  double peak = gpu.peak_for(w.precision).value_or(0);
  double eta = cal.gemm.value;
  double hbm = gpu.memory_bandwidth * cal.hbm.value;
  double weights = m.params * bytes_per_element(w.precision);
  double kv_token = 2.0 * m.layers * m.kv_heads * m.head_dim() * bytes_per_element(w.kv_precision);
  double in = w.input_tokens, out = w.output_tokens;
  double ctx_avg = in + out / 2;
  double per_token_flops = 2 * m.active_params;
  std::optional<ServingPoint> best;
  for (int t = 1; t <= node.domain; t *= 2) {
    if (m.heads % t != 0 || node.gpus % t != 0) continue;
    ServingPoint sp;
    sp.t = t;
    sp.kv_per_token = kv_token;
    sp.weights_per_gpu = weights / t;
    double usable = (1 - Assumptions::kServingReserve) * gpu.memory_bytes - Assumptions::kRuntimeOverhead;
    sp.kv_budget = (usable - sp.weights_per_gpu) * t;
    if (sp.kv_budget <= kv_token * (in + out)) continue;
    double tp_busbw = gpu.link_bandwidth * cal.nvlink.value;
    auto tp_time = [&](double tokens) {
      if (t == 1) return 0.0;
      double bytes = tokens * m.hidden * 2.0 * 2 * (t - 1) / t;
      return 2.0 * m.layers * (Assumptions::kCollectiveLatency + bytes / tp_busbw);
    };
    auto step = [&](double batch, std::string* bound) {
      double mem = (sp.weights_per_gpu + batch * ctx_avg * kv_token / t) / hbm;
      double comp = batch * (per_token_flops + 4.0 * m.layers * m.hidden * ctx_avg) / (t * peak * eta);
      if (bound) *bound = mem >= comp ? "memory" : "compute";
      return std::max(mem, comp) + tp_time(batch);
    };
    sp.prefill_s =
        (per_token_flops * in + 2.0 * m.layers * m.hidden * in * in) / (t * peak * eta) + tp_time(in);
    sp.batch = std::floor(sp.kv_budget / (kv_token * ctx_avg));
    double tpot_limit = w.tpot_s > 0 ? w.tpot_s * (1 - headroom) : 0;
    if (tpot_limit > 0) {
      while (sp.batch > 1 && step(sp.batch, nullptr) > tpot_limit) sp.batch = std::floor(sp.batch * 0.95);
    }
    sp.step_s = step(sp.batch, &sp.bound);
    sp.ttft_s = sp.prefill_s + sp.step_s;
    sp.meets_targets = (tpot_limit <= 0 || sp.step_s <= tpot_limit) &&
                       (w.ttft_s <= 0 || sp.ttft_s <= w.ttft_s * (1 - headroom));
    // Continuous batching: each request costs its prefill plus `out` decode steps shared by the batch.
    sp.tokens_per_s_instance = out / (out * sp.step_s / sp.batch + sp.prefill_s);
    sp.tokens_per_s_node = sp.tokens_per_s_instance * (node.gpus / t);
    bool better = !best || (sp.meets_targets && !best->meets_targets) ||
                  (sp.meets_targets == best->meets_targets && sp.tokens_per_s_node > best->tokens_per_s_node);
    if (better) best = sp;
  }
  if (!best && why_not)
    *why_not =
        fmt::format("{} of {} weights plus one {}-token context fit no tensor-parallel degree up to {} on {}",
                    format_bytes(weights), w.precision, in + out, node.domain, gpu.name);
  return best;
}

Fabric rail_optimised_fabric(int nodes, int nics_per_node, int radix) {
  Fabric f;
  f.rails = nics_per_node;
  f.node_ports = nodes * nics_per_node;
  if (nodes <= 1) return f;
  int per_leaf = radix / 2;
  f.leaves = nics_per_node * ((nodes + per_leaf - 1) / per_leaf);
  f.spines = (f.leaves * per_leaf + radix - 1) / radix;
  f.cables = f.node_ports + f.leaves * per_leaf;
  return f;
}

double node_nameplate_w(const NodeTemplate& n, const HardwareCatalog& c) {
  const auto& gpu = c.gpu(n.gpu);
  const auto& cool = c.cooling_spec(n.cooling);
  return n.gpus * gpu.tdp_w * cool.gpu_power_factor + n.sockets * c.cpu(n.cpu).tdp_w +
         n.ram_bytes / 1e9 * kDramWattsPerGb + n.nics * c.nic(n.nic).power_w +
         n.drives * c.drive(n.drive).power_w + n.other_w;
}

}  // namespace mlbench::sizing
