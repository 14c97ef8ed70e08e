// The sizing engine's assumptions: one table of {name, value, basis}. The models and the planner read each
// value from its entry here and the sheet's assumptions section lists the entries, so a number on the sheet
// and the number the engine ran on are one constant (METHODS.md "Sizing assumptions").
//
// Calibration defaults apply only where no report measured the figure (calibrate() then replaces them with
// the measurement, and the sheet lists the calibrated figure with its source); engine assumptions always
// apply and are listed as assumed. A new assumption is an entry here plus its row in declared_assumptions()
// (assumptions.cpp), which says where the sheet lists it; the models read `.value`, the sheet lists it from
// there, and a test fails for an entry here without its row.
#pragma once

#include <array>
#include <span>
#include <string>
#include <string_view>

namespace mlbench::sizing {

struct Assumption {
  std::string_view name;   // as the sheet lists it, less its unit
  double value = 0;        // in the unit the models compute in (bytes, seconds, watts per GB, a fraction)
  std::string_view basis;  // the published source or the reasoning behind the value
  double listed_per = 1;   // the sheet lists value / listed_per (2e9 bytes as 2 GB)
  std::string_view kind;   // the workload kind it applies to; empty: every kind
  std::string_view unit;   // of the listed value ("GB", "h"); empty: a fraction or a count, as the name says
  double listed() const { return value / listed_per; }
  // "Runtime overhead per GPU (GB)": the name with the unit it is listed in.
  std::string listed_name() const {
    return unit.empty() ? std::string(name) : std::string(name) + " (" + std::string(unit) + ")";
  }
};

namespace assumption {

// ----- Calibration defaults (replaced by a measurement where a report has one)
// Published best-shape GEMM results: H100 BF16 795/989 = 0.80, A100 271/312 = 0.87 -> 0.80 for 16-bit;
// H100 FP8 1403/1979 = 0.71. For a GPU without its own published figure (kPublishedGemm below).
inline constexpr Assumption kGemm16{"GEMM efficiency (eta_GEMM)", 0.80, "published best-shape results"};
inline constexpr Assumption kGemm8{"GEMM efficiency (eta_GEMM)", 0.71, "published best-shape results"};
// FP4 (NVFP4, MXFP4): the best published NVFP4 GEMM found, vLLM's CUTLASS kernel on a B200 at 16384 x 6144 x
// 4096 (the largest shape of its table), 3,904 of the 9,000 dense TFLOPS with the activations already in FP4:
// the serving engines fuse that quantization into the kernel before the GEMM. No brute-force shape search
// (as for the per-GPU asymptotes below) has been published for FP4. Another FP4 GPU with a published FP8
// asymptote takes this share scaled by its FP8 asymptote over the B200's (the same tensor cores at its own
// sustained clocks, which the FP8 brute-force searches measure); else this share.
inline constexpr Assumption kGemm4{
    "GEMM efficiency (eta_GEMM)", 3904.3 / 9000,
    "B200 NVFP4 CUTLASS GEMM 3,904 of 9,000 TFLOPS at 16384x6144x4096, activations pre-quantized (vLLM PR "
    "#20646's benchmark table)"};
inline constexpr std::string_view kGemm4Gpu = "B200";  // the catalog GPU kGemm4 was measured on
// A GPU's large-GEMM asymptote: the best torch.matmul (cuBLAS) throughput a brute-force search over shapes
// found, as a share of the dense datasheet peak ("Maximum Achievable Matmul FLOPS", S. Bekman, Machine
// Learning Engineering, compute/accelerator/README.md, mean of 100 iterations per shape). The shape model
// (sizing/model_gemm.hpp, gemm_shape_efficiency) scales it by the tile and wave quantization of each GEMM.
struct PublishedGemm {
  std::string_view gpu;      // catalog name
  double bf16 = 0, fp8 = 0;  // MAMF / datasheet peak; 0: not published
  std::string_view basis;
};
inline constexpr PublishedGemm kPublishedGemm[] = {
    {"A100-SXM4-80GB", 271.2 / 312, 0, "MAMF A100 SXM BF16 271.2 of 312 TFLOPS (ml-engineering)"},
    {"A100-SXM4-40GB", 271.2 / 312, 0, "MAMF A100 SXM BF16 271.2 of 312 TFLOPS (ml-engineering)"},
    {"H100-SXM", 794.5 / 989, 1402.6 / 1979,
     "MAMF H100 SXM BF16 794.5 of 989, FP8 1402.6 of 1979 TFLOPS (ml-engineering)"},
    {"H200-SXM", 794.5 / 989, 1453.4 / 1979,
     "MAMF H200 SXM BF16 as H100 794.5 of 989, FP8 1453.4 of 1979 TFLOPS (ml-engineering)"},
    {"GH200", 828.6 / 989, 1535.0 / 1979,
     "MAMF GH200 BF16 828.6 of 989, FP8 1535.0 of 1979 TFLOPS (ml-engineering)"},
    {"B200", 1745.0 / 2250, 3432.5 / 4500,
     "MAMF B200 SXM BF16 1745.0 of 2250, FP8 3432.5 of 4500 TFLOPS (ml-engineering)"},
    {"GB200", 1822.0 / 2500, 3615.6 / 5000,
     "MAMF GB200 BF16 1822.0 of 2500, FP8 3615.6 of 5000 TFLOPS (ml-engineering)"},
    {"MI300X", 668.4 / 1300, 0, "MAMF MI300X BF16 668.4 of 1300 TFLOPS (ml-engineering)"},
};
// A GPU's sustained large-GEMM asymptote: the best cuBLASLt throughput over a published shape sweep run after
// 10,000 warm-up iterations, at the clocks the GPU holds under minutes of load (Azure/AI-benchmarking-guide,
// Azure_Results/ND_<vm>_results.md, random operands). A serving benchmark runs its GEMMs for minutes, so a
// serving step's GEMMs take this figure, in place of kPublishedGemm's (a short run per shape, at boost
// clocks), where the GPU and precision have one; the training step's GEMMs keep kPublishedGemm x
// kTrainingGemmDerate, whose derate already holds the sustained clocks of a weeks-long run. The A100 40 GB
// card has the measured 80 GB card's die and clocks and takes its figure, as it does in kPublishedGemm.
struct PublishedSustainedGemm {
  std::string_view gpu;      // catalog name
  double bf16 = 0, fp8 = 0;  // sustained / datasheet peak; 0: not published
  std::string_view basis;
};
inline constexpr PublishedSustainedGemm kPublishedSustainedGemm[] = {
    {"A100-SXM4-80GB", 256.5 / 312, 0,
     "sustained cuBLASLt FP16 256.5 of 312 TFLOPS at 16384^3 after 10,000 warm-up iterations (Azure ND A100 "
     "v4; FP16 and BF16 share the A100's tensor-core rate)"},
    {"A100-SXM4-40GB", 256.5 / 312, 0,
     "sustained cuBLASLt FP16 256.5 of 312 TFLOPS at 16384^3 after 10,000 warm-up iterations on the "
     "A100-SXM4-80GB, the same die and clocks (Azure ND A100 v4; FP16 and BF16 share the A100's tensor-core "
     "rate)"},
    {"H100-SXM", 0, 1382.2 / 1979,
     "sustained cuBLASLt FP8 1,382.2 of 1,979 TFLOPS at 32768^3 after 10,000 warm-up iterations (Azure ND "
     "H100 v5)"},
    {"H200-SXM", 0, 1366.3 / 1979,
     "sustained cuBLASLt FP8 1,366.3 of 1,979 TFLOPS at 16384^3 after 10,000 warm-up iterations (Azure ND "
     "H200 v5)"},
};
// The CTA output tiles (rows x columns) of the Hopper/Ampere cuBLAS and CUTLASS tensor-core GEMM kernels the
// shape model lets a GEMM choose from (the best for its shape, as cuBLAS's heuristic does): 128x256 and
// 256x128 for large GEMMs, 128x128, and 64x128 (a 64-row wgmma warpgroup tile) for few rows.
struct GemmTile {
  int m, n;
};
inline constexpr GemmTile kGemmTiles[] = {{128, 256}, {256, 128}, {128, 128}, {64, 128}};
// Split-K: at most this many k slices, each at least this deep (a 64-deep k step x 4 pipeline stages, so a
// slice still fills the kernel's software pipeline).
inline constexpr int kGemmMaxSplitK = 8;
inline constexpr double kGemmMinSplitKDepth = 256;
inline constexpr Assumption kHbm{
    "HBM bandwidth efficiency", 0.90,
    "good kernels reach ~90 % of datasheet HBM (METHODS.md \"Reference figures\")"};
inline constexpr Assumption kNvlink{
    "NVLink all_reduce efficiency", 0.81,
    "8xH200 ring all_reduce busbw 366 of 450 GB/s (METHODS.md \"Reference figures\")"};
inline constexpr Assumption kNetwork{"Network busbw efficiency", 0.90,
                                     "assumed inter-node busbw / NIC line rate"};
// Convolution networks: MLPerf ResNet-50 training ~2,700 images/s per A100 = 3 x 8.2 GFLOP x 2,700 = 21 % of
// the BF16 peak (cuDNN convolutions plus batch-norm/ReLU memory traffic).
inline constexpr Assumption kConvModel{"CNN training efficiency", 0.21,
                                       "MLPerf ResNet-50 ~2,700 img/s per A100 = 21 % of peak", 1,
                                       "cv-training"};
inline constexpr Assumption kHostMem{"Host memory efficiency", 0.70,
                                     "assumed STREAM triad share of theoretical"};
// A GPU's published HBM measurement, its HBM efficiency (measured / datasheet) where no report measured it,
// in place of kHbm: the A100-SXM4-80GB streams at 85 % of its datasheet, the H100 at 89 % and the H200 at
// 86 %, not 90 %, and their memory-bound serving (the decode step: weights + KV read) and training non-GEMM
// traffic run at that rate.
struct PublishedHbm {
  std::string_view gpu;    // catalog name
  double bytes_per_s = 0;  // measured
  std::string_view basis;
};
inline constexpr PublishedHbm kPublishedHbm[] = {
    {"A100-SXM4-80GB", 1724.8e9,
     "BabelStream 5.0 CUDA triad 1,724.8 GB/s on Tursa's A100-SXM4-80GB (UKRI benchmark suite, "
     "ukri-bench/benchmark-BabelStream)"},
    {"H100-SXM", 2.97e12,
     "BabelStream CUDA triad 2.97 TB/s on Azure ND H100 v5's H100 80GB HBM3 (Azure/AI-benchmarking-guide, "
     "Azure_Results/ND_H100_v5_results.md)"},
    {"H200-SXM", 4.15e12,
     "BabelStream CUDA triad 4.15 TB/s on Azure ND H200 v5's H200 141GB (Azure/AI-benchmarking-guide, "
     "Azure_Results/ND_H200_v5_results.md)"}};
// A GPU's best published decode-attention read rate: a decode step's paged KV-cache read (split-KV kernels,
// one query row per sequence) streams below a plain copy, and where a measurement of the serving engines'
// own decode kernel is published the step reads its cache at that rate (or at the calibrated HBM rate when
// that is lower). The GB200 has no figure of its own and takes the B200's: the same 8 TB/s HBM3e.
struct PublishedDecodeAttention {
  std::string_view gpu;    // catalog name
  double bytes_per_s = 0;  // measured KV bytes read per second
  std::string_view basis;
};
inline constexpr PublishedDecodeAttention kPublishedDecodeAttention[] = {
    {"B200", 5830.86e9,
     "TensorRT-LLM's trtllm-gen decode kernel on a B200, 5,830.86 GB/s at batch 128 x 4,096-token contexts "
     "(64 query / 8 KV heads, page 16; FlashInfer PR #1415's bench_trtllm_fmha)"},
    {"GB200", 5830.86e9,
     "the B200's trtllm-gen decode figure, 5,830.86 GB/s (FlashInfer PR #1415): the same 8 TB/s HBM3e, no "
     "GB200 figure published"}};

// Fused attention's training time in FP8 against BF16 where a GPU's is published: cuDNN's FP8 and BF16
// scaled-dot-product attention, forward + backward, causal, one sequence of 2^9, 2^10, ... 2^17 tokens, 128
// query and 8 KV heads of 128 (Llama 3.1 405B's), the two precisions in one run. FP8 doubles the tensor
// cores' multiply rate but not the softmax's exponentials, the rescaling or the backward's recomputation that
// bound the kernel, so FP8 attention (Transformer Engine's fp8_dpa, the workload's fp8_attention) runs at the
// BF16 rate x bf16_s / fp8_s at the kernel's query length (a ratio under 1 below about 1,400 tokens on the
// B200), a full recompute's forward at bf16_forward_s / fp8_forward_s, and at the BF16 rate on a GPU with no
// published pair.
struct PublishedFp8Attention {
  std::string_view gpu;                     // catalog name
  std::array<double, 9> fp8_s{}, bf16_s{};  // forward + backward
  std::array<double, 9> fp8_forward_s{}, bf16_forward_s{};
  std::string_view basis;
};
inline constexpr int kPublishedFp8AttentionFirstLog2 = 9;
inline constexpr PublishedFp8Attention kPublishedFp8Attention[] = {
    {"B200",
     {0.170e-3, 0.295e-3, 0.759e-3, 1.861e-3, 5.846e-3, 20.161e-3, 75.344e-3, 293.835e-3, 1178.522e-3},
     {0.142e-3, 0.289e-3, 0.781e-3, 2.132e-3, 7.115e-3, 25.056e-3, 97.755e-3, 378.910e-3, 1643.964e-3},
     {0.044e-3, 0.067e-3, 0.141e-3, 0.447e-3, 1.464e-3, 5.197e-3, 19.751e-3, 77.531e-3, 307.690e-3},
     {0.035e-3, 0.061e-3, 0.151e-3, 0.482e-3, 1.589e-3, 5.962e-3, 23.228e-3, 94.215e-3, 395.922e-3},
     "cuDNN 9.13.1 on a B200 (NVIDIA cudnn-frontend, benchmark/sdpa_benchmark_training/artifacts, "
     "sdpa_fp8_benchmark_results_NVIDIA_B200.csv)"},
    {"GB200",
     {0.090e-3, 0.197e-3, 0.616e-3, 1.595e-3, 5.513e-3, 20.347e-3, 78.123e-3, 307.155e-3, 1236.380e-3},
     {0.087e-3, 0.210e-3, 0.653e-3, 1.703e-3, 5.928e-3, 22.132e-3, 87.947e-3, 370.549e-3, 1567.867e-3},
     {0.018e-3, 0.040e-3, 0.104e-3, 0.331e-3, 1.161e-3, 4.327e-3, 16.564e-3, 64.518e-3, 259.183e-3},
     {0.021e-3, 0.047e-3, 0.129e-3, 0.399e-3, 1.389e-3, 5.257e-3, 20.855e-3, 88.377e-3, 382.750e-3},
     "cuDNN 9.17.0 on a GB200 (NVIDIA cudnn-frontend, benchmark/sdpa_benchmark_training/artifacts, "
     "sdpa_fp8_benchmark_results_NVIDIA_GB200.csv)"}};

// TensorRT-LLM's tensor-parallel all-reduce as the engine runs it (its AllReduce op, strategy AUTO: the
// custom one- or two-shot kernels or NCCL by size; bf16; replayed in a CUDA graph), seconds per call at
// 2^12, 2^13, ... 2^27 elements, as NVIDIA's aiconfigurator collected it on each GPU and TP degree
// (ai-dynamo/aiconfigurator, aic-core systems data <gpu>/comm/trtllm/<version>/custom_allreduce_perf,
// collector/network/collect_all_reduce.py), each GPU at the oldest release measured there (A100: 1.0.0). A
// TensorRT-LLM serving step's all-reduces take these times (published_serving_allreduce); other engines and
// GPUs keep kServingAllReduceLatency + bytes / busbw.
struct PublishedServingAllReduce {
  std::string_view gpu;  // catalog name
  int tp = 0;
  std::string_view version;  // the TensorRT-LLM release measured
  std::array<double, 16> seconds{};
};
inline constexpr int kPublishedAllReduceFirstLog2 = 12;
inline constexpr PublishedServingAllReduce kPublishedServingAllReduce[] = {
    {"H100-SXM",
     2,
     "1.2.0rc5",
     {3.5e-6, 9.9e-6, 3.4e-6, 8.4e-6, 3.8e-6, 4.2e-6, 5.1e-6, 6.7e-6, 9.6e-6, 17.1e-6, 37.8e-6, 83.1e-6,
      145.6e-6, 255.8e-6, 467.8e-6, 885.5e-6}},
    {"H100-SXM",
     4,
     "1.2.0rc5",
     {3.6e-6, 3.6e-6, 3.7e-6, 11.5e-6, 10.9e-6, 11.1e-6, 11.9e-6, 13.2e-6, 22.1e-6, 35.7e-6, 62.9e-6,
      101.1e-6, 174.9e-6, 326.3e-6, 615.4e-6, 1183.4e-6}},
    {"H100-SXM",
     8,
     "1.2.0rc5",
     {3.9e-6, 4.0e-6, 4.2e-6, 4.9e-6, 6.6e-6, 10.3e-6, 16.3e-6, 19.6e-6, 28.3e-6, 46.4e-6, 79.4e-6, 122.8e-6,
      198.5e-6, 322.7e-6, 576.8e-6, 1090.5e-6}},
    {"H200-SXM",
     2,
     "1.2.0rc5",
     {3.4e-6, 8.8e-6, 3.4e-6, 7.3e-6, 3.6e-6, 4.1e-6, 4.9e-6, 6.5e-6, 9.5e-6, 16.6e-6, 33.1e-6, 78.6e-6,
      143.5e-6, 251.0e-6, 466.6e-6, 888.2e-6}},
    {"H200-SXM",
     4,
     "1.2.0rc5",
     {3.5e-6, 3.5e-6, 3.7e-6, 9.9e-6, 9.4e-6, 9.8e-6, 11.0e-6, 13.1e-6, 20.9e-6, 34.9e-6, 60.5e-6, 98.2e-6,
      175.5e-6, 323.4e-6, 617.0e-6, 1188.7e-6}},
    {"H200-SXM",
     8,
     "1.2.0rc5",
     {3.9e-6, 3.9e-6, 4.4e-6, 5.0e-6, 6.8e-6, 10.2e-6, 16.2e-6, 19.6e-6, 28.7e-6, 44.8e-6, 78.3e-6, 122.2e-6,
      196.6e-6, 319.7e-6, 564.0e-6, 1053.8e-6}},
    {"B200",
     2,
     "1.2.0rc5",
     {4.9e-6, 5.2e-6, 5.1e-6, 5.1e-6, 5.3e-6, 5.3e-6, 5.7e-6, 6.4e-6, 8.2e-6, 11.5e-6, 20.5e-6, 56.3e-6,
      86.3e-6, 155.0e-6, 281.6e-6, 531.8e-6}},
    {"B200",
     4,
     "1.2.0rc5",
     {5.3e-6, 5.4e-6, 5.4e-6, 5.4e-6, 5.8e-6, 6.3e-6, 7.6e-6, 9.8e-6, 14.5e-6, 23.8e-6, 49.5e-6, 78.3e-6,
      122.6e-6, 186.6e-6, 355.6e-6, 681.6e-6}},
    {"B200",
     8,
     "1.2.0rc5",
     {5.7e-6, 6.0e-6, 5.8e-6, 5.9e-6, 6.6e-6, 8.1e-6, 11.2e-6, 17.2e-6, 24.7e-6, 31.5e-6, 73.8e-6, 103.1e-6,
      170.4e-6, 279.6e-6, 399.5e-6, 722.7e-6}},
    {"GB200",
     2,
     "1.3.0rc10",
     {4.6e-6, 4.7e-6, 4.7e-6, 4.6e-6, 4.5e-6, 4.7e-6, 5.2e-6, 6.0e-6, 7.9e-6, 12.0e-6, 21.4e-6, 44.3e-6,
      86.1e-6, 153.9e-6, 282.1e-6, 534.3e-6}},
    {"GB200",
     4,
     "1.3.0rc10",
     {5.0e-6, 5.0e-6, 5.1e-6, 5.0e-6, 5.2e-6, 5.7e-6, 7.1e-6, 9.6e-6, 14.8e-6, 27.3e-6, 50.1e-6, 74.5e-6,
      125.4e-6, 187.2e-6, 353.2e-6, 675.2e-6}},
    {"A100-SXM4-80GB",
     2,
     "1.0.0",
     {4.7e-6, 5.1e-6, 4.9e-6, 5.1e-6, 5.2e-6, 6.2e-6, 7.8e-6, 11.6e-6, 47.6e-6, 54.3e-6, 80.9e-6, 128.9e-6,
      225.9e-6, 391.6e-6, 750.9e-6, 1432.3e-6}},
    {"A100-SXM4-80GB",
     4,
     "1.0.0",
     {6.0e-6, 6.3e-6, 6.0e-6, 6.0e-6, 7.3e-6, 9.4e-6, 13.9e-6, 23.1e-6, 48.3e-6, 69.9e-6, 112.5e-6, 185.5e-6,
      291.4e-6, 549.2e-6, 1004.0e-6, 1926.8e-6}},
    {"A100-SXM4-80GB",
     8,
     "1.0.0",
     {8.0e-6, 8.4e-6, 8.4e-6, 9.0e-6, 11.7e-6, 16.3e-6, 28.3e-6, 83.2e-6, 53.6e-6, 75.9e-6, 128.8e-6,
      216.8e-6, 374.5e-6, 603.4e-6, 1173.7e-6, 2175.9e-6}},
};

// NCCL's all-gather and reduce-scatter within a node, seconds per call at 2^12, 2^13, ... 2^27 half-precision
// elements of the whole gathered (or reduced) tensor, as NVIDIA's aiconfigurator measured them with
// nccl-tests (aic-core systems data <gpu>/comm/nccl/<version>/nccl_perf, collector/network/collect_nccl.py),
// each GPU at the oldest NCCL release measured there. Attention data parallelism's expert-parallel exchange
// takes these times where its GPU and degree are measured (serving_ep_time); elsewhere the custom kernel's
// latency + the bytes at the calibrated NVLink rate.
struct PublishedNcclCollective {
  std::string_view gpu;  // catalog name
  std::string_view op;   // all_gather, reduce_scatter
  int gpus = 0;
  std::string_view version;  // the NCCL release measured
  std::array<double, 16> seconds{};
};
inline constexpr int kPublishedNcclFirstLog2 = 12;
inline constexpr PublishedNcclCollective kPublishedNcclCollectives[] = {
#include "sizing/published_nccl.inc"
};

// TensorRT-LLM's fused MoE op as the engine runs it (its CUTLASS MoE: the routing of given router logits, the
// permutation to the experts, both grouped GEMMs with the gated activation between them, and the finalize
// that scatters the weighted outputs back; in a CUDA graph where it captures), seconds per call on one GPU at
// 2^0, 2^1, ... 2^14 tokens, routed by a power law of alpha 1.2 (aiconfigurator's routing for these models,
// sdk/models/moe.py), as NVIDIA's aiconfigurator collected it (aic-core systems data
// <gpu>/moe/trtllm/<version>/moe_perf, collector/trtllm/collect_moe.py), for the shapes it measures:
// Qwen3-30B-A3B, Qwen3-235B-A22B, Mixtral 8x7B and 8x22B and Llama 4 Scout on a GPU holding every expert
// (moe_tp and moe_ep 1) and on one GPU of a tensor-parallel split of every expert (moe_tp 2, 4, 8: each GPU
// holds 1/moe_tp of every expert's FFN and takes every token); every shape, Llama 4 Maverick and
// DeepSeek-V3/R1 (whose fp8 rows are the block-scaled FP8, fp8_block, its checkpoints use) included, on one
// rank of an expert-parallel group (moe_ep 2, 4, 8: the rank's share of the experts, given every rank's
// tokens: the collector feeds the rank the whole batch and computes its own experts); each shape and split
// at the oldest TensorRT-LLM release aiconfigurator measured it at, so the splits of one shape may come
// from different releases (the published runs the engine is checked on ran 0.17 and 1.0, no newer than any
// collection; the A100's only one is 1.0.0). The rows are sizing/published_moe.inc, written by
// scripts/published-moe.mjs. A TensorRT-LLM serving step takes these times for its MoE layers where the
// workload's split is measured (published_serving_moe): every expert split over the tensor-parallel group
// (moe_tp = t, TensorRT-LLM's mapping when no expert-parallel size is given; t 1: one GPU), or attention
// data parallelism over the expert-parallel group; its router GEMM and shared experts stay with the other
// GEMMs. Many measured splits run slower than a coarser split of the same GPU and shape at some token counts
// (Mixtral 8x22B on the H100 at moe_tp 8: 2-3x its moe_tp 4 time at every one), which a GPU holding half the
// slice, or half the experts, cannot need: a split's time is bounded by its coarser splits' at every release
// measured, and the sheet names the release and split that bound it (published_moe_seconds).
struct PublishedServingMoe {
  std::string_view gpu;        // catalog name
  std::string_view precision;  // the workload's: bf16, fp8 (per-tensor scales; DeepSeek's 128 x 128 blocks),
                               // nvfp4
  int hidden = 0, ffn_hidden = 0, top_k = 0, experts = 0;
  int tp = 1;                // the tensor-parallel split of every expert (moe_tp_size)
  int ep = 1;                // the expert-parallel group (moe_ep_size)
  std::string_view version;  // the TensorRT-LLM release measured
  std::array<double, 15> seconds{};
};
inline constexpr PublishedServingMoe kPublishedServingMoe[] = {
#include "sizing/published_moe.inc"
};

// ----- Engine assumptions (always applied, listed on every sheet in this order)
// The share of elapsed time spent on useful training (the rest: restarts after interruptions, lost work,
// checkpoint stalls): Llama 3 405B pre-training on up to 16K H100 reports "higher than 90% effective training
// time" over 466 interruptions in 54 days (Llama 3 paper, section 3.3.4).
inline constexpr Assumption kGoodput{
    "Goodput", 0.90,
    "Llama 3 paper, section 3.3.4: higher than 90 % effective training time (useful training / elapsed) on "
    "up to 16K H100"};
// gpu.gemm measures forward (TN) GEMMs on a cool GPU for seconds; training adds the dgrad/wgrad GEMMs in the
// transposed operand layouts and runs for weeks at power-capped sustained clocks. Their shapes (tiles, waves)
// are the shape model's; this is the rest.
inline constexpr Assumption kTrainingGemmDerate{
    "Training GEMM derate", 0.85,
    "dgrad/wgrad operand layouts and power-capped sustained clocks vs a gpu.gemm run (shapes modelled)"};
inline constexpr Assumption kAttentionRelative{"Attention vs GEMM efficiency", 0.60,
                                               "flash-attention kernels, causal"};
inline constexpr Assumption kOverlapHidden{"Overlapped DP traffic hidden", 0.90,
                                           "of the data-parallel sync within the compute it overlaps"};
// The runtime's reserve on each GPU: device memory the framework holds outside its tensors. A GPU fits what
// its HBM holds less this reserve (the training layouts, serving's KV cache); the planning headroom is a
// margin on time, throughput and capacity, not on memory.
inline constexpr Assumption kCudaContext{
    "CUDA context per GPU",
    287047680,
    "PyTorch PR #86509: a CUDA context under lazy module loading (CUDA_MODULE_LOADING=LAZY, the default "
    "since CUDA 12.2) holds 287,047,680 B of device memory, 666,632,192 B loaded eagerly",
    1e9,
    "",
    "GB"};
inline constexpr Assumption kCublasWorkspace{
    "cuBLAS workspace per GPU",
    32.0 * 1024 * 1024,
    "cuBLAS documentation (cublasSetWorkspace): 32 MiB recommended on Hopper, 4 MiB before it",
    1e9,
    "",
    "GB"};
// NCCL holds its FIFOs and connections per communicator, linear in its channels (NCCL issue #986); a
// training GPU belongs to one communicator per parallel dimension it splits (tensor, pipeline, data, context,
// expert), a serving GPU to its tensor-parallel one.
inline constexpr Assumption kNcclCommunicator{
    "NCCL buffers per communicator",
    1.6e9,
    "NCCL issue #864: ~1.6 GB per GPU for one communicator after its all_reduce; vLLM PR #10511 measured "
    "1.79 GiB more non-torch memory at TP 2 than TP 1 on H100",
    1e9,
    "",
    "GB"};
inline constexpr Assumption kFragmentation{
    "Fragmentation", 0.05,
    "of the tensors' bytes: the caching allocator's reserved but unallocated blocks; assumed, no published "
    "per-step measurement found",
    1, "llm-training"};
// The KV cache as vLLM sizes it (its memory profiling, vLLM PR #10511): HBM x gpu_memory_utilization -
// weights - the activation peak of a profile forward pass of max_num_batched_tokens tokens (logits of
// max_num_seqs sequences) - the non-torch runtime (the reserve above) - CUDA graphs. Each default is vLLM's
// and the workload's keys of the same names override it; the sheet lists the values a plan used (not in
// engine_assumptions(): a workload may replace them), each named as the workload key it defaults.
inline constexpr Assumption kGpuMemoryUtilization{
    "Serving gpu_memory_utilization", 0.90,
    "vLLM's default (CacheConfig.gpu_memory_utilization): the share of HBM the engine fills", 1,
    "llm-inference"};
inline constexpr Assumption kCudaGraphs{
    "Serving cuda_graph_bytes",
    1024.0 * 1024 * 1024,
    "vLLM model_runner: \"CUDA graphs can take additional 1~3 GiB memory per GPU\", the lower figure",
    1024.0 * 1024 * 1024,
    "llm-inference",
    "GiB"};
// vLLM's batch defaults (EngineArgs.get_batch_defaults, vllm/engine/arg_utils.py): GPUs of 70 GiB or more
// other than the A100 get the larger ones; the offline LLM class batches more tokens than the API server.
struct ServingBatchDefault {
  bool large_gpu, offline;
  int max_num_batched_tokens, max_num_seqs;
};
inline constexpr double kVllmLargeGpuBytes = 70.0 * 1024 * 1024 * 1024;
inline constexpr std::string_view kVllmSmallDefaultsGpu = "A100";  // large but kept on the smaller defaults
inline constexpr ServingBatchDefault kVllmBatchDefaults[] = {{true, true, 16384, 1024},
                                                             {true, false, 8192, 1024},
                                                             {false, true, 8192, 256},
                                                             {false, false, 2048, 256}};
inline constexpr std::string_view kVllmBatchDefaultsBasis =
    "vLLM EngineArgs.get_batch_defaults (vllm/engine/arg_utils.py): 16,384 tokens and 1,024 sequences for "
    "the "
    "offline LLM class and 8,192 and 1,024 for the API server on GPUs of 70 GiB or more other than A100, "
    "8,192 / 2,048 tokens and 256 sequences on others";
// TensorRT-LLM (engine: trtllm) sizes the KV cache from the memory free after loading: KvCacheConfig's
// free_gpu_memory_fraction (tensorrt_llm/llmapi/llm_args.py, "Default is 90%") of what is left once the
// weights, the warm-up forward's activation peak at max_num_tokens and the runtime are resident; CUDA graphs
// are captured afterwards, in the rest. Its default capacity scheduler, GUARANTEED_NO_EVICT (SchedulerConfig
// in the same file), admits a request only when the cache holds its whole prompt and output, so the batch is
// the cache over input + output tokens, not over the average context.
inline constexpr Assumption kTrtllmFreeGpuMemoryFraction{
    "Serving free_gpu_memory_fraction", 0.90,
    "TensorRT-LLM's default (KvCacheConfig.free_gpu_memory_fraction, llmapi/llm_args.py): the share of the "
    "memory free after weights, activations and runtime that the KV cache takes",
    1, "llm-inference"};
inline constexpr std::string_view kTrtllmNoEvictBasis =
    "TensorRT-LLM's default capacity scheduler GUARANTEED_NO_EVICT (SchedulerConfig, llmapi/llm_args.py) "
    "admits a request when the KV cache holds its input + output tokens";
// trtllm-bench throughput sets max_batch_size and max_num_tokens from the dataset when not given
// (tensorrt_llm/bench/build/tuning.py, calc_engine_setting and finetune_setting): the requests of input +
// output tokens that kv_fraction of (HBM x GPUs - checkpoint elements x its bytes per element,
// kTrtllmBenchBytes) holds, at its bytes per KV element, with KV heads at least one per GPU, capped at
// max_requests; tokens = that x (1 + input / output), capped at max_tokens; each rounded up ("slightly
// optimistic"): batch to a multiple of 32 (at least 64) below 256, of 128 below 1,024, else of 256; tokens to
// a multiple of 256 (at least 2,048) below 4,096, of 512 below 8,192, else of 1,024. TensorRT-LLM's NVIDIA
// perf-overview runs (docs/source/performance/perf-overview.md) give neither, so these apply.
struct TrtllmBenchTuning {
  double kv_fraction = 0.95;
  double max_requests = 4096, max_tokens = 32768;
};
inline constexpr TrtllmBenchTuning kTrtllmBenchTuning{};
// trtllm-bench's bytes per element of a weight or KV-cache quantization (tuning.py BYTES_PER_ELEM: FP8 and
// FP8 block scales 1, NVFP4 0.5, no quantization 2, and 2 for any it does not list), and the elements a
// quantized parameter takes in the checkpoint whose safetensors header it counts (dataclasses.py
// get_param_count sums the header's elements of every dtype): an FP8 weight one (its per-tensor scales
// negligible); a ModelOpt NVFP4 weight two 4-bit values per uint8 element and one FP8 scale per 16 values,
// 1/2 + 1/16. Parameters kept at 16 bits count one element each.
struct TrtllmBenchBytes {
  std::string_view precision;
  double bytes;
  double elements_per_param;
};
inline constexpr TrtllmBenchBytes kTrtllmBenchBytes[] = {{"fp8", 1, 1}, {"nvfp4", 0.5, 0.5 + 1.0 / 16}};
inline constexpr double kTrtllmBenchUnlistedBytes = 2;
inline constexpr std::string_view kTrtllmBenchBasis =
    "trtllm-bench's defaults from the dataset (bench/build/tuning.py finetune_setting): the requests 0.95 x "
    "(HBM x GPUs - the checkpoint's safetensors elements (NVFP4: 1/2 + 1/16 per quantized parameter) x its "
    "bytes per element: FP8 1, NVFP4 0.5, else 2) holds at input + output tokens, rounded up; tokens = that "
    "x (1 + input / output)";
inline constexpr Assumption kAveragePowerShare{"Average / nameplate power", 0.80, "busy node"};
inline constexpr Assumption kNodeMtbfHours{
    "Node MTBF", 6000, "Llama 3: 419 interruptions in 54 days on 2,048 nodes", 1, "", "h"};
// What an interruption costs besides the lost work since the last checkpoint: the cooling options' goodput.
inline constexpr Assumption kRestartTime{
    "Restart after an interruption", 600, "reschedule, reload the last checkpoint, warm up", 60, "", "min"};
inline constexpr Assumption kCollectiveLatency{
    "Collective latency per call", 20e-6, "assumed fixed cost added to each collective call", 1e-3, "", "ms"};
// Serving engines run a node's tensor-parallel all-reduces through a custom one-shot kernel, not NCCL
// (TensorRT-LLM's, which NVIDIA's MLPerf v4.0 Llama-2-70B engines build with --use_custom_all_reduce; SGLang
// and vLLM carry the same design): SGLang PR #2904's unit test of its port of TensorRT-LLM's kernel, on 2
// H100s without CUDA graphs, took 3.7 us for a 512-byte all-reduce (4.5 us at 32 KiB), the fixed cost of
// each call; bytes still move at the NVLink busbw. The kernel needs NVLink peer-to-peer: on PCIe GPUs the
// engines fall back to NCCL and kCollectiveLatency applies (serving_allreduce_latency,
// sizing/model_llm_inference.hpp). Where TensorRT-LLM's measured table holds the GPU and TP degree
// (kPublishedServingAllReduce), a TensorRT-LLM step takes that time per call instead.
inline constexpr Assumption kServingAllReduceLatency{
    "Serving TP all-reduce latency per call, NVLink",
    3.7e-6,
    "custom all-reduce, 512 B on 2 H100s: 3.7 us (SGLang PR #2904, its port of TensorRT-LLM's kernel); "
    "PCIe GPUs: the collective latency",
    1e-3,
    "llm-inference",
    "ms"};
// A GEMM whose compute and memory times are comparable runs slower than the roofline's max of the two: its
// software pipeline hides the shorter only in part (the prologue's loads and the epilogue's stores do not
// overlap multiply-adds). DeepGEMM's published FP8 GEMM tables (deepseek-ai/DeepGEMM README, 2025-04: H800
// SXM5, 28 shapes of 64 to 8,192 rows, dense and grouped, achieved TFLOPS) against the shape model (the H100
// MAMF FP8 asymptote x tile and wave quantization, memory at 0.9 of HBM): time = max(compute, memory) + s x
// min(compute, memory) fits them best at s = 0.49 (least squares of log time, 11 % RMS; the pure roofline,
// s = 0, is 27 % RMS and 10-44 % too fast at 64-1,024 rows). Serving's GEMMs pay it, decode's and
// prefill's (gemm_time, sizing/models.hpp). The training step's GEMMs carry kTrainingGemmDerate instead: that
// derate was set against published training runs over the pure-roofline shape model, so it already holds what
// training GEMMs lose beyond tiles and waves; charging s on top would count that loss twice.
inline constexpr Assumption kGemmUnhiddenShare{
    "GEMM: share of the shorter of compute and memory not overlapped", 0.49,
    "least-squares fit of max + s x min to DeepGEMM's published H800 FP8 GEMM tables (28 shapes, 64-8,192 "
    "rows): 11 % RMS, the pure roofline 27 %",
    1, "llm-inference"};
inline constexpr Assumption kCheckpointBytesPerParam{
    "Checkpoint bytes per parameter", 14,
    "bf16 weights + fp32 master + Adam m, v (METHODS.md \"storage.checkpoint\")"};
inline constexpr Assumption kCommBudget{"Exposed communication budget", 0.15,
                                        "exposed share of the step before the fabric is flagged"};
inline constexpr Assumption kHostRamPerHbm{"Host RAM per HBM", 2,
                                           "host RAM >= this x the node's HBM: pinned buffers, staging"};
inline constexpr Assumption kDramWattsPerGb{
    "DRAM power", 0.375, "assumed per-GB DIMM draw in the node nameplate", 1, "", "W/GB"};
inline constexpr Assumption kDriveEfficiency{"NVMe sustained share", 0.90,
                                             "sustained sequential share of an NVMe drive's rating"};
inline constexpr Assumption kZero3Traffic{
    "ZeRO-3 traffic / gradient all-reduce", 1.5,
    "weight all-gathers + gradient reduce-scatters in every micro-batch (METHODS.md \"Parallel traffic\")", 1,
    "llm-training"};
inline constexpr Assumption kModelVersions{"Model versions kept", 3, "model registry of a serving fleet", 1,
                                           "llm-inference"};
// Data-loader and framework threads per GPU: text is cheap, JPEG decode and augmentation are not.
inline constexpr Assumption kCoresPerGpuText{"CPU cores per GPU (llm-training)", 4,
                                             "data loader and framework threads", 1, "llm-training"};
inline constexpr Assumption kCoresPerGpuImages{"CPU cores per GPU (cv-training)", 12,
                                               "JPEG decode and augmentation threads", 1, "cv-training"};
inline constexpr Assumption kCoresPerGpuServing{"CPU cores per GPU (llm-inference)", 4,
                                                "serving engine and tokenizer threads", 1, "llm-inference"};
// gpu.conv times the convolutions alone; batch-norm/ReLU traffic keeps the whole network at about half that.
inline constexpr Assumption kConvShareOfNetwork{"CNN network / convolution efficiency", 0.5,
                                                "non-convolution layers, applied to a measured gpu.conv", 1,
                                                "cv-training"};

// Shared-storage performance levels per node (read, write B/s), the good / better / best tiers of NVIDIA's
// DGX SuperPOD storage guidance; the storage section names the lowest tier that covers a node's need, and
// the assumptions list them (kStorageTiersName, kStorageTiersBasis).
struct StorageTier {
  std::string_view name;
  double read = 0, write = 0;
};
inline constexpr StorageTier kStorageTiers[] = {
    {"good", 4e9, 2e9}, {"better", 8e9, 4e9}, {"best", 40e9, 20e9}};
inline constexpr std::string_view kStorageTiersName = "Shared storage tiers per node (read/write)";
inline constexpr std::string_view kStorageTiersBasis =
    "NVIDIA DGX SuperPOD storage guidance; the storage line names the lowest tier that covers the node";

}  // namespace assumption

// Where the sheet lists an assumption.
enum class Listing {
  calibration,     // a calibration default: the calibration lines list the figure the plan ran on by its name
  engine,          // always applied: listed as assumed (engine_assumptions())
  serving_engine,  // a serving engine's default: listed as the setting the plan used ("Serving <key>")
};
// Every Assumption above, once: its identifier, the entry, where the sheet lists it, and for a serving
// engine's default the engine (Workload::engine) whose default it is.
struct DeclaredAssumption {
  std::string_view id;
  const Assumption* assumption;
  Listing listing;
  std::string_view engine;
};
std::span<const DeclaredAssumption> declared_assumptions();

// The engine assumptions in the order the sheet lists them (the Listing::engine rows of
// declared_assumptions()).
std::span<const Assumption* const> engine_assumptions();

// CPU cores per GPU of a workload kind.
const Assumption& cores_per_gpu(std::string_view kind);

}  // namespace mlbench::sizing
