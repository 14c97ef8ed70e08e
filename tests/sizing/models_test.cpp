#include <gtest/gtest.h>

#include "sizing/models.hpp"
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
  EXPECT_DOUBLE_EQ(m0.activations, 32 * 4096.0 * 4096 * 34 + 4096.0 * 32000 * 4);
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
  auto c = choose_layout(w.model, w, node, cal, 512, 0.25);
  ASSERT_TRUE(c.layout);
  EXPECT_EQ(c.layout->t * c.layout->p, 1);
  EXPECT_LE(c.memory.total(), 0.75 * 80e9);
  // One GPU cannot hold 16 B/param of 6.7e9 parameters: the breakdown explains why.
  auto none = choose_layout(w.model, w, node, cal, 1, 0.25);
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
  EXPECT_NEAR(st.step_s, compute * (1 + st.bubble) + st.t_tp + st.t_pp + st.t_dp_exposed, 1e-12 * st.step_s);
  // The sheet's step-time formula is that computation.
  auto step = step_time<Formula>(st);
  EXPECT_EQ(step.value(), st.step_s);
  EXPECT_EQ(step.symbolic(), "(t_gemm + t_attention + t_nongemm) x (1 + bubble) + t_pp + t_dp_exposed");
}

TEST(Models, PipelineBubbleFormula) {
  EXPECT_DOUBLE_EQ(pipeline_bubble(1, 1, 8), 0);
  EXPECT_DOUBLE_EQ(pipeline_bubble(16, 1, 1), 15);
  EXPECT_DOUBLE_EQ(pipeline_bubble(16, 2, 60), 15.0 / 120);
  EXPECT_EQ(virtual_stages(126, 16), 7);
  EXPECT_EQ(virtual_stages(32, 1), 1);
  EXPECT_EQ(virtual_stages(4, 8), 1);
}

// Korthikanti et al. 2022, activation bytes per layer: s b h (10 + 24/t + 5 a s/(h t)) with tensor
// parallelism, 34 s b h / t with sequence parallelism and selective recomputation, 2 s b h under full.
TEST(Models, ActivationBytesPerLayerFollowKorthikanti) {
  auto w = llama7b();
  w.attention = "standard";
  w.sequence_parallel = false;
  const auto& m = w.model;
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

TEST(Models, RailOptimisedFabric) {
  // METHODS: one leaf per rail per 32 nodes, spines = ceil(32 leaves / 64) for radix 64.
  auto f = rail_optimised_fabric(64, 8, 64);
  EXPECT_EQ(f.leaves, 16);
  EXPECT_EQ(f.spines, 8);
  auto g = rail_optimised_fabric(33, 8, 64);
  EXPECT_EQ(g.leaves, 16);
  EXPECT_EQ(rail_optimised_fabric(1, 8, 64).leaves, 0);
}

}  // namespace
}  // namespace mlbench::sizing::test
