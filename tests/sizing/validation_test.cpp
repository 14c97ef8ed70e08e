// The development cases of METHODS.md and issue 16, each run from its published set-up only (model, tokens or
// batch, sequence, hardware, count, precision, and the layout and recompute mode where the source states
// them) with the engine's default assumptions: no report, no per-case knob. Target: within +-15 % of the
// published figure; a case outside records its signed error and names the model term responsible. The
// whole table (published, model, signed error) is printed by the Table test.
#include <cmath>
#include <cstdio>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "sizing/assumptions.hpp"
#include "tests/sizing/test_util.hpp"

namespace mlbench::sizing::test {
namespace {

struct Case {
  const char* name;
  const char* file;
  const char* figure;  // sheet figure compared
  double published;
  const char* unit;
  const char* source;
  // Outside +-15 %: the signed error the engine gives today (a change shows up) and the term responsible.
  double recorded_error = 0;
  const char* responsible = nullptr;
};

// Llama 2: 256 nodes = 2,048 A100-80GB, the published set-up's best-sourced count, not a fit. The Llama 2
// paper does not state a GPU count; it names Meta's Research Super Cluster (RSC) and the production clusters
// (section 2.2.1). The model card: "Llama 2 was trained between January 2023 and July 2023", "a
// cumulative 3.3M GPU hours of computation on hardware of type A100-80GB" (Table 2's total: 3,311,616). Over
// 181 days (January to June, 4,344 h) that is 762 GPUs busy on average, over all 212 days (5,088 h) still
// 651: 512 cannot give it. The Llama 1 paper (Touvron et al. 2023, section 2.4): "When training a
// 65B-parameter model, our code processes around 380 tokens/sec/GPU on 2048 A100 GPU with 80GB of RAM"; the
// Llama 2 paper (section 2.2.1): RoCE "can scale almost as well as expensive Infiniband up to 2000 GPUs". At
// 2,048 GPUs the planner chooses TP 2 x DP 1024 for all four at MFU 0.515-0.528.
//
// Llama 2 34B: Table 2 gives the 34B "1038336 350", 350 W per GPU where 7B, 13B and 70B have 400 W, and
// section 2.2.1 says "RSC uses 400W while our production cluster uses 350W" (RoCE there, InfiniBand on RSC):
// the 34B ran on the production cluster. The paper measured that cluster as a whole: "On A100s with RoCE and
// GPU power capped at 350W, our optimized codebase reached up to 90% of the performance of RSC using IB
// interconnect and 400W GPU power." The engine has neither a power-cap nor a RoCE term: no published A100
// throughput-versus-power-limit curve was found to make the cap a general term from cap / TDP, and the 90 %
// mixes the cap with the interconnect. At that 90 % the sheet's 845,757 GPU-hours would be 939,730 (-9.5 %),
// and per training FLOP (the sheet's C) the 34B's published GPU-hours, 1.22x those of 70B, would be 1.10x, as
// 13B's are.
constexpr const char* kProductionCluster =
    "trained on the production cluster: 350 W cap + RoCE (Llama 2 paper, section 2.2.1 and Table 2), up to "
    "90 % of RSC's performance there; the model has no power-cap or RoCE term";

// MLPerf offline, TP 2 x 4 instances as NVIDIA ran it (inference_results_v4.0, closed/NVIDIA configs: TP 2,
// batch 896, --use_custom_all_reduce, 16,384 tokens per fused step). The tensor-parallel all-reduces pay the
// custom kernel's 3.7 us per call (assumption::kServingAllReduceLatency), not NCCL's assumed 20 us: -15.4 %
// to -13.4 %. Per request on one instance the sheet gives the prefill 38.8 ms (GEMMs 33.8 ms at the assumed
// FP8 eta_GEMM 0.71 + TP 5.0 ms) and 294 decode steps of 46.6 ms shared by 584 sequences, 23.5 ms (per step
// GEMMs 28.7, KV read 13.2, TP 4.8): 62.2 ms where the published 21,805.8 / 4 tokens/s leave 53.9 ms; the
// rest is the FP8 GEMM efficiency (48.3 ms of GEMMs per request at 0.71). With the shape model the decode
// GEMMs of the KV cache's 584 rows (NVIDIA's engines ran 896) quantize to 0.620 of the published cuBLAS FP8
// asymptote 0.709 (QKV 584 x 5,120 x 8,192: 100 tiles of 128 x 256 for 132 SMs, 0.691): -16.6 %.
constexpr const char* kMlperfDecodeShapes =
    "decode GEMMs at the KV cache's 584 rows (NVIDIA ran batch 896): tile/wave quantization 0.62 of "
    "the published cuBLAS H100 FP8 asymptote 0.709";

constexpr const char* kLlama2 = "Llama 2 paper, Table 2";
constexpr const char* kKorthikanti = "Korthikanti 2022, Table 5";
constexpr const char* kLlama3 = "Llama 3 paper, Table 4 (seq 131,072 row)";
constexpr const char* kTrtLlm = "TensorRT-LLM A100 performance table";

constexpr Case kCases[] = {
    {"Llama 2 7B", "llama2-7b-a100.yaml", "gpu_hours", 184320, "GPU-h", kLlama2},
    {"Llama 2 13B", "llama2-13b-a100.yaml", "gpu_hours", 368640, "GPU-h", kLlama2},
    {"Llama 2 34B", "llama2-34b-a100.yaml", "gpu_hours", 1038336, "GPU-h", kLlama2, -0.185,
     kProductionCluster},
    {"Llama 2 70B", "llama2-70b-a100.yaml", "gpu_hours", 1720320, "GPU-h", kLlama2},
    {"22B full recompute", "korthikanti-22b-full.yaml", "step_s", 1.42, "s/iter", kKorthikanti},
    {"175B full recompute", "korthikanti-175b-full.yaml", "step_s", 18.13, "s/iter", kKorthikanti},
    {"530B full recompute", "korthikanti-530b-full.yaml", "step_s", 49.05, "s/iter", kKorthikanti},
    {"1T full recompute", "korthikanti-1t-full.yaml", "step_s", 94.42, "s/iter", kKorthikanti},
    {"22B SP + selective", "korthikanti-22b-seqsel.yaml", "step_s", 1.10, "s/iter", kKorthikanti},
    {"175B SP + selective", "korthikanti-175b-seqsel.yaml", "step_s", 13.75, "s/iter", kKorthikanti},
    {"530B SP + selective", "korthikanti-530b-seqsel.yaml", "step_s", 37.83, "s/iter", kKorthikanti},
    {"1T SP + selective", "korthikanti-1t-seqsel.yaml", "step_s", 71.49, "s/iter", kKorthikanti},
    {"MLPerf v4.0 Llama-2-70B offline 8x H100", "mlperf-llama2-70b-offline.yaml", "tokens_per_s_node",
     21805.8, "tokens/s", "MLPerf Inference v4.0", -0.166, kMlperfDecodeShapes},
    {"Llama 3 405B, 128K, TP8 CP16 PP16 DP8, 16,384 H100", "llama3-405b-h100-cp16.yaml",
     "model_tflops_per_gpu", 380, "TFLOP/s per GPU", kLlama3},
    {"TRT-LLM LLaMA-7B fp16 A100, batch 256, 128/128", "trtllm-llama7b-a100-b256-128-128.yaml",
     "tokens_per_s_instance", 5353, "tokens/s", kTrtLlm},
    {"TRT-LLM LLaMA-7B, batch 32, 128/2048", "trtllm-llama7b-a100-b32-128-2048.yaml", "tokens_per_s_instance",
     1518, "tokens/s", kTrtLlm},
    {"TRT-LLM LLaMA-7B, batch 32, 2048/128", "trtllm-llama7b-a100-b32-2048-128.yaml", "tokens_per_s_instance",
     547, "tokens/s", kTrtLlm},
    {"TRT-LLM LLaMA-7B, batch 16, 2048/2048", "trtllm-llama7b-a100-b16-2048-2048.yaml",
     "tokens_per_s_instance", 613, "tokens/s", kTrtLlm},
};

double predicted(const Case& c) { return plan_file(data_dir() / c.file).figures.at(c.figure).get<double>(); }

class Validation : public ::testing::TestWithParam<Case> {};

TEST_P(Validation, WithinFifteenPercentOfThePublishedFigure) {
  const Case& c = GetParam();
  double model = predicted(c);
  double error = model / c.published - 1;
  RecordProperty("signed_error", fmt::format("{:+.1f} %", 100 * error));
  if (!c.responsible) {
    EXPECT_LE(std::abs(error), 0.15) << c.name << ": model " << model << " " << c.unit << ", published "
                                     << c.published << " (" << c.source << ")";
  } else {
    EXPECT_NEAR(error, c.recorded_error, 0.02) << c.name << " outside +-15 %, from " << c.responsible;
  }
}

INSTANTIATE_TEST_SUITE_P(Published, Validation, ::testing::ValuesIn(kCases));

// The table of the README and the closing note, from the same runs.
TEST(ValidationTable, PrintsEveryCaseWithItsSignedError) {
  std::string table =
      "| case | published | model | error | term outside +-15 % | source |\n|---|---:|---:|---:|---|---|\n";
  for (const auto& c : kCases) {
    double model = predicted(c);
    table +=
        fmt::format("| {} | {:.4g} {} | {:.4g} | {:+.1f} % | {} | {} |\n", c.name, c.published, c.unit, model,
                    100 * (model / c.published - 1), c.responsible ? c.responsible : "-", c.source);
  }
  std::fputs(table.c_str(), stdout);
  SUCCEED();
}

// Megatron-LM runs the backward's column-parallel collectives under their GEMMs: 2 of the 5 tensor-parallel
// reductions per layer with SP + selective recompute, 2 of the 6 with full recompute and no SP, hidden at the
// overlap assumption; the rest of the traffic stays exposed.
TEST(ValidationTable, TensorParallelBackwardCollectivesOverlapTheirGemms) {
  auto exposed_share = [](const char* file) {
    auto s = plan_file(data_dir() / file);
    for (const auto& l : s.lines)
      if (l.item == "Tensor-parallel traffic")
        return std::stod(l.driver.substr(l.driver.find("; ") + 2)) / l.quantity;
    ADD_FAILURE() << file << ": no tensor-parallel line";
    return 0.0;
  };
  double hidden = assumption::kOverlapHidden.value;
  EXPECT_NEAR(exposed_share("korthikanti-1t-seqsel.yaml"), 1 - hidden * 2 / 5, 1e-3);
  EXPECT_NEAR(exposed_share("korthikanti-1t-full.yaml"), 1 - hidden * 2 / 6, 1e-3);
}

// The "Decode step (TPOT)" line's driver text of a case's sheet; empty (and a failure) when it has none.
std::string decode_step_driver(const char* file) {
  for (const auto& l : plan_file(data_dir() / file).lines)
    if (l.item == "Decode step (TPOT)") return l.driver;
  ADD_FAILURE() << file << ": no decode step line";
  return "";
}

// The TensorRT-LLM cases' decode steps read weights and KV cache at the A100-80GB's published BabelStream
// triad rate (1,724.8 GB/s), not 0.90 of its datasheet: that took the two long-output cases from +17 % to
// +10 %.
TEST(ValidationTable, TensorRtLlmDecodeReadsAtThePublishedA100Bandwidth) {
  const std::string driver = decode_step_driver("trtllm-llama7b-a100-b32-128-2048.yaml");
  EXPECT_NE(driver.find("HBM 1724.80 GB/s"), std::string::npos) << driver;
}

// MLPerf's decode step: 2 x 80 all-reduces of 584 tokens x 8192 x 2 B at TP 2, each the custom kernel's
// 3.7 us + 9.57 MB / (450 GB/s x 0.81) = 160 x 29.9 us = 4.8 ms (NCCL's assumed 20 us per call gave 7.4 ms).
TEST(ValidationTable, ServingAllReducesPayTheCustomKernelsLatency) {
  const std::string driver = decode_step_driver("mlperf-llama2-70b-offline.yaml");
  EXPECT_NE(driver.find("TP all-reduces 0.0048 s"), std::string::npos) << driver;
}

// The Llama 2 runs are planned at 256 nodes (2,048 GPUs) with the GEMM efficiency assumed (no report).
TEST(ValidationTable, LlamaTwoUsesTheAssumedGemmEfficiency) {
  EXPECT_EQ(plan_file(data_dir() / "llama2-7b-a100.yaml").figures.at("gemm_source").get<std::string>(),
            "assumed");
}

// The four Llama 2 cases run on the 2,048 GPUs of Llama 1's 65B run.
TEST(ValidationTable, LlamaTwoRunsOnTwoThousandFortyEightGpus) {
  for (const char* file :
       {"llama2-7b-a100.yaml", "llama2-13b-a100.yaml", "llama2-34b-a100.yaml", "llama2-70b-a100.yaml"}) {
    auto s = plan_file(data_dir() / file);
    EXPECT_EQ(s.figures.at("gpus").get<double>(), 2048) << file;
    EXPECT_EQ(s.figures.at("nodes").get<double>(), 256) << file;
  }
}

// MFU is predicted, not a constant: the Llama 2 sizes land on different values (13B 0.528, 70B 0.517 at 2,048
// GPUs; 7B and 70B happen to meet at 0.517 there).
TEST(ValidationTable, MfuDiffersBetweenModels) {
  double a = plan_file(data_dir() / "llama2-13b-a100.yaml").figures.at("mfu").get<double>();
  double b = plan_file(data_dir() / "llama2-70b-a100.yaml").figures.at("mfu").get<double>();
  EXPECT_GT(std::abs(a - b), 1e-3);
}

}  // namespace
}  // namespace mlbench::sizing::test
