// Published runs, each from its published set-up only (model, tokens or batch, sequence, hardware, count,
// precision, and the layout and recompute mode where the source states them) with the engine's default
// assumptions: no report, no per-case knob. The development cases of METHODS.md "Sizing validation" first,
// then the cases found since: training throughput on H100/B200 (FP8 and BF16), whole-run GPU-hours, A100 runs
// from before 2023, serving throughput and latency (offline and latency-bound, dense and MoE, TP 1-8), KV
// capacity and weights in memory, checkpoint sizes; each workload file quotes its source. Target: within +-15
// % of the published figure; a case outside records its signed error and names the model term responsible.
// The whole table (published, model, signed error, term, source) is printed by the Table test.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <variant>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "sizing/assumptions.hpp"
#include "sizing/models.hpp"
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
// 2,048 GPUs the planner chooses TP 2 x DP 1024 for all four at MFU 0.540-0.574.
//
// Llama 2 34B: Table 2 gives the 34B "1038336 350", 350 W per GPU where 7B, 13B and 70B have 400 W, and
// section 2.2.1 says "RSC uses 400W while our production cluster uses 350W" (RoCE there, InfiniBand on RSC):
// the 34B ran on the production cluster. The paper measured that cluster as a whole: "On A100s with RoCE and
// GPU power capped at 350W, our optimized codebase reached up to 90% of the performance of RSC using IB
// interconnect and 400W GPU power." The engine has neither a power-cap nor a RoCE term: no published A100
// throughput-versus-power-limit curve was found to make the cap a general term from cap / TDP, and the 90 %
// mixes the cap with the interconnect. At that 90 % the sheet's 758,838 GPU-hours would be 843,154 (-18.8 %),
// and per training FLOP (the sheet's C) the 34B's published GPU-hours, 1.22x those of 70B, would be 1.10x, as
// 13B's are.
constexpr const char* kProductionCluster =
    "trained on the production cluster: 350 W cap + RoCE (Llama 2 paper, section 2.2.1 and Table 2), up "
    "to 90 % of RSC's performance there; the model has no power-cap or RoCE term, and like the other "
    "Llama 2 runs its step reduces bf16 gradients (none published) at the published A100 cuBLAS asymptote";

// Llama 2 13B reduces its gradients in bf16 as the workload's `optimizer: adam` (16 B/param) says; the paper
// states neither the gradient precision nor the reduce dtype.
constexpr const char* kBf16Gradients =
    "faster than published: bf16 gradient sync over 1,024 data-parallel ranks (the workload's optimizer "
    "adam; the paper gives no gradient precision) at the published A100 cuBLAS asymptote; whole-run "
    "GPU-hours also hold restarts and evaluation, which a step model leaves out";

// MLPerf offline, TP 2 x 4 instances as NVIDIA ran it (inference_results_v4.0, closed/NVIDIA configs: TP 2,
// batch 896, --use_custom_all_reduce, 16,384 tokens per fused step) on TensorRT-LLM as NVIDIA's harness sets
// it (max_util, kvcache_free_gpu_mem_frac 0.90 on Hopper): the KV cache holds 623 sequences of the mean
// 831-token context (the 896 is a cap the cache does not reach) and the decode step is compute-bound. The
// tensor-parallel all-reduces take TensorRT-LLM's measured time per call
// (assumption::kPublishedServingAllReduce); the decode GEMMs pay the unhidden share of their weight read
// (assumption::kGemmUnhiddenShare, fitted to DeepGEMM's published tables). The case is prefill-heavy, and
// NVIDIA's engines fuse the decode rows into the prefill's 16,384-token steps, which the model times apart.

// The terms responsible for the cases outside +-15 % today, named after the sizing issue's mechanisms (the
// errors move as those land; each case records its error so that a change shows up).
constexpr const char* kHeadroomRecomputeLlama3Run =
    "the whole run at the main stage's set-up (sequence 8,192 on 16,384 GPUs, where the step model is 12.5 % "
    "below the paper's 400 TFLOP/s row): the batch ramp, the 128K-context stage and the annealing are not "
    "modelled";
// The Llama 3.1 model card gives each size's GPU-hours, not its set-up; at the 405B's main-stage set-up the
// smaller models' hours imply far less of the GPU than the 405B's do.
constexpr const char* kLlama31SmallRuns =
    "faster than published: the model card's hours give 2,854 tokens/s per GPU for the 8B and 595 for the "
    "70B over ~15T tokens, 6 N per token at 14 % and 25 % of the H100's dense BF16 peak, where the 405B's "
    "(15.6T tokens) give 35 %; neither run's GPU count, batch nor layout is published (the 405B's 16,384 "
    "GPUs and 16M-token batch assumed, the planner's layout), nor what the hours hold besides the main "
    "stage (the 128K-context stage and the annealing are not modelled)";
// The 26.x tables' rows of MoE models with many small experts on DGX-B200 and DGX-H100 come from the 26.04.01
// container; the later 26.08 rows of the same models on GB200 run far faster on the same B200-class GPU.
constexpr const char* kSmallExpertMoe2604 =
    "MoE of many small experts (128 routed, top 4-8, expert FFN 768-2,880) from the 26.04.01 container, the "
    "last to run these models on the B200 (and GPT-OSS on the H100 and in BF16): the model has no cost per "
    "MoE layer on the host (the dispatcher's synchronisation, per-expert launches); that release's GB200 "
    "Qwen3-30B-A3B row (26,112 tokens/s/GPU, MBS 4, EP 8, MXFP8) runs at 0.65x the 26.08 one (39,936) on "
    "the same GPU and layout, where the model lands within (-12.6 %), the current recipes running "
    "full-iteration CUDA graphs over a sync-free expert buffer and overlapping the all-to-all "
    "(Megatron-Bridge "
    "perf_recipes, _enable_hybridep_full_iteration_mxfp8); GPT-OSS stays too fast on every "
    "system, at 26.08 too (+30 %), its sink attention and alternate 128-token windows taken at flash "
    "attention's rate";
constexpr const char* kGptOss2608 =
    "too fast: of the published 2.86 s step (1,280 x 4,096 tokens over 64 GPUs at 28,672 tokens/s each) the "
    "model accounts for 2.20 s: GEMMs 0.94 s, attention 0.17 s, non-GEMM 0.70 s, the EP all-to-all 0.38 s; "
    "GPT-OSS's attention sinks and alternate 128-token windows run at flash attention's rate (no rate of a "
    "sink attention kernel is published), and as in the other MoE rows no per-layer host cost is modelled";
constexpr const char* kQwen235H100Ep =
    "too slow: the model's all-to-all over the fabric (EP 32 over four 8-GPU nodes) takes 54 s of its 92 s "
    "step unhidden, 59 %, as in the 25.11 row (13.6 of 23.2 s), which lands within at a published rate 8 % "
    "lower; both recipes overlap the all-to-all with other micro-batches' compute (moe_a2a_overlap: "
    "Megatron-Bridge v0.2.1 and v0.4.0 performance configs), which a workload cannot state, so the 25.11 row "
    "lands within by other terms offsetting";
constexpr const char* kNvfp4Training =
    "too slow: the NVFP4 GEMMs run at 0.41 of the GB200's FP4 peak, taken from a serving benchmark of a "
    "16384x6144x4096 CUTLASS GEMM (vLLM PR #20646) scaled by the FP8 asymptotes' ratio; NVIDIA's "
    "aiconfigurator measures TensorRT-LLM's NVFP4 GEMM on the GB200 at 0.30-0.49 of it (median 0.41) over "
    "GEMMs of 8,192-16,384 rows and 4,096-51,200 columns (quantizing its input); to reach the table's 1,166 "
    "tokens/s the GEMMs would need about 0.63, given the step's other "
    "terms. Transformer Engine's NVFP4 training GEMM rate is not published; the 70B's NVFP4 row (26.04.01) "
    "lands within";
constexpr const char* kWholeRun =
    "faster than published: whole-run GPU-hours also hold what a step model leaves out (restarts after "
    "failures, evaluation, the batch ramp); the step runs at the published A100 cuBLAS asymptote with the "
    "gradients in the optimizer's precision (none published)";
constexpr const char* kSmallGemms =
    "small models at TP 1-2 (hidden 2,048 / 4,096): the shape model puts their GEMMs near the published "
    "H100 asymptote; the non-GEMM kernels and per-layer launch costs that weigh more in a small layer are "
    "not modelled (no published per-kernel figure found); gradients are reduced in fp32, as Megatron-LM "
    "does for bf16";
constexpr const char* kOutputStage =
    "too slow by the 7 % its last pipeline stage adds: 128 layers on 64 stages leave 2 per stage, and the "
    "last "
    "also runs the output layer's GEMMs and cross-entropy (2022 Megatron-LM splits the layers evenly; the "
    "paper "
    "names no other split); its full-recompute twin, with the same stages, lands at +12.6 %";
constexpr const char* kMaxNumSeqs =
    "the batch is capped at vLLM's max_num_seqs 256 (the KV cache holds ~1,977 sequences): a 3B model's GPU "
    "step of ~14 ms; the 999-request job's ramp and tail (131 output tokens only on average) and vLLM's "
    "per-step CPU work (scheduling, sampling, detokenising) are not modelled";

constexpr const char* kMoeTraining =
    "the step (9.3 s: GEMMs 2.1, attention 1.6, non-GEMM 3.1, EP all-to-all 2.0) is 2.7x shorter than "
    "published (24.9 s) for 768 layer passes of 8,192 tokens per GPU (one layer per virtual stage, VP 24): "
    "the 16 local experts' grouped GEMMs of 4,096 rows are compute-bound at 0.70 of FP8 peak and routing is "
    "forced balanced; host-side costs of small-expert MoE (the alltoall dispatcher's device-to-host sync per "
    "MoE layer, per-expert FP8 quantize and GEMM launches: Megatron-LM's MoE README names CPU overhead a "
    "bottleneck) are not modelled";
// The NeMo performance summaries' held-out rows (docs/notes/2026-12-06-training-misses.md).
constexpr const char* kSmallExpertMoe =
    "MoE of many small experts (128-256 routed, top 4-8, expert FFN 768-2,880) on B200: the grouped expert "
    "GEMMs are taken at the shape model's efficiency and routing is forced balanced; the host-side costs per "
    "MoE layer (the alltoall dispatcher's device-to-host sync, per-expert quantize and GEMM launches) are "
    "not modelled, as in the H100 Qwen3 30B-A3B case (the same table's later releases: Qwen3 30B-A3B on the "
    "same 8 B200 ran 9,691 tokens/s/GPU at micro-batch 1 in 26.02 and 26,695 at micro-batch 4 in 26.02.01, "
    "whose recipe also changed the dispatcher to HybridEP and widened the CUDA graphs); DeepSeek-V3's "
    "multi-token prediction cannot be stated";
constexpr const char* kFp8MxRows =
    "the table's FP8-MX figures run 3-6 % below its FP8-CS ones on the same Blackwell runs (Llama 3 8B: "
    "29,521 against 30,624 tokens/s/GPU on B200, 29,789 against 31,508 on GB200; 405B: 624 against 661), "
    "where the model's MXFP8 run, its scales taken in the quantizing kernel and no amax pass, is as fast "
    "as the current-scaling one; no published MXFP8 against per-tensor FP8 GEMM rate on Blackwell is in "
    "the catalog";
constexpr const char* kSmallExpertMoeGb200 =
    "MoE of many small experts (128-256 routed, top 4-8) on GB200, where the table's recipes run the "
    "HybridEP dispatcher with CUDA graphs over the router and its preprocessing (Megatron-Bridge v0.2.0 "
    "workload_base_configs.py) and so land nearer than the B200 rows; the grouped expert GEMMs at the "
    "shape model's efficiency, forced-balanced routing, no host-side cost per MoE layer modelled, and the "
    "recipes' partial recomputation (DeepSeek-V3's MLA up projections, GPT-OSS's norms and MoE activation) "
    "is not stated, the engine choosing none";
constexpr const char* kFp4Serving =
    "decode-heavy (128 / 2,048 tokens) at TP 1: NVFP4 GEMMs at the published B200 CUTLASS figure, "
    "attention at the FP8 cache's peak and asymptote, the KV read at the published trtllm-gen decode rate "
    "(measured at 4,096-token contexts); the per-step host work is not modelled; the FP8 rows of the same "
    "table run a median +8 % fast";
constexpr const char* kServingReserve =
    "with vLLM's fused-MoE intermediates in the profile peak (0.8 GiB more), 4.4 GiB remain: the profile "
    "pass's non-torch memory and CUDA graphs beyond the engine's defaults and the LMCache KV connector the "
    "run "
    "loaded; the log does not break them down";

constexpr const char* kMlperfDecodeShapes =
    "decode at the batch NVIDIA's TensorRT-LLM harness admits (max_util, 0.90 of the free memory: ~640 "
    "sequences; the summary gives no server batch or token settings), its GEMMs at the published sustained "
    "cuBLASLt H100 FP8 asymptote 0.698 x tile/wave quantization plus the unhidden share of the weight read "
    "(DeepGEMM fit); "
    "decode and prefill are timed apart, where TensorRT-LLM runs them in mixed steps (timing the offline "
    "case's steps that way gains it only 1 %)";
constexpr const char* kMlperfOffline =
    "prefill-heavy (684 input / 294 output tokens): the prefill at the sustained FP8 asymptote x tile "
    "quantization with the unhidden share of its weight read, the 623-row decode step with the GEMMs' "
    "unhidden share (DeepGEMM fit), the elementwise passes and TensorRT-LLM's measured TP 2 all-reduce, "
    "where NVIDIA's harness runs the C++ runtime and its custom all-reduce plugin; decode and prefill are "
    "timed apart, where NVIDIA's engines run mixed steps (decode rows and prompt chunks in one GEMM pass, "
    "one weight read): timed that way the case gained about 1 point, so the gap is not the schedule";

constexpr const char* kLlama2 = "Llama 2 paper, Table 2";
constexpr const char* kKorthikanti = "Korthikanti 2022, Table 5";
constexpr const char* kLlama3 = "Llama 3 paper, Table 4 (seq 131,072 row)";
constexpr const char* kTrtLlm = "TensorRT-LLM A100 performance table";
// Every multi-head-attention row of TensorRT-LLM v0.9.0's peak-throughput tables (GPT-J 6B and Llama 2 7B on
// H200, H100, L40S and A100, static batches), none chosen by its error; the A100 Llama 2 7B rows repeat the
// setups of the older A100 rows above and are not taken twice. Its grouped-query rows (Mistral 7B, Mixtral
// 8x7B, Llama 2 70B, Falcon 180B) are left out: the page runs the GQA decode kernel (XQA, experimental and
// off by default at v0.9.0) only "where our tests displayed performance benefits" without naming the
// models, and the masked multi-head attention kernel otherwise used reads each KV head once per query head,
// so their decode attention is not stated.
// TensorRT-LLM's v0.17 throughput table (docs/source/performance/perf-overview.md as v0.17 published it:
// trtllm-bench build with the dataset's tuning heuristics and trtllm-bench throughput over the C++ executor;
// gptManagerBenchmark on the GH200), every row on a catalog GPU but the L40S's TP 8 ones, which need an
// 8-GPU L40S server the catalog does not hold.
constexpr const char* kTrtPerf017 =
    "TensorRT-LLM perf-overview.md v0.17 table, every row on catalog GPUs but the L40S's TP 8 ones";
// The v0.17 page on its own multi-GPU rows: "We observed a performance issue on NCCL 2.23.4, which can be
// workarounded by setting NCCL_P2P_LEVEL to SYS ... Multi-GPU cases could be affected due to the issue"
// (Known AllReduce performance issue on AMD-based CPU platforms).
constexpr const char* kTrt017MixtralTp =
    "too fast on the H100 and H200 at TP 2-8 (median +21 % over their 72 rows): the v0.17 build gives no "
    "expert-parallel size, so TensorRT-LLM splits every expert over the TP group, whose measured fused-MoE "
    "op the model takes at 1.2.0rc5, the oldest release measured on Hopper; the same rows on the A100, at "
    "its one collection, 1.0.0, land within (36 of 36); the page warns that an NCCL 2.23.4 all-reduce issue "
    "on AMD-CPU hosts may slow its multi-GPU rows";
constexpr const char* kTrt017AllReduce =
    "too fast at TP 2-8 (median +8 % over the table's 88 dense multi-GPU rows on NVLink, +16 % over Llama "
    "3.1 70B's TP 8 rows on H100 and H200): the step's all-reduces take TensorRT-LLM 1.2.0rc5's measured "
    "AllReduce (1.0.0's on the A100), 39 ms of the 102 ms decode step of Llama 3.1 70B at TP 8 on the H200 "
    "(128/2048, batch 2,799); the page warns that an NCCL 2.23.4 all-reduce issue on AMD-CPU hosts may slow "
    "its multi-GPU rows, and v0.17's all-reduce is measured in no published source";
constexpr const char* kTrt017Pcie =
    "too fast at TP 4 over PCIe (the L40S has no NVLink): the all-reduces take NCCL's collective latency "
    "plus their bytes at the PCIe Gen4 x16 rate x the NVLink all-reduce efficiency, no published L40S "
    "all-reduce measurement being at hand (Llama 3.1 70B 128/2048: 2,666 against 1,943 tokens/s); the page "
    "warns that NCCL 2.23.4 on AMD-CPU hosts, which stops peer-to-peer traffic through the CPU for more than "
    "two GPUs, may slow its multi-GPU rows";
constexpr const char* kTrt017Hbm =
    "too fast on the H200 and GH200 (median +10 % over their 71 one-GPU rows): the page's runs gain 1.20x "
    "(H200) and 1.03x (GH200) over its H100 runs on Llama 3.1 8B 128/2048, where the model, whose larger "
    "HBM admits larger batches and whose decode reads at each GPU's published BabelStream triad (86 % of "
    "the H200's datasheet, 89 % of the H100's; the GH200 has none published and takes 0.90), gains 1.29x "
    "and 1.20x; the GH200's GEMMs run at its short-run MAMF figure (0.776 of the FP8 peak, the H100's "
    "sustained 0.698), no sustained one being published";
constexpr const char* kTrt017Short =
    "too fast on 128/128, the page's run of 30,000 requests of 256 tokens: a sequence lives 128 steps, so "
    "every step admits prompts and retires sequences, and the executor's per-request host work, which the "
    "model leaves out, weighs most; the same GPUs' other one-GPU rows land within (67 of the 70 one-GPU "
    "rows on H100, L40S and A100, median +4 %)";
constexpr const char* kTrtPerf09 = "TensorRT-LLM performance.md v0.9.0, multi-head-attention rows";
constexpr const char* kTrt09Mmha =
    "faster than published on a decode step that reads the KV cache at the HBM rate: TensorRT-LLM v0.9.0 "
    "decodes multi-head attention in its masked multi-head attention kernel (MMHA), whose read rate no "
    "source publishes, and the page's H200 rows run 4-25 % above its H100 rows where HBM gives 1.43x, so "
    "the kernel, not HBM, bounds these steps";
constexpr const char* kNemo = "Megatron-Bridge performance summary, NeMo 25.11 pre-training table";
constexpr const char* kNemo2608 = "Megatron-Bridge performance summary, NeMo 26.08 pre-training tables";
constexpr const char* kNemoArchive26 =
    "Megatron-Bridge performance summary archive, NeMo 26.04.01 and 26.06 (pre-training, SFT, LoRA tables)";
constexpr const char* kMlperfTraining40 =
    "MLPerf Training v4.0 results (mlcommons/training_results_v4.0): NVIDIA's logs and launch configs";
constexpr const char* kMlperf40LoraCp =
    "too fast under v4.0's context parallelism: the same layout (TP 4 with sequence parallelism, CP 2) on "
    "the same cluster steps 0.638 s on 64 and 0.675 s on 1,024 H100 in v4.0 against 0.541 and 0.545 s in "
    "v4.1, where the 8-GPU runs without CP agree (3.714 against 3.665 s); the model holds CP 2 at the "
    "ring's rate, at which the v4.1 rows land within";
constexpr const char* kMlperf405bB200 =
    "too fast on the B200 at the 405B's TP 4 PP 8 CP 2: the same layout lands at +11.0 % on NeMo's 128-GPU "
    "row, while the H100 runs of the model land at -11 to -3 % (MLPerf 5.0, TP 8 PP 8 CP 2) and MLPerf's "
    "GB200 ones at +8 to +13 % (NeMo's GB200 FP8 and MXFP8 rows at -4 to +4 %), under one training GEMM "
    "derate (0.85) for every GPU; from 256 to 448 GPUs (DP 4 to 7) the published rate falls 1 % (666 to 659 "
    "tokens/s/GPU) and the model's 0.1 %";
constexpr const char* kMlperfTraining41 =
    "MLPerf Training v4.1 results (mlcommons/training_results_v4.1): NVIDIA's logs and launch configs";
constexpr const char* kMlperfTraining50 =
    "MLPerf Training v5.0 results (mlcommons/training_results_v5.0): the submitters' logs and launch configs";
constexpr const char* kMlperfTraining51 =
    "MLPerf Training v5.1 results (mlcommons/training_results_v5.1): the submitters' logs and launch configs";
constexpr const char* kDeepSeekEpOverlap =
    "too slow: the model exposes the whole expert-parallel all-to-all, 14.6 s of its 25.5 s step across 4 "
    "nodes of 8 x NDR 400, where the published layout's recipe (Megatron-Bridge's May 2026 "
    "DEEPSEEK_V3_PRETRAIN_CONFIG_B200_FP8_MX_V2) sets moe_a2a_overlap (Megatron-LM's "
    "overlap_moe_expert_parallel_comm), running each micro-batch's all-to-all under an adjacent one's "
    "compute; modelled as hidden, that overlap sent all six other rows whose recipes set it further from "
    "their published figures (five of them beyond 15 %), and Megatron-LM's GB200 account finds its host "
    "cost outweighs it there";
constexpr const char* kMlperf8bTwoNodes =
    "too fast across two nodes without context parallelism: University-of-Florida's published step grows "
    "5.5 % from 8 to 16 GPUs (0.544 to 0.574 s at the same tokens per GPU; Dell's 16-GPU runs 0.576-0.582 "
    "s) where the model's grows 0.3 %, its gradient sync over the fabric (63 ms) hidden under the last "
    "micro-batch's backward and the next step's first forward but 6 ms";
// MLPerf Training's strong-scaling rows: context parallelism splits each sequence, leaving each GPU a
// fraction of the tokens per step.
constexpr const char* kMlperfSmallSteps =
    "too fast where each GPU holds half a sequence or less per step (context parallelism, a batch of one "
    "sequence per CP group): a line through the B200 series' 16- and 32-GPU steps (0.574 s at 16,384 tokens "
    "per GPU, 0.188 s at 4,096 under CP 2) gives 31 us per token and GPU plus 59 ms per step, the 64- and "
    "128-GPU steps staying at 0.189-0.193 s and the 256-GPU one reaching 0.221 s; at 32 B200 (DP 16 x CP 2) "
    "the model's step is 0.138 s, its gradient sync over the 32 data and context ranks 65 ms at the nodes' "
    "8 x NDR 400 (2 B gradients reduce-scattered, the FP8 weights gathered at 1 B), 7 ms of it exposed; the "
    "logs give step times only, not what the 59 ms is";
constexpr const char* kMlperf8bH100 =
    "too fast on H100 at one micro-batch per data-parallel replica per step, as the Blackwell rows under "
    "context parallelism: Cisco's 64-H100 step is 0.721 s for 8,192 tokens per GPU where the model's is "
    "0.593 s (its gradient sync, 66 ms, hidden but 7 ms), and its 128-H100 TP 2 step 0.485 s where the "
    "model's is 0.325 s; this older config lineage runs delayed scaling without CUDA graphs, and the logs "
    "give step times only";
constexpr const char* kMlperfLora512H200 =
    "too fast on 512 H200, the one Hopper LoRA run past 16 nodes: its step, 0.790 s at TP 4 CP 2 and one "
    "micro-batch per data-parallel replica, is 1.45x the 0.543-0.548 s of the same layout and per-GPU work "
    "on 64 and 128 H100 (SCITIX, Cisco), which land at +13 to +14 %; those run layer CUDA graphs and this "
    "one none, and its logs give block throughputs only";
constexpr const char* kMlperfLoraContextSplit =
    "too fast under all-to-all context parallelism on Blackwell: per GPU and token the v5.1 runs take 158 "
    "us on 8 B200 without it (Dell) and 185-210 us under CP 4-8 (+17 to +33 %), where the model adds 9-14 % "
    "(its exposed all-to-alls and their reorders); the v5.0 runs are slower still (222-252 us at CP 8), and "
    "Hopper's CP 2 rows (v4.1, ring) land within";
constexpr const char* kMlperfLoraBlackwell =
    "too fast on the B200 and GB200 in the rounds before v5.1: the same 8-GPU B200 LoRA run steps 1.704 s "
    "(v4.1 preview, CP 2), 1.510-1.538 s (v5.0, on eleven systems of seven submitters) and 1.293-1.319 s "
    "(v5.1, within at +5 to +8 % on nine systems), the GB200's v5.0 runs take 181 us per GPU and token at 8 "
    "GPUs and at 4 under CP 2, and the model holds no release's kernel speed; the Hopper rows of v4.1 land "
    "within (-2 to +13 %, CP 2 among them)";
constexpr const char* kNemotronZero2 =
    "too slow: at the published TP 8 PP 8 VP 12 the model fits only ZeRO-2 without recompute (ZeRO-1's "
    "whole gradient buffer adds 4.96 GiB to 79.1 of the 80 GiB), whose sharded gradients it reduce-scatters "
    "in each of the 16 micro-batches (0.78 s exposed of 2.0 s); NeMo runs Megatron-LM's distributed "
    "optimizer (ZeRO-1), one reduction per step, and the table states no memory settings (weights held in "
    "FP8 would free 5 GiB)";
constexpr const char* kNemo2407 = "NeMo performance summary, NeMo 24.07 pre-training table (DGX-H100, FP8)";
constexpr const char* kLlama3Rows = "Llama 3 paper, Table 4 (seq 8,192 rows)";
constexpr const char* kMegatron = "Megatron-LM README model table (Megatron-Core r0.8.0, H100)";
constexpr const char* kNarayanan = "Narayanan 2021, Table 1";
constexpr const char* kTrtPerf = "TensorRT-LLM perf-overview.md throughput tables";
// Every row of perf-overview.md's dense-model tables (Llama 3.1 8B, 3.3 70B, 3.1 405B) on the catalog's GPUs
// (H100, H200, B200, GB200), taken whole as the generalization check: none chosen by its error.
constexpr const char* kTrtPerfV1 = "TensorRT-LLM perf-overview.md, dense Llama tables, every row";
constexpr const char* kTrtDenseFp8 =
    "faster than published, as 55 of the table's 60 dense FP8 rows are (median +8 %): the decode step holds "
    "the GEMMs at the shape model's efficiency plus their unhidden share, attention, the fused elementwise "
    "passes and the sampler's logits at the HBM rate, the TP all-reduces at TensorRT-LLM's measured time and "
    "CUDA-graph padding, and the run ends with its partial last batch; the PyTorch backend's per-step host "
    "work is not modelled (TensorRT-LLM issue #13957 measures 0.58 ms of it exposed per iteration at 64 "
    "sequences on a B200; no figure at these batches found)";
// Every row of perf-overview.md's MoE tables on the catalog's GPUs (Qwen3-235B-A22B, Qwen3-30B-A3B, Llama 4
// Scout and Maverick), taken whole like its dense tables.
constexpr const char* kTrtPerfMoe = "TensorRT-LLM perf-overview.md, MoE tables, every row";
constexpr const char* kTrtMoeDep =
    "run as attention data parallelism with the experts expert-parallel over the TP group (DEP), the page's "
    "options' intent: they ask for enable_attention_dp and pass --ep without its size (EP over the TP group "
    "an assumption here); the page states no batch or KV fraction (\"0.95 in many cases\", \"0.90 or lower\" "
    "after out-of-memory errors), and the ranks' imbalance at each MoE layer's exchange (attention-DP "
    "balancing is off unless attention_dp_config asks for it) is not modelled";
constexpr const char* kTrtScoutH200Ep4 =
    "too slow on two of the H200's decode-heavy rows: Llama 4 Scout's MoE layers take the op aiconfigurator "
    "measured on one H200 of an expert-parallel 4 split (TensorRT-LLM 1.3.0rc20), 0.98 ms at 1,024 tokens, "
    "bounded by its 2-way split's 0.42 ms, which is still 1.43x the H100's 4-way measurement (0.30 ms) on "
    "the same GH100 die and clocks with slower HBM; bounding the H200 by the H100 as well brings these rows "
    "within but pushes the H200's Maverick rows further out, so it is not done";
constexpr const char* kTrtMoeHost =
    "too fast on one GPU, where the MoE layers take TensorRT-LLM's measured fused-MoE op and no host work is "
    "modelled: the page's GB200 rows run below its B200 rows, on the same B200-class GPU, at 7 of its 10 "
    "lengths (17,481 against 25,828 tokens/s at 1000/1000), which GPU work cannot explain and the Grace "
    "host's slower per-step work in the PyTorch backend would (TransformerEngine issue #2053 measures "
    "PyTorch's host time per Linear forward at 37.1 us on a GB200's Grace against 13.5 us on an H100 DGX's "
    "Xeon 8480C)";
constexpr const char* kTrtScoutB200 =
    "Llama 4 Scout's MoE layers at TensorRT-LLM 1.3.0rc20's measured fused-MoE op, the oldest release "
    "aiconfigurator measured its shape at whole (the page ran 1.0), its shared expert at the shape model: 7 "
    "of the B200's 10 rows within; too fast at 128/128, the most host-bound of the page's runs (30,000 "
    "short requests; no host work is modelled), too slow on the long decodes (128/4096, 2048/2048), whose "
    "steps read 56 and 81 GiB of KV cache at the published trtllm-gen decode rate";
constexpr const char* kTrtScoutGb200 =
    "too fast on the GB200, where Llama 4 Scout's MoE layers take TensorRT-LLM 1.3.0rc20's fused-MoE op as "
    "measured on the GB200 (268 us per layer at 1,024 tokens, 1.9x faster than on the B200) and no host "
    "work is modelled: the page's GB200 rows run below its B200 rows, on the same B200-class GPU, at 4 of "
    "its 10 lengths (7,738 against 10,591 tokens/s at 1000/1000), which GPU work cannot explain and the "
    "Grace host's slower per-step work in the PyTorch backend would (2.75x an x86 host's per PyTorch Linear "
    "call: TransformerEngine issue #2053)";
constexpr const char* kTrtMaverickH100 =
    "too fast on the H100: the page's H200 rows run 2.4-3.8x its H100 rows at the same lengths, where HBM "
    "gives 1.43x; the FP8 weights take 50 GB of each 80 GB GPU, so the H100 runs held far smaller batches "
    "than the model's KV budget admits; the page gives no batch (it lowers the KV fraction after "
    "out-of-memory errors)";
// TensorRT-LLM perf-overview.md's per-GPU tables (the first stored version of the page that states each GPU's
// layout, "DEP4", "TP1", in its column head and reports output tokens/s per GPU; trtllm-bench throughput,
// PyTorch backend, ModelOpt checkpoints): every row on catalog GPUs but GPT-OSS's, whose MXFP4 experts run
// against 8- or 16-bit activations (W4A8 on Blackwell, W4A16 through the Triton backend on Hopper), a
// mixed-precision GEMM the engine does not model, and the RTX 6000 Pro tables (no catalog GPU).
constexpr const char* kTrtPerGpu = "TensorRT-LLM perf-overview.md, per-GPU tables with stated layouts";
constexpr const char* kTrtPerGpuDeepSeek =
    "too slow at trtllm-bench's default batch: its tuning.py counts DeepSeek's KV cache per token as "
    "num_key_value_heads 128 x head_size 56 (hidden / heads) per layer, 25x the MLA latent, and so sets "
    "max_batch_size 160 per rank on the B200 at 1k/1k (192 on the GB200; 64, its floor, at the longer "
    "sequences); at that batch the measured MoE op alone bounds a B200 DEP4 rank at about 4,900 tokens/s "
    "(58 layers x 568 us per step) against the page's 5,610 at 1024/1024, so its runs held more sequences "
    "than the page states (it gives no batch); at the H200's 8,192- and 32,768-token outputs the latent "
    "attention also weighs, compute-bound at the decode GEMMs' efficiency x the attention share (no MLA "
    "decode kernel rate for Hopper is published)";
constexpr const char* kTrtPerGpuDep =
    "too fast under attention data parallelism with expert parallelism (DEP): each rank holds its own "
    "sequences' KV cache and the page states no batch or KV fraction (\"0.95 in many cases\", \"0.90 or "
    "lower\" after out-of-memory errors); its Hopper DEP runs fall furthest below the model at long outputs "
    "(Llama 4 Maverick on the H200 at 1024/8192: 1,157 tokens/s per GPU), and the ranks' imbalance at each "
    "MoE layer's exchange (attention-DP balancing is off unless attention_dp_config asks for it, which "
    "these options do not) is not modelled";
constexpr const char* kTrtPerGpuB200Power =
    "too fast on the B200, where the page's GB200 runs the same model, precision and TP 1.10-1.17x "
    "faster (Llama 3.3 70B at 1024/8192: 3,805 against 3,240 tokens/s per GPU; at 32768/1024: 302 against "
    "274) and the model 1.00-1.04x: a "
    "GB200's B200 GPU runs at up to 1,200 W against an HGX B200's 1,000 W, sustained clocks the model, "
    "holding both at their short-run GEMM figures, does not see";
constexpr const char* kTrtPerGpuHost =
    "too fast at 1,000-token lengths for a model of 3B active parameters, whose steps at the batch the "
    "cache admits take a few ms: the PyTorch backend's per-step host work (scheduling, sampling, request "
    "bookkeeping), which the model does not hold, weighs most there; the page's GB200 rows run below its "
    "B200 rows at these lengths (22,856 against 26,941 tokens/s per GPU at 1000/1000) on the same "
    "B200-class GPU, which GPU work cannot explain and the Grace host's slower per-step work would (2.75x "
    "an x86 host's per PyTorch Linear call: TransformerEngine issue #2053)";
// TensorRT-LLM's DeepSeek-R1 recipes for maximum throughput, each stated whole (attention data parallelism
// with expert parallelism over 8 GPUs, per-rank batch and token limits, KV precision and fraction, CUDA
// graphs).
constexpr const char* kTrtDeepSeek = "TensorRT-LLM DeepSeek-R1 best-performance blog, max-throughput recipes";
constexpr const char* kTrtDeepSeekH200 =
    "faster than published: of the model's 61 ms decode step (128 sequences per rank) the experts take the "
    "measured block-FP8 op's 35 ms, the exchange NCCL's measured all-gathers and reduce-scatters 7 ms and "
    "the latent attention 12 ms at the BF16 GEMM efficiency x the attention share; the MLA decode kernel's "
    "rate on Hopper is not published";
constexpr const char* kTrtScoutHopperChunked =
    "too fast: on Hopper, TensorRT-LLM's XQA decode kernels refuse chunked attention (their support check, "
    "decoderXQAImplJIT kernelUtils.cpp: \"chunked attention is not supported yet\"), so Llama 4 Scout's 36 "
    "chunked layers decode in the masked multi-head attention kernel on CUDA cores, whose rate is not "
    "modelled; at 20,000-token prompts, where attention rules the step, its B200 and GB200 rows, decoded by "
    "the trtllm-gen kernels, stay near their other lengths' errors";
constexpr const char* kTrtMoeScoutH100 =
    "too fast on the H100: the page's H200 rows run 1.8-2.5x its H100 rows on the six decode-heavy lengths "
    "(128/2048 to 2048/2048), where HBM gives 1.43x, so the H100 runs held far smaller batches than the "
    "model's KV budget admits; the page gives no batch (it lowers the KV fraction after out-of-memory "
    "errors)";
constexpr const char* kNim = "NVIDIA NIM LLM benchmarking, Llama-3.3-70b-instruct 1.8.0";
constexpr const char* kGraniteLog = "vLLM 0.11 start-up log, IBM Code Engine Granite 4 tutorial";
constexpr const char* kHfIndex = "Hugging Face model.safetensors.index.json total_size";

constexpr Case kCases[] = {
    {"Llama 2 7B", "llama2-7b-a100.yaml", "gpu_hours", 184320, "GPU-h", kLlama2},
    {"Llama 2 13B", "llama2-13b-a100.yaml", "gpu_hours", 368640, "GPU-h", kLlama2, -0.207, kBf16Gradients},
    {"Llama 2 34B", "llama2-34b-a100.yaml", "gpu_hours", 1038336, "GPU-h", kLlama2, -0.316,
     kProductionCluster},
    {"Llama 2 70B", "llama2-70b-a100.yaml", "gpu_hours", 1720320, "GPU-h", kLlama2, -0.165, kWholeRun},
    {"22B full recompute", "korthikanti-22b-full.yaml", "step_s", 1.42, "s/iter", kKorthikanti},
    {"175B full recompute", "korthikanti-175b-full.yaml", "step_s", 18.13, "s/iter", kKorthikanti},
    {"530B full recompute", "korthikanti-530b-full.yaml", "step_s", 49.05, "s/iter", kKorthikanti},
    {"1T full recompute", "korthikanti-1t-full.yaml", "step_s", 94.42, "s/iter", kKorthikanti},
    {"22B SP + selective", "korthikanti-22b-seqsel.yaml", "step_s", 1.10, "s/iter", kKorthikanti},
    {"175B SP + selective", "korthikanti-175b-seqsel.yaml", "step_s", 13.75, "s/iter", kKorthikanti},
    {"530B SP + selective", "korthikanti-530b-seqsel.yaml", "step_s", 37.83, "s/iter", kKorthikanti},
    {"1T SP + selective", "korthikanti-1t-seqsel.yaml", "step_s", 71.49, "s/iter", kKorthikanti, +0.150,
     kOutputStage},
    {"MLPerf v4.0 Llama-2-70B offline 8x H100", "mlperf-llama2-70b-offline.yaml", "tokens_per_s_node",
     21805.8, "tokens/s", "MLPerf Inference v4.0", -0.278, kMlperfOffline},
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
    {"TRT-LLM v0.9.0 GPT-J 6B FP8, H200 batch 1024, 128/128", "trtllm09-gptj-6b-h200-b1024-128-128.yaml",
     "tokens_per_s_instance", 27304, "tokens/s", kTrtPerf09, +0.175, kTrt09Mmha},
    {"TRT-LLM v0.9.0 GPT-J 6B FP8, H200 batch 120, 128/2048", "trtllm09-gptj-6b-h200-b120-128-2048.yaml",
     "tokens_per_s_instance", 8530, "tokens/s", kTrtPerf09, +0.409, kTrt09Mmha},
    {"TRT-LLM v0.9.0 GPT-J 6B FP8, H200 batch 64, 2048/128", "trtllm09-gptj-6b-h200-b64-2048-128.yaml",
     "tokens_per_s_instance", 2785, "tokens/s", kTrtPerf09, +0.150, kTrt09Mmha},
    {"TRT-LLM v0.9.0 GPT-J 6B FP8, H200 batch 64, 2048/2048", "trtllm09-gptj-6b-h200-b64-2048-2048.yaml",
     "tokens_per_s_instance", 3753, "tokens/s", kTrtPerf09, +0.251, kTrt09Mmha},
    {"TRT-LLM v0.9.0 LLaMA 7B FP8, H200 batch 896, 128/128", "trtllm09-llama2-7b-h200-b896-128-128.yaml",
     "tokens_per_s_instance", 20618, "tokens/s", kTrtPerf09, +0.341, kTrt09Mmha},
    {"TRT-LLM v0.9.0 LLaMA 7B FP8, H200 batch 120, 128/2048", "trtllm09-llama2-7b-h200-b120-128-2048.yaml",
     "tokens_per_s_instance", 8348, "tokens/s", kTrtPerf09, +0.264, kTrt09Mmha},
    {"TRT-LLM v0.9.0 LLaMA 7B FP8, H200 batch 64, 2048/128", "trtllm09-llama2-7b-h200-b64-2048-128.yaml",
     "tokens_per_s_instance", 2391, "tokens/s", kTrtPerf09, +0.174, kTrt09Mmha},
    {"TRT-LLM v0.9.0 LLaMA 7B FP8, H200 batch 56, 2048/2048", "trtllm09-llama2-7b-h200-b56-2048-2048.yaml",
     "tokens_per_s_instance", 3522, "tokens/s", kTrtPerf09, +0.154, kTrt09Mmha},
    {"TRT-LLM v0.9.0 GPT-J 6B FP8, H100 batch 1024, 128/128", "trtllm09-gptj-6b-h100-b1024-128-128.yaml",
     "tokens_per_s_instance", 25860, "tokens/s", kTrtPerf09},
    {"TRT-LLM v0.9.0 GPT-J 6B FP8, H100 batch 120, 128/2048", "trtllm09-gptj-6b-h100-b120-128-2048.yaml",
     "tokens_per_s_instance", 7350, "tokens/s", kTrtPerf09, +0.182, kTrt09Mmha},
    {"TRT-LLM v0.9.0 GPT-J 6B FP8, H100 batch 64, 2048/128", "trtllm09-gptj-6b-h100-b64-2048-128.yaml",
     "tokens_per_s_instance", 2570, "tokens/s", kTrtPerf09},
    {"TRT-LLM v0.9.0 GPT-J 6B FP8, H100 batch 64, 2048/2048", "trtllm09-gptj-6b-h100-b64-2048-2048.yaml",
     "tokens_per_s_instance", 3212, "tokens/s", kTrtPerf09},
    {"TRT-LLM v0.9.0 LLaMA 7B FP8, H100 batch 896, 128/128", "trtllm09-llama2-7b-h100-b896-128-128.yaml",
     "tokens_per_s_instance", 19854, "tokens/s", kTrtPerf09, +0.187, kTrt09Mmha},
    {"TRT-LLM v0.9.0 LLaMA 7B FP8, H100 batch 120, 128/2048", "trtllm09-llama2-7b-h100-b120-128-2048.yaml",
     "tokens_per_s_instance", 6944, "tokens/s", kTrtPerf09},
    {"TRT-LLM v0.9.0 LLaMA 7B FP8, H100 batch 84, 2048/128", "trtllm09-llama2-7b-h100-b84-2048-128.yaml",
     "tokens_per_s_instance", 2163, "tokens/s", kTrtPerf09},
    {"TRT-LLM v0.9.0 LLaMA 7B FP8, H100 batch 56, 2048/2048", "trtllm09-llama2-7b-h100-b56-2048-2048.yaml",
     "tokens_per_s_instance", 2826, "tokens/s", kTrtPerf09},
    {"TRT-LLM v0.9.0 GPT-J 6B FP8, L40S batch 512, 128/128", "trtllm09-gptj-6b-l40s-b512-128-128.yaml",
     "tokens_per_s_instance", 7859, "tokens/s", kTrtPerf09},
    {"TRT-LLM v0.9.0 GPT-J 6B FP8, L40S batch 64, 128/2048", "trtllm09-gptj-6b-l40s-b64-128-2048.yaml",
     "tokens_per_s_instance", 1904, "tokens/s", kTrtPerf09},
    {"TRT-LLM v0.9.0 GPT-J 6B FP8, L40S batch 32, 2048/128", "trtllm09-gptj-6b-l40s-b32-2048-128.yaml",
     "tokens_per_s_instance", 684, "tokens/s", kTrtPerf09},
    {"TRT-LLM v0.9.0 GPT-J 6B FP8, L40S batch 32, 2048/2048", "trtllm09-gptj-6b-l40s-b32-2048-2048.yaml",
     "tokens_per_s_instance", 768, "tokens/s", kTrtPerf09},
    {"TRT-LLM v0.9.0 LLaMA 7B FP8, L40S batch 256, 128/128", "trtllm09-llama2-7b-l40s-b256-128-128.yaml",
     "tokens_per_s_instance", 5885, "tokens/s", kTrtPerf09},
    {"TRT-LLM v0.9.0 LLaMA 7B FP8, L40S batch 64, 128/2048", "trtllm09-llama2-7b-l40s-b64-128-2048.yaml",
     "tokens_per_s_instance", 1654, "tokens/s", kTrtPerf09},
    {"TRT-LLM v0.9.0 LLaMA 7B FP8, L40S batch 32, 2048/128", "trtllm09-llama2-7b-l40s-b32-2048-128.yaml",
     "tokens_per_s_instance", 574, "tokens/s", kTrtPerf09},
    {"TRT-LLM v0.9.0 LLaMA 7B FP8, L40S batch 16, 2048/2048", "trtllm09-llama2-7b-l40s-b16-2048-2048.yaml",
     "tokens_per_s_instance", 537, "tokens/s", kTrtPerf09},
    {"TRT-LLM v0.9.0 GPT-J 6B FP16, A100 batch 512, 128/128", "trtllm09-gptj-6b-a100-b512-128-128.yaml",
     "tokens_per_s_instance", 5876, "tokens/s", kTrtPerf09},
    {"TRT-LLM v0.9.0 GPT-J 6B FP16, A100 batch 32, 128/2048", "trtllm09-gptj-6b-a100-b32-128-2048.yaml",
     "tokens_per_s_instance", 1549, "tokens/s", kTrtPerf09},
    {"TRT-LLM v0.9.0 GPT-J 6B FP16, A100 batch 32, 2048/128", "trtllm09-gptj-6b-a100-b32-2048-128.yaml",
     "tokens_per_s_instance", 545, "tokens/s", kTrtPerf09},
    {"TRT-LLM v0.9.0 GPT-J 6B FP16, A100 batch 32, 2048/2048", "trtllm09-gptj-6b-a100-b32-2048-2048.yaml",
     "tokens_per_s_instance", 815, "tokens/s", kTrtPerf09},
    {"TRT-LLM v0.17 Llama 3.1 8B FP8, H200 TP1, 128/128", "trtllm017-llama31-8b-h200-tp1-128-128.yaml",
     "tokens_per_s_instance", 29526.04, "tokens/s", kTrtPerf017, +0.201, kTrt017Hbm},
    {"TRT-LLM v0.17 Llama 3.1 8B FP8, H100 TP1, 128/128", "trtllm017-llama31-8b-h100-tp1-128-128.yaml",
     "tokens_per_s_instance", 28836.77, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 8B FP8, GH200 TP1, 128/128", "trtllm017-llama31-8b-gh200-tp1-128-128.yaml",
     "tokens_per_s_instance", 29852.96, "tokens/s", kTrtPerf017, +0.251, kTrt017Hbm},
    {"TRT-LLM v0.17 Llama 3.1 8B FP8, L40S TP1, 128/128", "trtllm017-llama31-8b-l40s-tp1-128-128.yaml",
     "tokens_per_s_instance", 9104.61, "tokens/s", kTrtPerf017, +0.184, kTrt017Short},
    {"TRT-LLM v0.17 Llama 3.1 8B FP16, A100 TP1, 128/128", "trtllm017-llama31-8b-a100-tp1-128-128.yaml",
     "tokens_per_s_instance", 6627.27, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 8B FP8, H200 TP1, 128/2048", "trtllm017-llama31-8b-h200-tp1-128-2048.yaml",
     "tokens_per_s_instance", 25398.86, "tokens/s", kTrtPerf017, +0.150, kTrt017Hbm},
    {"TRT-LLM v0.17 Llama 3.1 8B FP8, H100 TP1, 128/2048", "trtllm017-llama31-8b-h100-tp1-128-2048.yaml",
     "tokens_per_s_instance", 21109.38, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 8B FP8, GH200 TP1, 128/2048", "trtllm017-llama31-8b-gh200-tp1-128-2048.yaml",
     "tokens_per_s_instance", 21769.55, "tokens/s", kTrtPerf017, +0.248, kTrt017Hbm},
    {"TRT-LLM v0.17 Llama 3.1 8B FP8, L40S TP1, 128/2048", "trtllm017-llama31-8b-l40s-tp1-128-2048.yaml",
     "tokens_per_s_instance", 5365.81, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 8B FP16, A100 TP1, 128/2048", "trtllm017-llama31-8b-a100-tp1-128-2048.yaml",
     "tokens_per_s_instance", 5255.99, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 8B FP8, H200 TP1, 128/4096", "trtllm017-llama31-8b-h200-tp1-128-4096.yaml",
     "tokens_per_s_instance", 17370.8, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 8B FP8, H100 TP1, 128/4096", "trtllm017-llama31-8b-h100-tp1-128-4096.yaml",
     "tokens_per_s_instance", 13593.65, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 8B FP8, GH200 TP1, 128/4096", "trtllm017-llama31-8b-gh200-tp1-128-4096.yaml",
     "tokens_per_s_instance", 14189.89, "tokens/s", kTrtPerf017, +0.212, kTrt017Hbm},
    {"TRT-LLM v0.17 Llama 3.1 8B FP8, L40S TP1, 128/4096", "trtllm017-llama31-8b-l40s-tp1-128-4096.yaml",
     "tokens_per_s_instance", 3025.92, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 8B FP16, A100 TP1, 128/4096", "trtllm017-llama31-8b-a100-tp1-128-4096.yaml",
     "tokens_per_s_instance", 3453.79, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 8B FP8, H200 TP1, 500/2000", "trtllm017-llama31-8b-h200-tp1-500-2000.yaml",
     "tokens_per_s_instance", 21020.81, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 8B FP8, H100 TP1, 500/2000", "trtllm017-llama31-8b-h100-tp1-500-2000.yaml",
     "tokens_per_s_instance", 16500.69, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 8B FP8, GH200 TP1, 500/2000", "trtllm017-llama31-8b-gh200-tp1-500-2000.yaml",
     "tokens_per_s_instance", 17137.29, "tokens/s", kTrtPerf017, +0.245, kTrt017Hbm},
    {"TRT-LLM v0.17 Llama 3.1 8B FP8, L40S TP1, 500/2000", "trtllm017-llama31-8b-l40s-tp1-500-2000.yaml",
     "tokens_per_s_instance", 4273.75, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 8B FP16, A100 TP1, 500/2000", "trtllm017-llama31-8b-a100-tp1-500-2000.yaml",
     "tokens_per_s_instance", 4276.58, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 8B FP8, H200 TP1, 1000/1000", "trtllm017-llama31-8b-h200-tp1-1000-1000.yaml",
     "tokens_per_s_instance", 17537.96, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 8B FP8, H100 TP1, 1000/1000", "trtllm017-llama31-8b-h100-tp1-1000-1000.yaml",
     "tokens_per_s_instance", 15244.78, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 8B FP8, GH200 TP1, 1000/1000", "trtllm017-llama31-8b-gh200-tp1-1000-1000.yaml",
     "tokens_per_s_instance", 16482.77, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 8B FP8, L40S TP1, 1000/1000", "trtllm017-llama31-8b-l40s-tp1-1000-1000.yaml",
     "tokens_per_s_instance", 4054.71, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 8B FP16, A100 TP1, 1000/1000", "trtllm017-llama31-8b-a100-tp1-1000-1000.yaml",
     "tokens_per_s_instance", 3786.83, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 8B FP8, H200 TP1, 2048/128", "trtllm017-llama31-8b-h200-tp1-2048-128.yaml",
     "tokens_per_s_instance", 3794.14, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 8B FP8, H100 TP1, 2048/128", "trtllm017-llama31-8b-h100-tp1-2048-128.yaml",
     "tokens_per_s_instance", 3556.73, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 8B FP8, GH200 TP1, 2048/128", "trtllm017-llama31-8b-gh200-tp1-2048-128.yaml",
     "tokens_per_s_instance", 3843.95, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 8B FP8, L40S TP1, 2048/128", "trtllm017-llama31-8b-l40s-tp1-2048-128.yaml",
     "tokens_per_s_instance", 1066.52, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 8B FP16, A100 TP1, 2048/128", "trtllm017-llama31-8b-a100-tp1-2048-128.yaml",
     "tokens_per_s_instance", 799.61, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 8B FP8, H200 TP1, 2048/2048", "trtllm017-llama31-8b-h200-tp1-2048-2048.yaml",
     "tokens_per_s_instance", 11968.5, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 8B FP8, H100 TP1, 2048/2048", "trtllm017-llama31-8b-h100-tp1-2048-2048.yaml",
     "tokens_per_s_instance", 9488.42, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 8B FP8, GH200 TP1, 2048/2048", "trtllm017-llama31-8b-gh200-tp1-2048-2048.yaml",
     "tokens_per_s_instance", 10265.9, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 8B FP8, L40S TP1, 2048/2048", "trtllm017-llama31-8b-l40s-tp1-2048-2048.yaml",
     "tokens_per_s_instance", 2225.27, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 8B FP16, A100 TP1, 2048/2048", "trtllm017-llama31-8b-a100-tp1-2048-2048.yaml",
     "tokens_per_s_instance", 2424.16, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 8B FP8, H200 TP1, 5000/500", "trtllm017-llama31-8b-h200-tp1-5000-500.yaml",
     "tokens_per_s_instance", 3987.79, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 8B FP8, H100 TP1, 5000/500", "trtllm017-llama31-8b-h100-tp1-5000-500.yaml",
     "tokens_per_s_instance", 3559.36, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 8B FP8, GH200 TP1, 5000/500", "trtllm017-llama31-8b-gh200-tp1-5000-500.yaml",
     "tokens_per_s_instance", 3932.58, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 8B FP8, L40S TP1, 5000/500", "trtllm017-llama31-8b-l40s-tp1-5000-500.yaml",
     "tokens_per_s_instance", 981.2, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 8B FP16, A100 TP1, 5000/500", "trtllm017-llama31-8b-a100-tp1-5000-500.yaml",
     "tokens_per_s_instance", 825.13, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 8B FP8, H200 TP1, 20000/2000", "trtllm017-llama31-8b-h200-tp1-20000-2000.yaml",
     "tokens_per_s_instance", 1804.1, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 8B FP8, H100 TP1, 20000/2000", "trtllm017-llama31-8b-h100-tp1-20000-2000.yaml",
     "tokens_per_s_instance", 1401.31, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 8B FP8, GH200 TP1, 20000/2000",
     "trtllm017-llama31-8b-gh200-tp1-20000-2000.yaml", "tokens_per_s_instance", 1560.2, "tokens/s",
     kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 8B FP8, L40S TP1, 20000/2000", "trtllm017-llama31-8b-l40s-tp1-20000-2000.yaml",
     "tokens_per_s_instance", 327.97, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 8B FP16, A100 TP1, 20000/2000", "trtllm017-llama31-8b-a100-tp1-20000-2000.yaml",
     "tokens_per_s_instance", 330.04, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H200 TP1, 128/128", "trtllm017-llama31-70b-h200-tp1-128-128.yaml",
     "tokens_per_s_instance", 4020.75, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H100 TP1, 128/128", "trtllm017-llama31-70b-h100-tp1-128-128.yaml",
     "tokens_per_s_instance", 3378.03, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, GH200 TP1, 128/128", "trtllm017-llama31-70b-gh200-tp1-128-128.yaml",
     "tokens_per_s_instance", 3636.91, "tokens/s", kTrtPerf017, +0.167, kTrt017Hbm},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H200 TP1, 128/2048", "trtllm017-llama31-70b-h200-tp1-128-2048.yaml",
     "tokens_per_s_instance", 4165.68, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H100 TP1, 128/2048", "trtllm017-llama31-70b-h100-tp1-128-2048.yaml",
     "tokens_per_s_instance", 911.62, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, GH200 TP1, 128/2048", "trtllm017-llama31-70b-gh200-tp1-128-2048.yaml",
     "tokens_per_s_instance", 2082.74, "tokens/s", kTrtPerf017, +0.180, kTrt017Hbm},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H200 TP1, 128/4096", "trtllm017-llama31-70b-h200-tp1-128-4096.yaml",
     "tokens_per_s_instance", 2651.75, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H100 TP1, 128/4096", "trtllm017-llama31-70b-h100-tp1-128-4096.yaml",
     "tokens_per_s_instance", 426.32, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, GH200 TP1, 128/4096", "trtllm017-llama31-70b-gh200-tp1-128-4096.yaml",
     "tokens_per_s_instance", 1263.98, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H200 TP1, 500/2000", "trtllm017-llama31-70b-h200-tp1-500-2000.yaml",
     "tokens_per_s_instance", 3018.39, "tokens/s", kTrtPerf017, +0.180, kTrt017Hbm},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H100 TP1, 500/2000", "trtllm017-llama31-70b-h100-tp1-500-2000.yaml",
     "tokens_per_s_instance", 775.57, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, GH200 TP1, 500/2000", "trtllm017-llama31-70b-gh200-tp1-500-2000.yaml",
     "tokens_per_s_instance", 1973.86, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H200 TP1, 1000/1000", "trtllm017-llama31-70b-h200-tp1-1000-1000.yaml",
     "tokens_per_s_instance", 2823.45, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H100 TP1, 1000/1000", "trtllm017-llama31-70b-h100-tp1-1000-1000.yaml",
     "tokens_per_s_instance", 839.97, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, GH200 TP1, 1000/1000",
     "trtllm017-llama31-70b-gh200-tp1-1000-1000.yaml", "tokens_per_s_instance", 1746.12, "tokens/s",
     kTrtPerf017, +0.162, kTrt017Hbm},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H200 TP1, 2048/128", "trtllm017-llama31-70b-h200-tp1-2048-128.yaml",
     "tokens_per_s_instance", 465.99, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H100 TP1, 2048/128", "trtllm017-llama31-70b-h100-tp1-2048-128.yaml",
     "tokens_per_s_instance", 343.29, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, GH200 TP1, 2048/128", "trtllm017-llama31-70b-gh200-tp1-2048-128.yaml",
     "tokens_per_s_instance", 424.96, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H200 TP1, 2048/2048", "trtllm017-llama31-70b-h200-tp1-2048-2048.yaml",
     "tokens_per_s_instance", 1913.8, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, GH200 TP1, 2048/2048",
     "trtllm017-llama31-70b-gh200-tp1-2048-2048.yaml", "tokens_per_s_instance", 1086.93, "tokens/s",
     kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H200 TP1, 5000/500", "trtllm017-llama31-70b-h200-tp1-5000-500.yaml",
     "tokens_per_s_instance", 560.16, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H100 TP1, 5000/500", "trtllm017-llama31-70b-h100-tp1-5000-500.yaml",
     "tokens_per_s_instance", 245.34, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, GH200 TP1, 5000/500", "trtllm017-llama31-70b-gh200-tp1-5000-500.yaml",
     "tokens_per_s_instance", 422.36, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H200 TP1, 20000/2000",
     "trtllm017-llama31-70b-h200-tp1-20000-2000.yaml", "tokens_per_s_instance", 279.52, "tokens/s",
     kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H200 TP2, 128/128", "trtllm017-llama31-70b-h200-tp2-128-128.yaml",
     "tokens_per_s_instance", 6823.01, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H100 TP2, 128/128", "trtllm017-llama31-70b-h100-tp2-128-128.yaml",
     "tokens_per_s_instance", 6645.12, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP16, A100 TP2, 128/128", "trtllm017-llama31-70b-a100-tp2-128-128.yaml",
     "tokens_per_s_instance", 1313.96, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H200 TP2, 128/2048", "trtllm017-llama31-70b-h200-tp2-128-2048.yaml",
     "tokens_per_s_instance", 8290.35, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H100 TP2, 128/2048", "trtllm017-llama31-70b-h100-tp2-128-2048.yaml",
     "tokens_per_s_instance", 6169.58, "tokens/s", kTrtPerf017, +0.170, kTrt017AllReduce},
    {"TRT-LLM v0.17 Llama 3.1 70B FP16, A100 TP2, 128/2048", "trtllm017-llama31-70b-a100-tp2-128-2048.yaml",
     "tokens_per_s_instance", 531.26, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H200 TP2, 128/4096", "trtllm017-llama31-70b-h200-tp2-128-4096.yaml",
     "tokens_per_s_instance", 6526.67, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H100 TP2, 128/4096", "trtllm017-llama31-70b-h100-tp2-128-4096.yaml",
     "tokens_per_s_instance", 3897.06, "tokens/s", kTrtPerf017, +0.199, kTrt017AllReduce},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H200 TP2, 500/2000", "trtllm017-llama31-70b-h200-tp2-500-2000.yaml",
     "tokens_per_s_instance", 6848.02, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H100 TP2, 500/2000", "trtllm017-llama31-70b-h100-tp2-500-2000.yaml",
     "tokens_per_s_instance", 4972.57, "tokens/s", kTrtPerf017, +0.151, kTrt017AllReduce},
    {"TRT-LLM v0.17 Llama 3.1 70B FP16, A100 TP2, 500/2000", "trtllm017-llama31-70b-a100-tp2-500-2000.yaml",
     "tokens_per_s_instance", 439.41, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H200 TP2, 1000/1000", "trtllm017-llama31-70b-h200-tp2-1000-1000.yaml",
     "tokens_per_s_instance", 5164.76, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H100 TP2, 1000/1000", "trtllm017-llama31-70b-h100-tp2-1000-1000.yaml",
     "tokens_per_s_instance", 4390.53, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP16, A100 TP2, 1000/1000", "trtllm017-llama31-70b-a100-tp2-1000-1000.yaml",
     "tokens_per_s_instance", 472.94, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H200 TP2, 2048/128", "trtllm017-llama31-70b-h200-tp2-2048-128.yaml",
     "tokens_per_s_instance", 809, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H100 TP2, 2048/128", "trtllm017-llama31-70b-h100-tp2-2048-128.yaml",
     "tokens_per_s_instance", 772.66, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP16, A100 TP2, 2048/128", "trtllm017-llama31-70b-a100-tp2-2048-128.yaml",
     "tokens_per_s_instance", 148.96, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H200 TP2, 2048/2048", "trtllm017-llama31-70b-h200-tp2-2048-2048.yaml",
     "tokens_per_s_instance", 4183.88, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H100 TP2, 2048/2048", "trtllm017-llama31-70b-h100-tp2-2048-2048.yaml",
     "tokens_per_s_instance", 2898.16, "tokens/s", kTrtPerf017, +0.152, kTrt017AllReduce},
    {"TRT-LLM v0.17 Llama 3.1 70B FP16, A100 TP2, 2048/2048", "trtllm017-llama31-70b-a100-tp2-2048-2048.yaml",
     "tokens_per_s_instance", 261.1, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H200 TP2, 5000/500", "trtllm017-llama31-70b-h200-tp2-5000-500.yaml",
     "tokens_per_s_instance", 1025.38, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H100 TP2, 5000/500", "trtllm017-llama31-70b-h100-tp2-5000-500.yaml",
     "tokens_per_s_instance", 919.73, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP16, A100 TP2, 5000/500", "trtllm017-llama31-70b-a100-tp2-5000-500.yaml",
     "tokens_per_s_instance", 121.47, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H200 TP2, 20000/2000",
     "trtllm017-llama31-70b-h200-tp2-20000-2000.yaml", "tokens_per_s_instance", 640.62, "tokens/s",
     kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H100 TP2, 20000/2000",
     "trtllm017-llama31-70b-h100-tp2-20000-2000.yaml", "tokens_per_s_instance", 443.01, "tokens/s",
     kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H200 TP4, 128/128", "trtllm017-llama31-70b-h200-tp4-128-128.yaml",
     "tokens_per_s_instance", 11098.63, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H100 TP4, 128/128", "trtllm017-llama31-70b-h100-tp4-128-128.yaml",
     "tokens_per_s_instance", 11127.53, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, L40S TP4, 128/128", "trtllm017-llama31-70b-l40s-tp4-128-128.yaml",
     "tokens_per_s_instance", 1523.52, "tokens/s", kTrtPerf017, +0.329, kTrt017Pcie},
    {"TRT-LLM v0.17 Llama 3.1 70B FP16, A100 TP4, 128/128", "trtllm017-llama31-70b-a100-tp4-128-128.yaml",
     "tokens_per_s_instance", 2733.48, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H200 TP4, 128/2048", "trtllm017-llama31-70b-h200-tp4-128-2048.yaml",
     "tokens_per_s_instance", 14156, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H100 TP4, 128/2048", "trtllm017-llama31-70b-h100-tp4-128-2048.yaml",
     "tokens_per_s_instance", 11511.93, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, L40S TP4, 128/2048", "trtllm017-llama31-70b-l40s-tp4-128-2048.yaml",
     "tokens_per_s_instance", 1942.66, "tokens/s", kTrtPerf017, +0.373, kTrt017Pcie},
    {"TRT-LLM v0.17 Llama 3.1 70B FP16, A100 TP4, 128/2048", "trtllm017-llama31-70b-a100-tp4-128-2048.yaml",
     "tokens_per_s_instance", 2811.27, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H200 TP4, 128/4096", "trtllm017-llama31-70b-h200-tp4-128-4096.yaml",
     "tokens_per_s_instance", 10574.06, "tokens/s", kTrtPerf017, +0.214, kTrt017AllReduce},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H100 TP4, 128/4096", "trtllm017-llama31-70b-h100-tp4-128-4096.yaml",
     "tokens_per_s_instance", 7439.41, "tokens/s", kTrtPerf017, +0.342, kTrt017AllReduce},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, L40S TP4, 128/4096", "trtllm017-llama31-70b-l40s-tp4-128-4096.yaml",
     "tokens_per_s_instance", 1440.23, "tokens/s", kTrtPerf017, +0.309, kTrt017Pcie},
    {"TRT-LLM v0.17 Llama 3.1 70B FP16, A100 TP4, 128/4096", "trtllm017-llama31-70b-a100-tp4-128-4096.yaml",
     "tokens_per_s_instance", 1976.49, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H200 TP4, 500/2000", "trtllm017-llama31-70b-h200-tp4-500-2000.yaml",
     "tokens_per_s_instance", 12452.79, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H100 TP4, 500/2000", "trtllm017-llama31-70b-h100-tp4-500-2000.yaml",
     "tokens_per_s_instance", 9836.7, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, L40S TP4, 500/2000", "trtllm017-llama31-70b-l40s-tp4-500-2000.yaml",
     "tokens_per_s_instance", 1634.72, "tokens/s", kTrtPerf017, +0.346, kTrt017Pcie},
    {"TRT-LLM v0.17 Llama 3.1 70B FP16, A100 TP4, 500/2000", "trtllm017-llama31-70b-a100-tp4-500-2000.yaml",
     "tokens_per_s_instance", 2275.79, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H200 TP4, 1000/1000", "trtllm017-llama31-70b-h200-tp4-1000-1000.yaml",
     "tokens_per_s_instance", 8911.29, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H100 TP4, 1000/1000", "trtllm017-llama31-70b-h100-tp4-1000-1000.yaml",
     "tokens_per_s_instance", 7430.99, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, L40S TP4, 1000/1000", "trtllm017-llama31-70b-l40s-tp4-1000-1000.yaml",
     "tokens_per_s_instance", 1209.25, "tokens/s", kTrtPerf017, +0.335, kTrt017Pcie},
    {"TRT-LLM v0.17 Llama 3.1 70B FP16, A100 TP4, 1000/1000", "trtllm017-llama31-70b-a100-tp4-1000-1000.yaml",
     "tokens_per_s_instance", 1921.77, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H200 TP4, 2048/128", "trtllm017-llama31-70b-h200-tp4-2048-128.yaml",
     "tokens_per_s_instance", 1358.06, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H100 TP4, 2048/128", "trtllm017-llama31-70b-h100-tp4-2048-128.yaml",
     "tokens_per_s_instance", 1302.6, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, L40S TP4, 2048/128", "trtllm017-llama31-70b-l40s-tp4-2048-128.yaml",
     "tokens_per_s_instance", 177.72, "tokens/s", kTrtPerf017, +0.327, kTrt017Pcie},
    {"TRT-LLM v0.17 Llama 3.1 70B FP16, A100 TP4, 2048/128", "trtllm017-llama31-70b-a100-tp4-2048-128.yaml",
     "tokens_per_s_instance", 325.15, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H200 TP4, 2048/2048", "trtllm017-llama31-70b-h200-tp4-2048-2048.yaml",
     "tokens_per_s_instance", 7130.44, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H100 TP4, 2048/2048", "trtllm017-llama31-70b-h100-tp4-2048-2048.yaml",
     "tokens_per_s_instance", 5480.03, "tokens/s", kTrtPerf017, +0.167, kTrt017AllReduce},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, L40S TP4, 2048/2048", "trtllm017-llama31-70b-l40s-tp4-2048-2048.yaml",
     "tokens_per_s_instance", 969.68, "tokens/s", kTrtPerf017, +0.294, kTrt017Pcie},
    {"TRT-LLM v0.17 Llama 3.1 70B FP16, A100 TP4, 2048/2048", "trtllm017-llama31-70b-a100-tp4-2048-2048.yaml",
     "tokens_per_s_instance", 1393.64, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H200 TP4, 5000/500", "trtllm017-llama31-70b-h200-tp4-5000-500.yaml",
     "tokens_per_s_instance", 1811.55, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H100 TP4, 5000/500", "trtllm017-llama31-70b-h100-tp4-5000-500.yaml",
     "tokens_per_s_instance", 1602.78, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, L40S TP4, 5000/500", "trtllm017-llama31-70b-l40s-tp4-5000-500.yaml",
     "tokens_per_s_instance", 249.52, "tokens/s", kTrtPerf017, +0.251, kTrt017Pcie},
    {"TRT-LLM v0.17 Llama 3.1 70B FP16, A100 TP4, 5000/500", "trtllm017-llama31-70b-a100-tp4-5000-500.yaml",
     "tokens_per_s_instance", 392.62, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H200 TP4, 20000/2000",
     "trtllm017-llama31-70b-h200-tp4-20000-2000.yaml", "tokens_per_s_instance", 1199.68, "tokens/s",
     kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H100 TP4, 20000/2000",
     "trtllm017-llama31-70b-h100-tp4-20000-2000.yaml", "tokens_per_s_instance", 920.19, "tokens/s",
     kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, L40S TP4, 20000/2000",
     "trtllm017-llama31-70b-l40s-tp4-20000-2000.yaml", "tokens_per_s_instance", 162.25, "tokens/s",
     kTrtPerf017, +0.222, kTrt017Pcie},
    {"TRT-LLM v0.17 Llama 3.1 70B FP16, A100 TP4, 20000/2000",
     "trtllm017-llama31-70b-a100-tp4-20000-2000.yaml", "tokens_per_s_instance", 212.08, "tokens/s",
     kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H200 TP8, 128/128", "trtllm017-llama31-70b-h200-tp8-128-128.yaml",
     "tokens_per_s_instance", 15355.84, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H100 TP8, 128/128", "trtllm017-llama31-70b-h100-tp8-128-128.yaml",
     "tokens_per_s_instance", 14730.69, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP16, A100 TP8, 128/128", "trtllm017-llama31-70b-a100-tp8-128-128.yaml",
     "tokens_per_s_instance", 4717.62, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H200 TP8, 128/2048", "trtllm017-llama31-70b-h200-tp8-128-2048.yaml",
     "tokens_per_s_instance", 21195.88, "tokens/s", kTrtPerf017, +0.187, kTrt017AllReduce},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H100 TP8, 128/2048", "trtllm017-llama31-70b-h100-tp8-128-2048.yaml",
     "tokens_per_s_instance", 17061.82, "tokens/s", kTrtPerf017, +0.232, kTrt017AllReduce},
    {"TRT-LLM v0.17 Llama 3.1 70B FP16, A100 TP8, 128/2048", "trtllm017-llama31-70b-a100-tp8-128-2048.yaml",
     "tokens_per_s_instance", 5241.5, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H200 TP8, 128/4096", "trtllm017-llama31-70b-h200-tp8-128-4096.yaml",
     "tokens_per_s_instance", 16941.52, "tokens/s", kTrtPerf017, +0.208, kTrt017AllReduce},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H100 TP8, 128/4096", "trtllm017-llama31-70b-h100-tp8-128-4096.yaml",
     "tokens_per_s_instance", 14171.43, "tokens/s", kTrtPerf017, +0.205, kTrt017AllReduce},
    {"TRT-LLM v0.17 Llama 3.1 70B FP16, A100 TP8, 128/4096", "trtllm017-llama31-70b-a100-tp8-128-4096.yaml",
     "tokens_per_s_instance", 3724.67, "tokens/s", kTrtPerf017, +0.223, kTrt017AllReduce},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H200 TP8, 500/2000", "trtllm017-llama31-70b-h200-tp8-500-2000.yaml",
     "tokens_per_s_instance", 17278.4, "tokens/s", kTrtPerf017, +0.203, kTrt017AllReduce},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H100 TP8, 500/2000", "trtllm017-llama31-70b-h100-tp8-500-2000.yaml",
     "tokens_per_s_instance", 14679.33, "tokens/s", kTrtPerf017, +0.194, kTrt017AllReduce},
    {"TRT-LLM v0.17 Llama 3.1 70B FP16, A100 TP8, 500/2000", "trtllm017-llama31-70b-a100-tp8-500-2000.yaml",
     "tokens_per_s_instance", 4445.37, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H200 TP8, 1000/1000", "trtllm017-llama31-70b-h200-tp8-1000-1000.yaml",
     "tokens_per_s_instance", 13181.24, "tokens/s", kTrtPerf017, +0.172, kTrt017AllReduce},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H100 TP8, 1000/1000", "trtllm017-llama31-70b-h100-tp8-1000-1000.yaml",
     "tokens_per_s_instance", 11451.16, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP16, A100 TP8, 1000/1000", "trtllm017-llama31-70b-a100-tp8-1000-1000.yaml",
     "tokens_per_s_instance", 3320.41, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H200 TP8, 2048/128", "trtllm017-llama31-70b-h200-tp8-2048-128.yaml",
     "tokens_per_s_instance", 1983.03, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H100 TP8, 2048/128", "trtllm017-llama31-70b-h100-tp8-2048-128.yaml",
     "tokens_per_s_instance", 1923.41, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP16, A100 TP8, 2048/128", "trtllm017-llama31-70b-a100-tp8-2048-128.yaml",
     "tokens_per_s_instance", 542.38, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H200 TP8, 2048/2048", "trtllm017-llama31-70b-h200-tp8-2048-2048.yaml",
     "tokens_per_s_instance", 11142.47, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H100 TP8, 2048/2048", "trtllm017-llama31-70b-h100-tp8-2048-2048.yaml",
     "tokens_per_s_instance", 8801.95, "tokens/s", kTrtPerf017, +0.176, kTrt017AllReduce},
    {"TRT-LLM v0.17 Llama 3.1 70B FP16, A100 TP8, 2048/2048", "trtllm017-llama31-70b-a100-tp8-2048-2048.yaml",
     "tokens_per_s_instance", 2553.71, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H200 TP8, 5000/500", "trtllm017-llama31-70b-h200-tp8-5000-500.yaml",
     "tokens_per_s_instance", 2717.83, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H100 TP8, 5000/500", "trtllm017-llama31-70b-h100-tp8-5000-500.yaml",
     "tokens_per_s_instance", 2457.42, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP16, A100 TP8, 5000/500", "trtllm017-llama31-70b-a100-tp8-5000-500.yaml",
     "tokens_per_s_instance", 696.34, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H200 TP8, 20000/2000",
     "trtllm017-llama31-70b-h200-tp8-20000-2000.yaml", "tokens_per_s_instance", 1920.45, "tokens/s",
     kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 70B FP8, H100 TP8, 20000/2000",
     "trtllm017-llama31-70b-h100-tp8-20000-2000.yaml", "tokens_per_s_instance", 1512.6, "tokens/s",
     kTrtPerf017, +0.236, kTrt017AllReduce},
    {"TRT-LLM v0.17 Llama 3.1 70B FP16, A100 TP8, 20000/2000",
     "trtllm017-llama31-70b-a100-tp8-20000-2000.yaml", "tokens_per_s_instance", 413.38, "tokens/s",
     kTrtPerf017, +0.162, kTrt017AllReduce},
    {"TRT-LLM v0.17 Llama 3.1 405B FP8, H200 TP8, 128/128", "trtllm017-llama31-405b-h200-tp8-128-128.yaml",
     "tokens_per_s_instance", 3874.19, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 405B FP8, H200 TP8, 128/2048", "trtllm017-llama31-405b-h200-tp8-128-2048.yaml",
     "tokens_per_s_instance", 5938.09, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 405B FP8, H200 TP8, 128/4096", "trtllm017-llama31-405b-h200-tp8-128-4096.yaml",
     "tokens_per_s_instance", 5168.37, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 405B FP8, H200 TP8, 500/2000", "trtllm017-llama31-405b-h200-tp8-500-2000.yaml",
     "tokens_per_s_instance", 5084.29, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 405B FP8, H200 TP8, 1000/1000",
     "trtllm017-llama31-405b-h200-tp8-1000-1000.yaml", "tokens_per_s_instance", 3399.69, "tokens/s",
     kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 405B FP8, H200 TP8, 2048/128", "trtllm017-llama31-405b-h200-tp8-2048-128.yaml",
     "tokens_per_s_instance", 463.42, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 405B FP8, H200 TP8, 2048/2048",
     "trtllm017-llama31-405b-h200-tp8-2048-2048.yaml", "tokens_per_s_instance", 2940.62, "tokens/s",
     kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 405B FP8, H200 TP8, 5000/500", "trtllm017-llama31-405b-h200-tp8-5000-500.yaml",
     "tokens_per_s_instance", 669.13, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Llama 3.1 405B FP8, H200 TP8, 20000/2000",
     "trtllm017-llama31-405b-h200-tp8-20000-2000.yaml", "tokens_per_s_instance", 535.31, "tokens/s",
     kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP8, H200 TP1, 128/128", "trtllm017-mistral-7b-h200-tp1-128-128.yaml",
     "tokens_per_s_instance", 31938.12, "tokens/s", kTrtPerf017, +0.162, kTrt017Hbm},
    {"TRT-LLM v0.17 Mistral 7B FP8, H100 TP1, 128/128", "trtllm017-mistral-7b-h100-tp1-128-128.yaml",
     "tokens_per_s_instance", 31674.49, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP8, GH200 TP1, 128/128", "trtllm017-mistral-7b-gh200-tp1-128-128.yaml",
     "tokens_per_s_instance", 32498.47, "tokens/s", kTrtPerf017, +0.206, kTrt017Hbm},
    {"TRT-LLM v0.17 Mistral 7B FP8, L40S TP1, 128/128", "trtllm017-mistral-7b-l40s-tp1-128-128.yaml",
     "tokens_per_s_instance", 9664.13, "tokens/s", kTrtPerf017, +0.162, kTrt017Short},
    {"TRT-LLM v0.17 Mistral 7B FP16, A100 TP1, 128/128", "trtllm017-mistral-7b-a100-tp1-128-128.yaml",
     "tokens_per_s_instance", 6982.53, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP8, H200 TP1, 128/2048", "trtllm017-mistral-7b-h200-tp1-128-2048.yaml",
     "tokens_per_s_instance", 27409.3, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP8, H100 TP1, 128/2048", "trtllm017-mistral-7b-h100-tp1-128-2048.yaml",
     "tokens_per_s_instance", 23496.42, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP8, GH200 TP1, 128/2048", "trtllm017-mistral-7b-gh200-tp1-128-2048.yaml",
     "tokens_per_s_instance", 23337.29, "tokens/s", kTrtPerf017, +0.218, kTrt017Hbm},
    {"TRT-LLM v0.17 Mistral 7B FP8, L40S TP1, 128/2048", "trtllm017-mistral-7b-l40s-tp1-128-2048.yaml",
     "tokens_per_s_instance", 5720.65, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP16, A100 TP1, 128/2048", "trtllm017-mistral-7b-a100-tp1-128-2048.yaml",
     "tokens_per_s_instance", 5630.62, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP8, H200 TP1, 128/4096", "trtllm017-mistral-7b-h200-tp1-128-4096.yaml",
     "tokens_per_s_instance", 18505.03, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP8, H100 TP1, 128/4096", "trtllm017-mistral-7b-h100-tp1-128-4096.yaml",
     "tokens_per_s_instance", 14350.99, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP8, GH200 TP1, 128/4096", "trtllm017-mistral-7b-gh200-tp1-128-4096.yaml",
     "tokens_per_s_instance", 15017.88, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP8, L40S TP1, 128/4096", "trtllm017-mistral-7b-l40s-tp1-128-4096.yaml",
     "tokens_per_s_instance", 3136.33, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP16, A100 TP1, 128/4096", "trtllm017-mistral-7b-a100-tp1-128-4096.yaml",
     "tokens_per_s_instance", 3591.22, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP8, H200 TP1, 500/2000", "trtllm017-mistral-7b-h200-tp1-500-2000.yaml",
     "tokens_per_s_instance", 22354.67, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP8, H100 TP1, 500/2000", "trtllm017-mistral-7b-h100-tp1-500-2000.yaml",
     "tokens_per_s_instance", 18026.27, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP8, GH200 TP1, 500/2000", "trtllm017-mistral-7b-gh200-tp1-500-2000.yaml",
     "tokens_per_s_instance", 18556, "tokens/s", kTrtPerf017, +0.194, kTrt017Hbm},
    {"TRT-LLM v0.17 Mistral 7B FP8, L40S TP1, 500/2000", "trtllm017-mistral-7b-l40s-tp1-500-2000.yaml",
     "tokens_per_s_instance", 4521.77, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP16, A100 TP1, 500/2000", "trtllm017-mistral-7b-a100-tp1-500-2000.yaml",
     "tokens_per_s_instance", 4400.48, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP8, H200 TP1, 1000/1000", "trtllm017-mistral-7b-h200-tp1-1000-1000.yaml",
     "tokens_per_s_instance", 18426.16, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP8, H100 TP1, 1000/1000", "trtllm017-mistral-7b-h100-tp1-1000-1000.yaml",
     "tokens_per_s_instance", 16035.66, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP8, GH200 TP1, 1000/1000", "trtllm017-mistral-7b-gh200-tp1-1000-1000.yaml",
     "tokens_per_s_instance", 17252.11, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP8, L40S TP1, 1000/1000", "trtllm017-mistral-7b-l40s-tp1-1000-1000.yaml",
     "tokens_per_s_instance", 4177.76, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP16, A100 TP1, 1000/1000", "trtllm017-mistral-7b-a100-tp1-1000-1000.yaml",
     "tokens_per_s_instance", 3896.58, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP8, H200 TP1, 2048/128", "trtllm017-mistral-7b-h200-tp1-2048-128.yaml",
     "tokens_per_s_instance", 3834.43, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP8, H100 TP1, 2048/128", "trtllm017-mistral-7b-h100-tp1-2048-128.yaml",
     "tokens_per_s_instance", 3642.48, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP8, GH200 TP1, 2048/128", "trtllm017-mistral-7b-gh200-tp1-2048-128.yaml",
     "tokens_per_s_instance", 3813.13, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP8, L40S TP1, 2048/128", "trtllm017-mistral-7b-l40s-tp1-2048-128.yaml",
     "tokens_per_s_instance", 1076.74, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP16, A100 TP1, 2048/128", "trtllm017-mistral-7b-a100-tp1-2048-128.yaml",
     "tokens_per_s_instance", 808.58, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP8, H200 TP1, 2048/2048", "trtllm017-mistral-7b-h200-tp1-2048-2048.yaml",
     "tokens_per_s_instance", 12347.37, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP8, H100 TP1, 2048/2048", "trtllm017-mistral-7b-h100-tp1-2048-2048.yaml",
     "tokens_per_s_instance", 9958.17, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP8, GH200 TP1, 2048/2048", "trtllm017-mistral-7b-gh200-tp1-2048-2048.yaml",
     "tokens_per_s_instance", 10755.94, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP8, L40S TP1, 2048/2048", "trtllm017-mistral-7b-l40s-tp1-2048-2048.yaml",
     "tokens_per_s_instance", 2286.71, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP16, A100 TP1, 2048/2048", "trtllm017-mistral-7b-a100-tp1-2048-2048.yaml",
     "tokens_per_s_instance", 2489.77, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP8, H200 TP1, 5000/500", "trtllm017-mistral-7b-h200-tp1-5000-500.yaml",
     "tokens_per_s_instance", 4041.59, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP8, H100 TP1, 5000/500", "trtllm017-mistral-7b-h100-tp1-5000-500.yaml",
     "tokens_per_s_instance", 3591.33, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP8, GH200 TP1, 5000/500", "trtllm017-mistral-7b-gh200-tp1-5000-500.yaml",
     "tokens_per_s_instance", 3949.66, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP8, L40S TP1, 5000/500", "trtllm017-mistral-7b-l40s-tp1-5000-500.yaml",
     "tokens_per_s_instance", 1001.02, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP16, A100 TP1, 5000/500", "trtllm017-mistral-7b-a100-tp1-5000-500.yaml",
     "tokens_per_s_instance", 844.64, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP8, H200 TP1, 20000/2000", "trtllm017-mistral-7b-h200-tp1-20000-2000.yaml",
     "tokens_per_s_instance", 1822.69, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP8, H100 TP1, 20000/2000", "trtllm017-mistral-7b-h100-tp1-20000-2000.yaml",
     "tokens_per_s_instance", 1373.24, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP8, GH200 TP1, 20000/2000", "trtllm017-mistral-7b-gh200-tp1-20000-2000.yaml",
     "tokens_per_s_instance", 1601.28, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP8, L40S TP1, 20000/2000", "trtllm017-mistral-7b-l40s-tp1-20000-2000.yaml",
     "tokens_per_s_instance", 337.83, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mistral 7B FP16, A100 TP1, 20000/2000", "trtllm017-mistral-7b-a100-tp1-20000-2000.yaml",
     "tokens_per_s_instance", 332.3, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H200 TP1, 128/128", "trtllm017-mixtral-8x7b-h200-tp1-128-128.yaml",
     "tokens_per_s_instance", 17157.72, "tokens/s", kTrtPerf017, +0.349, kTrt017Hbm},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H100 TP1, 128/128", "trtllm017-mixtral-8x7b-h100-tp1-128-128.yaml",
     "tokens_per_s_instance", 15962.49, "tokens/s", kTrtPerf017, +0.221, kTrt017Short},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, GH200 TP1, 128/128", "trtllm017-mixtral-8x7b-gh200-tp1-128-128.yaml",
     "tokens_per_s_instance", 16859.18, "tokens/s", kTrtPerf017, +0.313, kTrt017Hbm},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H200 TP1, 128/2048", "trtllm017-mixtral-8x7b-h200-tp1-128-2048.yaml",
     "tokens_per_s_instance", 15095.21, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H100 TP1, 128/2048", "trtllm017-mixtral-8x7b-h100-tp1-128-2048.yaml",
     "tokens_per_s_instance", 8290.13, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, GH200 TP1, 128/2048", "trtllm017-mixtral-8x7b-gh200-tp1-128-2048.yaml",
     "tokens_per_s_instance", 11120.16, "tokens/s", kTrtPerf017, +0.184, kTrt017Hbm},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H200 TP1, 128/4096", "trtllm017-mixtral-8x7b-h200-tp1-128-4096.yaml",
     "tokens_per_s_instance", 9534.62, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H100 TP1, 128/4096", "trtllm017-mixtral-8x7b-h100-tp1-128-4096.yaml",
     "tokens_per_s_instance", 4784.86, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, GH200 TP1, 128/4096", "trtllm017-mixtral-8x7b-gh200-tp1-128-4096.yaml",
     "tokens_per_s_instance", 6610.47, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H200 TP1, 500/2000", "trtllm017-mixtral-8x7b-h200-tp1-500-2000.yaml",
     "tokens_per_s_instance", 12105.27, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H100 TP1, 500/2000", "trtllm017-mixtral-8x7b-h100-tp1-500-2000.yaml",
     "tokens_per_s_instance", 6800.6, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, GH200 TP1, 500/2000", "trtllm017-mixtral-8x7b-gh200-tp1-500-2000.yaml",
     "tokens_per_s_instance", 9192.86, "tokens/s", kTrtPerf017, +0.180, kTrt017Hbm},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H200 TP1, 1000/1000", "trtllm017-mixtral-8x7b-h200-tp1-1000-1000.yaml",
     "tokens_per_s_instance", 10371.36, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H100 TP1, 1000/1000", "trtllm017-mixtral-8x7b-h100-tp1-1000-1000.yaml",
     "tokens_per_s_instance", 6868.52, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, GH200 TP1, 1000/1000",
     "trtllm017-mixtral-8x7b-gh200-tp1-1000-1000.yaml", "tokens_per_s_instance", 8849.18, "tokens/s",
     kTrtPerf017, +0.156, kTrt017Hbm},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H200 TP1, 2048/128", "trtllm017-mixtral-8x7b-h200-tp1-2048-128.yaml",
     "tokens_per_s_instance", 2009.67, "tokens/s", kTrtPerf017, +0.257, kTrt017Hbm},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H100 TP1, 2048/128", "trtllm017-mixtral-8x7b-h100-tp1-2048-128.yaml",
     "tokens_per_s_instance", 1892.81, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, GH200 TP1, 2048/128", "trtllm017-mixtral-8x7b-gh200-tp1-2048-128.yaml",
     "tokens_per_s_instance", 1994.31, "tokens/s", kTrtPerf017, +0.212, kTrt017Hbm},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H200 TP1, 2048/2048", "trtllm017-mixtral-8x7b-h200-tp1-2048-2048.yaml",
     "tokens_per_s_instance", 6940.32, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H100 TP1, 2048/2048", "trtllm017-mixtral-8x7b-h100-tp1-2048-2048.yaml",
     "tokens_per_s_instance", 3983.1, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, GH200 TP1, 2048/2048",
     "trtllm017-mixtral-8x7b-gh200-tp1-2048-2048.yaml", "tokens_per_s_instance", 5545.46, "tokens/s",
     kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H200 TP1, 5000/500", "trtllm017-mixtral-8x7b-h200-tp1-5000-500.yaml",
     "tokens_per_s_instance", 2309.1, "tokens/s", kTrtPerf017, +0.178, kTrt017Hbm},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H100 TP1, 5000/500", "trtllm017-mixtral-8x7b-h100-tp1-5000-500.yaml",
     "tokens_per_s_instance", 1764.7, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, GH200 TP1, 5000/500", "trtllm017-mixtral-8x7b-gh200-tp1-5000-500.yaml",
     "tokens_per_s_instance", 2078.27, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H200 TP1, 20000/2000",
     "trtllm017-mixtral-8x7b-h200-tp1-20000-2000.yaml", "tokens_per_s_instance", 1151.78, "tokens/s",
     kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H100 TP1, 20000/2000",
     "trtllm017-mixtral-8x7b-h100-tp1-20000-2000.yaml", "tokens_per_s_instance", 673.7, "tokens/s",
     kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, GH200 TP1, 20000/2000",
     "trtllm017-mixtral-8x7b-gh200-tp1-20000-2000.yaml", "tokens_per_s_instance", 860.68, "tokens/s",
     kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H200 TP2, 128/128", "trtllm017-mixtral-8x7b-h200-tp2-128-128.yaml",
     "tokens_per_s_instance", 27825.34, "tokens/s", kTrtPerf017, +0.319, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H100 TP2, 128/128", "trtllm017-mixtral-8x7b-h100-tp2-128-128.yaml",
     "tokens_per_s_instance", 27451.13, "tokens/s", kTrtPerf017, +0.235, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP16, A100 TP2, 128/128", "trtllm017-mixtral-8x7b-a100-tp2-128-128.yaml",
     "tokens_per_s_instance", 5541.47, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H200 TP2, 128/2048", "trtllm017-mixtral-8x7b-h200-tp2-128-2048.yaml",
     "tokens_per_s_instance", 29584.05, "tokens/s", kTrtPerf017, +0.291, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H100 TP2, 128/2048", "trtllm017-mixtral-8x7b-h100-tp2-128-2048.yaml",
     "tokens_per_s_instance", 22830.08, "tokens/s", kTrtPerf017, +0.175, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP16, A100 TP2, 128/2048", "trtllm017-mixtral-8x7b-a100-tp2-128-2048.yaml",
     "tokens_per_s_instance", 4169.78, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H200 TP2, 128/4096", "trtllm017-mixtral-8x7b-h200-tp2-128-4096.yaml",
     "tokens_per_s_instance", 21564.68, "tokens/s", kTrtPerf017, +0.222, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H100 TP2, 128/4096", "trtllm017-mixtral-8x7b-h100-tp2-128-4096.yaml",
     "tokens_per_s_instance", 14237.01, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP16, A100 TP2, 128/4096", "trtllm017-mixtral-8x7b-a100-tp2-128-4096.yaml",
     "tokens_per_s_instance", 2608.05, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H200 TP2, 500/2000", "trtllm017-mixtral-8x7b-h200-tp2-500-2000.yaml",
     "tokens_per_s_instance", 23410.63, "tokens/s", kTrtPerf017, +0.261, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H100 TP2, 500/2000", "trtllm017-mixtral-8x7b-h100-tp2-500-2000.yaml",
     "tokens_per_s_instance", 17036.04, "tokens/s", kTrtPerf017, +0.236, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP16, A100 TP2, 500/2000", "trtllm017-mixtral-8x7b-a100-tp2-500-2000.yaml",
     "tokens_per_s_instance", 3446.37, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H200 TP2, 1000/1000", "trtllm017-mixtral-8x7b-h200-tp2-1000-1000.yaml",
     "tokens_per_s_instance", 19151.19, "tokens/s", kTrtPerf017, +0.263, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H100 TP2, 1000/1000", "trtllm017-mixtral-8x7b-h100-tp2-1000-1000.yaml",
     "tokens_per_s_instance", 15770.89, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP16, A100 TP2, 1000/1000", "trtllm017-mixtral-8x7b-a100-tp2-1000-1000.yaml",
     "tokens_per_s_instance", 3154.52, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H200 TP2, 2048/128", "trtllm017-mixtral-8x7b-h200-tp2-2048-128.yaml",
     "tokens_per_s_instance", 3383.16, "tokens/s", kTrtPerf017, +0.299, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H100 TP2, 2048/128", "trtllm017-mixtral-8x7b-h100-tp2-2048-128.yaml",
     "tokens_per_s_instance", 3333.68, "tokens/s", kTrtPerf017, +0.164, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP16, A100 TP2, 2048/128", "trtllm017-mixtral-8x7b-a100-tp2-2048-128.yaml",
     "tokens_per_s_instance", 649, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H200 TP2, 2048/2048", "trtllm017-mixtral-8x7b-h200-tp2-2048-2048.yaml",
     "tokens_per_s_instance", 14007.29, "tokens/s", kTrtPerf017, +0.194, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H100 TP2, 2048/2048", "trtllm017-mixtral-8x7b-h100-tp2-2048-2048.yaml",
     "tokens_per_s_instance", 10685.85, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP16, A100 TP2, 2048/2048", "trtllm017-mixtral-8x7b-a100-tp2-2048-2048.yaml",
     "tokens_per_s_instance", 2056.58, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H200 TP2, 5000/500", "trtllm017-mixtral-8x7b-h200-tp2-5000-500.yaml",
     "tokens_per_s_instance", 4223.68, "tokens/s", kTrtPerf017, +0.200, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H100 TP2, 5000/500", "trtllm017-mixtral-8x7b-h100-tp2-5000-500.yaml",
     "tokens_per_s_instance", 3646.09, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP16, A100 TP2, 5000/500", "trtllm017-mixtral-8x7b-a100-tp2-5000-500.yaml",
     "tokens_per_s_instance", 724.44, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H200 TP2, 20000/2000",
     "trtllm017-mixtral-8x7b-h200-tp2-20000-2000.yaml", "tokens_per_s_instance", 2299.21, "tokens/s",
     kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H100 TP2, 20000/2000",
     "trtllm017-mixtral-8x7b-h100-tp2-20000-2000.yaml", "tokens_per_s_instance", 1757.45, "tokens/s",
     kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP16, A100 TP2, 20000/2000",
     "trtllm017-mixtral-8x7b-a100-tp2-20000-2000.yaml", "tokens_per_s_instance", 337.51, "tokens/s",
     kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H200 TP4, 128/128", "trtllm017-mixtral-8x7b-h200-tp4-128-128.yaml",
     "tokens_per_s_instance", 42551.59, "tokens/s", kTrtPerf017, +0.260, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H100 TP4, 128/128", "trtllm017-mixtral-8x7b-h100-tp4-128-128.yaml",
     "tokens_per_s_instance", 41068.23, "tokens/s", kTrtPerf017, +0.213, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, L40S TP4, 128/128", "trtllm017-mixtral-8x7b-l40s-tp4-128-128.yaml",
     "tokens_per_s_instance", 6921.87, "tokens/s", kTrtPerf017, +0.366, kTrt017Pcie},
    {"TRT-LLM v0.17 Mixtral 8x7B FP16, A100 TP4, 128/128", "trtllm017-mixtral-8x7b-a100-tp4-128-128.yaml",
     "tokens_per_s_instance", 10324.28, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H200 TP4, 128/2048", "trtllm017-mixtral-8x7b-h200-tp4-128-2048.yaml",
     "tokens_per_s_instance", 52291.78, "tokens/s", kTrtPerf017, +0.273, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H100 TP4, 128/2048", "trtllm017-mixtral-8x7b-h100-tp4-128-2048.yaml",
     "tokens_per_s_instance", 41164.73, "tokens/s", kTrtPerf017, +0.230, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, L40S TP4, 128/2048", "trtllm017-mixtral-8x7b-l40s-tp4-128-2048.yaml",
     "tokens_per_s_instance", 7996.93, "tokens/s", kTrtPerf017, +0.296, kTrt017Pcie},
    {"TRT-LLM v0.17 Mixtral 8x7B FP16, A100 TP4, 128/2048", "trtllm017-mixtral-8x7b-a100-tp4-128-2048.yaml",
     "tokens_per_s_instance", 10911.86, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H200 TP4, 128/4096", "trtllm017-mixtral-8x7b-h200-tp4-128-4096.yaml",
     "tokens_per_s_instance", 39513.73, "tokens/s", kTrtPerf017, +0.228, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H100 TP4, 128/4096", "trtllm017-mixtral-8x7b-h100-tp4-128-4096.yaml",
     "tokens_per_s_instance", 27912.48, "tokens/s", kTrtPerf017, +0.227, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, L40S TP4, 128/4096", "trtllm017-mixtral-8x7b-l40s-tp4-128-4096.yaml",
     "tokens_per_s_instance", 5736.09, "tokens/s", kTrtPerf017, +0.267, kTrt017Pcie},
    {"TRT-LLM v0.17 Mixtral 8x7B FP16, A100 TP4, 128/4096", "trtllm017-mixtral-8x7b-a100-tp4-128-4096.yaml",
     "tokens_per_s_instance", 7666.51, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H200 TP4, 500/2000", "trtllm017-mixtral-8x7b-h200-tp4-500-2000.yaml",
     "tokens_per_s_instance", 43818.99, "tokens/s", kTrtPerf017, +0.259, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H100 TP4, 500/2000", "trtllm017-mixtral-8x7b-h100-tp4-500-2000.yaml",
     "tokens_per_s_instance", 34489.34, "tokens/s", kTrtPerf017, +0.216, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, L40S TP4, 500/2000", "trtllm017-mixtral-8x7b-l40s-tp4-500-2000.yaml",
     "tokens_per_s_instance", 6914.68, "tokens/s", kTrtPerf017, +0.264, kTrt017Pcie},
    {"TRT-LLM v0.17 Mixtral 8x7B FP16, A100 TP4, 500/2000", "trtllm017-mixtral-8x7b-a100-tp4-500-2000.yaml",
     "tokens_per_s_instance", 8456.21, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H200 TP4, 1000/1000", "trtllm017-mixtral-8x7b-h200-tp4-1000-1000.yaml",
     "tokens_per_s_instance", 33580.9, "tokens/s", kTrtPerf017, +0.225, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H100 TP4, 1000/1000", "trtllm017-mixtral-8x7b-h100-tp4-1000-1000.yaml",
     "tokens_per_s_instance", 27784.74, "tokens/s", kTrtPerf017, +0.179, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, L40S TP4, 1000/1000", "trtllm017-mixtral-8x7b-l40s-tp4-1000-1000.yaml",
     "tokens_per_s_instance", 5251.49, "tokens/s", kTrtPerf017, +0.304, kTrt017Pcie},
    {"TRT-LLM v0.17 Mixtral 8x7B FP16, A100 TP4, 1000/1000", "trtllm017-mixtral-8x7b-a100-tp4-1000-1000.yaml",
     "tokens_per_s_instance", 7122.84, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H200 TP4, 2048/128", "trtllm017-mixtral-8x7b-h200-tp4-2048-128.yaml",
     "tokens_per_s_instance", 5467.62, "tokens/s", kTrtPerf017, +0.199, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H100 TP4, 2048/128", "trtllm017-mixtral-8x7b-h100-tp4-2048-128.yaml",
     "tokens_per_s_instance", 5234.98, "tokens/s", kTrtPerf017, +0.186, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, L40S TP4, 2048/128", "trtllm017-mixtral-8x7b-l40s-tp4-2048-128.yaml",
     "tokens_per_s_instance", 827.62, "tokens/s", kTrtPerf017, +0.380, kTrt017Pcie},
    {"TRT-LLM v0.17 Mixtral 8x7B FP16, A100 TP4, 2048/128", "trtllm017-mixtral-8x7b-a100-tp4-2048-128.yaml",
     "tokens_per_s_instance", 1237.62, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H200 TP4, 2048/2048", "trtllm017-mixtral-8x7b-h200-tp4-2048-2048.yaml",
     "tokens_per_s_instance", 24980.93, "tokens/s", kTrtPerf017, +0.206, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H100 TP4, 2048/2048", "trtllm017-mixtral-8x7b-h100-tp4-2048-2048.yaml",
     "tokens_per_s_instance", 19432.08, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, L40S TP4, 2048/2048", "trtllm017-mixtral-8x7b-l40s-tp4-2048-2048.yaml",
     "tokens_per_s_instance", 3935.32, "tokens/s", kTrtPerf017, +0.299, kTrt017Pcie},
    {"TRT-LLM v0.17 Mixtral 8x7B FP16, A100 TP4, 2048/2048", "trtllm017-mixtral-8x7b-a100-tp4-2048-2048.yaml",
     "tokens_per_s_instance", 5222.98, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H200 TP4, 5000/500", "trtllm017-mixtral-8x7b-h200-tp4-5000-500.yaml",
     "tokens_per_s_instance", 7084.94, "tokens/s", kTrtPerf017, +0.151, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H100 TP4, 5000/500", "trtllm017-mixtral-8x7b-h100-tp4-5000-500.yaml",
     "tokens_per_s_instance", 6401.56, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, L40S TP4, 5000/500", "trtllm017-mixtral-8x7b-l40s-tp4-5000-500.yaml",
     "tokens_per_s_instance", 1092.88, "tokens/s", kTrtPerf017, +0.293, kTrt017Pcie},
    {"TRT-LLM v0.17 Mixtral 8x7B FP16, A100 TP4, 5000/500", "trtllm017-mixtral-8x7b-a100-tp4-5000-500.yaml",
     "tokens_per_s_instance", 1500.55, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H200 TP4, 20000/2000",
     "trtllm017-mixtral-8x7b-h200-tp4-20000-2000.yaml", "tokens_per_s_instance", 4236.84, "tokens/s",
     kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H100 TP4, 20000/2000",
     "trtllm017-mixtral-8x7b-h100-tp4-20000-2000.yaml", "tokens_per_s_instance", 3303.83, "tokens/s",
     kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, L40S TP4, 20000/2000",
     "trtllm017-mixtral-8x7b-l40s-tp4-20000-2000.yaml", "tokens_per_s_instance", 682.48, "tokens/s",
     kTrtPerf017, +0.201, kTrt017Pcie},
    {"TRT-LLM v0.17 Mixtral 8x7B FP16, A100 TP4, 20000/2000",
     "trtllm017-mixtral-8x7b-a100-tp4-20000-2000.yaml", "tokens_per_s_instance", 829.59, "tokens/s",
     kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H200 TP8, 128/128", "trtllm017-mixtral-8x7b-h200-tp8-128-128.yaml",
     "tokens_per_s_instance", 53212.55, "tokens/s", kTrtPerf017, +0.321, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H100 TP8, 128/128", "trtllm017-mixtral-8x7b-h100-tp8-128-128.yaml",
     "tokens_per_s_instance", 50849.55, "tokens/s", kTrtPerf017, +0.282, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP16, A100 TP8, 128/128", "trtllm017-mixtral-8x7b-a100-tp8-128-128.yaml",
     "tokens_per_s_instance", 17043.54, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H200 TP8, 128/2048", "trtllm017-mixtral-8x7b-h200-tp8-128-2048.yaml",
     "tokens_per_s_instance", 68608.45, "tokens/s", kTrtPerf017, +0.361, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H100 TP8, 128/2048", "trtllm017-mixtral-8x7b-h100-tp8-128-2048.yaml",
     "tokens_per_s_instance", 61607.7, "tokens/s", kTrtPerf017, +0.335, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP16, A100 TP8, 128/2048", "trtllm017-mixtral-8x7b-a100-tp8-128-2048.yaml",
     "tokens_per_s_instance", 20277.88, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H200 TP8, 128/4096", "trtllm017-mixtral-8x7b-h200-tp8-128-4096.yaml",
     "tokens_per_s_instance", 54827.78, "tokens/s", kTrtPerf017, +0.271, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H100 TP8, 128/4096", "trtllm017-mixtral-8x7b-h100-tp8-128-4096.yaml",
     "tokens_per_s_instance", 48280.37, "tokens/s", kTrtPerf017, +0.233, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP16, A100 TP8, 128/4096", "trtllm017-mixtral-8x7b-a100-tp8-128-4096.yaml",
     "tokens_per_s_instance", 15282.89, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H200 TP8, 500/2000", "trtllm017-mixtral-8x7b-h200-tp8-500-2000.yaml",
     "tokens_per_s_instance", 58706.39, "tokens/s", kTrtPerf017, +0.342, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H100 TP8, 500/2000", "trtllm017-mixtral-8x7b-h100-tp8-500-2000.yaml",
     "tokens_per_s_instance", 52583.65, "tokens/s", kTrtPerf017, +0.311, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP16, A100 TP8, 500/2000", "trtllm017-mixtral-8x7b-a100-tp8-500-2000.yaml",
     "tokens_per_s_instance", 17184.24, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H200 TP8, 1000/1000", "trtllm017-mixtral-8x7b-h200-tp8-1000-1000.yaml",
     "tokens_per_s_instance", 44705.48, "tokens/s", kTrtPerf017, +0.291, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H100 TP8, 1000/1000", "trtllm017-mixtral-8x7b-h100-tp8-1000-1000.yaml",
     "tokens_per_s_instance", 40631.71, "tokens/s", kTrtPerf017, +0.261, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP16, A100 TP8, 1000/1000", "trtllm017-mixtral-8x7b-a100-tp8-1000-1000.yaml",
     "tokens_per_s_instance", 12851.44, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H200 TP8, 2048/128", "trtllm017-mixtral-8x7b-h200-tp8-2048-128.yaml",
     "tokens_per_s_instance", 7554.38, "tokens/s", kTrtPerf017, +0.236, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H100 TP8, 2048/128", "trtllm017-mixtral-8x7b-h100-tp8-2048-128.yaml",
     "tokens_per_s_instance", 6988.18, "tokens/s", kTrtPerf017, +0.229, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP16, A100 TP8, 2048/128", "trtllm017-mixtral-8x7b-a100-tp8-2048-128.yaml",
     "tokens_per_s_instance", 2165.52, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H200 TP8, 2048/2048", "trtllm017-mixtral-8x7b-h200-tp8-2048-2048.yaml",
     "tokens_per_s_instance", 36193.64, "tokens/s", kTrtPerf017, +0.238, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H100 TP8, 2048/2048", "trtllm017-mixtral-8x7b-h100-tp8-2048-2048.yaml",
     "tokens_per_s_instance", 30983.35, "tokens/s", kTrtPerf017, +0.210, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP16, A100 TP8, 2048/2048", "trtllm017-mixtral-8x7b-a100-tp8-2048-2048.yaml",
     "tokens_per_s_instance", 9809.76, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H200 TP8, 5000/500", "trtllm017-mixtral-8x7b-h200-tp8-5000-500.yaml",
     "tokens_per_s_instance", 10271.8, "tokens/s", kTrtPerf017, +0.204, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H100 TP8, 5000/500", "trtllm017-mixtral-8x7b-h100-tp8-5000-500.yaml",
     "tokens_per_s_instance", 9210.11, "tokens/s", kTrtPerf017, +0.190, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP16, A100 TP8, 5000/500", "trtllm017-mixtral-8x7b-a100-tp8-5000-500.yaml",
     "tokens_per_s_instance", 2761.28, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H200 TP8, 20000/2000",
     "trtllm017-mixtral-8x7b-h200-tp8-20000-2000.yaml", "tokens_per_s_instance", 6835.53, "tokens/s",
     kTrtPerf017, +0.169, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP8, H100 TP8, 20000/2000",
     "trtllm017-mixtral-8x7b-h100-tp8-20000-2000.yaml", "tokens_per_s_instance", 5602.43, "tokens/s",
     kTrtPerf017, +0.174, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x7B FP16, A100 TP8, 20000/2000",
     "trtllm017-mixtral-8x7b-a100-tp8-20000-2000.yaml", "tokens_per_s_instance", 1592.53, "tokens/s",
     kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x22B FP8, H200 TP8, 128/128", "trtllm017-mixtral-8x22b-h200-tp8-128-128.yaml",
     "tokens_per_s_instance", 22948.57, "tokens/s", kTrtPerf017, +0.214, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x22B FP8, H100 TP8, 128/128", "trtllm017-mixtral-8x22b-h100-tp8-128-128.yaml",
     "tokens_per_s_instance", 21876.08, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x22B FP16, A100 TP8, 128/128", "trtllm017-mixtral-8x22b-a100-tp8-128-128.yaml",
     "tokens_per_s_instance", 6381.95, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x22B FP8, H200 TP8, 128/2048", "trtllm017-mixtral-8x22b-h200-tp8-128-2048.yaml",
     "tokens_per_s_instance", 32415.81, "tokens/s", kTrtPerf017, +0.243, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x22B FP8, H100 TP8, 128/2048", "trtllm017-mixtral-8x22b-h100-tp8-128-2048.yaml",
     "tokens_per_s_instance", 25150.03, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x22B FP16, A100 TP8, 128/2048", "trtllm017-mixtral-8x22b-a100-tp8-128-2048.yaml",
     "tokens_per_s_instance", 6685.99, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x22B FP8, H200 TP8, 128/4096", "trtllm017-mixtral-8x22b-h200-tp8-128-4096.yaml",
     "tokens_per_s_instance", 25753.14, "tokens/s", kTrtPerf017, +0.217, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x22B FP8, H100 TP8, 128/4096", "trtllm017-mixtral-8x22b-h100-tp8-128-4096.yaml",
     "tokens_per_s_instance", 18387.4, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x22B FP16, A100 TP8, 128/4096", "trtllm017-mixtral-8x22b-a100-tp8-128-4096.yaml",
     "tokens_per_s_instance", 4789.13, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x22B FP8, H200 TP8, 500/2000", "trtllm017-mixtral-8x22b-h200-tp8-500-2000.yaml",
     "tokens_per_s_instance", 27429.6, "tokens/s", kTrtPerf017, +0.239, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x22B FP8, H100 TP8, 500/2000", "trtllm017-mixtral-8x22b-h100-tp8-500-2000.yaml",
     "tokens_per_s_instance", 21421.86, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x22B FP16, A100 TP8, 500/2000", "trtllm017-mixtral-8x22b-a100-tp8-500-2000.yaml",
     "tokens_per_s_instance", 5648.46, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x22B FP8, H200 TP8, 1000/1000",
     "trtllm017-mixtral-8x22b-h200-tp8-1000-1000.yaml", "tokens_per_s_instance", 19712.35, "tokens/s",
     kTrtPerf017, +0.222, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x22B FP8, H100 TP8, 1000/1000",
     "trtllm017-mixtral-8x22b-h100-tp8-1000-1000.yaml", "tokens_per_s_instance", 16573.24, "tokens/s",
     kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x22B FP16, A100 TP8, 1000/1000",
     "trtllm017-mixtral-8x22b-a100-tp8-1000-1000.yaml", "tokens_per_s_instance", 4549.46, "tokens/s",
     kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x22B FP8, H200 TP8, 2048/128", "trtllm017-mixtral-8x22b-h200-tp8-2048-128.yaml",
     "tokens_per_s_instance", 2899.84, "tokens/s", kTrtPerf017, +0.231, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x22B FP8, H100 TP8, 2048/128", "trtllm017-mixtral-8x22b-h100-tp8-2048-128.yaml",
     "tokens_per_s_instance", 2794.97, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x22B FP16, A100 TP8, 2048/128", "trtllm017-mixtral-8x22b-a100-tp8-2048-128.yaml",
     "tokens_per_s_instance", 761.56, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x22B FP8, H200 TP8, 2048/2048",
     "trtllm017-mixtral-8x22b-h200-tp8-2048-2048.yaml", "tokens_per_s_instance", 15798.59, "tokens/s",
     kTrtPerf017, +0.203, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x22B FP8, H100 TP8, 2048/2048",
     "trtllm017-mixtral-8x22b-h100-tp8-2048-2048.yaml", "tokens_per_s_instance", 12244.93, "tokens/s",
     kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x22B FP16, A100 TP8, 2048/2048",
     "trtllm017-mixtral-8x22b-a100-tp8-2048-2048.yaml", "tokens_per_s_instance", 3521.98, "tokens/s",
     kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x22B FP8, H200 TP8, 5000/500", "trtllm017-mixtral-8x22b-h200-tp8-5000-500.yaml",
     "tokens_per_s_instance", 4031.79, "tokens/s", kTrtPerf017, +0.188, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x22B FP8, H100 TP8, 5000/500", "trtllm017-mixtral-8x22b-h100-tp8-5000-500.yaml",
     "tokens_per_s_instance", 3645.27, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x22B FP16, A100 TP8, 5000/500", "trtllm017-mixtral-8x22b-a100-tp8-5000-500.yaml",
     "tokens_per_s_instance", 959.14, "tokens/s", kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x22B FP8, H200 TP8, 20000/2000",
     "trtllm017-mixtral-8x22b-h200-tp8-20000-2000.yaml", "tokens_per_s_instance", 2815.76, "tokens/s",
     kTrtPerf017, +0.180, kTrt017MixtralTp},
    {"TRT-LLM v0.17 Mixtral 8x22B FP8, H100 TP8, 20000/2000",
     "trtllm017-mixtral-8x22b-h100-tp8-20000-2000.yaml", "tokens_per_s_instance", 2227.63, "tokens/s",
     kTrtPerf017},
    {"TRT-LLM v0.17 Mixtral 8x22B FP16, A100 TP8, 20000/2000",
     "trtllm017-mixtral-8x22b-a100-tp8-20000-2000.yaml", "tokens_per_s_instance", 575.02, "tokens/s",
     kTrtPerf017},
    // TensorRT-LLM perf-overview.md, per-GPU tables with stated layouts (output tokens/s per GPU).
    {"TRT-LLM per-GPU DeepSeek-R1-0528 NVFP4, B200 DEP4, 1000/1000",
     "trtllm-pergpu-dsr1-b200-dep4-1000-1000.yaml", "tokens_per_s_gpu", 5715, "tokens/s/GPU", kTrtPerGpu,
     -0.556, kTrtPerGpuDeepSeek},
    {"TRT-LLM per-GPU DeepSeek-R1-0528 NVFP4, GB200 DEP4, 1000/1000",
     "trtllm-pergpu-dsr1-gb200-dep4-1000-1000.yaml", "tokens_per_s_gpu", 5884, "tokens/s/GPU", kTrtPerGpu,
     -0.495, kTrtPerGpuDeepSeek},
    {"TRT-LLM per-GPU DeepSeek-R1-0528 FP8, H200 DEP8, 1000/1000",
     "trtllm-pergpu-dsr1-h200-dep8-1000-1000.yaml", "tokens_per_s_gpu", 1627, "tokens/s/GPU", kTrtPerGpu},
    {"TRT-LLM per-GPU DeepSeek-R1-0528 NVFP4, B200 DEP4, 1024/1024",
     "trtllm-pergpu-dsr1-b200-dep4-1024-1024.yaml", "tokens_per_s_gpu", 5610, "tokens/s/GPU", kTrtPerGpu,
     -0.565, kTrtPerGpuDeepSeek},
    {"TRT-LLM per-GPU DeepSeek-R1-0528 NVFP4, GB200 DEP4, 1024/1024",
     "trtllm-pergpu-dsr1-gb200-dep4-1024-1024.yaml", "tokens_per_s_gpu", 6169, "tokens/s/GPU", kTrtPerGpu,
     -0.527, kTrtPerGpuDeepSeek},
    {"TRT-LLM per-GPU DeepSeek-R1-0528 FP8, H200 DEP8, 1024/1024",
     "trtllm-pergpu-dsr1-h200-dep8-1024-1024.yaml", "tokens_per_s_gpu", 1620, "tokens/s/GPU", kTrtPerGpu},
    {"TRT-LLM per-GPU DeepSeek-R1-0528 NVFP4, B200 DEP4, 1024/8192",
     "trtllm-pergpu-dsr1-b200-dep4-1024-8192.yaml", "tokens_per_s_gpu", 3841, "tokens/s/GPU", kTrtPerGpu,
     -0.688, kTrtPerGpuDeepSeek},
    {"TRT-LLM per-GPU DeepSeek-R1-0528 NVFP4, GB200 DEP4, 1024/8192",
     "trtllm-pergpu-dsr1-gb200-dep4-1024-8192.yaml", "tokens_per_s_gpu", 4201, "tokens/s/GPU", kTrtPerGpu,
     -0.713, kTrtPerGpuDeepSeek},
    {"TRT-LLM per-GPU DeepSeek-R1-0528 FP8, H200 DEP8, 1024/8192",
     "trtllm-pergpu-dsr1-h200-dep8-1024-8192.yaml", "tokens_per_s_gpu", 1218, "tokens/s/GPU", kTrtPerGpu,
     -0.226, kTrtPerGpuDeepSeek},
    {"TRT-LLM per-GPU DeepSeek-R1-0528 NVFP4, B200 DEP4, 1024/32768",
     "trtllm-pergpu-dsr1-b200-dep4-1024-32768.yaml", "tokens_per_s_gpu", 1409, "tokens/s/GPU", kTrtPerGpu,
     -0.753, kTrtPerGpuDeepSeek},
    {"TRT-LLM per-GPU DeepSeek-R1-0528 NVFP4, GB200 DEP4, 1024/32768",
     "trtllm-pergpu-dsr1-gb200-dep4-1024-32768.yaml", "tokens_per_s_gpu", 1465, "tokens/s/GPU", kTrtPerGpu,
     -0.747, kTrtPerGpuDeepSeek},
    {"TRT-LLM per-GPU DeepSeek-R1-0528 FP8, H200 DEP8, 1024/32768",
     "trtllm-pergpu-dsr1-h200-dep8-1024-32768.yaml", "tokens_per_s_gpu", 438, "tokens/s/GPU", kTrtPerGpu,
     -0.457, kTrtPerGpuDeepSeek},
    {"TRT-LLM per-GPU DeepSeek-R1-0528 NVFP4, B200 DEP4, 8192/1024",
     "trtllm-pergpu-dsr1-b200-dep4-8192-1024.yaml", "tokens_per_s_gpu", 1100, "tokens/s/GPU", kTrtPerGpu,
     -0.463, kTrtPerGpuDeepSeek},
    {"TRT-LLM per-GPU DeepSeek-R1-0528 NVFP4, GB200 DEP4, 8192/1024",
     "trtllm-pergpu-dsr1-gb200-dep4-8192-1024.yaml", "tokens_per_s_gpu", 1182, "tokens/s/GPU", kTrtPerGpu,
     -0.482, kTrtPerGpuDeepSeek},
    {"TRT-LLM per-GPU Llama 3.3 70B NVFP4, B200 TP1, 1000/1000",
     "trtllm-pergpu-llama33-70b-b200-tp1-1000-1000.yaml", "tokens_per_s_gpu", 6897, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Llama 3.3 70B NVFP4, GB200 TP1, 1000/1000",
     "trtllm-pergpu-llama33-70b-gb200-tp1-1000-1000.yaml", "tokens_per_s_gpu", 7769, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Llama 3.3 70B FP8, H200 TP1, 1000/1000",
     "trtllm-pergpu-llama33-70b-h200-tp1-1000-1000.yaml", "tokens_per_s_gpu", 2646, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Llama 3.3 70B FP8, H100 TP2, 1000/1000",
     "trtllm-pergpu-llama33-70b-h100-tp2-1000-1000.yaml", "tokens_per_s_gpu", 2209, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Llama 3.3 70B NVFP4, B200 TP1, 1024/1024",
     "trtllm-pergpu-llama33-70b-b200-tp1-1024-1024.yaml", "tokens_per_s_gpu", 6841, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Llama 3.3 70B NVFP4, GB200 TP1, 1024/1024",
     "trtllm-pergpu-llama33-70b-gb200-tp1-1024-1024.yaml", "tokens_per_s_gpu", 7751, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Llama 3.3 70B FP8, H200 TP1, 1024/1024",
     "trtllm-pergpu-llama33-70b-h200-tp1-1024-1024.yaml", "tokens_per_s_gpu", 2785, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Llama 3.3 70B NVFP4, B200 TP1, 1024/8192",
     "trtllm-pergpu-llama33-70b-b200-tp1-1024-8192.yaml", "tokens_per_s_gpu", 3240, "tokens/s/GPU",
     kTrtPerGpu, +0.238, kTrtPerGpuB200Power},
    {"TRT-LLM per-GPU Llama 3.3 70B NVFP4, GB200 TP1, 1024/8192",
     "trtllm-pergpu-llama33-70b-gb200-tp1-1024-8192.yaml", "tokens_per_s_gpu", 3805, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Llama 3.3 70B NVFP4, B200 TP1, 8192/1024",
     "trtllm-pergpu-llama33-70b-b200-tp1-8192-1024.yaml", "tokens_per_s_gpu", 1362, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Llama 3.3 70B NVFP4, GB200 TP1, 8192/1024",
     "trtllm-pergpu-llama33-70b-gb200-tp1-8192-1024.yaml", "tokens_per_s_gpu", 1491, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Llama 3.3 70B FP8, H200 TP1, 8192/1024",
     "trtllm-pergpu-llama33-70b-h200-tp1-8192-1024.yaml", "tokens_per_s_gpu", 521, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Llama 3.3 70B FP8, H100 TP2, 8192/1024",
     "trtllm-pergpu-llama33-70b-h100-tp2-8192-1024.yaml", "tokens_per_s_gpu", 398, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Llama 3.3 70B NVFP4, B200 TP1, 32768/1024",
     "trtllm-pergpu-llama33-70b-b200-tp1-32768-1024.yaml", "tokens_per_s_gpu", 274, "tokens/s/GPU",
     kTrtPerGpu, +0.153, kTrtPerGpuB200Power},
    {"TRT-LLM per-GPU Llama 3.3 70B NVFP4, GB200 TP1, 32768/1024",
     "trtllm-pergpu-llama33-70b-gb200-tp1-32768-1024.yaml", "tokens_per_s_gpu", 302, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Llama 4 Maverick NVFP4, B200 DEP4, 1000/1000",
     "trtllm-pergpu-llama4-maverick-b200-dep4-1000-1000.yaml", "tokens_per_s_gpu", 11328, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Llama 4 Maverick NVFP4, GB200 DEP4, 1000/1000",
     "trtllm-pergpu-llama4-maverick-gb200-dep4-1000-1000.yaml", "tokens_per_s_gpu", 11828, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Llama 4 Maverick FP8, H200 DEP8, 1000/1000",
     "trtllm-pergpu-llama4-maverick-h200-dep8-1000-1000.yaml", "tokens_per_s_gpu", 4146, "tokens/s/GPU",
     kTrtPerGpu, +0.185, kTrtPerGpuDep},
    {"TRT-LLM per-GPU Llama 4 Maverick NVFP4, B200 DEP4, 1024/1024",
     "trtllm-pergpu-llama4-maverick-b200-dep4-1024-1024.yaml", "tokens_per_s_gpu", 11227, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Llama 4 Maverick NVFP4, GB200 DEP4, 1024/1024",
     "trtllm-pergpu-llama4-maverick-gb200-dep4-1024-1024.yaml", "tokens_per_s_gpu", 11905, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Llama 4 Maverick FP8, H200 DEP8, 1024/1024",
     "trtllm-pergpu-llama4-maverick-h200-dep8-1024-1024.yaml", "tokens_per_s_gpu", 4180, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Llama 4 Maverick NVFP4, B200 DEP4, 1024/8192",
     "trtllm-pergpu-llama4-maverick-b200-dep4-1024-8192.yaml", "tokens_per_s_gpu", 5164, "tokens/s/GPU",
     kTrtPerGpu, +0.154, kTrtPerGpuDep},
    {"TRT-LLM per-GPU Llama 4 Maverick NVFP4, GB200 DEP4, 1024/8192",
     "trtllm-pergpu-llama4-maverick-gb200-dep4-1024-8192.yaml", "tokens_per_s_gpu", 5508, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Llama 4 Maverick FP8, H200 DEP8, 1024/8192",
     "trtllm-pergpu-llama4-maverick-h200-dep8-1024-8192.yaml", "tokens_per_s_gpu", 1157, "tokens/s/GPU",
     kTrtPerGpu, +0.721, kTrtPerGpuDep},
    {"TRT-LLM per-GPU Llama 4 Maverick NVFP4, B200 DEP4, 1024/32768",
     "trtllm-pergpu-llama4-maverick-b200-dep4-1024-32768.yaml", "tokens_per_s_gpu", 2187, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Llama 4 Maverick NVFP4, GB200 DEP4, 1024/32768",
     "trtllm-pergpu-llama4-maverick-gb200-dep4-1024-32768.yaml", "tokens_per_s_gpu", 2300, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Llama 4 Maverick FP8, H200 DEP8, 1024/32768",
     "trtllm-pergpu-llama4-maverick-h200-dep8-1024-32768.yaml", "tokens_per_s_gpu", 679, "tokens/s/GPU",
     kTrtPerGpu, +0.218, kTrtPerGpuDep},
    {"TRT-LLM per-GPU Llama 4 Maverick NVFP4, B200 DEP4, 8192/1024",
     "trtllm-pergpu-llama4-maverick-b200-dep4-8192-1024.yaml", "tokens_per_s_gpu", 3277, "tokens/s/GPU",
     kTrtPerGpu, +0.152, kTrtPerGpuDep},
    {"TRT-LLM per-GPU Llama 4 Maverick NVFP4, GB200 DEP4, 8192/1024",
     "trtllm-pergpu-llama4-maverick-gb200-dep4-8192-1024.yaml", "tokens_per_s_gpu", 3444, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Llama 4 Maverick FP8, H200 DEP8, 8192/1024",
     "trtllm-pergpu-llama4-maverick-h200-dep8-8192-1024.yaml", "tokens_per_s_gpu", 1276, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Llama 4 Maverick NVFP4, B200 DEP4, 32768/1024",
     "trtllm-pergpu-llama4-maverick-b200-dep4-32768-1024.yaml", "tokens_per_s_gpu", 858, "tokens/s/GPU",
     kTrtPerGpu, +0.183, kTrtPerGpuDep},
    {"TRT-LLM per-GPU Llama 4 Maverick NVFP4, GB200 DEP4, 32768/1024",
     "trtllm-pergpu-llama4-maverick-gb200-dep4-32768-1024.yaml", "tokens_per_s_gpu", 963, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Qwen3-235B-A22B NVFP4, B200 DEP4, 1000/1000",
     "trtllm-pergpu-qwen3-235b-b200-dep4-1000-1000.yaml", "tokens_per_s_gpu", 5758, "tokens/s/GPU",
     kTrtPerGpu, +0.266, kTrtPerGpuDep},
    {"TRT-LLM per-GPU Qwen3-235B-A22B NVFP4, GB200 DEP4, 1000/1000",
     "trtllm-pergpu-qwen3-235b-gb200-dep4-1000-1000.yaml", "tokens_per_s_gpu", 6172, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Qwen3-235B-A22B FP8, H200 DEP4, 1000/1000",
     "trtllm-pergpu-qwen3-235b-h200-dep4-1000-1000.yaml", "tokens_per_s_gpu", 3165, "tokens/s/GPU",
     kTrtPerGpu, +0.236, kTrtPerGpuDep},
    {"TRT-LLM per-GPU Qwen3-235B-A22B FP8, H100 DEP8, 1000/1000",
     "trtllm-pergpu-qwen3-235b-h100-dep8-1000-1000.yaml", "tokens_per_s_gpu", 1932, "tokens/s/GPU",
     kTrtPerGpu, +0.220, kTrtPerGpuDep},
    {"TRT-LLM per-GPU Qwen3-235B-A22B NVFP4, B200 DEP4, 1024/1024",
     "trtllm-pergpu-qwen3-235b-b200-dep4-1024-1024.yaml", "tokens_per_s_gpu", 5752, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Qwen3-235B-A22B NVFP4, GB200 DEP4, 1024/1024",
     "trtllm-pergpu-qwen3-235b-gb200-dep4-1024-1024.yaml", "tokens_per_s_gpu", 5862, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Qwen3-235B-A22B FP8, H200 DEP4, 1024/1024",
     "trtllm-pergpu-qwen3-235b-h200-dep4-1024-1024.yaml", "tokens_per_s_gpu", 3268, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Qwen3-235B-A22B FP8, H100 DEP8, 1024/1024",
     "trtllm-pergpu-qwen3-235b-h100-dep8-1024-1024.yaml", "tokens_per_s_gpu", 1935, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Qwen3-235B-A22B NVFP4, B200 DEP4, 1024/8192",
     "trtllm-pergpu-qwen3-235b-b200-dep4-1024-8192.yaml", "tokens_per_s_gpu", 3388, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Qwen3-235B-A22B NVFP4, GB200 DEP4, 1024/8192",
     "trtllm-pergpu-qwen3-235b-gb200-dep4-1024-8192.yaml", "tokens_per_s_gpu", 3423, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Qwen3-235B-A22B FP8, H200 DEP4, 1024/8192",
     "trtllm-pergpu-qwen3-235b-h200-dep4-1024-8192.yaml", "tokens_per_s_gpu", 1417, "tokens/s/GPU",
     kTrtPerGpu, +0.295, kTrtPerGpuDep},
    {"TRT-LLM per-GPU Qwen3-235B-A22B FP8, H100 DEP8, 1024/8192",
     "trtllm-pergpu-qwen3-235b-h100-dep8-1024-8192.yaml", "tokens_per_s_gpu", 873, "tokens/s/GPU", kTrtPerGpu,
     +0.358, kTrtPerGpuDep},
    {"TRT-LLM per-GPU Qwen3-235B-A22B NVFP4, B200 DEP4, 1024/32768",
     "trtllm-pergpu-qwen3-235b-b200-dep4-1024-32768.yaml", "tokens_per_s_gpu", 1255, "tokens/s/GPU",
     kTrtPerGpu, +0.243, kTrtPerGpuDep},
    {"TRT-LLM per-GPU Qwen3-235B-A22B NVFP4, B200 DEP4, 8192/1024",
     "trtllm-pergpu-qwen3-235b-b200-dep4-8192-1024.yaml", "tokens_per_s_gpu", 1409, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Qwen3-235B-A22B NVFP4, GB200 DEP4, 8192/1024",
     "trtllm-pergpu-qwen3-235b-gb200-dep4-8192-1024.yaml", "tokens_per_s_gpu", 1464, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Qwen3-235B-A22B FP8, H200 DEP4, 8192/1024",
     "trtllm-pergpu-qwen3-235b-h200-dep4-8192-1024.yaml", "tokens_per_s_gpu", 627, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Qwen3-235B-A22B NVFP4, B200 DEP4, 32768/1024",
     "trtllm-pergpu-qwen3-235b-b200-dep4-32768-1024.yaml", "tokens_per_s_gpu", 318, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Qwen3-235B-A22B NVFP4, GB200 DEP4, 32768/1024",
     "trtllm-pergpu-qwen3-235b-gb200-dep4-32768-1024.yaml", "tokens_per_s_gpu", 333, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Qwen3-235B-A22B FP8, H200 DEP4, 32768/1024",
     "trtllm-pergpu-qwen3-235b-h200-dep4-32768-1024.yaml", "tokens_per_s_gpu", 134, "tokens/s/GPU",
     kTrtPerGpu, +0.166, kTrtPerGpuDep},
    {"TRT-LLM per-GPU Qwen3-30B-A3B NVFP4, B200 TP1, 1000/1000",
     "trtllm-pergpu-qwen3-30b-b200-tp1-1000-1000.yaml", "tokens_per_s_gpu", 26941, "tokens/s/GPU", kTrtPerGpu,
     +0.179, kTrtPerGpuHost},
    {"TRT-LLM per-GPU Qwen3-30B-A3B NVFP4, GB200 TP1, 1000/1000",
     "trtllm-pergpu-qwen3-30b-gb200-tp1-1000-1000.yaml", "tokens_per_s_gpu", 22856, "tokens/s/GPU",
     kTrtPerGpu, +0.484, kTrtPerGpuHost},
    {"TRT-LLM per-GPU Qwen3-30B-A3B NVFP4, B200 TP1, 1024/1024",
     "trtllm-pergpu-qwen3-30b-b200-tp1-1024-1024.yaml", "tokens_per_s_gpu", 26587, "tokens/s/GPU", kTrtPerGpu,
     +0.160, kTrtPerGpuHost},
    {"TRT-LLM per-GPU Qwen3-30B-A3B NVFP4, GB200 TP1, 1024/1024",
     "trtllm-pergpu-qwen3-30b-gb200-tp1-1024-1024.yaml", "tokens_per_s_gpu", 22201, "tokens/s/GPU",
     kTrtPerGpu, +0.465, kTrtPerGpuHost},
    {"TRT-LLM per-GPU Qwen3-30B-A3B NVFP4, B200 TP1, 1024/8192",
     "trtllm-pergpu-qwen3-30b-b200-tp1-1024-8192.yaml", "tokens_per_s_gpu", 13492, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Qwen3-30B-A3B NVFP4, GB200 TP1, 1024/8192",
     "trtllm-pergpu-qwen3-30b-gb200-tp1-1024-8192.yaml", "tokens_per_s_gpu", 14272, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Qwen3-30B-A3B NVFP4, B200 TP1, 1024/32768",
     "trtllm-pergpu-qwen3-30b-b200-tp1-1024-32768.yaml", "tokens_per_s_gpu", 4494, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Qwen3-30B-A3B NVFP4, GB200 TP1, 1024/32768",
     "trtllm-pergpu-qwen3-30b-gb200-tp1-1024-32768.yaml", "tokens_per_s_gpu", 4925, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Qwen3-30B-A3B NVFP4, B200 TP1, 8192/1024",
     "trtllm-pergpu-qwen3-30b-b200-tp1-8192-1024.yaml", "tokens_per_s_gpu", 5730, "tokens/s/GPU", kTrtPerGpu},
    {"TRT-LLM per-GPU Qwen3-30B-A3B NVFP4, GB200 TP1, 8192/1024",
     "trtllm-pergpu-qwen3-30b-gb200-tp1-8192-1024.yaml", "tokens_per_s_gpu", 6201, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Qwen3-30B-A3B NVFP4, B200 TP1, 32768/1024",
     "trtllm-pergpu-qwen3-30b-b200-tp1-32768-1024.yaml", "tokens_per_s_gpu", 1263, "tokens/s/GPU",
     kTrtPerGpu},
    {"TRT-LLM per-GPU Qwen3-30B-A3B NVFP4, GB200 TP1, 32768/1024",
     "trtllm-pergpu-qwen3-30b-gb200-tp1-32768-1024.yaml", "tokens_per_s_gpu", 1380, "tokens/s/GPU",
     kTrtPerGpu},
    // Training step throughput on H100 / B200, FP8 and BF16.
    {"NeMo Llama 3 8B FP8, 8 H100", "nemo-llama3-8b-h100-fp8.yaml", "tokens_per_s_gpu", 14451, "tokens/s/GPU",
     kNemo},
    {"NeMo Llama 3 70B FP8, 64 H100, TP4 PP8 VP5", "nemo-llama3-70b-h100-fp8.yaml", "tokens_per_s_gpu", 1602,
     "tokens/s/GPU", kNemo},
    {"NeMo Llama 3.1 405B FP8, 1,024 H100, TP8 PP8 CP2 VP8", "nemo-llama31-405b-h100-fp8.yaml",
     "tokens_per_s_gpu", 292, "tokens/s/GPU", kNemo},
    {"NeMo Llama 3 8B FP8, 8 B200", "nemo-llama3-8b-b200-fp8.yaml", "tokens_per_s_gpu", 30624, "tokens/s/GPU",
     kNemo},
    {"NeMo Llama 3.1 405B FP8, 128 B200, TP4 PP8 CP2 VP8", "nemo-llama31-405b-b200-fp8.yaml",
     "tokens_per_s_gpu", 661, "tokens/s/GPU", kNemo},
    {"Llama 3 405B, seq 8,192, 8,192 H100, TP8 PP16 DP64", "llama3-405b-h100-8192gpu.yaml",
     "model_tflops_per_gpu", 430, "TFLOP/s per GPU", kLlama3Rows},
    {"Llama 3 405B, seq 8,192, 16,384 H100, TP8 PP16 DP128", "llama3-405b-h100-16384gpu.yaml",
     "model_tflops_per_gpu", 400, "TFLOP/s per GPU", kLlama3Rows},
    {"Megatron GPT 1.7B, 48 H100, TP1", "megatron-gpt-1.7b-h100.yaml", "model_tflops_per_gpu", 408.8,
     "TFLOP/s per GPU", kMegatron, +0.225, kSmallGemms},
    {"Megatron GPT 7.1B, 96 H100, TP2", "megatron-gpt-7.1b-h100.yaml", "model_tflops_per_gpu", 465.9,
     "TFLOP/s per GPU", kMegatron, +0.151, kSmallGemms},
    {"Megatron GPT 70B, 768 H100, TP8 PP2", "megatron-gpt-70b-h100.yaml", "model_tflops_per_gpu", 419.7,
     "TFLOP/s per GPU", kMegatron},
    {"Megatron GPT 177B, 2,304 H100, TP8 PP6", "megatron-gpt-177b-h100.yaml", "model_tflops_per_gpu", 432.8,
     "TFLOP/s per GPU", kMegatron},
    {"Megatron GPT 462B, 6,144 H100, TP8 PP16", "megatron-gpt-462b-h100.yaml", "model_tflops_per_gpu", 459.9,
     "TFLOP/s per GPU", kMegatron},
    {"NeMo Qwen3 30B-A3B (MoE) FP8, 16 H100, PP2 VP24 EP8", "nemo-qwen3-30b-a3b-h100-fp8.yaml",
     "tokens_per_s_gpu", 5275, "tokens/s/GPU", kNemo, +1.561, kMoeTraining},
    {"NeMo GPT-OSS 120B (MoE) BF16, 64 H100, PP4 EP8", "nemo-gpt-oss-120b-h100-bf16.yaml", "tokens_per_s_gpu",
     5630, "tokens/s/GPU", kNemo},
    // Held-out check: every remaining pre-training row of the two NeMo tables on a GPU of the catalog.
    {"NeMo 24.07 GPT3-5B FP8, 64 H100, TP1", "nemo2407-gpt3-5b-h100-fp8.yaml", "tokens_per_s_gpu", 23406,
     "tokens/s/GPU", kNemo2407},
    {"NeMo 24.07 GPT3-20B FP8, 64 H100, TP2", "nemo2407-gpt3-20b-h100-fp8.yaml", "tokens_per_s_gpu", 5851,
     "tokens/s/GPU", kNemo2407},
    {"NeMo 24.07 GPT3-175B FP8, 128 H100, TP4 PP8 VP6", "nemo2407-gpt3-175b-128-h100-fp8.yaml",
     "tokens_per_s_gpu", 716, "tokens/s/GPU", kNemo2407},
    {"NeMo 24.07 GPT3-175B FP8, 512 H100, TP4 PP8 VP6", "nemo2407-gpt3-175b-512-h100-fp8.yaml",
     "tokens_per_s_gpu", 825, "tokens/s/GPU", kNemo2407},
    {"NeMo 24.07 LLAMA2-7B FP8, 8 H100, TP1", "nemo2407-llama2-7b-h100-fp8.yaml", "tokens_per_s_gpu", 16934,
     "tokens/s/GPU", kNemo2407},
    {"NeMo 24.07 LLAMA2-13B FP8, 16 H100, TP1 PP4 VP10", "nemo2407-llama2-13b-h100-fp8.yaml",
     "tokens_per_s_gpu", 8715, "tokens/s/GPU", kNemo2407},
    {"NeMo 24.07 LLAMA2-70B FP8, 64 H100, TP4 PP4 VP20", "nemo2407-llama2-70b-h100-fp8.yaml",
     "tokens_per_s_gpu", 1728, "tokens/s/GPU", kNemo2407},
    {"NeMo 24.07 Nemotron-8B FP8, 64 H100, TP2", "nemo2407-nemotron-8b-h100-fp8.yaml", "tokens_per_s_gpu",
     12507, "tokens/s/GPU", kNemo2407},
    {"NeMo 24.07 Nemotron-22B FP8, 64 H100, TP2 PP4 VP10", "nemo2407-nemotron-22b-h100-fp8.yaml",
     "tokens_per_s_gpu", 4312, "tokens/s/GPU", kNemo2407},
    {"NeMo 24.07 Nemotron-340B FP8, 128 H100, TP8 PP8 VP12", "nemo2407-nemotron-340b-h100-fp8.yaml",
     "tokens_per_s_gpu", 326, "tokens/s/GPU", kNemo2407, -0.223, kNemotronZero2},
    {"NeMo 24.07 LLAMA3-8B FP8, 8 H100, TP1 CP2", "nemo2407-llama3-8b-h100-fp8.yaml", "tokens_per_s_gpu",
     12273, "tokens/s/GPU", kNemo2407},
    {"NeMo 24.07 LLAMA3-70B FP8, 64 H100, TP4 PP4 CP2 VP5", "nemo2407-llama3-70b-h100-fp8.yaml",
     "tokens_per_s_gpu", 1524, "tokens/s/GPU", kNemo2407},
    {"NeMo 25.11 DeepSeekV3 (w/ MTP) FP8, 256 B200, TP1 PP16 EP8", "nemo2511-deepseek-v3-mtp-b200-fp8.yaml",
     "tokens_per_s_gpu", 2139, "tokens/s/GPU", kNemo, +0.889, kSmallExpertMoe},
    {"NeMo 25.11 GPT OSS 120B BF16, 64 B200, TP1 EP8", "nemo2511-gpt-oss-120b-b200-bf16.yaml",
     "tokens_per_s_gpu", 8213, "tokens/s/GPU", kNemo, +2.383, kSmallExpertMoe},
    {"NeMo 25.11 Qwen3_30B_a3B FP8, 8 B200, TP1 EP8", "nemo2511-qwen3-30b-a3b-b200-fp8.yaml",
     "tokens_per_s_gpu", 9299, "tokens/s/GPU", kNemo, +2.495, kSmallExpertMoe},
    {"NeMo 25.11 Qwen3_235B_a22B FP8, 64 B200, TP1 PP8 VP2 EP8", "nemo2511-qwen3-235b-b200-fp8.yaml",
     "tokens_per_s_gpu", 3269, "tokens/s/GPU", kNemo, +1.037, kSmallExpertMoe},
    // The same table's other rows on the catalog's systems: GB200 (part of 72-GPU NVL72 racks) and the FP8-MX
    // figures it prints beside the FP8-CS ones. Left out: the 70B GB200 row (its recipe offloads 40 layers'
    // activations to the Grace host) and the H100 Qwen3 235B row (EP 32 over TP 2 x DP 16, Megatron's
    // expert-parallel folding across the tensor-parallel ranks), which a workload cannot state.
    {"NeMo 25.11 Llama 3 8B FP8-CS, 8 GB200", "nemo2511-llama3-8b-gb200-fp8.yaml", "tokens_per_s_gpu", 31508,
     "tokens/s/GPU", kNemo},
    {"NeMo 25.11 Llama 3 8B FP8-MX, 8 GB200", "nemo2511-llama3-8b-gb200-mxfp8.yaml", "tokens_per_s_gpu",
     29789, "tokens/s/GPU", kNemo, +0.184, kFp8MxRows},
    {"NeMo 25.11 Llama 3 8B FP8-MX, 8 B200", "nemo2511-llama3-8b-b200-mxfp8.yaml", "tokens_per_s_gpu", 29521,
     "tokens/s/GPU", kNemo},
    {"NeMo 25.11 Llama 3.1 405B FP8-MX, 128 B200, TP4 PP8 CP2", "nemo2511-llama31-405b-b200-mxfp8.yaml",
     "tokens_per_s_gpu", 624, "tokens/s/GPU", kNemo, +0.186, kFp8MxRows},
    {"NeMo 25.11 Llama 3.1 405B FP8-CS, 256 GB200, TP4 PP16", "nemo2511-llama31-405b-gb200-fp8.yaml",
     "tokens_per_s_gpu", 813, "tokens/s/GPU", kNemo},
    {"NeMo 25.11 Qwen3_30B_a3B FP8-MX, 8 GB200, MBS 4 EP8", "nemo2511-qwen3-30b-a3b-gb200-fp8.yaml",
     "tokens_per_s_gpu", 23766, "tokens/s/GPU", kNemo, +0.468, kSmallExpertMoeGb200},
    {"NeMo 25.11 Qwen3_235B_a22B BF16, 256 GB200, PP8 EP32", "nemo2511-qwen3-235b-gb200-bf16.yaml",
     "tokens_per_s_gpu", 4916, "tokens/s/GPU", kNemo, +0.166, kSmallExpertMoeGb200},
    {"NeMo 25.11 DeepSeekV3 (w/o MTP) BF16, 256 GB200, PP4 EP64", "nemo2511-deepseek-v3-gb200-bf16.yaml",
     "tokens_per_s_gpu", 3139, "tokens/s/GPU", kNemo, +0.232, kSmallExpertMoeGb200},
    {"NeMo 25.11 DeepSeekV3 (w/o MTP) FP8-MX, 256 GB200, PP8 EP32", "nemo2511-deepseek-v3-gb200-mxfp8.yaml",
     "tokens_per_s_gpu", 4018, "tokens/s/GPU", kNemo, +0.261, kSmallExpertMoeGb200},
    {"NeMo 25.11 GPT OSS 120B BF16, 64 GB200, EP64", "nemo2511-gpt-oss-120b-gb200-bf16.yaml",
     "tokens_per_s_gpu", 15876, "tokens/s/GPU", kNemo, +0.724, kSmallExpertMoeGb200},
    // The Megatron-Bridge tables after 25.11 (performance-summary.md's 26.08, the archive's 26.06 and
    // 26.04.01): each model, system and precision at its latest release, on GPUs of the catalog;
    // pre-training, and the Llama 3 70B SFT and LoRA rows. Left out: GB300 and B300 (not in the catalog);
    // Llama 3 70B FP8 on GB200 (FSDP 64, which a layout cannot state); Nemotron 3 (hybrid Mamba layers),
    // DeepSeek-V4 Flash and Kimi K2 (GB300 only). Qwen3-235B-A22B on H100 runs EP 32 over TP 2 x DP 16 with
    // expert TP 1 (MoE parallel folding); its 25.11 row joins with it.
    {"NeMo 26.08 DeepSeek-V3 MXFP8, 256 GB200, PP4 VP4 EP64",
     "nemo2608-deepseek-v3-pretrain-gb200-mxfp8.yaml", "tokens_per_s_gpu", 4912, "tokens/s/GPU", kNemo2608},
    {"NeMo 26.08 GPT-OSS 120B MXFP8, 64 GB200, EP64 MBS 4", "nemo2608-gpt-oss-120b-pretrain-gb200-mxfp8.yaml",
     "tokens_per_s_gpu", 28672, "tokens/s/GPU", kNemo2608, +0.301, kGptOss2608},
    {"NeMo 26.08 Qwen3-30B-A3B MXFP8, 8 GB200, EP8 MBS 4", "nemo2608-qwen3-30b-a3b-pretrain-gb200-mxfp8.yaml",
     "tokens_per_s_gpu", 39936, "tokens/s/GPU", kNemo2608},
    {"NeMo 26.08 Qwen3-235B-A22B MXFP8, 256 GB200, PP8 VP3 EP32",
     "nemo2608-qwen3-235b-a22b-pretrain-gb200-mxfp8.yaml", "tokens_per_s_gpu", 7280, "tokens/s/GPU",
     kNemo2608},
    {"NeMo 26.06 Llama 3.1 405B FP8, 256 GB200, TP4 PP16 VP4",
     "nemo2606-llama31-405b-pretrain-gb200-fp8.yaml", "tokens_per_s_gpu", 843, "tokens/s/GPU",
     kNemoArchive26},
    {"NeMo 26.06 Llama 3.1 405B MXFP8, 256 GB200, TP4 PP16 VP8",
     "nemo2606-llama31-405b-pretrain-gb200-mxfp8.yaml", "tokens_per_s_gpu", 783, "tokens/s/GPU",
     kNemoArchive26},
    {"NeMo 26.06 Llama 3.1 405B NVFP4, 256 GB200, TP4 PP16 VP8",
     "nemo2606-llama31-405b-pretrain-gb200-nvfp4.yaml", "tokens_per_s_gpu", 1166, "tokens/s/GPU",
     kNemoArchive26, -0.233, kNvfp4Training},
    {"NeMo 26.06 Llama 3.1 405B FP8, 1024 H100, TP8 PP8 CP2 VP8",
     "nemo2606-llama31-405b-pretrain-h100-fp8.yaml", "tokens_per_s_gpu", 326, "tokens/s/GPU", kNemoArchive26},
    {"NeMo 26.06 Qwen3-30B-A3B FP8, 16 H100, EP16", "nemo2606-qwen3-30b-a3b-pretrain-h100-fp8.yaml",
     "tokens_per_s_gpu", 8826, "tokens/s/GPU", kNemoArchive26},
    {"NeMo 26.06 Llama 3 70B SFT FP8, 32 H100, TP4 PP4 VP5", "nemo2606-llama3-70b-sft-h100-fp8.yaml",
     "tokens_per_s_gpu", 1638, "tokens/s/GPU", kNemoArchive26},
    {"NeMo 26.06 Llama 3 70B SFT FP8, 32 GB200, PP8 VP10", "nemo2606-llama3-70b-sft-gb200-fp8.yaml",
     "tokens_per_s_gpu", 3864, "tokens/s/GPU", kNemoArchive26},
    {"NeMo 26.06 Llama 3 70B SFT MXFP8, 32 GB200, PP8 VP10", "nemo2606-llama3-70b-sft-gb200-mxfp8.yaml",
     "tokens_per_s_gpu", 3593, "tokens/s/GPU", kNemoArchive26},
    {"NeMo 26.06 Llama 3 70B LoRA FP8, 8 H100, TP2 PP4 VP20", "nemo2606-llama3-70b-lora-h100-fp8.yaml",
     "tokens_per_s_gpu", 2643, "tokens/s/GPU", kNemoArchive26},
    {"NeMo 26.06 Llama 3 70B LoRA FP8, 8 GB200, PP2 VP20", "nemo2606-llama3-70b-lora-gb200-fp8.yaml",
     "tokens_per_s_gpu", 6206, "tokens/s/GPU", kNemoArchive26},
    {"NeMo 26.06 Llama 3 70B LoRA MXFP8, 8 GB200, PP4 VP20", "nemo2606-llama3-70b-lora-gb200-mxfp8.yaml",
     "tokens_per_s_gpu", 5958, "tokens/s/GPU", kNemoArchive26},
    {"NeMo 26.04.01 Llama 3 70B MXFP8, 64 GB200, TP2 PP4 VP5",
     "nemo260401-llama3-70b-pretrain-gb200-mxfp8.yaml", "tokens_per_s_gpu", 3712, "tokens/s/GPU",
     kNemoArchive26},
    {"NeMo 26.04.01 Llama 3 70B NVFP4, 64 GB200, TP2 PP4 VP5",
     "nemo260401-llama3-70b-pretrain-gb200-nvfp4.yaml", "tokens_per_s_gpu", 4864, "tokens/s/GPU",
     kNemoArchive26},
    {"NeMo 26.04.01 Llama 3 70B FP8, 64 H100, TP4 PP8 VP5", "nemo260401-llama3-70b-pretrain-h100-fp8.yaml",
     "tokens_per_s_gpu", 1664, "tokens/s/GPU", kNemoArchive26},
    {"NeMo 26.04.01 DeepSeek-V3 MXFP8, 256 B200, PP8 VP2 EP32",
     "nemo260401-deepseek-v3-pretrain-b200-mxfp8.yaml", "tokens_per_s_gpu", 3328, "tokens/s/GPU",
     kNemoArchive26, -0.229, kDeepSeekEpOverlap},
    {"NeMo 26.04.01 GPT-OSS 120B BF16, 64 GB200, EP64 MBS 4",
     "nemo260401-gpt-oss-120b-pretrain-gb200-bf16.yaml", "tokens_per_s_gpu", 16640, "tokens/s/GPU",
     kNemoArchive26, +0.754, kSmallExpertMoe2604},
    {"NeMo 26.04.01 GPT-OSS 120B BF16, 64 B200, EP8 MBS 4", "nemo260401-gpt-oss-120b-pretrain-b200-bf16.yaml",
     "tokens_per_s_gpu", 13568, "tokens/s/GPU", kNemoArchive26, +1.072, kSmallExpertMoe2604},
    {"NeMo 26.04.01 GPT-OSS 120B BF16, 64 H100, PP4 EP8", "nemo260401-gpt-oss-120b-pretrain-h100-bf16.yaml",
     "tokens_per_s_gpu", 5824, "tokens/s/GPU", kNemoArchive26, +0.562, kSmallExpertMoe2604},
    {"NeMo 26.04.01 Qwen3-30B-A3B MXFP8, 8 B200, EP8 MBS 4",
     "nemo260401-qwen3-30b-a3b-pretrain-b200-mxfp8.yaml", "tokens_per_s_gpu", 27136, "tokens/s/GPU",
     kNemoArchive26, +0.261, kSmallExpertMoe2604},
    {"NeMo 26.04.01 Qwen3-235B-A22B FP8, 256 H100, TP2 PP8 VP4 EP32 (expert TP 1)",
     "nemo260401-qwen3-235b-a22b-pretrain-h100-fp8.yaml", "tokens_per_s_gpu", 1712, "tokens/s/GPU",
     kNemoArchive26, -0.172, kQwen235H100Ep},
    {"NeMo 25.11 Qwen3-235B-A22B FP8-CS, 256 H100, TP2 PP8 VP4 EP32 (expert TP 1)",
     "nemo2511-qwen3-235b-a22b-pretrain-h100-fp8.yaml", "tokens_per_s_gpu", 1575, "tokens/s/GPU", kNemo},
    {"NeMo 26.04.01 Qwen3-235B-A22B MXFP8, 256 B200, PP8 EP8",
     "nemo260401-qwen3-235b-a22b-pretrain-b200-mxfp8.yaml", "tokens_per_s_gpu", 3776, "tokens/s/GPU",
     kNemoArchive26, +0.714, kSmallExpertMoe2604},
    // MLPerf Training v4.0, v4.1, v5.0 and v5.1 (closed division): each system's logged step time (median
    // over its runs) with its launch config's layout, on GPUs of the catalog in FP8; every system whose log
    // or launch line names a config that reproduces its logged batch, so a layout appears once per system
    // that ran it. Left out: NVFP4 runs (most v5.1 B200 and GB200 8-GPU ones), B300/GB300, configs that do
    // not reproduce their logged batch, resubmitted runs, and v4.1 partners' runs (their configs not read).
    {"MLPerf 4.0 GPT-3 175B FP8, 512 H100, TP4 PP8 VP4 MBS 2", "mlperf40-gpt3-175b-h100-512.yaml",
     "tokens_per_s_gpu", 839, "tokens/s/GPU", kMlperfTraining40},
    {"MLPerf 4.0 GPT-3 175B FP8, 10752 H100, TP4 PP6 VP8", "mlperf40-gpt3-175b-h100-10752.yaml",
     "tokens_per_s_gpu", 556, "tokens/s/GPU", kMlperfTraining40},
    {"MLPerf 4.0 GPT-3 175B FP8, 11616 H100, TP4 PP6 VP8", "mlperf40-gpt3-175b-h100-11616.yaml",
     "tokens_per_s_gpu", 556, "tokens/s/GPU", kMlperfTraining40},
    {"MLPerf 4.0 Llama 2 70B LoRA FP8, 8 H100, TP4", "mlperf40-llama2-70b-lora-h100-8.yaml",
     "tokens_per_s_gpu", 2205, "tokens/s/GPU", kMlperfTraining40},
    {"MLPerf 4.0 Llama 2 70B LoRA FP8, 64 H100, TP4 CP2", "mlperf40-llama2-70b-lora-h100-64.yaml",
     "tokens_per_s_gpu", 1606, "tokens/s/GPU", kMlperfTraining40, +0.323, kMlperf40LoraCp},
    {"MLPerf 4.0 Llama 2 70B LoRA FP8, 1024 H100, TP4 CP2", "mlperf40-llama2-70b-lora-h100-1024.yaml",
     "tokens_per_s_gpu", 1516, "tokens/s/GPU", kMlperfTraining40, +0.401, kMlperf40LoraCp},
    {"MLPerf 4.0 Llama 2 70B LoRA FP8, 8 H200, TP2", "mlperf40-llama2-70b-lora-h200-8.yaml",
     "tokens_per_s_gpu", 2533, "tokens/s/GPU", kMlperfTraining40},
    {"MLPerf 4.1 GPT-3 175B FP8, 256 H100, TP4 PP8 VP6 MBS 2", "mlperf41-gpt3-175b-h100-256.yaml",
     "tokens_per_s_gpu", 892, "tokens/s/GPU", kMlperfTraining41},
    {"MLPerf 4.1 GPT-3 175B FP8, 512 H100, TP4 PP8 VP6 MBS 2", "mlperf41-gpt3-175b-h100-512.yaml",
     "tokens_per_s_gpu", 862, "tokens/s/GPU", kMlperfTraining41},
    {"MLPerf 4.1 GPT-3 175B FP8, 64 B200, TP4 PP8 VP6 MBS 2", "mlperf41-gpt3-175b-b200-64.yaml",
     "tokens_per_s_gpu", 1809, "tokens/s/GPU", kMlperfTraining41},
    {"MLPerf 5.0 Llama 3.1 405B FP8, 512 H100, TP8 PP8 CP2", "mlperf50-llama31-405b-h100-512.yaml",
     "tokens_per_s_gpu", 334, "tokens/s/GPU", kMlperfTraining50},
    {"MLPerf 5.0 Llama 3.1 405B FP8, 2048 H100, TP8 PP8 CP2", "mlperf50-llama31-405b-h100-2048.yaml",
     "tokens_per_s_gpu", 324, "tokens/s/GPU", kMlperfTraining50},
    {"MLPerf 5.0 Llama 3.1 405B FP8, 2432 H100, TP8 PP8 CP2", "mlperf50-llama31-405b-h100-2432.yaml",
     "tokens_per_s_gpu", 322, "tokens/s/GPU", kMlperfTraining50},
    {"MLPerf 5.0 Llama 3.1 405B FP8, 2560 H100, TP8 PP8 CP2", "mlperf50-llama31-405b-h100-2560.yaml",
     "tokens_per_s_gpu", 321, "tokens/s/GPU", kMlperfTraining50},
    {"MLPerf 5.0 Llama 3.1 405B FP8, 8192 H100, TP8 PP8 CP2", "mlperf50-llama31-405b-h100-8192.yaml",
     "tokens_per_s_gpu", 297, "tokens/s/GPU", kMlperfTraining50},
    {"MLPerf 5.0 Llama 3.1 405B FP8, 256 GB200, TP4 PP8 CP2", "mlperf50-llama31-405b-gb200-256.yaml",
     "tokens_per_s_gpu", 749, "tokens/s/GPU", kMlperfTraining50},
    {"MLPerf 5.0 Llama 3.1 405B FP8, 512 GB200, TP4 PP8 CP2", "mlperf50-llama31-405b-gb200-512.yaml",
     "tokens_per_s_gpu", 736, "tokens/s/GPU", kMlperfTraining50},
    {"MLPerf 5.0 Llama 3.1 405B FP8, 1024 GB200 (IBM), TP4 PP8 CP2",
     "mlperf50-llama31-405b-gb200-1024-ibm.yaml", "tokens_per_s_gpu", 727, "tokens/s/GPU", kMlperfTraining50},
    {"MLPerf 5.0 Llama 3.1 405B FP8, 2496 GB200 (IBM), TP4 PP8 CP2",
     "mlperf50-llama31-405b-gb200-2496-ibm.yaml", "tokens_per_s_gpu", 703, "tokens/s/GPU", kMlperfTraining50},
    {"MLPerf 5.0 Llama 3.1 405B FP8, 512 H200 (Nebius), TP4 PP8 CP2",
     "mlperf50-llama31-405b-h200-512-nebius.yaml", "tokens_per_s_gpu", 369, "tokens/s/GPU",
     kMlperfTraining50},
    {"MLPerf 5.0 Llama 3.1 405B FP8, 1024 H200 (Nebius), TP4 PP8 CP2",
     "mlperf50-llama31-405b-h200-1024-nebius.yaml", "tokens_per_s_gpu", 363, "tokens/s/GPU",
     kMlperfTraining50},
    {"MLPerf 5.1 Llama 3.1 405B FP8, 256 B200 (University-of-Florida), TP4 PP8 CP2",
     "mlperf51-llama31-405b-b200-256-university.yaml", "tokens_per_s_gpu", 666, "tokens/s/GPU",
     kMlperfTraining51, +0.154, kMlperf405bB200},
    {"MLPerf 5.1 Llama 3.1 405B FP8, 448 B200 (University-of-Florida), TP4 PP8 CP2",
     "mlperf51-llama31-405b-b200-448-university.yaml", "tokens_per_s_gpu", 659, "tokens/s/GPU",
     kMlperfTraining51, +0.165, kMlperf405bB200},
    {"MLPerf 5.1 Llama 3.1 8B FP8, 72 GB200, TP1 CP2", "mlperf51-llama31-8b-gb200-72.yaml",
     "tokens_per_s_gpu", 23938, "tokens/s/GPU", kMlperfTraining51, +0.316, kMlperfSmallSteps},
    {"MLPerf 5.1 Llama 3.1 8B FP8, 512 GB200, TP2 CP4", "mlperf51-llama31-8b-gb200-512.yaml",
     "tokens_per_s_gpu", 11518, "tokens/s/GPU", kMlperfTraining51, +1.062, kMlperfSmallSteps},
    {"MLPerf 5.1 Llama 3.1 8B FP8, 8 B200 (University-of-Florida), TP1 MBS 2",
     "mlperf51-llama31-8b-b200-8-university.yaml", "tokens_per_s_gpu", 30095, "tokens/s/GPU",
     kMlperfTraining51},
    {"MLPerf 5.1 Llama 3.1 8B FP8, 16 B200 (University-of-Florida), TP1 MBS 2",
     "mlperf51-llama31-8b-b200-16-university.yaml", "tokens_per_s_gpu", 28536, "tokens/s/GPU",
     kMlperfTraining51, +0.150, kMlperf8bTwoNodes},
    {"MLPerf 5.1 Llama 3.1 8B FP8, 32 B200 (University-of-Florida), TP1 CP2",
     "mlperf51-llama31-8b-b200-32-university.yaml", "tokens_per_s_gpu", 21753, "tokens/s/GPU",
     kMlperfTraining51, +0.361, kMlperfSmallSteps},
    {"MLPerf 5.1 Llama 3.1 8B FP8, 64 B200 (University-of-Florida), TP1 CP2",
     "mlperf51-llama31-8b-b200-64-university.yaml", "tokens_per_s_gpu", 21621, "tokens/s/GPU",
     kMlperfTraining51, +0.373, kMlperfSmallSteps},
    {"MLPerf 5.1 Llama 3.1 8B FP8, 128 B200 (University-of-Florida), TP1 CP2",
     "mlperf51-llama31-8b-b200-128-university.yaml", "tokens_per_s_gpu", 21254, "tokens/s/GPU",
     kMlperfTraining51, +0.398, kMlperfSmallSteps},
    {"MLPerf 5.1 Llama 3.1 8B FP8, 256 B200 (University-of-Florida), TP1 CP2",
     "mlperf51-llama31-8b-b200-256-university.yaml", "tokens_per_s_gpu", 18527, "tokens/s/GPU",
     kMlperfTraining51, +0.605, kMlperfSmallSteps},
    {"MLPerf 5.1 Llama 3.1 8B FP8, 64 H200 (HPE), TP1 CP2", "mlperf51-llama31-8b-h200-64-hpe.yaml",
     "tokens_per_s_gpu", 11599, "tokens/s/GPU", kMlperfTraining51, +0.214, kMlperfSmallSteps},
    {"MLPerf 4.1 Llama 2 70B LoRA FP8, 8 H100, TP4", "mlperf41-llama2-70b-lora-h100-8.yaml",
     "tokens_per_s_gpu", 2235, "tokens/s/GPU", kMlperfTraining41},
    {"MLPerf 4.1 Llama 2 70B LoRA FP8, 8 H200, TP1 CP2", "mlperf41-llama2-70b-lora-h200-8.yaml",
     "tokens_per_s_gpu", 2536, "tokens/s/GPU", kMlperfTraining41},
    {"MLPerf 4.1 Llama 2 70B LoRA FP8, 64 H100, TP4 CP2", "mlperf41-llama2-70b-lora-h100-64.yaml",
     "tokens_per_s_gpu", 1891, "tokens/s/GPU", kMlperfTraining41},
    {"MLPerf 4.1 Llama 2 70B LoRA FP8, 1024 H100, TP4 CP2", "mlperf41-llama2-70b-lora-h100-1024.yaml",
     "tokens_per_s_gpu", 1879, "tokens/s/GPU", kMlperfTraining41},
    {"MLPerf 4.1 Llama 2 70B LoRA FP8, 8 B200, TP1 CP2", "mlperf41-llama2-70b-lora-b200-8.yaml",
     "tokens_per_s_gpu", 4809, "tokens/s/GPU", kMlperfTraining41, +0.344, kMlperfLoraBlackwell},
    {"MLPerf 5.0 Llama 2 70B LoRA FP8, 8 B200, TP1", "mlperf50-llama2-70b-lora-b200-8.yaml",
     "tokens_per_s_gpu", 5417, "tokens/s/GPU", kMlperfTraining50, +0.233, kMlperfLoraBlackwell},
    {"MLPerf 5.0 Llama 2 70B LoRA FP8, 8 GB200, TP1", "mlperf50-llama2-70b-lora-gb200-8.yaml",
     "tokens_per_s_gpu", 5514, "tokens/s/GPU", kMlperfTraining50, +0.231, kMlperfLoraBlackwell},
    {"MLPerf 5.0 Llama 2 70B LoRA FP8, 72 GB200, TP1 CP8", "mlperf50-llama2-70b-lora-gb200-72.yaml",
     "tokens_per_s_gpu", 4296, "tokens/s/GPU", kMlperfTraining50, +0.382, kMlperfLoraContextSplit},
    {"MLPerf 5.0 Llama 2 70B LoRA FP8, 144 GB200, TP1 CP8", "mlperf50-llama2-70b-lora-gb200-144.yaml",
     "tokens_per_s_gpu", 4198, "tokens/s/GPU", kMlperfTraining50, +0.415, kMlperfLoraContextSplit},
    {"MLPerf 5.0 Llama 2 70B LoRA FP8, 512 GB200, TP1 CP8", "mlperf50-llama2-70b-lora-gb200-512.yaml",
     "tokens_per_s_gpu", 3974, "tokens/s/GPU", kMlperfTraining50, +0.494, kMlperfLoraContextSplit},
    {"MLPerf 5.0 Llama 2 70B LoRA FP8, 64 B200 (Oracle), TP1 CP8",
     "mlperf50-llama2-70b-lora-b200-64-oracle.yaml", "tokens_per_s_gpu", 4003, "tokens/s/GPU",
     kMlperfTraining50, +0.463, kMlperfLoraContextSplit},
    {"MLPerf 5.1 Llama 2 70B LoRA FP8, 72 GB200, TP1 CP8", "mlperf51-llama2-70b-lora-gb200-72.yaml",
     "tokens_per_s_gpu", 5136, "tokens/s/GPU", kMlperfTraining51, +0.156, kMlperfLoraContextSplit},
    {"MLPerf 5.1 Llama 2 70B LoRA FP8, 512 GB200, TP1 CP8", "mlperf51-llama2-70b-lora-gb200-512.yaml",
     "tokens_per_s_gpu", 4860, "tokens/s/GPU", kMlperfTraining51, +0.222, kMlperfLoraContextSplit},
    {"MLPerf 5.1 Llama 2 70B LoRA FP8, 8 B200 (Dell), TP1", "mlperf51-llama2-70b-lora-b200-8-dell.yaml",
     "tokens_per_s_gpu", 6323, "tokens/s/GPU", kMlperfTraining51},
    {"MLPerf 5.1 Llama 2 70B LoRA FP8, 32 B200 (University-of-Florida), TP1 CP4",
     "mlperf51-llama2-70b-lora-b200-32-university.yaml", "tokens_per_s_gpu", 5401, "tokens/s/GPU",
     kMlperfTraining51},
    {"MLPerf 5.1 Llama 2 70B LoRA FP8, 64 B200 (University-of-Florida), TP1 CP8",
     "mlperf51-llama2-70b-lora-b200-64-university.yaml", "tokens_per_s_gpu", 4752, "tokens/s/GPU",
     kMlperfTraining51, +0.232, kMlperfLoraContextSplit},
    {"MLPerf 5.0 Llama 2 70B LoRA FP8, 8 B200 (Dell 1xXE9680Lx8B200-SXM-180GB), TP1",
     "mlperf50-llama2-70b-lora-b200-8-dell-1xxe9680lx8b200-sxm-180gb.yaml", "tokens_per_s_gpu", 5409,
     "tokens/s/GPU", kMlperfTraining50, +0.235, kMlperfLoraBlackwell},
    {"MLPerf 5.0 Llama 2 70B LoRA FP8, 8 B200 (GigaComputing G893-SD1_pytorch), TP1",
     "mlperf50-llama2-70b-lora-b200-8-gigacomputing-g893-sd1.yaml", "tokens_per_s_gpu", 5391, "tokens/s/GPU",
     kMlperfTraining50, +0.239, kMlperfLoraBlackwell},
    {"MLPerf 5.0 Llama 2 70B LoRA FP8, 8 B200 (Lambda 1cc_b200_n1_ngc25.04_nemo), TP1",
     "mlperf50-llama2-70b-lora-b200-8-lambda-1cc.yaml", "tokens_per_s_gpu", 5385, "tokens/s/GPU",
     kMlperfTraining50, +0.241, kMlperfLoraBlackwell},
    {"MLPerf 5.0 Llama 2 70B LoRA FP8, 8 B200 (Lenovo SR780aV3-8xB200_SXM_180GB), TP1",
     "mlperf50-llama2-70b-lora-b200-8-lenovo-sr780av3-8xb200.yaml", "tokens_per_s_gpu", 5373, "tokens/s/GPU",
     kMlperfTraining50, +0.243, kMlperfLoraBlackwell},
    {"MLPerf 5.0 Llama 2 70B LoRA FP8, 8 B200 (Oracle 1xBM.GPU.B200.8), TP1",
     "mlperf50-llama2-70b-lora-b200-8-oracle-bm.yaml", "tokens_per_s_gpu", 5366, "tokens/s/GPU",
     kMlperfTraining50, +0.245, kMlperfLoraBlackwell},
    {"MLPerf 5.0 Llama 2 70B LoRA FP8, 8 B200 (Supermicro AS-4126GS-NBR-LCC_N1), TP1",
     "mlperf50-llama2-70b-lora-b200-8-supermicro-as-4126gs-nbr-lcc.yaml", "tokens_per_s_gpu", 5325,
     "tokens/s/GPU", kMlperfTraining50, +0.255, kMlperfLoraBlackwell},
    {"MLPerf 5.0 Llama 2 70B LoRA FP8, 8 B200 (Supermicro AS-A126GS-TNBR), TP1",
     "mlperf50-llama2-70b-lora-b200-8-supermicro-as-a126gs-tnbr.yaml", "tokens_per_s_gpu", 5426,
     "tokens/s/GPU", kMlperfTraining50, +0.231, kMlperfLoraBlackwell},
    {"MLPerf 5.0 Llama 2 70B LoRA FP8, 8 B200 (Supermicro SYS-422GA-NBRT-LCC), TP1",
     "mlperf50-llama2-70b-lora-b200-8-supermicro-sys-422ga-nbrt-lcc.yaml", "tokens_per_s_gpu", 5422,
     "tokens/s/GPU", kMlperfTraining50, +0.232, kMlperfLoraBlackwell},
    {"MLPerf 5.0 Llama 2 70B LoRA FP8, 8 B200 (Supermicro SYS-A21GE-NBRT), TP1",
     "mlperf50-llama2-70b-lora-b200-8-supermicro-sys-a21ge-nbrt.yaml", "tokens_per_s_gpu", 5400,
     "tokens/s/GPU", kMlperfTraining50, +0.237, kMlperfLoraBlackwell},
    {"MLPerf 5.0 Llama 2 70B LoRA FP8, 8 GB200 (Oracle 2xBM.GPU.GB200.4), TP1",
     "mlperf50-llama2-70b-lora-gb200-8-oracle.yaml", "tokens_per_s_gpu", 5520, "tokens/s/GPU",
     kMlperfTraining50, +0.229, kMlperfLoraBlackwell},
    {"MLPerf 5.0 Llama 2 70B LoRA FP8, 72 GB200 (Oracle 18xBM.GPU.GB200.4), TP1 CP8",
     "mlperf50-llama2-70b-lora-gb200-72-oracle.yaml", "tokens_per_s_gpu", 4502, "tokens/s/GPU",
     kMlperfTraining50, +0.319, kMlperfLoraContextSplit},
    {"MLPerf 5.0 Llama 2 70B LoRA FP8, 72 GB200 (Supermicro ARS-121GL-NBO_18), TP1 CP8",
     "mlperf50-llama2-70b-lora-gb200-72-supermicro.yaml", "tokens_per_s_gpu", 4460, "tokens/s/GPU",
     kMlperfTraining50, +0.332, kMlperfLoraContextSplit},
    {"MLPerf 5.1 Llama 2 70B LoRA FP8, 8 B200 (Dell 1xXE9780x8B200-SXM-180GB), TP1",
     "mlperf51-llama2-70b-lora-b200-8-dell-xe9780x8b200-sxm-180gb.yaml", "tokens_per_s_gpu", 6320,
     "tokens/s/GPU", kMlperfTraining51},
    {"MLPerf 5.1 Llama 2 70B LoRA FP8, 8 B200 (GigaComputing G894-AD1_pytorch), TP1",
     "mlperf51-llama2-70b-lora-b200-8-gigacomputing-g894-ad1.yaml", "tokens_per_s_gpu", 6292, "tokens/s/GPU",
     kMlperfTraining51},
    {"MLPerf 5.1 Llama 2 70B LoRA FP8, 8 B200 (Lenovo SR680aV3-8xB200_SXM_180GB), TP1",
     "mlperf51-llama2-70b-lora-b200-8-lenovo-sr680av3-8xb200.yaml", "tokens_per_s_gpu", 6335, "tokens/s/GPU",
     kMlperfTraining51},
    {"MLPerf 5.1 Llama 2 70B LoRA FP8, 8 B200 (Lenovo SR780aV3-8xB200_SXM_180GB), TP1",
     "mlperf51-llama2-70b-lora-b200-8-lenovo-sr780av3-8xb200.yaml", "tokens_per_s_gpu", 6233, "tokens/s/GPU",
     kMlperfTraining51},
    {"MLPerf 5.1 Llama 2 70B LoRA FP8, 8 B200 (Supermicro AS-4126GS-NBR-LCC), TP1",
     "mlperf51-llama2-70b-lora-b200-8-supermicro-as-4126gs-nbr-lcc.yaml", "tokens_per_s_gpu", 6245,
     "tokens/s/GPU", kMlperfTraining51},
    {"MLPerf 5.1 Llama 2 70B LoRA FP8, 8 B200 (Supermicro AS-A126GS-TNBR), TP1",
     "mlperf51-llama2-70b-lora-b200-8-supermicro-as-a126gs-tnbr.yaml", "tokens_per_s_gpu", 6288,
     "tokens/s/GPU", kMlperfTraining51},
    {"MLPerf 5.1 Llama 2 70B LoRA FP8, 8 B200 (Supermicro SYS-422GS-NBRT-LCC), TP1",
     "mlperf51-llama2-70b-lora-b200-8-supermicro-sys-422gs-nbrt-lcc.yaml", "tokens_per_s_gpu", 6312,
     "tokens/s/GPU", kMlperfTraining51},
    {"MLPerf 5.1 Llama 2 70B LoRA FP8, 8 B200 (University-of-Florida hpg.dgxb200x8.n1), TP1",
     "mlperf51-llama2-70b-lora-b200-8-university-hpg.yaml", "tokens_per_s_gpu", 6213, "tokens/s/GPU",
     kMlperfTraining51},
    {"MLPerf 5.1 Llama 2 70B LoRA FP8, 16 B200 (Dell 2xXE9680Lx8B200-SXM-180GB), TP1",
     "mlperf51-llama2-70b-lora-b200-16-dell.yaml", "tokens_per_s_gpu", 5883, "tokens/s/GPU",
     kMlperfTraining51},
    {"MLPerf 5.1 Llama 2 70B LoRA FP8, 16 B200 (University-of-Florida hpg.dgxb200x8.n2), TP1",
     "mlperf51-llama2-70b-lora-b200-16-university.yaml", "tokens_per_s_gpu", 6190, "tokens/s/GPU",
     kMlperfTraining51},
    {"MLPerf 5.1 Llama 2 70B LoRA FP8, 128 B200 (University-of-Florida hpg.dgxb200x8.n16), TP1 CP8",
     "mlperf51-llama2-70b-lora-b200-128-university.yaml", "tokens_per_s_gpu", 4867, "tokens/s/GPU",
     kMlperfTraining51, +0.203, kMlperfLoraContextSplit},
    {"MLPerf 5.1 Llama 2 70B LoRA FP8, 32 B200 (Nebius nebius_b200_n4), TP1 CP4",
     "mlperf51-llama2-70b-lora-b200-32-nebius.yaml", "tokens_per_s_gpu", 5039, "tokens/s/GPU",
     kMlperfTraining51, +0.220, kMlperfLoraContextSplit},
    {"MLPerf 5.1 Llama 2 70B LoRA FP8, 8 H200 (Dell 1xXE9680Lx8H200-SXM-141GB), TP2",
     "mlperf51-llama2-70b-lora-h200-8-dell.yaml", "tokens_per_s_gpu", 2603, "tokens/s/GPU",
     kMlperfTraining51},
    {"MLPerf 5.1 Llama 2 70B LoRA FP8, 72 GB200 (Wiwynn 1xKinabalux18x4GB200), TP1 CP8",
     "mlperf51-llama2-70b-lora-gb200-72-wiwynn.yaml", "tokens_per_s_gpu", 5209, "tokens/s/GPU",
     kMlperfTraining51},
    {"MLPerf 5.1 Llama 2 70B LoRA FP8, 576 GB200 (Wiwynn 8xKinabalux18x4GB200), TP1 CP8",
     "mlperf51-llama2-70b-lora-gb200-576-wiwynn.yaml", "tokens_per_s_gpu", 4825, "tokens/s/GPU",
     kMlperfTraining51, +0.231, kMlperfLoraContextSplit},
    {"MLPerf 5.0 Llama 3.1 405B FP8, 512 GB200 (IBM carina_ngpu512_ngc25.04_nemo), TP4 PP8 CP2",
     "mlperf50-llama31-405b-gb200-512-ibm.yaml", "tokens_per_s_gpu", 742, "tokens/s/GPU", kMlperfTraining50},
    {"MLPerf 5.0 Llama 3.1 405B FP8, 1536 GB200 (IBM carina_ngpu1536_ngc25.04_nemo), TP4 PP8 CP2",
     "mlperf50-llama31-405b-gb200-1536-ibm.yaml", "tokens_per_s_gpu", 722, "tokens/s/GPU", kMlperfTraining50},
    {"MLPerf 5.0 Llama 3.1 405B FP8, 2048 GB200 (IBM carina_ngpu2048_ngc25.04_nemo), TP4 PP8 CP2",
     "mlperf50-llama31-405b-gb200-2048-ibm.yaml", "tokens_per_s_gpu", 715, "tokens/s/GPU", kMlperfTraining50},
    {"MLPerf 5.1 Llama 3.1 8B FP8, 16 B200 (Dell 2xXE9680Lx8B200-SXM-180GB), TP1 MBS 2",
     "mlperf51-llama31-8b-b200-16-dell-xe9680l.yaml", "tokens_per_s_gpu", 28167, "tokens/s/GPU",
     kMlperfTraining51, +0.165, kMlperf8bTwoNodes},
    {"MLPerf 5.1 Llama 3.1 8B FP8, 16 B200 (Dell 2xXE9685Lx8B200-SXM-180GB), TP1 MBS 2",
     "mlperf51-llama31-8b-b200-16-dell-xe9685l.yaml", "tokens_per_s_gpu", 28464, "tokens/s/GPU",
     kMlperfTraining51, +0.153, kMlperf8bTwoNodes},
    {"MLPerf 5.1 Llama 3.1 8B FP8, 64 B200 (Oracle 8xBM.GPU.B200.8), TP1 CP2",
     "mlperf51-llama31-8b-b200-64-oracle.yaml", "tokens_per_s_gpu", 21529, "tokens/s/GPU", kMlperfTraining51,
     +0.379, kMlperfSmallSteps},
    {"MLPerf 5.1 Llama 3.1 8B FP8, 64 B200 (Verda b200_8x8_ngc25.09), TP1 CP2",
     "mlperf51-llama31-8b-b200-64-verda.yaml", "tokens_per_s_gpu", 21439, "tokens/s/GPU", kMlperfTraining51,
     +0.384, kMlperfSmallSteps},
    {"MLPerf 5.0 Llama 2 70B LoRA FP8, 4 GB200 (Oracle 1xBM.GPU.GB200.4), TP1 CP2",
     "mlperf50-llama2-70b-lora-gb200-4-oracle.yaml", "tokens_per_s_gpu", 5509, "tokens/s/GPU",
     kMlperfTraining50, +0.168, kMlperfLoraBlackwell},
    {"MLPerf 5.0 Llama 2 70B LoRA FP8, 8 B200 (Supermicro AS-A126GS-TNBR_N1), TP1",
     "mlperf50-llama2-70b-lora-b200-8-supermicro-as-a126gs-tnbr-n1.yaml", "tokens_per_s_gpu", 5407,
     "tokens/s/GPU", kMlperfTraining50, +0.236, kMlperfLoraBlackwell},
    {"MLPerf 5.1 Llama 3.1 8B FP8, 64 H100 (Cisco hpf_n8), TP1", "mlperf51-llama31-8b-h100-64-cisco.yaml",
     "tokens_per_s_gpu", 11369, "tokens/s/GPU", kMlperfTraining51, +0.216, kMlperf8bH100},
    {"MLPerf 5.1 Llama 3.1 8B FP8, 128 H100 (Cisco hpf_n16), TP2", "mlperf51-llama31-8b-h100-128-cisco.yaml",
     "tokens_per_s_gpu", 8446, "tokens/s/GPU", kMlperfTraining51, +0.490, kMlperf8bH100},
    {"MLPerf 5.0 Llama 2 70B LoRA FP8, 16 H200 (ASUSTeK ESC_N8_E11_n2), TP2",
     "mlperf50-llama2-70b-lora-h200-16-asustek-esc-n8-e11-n2.yaml", "tokens_per_s_gpu", 2343, "tokens/s/GPU",
     kMlperfTraining50},
    {"MLPerf 5.0 Llama 2 70B LoRA FP8, 8 H200 (Dell 1xXE9680Lx8H200-SXM-141GB), TP1 CP2",
     "mlperf50-llama2-70b-lora-h200-8-dell-1xxe9680lx8h200.yaml", "tokens_per_s_gpu", 2601, "tokens/s/GPU",
     kMlperfTraining50},
    {"MLPerf 5.0 Llama 2 70B LoRA FP8, 8 H200 (Dell XE9680x8H200-SXM-141GB), TP1 CP2",
     "mlperf50-llama2-70b-lora-h200-8-dell-xe9680x8h200.yaml", "tokens_per_s_gpu", 2617, "tokens/s/GPU",
     kMlperfTraining50},
    {"MLPerf 5.0 Llama 2 70B LoRA FP8, 8 H200 (HPE HPE-Cray-XD670-H200-SXM5-141GB_n1_24.09), TP2",
     "mlperf50-llama2-70b-lora-h200-8-hpe-hpe-cray-xd670.yaml", "tokens_per_s_gpu", 2353, "tokens/s/GPU",
     kMlperfTraining50},
    {"MLPerf 5.0 Llama 2 70B LoRA FP8, 16 H200 (HPE HPE-Cray-XD670-H200-SXM5-141GB_n2_24.09), TP4",
     "mlperf50-llama2-70b-lora-h200-16-hpe-hpe-cray-xd670.yaml", "tokens_per_s_gpu", 2271, "tokens/s/GPU",
     kMlperfTraining50},
    {"MLPerf 5.0 Llama 2 70B LoRA FP8, 32 H200 (HPE HPE-Cray-XD670-H200-SXM5-141GB_n4_24.09), TP4",
     "mlperf50-llama2-70b-lora-h200-32-hpe-hpe-cray-xd670.yaml", "tokens_per_s_gpu", 2262, "tokens/s/GPU",
     kMlperfTraining50},
    {"MLPerf 5.0 Llama 2 70B LoRA FP8, 32 H200 (Lenovo 4xSR680Ax8H200-SXM-141GB), TP4",
     "mlperf50-llama2-70b-lora-h200-32-lenovo-4xsr680ax8h200.yaml", "tokens_per_s_gpu", 2263, "tokens/s/GPU",
     kMlperfTraining50},
    {"MLPerf 5.0 Llama 2 70B LoRA FP8, 8 H200 (Oracle 1xBM.GPU.H200.8), TP1 CP2",
     "mlperf50-llama2-70b-lora-h200-8-oracle-1xbm-gpu.yaml", "tokens_per_s_gpu", 2574, "tokens/s/GPU",
     kMlperfTraining50},
    {"MLPerf 5.0 Llama 2 70B LoRA FP8, 512 H200 (Oracle 64xBM.GPU.H200.8), TP4 CP2",
     "mlperf50-llama2-70b-lora-h200-512-oracle-64xbm-gpu.yaml", "tokens_per_s_gpu", 1297, "tokens/s/GPU",
     kMlperfTraining50, +0.748, kMlperfLora512H200},
    {"MLPerf 5.0 Llama 2 70B LoRA FP8, 8 H200 (QCT D74H-7U), TP1 CP2",
     "mlperf50-llama2-70b-lora-h200-8-qct-d74h-7u.yaml", "tokens_per_s_gpu", 2574, "tokens/s/GPU",
     kMlperfTraining50},
    {"MLPerf 5.0 Llama 2 70B LoRA FP8, 64 H100 (SCITIX scitix_n8_ngc24.09_nemo), TP4 CP2",
     "mlperf50-llama2-70b-lora-h100-64-scitix-scitix-n8-ngc24-09-nemo.yaml", "tokens_per_s_gpu", 1869,
     "tokens/s/GPU", kMlperfTraining50},
    {"MLPerf 5.0 Llama 2 70B LoRA FP8, 8 H200 (Supermicro AS-4125GS-TNHR2-LCC), TP1 CP2",
     "mlperf50-llama2-70b-lora-h200-8-supermicro-as-4125gs-tnhr2-lcc.yaml", "tokens_per_s_gpu", 2649,
     "tokens/s/GPU", kMlperfTraining50},
    {"MLPerf 5.0 Llama 2 70B LoRA FP8, 8 H200 (Supermicro SYS-821GE-TNHR), TP1 CP2",
     "mlperf50-llama2-70b-lora-h200-8-supermicro-sys-821ge-tnhr.yaml", "tokens_per_s_gpu", 2597,
     "tokens/s/GPU", kMlperfTraining50},
    {"MLPerf 5.1 Llama 2 70B LoRA FP8, 8 H200 (Cisco 1xC885A_M8-8xH200-SXM-141GB), TP1 CP2",
     "mlperf51-llama2-70b-lora-h200-8-cisco-1xc885a-m8-8xh200.yaml", "tokens_per_s_gpu", 2573, "tokens/s/GPU",
     kMlperfTraining51},
    {"MLPerf 5.1 Llama 2 70B LoRA FP8, 16 H200 (Cisco 2xC885A_M8-8xH200-SXM-141GB), TP2",
     "mlperf51-llama2-70b-lora-h200-16-cisco-2xc885a-m8-8xh200.yaml", "tokens_per_s_gpu", 2392,
     "tokens/s/GPU", kMlperfTraining51},
    {"MLPerf 5.1 Llama 2 70B LoRA FP8, 64 H100 (Cisco hpf_n8), TP4 CP2",
     "mlperf51-llama2-70b-lora-h100-64-cisco-hpf-n8.yaml", "tokens_per_s_gpu", 1885, "tokens/s/GPU",
     kMlperfTraining51},
    {"MLPerf 5.1 Llama 2 70B LoRA FP8, 128 H100 (Cisco hpf_n16), TP4 CP2",
     "mlperf51-llama2-70b-lora-h100-128-cisco-hpf-n16.yaml", "tokens_per_s_gpu", 1882, "tokens/s/GPU",
     kMlperfTraining51},
    {"MLPerf 5.1 Llama 2 70B LoRA FP8, 16 H200 (Krai Cray-XD670-H200-SXM5-141GB_n2_v5.0), TP2",
     "mlperf51-llama2-70b-lora-h200-16-krai-cray-xd670.yaml", "tokens_per_s_gpu", 2457, "tokens/s/GPU",
     kMlperfTraining51},
    {"MLPerf 5.1 Llama 2 70B LoRA FP8, 32 H200 (Krai Cray-XD670-H200-SXM5-141GB_n4_v5.0), TP4",
     "mlperf51-llama2-70b-lora-h200-32-krai-cray-xd670.yaml", "tokens_per_s_gpu", 2336, "tokens/s/GPU",
     kMlperfTraining51},
    {"MLPerf 5.1 Llama 2 70B LoRA FP8, 64 H200 (Krai Cray-XD670-H200-SXM5-141GB_n8_v5.0), TP4",
     "mlperf51-llama2-70b-lora-h200-64-krai-cray-xd670.yaml", "tokens_per_s_gpu", 2319, "tokens/s/GPU",
     kMlperfTraining51},
    {"MLPerf 5.1 Llama 2 70B LoRA FP8, 8 H200 (Quanta Cloud Technology D74H-7U), TP1 CP2",
     "mlperf51-llama2-70b-lora-h200-8-quanta-d74h-7u.yaml", "tokens_per_s_gpu", 2603, "tokens/s/GPU",
     kMlperfTraining51},
    // Whole-run GPU-hours.
    {"Llama 3 405B, 15.6T tokens, 16,384 H100", "llama3-405b-h100-gpu-hours.yaml", "gpu_hours", 30.84e6,
     "GPU-h", "Llama 3.1 model card (GPU hours) + Llama 3 paper (tokens, layout)", +0.166,
     kHeadroomRecomputeLlama3Run},
    {"Llama 3.1 8B, 15T tokens, 16,384 H100", "llama31-8b-h100-gpu-hours.yaml", "gpu_hours", 1.46e6, "GPU-h",
     "Llama 3.1 model card (GPU hours, tokens)", -0.501, kLlama31SmallRuns},
    {"Llama 3.1 70B, 15T tokens, 16,384 H100", "llama31-70b-h100-gpu-hours.yaml", "gpu_hours", 7.0e6, "GPU-h",
     "Llama 3.1 model card (GPU hours, tokens)", -0.288, kLlama31SmallRuns},
    {"LLaMA 65B, 1.4T tokens, 2,048 A100", "llama1-65b-a100.yaml", "gpu_hours", 1022362, "GPU-h",
     "LLaMA paper, Tables 2 and 15"},
    {"BLOOM 176B, 366B tokens, 384 A100", "bloom-176b-a100.yaml", "gpu_hours", 1082990, "GPU-h",
     "BLOOM paper, section 3.5"},
    {"DeepSeek-V3 pre-training, 14.8T tokens, 2,048 H800", "deepseek-v3-h800-gpu-hours.yaml", "gpu_hours",
     2.664e6, "GPU-h", "DeepSeek-V3 technical report, Table 1"},
    // Before 2023: A100, standard attention, full recompute.
    {"Narayanan GPT 1.7B, 32 A100, TP1", "narayanan-1.7b-a100.yaml", "hardware_tflops_per_gpu", 137,
     "TFLOP/s per GPU", kNarayanan},
    {"Narayanan GPT 18B, 256 A100, TP8", "narayanan-18b-a100.yaml", "hardware_tflops_per_gpu", 135,
     "TFLOP/s per GPU", kNarayanan},
    {"Narayanan GPT 145B, 1,536 A100, TP8 PP8", "narayanan-145b-a100.yaml", "hardware_tflops_per_gpu", 148,
     "TFLOP/s per GPU", kNarayanan},
    {"Narayanan GPT 530B, 2,520 A100, TP8 PP35", "narayanan-530b-a100.yaml", "hardware_tflops_per_gpu", 163,
     "TFLOP/s per GPU", kNarayanan},
    {"Narayanan GPT 1T, 3,072 A100, TP8 PP64", "narayanan2021-1t-3072.yaml", "hardware_tflops_per_gpu", 163,
     "TFLOP/s per GPU", kNarayanan},
    {"OPT-175B, 992 A100, TP8 DP124", "opt-175b-a100.yaml", "model_tflops_per_gpu", 147, "TFLOP/s per GPU",
     "OPT paper, section 2.5"},
    // Serving throughput: offline and latency-bound, dense and MoE, TP1 to TP8.
    {"TRT-LLM Llama 3.1 8B FP8, H100 TP1, 1000/1000", "trtllm-llama31-8b-h100-1000-1000.yaml",
     "tokens_per_s_instance", 15220, "tokens/s", kTrtPerf},
    {"TRT-LLM Llama 3.1 8B FP8, H200 TP1, 2048/2048", "trtllm-llama31-8b-h200-2048-2048.yaml",
     "tokens_per_s_instance", 12194, "tokens/s", kTrtPerf},
    {"TRT-LLM Llama 3.3 70B FP8, H100 TP2, 1000/1000", "trtllm-llama33-70b-h100-tp2-1000-1000.yaml",
     "tokens_per_s_instance", 4205, "tokens/s", kTrtPerf},
    {"TRT-LLM Llama 3.3 70B FP8, H200 TP1, 500/2000", "trtllm-llama33-70b-h200-tp1-500-2000.yaml",
     "tokens_per_s_instance", 3666, "tokens/s", kTrtPerf},
    {"TRT-LLM Llama 3.1 405B FP8, H100 TP8, 1000/1000", "trtllm-llama31-405b-h100-tp8-1000-1000.yaml",
     "tokens_per_s_instance", 2919, "tokens/s", kTrtPerf},
    {"TRT-LLM Llama 4 Scout (MoE) FP8, H100 TP4, 1000/1000", "trtllm-llama4-scout-h100-tp4-1000-1000.yaml",
     "tokens_per_s_instance", 12129, "tokens/s", kTrtPerf, +0.334, kTrtMoeScoutH100},
    {"TRT-LLM Llama 4 Scout (MoE) FP8, H200 TP4, 2048/2048", "trtllm-llama4-scout-h200-tp4-2048-2048.yaml",
     "tokens_per_s_instance", 14949, "tokens/s", kTrtPerf},
    {"TRT-LLM Llama 3.3 70B NVFP4, B200 TP1, 1000/1000", "trtllm-llama33-70b-b200-fp4-1000-1000.yaml",
     "tokens_per_s_instance", 7007, "tokens/s", kTrtPerf},
    {"TRT-LLM Llama 3.1 405B NVFP4, B200 TP4, 1000/1000", "trtllm-llama31-405b-b200-fp4-tp4-1000-1000.yaml",
     "tokens_per_s_instance", 5209, "tokens/s", kTrtPerf},
    {"TRT-LLM Qwen3-235B-A22B (MoE) NVFP4, B200 TP8, 1000/1000",
     "trtllm-qwen3-235b-b200-fp4-tp8-1000-1000.yaml", "tokens_per_s_instance", 42391, "tokens/s", kTrtPerf},
    {"TRT-LLM Qwen3-235B-A22B (MoE) FP8, H100 TP8, 1000/1000",
     "trtllm-qwen3-235b-h100-fp8-tp8-1000-1000.yaml", "tokens_per_s_instance", 14898, "tokens/s", kTrtPerf,
     +0.177, kTrtMoeDep},
    {"TRT-LLM perf Llama 3.1 8B FP8, H200 TP1, 128/128", "trtllm-perf-llama31-8b-h200-tp1-128-128.yaml",
     "tokens_per_s_instance", 27911, "tokens/s", kTrtPerfV1, +0.257, kTrtDenseFp8},
    {"TRT-LLM perf Llama 3.1 8B FP8, H200 TP1, 128/2048", "trtllm-perf-llama31-8b-h200-tp1-128-2048.yaml",
     "tokens_per_s_instance", 26221, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 8B FP8, H200 TP1, 128/4096", "trtllm-perf-llama31-8b-h200-tp1-128-4096.yaml",
     "tokens_per_s_instance", 18027, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 8B FP8, H200 TP1, 500/2000", "trtllm-perf-llama31-8b-h200-tp1-500-2000.yaml",
     "tokens_per_s_instance", 20770, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 8B FP8, H200 TP1, 1000/1000", "trtllm-perf-llama31-8b-h200-tp1-1000-1000.yaml",
     "tokens_per_s_instance", 17744, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 8B FP8, H200 TP1, 1000/2000", "trtllm-perf-llama31-8b-h200-tp1-1000-2000.yaml",
     "tokens_per_s_instance", 16828, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 8B FP8, H200 TP1, 2048/128", "trtllm-perf-llama31-8b-h200-tp1-2048-128.yaml",
     "tokens_per_s_instance", 3538, "tokens/s", kTrtPerfV1, +0.153, kTrtDenseFp8},
    {"TRT-LLM perf Llama 3.1 8B FP8, H200 TP1, 5000/500", "trtllm-perf-llama31-8b-h200-tp1-5000-500.yaml",
     "tokens_per_s_instance", 3902, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 8B FP8, H200 TP1, 20000/2000", "trtllm-perf-llama31-8b-h200-tp1-20000-2000.yaml",
     "tokens_per_s_instance", 1804, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 8B FP8, H100 TP1, 128/128", "trtllm-perf-llama31-8b-h100-tp1-128-128.yaml",
     "tokens_per_s_instance", 28312, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 8B FP8, H100 TP1, 128/2048", "trtllm-perf-llama31-8b-h100-tp1-128-2048.yaml",
     "tokens_per_s_instance", 22714, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 8B FP8, H100 TP1, 128/4096", "trtllm-perf-llama31-8b-h100-tp1-128-4096.yaml",
     "tokens_per_s_instance", 14325, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 8B FP8, H100 TP1, 500/2000", "trtllm-perf-llama31-8b-h100-tp1-500-2000.yaml",
     "tokens_per_s_instance", 17660, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 8B FP8, H100 TP1, 1000/2000", "trtllm-perf-llama31-8b-h100-tp1-1000-2000.yaml",
     "tokens_per_s_instance", 13899, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 8B FP8, H100 TP1, 2048/128", "trtllm-perf-llama31-8b-h100-tp1-2048-128.yaml",
     "tokens_per_s_instance", 3450, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 8B FP8, H100 TP1, 2048/2048", "trtllm-perf-llama31-8b-h100-tp1-2048-2048.yaml",
     "tokens_per_s_instance", 9305, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 8B FP8, H100 TP1, 5000/500", "trtllm-perf-llama31-8b-h100-tp1-5000-500.yaml",
     "tokens_per_s_instance", 3459, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 8B FP8, H100 TP1, 20000/2000", "trtllm-perf-llama31-8b-h100-tp1-20000-2000.yaml",
     "tokens_per_s_instance", 1351, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.3 70B NVFP4, B200 TP1, 128/128", "trtllm-perf-llama33-70b-b200-tp1-128-128.yaml",
     "tokens_per_s_instance", 11147, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.3 70B NVFP4, B200 TP1, 128/2048", "trtllm-perf-llama33-70b-b200-tp1-128-2048.yaml",
     "tokens_per_s_instance", 9922, "tokens/s", kTrtPerfV1, +0.165, kFp4Serving},
    {"TRT-LLM perf Llama 3.3 70B NVFP4, B200 TP1, 128/4096", "trtllm-perf-llama33-70b-b200-tp1-128-4096.yaml",
     "tokens_per_s_instance", 6831, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.3 70B NVFP4, B200 TP1, 500/2000", "trtllm-perf-llama33-70b-b200-tp1-500-2000.yaml",
     "tokens_per_s_instance", 7762, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.3 70B NVFP4, B200 TP1, 1000/2000",
     "trtllm-perf-llama33-70b-b200-tp1-1000-2000.yaml", "tokens_per_s_instance", 6271, "tokens/s",
     kTrtPerfV1},
    {"TRT-LLM perf Llama 3.3 70B NVFP4, B200 TP1, 2048/128", "trtllm-perf-llama33-70b-b200-tp1-2048-128.yaml",
     "tokens_per_s_instance", 1339, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.3 70B NVFP4, B200 TP1, 2048/2048",
     "trtllm-perf-llama33-70b-b200-tp1-2048-2048.yaml", "tokens_per_s_instance", 4783, "tokens/s",
     kTrtPerfV1},
    {"TRT-LLM perf Llama 3.3 70B NVFP4, B200 TP1, 5000/500", "trtllm-perf-llama33-70b-b200-tp1-5000-500.yaml",
     "tokens_per_s_instance", 1459, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.3 70B NVFP4, B200 TP1, 20000/2000",
     "trtllm-perf-llama33-70b-b200-tp1-20000-2000.yaml", "tokens_per_s_instance", 665, "tokens/s",
     kTrtPerfV1},
    {"TRT-LLM perf Llama 3.3 70B NVFP4, GB200 TP1, 128/128", "trtllm-perf-llama33-70b-gb200-tp1-128-128.yaml",
     "tokens_per_s_instance", 12189, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.3 70B NVFP4, GB200 TP1, 128/2048",
     "trtllm-perf-llama33-70b-gb200-tp1-128-2048.yaml", "tokens_per_s_instance", 11309, "tokens/s",
     kTrtPerfV1},
    {"TRT-LLM perf Llama 3.3 70B NVFP4, GB200 TP1, 128/4096",
     "trtllm-perf-llama33-70b-gb200-tp1-128-4096.yaml", "tokens_per_s_instance", 7849, "tokens/s",
     kTrtPerfV1},
    {"TRT-LLM perf Llama 3.3 70B NVFP4, GB200 TP1, 500/2000",
     "trtllm-perf-llama33-70b-gb200-tp1-500-2000.yaml", "tokens_per_s_instance", 9028, "tokens/s",
     kTrtPerfV1},
    {"TRT-LLM perf Llama 3.3 70B NVFP4, GB200 TP1, 1000/1000",
     "trtllm-perf-llama33-70b-gb200-tp1-1000-1000.yaml", "tokens_per_s_instance", 7326, "tokens/s",
     kTrtPerfV1},
    {"TRT-LLM perf Llama 3.3 70B NVFP4, GB200 TP1, 1000/2000",
     "trtllm-perf-llama33-70b-gb200-tp1-1000-2000.yaml", "tokens_per_s_instance", 6513, "tokens/s",
     kTrtPerfV1},
    {"TRT-LLM perf Llama 3.3 70B NVFP4, GB200 TP1, 2048/128",
     "trtllm-perf-llama33-70b-gb200-tp1-2048-128.yaml", "tokens_per_s_instance", 1450, "tokens/s",
     kTrtPerfV1},
    {"TRT-LLM perf Llama 3.3 70B NVFP4, GB200 TP1, 2048/2048",
     "trtllm-perf-llama33-70b-gb200-tp1-2048-2048.yaml", "tokens_per_s_instance", 5646, "tokens/s",
     kTrtPerfV1},
    {"TRT-LLM perf Llama 3.3 70B NVFP4, GB200 TP1, 5000/500",
     "trtllm-perf-llama33-70b-gb200-tp1-5000-500.yaml", "tokens_per_s_instance", 1602, "tokens/s",
     kTrtPerfV1},
    {"TRT-LLM perf Llama 3.3 70B NVFP4, GB200 TP1, 20000/2000",
     "trtllm-perf-llama33-70b-gb200-tp1-20000-2000.yaml", "tokens_per_s_instance", 755, "tokens/s",
     kTrtPerfV1},
    {"TRT-LLM perf Llama 3.3 70B FP8, H200 TP1, 128/128", "trtllm-perf-llama33-70b-h200-tp1-128-128.yaml",
     "tokens_per_s_instance", 3803, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.3 70B FP8, H200 TP1, 128/2048", "trtllm-perf-llama33-70b-h200-tp1-128-2048.yaml",
     "tokens_per_s_instance", 4336, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.3 70B FP8, H200 TP1, 128/4096", "trtllm-perf-llama33-70b-h200-tp1-128-4096.yaml",
     "tokens_per_s_instance", 2872, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.3 70B FP8, H200 TP1, 1000/1000", "trtllm-perf-llama33-70b-h200-tp1-1000-1000.yaml",
     "tokens_per_s_instance", 2909, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.3 70B FP8, H200 TP1, 1000/2000", "trtllm-perf-llama33-70b-h200-tp1-1000-2000.yaml",
     "tokens_per_s_instance", 2994, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.3 70B FP8, H200 TP1, 2048/128", "trtllm-perf-llama33-70b-h200-tp1-2048-128.yaml",
     "tokens_per_s_instance", 442, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.3 70B FP8, H200 TP1, 2048/2048", "trtllm-perf-llama33-70b-h200-tp1-2048-2048.yaml",
     "tokens_per_s_instance", 2003, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.3 70B FP8, H200 TP1, 5000/500", "trtllm-perf-llama33-70b-h200-tp1-5000-500.yaml",
     "tokens_per_s_instance", 566, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.3 70B FP8, H200 TP1, 20000/2000",
     "trtllm-perf-llama33-70b-h200-tp1-20000-2000.yaml", "tokens_per_s_instance", 283, "tokens/s",
     kTrtPerfV1},
    {"TRT-LLM perf Llama 3.3 70B FP8, H100 TP2, 128/128", "trtllm-perf-llama33-70b-h100-tp2-128-128.yaml",
     "tokens_per_s_instance", 6378, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.3 70B FP8, H100 TP2, 128/2048", "trtllm-perf-llama33-70b-h100-tp2-128-2048.yaml",
     "tokens_per_s_instance", 6651, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.3 70B FP8, H100 TP2, 128/4096", "trtllm-perf-llama33-70b-h100-tp2-128-4096.yaml",
     "tokens_per_s_instance", 4199, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.3 70B FP8, H100 TP2, 500/2000", "trtllm-perf-llama33-70b-h100-tp2-500-2000.yaml",
     "tokens_per_s_instance", 5222, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.3 70B FP8, H100 TP2, 1000/2000", "trtllm-perf-llama33-70b-h100-tp2-1000-2000.yaml",
     "tokens_per_s_instance", 4146, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.3 70B FP8, H100 TP2, 2048/128", "trtllm-perf-llama33-70b-h100-tp2-2048-128.yaml",
     "tokens_per_s_instance", 762, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.3 70B FP8, H100 TP2, 2048/2048", "trtllm-perf-llama33-70b-h100-tp2-2048-2048.yaml",
     "tokens_per_s_instance", 3082, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.3 70B FP8, H100 TP2, 5000/500", "trtllm-perf-llama33-70b-h100-tp2-5000-500.yaml",
     "tokens_per_s_instance", 898, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.3 70B FP8, H100 TP2, 20000/2000",
     "trtllm-perf-llama33-70b-h100-tp2-20000-2000.yaml", "tokens_per_s_instance", 437, "tokens/s",
     kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 405B NVFP4, B200 TP4, 128/128", "trtllm-perf-llama31-405b-b200-tp4-128-128.yaml",
     "tokens_per_s_instance", 6281, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 405B NVFP4, B200 TP4, 128/2048",
     "trtllm-perf-llama31-405b-b200-tp4-128-2048.yaml", "tokens_per_s_instance", 8020, "tokens/s",
     kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 405B NVFP4, B200 TP4, 128/4096",
     "trtllm-perf-llama31-405b-b200-tp4-128-4096.yaml", "tokens_per_s_instance", 6345, "tokens/s",
     kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 405B NVFP4, B200 TP4, 500/2000",
     "trtllm-perf-llama31-405b-b200-tp4-500-2000.yaml", "tokens_per_s_instance", 6244, "tokens/s",
     kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 405B NVFP4, B200 TP4, 1000/2000",
     "trtllm-perf-llama31-405b-b200-tp4-1000-2000.yaml", "tokens_per_s_instance", 4933, "tokens/s",
     kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 405B NVFP4, B200 TP4, 2048/128",
     "trtllm-perf-llama31-405b-b200-tp4-2048-128.yaml", "tokens_per_s_instance", 749, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 405B NVFP4, B200 TP4, 2048/2048",
     "trtllm-perf-llama31-405b-b200-tp4-2048-2048.yaml", "tokens_per_s_instance", 4212, "tokens/s",
     kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 405B NVFP4, B200 TP4, 5000/500",
     "trtllm-perf-llama31-405b-b200-tp4-5000-500.yaml", "tokens_per_s_instance", 1048, "tokens/s",
     kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 405B NVFP4, B200 TP4, 20000/2000",
     "trtllm-perf-llama31-405b-b200-tp4-20000-2000.yaml", "tokens_per_s_instance", 672, "tokens/s",
     kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 405B NVFP4, GB200 TP4, 128/128",
     "trtllm-perf-llama31-405b-gb200-tp4-128-128.yaml", "tokens_per_s_instance", 6740, "tokens/s",
     kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 405B NVFP4, GB200 TP4, 128/2048",
     "trtllm-perf-llama31-405b-gb200-tp4-128-2048.yaml", "tokens_per_s_instance", 8151, "tokens/s",
     kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 405B NVFP4, GB200 TP4, 128/4096",
     "trtllm-perf-llama31-405b-gb200-tp4-128-4096.yaml", "tokens_per_s_instance", 6608, "tokens/s",
     kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 405B NVFP4, GB200 TP4, 500/2000",
     "trtllm-perf-llama31-405b-gb200-tp4-500-2000.yaml", "tokens_per_s_instance", 6540, "tokens/s",
     kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 405B NVFP4, GB200 TP4, 1000/1000",
     "trtllm-perf-llama31-405b-gb200-tp4-1000-1000.yaml", "tokens_per_s_instance", 5389, "tokens/s",
     kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 405B NVFP4, GB200 TP4, 1000/2000",
     "trtllm-perf-llama31-405b-gb200-tp4-1000-2000.yaml", "tokens_per_s_instance", 5135, "tokens/s",
     kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 405B NVFP4, GB200 TP4, 2048/128",
     "trtllm-perf-llama31-405b-gb200-tp4-2048-128.yaml", "tokens_per_s_instance", 797, "tokens/s",
     kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 405B NVFP4, GB200 TP4, 2048/2048",
     "trtllm-perf-llama31-405b-gb200-tp4-2048-2048.yaml", "tokens_per_s_instance", 4407, "tokens/s",
     kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 405B NVFP4, GB200 TP4, 5000/500",
     "trtllm-perf-llama31-405b-gb200-tp4-5000-500.yaml", "tokens_per_s_instance", 1112, "tokens/s",
     kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 405B NVFP4, GB200 TP4, 20000/2000",
     "trtllm-perf-llama31-405b-gb200-tp4-20000-2000.yaml", "tokens_per_s_instance", 739, "tokens/s",
     kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 405B FP8, H200 TP8, 128/128", "trtllm-perf-llama31-405b-h200-tp8-128-128.yaml",
     "tokens_per_s_instance", 3814, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 405B FP8, H200 TP8, 128/2048", "trtllm-perf-llama31-405b-h200-tp8-128-2048.yaml",
     "tokens_per_s_instance", 5348, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 405B FP8, H200 TP8, 128/4096", "trtllm-perf-llama31-405b-h200-tp8-128-4096.yaml",
     "tokens_per_s_instance", 4741, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 405B FP8, H200 TP8, 500/2000", "trtllm-perf-llama31-405b-h200-tp8-500-2000.yaml",
     "tokens_per_s_instance", 4724, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 405B FP8, H200 TP8, 1000/1000",
     "trtllm-perf-llama31-405b-h200-tp8-1000-1000.yaml", "tokens_per_s_instance", 3330, "tokens/s",
     kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 405B FP8, H200 TP8, 1000/2000",
     "trtllm-perf-llama31-405b-h200-tp8-1000-2000.yaml", "tokens_per_s_instance", 3722, "tokens/s",
     kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 405B FP8, H200 TP8, 2048/128", "trtllm-perf-llama31-405b-h200-tp8-2048-128.yaml",
     "tokens_per_s_instance", 456, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 405B FP8, H200 TP8, 2048/2048",
     "trtllm-perf-llama31-405b-h200-tp8-2048-2048.yaml", "tokens_per_s_instance", 2948, "tokens/s",
     kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 405B FP8, H200 TP8, 5000/500", "trtllm-perf-llama31-405b-h200-tp8-5000-500.yaml",
     "tokens_per_s_instance", 650, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 405B FP8, H200 TP8, 20000/2000",
     "trtllm-perf-llama31-405b-h200-tp8-20000-2000.yaml", "tokens_per_s_instance", 505, "tokens/s",
     kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 405B FP8, H100 TP8, 128/128", "trtllm-perf-llama31-405b-h100-tp8-128-128.yaml",
     "tokens_per_s_instance", 3627, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 405B FP8, H100 TP8, 128/2048", "trtllm-perf-llama31-405b-h100-tp8-128-2048.yaml",
     "tokens_per_s_instance", 4340, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 405B FP8, H100 TP8, 128/4096", "trtllm-perf-llama31-405b-h100-tp8-128-4096.yaml",
     "tokens_per_s_instance", 3116, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 405B FP8, H100 TP8, 500/2000", "trtllm-perf-llama31-405b-h100-tp8-500-2000.yaml",
     "tokens_per_s_instance", 3994, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 405B FP8, H100 TP8, 1000/2000",
     "trtllm-perf-llama31-405b-h100-tp8-1000-2000.yaml", "tokens_per_s_instance", 2895, "tokens/s",
     kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 405B FP8, H100 TP8, 2048/128", "trtllm-perf-llama31-405b-h100-tp8-2048-128.yaml",
     "tokens_per_s_instance", 453, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 405B FP8, H100 TP8, 2048/2048",
     "trtllm-perf-llama31-405b-h100-tp8-2048-2048.yaml", "tokens_per_s_instance", 2296, "tokens/s",
     kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 405B FP8, H100 TP8, 5000/500", "trtllm-perf-llama31-405b-h100-tp8-5000-500.yaml",
     "tokens_per_s_instance", 610, "tokens/s", kTrtPerfV1},
    {"TRT-LLM perf Llama 3.1 405B FP8, H100 TP8, 20000/2000",
     "trtllm-perf-llama31-405b-h100-tp8-20000-2000.yaml", "tokens_per_s_instance", 345, "tokens/s",
     kTrtPerfV1, +0.244, kTrtDenseFp8},
    {"TRT-LLM perf Qwen3-235B-A22B (MoE) NVFP4, B200 TP8, 128/128",
     "trtllm-perf-qwen3-235b-b200-tp8-128-128.yaml", "tokens_per_s_instance", 63362, "tokens/s", kTrtPerfMoe,
     +0.150, kTrtMoeDep},
    {"TRT-LLM perf Qwen3-235B-A22B (MoE) NVFP4, B200 TP8, 128/2048",
     "trtllm-perf-qwen3-235b-b200-tp8-128-2048.yaml", "tokens_per_s_instance", 66057, "tokens/s",
     kTrtPerfMoe},
    {"TRT-LLM perf Qwen3-235B-A22B (MoE) NVFP4, B200 TP8, 128/4096",
     "trtllm-perf-qwen3-235b-b200-tp8-128-4096.yaml", "tokens_per_s_instance", 39496, "tokens/s", kTrtPerfMoe,
     +0.197, kTrtMoeDep},
    {"TRT-LLM perf Qwen3-235B-A22B (MoE) NVFP4, B200 TP8, 500/2000",
     "trtllm-perf-qwen3-235b-b200-tp8-500-2000.yaml", "tokens_per_s_instance", 57117, "tokens/s",
     kTrtPerfMoe},
    {"TRT-LLM perf Qwen3-235B-A22B (MoE) NVFP4, B200 TP8, 1000/2000",
     "trtllm-perf-qwen3-235b-b200-tp8-1000-2000.yaml", "tokens_per_s_instance", 34105, "tokens/s",
     kTrtPerfMoe, +0.230, kTrtMoeDep},
    {"TRT-LLM perf Qwen3-235B-A22B (MoE) NVFP4, B200 TP8, 2048/128",
     "trtllm-perf-qwen3-235b-b200-tp8-2048-128.yaml", "tokens_per_s_instance", 7329, "tokens/s", kTrtPerfMoe,
     +0.157, kTrtMoeDep},
    {"TRT-LLM perf Qwen3-235B-A22B (MoE) NVFP4, B200 TP8, 2048/2048",
     "trtllm-perf-qwen3-235b-b200-tp8-2048-2048.yaml", "tokens_per_s_instance", 26854, "tokens/s",
     kTrtPerfMoe, +0.267, kTrtMoeDep},
    {"TRT-LLM perf Qwen3-235B-A22B (MoE) NVFP4, B200 TP8, 5000/500",
     "trtllm-perf-qwen3-235b-b200-tp8-5000-500.yaml", "tokens_per_s_instance", 8190, "tokens/s", kTrtPerfMoe,
     +0.298, kTrtMoeDep},
    {"TRT-LLM perf Qwen3-235B-A22B (MoE) NVFP4, B200 TP8, 20000/2000",
     "trtllm-perf-qwen3-235b-b200-tp8-20000-2000.yaml", "tokens_per_s_instance", 4453, "tokens/s",
     kTrtPerfMoe, +0.416, kTrtMoeDep},
    {"TRT-LLM perf Qwen3-235B-A22B (MoE) FP8, H200 TP8, 128/128",
     "trtllm-perf-qwen3-235b-h200-tp8-128-128.yaml", "tokens_per_s_instance", 30429, "tokens/s", kTrtPerfMoe},
    {"TRT-LLM perf Qwen3-235B-A22B (MoE) FP8, H200 TP8, 128/2048",
     "trtllm-perf-qwen3-235b-h200-tp8-128-2048.yaml", "tokens_per_s_instance", 42821, "tokens/s",
     kTrtPerfMoe},
    {"TRT-LLM perf Qwen3-235B-A22B (MoE) FP8, H200 TP8, 128/4096",
     "trtllm-perf-qwen3-235b-h200-tp8-128-4096.yaml", "tokens_per_s_instance", 26852, "tokens/s",
     kTrtPerfMoe},
    {"TRT-LLM perf Qwen3-235B-A22B (MoE) FP8, H200 TP8, 500/2000",
     "trtllm-perf-qwen3-235b-h200-tp8-500-2000.yaml", "tokens_per_s_instance", 28026, "tokens/s", kTrtPerfMoe,
     +0.247, kTrtMoeDep},
    {"TRT-LLM perf Qwen3-235B-A22B (MoE) FP8, H200 TP8, 1000/1000",
     "trtllm-perf-qwen3-235b-h200-tp8-1000-1000.yaml", "tokens_per_s_instance", 23789, "tokens/s",
     kTrtPerfMoe},
    {"TRT-LLM perf Qwen3-235B-A22B (MoE) FP8, H200 TP8, 1000/2000",
     "trtllm-perf-qwen3-235b-h200-tp8-1000-2000.yaml", "tokens_per_s_instance", 22061, "tokens/s",
     kTrtPerfMoe},
    {"TRT-LLM perf Qwen3-235B-A22B (MoE) FP8, H200 TP8, 2048/128",
     "trtllm-perf-qwen3-235b-h200-tp8-2048-128.yaml", "tokens_per_s_instance", 3331, "tokens/s", kTrtPerfMoe},
    {"TRT-LLM perf Qwen3-235B-A22B (MoE) FP8, H200 TP8, 2048/2048",
     "trtllm-perf-qwen3-235b-h200-tp8-2048-2048.yaml", "tokens_per_s_instance", 16672, "tokens/s",
     kTrtPerfMoe},
    {"TRT-LLM perf Qwen3-235B-A22B (MoE) FP8, H200 TP8, 5000/500",
     "trtllm-perf-qwen3-235b-h200-tp8-5000-500.yaml", "tokens_per_s_instance", 3623, "tokens/s", kTrtPerfMoe,
     +0.300, kTrtMoeDep},
    {"TRT-LLM perf Qwen3-235B-A22B (MoE) FP8, H200 TP8, 20000/2000",
     "trtllm-perf-qwen3-235b-h200-tp8-20000-2000.yaml", "tokens_per_s_instance", 1876, "tokens/s",
     kTrtPerfMoe, +0.633, kTrtMoeDep},
    {"TRT-LLM perf Qwen3-235B-A22B (MoE) FP8, H100 TP8, 128/2048",
     "trtllm-perf-qwen3-235b-h100-tp8-128-2048.yaml", "tokens_per_s_instance", 19658, "tokens/s", kTrtPerfMoe,
     +0.254, kTrtMoeDep},
    {"TRT-LLM perf Qwen3-235B-A22B (MoE) FP8, H100 TP8, 128/4096",
     "trtllm-perf-qwen3-235b-h100-tp8-128-4096.yaml", "tokens_per_s_instance", 12447, "tokens/s", kTrtPerfMoe,
     +0.417, kTrtMoeDep},
    {"TRT-LLM perf Qwen3-235B-A22B (MoE) FP8, H100 TP8, 500/2000",
     "trtllm-perf-qwen3-235b-h100-tp8-500-2000.yaml", "tokens_per_s_instance", 18351, "tokens/s",
     kTrtPerfMoe},
    {"TRT-LLM perf Qwen3-235B-A22B (MoE) FP8, H100 TP8, 1000/2000",
     "trtllm-perf-qwen3-235b-h100-tp8-1000-2000.yaml", "tokens_per_s_instance", 15136, "tokens/s",
     kTrtPerfMoe},
    {"TRT-LLM perf Qwen3-235B-A22B (MoE) FP8, H100 TP8, 2048/2048",
     "trtllm-perf-qwen3-235b-h100-tp8-2048-2048.yaml", "tokens_per_s_instance", 9924, "tokens/s", kTrtPerfMoe,
     +0.322, kTrtMoeDep},
    {"TRT-LLM perf Qwen3-235B-A22B (MoE) FP8, H100 TP8, 5000/500",
     "trtllm-perf-qwen3-235b-h100-tp8-5000-500.yaml", "tokens_per_s_instance", 3225, "tokens/s", kTrtPerfMoe,
     +0.221, kTrtMoeDep},
    {"TRT-LLM perf Qwen3-30B-A3B (MoE) NVFP4, B200 TP1, 128/128",
     "trtllm-perf-qwen3-30b-b200-tp1-128-128.yaml", "tokens_per_s_instance", 39827, "tokens/s", kTrtPerfMoe,
     +0.513, kTrtMoeHost},
    {"TRT-LLM perf Qwen3-30B-A3B (MoE) NVFP4, B200 TP1, 128/2048",
     "trtllm-perf-qwen3-30b-b200-tp1-128-2048.yaml", "tokens_per_s_instance", 37844, "tokens/s", kTrtPerfMoe},
    {"TRT-LLM perf Qwen3-30B-A3B (MoE) NVFP4, B200 TP1, 128/4096",
     "trtllm-perf-qwen3-30b-b200-tp1-128-4096.yaml", "tokens_per_s_instance", 24953, "tokens/s", kTrtPerfMoe,
     +0.173, kTrtMoeHost},
    {"TRT-LLM perf Qwen3-30B-A3B (MoE) NVFP4, B200 TP1, 500/2000",
     "trtllm-perf-qwen3-30b-b200-tp1-500-2000.yaml", "tokens_per_s_instance", 27817, "tokens/s", kTrtPerfMoe,
     +0.266, kTrtMoeHost},
    {"TRT-LLM perf Qwen3-30B-A3B (MoE) NVFP4, B200 TP1, 1000/1000",
     "trtllm-perf-qwen3-30b-b200-tp1-1000-1000.yaml", "tokens_per_s_instance", 25828, "tokens/s", kTrtPerfMoe,
     +0.205, kTrtMoeHost},
    {"TRT-LLM perf Qwen3-30B-A3B (MoE) NVFP4, B200 TP1, 1000/2000",
     "trtllm-perf-qwen3-30b-b200-tp1-1000-2000.yaml", "tokens_per_s_instance", 22051, "tokens/s", kTrtPerfMoe,
     +0.230, kTrtMoeHost},
    {"TRT-LLM perf Qwen3-30B-A3B (MoE) NVFP4, B200 TP1, 2048/128",
     "trtllm-perf-qwen3-30b-b200-tp1-2048-128.yaml", "tokens_per_s_instance", 6251, "tokens/s", kTrtPerfMoe,
     +0.161, kTrtMoeHost},
    {"TRT-LLM perf Qwen3-30B-A3B (MoE) NVFP4, B200 TP1, 2048/2048",
     "trtllm-perf-qwen3-30b-b200-tp1-2048-2048.yaml", "tokens_per_s_instance", 17554, "tokens/s",
     kTrtPerfMoe},
    {"TRT-LLM perf Qwen3-30B-A3B (MoE) NVFP4, B200 TP1, 5000/500",
     "trtllm-perf-qwen3-30b-b200-tp1-5000-500.yaml", "tokens_per_s_instance", 6142, "tokens/s", kTrtPerfMoe},
    {"TRT-LLM perf Qwen3-30B-A3B (MoE) NVFP4, B200 TP1, 20000/2000",
     "trtllm-perf-qwen3-30b-b200-tp1-20000-2000.yaml", "tokens_per_s_instance", 2944, "tokens/s",
     kTrtPerfMoe},
    {"TRT-LLM perf Qwen3-30B-A3B (MoE) NVFP4, GB200 TP1, 128/128",
     "trtllm-perf-qwen3-30b-gb200-tp1-128-128.yaml", "tokens_per_s_instance", 24107, "tokens/s", kTrtPerfMoe,
     +1.839, kTrtMoeHost},
    {"TRT-LLM perf Qwen3-30B-A3B (MoE) NVFP4, GB200 TP1, 128/2048",
     "trtllm-perf-qwen3-30b-gb200-tp1-128-2048.yaml", "tokens_per_s_instance", 31311, "tokens/s", kTrtPerfMoe,
     +0.565, kTrtMoeHost},
    {"TRT-LLM perf Qwen3-30B-A3B (MoE) NVFP4, GB200 TP1, 128/4096",
     "trtllm-perf-qwen3-30b-gb200-tp1-128-4096.yaml", "tokens_per_s_instance", 26337, "tokens/s", kTrtPerfMoe,
     +0.171, kTrtMoeHost},
    {"TRT-LLM perf Qwen3-30B-A3B (MoE) NVFP4, GB200 TP1, 500/2000",
     "trtllm-perf-qwen3-30b-gb200-tp1-500-2000.yaml", "tokens_per_s_instance", 20604, "tokens/s", kTrtPerfMoe,
     +0.845, kTrtMoeHost},
    {"TRT-LLM perf Qwen3-30B-A3B (MoE) NVFP4, GB200 TP1, 1000/1000",
     "trtllm-perf-qwen3-30b-gb200-tp1-1000-1000.yaml", "tokens_per_s_instance", 17481, "tokens/s",
     kTrtPerfMoe, +0.879, kTrtMoeHost},
    {"TRT-LLM perf Qwen3-30B-A3B (MoE) NVFP4, GB200 TP1, 1000/2000",
     "trtllm-perf-qwen3-30b-gb200-tp1-1000-2000.yaml", "tokens_per_s_instance", 17177, "tokens/s",
     kTrtPerfMoe, +0.688, kTrtMoeHost},
    {"TRT-LLM perf Qwen3-30B-A3B (MoE) NVFP4, GB200 TP1, 2048/128",
     "trtllm-perf-qwen3-30b-gb200-tp1-2048-128.yaml", "tokens_per_s_instance", 6595, "tokens/s", kTrtPerfMoe,
     +0.268, kTrtMoeHost},
    {"TRT-LLM perf Qwen3-30B-A3B (MoE) NVFP4, GB200 TP1, 2048/2048",
     "trtllm-perf-qwen3-30b-gb200-tp1-2048-2048.yaml", "tokens_per_s_instance", 14719, "tokens/s",
     kTrtPerfMoe, +0.401, kTrtMoeHost},
    {"TRT-LLM perf Qwen3-30B-A3B (MoE) NVFP4, GB200 TP1, 5000/500",
     "trtllm-perf-qwen3-30b-gb200-tp1-5000-500.yaml", "tokens_per_s_instance", 5908, "tokens/s", kTrtPerfMoe,
     +0.319, kTrtMoeHost},
    {"TRT-LLM perf Qwen3-30B-A3B (MoE) NVFP4, GB200 TP1, 20000/2000",
     "trtllm-perf-qwen3-30b-gb200-tp1-20000-2000.yaml", "tokens_per_s_instance", 3203, "tokens/s",
     kTrtPerfMoe},
    {"TRT-LLM perf Llama 4 Scout (MoE) NVFP4, B200 TP1, 128/128",
     "trtllm-perf-llama4-scout-b200-tp1-128-128.yaml", "tokens_per_s_instance", 25342, "tokens/s",
     kTrtPerfMoe, +0.175, kTrtScoutB200},
    {"TRT-LLM perf Llama 4 Scout (MoE) NVFP4, B200 TP1, 128/2048",
     "trtllm-perf-llama4-scout-b200-tp1-128-2048.yaml", "tokens_per_s_instance", 14699, "tokens/s",
     kTrtPerfMoe},
    {"TRT-LLM perf Llama 4 Scout (MoE) NVFP4, B200 TP1, 128/4096",
     "trtllm-perf-llama4-scout-b200-tp1-128-4096.yaml", "tokens_per_s_instance", 8932, "tokens/s",
     kTrtPerfMoe, -0.168, kTrtScoutB200},
    {"TRT-LLM perf Llama 4 Scout (MoE) NVFP4, B200 TP1, 500/2000",
     "trtllm-perf-llama4-scout-b200-tp1-500-2000.yaml", "tokens_per_s_instance", 11977, "tokens/s",
     kTrtPerfMoe},
    {"TRT-LLM perf Llama 4 Scout (MoE) NVFP4, B200 TP1, 1000/1000",
     "trtllm-perf-llama4-scout-b200-tp1-1000-1000.yaml", "tokens_per_s_instance", 10591, "tokens/s",
     kTrtPerfMoe},
    {"TRT-LLM perf Llama 4 Scout (MoE) NVFP4, B200 TP1, 1000/2000",
     "trtllm-perf-llama4-scout-b200-tp1-1000-2000.yaml", "tokens_per_s_instance", 9356, "tokens/s",
     kTrtPerfMoe},
    {"TRT-LLM perf Llama 4 Scout (MoE) NVFP4, B200 TP1, 2048/128",
     "trtllm-perf-llama4-scout-b200-tp1-2048-128.yaml", "tokens_per_s_instance", 3137, "tokens/s",
     kTrtPerfMoe},
    {"TRT-LLM perf Llama 4 Scout (MoE) NVFP4, B200 TP1, 2048/2048",
     "trtllm-perf-llama4-scout-b200-tp1-2048-2048.yaml", "tokens_per_s_instance", 7152, "tokens/s",
     kTrtPerfMoe, -0.175, kTrtScoutB200},
    {"TRT-LLM perf Llama 4 Scout (MoE) NVFP4, B200 TP1, 5000/500",
     "trtllm-perf-llama4-scout-b200-tp1-5000-500.yaml", "tokens_per_s_instance", 2937, "tokens/s",
     kTrtPerfMoe},
    {"TRT-LLM perf Llama 4 Scout (MoE) NVFP4, B200 TP1, 20000/2000",
     "trtllm-perf-llama4-scout-b200-tp1-20000-2000.yaml", "tokens_per_s_instance", 1644, "tokens/s",
     kTrtPerfMoe},
    {"TRT-LLM perf Llama 4 Scout (MoE) NVFP4, GB200 TP1, 128/128",
     "trtllm-perf-llama4-scout-gb200-tp1-128-128.yaml", "tokens_per_s_instance", 19954, "tokens/s",
     kTrtPerfMoe, +0.951, kTrtScoutGb200},
    {"TRT-LLM perf Llama 4 Scout (MoE) NVFP4, GB200 TP1, 128/2048",
     "trtllm-perf-llama4-scout-gb200-tp1-128-2048.yaml", "tokens_per_s_instance", 15238, "tokens/s",
     kTrtPerfMoe, +0.204, kTrtScoutGb200},
    {"TRT-LLM perf Llama 4 Scout (MoE) NVFP4, GB200 TP1, 128/4096",
     "trtllm-perf-llama4-scout-gb200-tp1-128-4096.yaml", "tokens_per_s_instance", 9556, "tokens/s",
     kTrtPerfMoe, +0.154, kTrtScoutGb200},
    {"TRT-LLM perf Llama 4 Scout (MoE) NVFP4, GB200 TP1, 500/2000",
     "trtllm-perf-llama4-scout-gb200-tp1-500-2000.yaml", "tokens_per_s_instance", 11795, "tokens/s",
     kTrtPerfMoe, +0.348, kTrtScoutGb200},
    {"TRT-LLM perf Llama 4 Scout (MoE) NVFP4, GB200 TP1, 1000/1000",
     "trtllm-perf-llama4-scout-gb200-tp1-1000-1000.yaml", "tokens_per_s_instance", 7738, "tokens/s",
     kTrtPerfMoe, +0.828, kTrtScoutGb200},
    {"TRT-LLM perf Llama 4 Scout (MoE) NVFP4, GB200 TP1, 1000/2000",
     "trtllm-perf-llama4-scout-gb200-tp1-1000-2000.yaml", "tokens_per_s_instance", 8581, "tokens/s",
     kTrtPerfMoe, +0.449, kTrtScoutGb200},
    {"TRT-LLM perf Llama 4 Scout (MoE) NVFP4, GB200 TP1, 2048/128",
     "trtllm-perf-llama4-scout-gb200-tp1-2048-128.yaml", "tokens_per_s_instance", 3295, "tokens/s",
     kTrtPerfMoe, +0.354, kTrtScoutGb200},
    {"TRT-LLM perf Llama 4 Scout (MoE) NVFP4, GB200 TP1, 2048/2048",
     "trtllm-perf-llama4-scout-gb200-tp1-2048-2048.yaml", "tokens_per_s_instance", 7464, "tokens/s",
     kTrtPerfMoe, +0.197, kTrtScoutGb200},
    {"TRT-LLM perf Llama 4 Scout (MoE) NVFP4, GB200 TP1, 5000/500",
     "trtllm-perf-llama4-scout-gb200-tp1-5000-500.yaml", "tokens_per_s_instance", 3107, "tokens/s",
     kTrtPerfMoe, +0.215, kTrtScoutGb200},
    {"TRT-LLM perf Llama 4 Scout (MoE) NVFP4, GB200 TP1, 20000/2000",
     "trtllm-perf-llama4-scout-gb200-tp1-20000-2000.yaml", "tokens_per_s_instance", 1767, "tokens/s",
     kTrtPerfMoe, +0.242, kTrtScoutGb200},
    {"TRT-LLM perf Llama 4 Scout (MoE) FP8, H200 TP4, 128/128",
     "trtllm-perf-llama4-scout-h200-tp4-128-128.yaml", "tokens_per_s_instance", 30354, "tokens/s",
     kTrtPerfMoe, +0.154, kTrtMoeDep},
    {"TRT-LLM perf Llama 4 Scout (MoE) FP8, H200 TP4, 128/2048",
     "trtllm-perf-llama4-scout-h200-tp4-128-2048.yaml", "tokens_per_s_instance", 34316, "tokens/s",
     kTrtPerfMoe, -0.168, kTrtScoutH200Ep4},
    {"TRT-LLM perf Llama 4 Scout (MoE) FP8, H200 TP4, 128/4096",
     "trtllm-perf-llama4-scout-h200-tp4-128-4096.yaml", "tokens_per_s_instance", 21332, "tokens/s",
     kTrtPerfMoe, -0.160, kTrtScoutH200Ep4},
    {"TRT-LLM perf Llama 4 Scout (MoE) FP8, H200 TP4, 500/2000",
     "trtllm-perf-llama4-scout-h200-tp4-500-2000.yaml", "tokens_per_s_instance", 24630, "tokens/s",
     kTrtPerfMoe},
    {"TRT-LLM perf Llama 4 Scout (MoE) FP8, H200 TP4, 1000/1000",
     "trtllm-perf-llama4-scout-h200-tp4-1000-1000.yaml", "tokens_per_s_instance", 21636, "tokens/s",
     kTrtPerfMoe},
    {"TRT-LLM perf Llama 4 Scout (MoE) FP8, H200 TP4, 1000/2000",
     "trtllm-perf-llama4-scout-h200-tp4-1000-2000.yaml", "tokens_per_s_instance", 18499, "tokens/s",
     kTrtPerfMoe},
    {"TRT-LLM perf Llama 4 Scout (MoE) FP8, H200 TP4, 2048/128",
     "trtllm-perf-llama4-scout-h200-tp4-2048-128.yaml", "tokens_per_s_instance", 3699, "tokens/s",
     kTrtPerfMoe},
    {"TRT-LLM perf Llama 4 Scout (MoE) FP8, H200 TP4, 5000/500",
     "trtllm-perf-llama4-scout-h200-tp4-5000-500.yaml", "tokens_per_s_instance", 4605, "tokens/s",
     kTrtPerfMoe},
    {"TRT-LLM perf Llama 4 Scout (MoE) FP8, H200 TP4, 20000/2000",
     "trtllm-perf-llama4-scout-h200-tp4-20000-2000.yaml", "tokens_per_s_instance", 2105, "tokens/s",
     kTrtPerfMoe, +0.500, kTrtScoutHopperChunked},
    {"TRT-LLM perf Llama 4 Scout (MoE) FP8, H100 TP4, 128/2048",
     "trtllm-perf-llama4-scout-h100-tp4-128-2048.yaml", "tokens_per_s_instance", 15130, "tokens/s",
     kTrtPerfMoe, +0.437, kTrtMoeScoutH100},
    {"TRT-LLM perf Llama 4 Scout (MoE) FP8, H100 TP4, 128/4096",
     "trtllm-perf-llama4-scout-h100-tp4-128-4096.yaml", "tokens_per_s_instance", 8603, "tokens/s",
     kTrtPerfMoe, +0.604, kTrtMoeScoutH100},
    {"TRT-LLM perf Llama 4 Scout (MoE) FP8, H100 TP4, 500/2000",
     "trtllm-perf-llama4-scout-h100-tp4-500-2000.yaml", "tokens_per_s_instance", 12399, "tokens/s",
     kTrtPerfMoe, +0.385, kTrtMoeScoutH100},
    {"TRT-LLM perf Llama 4 Scout (MoE) FP8, H100 TP4, 1000/2000",
     "trtllm-perf-llama4-scout-h100-tp4-1000-2000.yaml", "tokens_per_s_instance", 9838, "tokens/s",
     kTrtPerfMoe, +0.400, kTrtMoeScoutH100},
    {"TRT-LLM perf Llama 4 Scout (MoE) FP8, H100 TP4, 2048/128",
     "trtllm-perf-llama4-scout-h100-tp4-2048-128.yaml", "tokens_per_s_instance", 3253, "tokens/s",
     kTrtPerfMoe, +0.168, kTrtMoeDep},
    {"TRT-LLM perf Llama 4 Scout (MoE) FP8, H100 TP4, 2048/2048",
     "trtllm-perf-llama4-scout-h100-tp4-2048-2048.yaml", "tokens_per_s_instance", 7972, "tokens/s",
     kTrtPerfMoe, +0.339, kTrtMoeScoutH100},
    {"TRT-LLM perf Llama 4 Scout (MoE) FP8, H100 TP4, 5000/500",
     "trtllm-perf-llama4-scout-h100-tp4-5000-500.yaml", "tokens_per_s_instance", 3342, "tokens/s",
     kTrtPerfMoe, +0.222, kTrtMoeDep},
    {"TRT-LLM perf Llama 4 Maverick (MoE) NVFP4, B200 TP8, 128/128",
     "trtllm-perf-llama4-maverick-b200-tp8-128-128.yaml", "tokens_per_s_instance", 124323, "tokens/s",
     kTrtPerfMoe, +0.481, kTrtMoeDep},
    {"TRT-LLM perf Llama 4 Maverick (MoE) NVFP4, B200 TP8, 128/2048",
     "trtllm-perf-llama4-maverick-b200-tp8-128-2048.yaml", "tokens_per_s_instance", 112676, "tokens/s",
     kTrtPerfMoe, +0.244, kTrtMoeDep},
    {"TRT-LLM perf Llama 4 Maverick (MoE) NVFP4, B200 TP8, 128/4096",
     "trtllm-perf-llama4-maverick-b200-tp8-128-4096.yaml", "tokens_per_s_instance", 68170, "tokens/s",
     kTrtPerfMoe, +0.228, kTrtMoeDep},
    {"TRT-LLM perf Llama 4 Maverick (MoE) NVFP4, B200 TP8, 1000/1000",
     "trtllm-perf-llama4-maverick-b200-tp8-1000-1000.yaml", "tokens_per_s_instance", 79617, "tokens/s",
     kTrtPerfMoe, +0.251, kTrtMoeDep},
    {"TRT-LLM perf Llama 4 Maverick (MoE) NVFP4, B200 TP8, 1000/2000",
     "trtllm-perf-llama4-maverick-b200-tp8-1000-2000.yaml", "tokens_per_s_instance", 63766, "tokens/s",
     kTrtPerfMoe, +0.239, kTrtMoeDep},
    {"TRT-LLM perf Llama 4 Maverick (MoE) NVFP4, B200 TP8, 2048/128",
     "trtllm-perf-llama4-maverick-b200-tp8-2048-128.yaml", "tokens_per_s_instance", 18088, "tokens/s",
     kTrtPerfMoe, +0.194, kTrtMoeDep},
    {"TRT-LLM perf Llama 4 Maverick (MoE) NVFP4, B200 TP8, 2048/2048",
     "trtllm-perf-llama4-maverick-b200-tp8-2048-2048.yaml", "tokens_per_s_instance", 52195, "tokens/s",
     kTrtPerfMoe, +0.189, kTrtMoeDep},
    {"TRT-LLM perf Llama 4 Maverick (MoE) NVFP4, B200 TP8, 20000/2000",
     "trtllm-perf-llama4-maverick-b200-tp8-20000-2000.yaml", "tokens_per_s_instance", 12678, "tokens/s",
     kTrtPerfMoe, +0.342, kTrtMoeDep},
    {"TRT-LLM perf Llama 4 Maverick (MoE) FP8, H200 TP8, 128/128",
     "trtllm-perf-llama4-maverick-h200-tp8-128-128.yaml", "tokens_per_s_instance", 63994, "tokens/s",
     kTrtPerfMoe},
    {"TRT-LLM perf Llama 4 Maverick (MoE) FP8, H200 TP8, 128/2048",
     "trtllm-perf-llama4-maverick-h200-tp8-128-2048.yaml", "tokens_per_s_instance", 40572, "tokens/s",
     kTrtPerfMoe},
    {"TRT-LLM perf Llama 4 Maverick (MoE) FP8, H200 TP8, 128/4096",
     "trtllm-perf-llama4-maverick-h200-tp8-128-4096.yaml", "tokens_per_s_instance", 24616, "tokens/s",
     kTrtPerfMoe},
    {"TRT-LLM perf Llama 4 Maverick (MoE) FP8, H200 TP8, 500/2000",
     "trtllm-perf-llama4-maverick-h200-tp8-500-2000.yaml", "tokens_per_s_instance", 37835, "tokens/s",
     kTrtPerfMoe},
    {"TRT-LLM perf Llama 4 Maverick (MoE) FP8, H200 TP8, 1000/1000",
     "trtllm-perf-llama4-maverick-h200-tp8-1000-1000.yaml", "tokens_per_s_instance", 31782, "tokens/s",
     kTrtPerfMoe},
    {"TRT-LLM perf Llama 4 Maverick (MoE) FP8, H200 TP8, 1000/2000",
     "trtllm-perf-llama4-maverick-h200-tp8-1000-2000.yaml", "tokens_per_s_instance", 34734, "tokens/s",
     kTrtPerfMoe},
    {"TRT-LLM perf Llama 4 Maverick (MoE) FP8, H200 TP8, 2048/128",
     "trtllm-perf-llama4-maverick-h200-tp8-2048-128.yaml", "tokens_per_s_instance", 7307, "tokens/s",
     kTrtPerfMoe},
    {"TRT-LLM perf Llama 4 Maverick (MoE) FP8, H200 TP8, 2048/2048",
     "trtllm-perf-llama4-maverick-h200-tp8-2048-2048.yaml", "tokens_per_s_instance", 20957, "tokens/s",
     kTrtPerfMoe},
    {"TRT-LLM perf Llama 4 Maverick (MoE) FP8, H200 TP8, 5000/500",
     "trtllm-perf-llama4-maverick-h200-tp8-5000-500.yaml", "tokens_per_s_instance", 8456, "tokens/s",
     kTrtPerfMoe},
    {"TRT-LLM perf Llama 4 Maverick (MoE) FP8, H200 TP8, 20000/2000",
     "trtllm-perf-llama4-maverick-h200-tp8-20000-2000.yaml", "tokens_per_s_instance", 4106, "tokens/s",
     kTrtPerfMoe, +0.276, kTrtMoeDep},
    {"TRT-LLM perf Llama 4 Maverick (MoE) FP8, H100 TP8, 128/2048",
     "trtllm-perf-llama4-maverick-h100-tp8-128-2048.yaml", "tokens_per_s_instance", 10829, "tokens/s",
     kTrtPerfMoe, +1.006, kTrtMaverickH100},
    {"TRT-LLM perf Llama 4 Maverick (MoE) FP8, H100 TP8, 128/4096",
     "trtllm-perf-llama4-maverick-h100-tp8-128-4096.yaml", "tokens_per_s_instance", 6744, "tokens/s",
     kTrtPerfMoe, +0.802, kTrtMaverickH100},
    {"TRT-LLM perf Llama 4 Maverick (MoE) FP8, H100 TP8, 500/2000",
     "trtllm-perf-llama4-maverick-h100-tp8-500-2000.yaml", "tokens_per_s_instance", 10108, "tokens/s",
     kTrtPerfMoe, +0.767, kTrtMaverickH100},
    {"TRT-LLM perf Llama 4 Maverick (MoE) FP8, H100 TP8, 1000/1000",
     "trtllm-perf-llama4-maverick-h100-tp8-1000-1000.yaml", "tokens_per_s_instance", 9677, "tokens/s",
     kTrtPerfMoe, +0.971, kTrtMaverickH100},
    {"TRT-LLM perf Llama 4 Maverick (MoE) FP8, H100 TP8, 1000/2000",
     "trtllm-perf-llama4-maverick-h100-tp8-1000-2000.yaml", "tokens_per_s_instance", 9151, "tokens/s",
     kTrtPerfMoe, +0.577, kTrtMaverickH100},
    {"TRT-LLM perf Llama 4 Maverick (MoE) FP8, H100 TP8, 2048/2048",
     "trtllm-perf-llama4-maverick-h100-tp8-2048-2048.yaml", "tokens_per_s_instance", 6916, "tokens/s",
     kTrtPerfMoe, +0.570, kTrtMaverickH100},
    {"TRT-LLM perf Llama 4 Maverick (MoE) FP8, H100 TP8, 5000/500",
     "trtllm-perf-llama4-maverick-h100-tp8-5000-500.yaml", "tokens_per_s_instance", 3457, "tokens/s",
     kTrtPerfMoe, +0.698, kTrtMaverickH100},
    {"TRT-LLM DeepSeek-R1 NVFP4, 8 B200, attention DP + EP 8, 1024/2048, FP8 KV",
     "trtllm-dsr1-b200-fp4-adp-ep8-fp8kv.yaml", "tokens_per_s_instance", 43146.2, "tokens/s", kTrtDeepSeek},
    {"TRT-LLM DeepSeek-R1 NVFP4, 8 B200, attention DP + EP 8, 1024/2048, BF16 KV",
     "trtllm-dsr1-b200-fp4-adp-ep8-bf16kv.yaml", "tokens_per_s_instance", 36384.1, "tokens/s", kTrtDeepSeek},
    {"TRT-LLM DeepSeek-R1 FP8, 8 H200, attention DP + EP 8, 1024/2048, BF16 KV",
     "trtllm-dsr1-h200-fp8-adp-ep8.yaml", "tokens_per_s_instance", 11489.3, "tokens/s", kTrtDeepSeek, +0.199,
     kTrtDeepSeekH200},
    {"NIM Llama 3.3 70B fp8, H100 TP2, 5000/500, concurrency 1: ITL", "nim-llama33-70b-h100-tp2-c1.yaml",
     "tpot_s", 0.01858, "s", kNim},
    {"NIM Llama 3.3 70B fp8, H100 TP2, 5000/500, concurrency 1: TTFT", "nim-llama33-70b-h100-tp2-c1.yaml",
     "ttft_s", 0.40677, "s", kNim},
    {"NIM Llama 3.3 70B fp8, H100 TP2, 5000/500, concurrency 50", "nim-llama33-70b-h100-tp2-c50.yaml",
     "tokens_per_s_instance", 814.37, "tokens/s", kNim},
    {"MLPerf v4.1 Llama-2-70B server (TTFT 2 s, TPOT 0.2 s p99), 8x H100",
     "mlperf41-llama2-70b-server-h100.yaml", "tokens_per_s_node", 21605.79, "tokens/s",
     "MLPerf Inference v4.1, NVIDIA DGX-H100 server summary", -0.307, kMlperfDecodeShapes},
    {"vLLM Granite-4.0-micro fp8, 1 L40S, offline", "vllm-granite4-micro-l40s.yaml", "tokens_per_s_instance",
     5011.58, "tokens/s", kGraniteLog, +1.352, kMaxNumSeqs},
    // KV capacity and memory.
    {"vLLM Granite-4.0-micro, L40S: KV cache memory", "vllm-granite4-micro-l40s.yaml", "kv_cache_gib_per_gpu",
     35.34, "GiB", kGraniteLog},
    {"vLLM Granite-4.0-micro, L40S: KV cache tokens", "vllm-granite4-micro-l40s.yaml", "kv_cache_tokens",
     463136, "tokens", kGraniteLog},
    {"vLLM Granite-4.0-micro, L40S: weights", "vllm-granite4-micro-l40s.yaml", "weights_gib_per_gpu", 3.4244,
     "GiB", kGraniteLog},
    {"vLLM Llama 3.1 405B FP8, H100 TP8: weights per GPU", "vllm-llama31-405b-fp8-h100-tp8.yaml",
     "weights_gib_per_gpu", 57.752, "GiB", "vLLM issue #6746 start-up log"},
    {"vLLM Qwen3-235B-A22B FP8, H100 TP4: KV cache memory", "vllm-qwen3-235b-fp8-h100-tp4.yaml",
     "kv_cache_gib_per_gpu", 8.11, "GiB", "vLLM issue #21348 start-up log", +0.512, kServingReserve},
    // Checkpoint sizes.
    {"Llama 3.1 8B BF16 checkpoint", "ckpt-llama31-8b-bf16.yaml", "/storage/weights_bytes", 16060522496, "B",
     kHfIndex},
    {"Llama 3.3 70B BF16 checkpoint", "ckpt-llama33-70b-bf16.yaml", "/storage/weights_bytes", 141107412992,
     "B", kHfIndex},
    {"Mixtral 8x7B BF16 checkpoint", "ckpt-mixtral-8x7b-bf16.yaml", "/storage/weights_bytes", 93405585408,
     "B", kHfIndex},
    {"BLOOM 176B checkpoint with optimizer states (2.3 TiB)", "bloom-176b-a100.yaml",
     "/storage/checkpoint_bytes", 2.3 * 1099511627776.0, "B", "BigScience BLOOM training page"},
};

// A figure by its top-level key, or by a JSON pointer ("/storage/weights_bytes") for a nested one.
double predicted(const Case& c) {
  const auto figures = plan_file(data_dir() / c.file).figures;
  if (c.figure[0] == '/') return figures.at(nlohmann::json::json_pointer(c.figure)).get<double>();
  return figures.at(c.figure).get<double>();
}

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

// A figure as the validation table of docs/sizing.md prints it: 4 significant digits (7 for a published
// figure), thousands separated, the minus sign typeset.
std::string readable(double x, int digits) {
  std::string s = fmt::format("{:.{}g}", x, digits);
  if (std::abs(x) >= 1000 && std::abs(x) < 1e15) {
    double r = std::stod(s);
    std::string digits_only = fmt::format("{:.0f}", std::abs(r)), grouped;
    for (std::size_t k = 0; k < digits_only.size(); ++k) {
      if (k && (digits_only.size() - k) % 3 == 0) grouped += ',';
      grouped += digits_only[k];
    }
    s = (r < 0 ? "-" : "") + grouped;
  }
  return s;
}

std::string signed_percent(double e) {
  std::string s = fmt::format("{:+.1f} %", 100 * e);
  return s[0] == '-' ? std::string("−") + s.substr(1) : s;
}

// The table of docs/sizing.md and the closing note, from the same runs: the copy in docs/sizing.md must be
// this one (MLBENCH_UPDATE_GOLDEN=1 rewrites it), so the published table cannot drift from what the engine
// gives.
TEST(ValidationTable, PrintsEveryCaseWithItsSignedError) {
  std::string table =
      "  | case | published | model | error | term outside ±15 % | source |\n"
      "  |---|---:|---:|---:|---|---|\n";
  int within = 0;
  for (const auto& c : kCases) {
    double model = predicted(c);
    within += std::abs(model / c.published - 1) <= 0.15;
    table += fmt::format("  | {} | {} {} | {} | {} | {} | {} |\n", c.name, readable(c.published, 7), c.unit,
                         readable(model, 4), signed_percent(model / c.published - 1),
                         c.responsible ? c.responsible : "", c.source);
  }
  std::fputs(table.c_str(), stdout);
  const auto doc = source_dir() / "docs" / "sizing.md";
  std::string text;
  {
    std::ifstream in(doc, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::string header = table.substr(0, table.find('\n') + 1);
  auto begin = text.find(header);
  ASSERT_NE(begin, std::string::npos) << "docs/sizing.md has no validation table";
  auto end = text.find("\n\n", begin);
  ASSERT_NE(end, std::string::npos);
  const std::string count =
      fmt::format("The table holds {} published cases, {} of them within ±15 %", std::size(kCases), within);
  if (std::getenv("MLBENCH_UPDATE_GOLDEN")) {
    text.replace(begin, end + 1 - begin, table);
    text = std::regex_replace(
        text, std::regex("The table holds [0-9]+ published cases, [0-9]+ of them within ±15 %"), count);
    std::ofstream(doc, std::ios::binary) << text;
    return;
  }
  EXPECT_NE(text.find(count), std::string::npos) << "docs/sizing.md does not say: " << count;
  EXPECT_EQ(text.substr(begin, end + 1 - begin), table)
      << "docs/sizing.md's validation table differs from the engine's: MLBENCH_UPDATE_GOLDEN=1 rewrites it";
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

// MLPerf's decode step: 2 x 80 all-reduces of 623 tokens (the batch TensorRT-LLM's KV cache holds at 0.90 of
// its free memory, max_util) x 8192 bf16 values at TP 2, each at TensorRT-LLM's measured time for the H100 at
// TP 2, between its 2^22 and 2^23-element points: 160 x 47.6 us = 7.6 ms (the custom kernel's 3.7 us + bytes
// / NVLink busbw would give 5.1 ms).
TEST(ValidationTable, ServingAllReducesPayTensorRtLlmsMeasuredTime) {
  const std::string driver = decode_step_driver("mlperf-llama2-70b-offline.yaml");
  EXPECT_NE(driver.find("batch 623 x"), std::string::npos) << driver;
  EXPECT_NE(driver.find("TP all-reduces 0.0076 s"), std::string::npos) << driver;
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

// Megatron-LM trains in bf16 with its gradients accumulated and reduced in fp32: arguments.py sets
// accumulate_allreduce_grads_in_fp32 for --bf16 unless --grad-reduce-in-bf16 is given, and the README's table
// names no such flag. So the Megatron-Core GPT runs hold and reduce 4 B gradients, not the 2 B of `adam`:
// the 70B's reduce-scatter over its 48 data-parallel ranks (with the 2 B weights' all-gather) leaves 0.057 s
// exposed past the chunks' backward where 2 B gradients leave 0.038 s.
TEST(ValidationTable, MegatronBf16RunsReduceGradientsInFp32) {
  for (const char* file :
       {"megatron-gpt-1.7b-h100.yaml", "megatron-gpt-7.1b-h100.yaml", "megatron-gpt-70b-h100.yaml",
        "megatron-gpt-177b-h100.yaml", "megatron-gpt-462b-h100.yaml"}) {
    const auto w = load_workload(data_dir() / file);
    const auto& t = std::get<LlmTraining>(w.spec);
    EXPECT_EQ(t.precision, "bf16") << file;
    EXPECT_EQ(grad_bytes(t), 4) << file;
  }
  const auto sheet = plan_file(data_dir() / "megatron-gpt-70b-h100.yaml");
  for (const auto& l : sheet.lines)
    if (l.item == "Step time") {
      EXPECT_NE(l.driver.find("DP exposed 0.057"), std::string::npos) << l.driver;
    }
}

// The whole-run cases divide the step model's time by the goodput; the sheet lists that default with the
// published figure it is: Llama 3's "higher than 90% effective training time" (useful training over elapsed
// time) on up to 16K H100 (Llama 3 paper, section 3.3.4), not a guess.
TEST(ValidationTable, GoodputIsThePublishedEffectiveTrainingTime) {
  const auto sheet = plan_file(data_dir() / "llama3-405b-h100-gpu-hours.yaml");
  bool listed = false;
  for (const auto& a : sheet.assumptions) {
    if (a.name != "Goodput") continue;
    listed = true;
    EXPECT_DOUBLE_EQ(a.quantity, 0.90);
    EXPECT_NE(a.basis.find("effective training time"), std::string::npos) << a.basis;
    EXPECT_NE(a.basis.find("Llama 3 paper"), std::string::npos) << a.basis;
  }
  EXPECT_TRUE(listed) << "the sheet lists no goodput assumption";
}

// MFU is predicted, not a constant: the Llama 2 sizes land on different values (7B 0.540, 13B 0.555, 34B
// 0.574, 70B 0.573 at 2,048 GPUs).
TEST(ValidationTable, MfuDiffersBetweenModels) {
  double a = plan_file(data_dir() / "llama2-13b-a100.yaml").figures.at("mfu").get<double>();
  double b = plan_file(data_dir() / "llama2-70b-a100.yaml").figures.at("mfu").get<double>();
  EXPECT_GT(std::abs(a - b), 1e-3);
}

}  // namespace
}  // namespace mlbench::sizing::test
