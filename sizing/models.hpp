// Performance models of the sizing engine (METHODS.md "Sizing formulas"): pure functions of a workload, a
// node and a calibration, unit-tested on published cases.
//
// Training: model FLOPs per token (GEMMs + attention, PaLM/Megatron definition, recomputation excluded from
// MFU), memory per GPU (model states by ZeRO stage, activations with tensor + sequence parallelism and flash
// attention, overheads) -> the smallest layout that fits (tensor parallel within the NVLink domain, then
// pipeline, then data), and a step time built from GEMM time at the calibrated efficiency, non-GEMM memory
// traffic at the calibrated HBM bandwidth, the pipeline bubble and the exposed part of each communication.
// MFU is the product of those factors, never a constant. Inference: weights + KV cache -> batch, decode step
// = max(memory, compute) + tensor-parallel latency, prefill compute-bound.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sizing/calibration.hpp"
#include "sizing/catalog.hpp"
#include "sizing/workload.hpp"

namespace mlbench::sizing {

// Engine assumptions that are not efficiencies of a measured device; each is printed on the sheet.
struct Assumptions {
  static constexpr double kGoodput = 0.90;            // restarts, checkpoint stalls at large scale (METHODS)
  static constexpr double kAttentionRelative = 0.60;  // flash attention kernels vs GEMM efficiency
  // gpu.gemm measures forward GEMMs on a cool GPU for seconds; training adds the transposed dgrad/wgrad GEMMs
  // and runs for weeks at power-capped sustained clocks.
  static constexpr double kTrainingGemmDerate = 0.85;
  static constexpr double kOverlapHidden = 0.90;       // share of overlappable DP traffic actually hidden
  static constexpr double kCollectiveLatency = 20e-6;  // s per collective call
  static constexpr double kRuntimeOverhead = 2.0e9;    // B per GPU: CUDA context, NCCL buffers, workspaces
  static constexpr double kFragmentation = 0.05;       // of modelled bytes
  static constexpr double kServingReserve = 0.10;      // of HBM kept free by serving engines
  static constexpr double kAveragePowerShare = 0.80;   // average draw of a busy node / nameplate
};

struct GemmCost {
  double gemm = 0, attention = 0;  // FLOPs per token, forward + backward (training) or forward (inference)
  double total() const { return gemm + attention; }
};
// Model FLOPs per token of training (3x forward): GEMMs 6 (N_act - V h) + logits, attention 12 L h s.
GemmCost training_flops_per_token(const TransformerModel& m, int seq_len);
// The workload's GEMMs per micro-batch and tensor-parallel rank: QKV, O, FFN up, FFN down, logits (m, n, k).
std::vector<GemmShape> training_gemm_shapes(const TransformerModel& m, int tokens_per_micro_batch, int t);

struct Layout {
  int t = 1, p = 1, d = 1, zero = 0;
  bool full_recompute = false;
  std::string describe() const;
};

struct MemoryBreakdown {
  double weights = 0, gradients = 0, optimizer = 0, activations = 0, overhead = 0;
  double total() const { return weights + gradients + optimizer + activations + overhead; }
  std::string describe() const;
};

MemoryBreakdown training_memory(const TransformerModel& m, const LlmTraining& w, const Layout& l);

// The node facts the models need.
struct NodeFacts {
  const GpuSpec* gpu = nullptr;
  int gpus = 8, domain = 8;
  double nic_bytes_per_s = 0;  // all compute-fabric NICs of one node
};

struct LayoutChoice {
  std::optional<Layout> layout;
  MemoryBreakdown memory;  // of the chosen layout, or of the most sharded one tried when nothing fits
  Layout most_sharded;
  std::string why_not;  // when nothing fits
};
// The fastest layout (shortest training_step) among those that fit memory <= (1 - headroom) x HBM.
// Candidates, in tie-break order: without recomputation first, then with full recomputation; within each, the
// smallest t*p (t as large as the NVLink domain allows before p), then the smallest ZeRO stage. `gpus` total
// GPUs; d = min(floor(gpus / (t p)), sequences per step / micro-batch), so a node count that t p does not
// divide, or more GPUs than the batch can use, leaves the remainder idle instead of excluding every layout.
LayoutChoice choose_layout(const TransformerModel& m, const LlmTraining& w, const NodeFacts& node,
                           const Calibration& cal, int gpus, double headroom);

// Pipeline bubble of the 1F1B schedule as idle time relative to the ideal compute time, (p - 1) / (v m)
// (METHODS), with v virtual stages per GPU and m micro-batches per replica per step.
double pipeline_bubble(int p, int v, double micro_batches);
// Virtual stages per GPU of the interleaved 1F1B schedule the engine assumes (Megatron-LM): as many as keep
// at least one layer per virtual stage, v = floor(L / p); 1 without pipelining. The price, also modelled: v
// times the point-to-point sends, and activations of the first stage x (1 + (p - 1) / (p v)) (Korthikanti et
// al.).
int virtual_stages(int layers, int p);
// The share of a pipelined step spent computing: ideal / (ideal + bubble) = 1 / (1 + bubble).
inline double pipeline_efficiency(double bubble) { return 1 / (1 + bubble); }

struct TrainingStep {
  Layout layout;
  MemoryBreakdown memory;
  double micro_batches = 0;  // per data-parallel replica per step
  int virtual_stages = 1;
  double t_gemm = 0, t_attention = 0, t_recompute = 0, t_nongemm = 0;
  double bubble = 0;  // pipeline_bubble(p, v, micro_batches); the step takes (1 + bubble) x its compute
  double t_tp = 0, t_pp = 0, t_dp = 0, t_dp_exposed = 0;
  double dp_busbw = 0, tp_busbw = 0;
  double step_s = 0;
  double eta_compute = 0, nongemm_share = 0, comm_share = 0, mfu = 0;
  double tokens_per_s = 0;  // whole cluster
};
TrainingStep training_step(const TransformerModel& m, const LlmTraining& w, const NodeFacts& node,
                           const Calibration& cal, const Layout& layout);

struct CvStep {
  double images_per_s_gpu = 0, step_s = 0, t_dp = 0, t_dp_exposed = 0, comm_share = 0;
  double batch_per_gpu = 256;
};
CvStep cv_step(const CvTraining& w, const NodeFacts& node, const Calibration& cal, int gpus);

struct ServingPoint {
  int t = 1;
  double batch = 0;
  double weights_per_gpu = 0, kv_per_token = 0, kv_budget = 0;  // kv budget for the instance (t GPUs)
  double step_s = 0, prefill_s = 0, ttft_s = 0;
  double tokens_per_s_instance = 0, tokens_per_s_node = 0;
  std::string bound;  // "memory" or "compute" (decode step)
  bool meets_targets = true;
};
// The tensor-parallel degree and batch that serve the most output tokens per second per node while meeting
// the TTFT/TPOT targets scaled by (1 - headroom); nullopt when the weights fit no degree.
std::optional<ServingPoint> serving_point(const LlmInference& w, const NodeFacts& node,
                                          const Calibration& cal, double headroom, std::string* why_not);

struct Fabric {
  int rails = 0, leaves = 0, spines = 0, node_ports = 0, cables = 0;
};
// Rail-optimised two-tier fat tree: one leaf per rail per radix/2 nodes, spines = ceil(leaves x radix/2 /
// radix).
Fabric rail_optimised_fabric(int nodes, int nics_per_node, int radix);

// Node nameplate: GPUs x TDP x cooling factor + CPUs + DRAM (0.375 W/GB) + NICs + drives + other.
double node_nameplate_w(const NodeTemplate& n, const HardwareCatalog& c);

}  // namespace mlbench::sizing
