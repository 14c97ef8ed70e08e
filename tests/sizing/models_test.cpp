#include <cmath>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include <gtest/gtest.h>

#include "sizing/model_terms.hpp"
#include "sizing/models.hpp"
#include "tests/common/files.hpp"
#include "tests/sizing/test_util.hpp"

namespace mlbench::sizing::test {
namespace {

LlmTraining llama7b() {
  return std::get<LlmTraining>(load_workload(data_dir() / "llama2-7b-a100.yaml").spec);
}

NodeFacts a100_node() {
  const auto& c = shipped_catalog();
  return {&c.gpu("A100-SXM4-80GB"), 8, 8, 8 * 200e9 / 8};
}

TEST(Models, TrainingFlopsFollowTheFormula) {
  auto w = llama7b();
  auto f = training_flops_per_token(w.model, w.seq_len);
  EXPECT_DOUBLE_EQ(f.gemm, 6 * (w.model.params - 32000.0 * 4096));
  EXPECT_DOUBLE_EQ(f.attention, 12.0 * 32 * 4096 * 4096);
}

TEST(Models, MemoryIsShardedByZeroStage) {
  auto w = llama7b();
  double n = w.model.params;
  auto m0 = training_memory(w.model, w, {1, 1, 8, 0, Recompute::none});
  EXPECT_DOUBLE_EQ(m0.weights, 2 * n);
  EXPECT_DOUBLE_EQ(m0.gradients, 2 * n);
  EXPECT_DOUBLE_EQ(m0.optimizer, 12 * n);
  // Per token and layer (no TP): norms' and projections' inputs 8h, Q, K, V, O 8h, SwiGLU's 3 x 2 f; no
  // dropout.
  EXPECT_DOUBLE_EQ(m0.activations, 32 * 4096.0 * (16 * 4096 + 6 * 11008) + 4096.0 * 32000 * 4);
  auto m3 = training_memory(w.model, w, {1, 1, 8, 3, Recompute::none});
  EXPECT_DOUBLE_EQ(m3.weights, 2 * n / 8);
  EXPECT_DOUBLE_EQ(m3.optimizer, 12 * n / 8);
  auto tp = training_memory(w.model, w, {4, 2, 1, 0, Recompute::none});
  EXPECT_DOUBLE_EQ(tp.weights, 2 * n / 8);
  auto rc = training_memory(w.model, w, {1, 1, 8, 0, Recompute::full});
  EXPECT_LT(rc.activations, m0.activations / 5);
}

TEST(Models, FastestLayoutThatFits) {
  auto w = llama7b();
  auto node = a100_node();
  Calibration cal;
  cal.gemm.value = cal.hbm.value = cal.nvlink.value = cal.network.value = 0.8;
  auto c = choose_layout(w.model, w, node, cal, 512);
  ASSERT_TRUE(c.layout);
  EXPECT_EQ(c.layout->t * c.layout->p, 1);
  EXPECT_LE(c.memory.total(), node.gpu->memory_bytes);
  // One GPU cannot hold 16 B/param of 6.7e9 parameters: the breakdown explains why.
  auto none = choose_layout(w.model, w, node, cal, 1);
  EXPECT_FALSE(none.layout);
  EXPECT_NE(none.why_not.find("optimizer"), std::string::npos) << none.why_not;
}

TEST(Models, MfuIsTheProductOfItsFactorsAndFollowsGemmEfficiency) {
  auto w = llama7b();
  auto node = a100_node();
  Calibration cal;
  cal.gemm.value = 0.8;
  cal.hbm.value = 0.9;
  cal.nvlink.value = 0.8;
  cal.network.value = 0.9;
  Layout l{1, 1, 512, 1, Recompute::none};
  auto hi = training_step(w.model, w, node, cal, l);
  EXPECT_NEAR(hi.mfu, hi.eta_compute * (1 - hi.nongemm_share) / (1 + hi.bubble) * (1 - hi.comm_share), 1e-9);
  cal.gemm.value = 0.6;
  auto lo = training_step(w.model, w, node, cal, l);
  EXPECT_LT(lo.mfu, hi.mfu);
  EXPECT_GT(lo.mfu, hi.mfu * 0.6 / 0.8);  // non-GEMM time does not shrink with GEMM efficiency
}

TEST(Models, PipelineBubbleIsPMinusOneOverVirtualStagesTimesMicroBatches) {
  auto w = llama7b();
  Calibration cal;
  cal.gemm.value = cal.hbm.value = cal.nvlink.value = cal.network.value = 0.8;
  auto st = training_step(w.model, w, a100_node(), cal, {1, 4, 128, 1, Recompute::none, 8});
  EXPECT_DOUBLE_EQ(st.micro_batches, 4194304.0 / (128 * 4096));
  // Interleaved 1F1B with one layer per virtual stage: 32 layers / 4 stages = 8 virtual stages.
  EXPECT_EQ(virtual_stages(32, 4), 8);
  EXPECT_EQ(st.virtual_stages, 8);
  EXPECT_DOUBLE_EQ(st.bubble, 3 / (8 * st.micro_batches));
  // The bubble is idle time relative to the ideal compute time: the step stretches by (1 + bubble).
  double compute = st.t_gemm + st.t_attention + st.t_recompute + st.t_nongemm;
  EXPECT_NEAR(
      st.step_s,
      compute * (1 + st.stages.imbalance) * (1 + st.bubble) + st.t_tp + st.t_pp_exposed + st.t_dp_exposed,
      1e-12 * st.step_s);
  // The sheet's step-time formula is that computation.
  auto step = step_time<Formula>(st);
  EXPECT_EQ(step.value(), st.step_s);
  EXPECT_EQ(
      step.symbolic(),
      "(t_gemm + t_attention + t_nongemm) x (1 + imbalance) x (1 + bubble) + t_pp_exposed + t_dp_exposed");
}

TEST(Models, PipelineBubbleFormula) {
  EXPECT_DOUBLE_EQ(pipeline_bubble(1, 1, 8), 0);
  EXPECT_DOUBLE_EQ(pipeline_bubble(16, 1, 1), 15);
  EXPECT_DOUBLE_EQ(pipeline_bubble(16, 2, 60), 15.0 / 120);
  EXPECT_EQ(virtual_stages(126, 16), 7);
  EXPECT_EQ(virtual_stages(32, 1), 1);
  EXPECT_EQ(virtual_stages(4, 8), 1);
}

// Korthikanti et al. 2022, activation bytes per layer of a GPT layer (K and V as wide as Q, a 4h GeLU FFN,
// dropout): s b h (10 + 24/t + 5 a s/(h t)) with tensor parallelism, 34 s b h / t with sequence parallelism
// and selective recomputation, 2 s b h under full.
TEST(Models, ActivationBytesPerLayerFollowKorthikanti) {
  auto w = llama7b();
  w.attention = "standard";
  w.sequence_parallel = false;
  auto& m = w.model;
  m.gated_ffn = false;
  m.ffn_hidden = 4 * m.hidden;
  m.dropout = true;
  // The Korthikanti workloads say so: `dropout: true` in their model.
  EXPECT_TRUE(
      std::get<LlmTraining>(load_workload(data_dir() / "korthikanti-22b-full.yaml").spec).model.dropout);
  double s = w.seq_len, h = m.hidden, a = m.heads, t = 8;
  Layout l{8, 1, 1, 0, Recompute::none};
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, w, l), s * h * (10 + 24 / t + 5 * a * s / (h * t)));
  w.sequence_parallel = true;
  l.recompute = Recompute::selective;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, w, l), 34 * s * h / t);
  l.recompute = Recompute::full;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, w, l), 2 * s * h / t);
  // Flash attention never stores the scores: no 5 a s / h term even without recomputation.
  w.attention = "flash";
  l.recompute = Recompute::none;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, w, l), 34 * s * h / t);
}

// The same count at the layer's own widths: Llama 3 405B (8 of 128 KV heads, SwiGLU of 53,248 = 3.25 h, no
// dropout) keeps 8 s b h outside the tensor-parallel region and 2 (h + h/16 + h/16 + h) + 3 x 2 x 3.25 h =
// 23.75 s b h inside; without dropout the stored scores are the softmax output alone, 2 a s^2 b.
TEST(Models, ActivationBytesFollowTheArchitecture) {
  auto w = std::get<LlmTraining>(load_workload(data_dir() / "llama3-405b-h100-8192gpu.yaml").spec);
  const auto& m = w.model;
  ASSERT_EQ(m.kv_heads, 8);
  ASSERT_FALSE(m.dropout);
  double s = w.seq_len, h = m.hidden, a = m.heads, t = 8;
  Layout l{8, 16, 64, 1, Recompute::selective};
  w.sequence_parallel = true;
  w.attention = "flash";
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, w, l), 31.75 * s * h / t);
  w.sequence_parallel = false;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, w, l), s * h * (8 + 23.75 / t));
  w.attention = "standard";
  l.recompute = Recompute::none;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, w, l), s * h * (8 + 23.75 / t) + 2 * a * s * s / t);
}

// Full recomputation redoes every layer's forward: HFU counts it, MFU does not.
TEST(Models, FullRecomputeCostsAForwardAndSplitsMfuFromHfu) {
  auto w = llama7b();
  Calibration cal;
  cal.gemm.value = cal.hbm.value = cal.nvlink.value = cal.network.value = 0.8;
  Layout l{1, 1, 512, 1, Recompute::none};
  auto none = training_step(w.model, w, a100_node(), cal, l);
  l.recompute = Recompute::full;
  auto full = training_step(w.model, w, a100_node(), cal, l);
  EXPECT_DOUBLE_EQ(none.hfu, none.mfu);
  EXPECT_GT(full.hfu, full.mfu);
  EXPECT_LT(full.mfu, none.mfu);
  auto f = training_flops_per_token(w.model, w.seq_len);
  EXPECT_NEAR(full.hfu / full.mfu, 1 + (f.gemm - f.logits + f.attention) / 3 / f.total(), 1e-9);
}

LlmTraining moe8x7b() {
  return std::get<LlmTraining>(
      load_workload(source_dir() / "configs" / "workloads" / "moe-8x7b-pretraining.yaml").spec);
}

Calibration flat_calibration(double eff) {
  Calibration cal;
  cal.gemm.value = cal.hbm.value = cal.nvlink.value = cal.network.value = eff;
  cal.alltoall_nvlink.value = cal.alltoall_network.value = eff;
  return cal;
}

// Mixtral 8x7B's shipped model served offline in bf16 at TP 2, 512 / 256 tokens, at a fixed batch.
LlmInference mixtral_served(int batch) {
  LlmInference w;
  w.model = moe8x7b().model;
  w.precision = w.kv_precision = "bf16";
  w.input_tokens = 512;
  w.output_tokens = 256;
  w.offline = true;
  w.tp = 2;
  w.batch = batch;
  return w;
}

// A serving workload file on one node of 8 `gpu`s at a flat 0.8 calibration, GEMM efficiency 0.7 in prefill
// and 0.6 in decode, headroom 0.25.
struct Served {
  LlmInference w;
  std::optional<ServingPoint> sp;
};
Served serve_file(const char* file, const char* gpu) {
  Served s{std::get<LlmInference>(load_workload(data_dir() / file).spec), std::nullopt};
  NodeFacts node{&shipped_catalog().gpu(gpu), 8, 8, 8 * 400e9 / 8};
  s.sp = serving_point(s.w, node, flat_calibration(0.8), 0.7, 0.6, 0.25, nullptr);
  return s;
}

// MoE: FLOPs from the active parameters, weights and optimizer state from all of them with the routed experts
// split ep ways (and their ZeRO shards over dp / ep ranks).
TEST(Models, ExpertsSplitEpWaysAndFlopsFollowActiveParameters) {
  auto w = moe8x7b();
  const auto& m = w.model;
  auto f = training_flops_per_token(m, w.seq_len);
  EXPECT_DOUBLE_EQ(f.gemm, 6 * (m.active_params - 32000.0 * 4096));
  double experts = m.expert_params(), dense = m.params - experts;
  Layout one{1, 1, 8, 0, Recompute::none};
  Layout ep8 = one;
  ep8.e = 8;
  EXPECT_DOUBLE_EQ(training_memory(m, w, one).weights, 2 * m.params);
  EXPECT_DOUBLE_EQ(training_memory(m, w, ep8).weights, 2 * (dense + experts / 8));
  // ZeRO-1: the dense optimizer state over the 8 data ranks, the experts' over 8 / ep = 1.
  ep8.zero = 1;
  EXPECT_DOUBLE_EQ(training_memory(m, w, ep8).optimizer, 12 * (dense / 8 + experts / 8));
  Layout ep2 = ep8;
  ep2.e = 2;
  EXPECT_DOUBLE_EQ(training_memory(m, w, ep2).optimizer, 12 * (dense / 8 + experts / 2 / 4));
}

// The all-to-all: 4 per MoE layer and micro-batch, (ep - 1)/ep of k h 2 B per token leaving the GPU, over
// NVLink within the domain and the fabric beyond it; each gradient reduced over the ranks holding it only.
TEST(Models, ExpertParallelAllToAllAndGradientReduction) {
  auto w = moe8x7b();
  auto cal = flat_calibration(0.8);
  auto node = a100_node();
  Layout l{1, 1, 64, 1, Recompute::none};
  auto none = training_step(w.model, w, node, cal, l);
  EXPECT_EQ(none.t_ep, 0);
  l.e = 8;
  auto ep8 = training_step(w.model, w, node, cal, l);
  EXPECT_TRUE(ep8.ep_in_domain);
  double tokens = 4096, layer_mbs = 32 * ep8.micro_batches, latency = assumption::kCollectiveLatency.value;
  double size = tokens * 2 * 4096 * 2.0;
  EXPECT_NEAR(ep8.t_ep, layer_mbs * 4 * (size * 7 / 8 / (node.gpu->link_bandwidth * 0.8) + latency),
              1e-9 * ep8.t_ep);
  // Expert gradients reduce over 64 / 8 = 8 ranks instead of 64: less DP traffic than without EP.
  auto split = params_per_gpu(w.model, l);
  double bw = ep8.dp_busbw;
  // ZeRO 1: (r - 1) / r of the bf16 (2 B) gradients reduce-scattered and of the 2 B weights gathered, each
  // collective paying its latency.
  auto reduce = [&](double p, double r) { return p * 2 * (r - 1) / r / bw + latency * 2 * std::log2(r); };
  EXPECT_NEAR(ep8.t_dp, 2 * (reduce(split.dense, 64) + reduce(split.expert, 8)), 1e-9 * ep8.t_dp);
  EXPECT_LT(ep8.t_dp, none.t_dp);
  // ep 16 with TP 1 spans two 8-GPU nodes: of a GPU's 15 peers 7 share its NVLink domain and 8 sit across
  // the fabric; both parts run at once, the fabric's (far slower) sets the time.
  auto w16 = w;
  w16.model.experts = 16;
  l.e = 16;
  auto across = training_step(w16.model, w16, node, cal, l);
  EXPECT_FALSE(across.ep_in_domain);
  EXPECT_DOUBLE_EQ(across.ep_local, 8);
  EXPECT_DOUBLE_EQ(across.ep_busbw, node.nic_bytes_per_s * 0.8 / 8);
  double nvlink_part = tokens * 2 * 4096 * 7.0 / 16 / (node.gpu->link_bandwidth * 0.8);
  double fabric_part = tokens * 2 * 4096 * 8.0 / 16 / across.ep_busbw;
  ASSERT_GT(fabric_part, nvlink_part);
  double layer_mbs16 = 32 * across.micro_batches;
  EXPECT_NEAR(across.t_ep, layer_mbs16 * (4 * 2.0 * fabric_part + 4 * latency), 1e-9 * across.t_ep);
  // Were every peer across the fabric (15 of 16), the time would be nearly twice as long.
  EXPECT_LT(across.t_ep, layer_mbs16 * 4 * 2.0 * tokens * 2 * 4096 * 15.0 / 16 / across.ep_busbw);
  // With TP 2 the group strides by 2: 4 of the 16 ep ranks share an 8-GPU domain.
  Layout tp2{2, 1, 32, 1, Recompute::none};
  tp2.e = 16;
  EXPECT_DOUBLE_EQ(training_step(w16.model, w16, node, cal, tp2).ep_local, 4);
  // Context parallelism folds into the expert data ranks (Megatron-Core's expert grid): ep 8 at CP 2 still
  // strides by t = 1 and stays in the domain.
  Layout cp2{1, 1, 32, 1, Recompute::none};
  cp2.c = 2;
  cp2.e = 8;
  EXPECT_TRUE(training_step(w.model, w, node, cal, cp2).ep_in_domain);
  // ep 12 does not divide into 8-GPU domains: the group laid from a domain's first GPU leaves its last 4
  // ranks in the next domain, 4 local peers for the worst-placed GPU, 8 across the fabric.
  auto w12 = w;
  w12.model.experts = 24;
  Layout ep12{1, 1, 24, 1, Recompute::none};
  ep12.e = 12;
  EXPECT_DOUBLE_EQ(training_step(w12.model, w12, node, cal, ep12).ep_local, 4);
  // The sheet's step time carries the term.
  EXPECT_NE(step_time<Formula>(ep8).symbolic().find("t_ep"), std::string::npos);
}

// MoE parallel folding (Megatron-Core's expert_tensor_parallel_size below tp): at expert TP 1 each expert is
// whole on its GPU, the ep ranks come from t c d (here 16 at TP 2 x DP 8, more than d), the ep group strides
// by 1, and the MoE layers' FFN tensor-parallel collectives vanish: with every layer a MoE layer, half the TP
// traffic (attention's stays).
TEST(Models, MoeParallelFoldingSplitsExpertsOnTheirOwnGrid) {
  auto w = moe8x7b();
  w.model.experts = 16;
  auto cal = flat_calibration(0.8);
  auto node = a100_node();
  Layout tp2{2, 1, 8, 1, Recompute::none};
  tp2.e = 8;
  auto plain = training_step(w.model, w, node, cal, tp2);
  Layout folded = tp2;
  folded.et = 1;
  auto fold = training_step(w.model, w, node, cal, folded);
  EXPECT_DOUBLE_EQ(params_per_gpu(w.model, folded).expert, 2 * params_per_gpu(w.model, tp2).expert);
  EXPECT_DOUBLE_EQ(expert_data_ranks(tp2), 1);     // c d / e = 8 / 8
  EXPECT_DOUBLE_EQ(expert_data_ranks(folded), 2);  // t c d / (et e) = 16 / 8
  EXPECT_NEAR(fold.t_tp, plain.t_tp / 2, 1e-12 * plain.t_tp);
  // ep 8 strided by t 2 spans 16 GPUs, two 8-GPU domains; strided by expert TP 1 it stays in one.
  EXPECT_FALSE(plain.ep_in_domain);
  EXPECT_TRUE(fold.ep_in_domain);
  // ep 16 over TP 2 x DP 8: 16 consecutive ranks, 8 per domain.
  Layout wide = folded;
  wide.e = 16;
  auto w16 = training_step(w.model, w, node, cal, wide);
  EXPECT_FALSE(w16.ep_in_domain);
  EXPECT_DOUBLE_EQ(w16.ep_local, 8);
  EXPECT_DOUBLE_EQ(expert_data_ranks(wide), 1);
  // Each GPU brings its own half of the TP group's rows and runs whole experts: twice the N of the split
  // experts' up GEMM, half the tokens from each of the ep ranks.
  auto find = [](const std::vector<NamedGemm>& gs, const char* name) {
    for (const auto& g : gs)
      if (g.name == name && g.pass == GemmPass::forward) return g;
    return NamedGemm{};
  };
  // Expert TP between 1 and t: the FFN half's volume at (et - 1)/(t - 1), its calls kept.
  Layout tp4{4, 1, 4, 1, Recompute::none};
  tp4.e = 4;
  Layout half = tp4;
  half.et = 2;
  auto at4 = training_step(w.model, w, node, cal, tp4);
  auto at2 = training_step(w.model, w, node, cal, half);
  double layer_mbs = 32 * at4.micro_batches, latency = assumption::kCollectiveLatency.value;
  ASSERT_DOUBLE_EQ(at2.tp_calls, at4.tp_calls);
  EXPECT_NEAR(at2.t_tp - layer_mbs * at2.tp_calls * latency,
              (0.5 + 0.5 / 3) * (at4.t_tp - layer_mbs * at4.tp_calls * latency), 1e-9 * at4.t_tp);
  // Shared experts stay on the tensor-parallel grid with their collectives: folding keeps the TP traffic.
  auto shared = w;
  shared.model.shared_experts = 1;
  EXPECT_DOUBLE_EQ(training_step(shared.model, shared, node, cal, folded).t_tp,
                   training_step(shared.model, shared, node, cal, tp2).t_tp);
  // TP 8 on one node with dp 1: the dense part has no data ranks, the folded experts (ep 2 at expert TP 1)
  // four, which still reduce their gradients, over NVLink.
  Layout one{8, 1, 1, 1, Recompute::none};
  one.e = 2;
  one.et = 1;
  ASSERT_DOUBLE_EQ(expert_data_ranks(one), 4);
  auto lone = training_step(w.model, w, node, cal, one);
  EXPECT_GT(lone.t_dp, 0);
  EXPECT_DOUBLE_EQ(lone.dp_busbw, node.gpu->link_bandwidth * 0.8);
  auto split = find(layer_gemms(w.model, 4096, 2, 8, false), "experts up");
  auto whole = find(layer_gemms(w.model, 4096, 2, 8, false, 1), "experts up");
  EXPECT_DOUBLE_EQ(std::get<1>(whole.shape), 2 * std::get<1>(split.shape));
  EXPECT_NEAR(std::get<0>(whole.shape) * whole.group, std::get<0>(split.shape) * split.group / 2,
              1e-9 * std::get<0>(split.shape) * split.group);
}

// Mixtral 8x7B with half its layers made dense (a dense FFN of 14,336 in place of the router and experts):
// the all-to-all, the routed copies' permutation and the expert GEMMs run in the 16 MoE layers only, the
// dense FFN's GEMMs in the other 16, and LoRA adapts each expert in the MoE layers and the dense FFN in the
// dense ones.
TEST(Models, DenseLayersOfAMoeModelRouteNothing) {
  auto w = moe8x7b();
  auto half = w;
  half.model.dense_layers = 16;
  half.model.dense_ffn_hidden = 14336;
  auto cal = flat_calibration(0.8);
  Layout l{1, 1, 64, 1, Recompute::none};
  l.e = 8;
  auto all = training_step(w.model, w, a100_node(), cal, l);
  auto some = training_step(half.model, half, a100_node(), cal, l);
  ASSERT_GT(all.t_ep, 0);
  EXPECT_NEAR(some.t_ep, all.t_ep / 2, 1e-12 * all.t_ep);
  auto gemms = layer_gemms(half.model, 64, 1, 1, false);
  auto count = [&](const char* name) {
    for (const auto& g : gemms)
      if (g.name == name) return g.count;
    return 0.0;
  };
  EXPECT_EQ(count("QKV"), 32);
  EXPECT_EQ(count("experts up"), 16);
  EXPECT_EQ(count("router"), 16);
  EXPECT_EQ(count("dense FFN up"), 16);
  EXPECT_EQ(count("dense FFN down"), 16);
  EXPECT_EQ(count("FFN up"), 0);
  double h = 4096, f = 14336;
  FineTune up{8, {"up"}};
  auto adapters = lora_params(half.model, up);
  EXPECT_DOUBLE_EQ(adapters.total, 8 * (16 * 8 * (h + f) + 16 * (h + f)));
  EXPECT_DOUBLE_EQ(adapters.active, 8 * (16 * 2 * (h + f) + 16 * (h + f)));
  LlmInference served = mixtral_served(64);
  NodeFacts h100{&shipped_catalog().gpu("H100-SXM"), 8, 8, 8 * 400e9 / 8};
  auto moe = serving_point(served, h100, cal, 0.7, 0.6, 0.25, nullptr);
  served.model = half.model;
  auto mixed = serving_point(served, h100, cal, 0.7, 0.6, 0.25, nullptr);
  ASSERT_TRUE(moe && mixed);
  EXPECT_DOUBLE_EQ(mixed->decode.moe_bytes, moe->decode.moe_bytes / 2);
  // A checkpoint keeping its first and last layers at 16 bits: the first is dense, the last a MoE layer.
  served.unquantized = {"first_last_layers"};
  EXPECT_DOUBLE_EQ(unquantized_params(served), half.model.embedding_params() + half.model.dense_ffn_params() +
                                                   half.model.ffn_params() * half.model.experts);
  // vLLM's profile pass peaks in the larger kind of layer: a dense FFN 8x as wide outgrows the MoE layer.
  TransformerModel wide = half.model;
  wide.dense_ffn_hidden = 8 * 14336;
  EXPECT_DOUBLE_EQ(profile_activation_peak(wide, 2048, 64, 2),
                   2048 * (2 * h + 3 * 8 * f / 2) * 2 + 64 * 32000.0 * 4);
  EXPECT_DOUBLE_EQ(profile_activation_peak(half.model, 2048, 64, 2),
                   profile_activation_peak(w.model, 2048, 64, 2));
}

// NCCL's measured collectives: every row whole (a short row of the generated table would be zero-filled),
// an operation the exchange reads, rising with the message from 2^20 elements on (bandwidth-bound, where no
// measurement falls), on a GPU of the shipped catalog.
TEST(Serving, PublishedNcclRowsAreWhole) {
  const auto& c = shipped_catalog();
  for (const auto& r : assumption::kPublishedNcclCollectives) {
    EXPECT_TRUE(r.op == "all_gather" || r.op == "reduce_scatter") << r.op;
    for (double s : r.seconds) EXPECT_GT(s, 0) << r.gpu << " " << r.op << " " << r.gpus;
    for (size_t i = 20 - assumption::kPublishedNcclFirstLog2; i + 1 < r.seconds.size(); ++i)
      EXPECT_LT(r.seconds[i], r.seconds[i + 1]) << r.gpu << " " << r.op << " " << r.gpus;
    EXPECT_NE(find_gpu(c.gpus, r.gpu), nullptr) << r.gpu;
  }
}

// Attention data parallelism: each of the 8 ranks holds every non-expert weight and 32 of the 256 routed
// experts, keeps its own sequences' latent KV (not a copy of every sequence's, as TP 8 does), admits
// max_num_seqs of its own, runs its GEMMs whole at its own rows and its prompts on its own, and exchanges the
// tokens with an all-gather and a reduce-scatter per MoE layer in place of TP's two all-reduces per layer.
TEST(Serving, AttentionDataParallelismSplitsSequencesAndExperts) {
  auto [w, adp] = serve_file("trtllm-dsr1-b200-fp4-adp-ep8-bf16kv.yaml", "B200");
  ASSERT_TRUE(adp);
  const TransformerModel& m = w.model;
  EXPECT_TRUE(w.attention_dp);
  double routed = m.expert_params() * bytes_per_element(w.precision);
  EXPECT_DOUBLE_EQ(adp->weights_per_gpu, serving_weight_bytes(w) - routed + routed / 8);
  EXPECT_EQ(adp->kv_shards, 8);
  EXPECT_DOUBLE_EQ(adp->kv_budget, 8 * kv_cache_per_gpu<double>(adp->kv));
  EXPECT_DOUBLE_EQ(adp->batch, 8 * 384.0);  // max_num_seqs per rank, the KV cache holding more
  EXPECT_GT(adp->max_batch, adp->batch);
  EXPECT_TRUE(adp->decode.ep);
  EXPECT_TRUE(adp->prefill.ep);
  // A prompt runs on its own rank: its first token takes 8 times its share of the instance's time.
  EXPECT_NEAR(adp->ttft_s, 8 * adp->prefill_s + adp->step_s, 1e-12);
  // Each rank pads its 384 sequences to its CUDA graph of 384: 8 x 384 rows.
  EXPECT_DOUBLE_EQ(adp->decode.rows, 8 * 384.0);
  NodeFacts b200{&shipped_catalog().gpu("B200"), 8, 8, 8 * 400e9 / 8};
  const Calibration cal = flat_calibration(0.8);
  EXPECT_DOUBLE_EQ(adp->decode.tp_s,
                   serving_ep_time(w, *b200.gpu, cal, 8, adp->decode.rows, adp->decode.rows));
  // The exchange on a GPU whose NCCL collectives are measured (NCCL 2.27.5 on 8 B200, nccl-tests' messages
  // in half-precision elements): per MoE layer an all-gather of the tokens and a reduce-scatter of the bf16
  // outputs. A 2,048-token call of bf16 tokens of 4,096 moves 2^23 elements each way: 51.34 us + 52.33 us.
  auto qwen = w;
  qwen.model.hidden = 4096;
  qwen.precision = "bf16";
  std::string basis;
  EXPECT_NEAR(serving_ep_time(qwen, *b200.gpu, cal, 8, 2048, 2048, &basis),
              m.moe_layers() * (51.34e-6 + 52.33e-6), 1e-12);
  EXPECT_NE(basis.find("NCCL 2.27.5's all-gather (51.3 us of 8.39e+06 half-precision elements)"),
            std::string::npos)
      << basis;
  // NVFP4 tokens are gathered already quantized (4.5 bits): 2^23 x 0.5625 / 2 = 2.36e6 half-precision
  // elements, between the all-gather's 2^21 (30.99 us) and 2^22 (47.32 us).
  qwen.precision = "nvfp4";
  double fp4 = serving_ep_time(qwen, *b200.gpu, cal, 8, 2048, 2048, &basis);
  EXPECT_GT(fp4, m.moe_layers() * (30.99e-6 + 52.33e-6));
  EXPECT_LT(fp4, m.moe_layers() * (47.32e-6 + 52.33e-6));
  EXPECT_NE(basis.find("of 2.36e+06 half-precision elements"), std::string::npos) << basis;
  // Half the tokens of a call pay half its time.
  EXPECT_NEAR(serving_ep_time(qwen, *b200.gpu, cal, 8, 1024, 2048),
              serving_ep_time(qwen, *b200.gpu, cal, 8, 2048, 2048) / 2, 1e-15);
  // Where NCCL is not measured (the L40S): 7/8 of the bytes over each GPU's links plus the custom kernel's
  // latency per collective.
  const GpuSpec& l40s = shipped_catalog().gpu("L40S");
  double bytes = 3072 * m.hidden * (0.5625 + 2) * 7 / 8;
  EXPECT_NEAR(serving_ep_time(w, l40s, cal, 8, 3072, 3072),
              m.moe_layers() * (2 * serving_allreduce_latency(l40s) + bytes / (l40s.link_bandwidth * 0.8)),
              1e-12);
  // The experts take the measured op at every rank's rows, on one rank of 8.
  ASSERT_NE(adp->moe_op, nullptr);
  EXPECT_EQ(adp->moe_op->ep, 8);
  EXPECT_NEAR(adp->decode.moe_s, m.moe_layers() * published_moe_seconds(*adp->moe_op, adp->decode.rows),
              1e-12);
  // Tensor parallel instead: every GPU holds each sequence's latent, so far fewer fit, and the step pays
  // the all-reduces.
  w.attention_dp = false;
  auto tp = serving_point(w, b200, cal, 0.7, 0.6, 0.25, nullptr);
  ASSERT_TRUE(tp);
  EXPECT_EQ(tp->kv_shards, 1);
  EXPECT_DOUBLE_EQ(tp->weights_per_gpu, serving_weight_bytes(w) / 8);
  EXPECT_LT(tp->max_batch * 4, adp->max_batch);
  EXPECT_EQ(tp->moe_op, nullptr);
  EXPECT_FALSE(tp->decode.ep);
  EXPECT_GT(adp->tokens_per_s_node, tp->tokens_per_s_node);
}

// TensorRT-LLM's measured MoE op on one GPU runs the MoE layers only: Qwen3-30B-A3B with 8 of its 48 layers
// made dense takes 40 layers' op time and keeps the dense FFNs' FLOPs in its GEMMs; the sheet says 40.
TEST(Serving, MeasuredMoeOpRunsTheMoeLayersOnly) {
  auto [w, sp] = serve_file("trtllm-perf-qwen3-30b-b200-tp1-1000-1000.yaml", "B200");
  ASSERT_TRUE(sp && sp->moe_op);
  w.model.dense_layers = 8;
  w.model.dense_ffn_hidden = 6144;
  NodeFacts b200{&shipped_catalog().gpu("B200"), 8, 8, 8 * 400e9 / 8};
  auto mixed = serving_point(w, b200, flat_calibration(0.8), 0.7, 0.6, 0.25, nullptr);
  ASSERT_TRUE(mixed && mixed->moe_op);
  const TransformerModel& m = w.model;
  EXPECT_NEAR(mixed->decode.moe_s, 40 * published_moe_seconds(*mixed->moe_op, mixed->decode.rows), 1e-12);
  EXPECT_NEAR(mixed->decode.flops_per_token, 2 * m.multiplied_params() - 2.0 * 40 * m.top_k * m.ffn_params(),
              1);
  mlbench::test::TempDir dir("mlbench-moe-dense");
  auto path = dir / "dense.yaml";
  std::string text = mlbench::test::slurp(data_dir() / "trtllm-perf-qwen3-30b-b200-tp1-1000-1000.yaml");
  auto at = text.find("top_k: 8}");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 9, "top_k: 8, dense_layers: 8, dense_ffn_hidden: 6144}");
  std::ofstream(path) << text;
  Sheet sheet = plan_file(path);
  bool said = false;
  for (const auto& l : sheet.lines)
    if (l.item == "Decode step (TPOT)") said = l.spec.find("the 40 MoE layers at") != std::string::npos;
  EXPECT_TRUE(said);
}

// Standard attention multiplies every pair and masks afterwards: local attention lowers the model FLOPs it
// is credited with, not its time.
TEST(Models, StandardAttentionComputesThePairsLocalAttentionSkips) {
  auto w = llama7b();
  w.attention = "standard";
  auto local = w;
  local.model.local_window = 1024;
  Calibration cal = flat_calibration(0.8);
  Layout l{1, 1, 512, 1, Recompute::none};
  auto whole = training_step(w.model, w, a100_node(), cal, l);
  auto windowed = training_step(local.model, local, a100_node(), cal, l);
  EXPECT_NEAR(windowed.t_attention, whole.t_attention, 1e-12 * whole.t_attention);
  EXPECT_LT(training_flops_per_token(local.model, w.seq_len).attention,
            training_flops_per_token(w.model, w.seq_len).attention);
  local.attention = w.attention = "flash";
  EXPECT_LT(training_step(local.model, local, a100_node(), cal, l).t_attention,
            training_step(w.model, w, a100_node(), cal, l).t_attention);
}

// Node-limited routing (DeepSeek-V3's n_group / topk_group): a token crosses the fabric to at most the
// nodes of its topk_group expert groups, once each, instead of to each of its top_k experts; an FP8 dispatch
// halves the forward dispatch's bytes (combine and the backward's gradients stay 16-bit).
TEST(Models, NodeLimitedRoutingAndFp8DispatchShrinkTheFabricAllToAll) {
  auto w = moe8x7b();
  w.model.experts = 64;
  w.model.top_k = 8;
  auto cal = flat_calibration(0.8);
  auto node = a100_node();
  Layout l{1, 1, 64, 1, Recompute::none};
  l.e = 64;  // 8 nodes
  auto latency_free = [&](const TrainingStep& st) {
    return st.t_ep - st.micro_batches * 32 * 4 * assumption::kCollectiveLatency.value;
  };
  auto plain = training_step(w.model, w, node, cal, l);
  EXPECT_FALSE(plain.ep_in_domain);
  auto limited = w;
  limited.model.expert_groups = 8;
  limited.model.group_top_k = 4;
  auto four = training_step(limited.model, limited, node, cal, l);
  EXPECT_NEAR(latency_free(four), latency_free(plain) * 4 / 8, 1e-9 * plain.t_ep);
  // Within one NVLink domain the copies go to every expert's GPU: no change.
  Layout in{1, 1, 64, 1, Recompute::none};
  in.e = 8;
  EXPECT_DOUBLE_EQ(training_step(limited.model, limited, node, cal, in).t_ep,
                   training_step(w.model, w, node, cal, in).t_ep);
  auto fp8 = limited;
  fp8.ep_dispatch = "fp8";
  auto half = training_step(fp8.model, fp8, node, cal, l);
  EXPECT_NEAR(latency_free(half), latency_free(four) * (1 + 2 + 2 + 2) / 8.0, 1e-9 * plain.t_ep);
}

// Every stage passes every micro-batch, so the busiest sets the pace; the last runs the output layer too.
TEST(Models, TheBusiestPipelineStageSetsThePace) {
  // Megatron-LM's even split where p divides the layers: 10 per stage, the output layer's 3 s on the last.
  auto even = stage_load(40, 4, 1.0, 3.0);
  EXPECT_EQ(even.last_layers, 10);
  EXPECT_DOUBLE_EQ(even.imbalance, 13.0 / (43.0 / 4) - 1);
  // An uneven split the run must name: Llama 3 405B's 126 layers on 16 stages, one fewer on the last (Llama 3
  // paper, section 3.3.2) keeps the busiest at 8 layers.
  auto meta = stage_load(126, 16, 1.0, 0.66);
  EXPECT_EQ(meta.last_layers, 7);
  EXPECT_EQ(meta.other_layers, 8);
  EXPECT_DOUBLE_EQ(meta.imbalance, 8.0 / (126.66 / 16) - 1);
  EXPECT_DOUBLE_EQ(stage_load(32, 1, 1.0, 3.0).imbalance, 0);
  // DualPipe: the first and the last stage each run half of the output layer.
  auto dual = stage_load(40, 4, 1.0, 3.0, 2);
  EXPECT_EQ(dual.ends, 2);
  EXPECT_DOUBLE_EQ(dual.imbalance, 11.5 / (43.0 / 4) - 1);
  // On 2 stages each direction's end is a stage of its own: balanced, whole layers rounded up.
  EXPECT_DOUBLE_EQ(stage_load(40, 2, 1.0, 3.0, 2).imbalance, 0);
  EXPECT_DOUBLE_EQ(stage_load(41, 2, 1.0, 3.0, 2).imbalance, (21 + 1.5) / (44.0 / 2) - 1);
  // In a step, TP 2 x PP 4: each of the last stage's 2 GPUs runs its vocabulary half of the logits GEMMs and
  // of the cross-entropy (60 B per entry) for every token of its replica.
  auto w = llama7b();
  auto cal = flat_calibration(0.8);
  auto node = a100_node();
  Layout l{2, 4, 64, 1, Recompute::none};
  auto st = training_step(w.model, w, node, cal, l);
  double replica_tokens = w.global_batch_tokens / l.d, V = w.model.vocab, h = w.model.hidden;
  double rate = *node.gpu->peak_for("bf16") * st.gemm.eta * assumption::kTrainingGemmDerate.value;
  // The logits GEMMs take their share of the GEMM time (their FLOPs at their own shapes' efficiency).
  double logits_s = replica_tokens / (l.t * l.p) * training_flops_per_token(w.model, w.seq_len).gemm / rate *
                    st.gemm.time_share("logits");
  EXPECT_NEAR(st.stages.out,
              logits_s * l.p + replica_tokens * V / 2 * 60 / (node.gpu->memory_bandwidth * 0.8),
              1e-9 * st.stages.out);
  // At 16 bits, as here, that share is within a few per cent of their share of the FLOPs.
  EXPECT_NEAR(logits_s * l.p, replica_tokens * 6 * V * h / 2 / rate, 0.05 * logits_s * l.p);
  EXPECT_GT(st.stages.imbalance, 0);
  auto big = w;
  big.model.vocab *= 4;
  EXPECT_GT(training_step(big.model, big, node, cal, l).stages.imbalance, st.stages.imbalance);
}

// Megatron-LM's overlap_p2p_comm runs the interleaved schedule's sends under the chunks' compute; the
// non-interleaved schedule, and a release before the option, wait on each.
TEST(Models, TheInterleavedScheduleHidesItsPipelineSends) {
  auto w = llama7b();
  auto cal = flat_calibration(0.8);
  auto node = a100_node();
  auto interleaved = training_step(w.model, w, node, cal, {1, 4, 128, 1, Recompute::none, 8});
  double compute = interleaved.t_gemm + interleaved.t_attention + interleaved.t_nongemm;
  EXPECT_NEAR(interleaved.t_pp_exposed,
              interleaved.t_pp - assumption::kOverlapHidden.value * std::min(interleaved.t_pp, compute),
              1e-12);
  EXPECT_LT(interleaved.t_pp_exposed, interleaved.t_pp);
  auto plain = training_step(w.model, w, node, cal, {1, 4, 128, 1, Recompute::none, 1});
  EXPECT_DOUBLE_EQ(plain.t_pp_exposed, plain.t_pp);
  auto old = w;
  old.overlap_p2p_comm = false;
  auto waited = training_step(old.model, old, node, cal, {1, 4, 128, 1, Recompute::none, 8});
  EXPECT_DOUBLE_EQ(waited.t_pp_exposed, waited.t_pp);
  EXPECT_GT(waited.step_s, interleaved.step_s);
}

// The elementwise passes a fused kernel runs (the workload's `fused`) cost its bytes: RMSNorm 36 -> 4 B and
// rotary 20 -> 4 B per element (two of each per layer over h), SwiGLU 10 -> 6 B per f; the cross-entropy
// 60, 28 (Megatron-LM's jit-fused) or 10 (Transformer Engine's) B per vocabulary entry. Forward, and twice
// that backward.
TEST(Models, FusedElementwiseKernelsCostTheirOwnBytes) {
  auto w = llama7b();
  auto cal = flat_calibration(0.8);
  auto node = a100_node();
  Layout l{1, 1, 128, 1, Recompute::none};
  double hbm = node.gpu->memory_bandwidth * cal.hbm.value;
  auto plain = training_step(w.model, w, node, cal, l);
  double tokens_gpu = w.global_batch_tokens / l.gpus();
  double h = w.model.hidden, f = w.model.ffn_hidden, L = w.model.layers;
  auto fused = w;
  fused.fused.kernels = {FusedKernel::norm, FusedKernel::rotary, FusedKernel::activation};
  double saved = 3 * tokens_gpu * L * ((36 - 4) * 2 * h + (20 - 4) * 2 * h + (10 - 6) * f);
  EXPECT_NEAR(plain.t_nongemm - training_step(fused.model, fused, node, cal, l).t_nongemm, saved / hbm,
              1e-9 * plain.t_nongemm);
  auto jit = w;
  jit.fused.kernels = {FusedKernel::cross_entropy};
  EXPECT_NEAR(plain.t_nongemm - training_step(jit.model, jit, node, cal, l).t_nongemm,
              tokens_gpu * w.model.vocab * (60 - 28) / hbm, 1e-9 * plain.t_nongemm);
  auto te = w;
  te.fused.kernels = {FusedKernel::te_cross_entropy};
  EXPECT_NEAR(plain.t_nongemm - training_step(te.model, te, node, cal, l).t_nongemm,
              tokens_gpu * w.model.vocab * (60 - 10) / hbm, 1e-9 * plain.t_nongemm);
}

// Transformer Engine's FP8 operands per token and layer (Llama 2 7B: h 4,096, O input 4,096, QKV out 3h, f
// 11,008, gated up 2f; e = 1 B): every 16-bit GEMM input (O's, FC2's after Megatron's own activation) is
// cast and transposed, 2 + 2e, and so is every output gradient; the norm-fed inputs (QKV, FC1) are too
// without Transformer Engine's fused norm; with it, delayed scaling writes them at e B and transposes them in
// the backward (2e), current scaling and MXFP8 write 16 bits and quantize them in a pass (2 + 2e), and
// current scaling reads every other cast tensor once more for its amax (+2). TP 2 with sequence parallelism
// splits the norms' outputs and the TP-region tensors by t; the gathered ones stay whole.
TEST(Models, Fp8TrainingPaysItsOperandCasts) {
  const auto& c = shipped_catalog();
  NodeFacts h100{&c.gpu("H100-SXM"), 8, 8, 8 * 400e9 / 8};
  auto cal = flat_calibration(0.8);
  double h = 4096, o = 4096, qkv = 3 * h, f = 11008, up = 2 * f;
  auto extra = [&](std::vector<FusedKernel> fused, const char* recipe, int t) {
    auto bf16 = llama7b();
    bf16.fused.kernels = fused;
    auto fp8 = bf16;
    fp8.precision = "fp8";
    fp8.fp8_recipe = recipe;
    Layout l{t, 1, 128 / t, 1, Recompute::none};
    double per_token_layer =
        bf16.global_batch_tokens / l.gpus() * t * 32 / (h100.gpu->memory_bandwidth * 0.8);
    return (training_step(fp8.model, fp8, h100, cal, l).t_nongemm -
            training_step(bf16.model, bf16, h100, cal, l).t_nongemm) /
           per_token_layer;
  };
  EXPECT_NEAR(extra({}, "delayed", 1), 4 * (2 * h + o + f) + 4 * (qkv + up + 2 * h), 1e-6);
  EXPECT_NEAR(extra({FusedKernel::norm}, "delayed", 1),
              4 * (o + f) - 2 * h + 2 * 2 * h + 4 * (qkv + up + 2 * h), 1e-6);
  EXPECT_NEAR(extra({FusedKernel::norm}, "current", 1), 6 * (o + f) + 4 * 2 * h + 6 * (qkv + up + 2 * h),
              1e-6);
  EXPECT_NEAR(extra({FusedKernel::norm}, "mxfp8", 1), 4 * (o + f) + 4 * 2 * h + 4 * (qkv + up + 2 * h), 1e-6);
  EXPECT_NEAR(extra({FusedKernel::norm}, "delayed", 2),
              4 * (o + f) / 2 - 2 * h / 2 + 2 * 2 * h + 4 * ((qkv + up) / 2 + 2 * h), 1e-6);
  // Full recomputation casts the forward's operands again with the recomputed forward.
  auto bf16 = llama7b();
  auto fp8 = bf16;
  fp8.precision = "fp8";
  Layout none{1, 1, 128, 1, Recompute::none}, full{1, 1, 128, 1, Recompute::full};
  double recast = (training_step(fp8.model, fp8, h100, cal, full).t_nongemm -
                   training_step(bf16.model, bf16, h100, cal, full).t_nongemm) -
                  (training_step(fp8.model, fp8, h100, cal, none).t_nongemm -
                   training_step(bf16.model, bf16, h100, cal, none).t_nongemm);
  double per_token_layer = bf16.global_batch_tokens / 128 * 32 / (h100.gpu->memory_bandwidth * 0.8);
  EXPECT_NEAR(recast / per_token_layer, 4 * (2 * h + o + f), 1e-6);
}

// Ring attention (Transformer Engine's AttnFuncWithCP) merges each of its c steps' partial outputs and
// accumulates dq and dK/dV per step; all-gather context parallelism computes in one pass. Llama 2 7B at CP 2,
// TP 1 (o = K = V width = 4,096): forward 8 kv + 2 o + 2 o + 12 o, backward 8 kv + 2 o + 12 o + 4 kv + 24 kv.
TEST(Models, RingAttentionMergesEachStepsPartialOutput) {
  auto ring = llama7b();
  auto gathered = ring;
  gathered.cp_comm = "all_gather";
  auto cal = flat_calibration(0.8);
  auto node = a100_node();
  Layout l{1, 1, 64, 1, Recompute::none};
  l.c = 2;
  double o = 4096, kv = 4096;
  double bytes = (8 * kv + 16 * o) + (8 * kv + 14 * o + 28 * kv);
  double tokens_gpu = ring.global_batch_tokens / l.gpus();
  double extra = training_step(ring.model, ring, node, cal, l).t_nongemm -
                 training_step(gathered.model, gathered, node, cal, l).t_nongemm;
  EXPECT_NEAR(extra, tokens_gpu * 32 * bytes / (node.gpu->memory_bandwidth * 0.8), 1e-9 * extra);
  Layout no_cp{1, 1, 128, 1, Recompute::none};
  EXPECT_DOUBLE_EQ(training_step(ring.model, ring, node, cal, no_cp).t_nongemm,
                   training_step(gathered.model, gathered, node, cal, no_cp).t_nongemm);
}

// Transformer Engine runs an FP8 recipe's dot-product attention in bf16 unless FP8 attention is asked for
// (fp8_dpa / Megatron-LM's fp8_dot_product_attention); 16-bit runs multiply in their own precision.
TEST(Models, Fp8TrainingRunsItsAttentionInBf16UnlessAsked) {
  auto w = llama7b();
  EXPECT_EQ(training_attention_precision(w), "bf16");
  w.precision = "fp16";
  EXPECT_EQ(training_attention_precision(w), "fp16");
  w.precision = "fp8";
  EXPECT_EQ(training_attention_precision(w), "bf16");
  w.precision = "nvfp4";
  EXPECT_EQ(training_attention_precision(w), "bf16");
  w.fp8_attention = true;
  EXPECT_EQ(training_attention_precision(w), "fp8");
  w.precision = "fp8";
  const auto& c = shipped_catalog();
  auto cal = flat_calibration(0.8);
  Layout l{1, 1, 128, 1, Recompute::none};
  // No FP8 fused-attention training figure is published for the H100: FP8 attention at the bf16 rate.
  NodeFacts h100{&c.gpu("H100-SXM"), 8, 8, 8 * 400e9 / 8};
  auto in_fp8 = training_step(w.model, w, h100, cal, l);
  auto h100_rate = training_attention_rate(*h100.gpu, w, 1, false);
  EXPECT_EQ(h100_rate.rate.precision, "bf16");
  EXPECT_DOUBLE_EQ(h100_rate.fp8_ratio, 1);
  EXPECT_NE(h100_rate.basis.find("no FP8 fused-attention training figure published for the H100-SXM"),
            std::string::npos);
  w.fp8_attention = false;
  auto in_bf16 = training_step(w.model, w, h100, cal, l);
  EXPECT_DOUBLE_EQ(in_bf16.t_attention, in_fp8.t_attention);
}

// FP8 attention runs at the bf16 rate x the GPU's published BF16-over-FP8 fused-attention time ratio at the
// kernel's sequence length (cuDNN's SDPA, forward + backward), log-linear between the measured powers of two
// and held at the end points beyond them: FP8's doubled multiply rate does not carry to attention.
TEST(Models, Fp8AttentionRunsAtThePublishedRatioOverBf16) {
  auto w = llama7b();
  w.precision = "fp8";
  const auto& c = shipped_catalog();
  auto cal = flat_calibration(0.8);
  auto ratio_at = [&](const char* gpu, int seq_len, Layout l = {1, 1, 128, 1, Recompute::none}) {
    NodeFacts node{&c.gpu(gpu), 8, 8, 8 * 400e9 / 8};
    w.seq_len = seq_len;
    w.fp8_attention = true;
    auto fp8 = training_step(w.model, w, node, cal, l);
    w.fp8_attention = false;
    auto bf16 = training_step(w.model, w, node, cal, l);
    return bf16.t_attention / fp8.t_attention;
  };
  // cuDNN's published forward + backward times at 8,192 tokens: B200 (1.589 + 5.526) / (1.464 + 4.382) ms,
  // GB200 (1.389 + 4.539) / (1.161 + 4.352) ms; far from the 2x of the FP8 peak.
  EXPECT_NEAR(ratio_at("B200", 8192), 7.115 / 5.846, 1e-9);
  EXPECT_NEAR(ratio_at("GB200", 8192), 5.928 / 5.513, 1e-9);
  // Between 4,096 (B200: 2.132 / 1.861 ms) and 8,192 tokens: log-linear in the length, not linear.
  double f = std::log2(6000.0) - 12;
  double log_linear = std::exp(std::log(2.132) * (1 - f) + std::log(7.115) * f) /
                      std::exp(std::log(1.861) * (1 - f) + std::log(5.846) * f);
  EXPECT_NEAR(ratio_at("B200", 6000), log_linear, 1e-9);
  double linear_f = (6000.0 - 4096) / 4096;
  EXPECT_GT(std::abs(ratio_at("B200", 6000) -
                     (2.132 + (7.115 - 2.132) * linear_f) / (1.861 + (5.846 - 1.861) * linear_f)),
            1e-4);
  // Beyond the measured 512-131,072 tokens: the end points' (B200: 0.142 / 0.170 and 1643.964 / 1178.522 ms).
  EXPECT_NEAR(ratio_at("B200", 256), 0.142 / 0.170, 1e-9);
  EXPECT_NEAR(ratio_at("B200", 262144), 1643.964 / 1178.522, 1e-9);
  // Ring and all-gather context parallelism attend each rank's 1/cp of the sequence: CP 2 of 8,192 tokens
  // looks up 4,096; all-to-all context parallelism runs the whole sequence on a share of the heads.
  Layout split{1, 1, 64, 1, Recompute::none};
  split.c = 2;
  for (const char* comm : {"p2p", "all_gather"}) {
    w.cp_comm = comm;
    EXPECT_NEAR(ratio_at("B200", 8192, split), 2.132 / 1.861, 1e-9) << comm;
  }
  w.cp_comm = "a2a";
  EXPECT_NEAR(ratio_at("B200", 8192, split), 7.115 / 5.846, 1e-9);
  w.cp_comm = "p2p";
  // A full recompute redoes the forward alone, at the forward's ratio (B200 at 8,192: 1.589 / 1.464 ms).
  NodeFacts b200{&c.gpu("B200"), 8, 8, 8 * 400e9 / 8};
  w.seq_len = 8192;
  w.fp8_attention = true;
  Layout full{1, 1, 128, 1, Recompute::full};
  Layout none{1, 1, 128, 1, Recompute::none};
  auto with = training_step(w.model, w, b200, cal, full);
  auto without = training_step(w.model, w, b200, cal, none);
  EXPECT_DOUBLE_EQ(with.t_attention, without.t_attention);
  double gemm_redone = with.t_recompute - with.t_attention / 3 * (7.115 / 5.846) / (1.589 / 1.464);
  EXPECT_NEAR(gemm_redone, with.t_gemm * (1 - with.gemm.time_share("logits")) / 3, 1e-9 * with.t_recompute)
      << "the recomputed attention is not at the forward's ratio";
  auto basis = training_attention_rate(*b200.gpu, w, 1, false).basis;
  EXPECT_NE(basis.find("x 1.217"), std::string::npos) << basis;
  EXPECT_NE(basis.find("at 8192 tokens"), std::string::npos) << basis;
  EXPECT_NE(basis.find("cudnn-frontend"), std::string::npos) << basis;
  EXPECT_NE(basis.find("the forward alone x 1.085"), std::string::npos) << basis;
  // The text names the length looked up: a measured point, between two, or the nearest beyond the range.
  auto basis_at = [&](int seq_len, int cp = 1) {
    w.seq_len = seq_len;
    return training_attention_rate(*b200.gpu, w, cp, false).basis;
  };
  EXPECT_NE(basis_at(512).find("at 512 tokens,"), std::string::npos) << basis_at(512);
  EXPECT_NE(basis_at(131072).find("at 131072 tokens,"), std::string::npos) << basis_at(131072);
  EXPECT_NE(basis_at(6000).find("at 6000, between the measured 4096 and 8192 tokens"), std::string::npos)
      << basis_at(6000);
  EXPECT_NE(basis_at(256).find("at 512, the nearest measured length to the kernel's 256 tokens"),
            std::string::npos)
      << basis_at(256);
  EXPECT_NE(basis_at(262144).find("at 131072, the nearest measured length to the kernel's 262144 tokens"),
            std::string::npos)
      << basis_at(262144);
  EXPECT_NE(basis_at(8192, 2).find("at 4096 tokens (each rank's 1/cp of the sequence)"), std::string::npos)
      << basis_at(8192, 2);
}

// DualPipe (DeepSeek-V3 report, Table 2): bubble (p/2 - 1)(F&B + B - 3W) with F&B = F + B, B = 2F, W = F:
// 2 (p/2 - 1) forward times over the m micro-batches' 3 m; its paired chunks run one micro-batch's
// all-to-all under another's compute, hidden as other overlapped traffic.
TEST(Models, DualPipeHidesTheAllToAllAndShrinksTheBubble) {
  EXPECT_DOUBLE_EQ(dualpipe_bubble(16, 120), 2.0 * 7 / (3 * 120));
  auto w = moe8x7b();
  auto cal = flat_calibration(0.8);
  auto node = a100_node();
  Layout l{1, 4, 16, 1, Recompute::none};
  l.e = 16;
  auto plain = training_step(w.model, w, node, cal, l);
  EXPECT_EQ(plain.t_ep_exposed, plain.t_ep);
  auto dual = w;
  dual.schedule = "dualpipe";
  auto st = training_step(dual.model, dual, node, cal, l);
  EXPECT_DOUBLE_EQ(st.bubble, dualpipe_bubble(4, st.micro_batches));
  EXPECT_DOUBLE_EQ(st.t_ep, plain.t_ep);
  double compute = st.t_gemm + st.t_attention + st.t_nongemm;
  double overlapped = std::min(st.t_ep, compute);
  EXPECT_NEAR(st.t_ep_exposed, st.t_ep - assumption::kOverlapHidden.value * overlapped, 1e-12);
  EXPECT_LT(st.step_s, plain.step_s);
  // Without a pipeline there is nothing to pair: the all-to-all stays exposed.
  Layout flat{1, 1, 64, 1, Recompute::none};
  flat.e = 16;
  EXPECT_DOUBLE_EQ(training_step(dual.model, dual, node, cal, flat).step_s,
                   training_step(w.model, w, node, cal, flat).step_s);
  // Its memory (the report's Table 2): two copies of the parameters, PP + 1 micro-batches of activations.
  auto one = training_memory(w.model, w, l), two = training_memory(dual.model, dual, l);
  EXPECT_DOUBLE_EQ(two.weights, 2 * one.weights);
  double logits = 4096.0 * w.model.vocab * 4;
  EXPECT_NEAR((two.activations - logits) / (one.activations - logits), 5.0 / 4, 1e-12);
}

// Data-parallel traffic per parameter and (r - 1)/r: ZeRO 0 all-reduces the gradients in the precision the
// optimizer keeps them in (bf16 2 B with adam, fp32 4 B with adam-fp32-grads); the distributed optimizer
// (ZeRO 1) reduce-scatters them once per step and all-gathers the updated weights as the run holds them (2 B,
// 1 B under fp8_params, 2 B again for MXFP8, which Megatron-LM gathers in bf16); ZeRO 2, its gradients
// sharded, reduce-scatters in every micro-batch. Each collective pays its latency.
TEST(Models, DataParallelTrafficFollowsTheGradientAndWeightPrecision) {
  auto w = llama7b();
  auto cal = flat_calibration(0.8);
  auto node = a100_node();
  auto step = [&](int zero) {
    return training_step(w.model, w, node, cal, Layout{1, 1, 64, zero, Recompute::none});
  };
  const auto first = step(0);
  const double m = first.micro_batches;
  ASSERT_GT(m, 1);
  double latency = assumption::kCollectiveLatency.value * 2 * std::log2(64.0);
  double params = params_per_gpu(w.model, Layout{1, 1, 64, 0, Recompute::none}).total();
  auto sync = [&](double bytes) { return params * bytes * 63 / 64 / first.dp_busbw + latency; };
  auto near = [](double got, double want) { EXPECT_NEAR(got, want, 1e-9 * want); };
  w.optimizer = "adam";
  near(step(0).t_dp, sync(4));
  near(step(1).t_dp, sync(2) + sync(2));
  near(step(2).t_dp, m * sync(2) + sync(2));
  w.optimizer = "adam-fp32-grads";
  near(step(0).t_dp, sync(8));
  near(step(1).t_dp, sync(4) + sync(2));
  w.precision = "fp8";
  w.fp8_params = true;
  near(step(1).t_dp, sync(4) + sync(1));
  w.optimizer = "adam";
  near(step(1).t_dp, sync(2) + sync(1));
  near(step(0).t_dp, sync(4));
  w.fp8_recipe = "mxfp8";
  near(step(1).t_dp, sync(2) + sync(2));
  w.fp8_recipe = "delayed";
  w.finetune.rank = 16;
  EXPECT_EQ(gathered_weight_bytes(w), 2);
}

// The once-per-step sync runs under the compute where the gradients become final and the weights are first
// needed: 1/m of the step's backward and forward with one model chunk per rank; chunk by chunk under the
// interleaved schedule, (v - 1)/v x min(1, p/m) + 1/(m v).
TEST(Models, DataParallelSyncOverlapsChunkByChunk) {
  EXPECT_DOUBLE_EQ(dp_sync_reach(Layout{1, 4, 8, 1, Recompute::none}, 8), 1.0 / 8);
  Layout interleaved{1, 4, 8, 1, Recompute::none, 4};
  EXPECT_DOUBLE_EQ(dp_sync_reach(interleaved, 4), 3.0 / 4 + 1.0 / 16);
  EXPECT_DOUBLE_EQ(dp_sync_reach(interleaved, 16), 3.0 / 4 * 4 / 16 + 1.0 / 64);
  // On a slow fabric the sync outlasts the last micro-batch's backward; interleaved, it hides more of it.
  auto w = llama7b();
  auto cal = flat_calibration(0.8);
  auto node = a100_node();
  node.nic_bytes_per_s /= 16;
  w.global_batch_tokens = 4.0 * 8 * w.seq_len;  // m = 4 micro-batches per replica at dp 8
  auto one = training_step(w.model, w, node, cal, Layout{1, 4, 8, 1, Recompute::none});
  auto four = training_step(w.model, w, node, cal, interleaved);
  ASSERT_EQ(one.micro_batches, 4);
  EXPECT_DOUBLE_EQ(one.t_dp, four.t_dp);
  // The reduction and the gather, half the traffic each, run under 2/3 and 1/3 of the compute times the
  // reach; the chunk last to be ready hides its 1/v share under its own 1/(m v) only. What runs under
  // compute is hidden x kOverlapHidden, the rest exposed.
  auto exposed = [&](const TrainingStep& st, double reach, int v) {
    double compute = st.t_gemm + st.t_attention + st.t_recompute, half = st.t_dp / 2, total = 0;
    for (double share : {2.0 / 3, 1.0 / 3}) {
      double own = share * compute / (st.micro_batches * v);
      double overlapped = std::min({half, share * compute * reach, half - std::max(0.0, half / v - own)});
      total += half - assumption::kOverlapHidden.value * overlapped;
    }
    return total;
  };
  EXPECT_NEAR(one.t_dp_exposed, exposed(one, 1.0 / 4, 1), 1e-9 * one.t_dp);
  EXPECT_NEAR(four.t_dp_exposed, exposed(four, 3.0 / 4 + 1.0 / 16, 4), 1e-9 * four.t_dp);
  EXPECT_GT(one.t_dp_exposed, 0.5 * one.t_dp);
  EXPECT_LT(four.t_dp_exposed, one.t_dp_exposed);
  // ZeRO 2 reduce-scatters its sharded gradients in each of the m micro-batches' backward, under the whole
  // backward; the gather as ZeRO 1's.
  auto two = training_step(w.model, w, node, cal, Layout{1, 4, 8, 2, Recompute::none});
  double compute = two.t_gemm + two.t_attention + two.t_recompute, gather = one.t_dp / 2;
  EXPECT_NEAR(two.t_dp, 4 * gather + gather, 1e-9 * two.t_dp);
  auto hide = [](double part, double window) {
    return part - assumption::kOverlapHidden.value * std::min(part, window);
  };
  EXPECT_NEAR(two.t_dp_exposed, hide(4 * gather, 2.0 / 3 * compute) + hide(gather, 1.0 / 3 * compute / 4),
              1e-9 * two.t_dp);
}

// The shipped MoE workload plans end to end: the sheet names the experts, active vs total, and the layout.
TEST(Models, ShippedMoeWorkloadPlans) {
  auto sheet = plan_file(source_dir() / "configs" / "workloads" / "moe-8x7b-pretraining.yaml");
  bool moe_line = false;
  for (const auto& l : sheet.lines)
    if (l.item == "Mixture of experts") {
      moe_line = true;
      EXPECT_NEAR(l.quantity, 12.88e9, 0.05e9);
    }
  EXPECT_TRUE(moe_line);
  EXPECT_GT(sheet.figures.at("mfu").get<double>(), 0.2);
  EXPECT_GE(sheet.figures.at("layout").at("ep").get<int>(), 1);
}

// The elementwise passes follow the architecture: RMSNorm as six unfused kernels (36 B per element) and
// rotary on q and k (20 B) for Llama-style layers, one LayerNorm kernel (4 B) and no rotary for GPT-style
// ones (Megatron's fused LayerNorm); forward + backward = 3 passes over each GPU's tokens.
TEST(Models, NormAndRotaryPassesFollowTheArchitecture) {
  auto w = llama7b();
  auto cal = flat_calibration(0.8);
  auto node = a100_node();
  Layout l{1, 1, 512, 1, Recompute::none};
  auto llama = training_step(w.model, w, node, cal, l);
  w.model.rms_norm = false;
  w.model.rotary = false;
  auto gpt = training_step(w.model, w, node, cal, l);
  double tokens_gpu = 4194304.0 / 512, h = 4096;
  double bytes = 3 * tokens_gpu * 32 * (2 * h * (36 - 4) + 2 * h * 20);
  EXPECT_NEAR(llama.t_nongemm - gpt.t_nongemm, bytes / (node.gpu->memory_bandwidth * 0.8), 1e-9);
}

// TensorRT-LLM's cache: free_gpu_memory_fraction of what weights, activations and the runtime leave.
TEST(Models, TensorRtLlmKvCacheIsAFractionOfTheFreeMemory) {
  KvCapacity k{80.0 * (1ull << 30), 0.9, 13.5e9, 1.2e9, 0.3e9, 0.03e9, 1.6e9, 1e9, true};
  EXPECT_DOUBLE_EQ(kv_cache_per_gpu<double>(k),
                   (80.0 * (1ull << 30) - 13.5e9 - 1.2e9 - (0.3e9 + 0.03e9 + 1.6e9)) * 0.9);
  EXPECT_EQ(kv_cache_per_gpu<Formula>(k).symbolic(),
            "(hbm - weights - activation_peak - (cuda_context + workspace + nccl)) x utilisation");
}

// trtllm-bench's settings (bench/build/tuning.py): Llama 3.1 8B FP8 on one 80 GiB GPU at 1000/1000 holds
// 0.95 x (80 GiB - 8.03 GB) / (64 KiB x 2,000) = 564 requests -> max_batch_size 640 (a multiple of 128),
// max_num_tokens 564 x 2 = 1,128 -> 2,048 (the floor).
// A trtllm-bench workload of 1000/1000 tokens: the model's shape and parameter count, its precisions.
LlmInference bench_workload(int layers, int hidden, int heads, double params, const char* precision) {
  LlmInference w;
  w.model.layers = layers;
  w.model.hidden = hidden;
  w.model.heads = heads;
  w.model.kv_heads = 8;
  w.model.params = params;
  w.precision = precision;
  w.kv_precision = "fp8";
  w.input_tokens = w.output_tokens = 1000;
  return w;
}

TEST(Models, TrtllmBenchSettingsFollowItsTuningRule) {
  LlmInference w = bench_workload(32, 4096, 32, 8.03e9, "fp8");
  GpuSpec gpu;
  gpu.memory_bytes = 80.0 * (1ull << 30);
  auto s = trtllm_bench_settings(w, gpu, 1);
  double raw = 0.95 * (gpu.memory_bytes - 8.03e9) / (2.0 * 32 * 8 * 128 * 2000);
  ASSERT_GT(raw, 512);
  ASSERT_LT(raw, 640);
  EXPECT_EQ(s.max_batch_size, 640);
  EXPECT_EQ(s.max_num_tokens, 2048);
  // 1000/100: 1,026 requests -> 1,280 (a multiple of 256); 1,026 x 11 = 11,290 tokens -> 12,288 (of 1,024).
  w.output_tokens = 100;
  s = trtllm_bench_settings(w, gpu, 1);
  EXPECT_EQ(s.max_batch_size, 1280);
  EXPECT_EQ(s.max_num_tokens, 12288);
  // Its engine size is every parameter at the quantized width, whatever the checkpoint keeps at 16 bits.
  w.model.vocab = 128256;
  w.unquantized = {"attention"};
  ASSERT_GT(serving_weight_bytes(w), 8.03e9 + 1e9);
  EXPECT_EQ(trtllm_bench_settings(w, gpu, 1).max_batch_size, 1280);
}

// A step gathers its batch's rows of the input embedding: its GEMMs multiply 2 (N_act - V h) FLOPs per token
// and read the weights but that 16-bit table. Tied to the output head (Granite-4.0-micro), the one matrix
// is the head's weights, multiplied and read: 2 N_act, the whole weights; the sheet writes each.
TEST(Serving, TheInputEmbeddingIsAGather) {
  auto [tied, at_tied] = serve_file("vllm-granite4-micro-l40s.yaml", "L40S");
  ASSERT_TRUE(at_tied && tied.model.tied_embeddings);
  EXPECT_DOUBLE_EQ(at_tied->decode.flops_per_token, 2 * tied.model.active_params);
  EXPECT_DOUBLE_EQ(at_tied->decode.weights, at_tied->weights_per_gpu);
  auto [untied, at_untied] = serve_file("trtllm-perf-llama31-8b-h100-tp1-128-128.yaml", "H100-SXM");
  ASSERT_TRUE(at_untied && !untied.model.tied_embeddings);
  const TransformerModel& m = untied.model;
  EXPECT_DOUBLE_EQ(at_untied->decode.flops_per_token, 2 * (m.active_params - 1.0 * m.vocab * m.hidden));
  // A parameter count below its embedding matrices (a model given by params alone, the default vocabulary)
  // multiplies nothing but the prompt's one head, never negative FLOPs.
  LlmInference small = untied;
  small.model.params = small.model.active_params = 1.0 * m.vocab * m.hidden;
  NodeFacts h100{&shipped_catalog().gpu("H100-SXM"), 8, 8, 8 * 400e9 / 8};
  auto at_small = serving_point(small, h100, flat_calibration(0.8), 0.7, 0.6, 0.25, nullptr);
  ASSERT_TRUE(at_small);
  EXPECT_DOUBLE_EQ(at_small->decode.flops_per_token, 0);
  EXPECT_DOUBLE_EQ(at_small->prefill.flops_per_token, 2.0 * m.vocab * m.hidden / small.input_tokens);
  EXPECT_DOUBLE_EQ(at_untied->decode.weights, at_untied->weights_per_gpu - 2.0 * m.vocab * m.hidden);
  // The FP8 checkpoint's embedding and head weigh 16 bits.
  EXPECT_DOUBLE_EQ(at_untied->weights_per_gpu, m.params + 1.0 * m.embedding_params());
  auto driver = [](const char* file) {
    for (const auto& l : plan_file(data_dir() / file).lines)
      if (l.item == "Decode step (TPOT)") return l.driver;
    return std::string();
  };
  EXPECT_NE(driver("vllm-granite4-micro-l40s.yaml").find("x 2 N_act "), std::string::npos);
  EXPECT_NE(driver("trtllm-perf-llama31-8b-h100-tp1-128-128.yaml").find("x 2 (N_act - V h) "),
            std::string::npos);
}

// A layout over part of its last node still crosses nodes: 80 GPUs of 72-GPU NVL72 racks reduce their
// gradients over two racks' network, not NVLink.
TEST(Models, APartialLastNodeStillCrossesNodes) {
  auto w = std::get<LlmTraining>(load_workload(data_dir() / "nemo2511-llama3-8b-gb200-fp8.yaml").spec);
  const GpuSpec& gb200 = shipped_catalog().gpu("GB200");
  NodeFacts rack{&gb200, 72, 72, 72 * 400e9 / 8};
  Calibration cal = flat_calibration(0.8);
  Layout l{8, 1, 10, 1, Recompute::none};
  auto st = training_step(w.model, w, rack, cal, l);
  EXPECT_DOUBLE_EQ(st.dp_busbw, terms::dp_busbw(rack, cal, l, 2));
  EXPECT_LT(st.dp_busbw, gb200.link_bandwidth * cal.nvlink.value);
}

// trtllm-bench sizes its batch with its own bytes per element (tuning.py): NVFP4 weights at 0.5, not the
// 0.5625 they weigh with their scales, and an unlisted precision at 2; times the elements of the checkpoint's
// safetensors header, where an NVFP4 weight takes 1/2 (two values a byte) + 1/16 (its FP8 scales) of an
// element and a part kept at 16 bits (here the embedding and head) one.
TEST(Models, TrtllmBenchTakesItsOwnBytesPerElement) {
  LlmInference w = bench_workload(80, 8192, 64, 70.6e9, "nvfp4");
  w.model.vocab = 128256;
  w.output_tokens = 100;
  GpuSpec gpu;
  gpu.memory_bytes = 180.0 * (1ull << 30);
  double kept = 2.0 * 128256 * 8192;
  ASSERT_DOUBLE_EQ(unquantized_params(w), kept);
  double elements = (70.6e9 - kept) * (0.5 + 1.0 / 16) + kept;
  double raw = 0.95 * (gpu.memory_bytes - elements * 0.5) / (2.0 * 80 * 8 * 128 * 1 * 1100);
  ASSERT_GT(raw, 896);
  ASSERT_LT(raw, 1024);
  EXPECT_EQ(trtllm_bench_settings(w, gpu, 1).max_batch_size, 1024);
  // Counting every parameter as an element would leave 833 requests: 896.
  ASSERT_LT(0.95 * (gpu.memory_bytes - 70.6e9 * 0.5) / (2.0 * 80 * 8 * 128 * 1 * 1100), 896);
  w.kv_precision = "int8";  // not in its table: 2 bytes
  double raw16 = raw / 2;
  ASSERT_GT(raw16, 384);
  ASSERT_LT(raw16, 512);
  EXPECT_EQ(trtllm_bench_settings(w, gpu, 1).max_batch_size, 512);
}

// A decode step padded to its CUDA graph runs the GEMMs' compute for the graph's rows (compute-bound here:
// the weights' 1 ms of reading adds its unhidden share).
TEST(Models, DecodeGemmsRunAtTheCudaGraphRows) {
  LlmInference w;
  w.cuda_graph_batch_sizes = {128, 256, 384};
  ServingBudget vllm;
  EXPECT_EQ(cuda_graph_rows(w, vllm, 129), 256);
  EXPECT_EQ(cuda_graph_rows(w, vllm, 256), 256);
  EXPECT_EQ(cuda_graph_rows(w, vllm, 500), 500);  // above the largest graph: eager, unpadded
  EXPECT_EQ(cuda_graph_rows(LlmInference{}, vllm, 129), 129);
  // TensorRT-LLM captures none above its largest pure-decode batch, min(max_batch_size, max_num_tokens),
  // and pads to that batch itself instead: a batch of 300 under max_batch_size 320 runs 320 rows, not 384.
  ServingBudget trtllm;
  trtllm.trtllm = true;
  trtllm.max_num_seqs = 320;
  trtllm.max_num_batched_tokens = 2048;
  EXPECT_EQ(cuda_graph_rows(w, trtllm, 129), 256);
  EXPECT_EQ(cuda_graph_rows(w, trtllm, 300), 320);
  trtllm.max_num_batched_tokens = 200;  // a step of max_num_tokens holds at most 200 decode rows
  EXPECT_EQ(cuda_graph_rows(w, trtllm, 129), 200);
  EXPECT_EQ(cuda_graph_rows(w, trtllm, 250), 250);
  DecodeStep d{1e9, 0, 1e12, 129, 256, 1e10, 0, 1, 1e15, 1, 0, 0, 1e15, 1, 1e12};
  EXPECT_DOUBLE_EQ(decode_gemm_time<double>(d),
                   256 * 1e10 / 1e15 + assumption::kGemmUnhiddenShare.value * 1e9 / 1e12);
}

// The KV cache as vLLM sizes it: HBM x utilisation - weights - the profile pass's activation peak - runtime.
TEST(Models, KvCacheIsHbmTimesUtilisationLessWeightsActivationPeakAndRuntime) {
  KvCapacity k{80.0 * (1ull << 30), 0.9, 13.5e9, 1.2e9, 0.3e9, 0.03e9, 1.6e9, 1e9};
  EXPECT_DOUBLE_EQ(kv_cache_per_gpu<double>(k),
                   0.9 * 80 * (1ull << 30) - 13.5e9 - 1.2e9 - (0.3e9 + 0.03e9 + 1.6e9) - 1e9);
  auto f = kv_cache_per_gpu<Formula>(k);
  EXPECT_EQ(
      f.symbolic(),
      "hbm x utilisation - weights - activation_peak - (cuda_context + workspace + nccl) - cuda_graphs");
  // The profile pass of 8192 tokens on LLaMA-7B (SwiGLU 11008): 8192 x (2 x 4096 + 3 x 11008) x 2 B plus 256
  // rows of fp32 logits.
  TransformerModel m;
  m.hidden = 4096;
  m.ffn_hidden = 11008;
  m.vocab = 32000;
  EXPECT_DOUBLE_EQ(profile_activation_peak(m, 8192, 256, 1),
                   8192.0 * (2 * 4096 + 3 * 11008) * 2 + 256.0 * 32000 * 4);
  EXPECT_DOUBLE_EQ(profile_activation_peak(m, 8192, 256, 2),
                   8192.0 * (2 * 4096 + 3 * 11008 / 2.0) * 2 + 256.0 * 32000 * 4);
  // MoE (Qwen3-235B-A22B at TP 4): vLLM's fused MoE holds, per routed copy, the gate/up output (2 f / t) and
  // the down output (h) in one shared buffer of the larger, and the activated f / t apart, for at most its
  // 16,384-token chunk; a shared expert is a dense MLP.
  TransformerModel q;
  q.hidden = 4096;
  q.ffn_hidden = 1536;
  q.vocab = 151936;
  q.experts = 128;
  q.top_k = 8;
  EXPECT_DOUBLE_EQ(profile_activation_peak(q, 8192, 256, 4),
                   8192.0 * (2 * 4096 + 8 * (4096 + 384)) * 2 + 256.0 * 151936 * 4);
  EXPECT_DOUBLE_EQ(profile_activation_peak(q, 32768, 256, 4),
                   32768.0 * 2 * 4096 * 2 + 16384.0 * 8 * (4096 + 384) * 2 + 256.0 * 151936 * 4);
  q.shared_experts = 1;
  EXPECT_DOUBLE_EQ(profile_activation_peak(q, 8192, 256, 4),
                   8192.0 * (2 * 4096 + 3 * 1536 / 4.0 + 8 * (4096 + 384)) * 2 + 256.0 * 151936 * 4);
}

// Decode: the GEMMs are memory-bound below the crossover batch (weights / HBM = batch x 2 N_act / (t peak
// eta)) and compute-bound above it, and pay the unhidden share of the shorter of the two (gemm_time); the
// attention adds its own roofline (separate kernels).
TEST(Models, DecodeStepIsGemmTimePlusAttentionRoofline) {
  DecodeStep d{13.5e9, 0, 1.8e12, 1, 0, 13.5e9, 0, 1, 312e12, 0.8, 0, 0, 156e12, 0.6, 1.8e12};
  double crossover = decode_crossover_batch<double>(d);
  EXPECT_NEAR(crossover, 13.5e9 / 1.8e12 / (13.5e9 / (312e12 * 0.8)), 1e-9);
  double memory = 13.5e9 / 1.8e12, s = assumption::kGemmUnhiddenShare.value;
  d.batch = crossover / 2;
  EXPECT_NEAR(decode_gemm_time<double>(d), memory + s * memory / 2, 1e-12);
  d.batch = crossover * 2;
  EXPECT_NEAR(decode_gemm_time<double>(d), 2 * memory + s * memory, 1e-12);
  d.kv_read = 9e9;
  d.attention_flops = 1e8;
  EXPECT_NEAR(decode_step_time<double>(d), 2 * memory + s * memory + 9e9 / 1.8e12, 1e-12);
  // A decode-attention kernel slower than the HBM rate reads the cache at its own rate, the GEMMs' weight
  // read staying at the HBM rate.
  d.kv_rate = 1.2e12;
  EXPECT_NEAR(decode_step_time<double>(d), 2 * memory + s * memory + 9e9 / 1.2e12, 1e-12);
  // The bound is judged at that rate: FLOPs lasting between the read at the HBM rate and at the kernel's
  // leave the attention memory-bound.
  d.attention_flops =
      6.5e-3 * 156e12 * 0.6 / d.batch;  // 6.5 ms of FLOPs; the read 5 ms at HBM, 7.5 at kv_rate
  EXPECT_TRUE(decode_attention_memory_bound(d));
  d.attention_flops *= 2;
  EXPECT_FALSE(decode_attention_memory_bound(d));
  d.attention_flops = 1e8;
  EXPECT_NE(decode_step_time<Formula>(d).symbolic().find("max(kv_read / kv_rate"), std::string::npos);
  d.kv_rate = 1.8e12;
  // A compute-bound attention runs at its own peak and efficiency, not the GEMMs'.
  d.attention_flops = 1e12;
  EXPECT_NEAR(decode_attention_time<double>(d), d.batch * 1e12 / (156e12 * 0.6), 1e-12);
  EXPECT_EQ(decode_step_time<Formula>(d).symbolic(),
            "max(weights / hbm, batch x flops_per_token / (t x peak x eta)) + unhidden x min(weights / hbm, "
            "batch x flops_per_token / (t x peak x eta)) + max(kv_read / hbm, batch x attention_flops / (t x "
            "attention_peak x attention_eta)) + elementwise / hbm");
  // The elementwise passes' bytes add their read at the HBM rate.
  double before = decode_step_time<double>(d);
  d.elementwise = 3.6e9;
  EXPECT_NEAR(decode_step_time<double>(d), before + 3.6e9 / 1.8e12, 1e-12);
}

// At the crossover, where reading the weights takes as long as the multiply-adds, the GEMMs take 1.49 x
// either, not the roofline's 1 x: DeepGEMM's published tables put few-row GEMMs there.
TEST(Models, DecodeGemmsAtTheCrossoverPayTheUnhiddenShare) {
  DecodeStep d{13.5e9, 0, 1.8e12, 1, 0, 13.5e9, 0, 1, 312e12, 0.8, 0, 0, 312e12, 0.8, 1.8e12};
  d.batch = decode_crossover_batch<double>(d);
  EXPECT_NEAR(decode_gemm_time<double>(d), 1.49 * 13.5e9 / 1.8e12, 1e-9);
}

// A prefill chunk's GEMMs read the weights once for its tokens and, like decode's, pay the unhidden share of
// the shorter of that read and their multiply-adds (gemm_time); its attention is a kernel of its own.
TEST(Models, PrefillGemmsPayTheUnhiddenShareOfTheirWeightRead) {
  Prefill p{2048, 13.5e9, 4e12, 1, 312e12, 0.8, 0, 13.5e9, 1.8e12, 156e12, 0.6};
  double compute = 2048 * 13.5e9 / (312e12 * 0.8), memory = 13.5e9 / 1.8e12;
  double s = assumption::kGemmUnhiddenShare.value;
  EXPECT_NEAR(prefill_time<double>(p), compute + s * memory + 4e12 / (156e12 * 0.6), 1e-12);
  EXPECT_EQ(prefill_time<Formula>(p).symbolic(),
            "max(weights / hbm, flops_per_token x prompt / (t x peak x eta)) + unhidden x min(weights / hbm, "
            "flops_per_token x prompt / (t x peak x eta)) + attention_flops / (t x attention_peak x "
            "attention_eta) + elementwise / hbm");
  p.elementwise = 0.9e9;
  EXPECT_NEAR(prefill_time<double>(p), compute + s * memory + 4e12 / (156e12 * 0.6) + 0.9e9 / 1.8e12, 1e-12);
}

// A served Llama-shaped model in FP8: layers, hidden, heads, KV heads, FFN width, vocabulary.
struct LlamaShape {
  int layers, hidden, heads, kv_heads, ffn_hidden, vocab;
};
LlmInference fp8_serving(const LlamaShape& s) {
  LlmInference w;
  w.model.layers = s.layers;
  w.model.hidden = s.hidden;
  w.model.heads = s.heads;
  w.model.kv_heads = s.kv_heads;
  w.model.ffn_hidden = s.ffn_hidden;
  w.model.vocab = s.vocab;
  w.precision = "fp8";
  return w;
}

// Between the GEMMs a serving engine runs fused elementwise kernels, each reading and writing the token's
// hidden state or FFN activations once: per layer two add + norm passes over h (read residual and sublayer
// output, write residual at 16 bits, write the next GEMM's input at the weights' precision), the rotary /
// KV-append pass over the queries (32 x 128), keys and values (2 x 8 x 128), and the FFN activation (read
// its 1 or 2 inputs, write the GEMM input). Llama 3.1 8B in FP8 on one GPU: 2 x 4,096 x (3 x 2 + 1) +
// 6,144 x 2 x 2 + 14,336 x (2 x 2 + 1) = 153,600 B per layer, x 32 layers; the sampler reads, upcasts and
// reads back each sampled token's 128,256 logits.
TEST(Models, ServingElementwisePassesReadAndWriteEachActivationOnce) {
  LlmInference w = fp8_serving({32, 4096, 32, 8, 14336, 128256});
  EXPECT_DOUBLE_EQ(serving_elementwise_bytes_per_token(w, 1), 32 * 153600.0);
  EXPECT_DOUBLE_EQ(sampler_bytes_per_token(w.model), 10 * 128256.0);
  // TP 2 splits the rotary and FFN passes by heads and columns; the norms run on the whole hidden state on
  // every rank.
  EXPECT_DOUBLE_EQ(serving_elementwise_bytes_per_token(w, 2), 32 * (57344.0 + (24576.0 + 71680.0) / 2));
  // Without rotary embeddings the pass only appends the keys and values.
  w.model.rotary = false;
  EXPECT_DOUBLE_EQ(serving_elementwise_bytes_per_token(w, 1), 32 * (57344.0 + 2048 * 2 * 2 + 71680.0));
  // 16-bit weights write 16-bit GEMM inputs; a plain (GeLU) FFN reads one input, not two.
  w.model.rotary = true;
  w.precision = "bf16";
  w.model.gated_ffn = false;
  double layer = 2 * 4096.0 * (3 * 2 + 2) + 6144 * 2 * 2 + 14336 * (2 + 2);
  EXPECT_DOUBLE_EQ(serving_elementwise_bytes_per_token(w, 1), 32 * layer);
  // The sheet's basis prints each pass's operands and the total they make.
  EXPECT_NE(serving_elementwise_basis(w, 1).find(fmt::format("= {:.0f} B; sampler", 32 * layer)),
            std::string::npos)
      << serving_elementwise_basis(w, 1);
  EXPECT_NE(serving_elementwise_basis(w, 1).find(fmt::format("total {:.0f} B", 32 * layer + 10 * 128256.0)),
            std::string::npos);
}

// Attention multiplies queries by the KV cache as stored or dequantized, not at the weights' GEMM rate: an
// NVFP4 model with an FP8 cache runs its attention at the FP8 peak and the FP8 asymptote, an INT8 cache at
// FP16's, a GPU without the cache's precision at FP16's, and never above the GEMMs' own peak.
TEST(Models, AttentionRunsAtTheKvCachePrecisionsRate) {
  GpuSpec b200;
  b200.name = "B200";  // its published asymptotes (kPublishedGemm)
  b200.peak = {{"fp4", 9000e12}, {"fp8", 4500e12}, {"bf16", 2250e12}, {"fp16", 2200e12}};
  auto fp4 = attention_rate(b200, "nvfp4", "fp8", false);
  EXPECT_EQ(fp4.precision, "fp8");
  EXPECT_DOUBLE_EQ(fp4.peak, 4500e12);
  EXPECT_DOUBLE_EQ(fp4.eta_scale,
                   assumed_gemm_asymptote(b200, "fp8").value / assumed_gemm_asymptote(b200, "nvfp4").value);
  EXPECT_GT(fp4.eta_scale, 1.5);  // FP8's published 0.76 over FP4's 0.43
  EXPECT_DOUBLE_EQ(attention_rate(b200, "nvfp4", "nvfp4", false).peak, 4500e12);  // dequantized to FP8
  EXPECT_DOUBLE_EQ(attention_rate(b200, "nvfp4", "bf16", false).peak, 2250e12);
  EXPECT_DOUBLE_EQ(attention_rate(b200, "fp8", "int8", false).peak, 2200e12);  // dequantized to FP16
  // At the GEMMs' own precision nothing changes.
  auto fp8 = attention_rate(b200, "fp8", "fp8", false);
  EXPECT_DOUBLE_EQ(fp8.peak, 4500e12);
  EXPECT_DOUBLE_EQ(fp8.eta_scale, 1);
  // A BF16 model over an FP8 cache: never above the GEMMs' peak, so FP16's.
  EXPECT_DOUBLE_EQ(attention_rate(b200, "bf16", "fp8", false).peak, 2200e12);
  // An A100 has no FP8: INT8 weights over an FP8 cache attend at FP16, not at the INT8 peak.
  GpuSpec a100;
  a100.name = "A100-SXM4-80GB";
  a100.peak = {{"int8", 624e12}, {"bf16", 312e12}, {"fp16", 312e12}};
  auto int8 = attention_rate(a100, "int8", "fp8", false);
  EXPECT_EQ(int8.precision, "fp16");
  EXPECT_DOUBLE_EQ(int8.peak, 312e12);
  // No entry fits: the GEMMs' peak and efficiency.
  GpuSpec bare;
  bare.peak = {{"fp8", 1000e12}};
  auto none = attention_rate(bare, "fp8", "bf16", false);
  EXPECT_DOUBLE_EQ(none.peak, 1000e12);
  EXPECT_DOUBLE_EQ(none.eta_scale, 1);
  // At sustained clocks (serving) the ratio is of the sustained figures where published: on the H200 the
  // FP8 GEMMs' sustained 1,366.3 and BF16's short-run 794.5 (no sustained BF16 figure), so a BF16 cache
  // beside FP8 GEMMs attends at the BF16 asymptote a BF16 serving step takes.
  const GpuSpec& h200 = shipped_catalog().gpu("H200-SXM");
  auto sustained = attention_rate(h200, "fp8", "bf16", true);
  EXPECT_NEAR(sustained.eta_scale, (794.5 / 989) / (1366.3 / 1979), 1e-12);
  EXPECT_NEAR(attention_rate(h200, "fp8", "bf16", false).eta_scale, (794.5 / 989) / (1453.4 / 1979), 1e-12);
}

// A quantized serving step's 16-bit GEMMs (the output layer) run at the 16-bit asymptote the calibration's
// clocks give: at sustained clocks the FP8 figure's sustained one over BF16's, so that the H200's BF16
// GEMMs run at the same 794.5 / 989 inside an FP8 serving step as in a BF16 one.
TEST(Models, SixteenBitGemmsOfAQuantizedStepTakeTheCalibrationsClocks) {
  const GpuSpec& h200 = shipped_catalog().gpu("H200-SXM");
  Calibration cal = flat_calibration(1366.3 / 1979);
  cal.sustained = true;
  EXPECT_NEAR(gemm_rates(h200, "fp8", cal).asymptote_16, 794.5 / 989, 1e-12);
  cal.gemm.value = 1453.4 / 1979;
  cal.sustained = false;
  EXPECT_NEAR(gemm_rates(h200, "fp8", cal).asymptote_16, 794.5 / 989, 1e-12);
}

// A decode step reads its KV cache at the GPU's published decode-attention rate where there is one and it
// is below the calibrated HBM rate (a node measured slower keeps its own), else at the HBM rate.
TEST(Models, DecodeAttentionReadsAtThePublishedKernelRate) {
  const auto& c = shipped_catalog();
  const double b200_kernel = assumption::kPublishedDecodeAttention[0].bytes_per_s;
  ASSERT_EQ(assumption::kPublishedDecodeAttention[0].gpu, "B200");
  std::string basis;
  EXPECT_DOUBLE_EQ(decode_attention_read_rate(c.gpu("B200"), 7.2e12, &basis), b200_kernel);
  EXPECT_NE(basis.find("trtllm-gen"), std::string::npos) << basis;
  EXPECT_DOUBLE_EQ(decode_attention_read_rate(c.gpu("GB200"), 7.2e12), b200_kernel);
  EXPECT_DOUBLE_EQ(decode_attention_read_rate(c.gpu("B200"), 5e12), 5e12);          // measured slower
  EXPECT_DOUBLE_EQ(decode_attention_read_rate(c.gpu("H100-SXM"), 3.0e12), 3.0e12);  // none published
}

// An FP8 checkpoint keeps its embedding and output head at 16 bits, and Meta's Llama 3.1 405B its attention
// and first and last layers' FFNs too: those parameters weigh 2 B, the rest 1 B. Tied, the embedding and the
// head are one matrix.
TEST(Models, UnquantizedPartsWeighSixteenBits) {
  LlmInference w = fp8_serving({126, 16384, 128, 8, 53248, 128256});
  w.model.params = 405.85e9;
  double embeddings = 2.0 * 128256 * 16384;
  EXPECT_DOUBLE_EQ(unquantized_params(w), embeddings);
  EXPECT_DOUBLE_EQ(serving_weight_bytes(w), 405.85e9 + embeddings);
  w.unquantized = {"attention", "first_last_layers"};
  double attention = 126 * (16384.0 * (16384 + 2 * 8 * 128) + 16384.0 * 16384);
  double edge_ffns = 2 * 3.0 * 16384 * 53248;
  EXPECT_DOUBLE_EQ(unquantized_params(w), attention + edge_ffns + embeddings);
  EXPECT_DOUBLE_EQ(serving_weight_bytes(w), 405.85e9 + attention + edge_ffns + embeddings);
  w.model.tied_embeddings = true;
  EXPECT_DOUBLE_EQ(unquantized_params(w), attention + edge_ffns + embeddings / 2);
  w.precision = "bf16";  // nothing to keep apart
  EXPECT_DOUBLE_EQ(serving_weight_bytes(w), 2 * 405.85e9);
}

// The queue: Erlang C matches the textbook M/M/c values, and the M/D/c wait is half the M/M/c one.
TEST(Models, RequestQueueIsMdcWithTheBatchAsServers) {
  EXPECT_DOUBLE_EQ(erlang_c(1, 0.5), 0.5);  // M/M/1: P(wait) = rho
  EXPECT_NEAR(erlang_c(2, 1), 1.0 / 3, 1e-12);
  EXPECT_DOUBLE_EQ(erlang_c(4, 4), 1);
  auto q = request_queue(2.0, 4, 0.1, 0.02, 50);
  ASSERT_TRUE(q.stable);
  EXPECT_DOUBLE_EQ(q.prefill_share, 0.2);
  EXPECT_DOUBLE_EQ(q.tpot_s, 0.02 / 0.8);
  EXPECT_DOUBLE_EQ(q.service_s, 0.1 + 50 * 0.025);
  EXPECT_DOUBLE_EQ(q.load, 2 * q.service_s / 4);
  double mmc = erlang_c(4, 2 * q.service_s) / (4 / q.service_s - 2);
  EXPECT_DOUBLE_EQ(q.wait_s, mmc / 2);
  EXPECT_DOUBLE_EQ(ttft_at_rate<double>(q), q.wait_s + 0.1 + q.tpot_s);
  EXPECT_FALSE(request_queue(4.0, 4, 0.1, 0.02, 50).stable);     // load 1.35
  EXPECT_FALSE(request_queue(20.0, 400, 0.1, 0.02, 50).stable);  // prefill alone fills the instance
}

// Offline, the batch is the best one; with a workload batch and tp, those are kept.
TEST(Models, ServingPointTakesTheWorkloadBatchAndTp) {
  auto w = std::get<LlmInference>(load_workload(data_dir() / "trtllm-llama7b-a100-b32-128-2048.yaml").spec);
  Calibration cal = flat_calibration(0.8);
  auto sp = serving_point(w, a100_node(), cal, 0.8, 0.8, 0.25, nullptr);
  ASSERT_TRUE(sp);
  EXPECT_EQ(sp->t, 1);
  EXPECT_EQ(sp->batch, 32);
  EXPECT_EQ(sp->bound, "memory");
  w.batch.reset();
  auto best = serving_point(w, a100_node(), cal, 0.8, 0.8, 0.25, nullptr);
  ASSERT_TRUE(best);
  EXPECT_GT(best->batch, 32);
  EXPECT_LE(best->batch, best->max_batch);
  EXPECT_GT(best->tokens_per_s_instance, sp->tokens_per_s_instance);
  w.batch = 100000;
  std::string why;
  EXPECT_FALSE(serving_point(w, a100_node(), cal, 0.8, 0.8, 0.25, &why));
  EXPECT_NE(why.find("batch 100000 needs"), std::string::npos) << why;
}

// The layout search keeps tensor parallelism within the NVLink domain; a stated degree may span a PCIe
// server's GPUs, its all-reduces at the PCIe terms (NCCL's latency + bytes over the link), and need not be a
// power of two; one wider than the node is refused as such.
TEST(Serving, AStatedTpMaySpanPcieGpus) {
  auto w = std::get<LlmInference>(
      load_workload(data_dir() / "trtllm017-llama31-70b-l40s-tp4-1000-1000.yaml").spec);
  const GpuSpec& l40s_gpu = shipped_catalog().gpu("L40S");
  const NodeFacts l40s{&l40s_gpu, 4, 1, 2 * 100e9 / 8};
  Calibration cal = flat_calibration(0.8);
  auto stated = serving_point(w, l40s, cal, 0.8, 0.8, 0.25, nullptr);
  ASSERT_TRUE(stated);
  EXPECT_EQ(stated->t, 4);
  // Two all-reduces per layer of the step's rows x h bf16 values, 2 (t - 1) / t of them over the link.
  double rows = stated->decode.rows;
  double bytes = rows * 8192 * 2 * 2 * 3.0 / 4;
  EXPECT_NEAR(stated->decode.tp_s,
              2 * 80 * (assumption::kCollectiveLatency.value + bytes / (l40s_gpu.link_bandwidth * 0.8)),
              1e-9 * stated->decode.tp_s);
  w.tp.reset();
  std::string why;
  EXPECT_FALSE(serving_point(w, l40s, cal, 0.8, 0.8, 0.25, &why)) << "70B in FP8 fits no one 48 GB GPU";
  EXPECT_NE(why.find("up to 1"), std::string::npos) << why;
  w.tp = 8;
  EXPECT_FALSE(serving_point(w, l40s, cal, 0.8, 0.8, 0.25, &why));
  EXPECT_EQ(why, "TP 8 (given) exceeds the node's 4 GPUs");
  // Mixtral 8x22B's 48 heads split 6 ways: a stated degree outside the search's powers of two, taken where it
  // divides the node's GPUs and refused where GPUs would sit idle.
  auto mixtral = std::get<LlmInference>(
      load_workload(data_dir() / "trtllm017-mixtral-8x22b-h100-tp8-1000-1000.yaml").spec);
  mixtral.tp = 6;
  const GpuSpec& h100_gpu = shipped_catalog().gpu("H100-SXM");
  const NodeFacts twelve{&h100_gpu, 12, 12, 12 * 400e9 / 8};
  auto six = serving_point(mixtral, twelve, cal, 0.8, 0.8, 0.25, nullptr);
  ASSERT_TRUE(six);
  EXPECT_EQ(six->t, 6);
  EXPECT_EQ(six->instances, 2);
  const NodeFacts eight{&h100_gpu, 8, 8, 8 * 400e9 / 8};
  EXPECT_FALSE(serving_point(mixtral, eight, cal, 0.8, 0.8, 0.25, &why));
  EXPECT_EQ(why, "TP 6 (given) does not divide the node's 8 GPUs: give a divisor of 8");
}

// A MoE decode step reads the experts its batch routes to: fewer at batch 1 than all of them.
TEST(Models, MoeDecodeReadsTheExpertsTheBatchTouches) {
  LlmInference w = mixtral_served(1);
  Calibration cal = flat_calibration(0.8);
  auto one = serving_point(w, a100_node(), cal, 0.8, 0.8, 0.25, nullptr);
  ASSERT_TRUE(one);
  const auto& m = w.model;
  // Of the dense part, all but the input embedding, whose table the step gathers rows of.
  double dense = m.params - m.expert_params() - static_cast<double>(m.vocab) * m.hidden;
  EXPECT_NEAR(one->decode.weights, (dense + m.expert_params() * 2 / 8) * 2 / 2, 1e-6 * one->decode.weights);
  w.batch = 64;
  auto many = serving_point(w, a100_node(), cal, 0.8, 0.8, 0.25, nullptr);
  ASSERT_TRUE(many);
  EXPECT_NEAR(many->decode.weights, (dense + m.expert_params()) * 2 / 2, 1e-3 * many->decode.weights);
}

// The custom one-shot all-reduce needs NVLink peer-to-peer: an H100-SXM pays its 3.7 us per call, PCIe GPUs
// (L40S, L4, T4) the NCCL collective latency.
TEST(Serving, AllReduceLatencyFollowsTheLink) {
  const auto& gpus = shipped_catalog().gpus;
  auto find = [&gpus](const std::string& name) {
    for (const auto& g : gpus)
      if (g.name == name) return g;
    ADD_FAILURE() << name;
    return GpuSpec{};
  };
  EXPECT_EQ(serving_allreduce_latency(find("H100-SXM")), assumption::kServingAllReduceLatency.value);
  EXPECT_EQ(serving_allreduce_latency(find("L40S")), assumption::kCollectiveLatency.value);
  EXPECT_EQ(serving_allreduce_latency(find("T4")), assumption::kCollectiveLatency.value);
}

// TensorRT-LLM's all-reduce takes its measured time: the table's point at a power of two, the geometric mean
// half-way (log-log) between two, the smallest point below them, time in proportion to size above them, and
// nothing for a GPU or TP degree it does not hold.
TEST(Serving, TensorRtLlmAllReduceTakesItsMeasuredTime) {
  const auto& row = assumption::kPublishedServingAllReduce[2];
  ASSERT_EQ(row.gpu, "H100-SXM");
  ASSERT_EQ(row.tp, 8);
  GpuSpec h100;
  h100.name = "H100-SXM";
  const int first = assumption::kPublishedAllReduceFirstLog2;
  EXPECT_DOUBLE_EQ(*published_serving_allreduce(h100, 8, std::exp2(first + 10)), row.seconds[10]);
  EXPECT_NEAR(*published_serving_allreduce(h100, 8, std::exp2(first + 10.5)),
              std::sqrt(row.seconds[10] * row.seconds[11]), 1e-12);
  EXPECT_DOUBLE_EQ(*published_serving_allreduce(h100, 8, 16), row.seconds.front());
  EXPECT_NEAR(*published_serving_allreduce(h100, 8, std::exp2(first + 16)), 2 * row.seconds.back(), 1e-12);
  std::string basis;
  published_serving_allreduce(h100, 8, std::exp2(first + 10), &basis);
  EXPECT_NE(basis.find("H100-SXM TP 8"), std::string::npos) << basis;
  EXPECT_FALSE(published_serving_allreduce(h100, 3, 1e6));
  GpuSpec l40s;
  l40s.name = "L40S";
  EXPECT_FALSE(published_serving_allreduce(l40s, 2, 1e6));
  // Every row rises with the message from 2^20 elements on: its bandwidth-bound part. Below, a point above a
  // larger message's time takes that time (the H100 TP 2 row's 9.9 us at 2^13 against 3.4 us at 2^14).
  for (const auto& r : assumption::kPublishedServingAllReduce)
    for (size_t i = 8; i + 1 < r.seconds.size(); ++i) EXPECT_LT(r.seconds[i], r.seconds[i + 1]) << r.gpu;
  const auto& tp2 = assumption::kPublishedServingAllReduce[0];
  ASSERT_EQ(tp2.tp, 2);
  ASSERT_GT(tp2.seconds[1], tp2.seconds[2]);
  EXPECT_DOUBLE_EQ(*published_serving_allreduce(h100, 2, std::exp2(first + 1)), tp2.seconds[2]);
  // Every row names a GPU of the shipped catalog (a typo would fall back to the formula unseen).
  for (const auto& r : assumption::kPublishedServingAllReduce)
    EXPECT_NE(find_gpu(shipped_catalog().gpus, r.gpu), nullptr) << r.gpu;
}

// TensorRT-LLM's fused MoE op takes its measured time: the row's point at a power of two, log-log between
// two, the first point below them, in proportion to the tokens above them; only on TensorRT-LLM, on one GPU,
// one GPU of a tensor-parallel split of every expert, or one rank of attention data parallelism's
// expert-parallel group, for the GPU, precision, shape and split measured.
TEST(Serving, TensorRtLlmMoeOpTakesItsMeasuredTime) {
  auto w = std::get<LlmInference>(
      load_workload(data_dir() / "trtllm-perf-qwen3-30b-b200-tp1-1000-1000.yaml").spec);
  const auto& c = shipped_catalog();
  const GpuSpec& b200 = c.gpu("B200");
  const auto* row = published_serving_moe(w, b200, 1);
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->precision, "nvfp4");
  EXPECT_DOUBLE_EQ(published_moe_seconds(*row, 1024), row->seconds[10]);
  EXPECT_NEAR(published_moe_seconds(*row, std::exp2(10.5)), std::sqrt(row->seconds[10] * row->seconds[11]),
              1e-15);
  EXPECT_DOUBLE_EQ(published_moe_seconds(*row, 0.5), row->seconds.front());
  EXPECT_NEAR(published_moe_seconds(*row, std::exp2(16)), 4 * row->seconds.back(), 1e-15);
  std::string basis;
  published_moe_seconds(*row, 1024, &basis);
  EXPECT_NE(basis.find("fused MoE on one B200 (nvfp4)"), std::string::npos) << basis;
  // At TP 2 every expert splits two ways (TensorRT-LLM's mapping when no expert-parallel size is given).
  const auto* tp2 = published_serving_moe(w, b200, 2);
  ASSERT_NE(tp2, nullptr);
  EXPECT_EQ(tp2->tp, 2);
  EXPECT_EQ(tp2->ep, 1);
  published_moe_seconds(*tp2, 1024, &basis);
  EXPECT_NE(basis.find("holding 1/2 of every expert (tensor-parallel 2)"), std::string::npos) << basis;
  auto vllm = w;
  vllm.engine = "vllm";
  EXPECT_EQ(published_serving_moe(vllm, b200, 1), nullptr);
  auto fp8 = w;
  fp8.precision = "fp8";
  ASSERT_NE(published_serving_moe(fp8, b200, 1), nullptr);
  EXPECT_EQ(published_serving_moe(fp8, b200, 1)->precision, "fp8");
  auto shared = w;  // the op runs the routed experts; a shared one runs beside it with the other GEMMs
  shared.model.shared_experts = 1;
  EXPECT_EQ(published_serving_moe(shared, b200, 1), row);
  auto other = w;
  other.model.ffn_hidden = 1024;
  EXPECT_EQ(published_serving_moe(other, b200, 1), nullptr);
  auto edge = w;  // the op measured every expert at the workload's precision
  edge.unquantized = {"first_last_layers"};
  EXPECT_EQ(published_serving_moe(edge, b200, 1), nullptr);
  EXPECT_EQ(published_serving_moe(w, c.gpu("L40S"), 1), nullptr);
  // DeepSeek-R1's experts under attention data parallelism: one rank of 8 holding 32 of the 256, measured
  // with every rank's tokens; not at TP 8 without it (no tensor-parallel split of its shape is measured), nor
  // on one GPU.
  auto deepseek = w;
  deepseek.model.hidden = 7168;
  deepseek.model.ffn_hidden = 2048;
  deepseek.model.experts = 256;
  deepseek.model.shared_experts = 1;
  deepseek.tp = 8;
  EXPECT_EQ(published_serving_moe(deepseek, b200, 8), nullptr);
  EXPECT_EQ(published_serving_moe(deepseek, b200, 1), nullptr);
  deepseek.attention_dp = true;
  const auto* ep8 = published_serving_moe(deepseek, b200, 8);
  ASSERT_NE(ep8, nullptr);
  EXPECT_EQ(ep8->ep, 8);
  published_moe_seconds(*ep8, 7168, &basis);
  EXPECT_NE(basis.find("holding 32 of the 256 experts (expert-parallel 8)"), std::string::npos) << basis;
  // A point above a larger call's time takes that time: Mixtral 8x7B in bf16 on an H100 measured 0.94 ms at
  // 8 tokens and 0.92 ms at 16.
  auto mixtral = w;
  mixtral.model.hidden = 4096;
  mixtral.model.ffn_hidden = 14336;
  mixtral.model.top_k = 2;
  mixtral.model.experts = 8;
  mixtral.precision = "bf16";
  const auto* h100 = published_serving_moe(mixtral, c.gpu("H100-SXM"), 1);
  ASSERT_NE(h100, nullptr);
  ASSERT_GT(h100->seconds[3], h100->seconds[4]);
  EXPECT_DOUBLE_EQ(published_moe_seconds(*h100, 8), h100->seconds[4]);
  // Every row is whole (a short row of the generated table would be zero-filled), rises over its largest
  // calls (2^12 tokens on, where the GEMMs are compute-bound and no measurement falls), and names a GPU of
  // the shipped catalog.
  for (const auto& r : assumption::kPublishedServingMoe) {
    for (double s : r.seconds) EXPECT_GT(s, 0) << r.gpu << " " << r.hidden << " " << r.tp << "x" << r.ep;
    for (size_t i = 12; i + 1 < r.seconds.size(); ++i)
      EXPECT_LT(r.seconds[i], r.seconds[i + 1]) << r.gpu << " " << r.hidden << " " << r.tp << "x" << r.ep;
    EXPECT_NE(find_gpu(c.gpus, r.gpu), nullptr) << r.gpu;
  }
}

// A measured split slower than a coarser split of the same GPU and shape is bounded by it: Mixtral 8x22B in
// FP8 on the H100 measured 2-3x slower at moe_tp 8 than at moe_tp 4, which a GPU holding half the slice
// cannot need. FP16 takes the BF16 row (the same grouped GEMMs at the same tensor-core rate): Mixtral 8x7B on
// the A100 at TensorRT-LLM 1.0.0, the A100's one collection.
TEST(Serving, TensorRtLlmMoeSplitIsBoundedByItsCoarserSplit) {
  auto w = std::get<LlmInference>(
      load_workload(data_dir() / "trtllm017-mixtral-8x22b-h100-tp8-128-2048.yaml").spec);
  const auto& c = shipped_catalog();
  const auto* tp8 = published_serving_moe(w, c.gpu("H100-SXM"), 8);
  const auto* tp4 = published_serving_moe(w, c.gpu("H100-SXM"), 4);
  ASSERT_NE(tp8, nullptr);
  ASSERT_NE(tp4, nullptr);
  ASSERT_GT(tp8->seconds[12], tp4->seconds[12]);  // the slower measurement
  EXPECT_DOUBLE_EQ(published_moe_seconds(*tp8, 4096), tp4->seconds[12]);
  std::string basis;
  published_moe_seconds(*tp8, 4096, &basis);
  EXPECT_NE(basis.find(fmt::format("the time TensorRT-LLM {} measured on the 4-way split, which bounds this "
                                   "slower 8-way measurement",
                                   tp4->version)),
            std::string::npos)
      << basis;
  // A split faster than its coarser splits keeps its own time.
  const auto* tp2 = published_serving_moe(w, c.gpu("H100-SXM"), 2);
  ASSERT_NE(tp2, nullptr);
  ASSERT_LT(tp4->seconds[12], tp2->seconds[12]);
  EXPECT_DOUBLE_EQ(published_moe_seconds(*tp4, 4096, &basis), tp4->seconds[12]);
  EXPECT_EQ(basis.find("bounds"), std::string::npos) << basis;
  // An expert split likewise: Llama 4 Maverick in FP8 on the H200, one rank of 8 measured 3-4x one of 4.
  auto maverick = std::get<LlmInference>(
      load_workload(data_dir() / "trtllm-pergpu-llama4-maverick-h200-dep8-1024-1024.yaml").spec);
  const auto* ep8 = published_serving_moe(maverick, c.gpu("H200-SXM"), 8);
  ASSERT_NE(ep8, nullptr);
  EXPECT_EQ(ep8->ep, 8);
  EXPECT_EQ(ep8->tp, 1);
  auto ep4 = maverick;
  ep4.tp = 4;
  const auto* four = published_serving_moe(ep4, c.gpu("H200-SXM"), 4);
  ASSERT_NE(four, nullptr);
  ASSERT_GT(ep8->seconds[12], four->seconds[12]);
  EXPECT_DOUBLE_EQ(published_moe_seconds(*ep8, 4096, &basis), four->seconds[12]);
  EXPECT_NE(basis.find("holding 16 of the 128 experts (expert-parallel 8)"), std::string::npos) << basis;
  EXPECT_NE(basis.find("measured on the 4-way split, which bounds this slower 8-way measurement"),
            std::string::npos)
      << basis;
  // The bound may come from another release, and from one GPU holding every expert; the sheet names both:
  // Qwen3-235B's NVFP4 experts on the B200, split 2 ways, measured slower at 16 tokens than whole.
  auto row_of = [](int tp) {
    for (const auto& r : assumption::kPublishedServingMoe)
      if (r.gpu == "B200" && r.precision == "nvfp4" && r.hidden == 4096 && r.ffn_hidden == 1536 &&
          r.tp == tp && r.ep == 1)
        return &r;
    return static_cast<const assumption::PublishedServingMoe*>(nullptr);
  };
  const auto *whole = row_of(1), *halves = row_of(2);
  ASSERT_NE(whole, nullptr);
  ASSERT_NE(halves, nullptr);
  ASSERT_GT(halves->seconds[4], whole->seconds[4]);
  EXPECT_DOUBLE_EQ(published_moe_seconds(*halves, 16, &basis), whole->seconds[4]);
  EXPECT_NE(basis.find(fmt::format("the time TensorRT-LLM {} measured on one GPU holding every expert, which "
                                   "bounds this slower 2-way measurement",
                                   whole->version)),
            std::string::npos)
      << basis;
  auto a100 = std::get<LlmInference>(
      load_workload(data_dir() / "trtllm017-mixtral-8x7b-a100-tp4-128-2048.yaml").spec);
  ASSERT_EQ(a100.precision, "fp16");
  const auto* row = published_serving_moe(a100, c.gpu("A100-SXM4-80GB"), 4);
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->precision, "bf16");
  EXPECT_EQ(row->version, "1.0.0");
  EXPECT_EQ(row->tp, 4);
}

// Llama 4 Scout at 20,000/2,000 tokens: 36 of its 48 layers attend within 8,192-token chunks. A decode step
// reads and multiplies the KV of the attended context only, the prompt's causal attention counts only the
// pairs inside the chunks, and the sheet says so; the cache still holds every token. GPT-OSS's alternate
// 128-token sliding window shrinks the training step's attention FLOPs the same way.
TEST(Serving, LocalAttentionReadsAndMultipliesTheAttendedContext) {
  auto [w, sp] = serve_file("trtllm-perf-llama4-scout-b200-tp1-20000-2000.yaml", "B200");
  ASSERT_TRUE(sp);
  const TransformerModel& m = w.model;
  ASSERT_EQ(m.local_layers(), 36);
  LlmInference whole = w;
  whole.model.local_window = 0;
  whole.batch = static_cast<int>(sp->batch);
  NodeFacts b200{&shipped_catalog().gpu("B200"), 8, 8, 8 * 400e9 / 8};
  auto full = serving_point(whole, b200, flat_calibration(0.8), 0.7, 0.6, 0.25, nullptr);
  ASSERT_TRUE(full);
  double decode_share = m.attended_share(20000, 22000), prompt_share = m.attended_share(0, 20000);
  EXPECT_LT(decode_share, 0.5);
  EXPECT_NEAR(sp->decode.kv_read, full->decode.kv_read * decode_share, 1);
  EXPECT_NEAR(sp->decode.attention_flops, full->decode.attention_flops * decode_share, 1);
  EXPECT_NEAR(sp->prefill.attention_flops, full->prefill.attention_flops * prompt_share, 1e3);
  EXPECT_DOUBLE_EQ(sp->kv_per_token, full->kv_per_token);
  EXPECT_DOUBLE_EQ(sp->kv_budget, full->kv_budget);
  Sheet sheet = plan_file(data_dir() / "trtllm-perf-llama4-scout-b200-tp1-20000-2000.yaml");
  auto spec = [&](const char* item) {
    for (const auto& l : sheet.lines)
      if (l.item == item) return l.spec;
    return std::string();
  };
  for (auto [item, share] :
       {std::pair{"Decode step (TPOT)", decode_share}, std::pair{"Prefill phase", prompt_share}})
    EXPECT_NE(
        spec(item).find(fmt::format("local attention: 36 of 48 layers attend within their 8192-token "
                                    "chunks (attention_chunk_size, global_every 4), {:.3f} of the whole "
                                    "context's query-key pairs",
                                    share)),
        std::string::npos)
        << spec(item);
  auto oss = std::get<LlmTraining>(load_workload(data_dir() / "nemo-gpt-oss-120b-h100-bf16.yaml").spec);
  TransformerModel dense_attention = oss.model;
  dense_attention.local_window = 0;
  double pairs = 4096.0 * 4097 / 2, window = 128.0 * 129 / 2 + (4096.0 - 128) * 128;
  EXPECT_NEAR(
      training_flops_per_token(oss.model, 4096).attention,
      training_flops_per_token(dense_attention, 4096).attention * (18 * pairs + 18 * window) / (36 * pairs),
      1);
  Sheet trained = plan_file(data_dir() / "nemo-gpt-oss-120b-h100-bf16.yaml");
  bool shown = false;
  for (const auto& l : trained.lines)
    if (l.item == "Training compute")
      shown = l.driver.find("6 L a (d_qk + d_v) s x local share") != std::string::npos &&
              l.driver.find("18 of 36 layers attend within a 128-token sliding window") != std::string::npos;
  EXPECT_TRUE(shown);
}

// Where the op runs the routed experts, the step's other terms leave them: the GEMMs hold the attention,
// router and output layer (2 (N_act - V h) less the routed experts' 2 L k FFN FLOPs), read the weights less
// the experts' and the input embedding's (16-bit), pay no permutation and no routed activation pass; the MoE
// layers take L x the op at the step's rows, a prompt its share of its chunk's calls.
TEST(Serving, TensorRtLlmMoeLayersRunAsTheMeasuredOp) {
  auto [w, sp] = serve_file("trtllm-perf-qwen3-30b-b200-tp1-1000-1000.yaml", "B200");
  ASSERT_TRUE(sp);
  ASSERT_NE(sp->moe_op, nullptr);
  const TransformerModel& m = w.model;
  double routed = 2.0 * m.layers * m.top_k * m.ffn_params();
  EXPECT_NEAR(sp->decode.flops_per_token, 2 * (m.active_params - 1.0 * m.vocab * m.hidden) - routed, 1);
  double gathered = 2.0 * m.vocab * m.hidden;
  EXPECT_NEAR(sp->decode.weights,
              serving_weight_bytes(w) - m.expert_params() * bytes_per_element(w.precision) - gathered, 1e3);
  EXPECT_DOUBLE_EQ(sp->decode.moe_bytes, 0);
  EXPECT_NEAR(sp->decode.moe_s, m.layers * published_moe_seconds(*sp->moe_op, sp->decode.rows), 1e-12);
  double chunk = std::max(w.input_tokens, sp->budget.max_num_batched_tokens);
  EXPECT_NEAR(sp->prefill.moe_s,
              m.layers * published_moe_seconds(*sp->moe_op, chunk) * w.input_tokens / chunk, 1e-12);
  double chunk_weights =
      (serving_weight_bytes(w) - m.expert_params() * bytes_per_element(w.precision) - gathered) *
      w.input_tokens / chunk;
  // A prompt runs the output head once, on its last token.
  double head = 2.0 * m.vocab * m.hidden;
  EXPECT_NEAR(sp->prefill.flops_per_token, sp->decode.flops_per_token - head * (1 - 1 / w.input_tokens), 1);
  EXPECT_NEAR(sp->prefill.weights, chunk_weights, 1e3);
  EXPECT_DOUBLE_EQ(sp->elementwise_per_row, serving_elementwise_bytes_per_token(w, 1, true));
  EXPECT_LT(serving_elementwise_bytes_per_token(w, 1, true), serving_elementwise_bytes_per_token(w, 1));
  EXPECT_NE(serving_elementwise_basis(w, 1, true)
                .find("FFN activation: read 1 (GeLU) or 2 (gated) inputs (r), "
                      "write GEMM input (q) 0 elements"),
            std::string::npos);
  auto step = decode_step_time<Formula>(sp->decode);
  EXPECT_DOUBLE_EQ(step.value(), sp->step_s);
  EXPECT_NE(step.shown().find("MoE layers"), std::string::npos) << step.shown();
  // The same model at TP 2 takes the op's two-way tensor-parallel split.
  auto tp2 = w;
  tp2.tp = 2;
  NodeFacts b200{&shipped_catalog().gpu("B200"), 8, 8, 8 * 400e9 / 8};
  auto split = serving_point(tp2, b200, flat_calibration(0.8), 0.7, 0.6, 0.25, nullptr);
  ASSERT_TRUE(split);
  ASSERT_NE(split->moe_op, nullptr);
  EXPECT_EQ(split->moe_op->tp, 2);
  EXPECT_NEAR(split->decode.moe_s, m.layers * published_moe_seconds(*split->moe_op, split->decode.rows),
              1e-12);
  EXPECT_DOUBLE_EQ(split->decode.moe_bytes, 0);
}

// An offline run of N requests of one length (trtllm-bench's num_requests) runs floor(N / B) whole batches
// and a last one of the rest, which decodes at its own, smaller step: N x out / (waves x (out x step + B x
// prefill) + out x tail step + tail x prefill). A whole number of batches is the endless queue's rate.
TEST(Serving, AnOfflineRunEndsWithAPartialBatch) {
  auto w = std::get<LlmInference>(
      load_workload(data_dir() / "trtllm-perf-llama31-405b-h200-tp8-1000-2000.yaml").spec);
  ASSERT_EQ(w.requests, 1500);
  const auto& c = shipped_catalog();
  NodeFacts h200{&c.gpu("H200-SXM"), 8, 8, 8 * 400e9 / 8};
  Calibration cal = flat_calibration(0.8);
  auto run = serving_point(w, h200, cal, 0.7, 0.6, 0.25, nullptr);
  ASSERT_TRUE(run);
  double B = run->batch, out = run->output_tokens, waves = std::floor(1500 / B), tail = 1500 - waves * B;
  ASSERT_GT(tail, 0);
  EXPECT_DOUBLE_EQ(run->tail_batch, tail);
  EXPECT_LT(run->tail_step_s, run->step_s);
  EXPECT_NEAR(run->tokens_per_s_node,
              1500 * out /
                  (waves * (out * run->step_s + B * run->prefill_s) + out * run->tail_step_s +
                   tail * run->prefill_s) *
                  run->instances,
              1e-9 * run->tokens_per_s_node);
  auto formula = serving_tokens_per_s_node<Formula>(*run);
  EXPECT_DOUBLE_EQ(formula.value(), run->tokens_per_s_node);
  EXPECT_NE(formula.symbolic().find("t_tail"), std::string::npos) << formula.symbolic();
  auto endless = w;
  endless.requests.reset();
  auto steady = serving_point(endless, h200, cal, 0.7, 0.6, 0.25, nullptr);
  EXPECT_DOUBLE_EQ(steady->batch, B);
  EXPECT_LT(run->tokens_per_s_node, steady->tokens_per_s_node);
  // Fewer requests than the batch holds: one batch of all of them, and the sheet says why.
  auto few = w;
  few.requests = 100;
  auto one = serving_point(few, h200, cal, 0.7, 0.6, 0.25, nullptr);
  EXPECT_DOUBLE_EQ(one->batch, 100);
  EXPECT_DOUBLE_EQ(one->tail_batch, 0);
  EXPECT_NE(one->batch_rule.find("at most the run's 100 requests"), std::string::npos) << one->batch_rule;
  EXPECT_NEAR(one->tokens_per_s_node, 100 * out / (out * one->step_s + 100 * one->prefill_s) * one->instances,
              1e-9 * one->tokens_per_s_node);
  auto whole = w;
  whole.requests = static_cast<int>(3 * B);
  EXPECT_NEAR(serving_point(whole, h200, cal, 0.7, 0.6, 0.25, nullptr)->tokens_per_s_node,
              steady->tokens_per_s_node, 1e-9 * steady->tokens_per_s_node);
}

// A TensorRT-LLM serving step on an H100 at TP 8 pays the engine's measured all-reduce per call, 2 per layer
// over the decode rows; vLLM on the same GPUs keeps its custom kernel's latency + bytes / NVLink busbw.
TEST(Serving, TensorRtLlmDecodePaysItsMeasuredAllReduce) {
  auto [w, trt] = serve_file("trtllm-perf-llama31-405b-h100-tp8-128-4096.yaml", "H100-SXM");
  ASSERT_TRUE(trt);
  const auto& c = shipped_catalog();
  NodeFacts h100{&c.gpu("H100-SXM"), 8, 8, 8 * 400e9 / 8};
  Calibration cal = flat_calibration(0.8);
  // The step runs its CUDA graph's padded rows: the calls, the passes and the sampler count apart.
  ASSERT_GT(trt->decode.rows, trt->batch);
  double call = *published_serving_allreduce(*h100.gpu, 8, trt->decode.rows * w.model.hidden);
  EXPECT_NEAR(trt->decode.tp_s, 2.0 * w.model.layers * call, 1e-12);
  EXPECT_DOUBLE_EQ(trt->decode.elementwise, trt->decode.rows * serving_elementwise_bytes_per_token(w, 8) +
                                                trt->batch * sampler_bytes_per_token(w.model));
  // A prompt pays its share of its chunk's calls.
  double chunk = std::max(w.input_tokens, trt->budget.max_num_batched_tokens);
  double chunk_call = *published_serving_allreduce(*h100.gpu, 8, chunk * w.model.hidden);
  EXPECT_NEAR(trt->prefill.tp_s, 2.0 * w.model.layers * chunk_call * w.input_tokens / chunk, 1e-12);
  w.engine = "vllm";
  w.cuda_graph_batch_sizes.clear();
  auto vllm = serving_point(w, h100, cal, 0.7, 0.6, 0.25, nullptr);
  ASSERT_TRUE(vllm);
  double msg = vllm->decode.rows * w.model.hidden * 2.0 * 2 * 7 / 8;
  EXPECT_NEAR(vllm->decode.tp_s,
              2.0 * w.model.layers *
                  (assumption::kServingAllReduceLatency.value + msg / (h100.gpu->link_bandwidth * 0.8)),
              1e-9);
}

TransformerModel model_of(const std::string& yaml_model) {
  static const mlbench::test::TempDir dir("mlbench-shapes");
  auto p = dir / "m.yaml";
  std::ofstream(p) << "kind: llm-inference\nmodel: " << yaml_model
                   << "\nrequest_rate: 1\ninput_tokens: 1k\noutput_tokens: 1k\n";
  return std::get<LlmInference>(load_workload(p).spec).model;
}

// Qwen3-32B: 64 heads x head_dim 128 = 8192 wide on a 5120 hidden. The attention FLOPs, the QKV and O GEMMs
// and the KV cache follow the heads' width, not hidden.
TEST(Shapes, ExplicitHeadDimDrivesAttentionFlopsGemmsAndKvCache) {
  auto m = model_of(
      "{layers: 64, hidden: 5120, heads: 64, kv_heads: 8, head_dim: 128, ffn_hidden: 25600, vocab: 151936}");
  auto f = training_flops_per_token(m, 4096);
  EXPECT_DOUBLE_EQ(f.attention, 12.0 * 64 * 8192 * 4096);
  auto shapes = training_gemm_shapes(m, 4096, 2);
  EXPECT_DOUBLE_EQ(shapes[0][1], (8192 + 2 * 8 * 128) / 2.0);  // fused QKV
  EXPECT_DOUBLE_EQ(shapes[1][2], 8192 / 2.0);                  // O
  LlmInference w;
  w.model = m;
  w.precision = w.kv_precision = "bf16";
  w.input_tokens = 1024;
  w.output_tokens = 1024;
  w.offline = true;
  w.tp = 2;
  w.batch = 8;
  Calibration cal = flat_calibration(0.8);
  const auto& c = shipped_catalog();
  NodeFacts h100{&c.gpu("H100-SXM"), 8, 8, 8 * 400e9 / 8};
  auto sp = serving_point(w, h100, cal, 0.8, 0.8, 0.25, nullptr);
  ASSERT_TRUE(sp);
  EXPECT_DOUBLE_EQ(sp->kv_per_token, 2.0 * 64 * 8 * 128 * 2);
  EXPECT_DOUBLE_EQ(sp->decode.attention_flops, 4.0 * 64 * 8192 * 1536);
  EXPECT_DOUBLE_EQ(sp->prefill.attention_flops, 2.0 * 64 * 8192 * 1024 * 1024);
}

// DeepSeek-V3's latent attention on 8 B200: the KV cache is 61 x (512 + 64) elements per token, whole on each
// of the TP ranks (every rank's heads need the whole latent), so a decode step reads all of it on each GPU;
// decode runs the absorbed form, 2 x 61 x 128 x (2 x 512 + 64) FLOPs per context token; NVFP4 weights take
// 4.5 bits each and run at the B200's FP4 peak.
TEST(Shapes, LatentAttentionAndFp4Serving) {
  auto m = model_of(
      "{layers: 61, hidden: 7168, heads: 128, q_lora_rank: 1536, kv_lora_rank: 512, qk_rope_head_dim: 64, "
      "qk_nope_head_dim: 128, v_head_dim: 128, ffn_hidden: 2048, vocab: 129280, experts: 256, top_k: 8, "
      "shared_experts: 1}");
  LlmInference w;
  w.model = m;
  w.precision = "fp8";
  w.kv_precision = "fp8";
  w.input_tokens = 1024;
  w.output_tokens = 1024;
  w.offline = true;
  w.tp = 8;
  w.batch = 64;
  Calibration cal = flat_calibration(0.8);
  const auto& c = shipped_catalog();
  NodeFacts b200{&c.gpu("B200"), 8, 8, 8 * 400e9 / 8};
  auto sp = serving_point(w, b200, cal, 0.8, 0.8, 0.25, nullptr);
  ASSERT_TRUE(sp);
  EXPECT_DOUBLE_EQ(sp->kv_per_token, 61.0 * 576);
  EXPECT_EQ(sp->kv_shards, 1);
  EXPECT_DOUBLE_EQ(sp->decode.kv_read, 64 * 1536.0 * 61 * 576);
  EXPECT_DOUBLE_EQ(sp->decode.attention_flops, 2.0 * 61 * 128 * 1088 * 1536);
  EXPECT_DOUBLE_EQ(sp->decode.peak, 4500e12);
  w.precision = "nvfp4";
  auto fp4 = serving_point(w, b200, cal, 0.8, 0.8, 0.25, nullptr);
  ASSERT_TRUE(fp4);
  // NVFP4's 4.5 bits per weight (a scale per 16), the embedding and output head at 16 bits.
  EXPECT_DOUBLE_EQ(fp4->weights_per_gpu, (m.params * 4.5 / 8 + m.embedding_params() * (2 - 4.5 / 8)) / 8);
  EXPECT_DOUBLE_EQ(fp4->decode.peak, 9000e12);
  EXPECT_DOUBLE_EQ(fp4->prefill.peak, 9000e12);
  // Its attention reads the FP8 cache at the FP8 peak and efficiency, flash attention's share of it.
  const AttentionRate fp8_attention = attention_rate(*b200.gpu, "nvfp4", "fp8", false);
  const double flash = assumption::kAttentionRelative.value;
  EXPECT_DOUBLE_EQ(fp4->decode.attention_peak, 4500e12);
  EXPECT_DOUBLE_EQ(fp4->prefill.attention_peak, 4500e12);
  EXPECT_DOUBLE_EQ(fp4->decode.attention_eta, 0.8 * fp8_attention.eta_scale * flash);
  EXPECT_DOUBLE_EQ(fp4->prefill.attention_eta, 0.8 * fp8_attention.eta_scale * flash);
  EXPECT_DOUBLE_EQ(sp->decode.attention_peak, 4500e12);
  EXPECT_DOUBLE_EQ(sp->decode.attention_eta, 0.8 * flash);
  // The B200's published decode-attention rate caps the cache read below the HBM rate.
  EXPECT_DOUBLE_EQ(sp->decode.kv_rate,
                   std::min(sp->decode.hbm, assumption::kPublishedDecodeAttention[0].bytes_per_s));
  EXPECT_LT(sp->decode.kv_rate, sp->decode.hbm);
  EXPECT_GT(fp4->max_batch, sp->max_batch);  // the weights' saving goes to the KV cache
  // A grouped-query model splits its cache by KV head, at most kv_heads ways.
  EXPECT_EQ(kv_shards(model_of("{layers: 2, hidden: 1024, heads: 16, kv_heads: 4}"), 8), 4);
  EXPECT_EQ(kv_shards(model_of("{layers: 2, hidden: 1024, heads: 16, kv_heads: 4}"), 2), 2);
}

// Megatron-LM's conditions: sequences % (micro_batch x d) == 0; interleaved, micro-batches % p == 0.
TEST(Models, RunnableLayoutsSplitTheBatchWhole) {
  Layout l{4, 4, 2, 1, Recompute::none, 2, 1};
  EXPECT_TRUE(runnable(l, 24));   // 12 micro-batches per replica, 3 per stage group
  EXPECT_FALSE(runnable(l, 20));  // 10: not a multiple of p 4 with interleaving
  l.v = 1;
  EXPECT_TRUE(runnable(l, 20));
  EXPECT_FALSE(runnable(l, 21));    // 10.5 micro-batches
  EXPECT_FALSE(runnable(l, 20.5));  // not whole sequences
  LlmTraining w;
  w.seq_len = 4096;
  w.global_batch_tokens = 4194304;
  EXPECT_DOUBLE_EQ(runnable_batch_tokens(w), 4194304);
  w.layout.dp = 3;
  EXPECT_DOUBLE_EQ(runnable_batch_tokens(w), 1023.0 * 4096);
  w.layout = {};
  w.global_batch_tokens = 1000;  // less than a sequence: one
  EXPECT_DOUBLE_EQ(runnable_batch_tokens(w), 4096);
}

// LoRA on Llama-2-7B's q and v at rank 16: 16 x 32 layers x 2 x (4096 + 4096) = 8,388,608 adapter
// parameters (PEFT prints 4,194,304 trainable at rank 8). The frozen base keeps its 16-bit weights but no
// gradients or optimizer state, runs 4 FLOPs per weight and token instead of 6, and syncs only the adapters'
// gradients over data parallelism.
TEST(Models, LoraFreezesTheBase) {
  auto full = llama7b();
  auto w = full;
  w.finetune = {16, {"q", "v"}};
  const auto& m = w.model;
  double adapters = 16.0 * 32 * 2 * (4096 + 4096);
  EXPECT_DOUBLE_EQ(lora_params(m, w.finetune).total, adapters);
  auto f = training_flops_per_token(m, w.seq_len, w.finetune);
  double matrices = m.params - 32000.0 * 4096;
  EXPECT_DOUBLE_EQ(f.gemm, 4 * matrices + 6 * adapters);
  EXPECT_DOUBLE_EQ(f.logits, 4 * 32000.0 * 4096);
  EXPECT_DOUBLE_EQ(f.attention, training_flops_per_token(m, w.seq_len).attention);
  Layout l{1, 1, 8, 0, Recompute::none};
  auto mem = training_memory(m, w, l);
  EXPECT_DOUBLE_EQ(mem.weights, 2 * (m.params + adapters));
  EXPECT_DOUBLE_EQ(mem.gradients, 2 * adapters);
  EXPECT_DOUBLE_EQ(mem.optimizer, 12 * adapters);
  Calibration cal = flat_calibration(0.8);
  l.d = 512;
  auto base = training_step(m, full, a100_node(), cal, l);
  auto lora = training_step(m, w, a100_node(), cal, l);
  EXPECT_NEAR(lora.t_gemm / base.t_gemm, (4 * matrices + 6 * adapters) / (6 * matrices), 1e-12);
  EXPECT_LT(lora.t_dp, base.t_dp / 20);
  EXPECT_LT(lora.step_s, base.step_s);
  // Full recomputation redoes the frozen GEMMs' forward: half of their 4 FLOPs per weight.
  l.recompute = Recompute::full;
  auto rc = training_step(m, w, a100_node(), cal, l);
  EXPECT_NEAR(rc.t_recompute,
              rc.t_gemm * (1 - rc.gemm.time_share("logits")) / f.gemm_passes + rc.t_attention / 3, 1e-12);
  EXPECT_NEAR(f.gemm_passes, 2, 0.01);
}

// A frozen weight has no weight gradient, so Transformer Engine's linear keeps no copy of its input: LoRA on
// Llama-2-7B's q, k, v and o drops the FFN's input (2h per token, outside the TP region) and the down
// projection's input (2f, inside); adapting the FFN keeps them. FP8 weights (fp8_params) hold the base at
// 1 B per weight; an FP8-stored activation input halves SwiGLU's gate and up (2 x 2f -> 2 x f).
TEST(Models, LoraKeepsOnlyTheActivationsItsBackwardReads) {
  auto full = llama7b();
  full.precision = "fp8";
  auto w = full;
  w.finetune = {16, {"q", "k", "v", "o"}};
  const auto& m = w.model;
  double s = w.seq_len, h = m.hidden, f = m.ffn_hidden, t = 2;
  Layout l{2, 1, 4, 0, Recompute::none};
  ASSERT_TRUE(w.sequence_parallel);
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, full, l) - layer_activation_bytes(m, w, l),
                   s * (2 * h / t + 2 * f / t));
  w.finetune = {16, {"q", "k", "v", "o", "gate", "up", "down"}};
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, w, l), layer_activation_bytes(m, full, l));
  w.finetune = {16, {"o"}};
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, full, l) - layer_activation_bytes(m, w, l),
                   s * (4 * h / t + 2 * f / t));
  // Full recomputation keeps the layer's input alone, adapted or not.
  l.recompute = Recompute::full;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, w, l), layer_activation_bytes(m, full, l));
  l.recompute = Recompute::none;
  auto stored = full;
  stored.fp8_activation_input = true;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, full, l) - layer_activation_bytes(m, stored, l), s * 2 * f / t);
  // A GeLU FFN has no gate: an adapter on "gate" keeps nothing, one on "up" keeps the FFN's input.
  auto gelu = full;
  gelu.model.gated_ffn = false;
  auto gelu_lora = gelu;
  gelu_lora.finetune = {16, {"q", "k", "v", "o", "gate"}};
  EXPECT_DOUBLE_EQ(
      layer_activation_bytes(gelu.model, gelu, l) - layer_activation_bytes(gelu.model, gelu_lora, l),
      s * (2 * h / t + 2 * f / t));
  gelu_lora.finetune = {16, {"q", "k", "v", "o", "up"}};
  EXPECT_DOUBLE_EQ(
      layer_activation_bytes(gelu.model, gelu, l) - layer_activation_bytes(gelu.model, gelu_lora, l),
      s * 2 * f / t);
  // MLA: frozen q/k/v projections also drop the up-projections' inputs, the normed latents (2 B each).
  auto mla = full;
  mla.model.q_lora_rank = 1536;
  mla.model.kv_lora_rank = 512;
  mla.model.qk_nope_head_dim = 128;
  mla.model.qk_rope_head_dim = 64;
  mla.model.v_head_dim = 128;
  auto mla_lora = mla;
  mla_lora.finetune = {16, {"o", "gate", "up", "down"}};
  EXPECT_DOUBLE_EQ(layer_activation_bytes(mla.model, mla, l) - layer_activation_bytes(mla.model, mla_lora, l),
                   s * (2 * h + 2 * (1536 + 512)) / t);
  w.finetune = {16, {"q", "v"}};
  double adapters = lora_params(m, w.finetune).total;
  Layout dp{1, 1, 8, 0, Recompute::none};
  w.fp8_params = true;
  EXPECT_DOUBLE_EQ(training_memory(m, w, dp).weights, m.params + 2 * adapters);
  full.fp8_params = true;
  EXPECT_DOUBLE_EQ(training_memory(m, full, dp).weights, m.params);
}

// All-to-all context parallelism (Transformer Engine's AttnFuncWithCPAndQKVOA2A) sends (c - 1)/c of each
// rank's Q, K, V before the attention and of its output after it (4 all-to-alls), and in the backward the
// saved output, its gradient and dQ, dK, dV (5): s/c x (q + k + v + o + q + k + v + 2 o) x 2 B x (c - 1)/c
// per layer, all exposed; FP8 attention moves 1 B per element. Llama 2 7B (32 heads of 128, K and V as wide
// as Q) with its CP group of 8 in one 8-GPU node, then Llama 2 70B's GQA (64 query, 8 KV heads) at TP 2 x
// CP 4.
TEST(Models, AllToAllContextParallelismIsExposed) {
  auto w = llama7b();
  w.cp_comm = "a2a";
  auto cal = flat_calibration(0.8);
  cal.alltoall_nvlink.value = 0.5;  // the all-to-all's own measured efficiency, not the all-reduce's
  auto node = a100_node();
  Layout l{1, 1, 16, 1, Recompute::none};
  l.c = 8;
  auto st = training_step(w.model, w, node, cal, l);
  EXPECT_DOUBLE_EQ(st.cp_busbw, node.gpu->link_bandwidth * 0.5);
  const double latency = assumption::kCollectiveLatency.value;
  double tokens_mb = w.seq_len / 8.0, layer_mbs = 32 * st.micro_batches, width = 4096;
  double bytes = tokens_mb * (4 + 5) * width * 2 * 7.0 / 8;
  EXPECT_NEAR(st.t_cp, layer_mbs * (bytes / st.cp_busbw + 9 * latency), 1e-9 * st.t_cp);
  EXPECT_DOUBLE_EQ(st.t_cp_exposed, st.t_cp);
  // Full recomputation repeats the forward's four.
  Layout full = l;
  full.recompute = Recompute::full;
  auto rc = training_step(w.model, w, node, cal, full);
  EXPECT_NEAR(rc.t_cp, layer_mbs * (tokens_mb * 13 * width * 2 * 7.0 / 8 / st.cp_busbw + 13 * latency),
              1e-9 * rc.t_cp);
  // FP8 attention exchanges 1-B elements.
  auto fp8 = w;
  fp8.precision = "fp8";
  fp8.fp8_attention = true;
  EXPECT_NEAR(training_step(fp8.model, fp8, node, cal, l).t_cp,
              layer_mbs * (bytes / 2 / st.cp_busbw + 9 * latency), 1e-9 * st.t_cp);
  // No ring's per-step merging; each exchanged element copied into the sent layout and reordered on
  // arrival: 4 passes of 2 B over the 4 forward and 5 backward widths.
  auto gathered = w;
  gathered.cp_comm = "all_gather";
  double per_token_layer = 4 * 2 * (4 + 5) * width;
  double tokens_gpu = w.global_batch_tokens / l.gpus();
  EXPECT_NEAR(st.t_nongemm - training_step(w.model, gathered, node, cal, l).t_nongemm,
              tokens_gpu * 32 * per_token_layer / (node.gpu->memory_bandwidth * 0.8), 1e-9 * st.t_nongemm);
  auto gqa = w;
  gqa.model.hidden = 8192;
  gqa.model.heads = 64;
  gqa.model.kv_heads = 8;
  Layout l2{2, 1, 8, 1, Recompute::none};
  l2.c = 4;
  auto g = training_step(gqa.model, gqa, node, cal, l2);
  EXPECT_DOUBLE_EQ(g.cp_busbw, node.gpu->link_bandwidth * 0.5);  // TP 2 x CP 4 within the 8-GPU node
  double q = 64 * 128.0, kv = 2 * 8 * 128.0, o = 64 * 128.0;
  double bytes2 = w.seq_len / 4.0 * ((q + kv + o) + (q + kv + 2 * o)) * 2 / 2 * 3.0 / 4;
  EXPECT_NEAR(g.t_cp, 32 * g.micro_batches * (bytes2 / g.cp_busbw + 9 * latency), 1e-9 * g.t_cp);
}

// The planner keeps only layouts whose TP rank's heads split over the CP ranks under all-to-all context
// parallelism: 8 KV heads do not split over TP 2 x CP 8, which the ring runs.
TEST(Models, AllToAllContextParallelismNeedsTheHeadsToSplit) {
  auto w = llama7b();
  w.model.kv_heads = 8;
  w.layout.tp = 2;
  w.layout.cp = 8;
  auto cal = flat_calibration(0.8);
  auto node = a100_node();
  EXPECT_TRUE(choose_layout(w.model, w, node, cal, 512).layout);
  w.cp_comm = "a2a";
  EXPECT_FALSE(choose_layout(w.model, w, node, cal, 512).layout);
  w.layout.tp = 1;
  auto one = choose_layout(w.model, w, node, cal, 512);
  ASSERT_TRUE(one.layout);
  EXPECT_EQ(one.layout->t, 1);
}

// The p99s: Poisson quantiles as tabulated (Poisson(2): P(N <= 5) = 0.983, P(N <= 6) = 0.995); the wait's
// p99 is M/M/c's exponential tail past P(wait), halved for deterministic service; the TPOT's adds the p99
// count of prefills landing in one request's decode.
TEST(Models, RequestQueuePercentiles) {
  EXPECT_EQ(poisson_quantile(2, 0.99), 6);
  EXPECT_EQ(poisson_quantile(0.01, 0.99), 0);
  EXPECT_NEAR(poisson_quantile(10000, 0.99), 10000 + 2.326 * 100, 3);  // normal limit
  auto q = request_queue(2.6, 4, 0.1, 0.02, 50);
  ASSERT_TRUE(q.stable);
  ASSERT_GT(q.p_wait, 0.01);
  EXPECT_NEAR(q.wait_p99_s, 0.5 * std::log(q.p_wait / 0.01) / (4 / q.service_s - 2.6), 1e-12);
  EXPECT_GT(q.wait_p99_s, q.wait_s);
  EXPECT_NEAR(ttft_p99<double>(q) - ttft_at_rate<double>(q), q.wait_p99_s - q.wait_s, 1e-12);
  double n99 = poisson_quantile(2.6 * 50 * q.tpot_s, 0.99);
  EXPECT_DOUBLE_EQ(q.prefills_p99, n99);
  EXPECT_DOUBLE_EQ(q.tpot_p99_s, (50 * 0.02 + n99 * 0.1) / 50);
  EXPECT_GT(q.tpot_p99_s, q.tpot_s);
  // A queue that rarely waits has no p99 wait.
  EXPECT_EQ(request_queue(0.1, 64, 0.1, 0.02, 50).wait_p99_s, 0);
}

}  // namespace
}  // namespace mlbench::sizing::test
