// The shape model of GEMM efficiency (sizing/model_gemm.hpp): tile and wave quantization over the GPU's SMs,
// the memory roofline of few-row GEMMs, grouped expert GEMMs, and where the sheets show it.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "sizing/model_gemm.hpp"
#include "tests/common/files.hpp"
#include "tests/sizing/test_util.hpp"

namespace mlbench::sizing::test {
namespace {

const GpuSpec& gpu(const char* name) { return shipped_catalog().gpu(name); }

GemmRates a100_bf16(double asymptote = 0.87) {
  return {312e12, asymptote, 2039e9 * 0.9, 2, 2, gpu("A100-SXM4-80GB").sms};
}

// Llama 3 8B's and Mixtral 8x7B's layer: 32 layers of hidden 4,096, 32 heads, 8 KV heads, FFN 14,336.
TransformerModel llama_shape(int vocab) {
  TransformerModel m;
  m.layers = 32;
  m.hidden = 4096;
  m.heads = 32;
  m.kv_heads = 8;
  m.ffn_hidden = 14336;
  m.vocab = vocab;
  return m;
}

TEST(GemmShapeModel, CatalogGivesTheSmCounts) {
  EXPECT_EQ(gpu("A100-SXM4-80GB").sms, 108);
  EXPECT_EQ(gpu("H100-SXM").sms, 132);
  EXPECT_EQ(gpu("H200-SXM").sms, 132);
}

// 128 x 27,904 (109 tiles of 128 x 256) on 108 SMs: 128 x 256 needs 2 waves for 109 tiles (0.505 of the SMs'
// time useful), 128 x 128 3 waves of 218 (0.673), 64 x 128 5 waves of 436 (0.807), 256 x 128 pads half its
// rows; the kernel picks 64 x 128.
TEST(GemmShapeModel, WaveQuantizationPicksTheBestTile) {
  auto r = a100_bf16();
  auto g = gemm_shape_efficiency({"wide", {128, 256 * 109, 8192}}, r);
  EXPECT_EQ(g.tile_m, 64);
  EXPECT_EQ(g.tile_n, 128);
  EXPECT_EQ(g.tiles, 436);
  EXPECT_EQ(g.waves, 5);
  EXPECT_NEAR(g.quantization, 436.0 / 540, 1e-12);
  EXPECT_FALSE(g.memory_bound());
  EXPECT_NEAR(g.eta, 0.87 * 436.0 / 540, 1e-12);
  // A shape that fills whole waves runs at the asymptote.
  auto full = gemm_shape_efficiency({"full", {128 * 108, 256, 8192}}, r);
  EXPECT_NEAR(full.quantization, 1, 1e-12);
  EXPECT_NEAR(full.eta, 0.87, 1e-12);
}

// One token's GEMM reads the whole weight matrix for 2 k n FLOPs: memory-bound however the kernel tiles or
// splits it, eta = FLOPs / (peak x bytes / HBM).
TEST(GemmShapeModel, FewRowsAreMemoryBound) {
  auto r = a100_bf16();
  auto g = gemm_shape_efficiency({"decode", {1, 4096, 4096}}, r);
  EXPECT_TRUE(g.memory_bound());
  double bytes = (4096.0 + 4096.0 * 4096) * 2 + 4096.0 * 2;
  EXPECT_NEAR(g.memory_s, bytes / r.hbm, 1e-15);
  EXPECT_LT(g.reduction_s, 0.01 * g.memory_s);  // split-K's partial outputs are 1 x 4,096 each
  EXPECT_NEAR(g.eta, 2 * 4096.0 * 4096 / (312e12 * g.time_s()), 1e-12);
  EXPECT_LT(g.eta, 0.01);
}

// Few tiles and a deep k: the kernel splits k (512 x 2,048 x 16,384 is 32 tiles of 128 x 256 or 128 of 64 x
// 128, a third or 0.59 of 108 SMs' wave unsplit), writing and reading back the fp32 partial outputs.
TEST(GemmShapeModel, FewTilesSplitK) {
  auto r = a100_bf16();
  auto g = gemm_shape_efficiency({"deep", {512, 2048, 16384}}, r);
  EXPECT_GT(g.split, 1);
  EXPECT_EQ(g.tiles, std::ceil(512.0 / g.tile_m) * std::ceil(2048.0 / g.tile_n) * g.split);
  EXPECT_EQ(g.waves, std::ceil(g.tiles / 108));
  EXPECT_GT(g.quantization, 0.8);
  double partials = 2.0 * g.split * 512 * 2048 * 4;
  EXPECT_NEAR(g.memory_s, (512.0 * 16384 + 16384.0 * 2048 + 512.0 * 2048) * 2 / r.hbm, 1e-15);
  EXPECT_NEAR(g.reduction_s, partials / r.hbm, 1e-15);
  EXPECT_NEAR(g.eta, 2 * 512.0 * 2048 * 16384 / (312e12 * (g.compute_s + g.reduction_s)), 1e-12);
}

// A measured efficiency (sms 0) is taken as it is: no quantization on top of it.
TEST(GemmShapeModel, MeasuredEfficiencyIsNotQuantizedAgain) {
  auto r = a100_bf16(0.7);
  r.sms = 0;
  auto g = gemm_shape_efficiency({"wide", {128, 256 * 109, 8192}}, r);
  EXPECT_EQ(g.quantization, 1);
  EXPECT_NEAR(g.eta, 0.7, 1e-12);
}

// Grouped expert GEMMs share their waves: 8 experts of 512 x 2,048 (k 256: too shallow to split) tile into
// 8 x 64 = 512 tiles of 128 x 128, 5 waves on 108 SMs (0.948); alone each is 64 tiles in one wave (0.593).
TEST(GemmShapeModel, GroupedGemmsShareTheirWaves) {
  auto r = a100_bf16();
  auto grouped = gemm_shape_efficiency({"experts", {512, 2048, 256}, 8}, r);
  auto alone = gemm_shape_efficiency({"expert", {512, 2048, 256}}, r);
  EXPECT_EQ(grouped.tiles, 512);
  EXPECT_NEAR(grouped.quantization, 512.0 / 540, 1e-12);
  EXPECT_NEAR(alone.quantization, 64.0 / 108, 1e-12);
  EXPECT_DOUBLE_EQ(grouped.flops, 8 * alone.flops);
  EXPECT_FALSE(grouped.memory_bound());
}

// The output layer stays at 16 bits in an FP8 model: its logits GEMM takes the time it takes at bf16 (the
// bf16 peak at the bf16 asymptote, 2-byte operands), and the phase's efficiency at the FP8 peak falls by it.
TEST(GemmShapeModel, OutputLayerStaysAtSixteenBits) {
  const GpuSpec& h100 = gpu("H100-SXM");
  auto rates = [&](const char* precision) {
    return gemm_rates(h100, precision, calibrate({}, shipped_catalog(), {&h100, precision}));
  };
  GemmRates fp8 = rates("fp8"), bf16 = rates("bf16");
  EXPECT_DOUBLE_EQ(fp8.peak_16, bf16.peak);
  EXPECT_NEAR(fp8.asymptote_16, bf16.asymptote, 1e-12);
  EXPECT_DOUBLE_EQ(bf16.peak_16, bf16.peak);
  NamedGemm logits{"logits", {8192, 128256, 4096}, 1, 1, GemmPass::forward, true};
  auto at_fp8 = gemm_shape_efficiency(logits, fp8);
  auto at_bf16 = gemm_shape_efficiency(logits, bf16);
  EXPECT_TRUE(at_fp8.at_16_bits);
  EXPECT_FALSE(at_bf16.at_16_bits);
  EXPECT_NEAR(at_fp8.time_s(), at_bf16.time_s(), 1e-15);
  NamedGemm quantized = logits;
  quantized.sixteen_bit = false;
  EXPECT_LT(gemm_shape_efficiency(quantized, fp8).time_s(), 0.6 * at_fp8.time_s());
  // In a layer's GEMMs the logits' share of the time exceeds their share of the FLOPs.
  auto phase = gemm_phase(layer_gemms(llama_shape(128256), 8192, 1, 1, true), fp8);
  auto flops = [&](bool output_layer) {
    double f = 0;
    for (const auto& c : phase.classes)
      if ((c.gemm.name == "logits") == output_layer) f += c.flops;
    return f;
  };
  EXPECT_GT(phase.time_share("logits"), 1.5 * flops(true) / (flops(true) + flops(false)));
  auto logits_class = std::find_if(phase.classes.begin(), phase.classes.end(),
                                   [](const GemmShapeModel& c) { return c.gemm.name == "logits"; });
  ASSERT_NE(logits_class, phase.classes.end());
  const GemmShapeModel& out = *logits_class;
  EXPECT_NEAR(out.peak_ratio, bf16.peak / fp8.peak, 1e-12);
  EXPECT_NE(
      describe(phase).find(fmt::format("eta {:.3f} at bf16, {:.3f} of the phase's peak (the output layer "
                                       "stays at 16 bits)",
                                       out.eta, out.eta * out.peak_ratio)),
      std::string::npos)
      << describe(phase);
  // Its shapes are measured at 16 bits as well.
  EXPECT_NE(gemm_probe_command(phase, "fp8").find("--precisions fp8,bf16 "), std::string::npos);
  // A GPU without bf16 runs it at fp16 (the T4).
  const GpuSpec& t4 = gpu("T4");
  ASSERT_FALSE(t4.peak_for("bf16"));
  GemmRates int8 = gemm_rates(t4, "int8", calibrate({}, shipped_catalog(), {&t4, "int8"}));
  EXPECT_EQ(int8.precision_16, "fp16");
  EXPECT_DOUBLE_EQ(int8.peak_16, *t4.peak_for("fp16"));
}

// A MoE layer's routed experts: the ep ranks' tokens x top_k spread over the touched experts, E / ep of them
// on this GPU; few tokens touch few experts.
TEST(GemmShapeModel, MoeExpertRowsFollowTheRouting) {
  TransformerModel m = llama_shape(32000);
  m.experts = 8;
  m.top_k = 2;
  auto find = [](const std::vector<NamedGemm>& gs, const std::string& name) {
    for (const auto& g : gs)
      if (g.name == name) return g;
    ADD_FAILURE() << "no " << name;
    return NamedGemm{};
  };
  auto train = layer_gemms(m, 4096, 1, 2, true);
  auto up = find(train, "experts up");
  EXPECT_DOUBLE_EQ(up.shape[0], 4096.0 * 2 * 2 / 8);  // 2,048 rows each
  EXPECT_DOUBLE_EQ(up.group, 4);                      // 8 experts / ep 2
  EXPECT_DOUBLE_EQ(up.count, 32);
  EXPECT_DOUBLE_EQ(train.back().shape[2], 4096);  // the logits' weight gradient: inner dimension the rows
  EXPECT_EQ(train.back().pass, GemmPass::wgrad);
  EXPECT_DOUBLE_EQ(find(train, "router").shape[1], 8);
  auto decode = layer_gemms(m, 1, 1, 1, false);  // one token: its top-2 experts, one row each
  EXPECT_NEAR(find(decode, "experts up").group, 2, 1e-12);
  EXPECT_NEAR(find(decode, "experts up").shape[0], 1, 1e-12);
}

// Without a report the asymptote is the GPU's published best-shape figure where there is one (A100: MAMF
// 271.2 of 312 TFLOPS BF16), else the default (METHODS.md "Sizing assumptions").
TEST(GemmShapeModel, DefaultAsymptoteIsTheGpusPublishedFigure) {
  const auto& c = shipped_catalog();
  auto a100 = calibrate({}, c, {&c.gpu("A100-SXM4-80GB"), "bf16", {}, false});
  EXPECT_NEAR(a100.gemm.value, 271.2 / 312, 1e-12);
  EXPECT_NE(a100.gemm.basis.find("MAMF"), std::string::npos) << a100.gemm.basis;
  auto h100_fp8 = calibrate({}, c, {&c.gpu("H100-SXM"), "fp8", {}, false});
  EXPECT_NEAR(h100_fp8.gemm.value, 1402.6 / 1979, 1e-12);
  auto l40s = calibrate({}, c, {&c.gpu("L40S"), "bf16", {}, false});
  EXPECT_DOUBLE_EQ(l40s.gemm.value, assumption::kGemm16.value);
}

const SheetLine* find_line(const Sheet& s, const std::string& item) {
  for (const auto& l : s.lines)
    if (l.item == item) return &l;
  return nullptr;
}

// The training sheet shows the GEMM efficiency of the micro-batch's shapes with its basis: MT-NLG 530B's
// 2,048-token micro-batch at TP 8 on 108 SMs loses to wave quantization, below the A100's asymptote.
TEST(GemmShapeModel, TrainingSheetShowsEachGemmClass) {
  auto s = plan_file(data_dir() / "korthikanti-530b-full.yaml");
  const SheetLine* l = find_line(s, "GEMM efficiency");
  ASSERT_NE(l, nullptr);
  EXPECT_LT(l->quantity, 271.2 / 312);
  EXPECT_GT(l->quantity, 0.6);
  for (const char* part : {"QKV 2048x7680x20480", "waves", "quantization", "FFN down wgrad", "logits"})
    EXPECT_NE(l->driver.find(part), std::string::npos) << part << " in " << l->driver;
  // The gpu.gemm run that would measure these shapes (the probe takes MxNxK shapes).
  EXPECT_NE(l->spec.find("mlbench gemm --precisions fp16 --shapes 2048x7680x20480,2048x20480x2560,"),
            std::string::npos)
      << l->spec;
}

// A grouped GEMM is measured as its one shape; dimensions round up to multiples of 16 (FP8 needs them).
TEST(GemmShapeModel, ProbeCommandMeasuresEachShapeOnce) {
  GemmPhase p;
  for (NamedGemm g : {NamedGemm{"a", {584, 5120, 8192}}, NamedGemm{"b", {16, 14336, 4096}, 8},
                      NamedGemm{"c", {584, 5120, 8192}, 1, 80}, NamedGemm{"d", {1, 8, 4096}}})
    p.classes.push_back({g});
  EXPECT_EQ(gemm_probe_command(p, "fp8"),
            "mlbench gemm --precisions fp8 --shapes 592x5120x8192,16x14336x4096,16x16x4096");
}

// Serving: prefill runs 8,192-token chunks, decode the batch's rows; 32 rows of LLaMA-7B quantize far worse
// than 8,192 (a 128-row tile a quarter full), and each phase's line says so.
TEST(GemmShapeModel, ServingPhasesRunAtTheirOwnShapes) {
  auto s = plan_file(data_dir() / "trtllm-llama7b-a100-b32-128-2048.yaml");
  double prefill = s.figures.at("eta_prefill").get<double>();
  double decode = s.figures.at("eta_decode").get<double>();
  EXPECT_LT(decode, 0.5 * prefill);
  const SheetLine* d = find_line(s, "GEMM efficiency (decode)");
  ASSERT_NE(d, nullptr);
  EXPECT_NEAR(d->quantity, decode, 1e-12);
  EXPECT_NE(d->driver.find("QKV 32x12288x4096"), std::string::npos) << d->driver;
  ASSERT_NE(find_line(s, "GEMM efficiency (prefill)"), nullptr);
}

// A served checkpoint's unquantized parts multiply at 16 bits: Meta's FP8 Llama 3.1 405B keeps every layer's
// attention projections and its first and last layers' FFNs at bf16, so the decode GEMMs' efficiency at the
// FP8 peak falls, and the line shows QKV and O at bf16 and 2 of the 126 layers' FFN classes apart.
TEST(GemmShapeModel, UnquantizedPartsMultiplyAtSixteenBits) {
  auto kept = plan_file(data_dir() / "vllm-llama31-405b-fp8-h100-tp8.yaml");
  mlbench::test::TempDir dir("mlbench-gemm-model");
  auto path = dir / "all-fp8.yaml";
  std::string text = mlbench::test::slurp(data_dir() / "vllm-llama31-405b-fp8-h100-tp8.yaml");
  auto at = text.find("unquantized:");
  ASSERT_NE(at, std::string::npos);
  text.erase(at, text.find('\n', at) - at + 1);
  std::ofstream(path) << text;
  auto all = plan_file(path);
  EXPECT_LT(kept.figures.at("eta_decode").get<double>(), 0.8 * all.figures.at("eta_decode").get<double>());
  const SheetLine* d = find_line(kept, "GEMM efficiency (decode)");
  ASSERT_NE(d, nullptr);
  auto count = [&](const std::string& what) {
    int n = 0;
    for (auto i = d->driver.find(what); i != std::string::npos; i = d->driver.find(what, i + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("(the checkpoint keeps it at 16 bits)"), 4) << d->driver;  // QKV, O, the edge FFN up, down
  EXPECT_EQ(count("FFN up "), 2) << d->driver;
  const SheetLine* a = find_line(all, "GEMM efficiency (decode)");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->driver.find("the checkpoint keeps it"), std::string::npos) << a->driver;
}

// The decode GEMMs are planned at the batch served: where the batches their own shapes give cycle (the
// shipped 70B fleet at a 21 ms TPOT target: 211, 200, 190), each is planned at its own rows and the best
// kept.
TEST(GemmShapeModel, DecodeRunsAtTheShapesOfTheBatchServed) {
  mlbench::test::TempDir dir("mlbench-gemm-model");
  auto path = dir / "fleet.yaml";
  std::ofstream(path) << R"(kind: llm-inference
name: 70B serving fleet, 40 req/s, FP8, 22 ms TPOT
hardware: 8xH100-SXM
model: {layers: 80, hidden: 8192, heads: 64, kv_heads: 8, ffn_hidden: 28672, vocab: 32000}
precision: fp8
kv_precision: fp8
request_rate: 40
input_tokens: 1024
output_tokens: 256
ttft_s: 2.0
tpot_s: 0.022
)";
  auto s = plan_file(path);
  double batch = s.figures.at("batch").get<double>();
  const SheetLine* d = find_line(s, "GEMM efficiency (decode)");
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->spec.find(fmt::format("decode ({:.0f}-row)", batch)), std::string::npos)
      << "batch " << batch << ": " << d->spec;
  const SheetLine* layout = find_line(s, "Serving layout");
  ASSERT_NE(layout, nullptr);
  EXPECT_NE(layout->driver.find("cycle, the best of them kept"), std::string::npos) << layout->driver;
}

// MoE serving: the decode step's experts are grouped GEMMs of batch x k / E rows (8 experts of 16 rows at
// batch 64, top-2 of 8), memory-bound, and the routed copies' permutation to their experts and back is HBM
// traffic that a tensor-parallel split of every expert does not divide (each GPU holds a slice of every
// expert, so it permutes every routed copy whole): 64 x 32 layers x 12 B x 2 copies x 4,096 = 192 MiB per GPU
// per step at TP 2.
// Mixtral 8x7B served offline at batch 64 on an 8xH100 node, 512 / 256 tokens, `serving` giving the
// tensor-parallel degree, precisions and engine.
Sheet plan_mixtral(const std::string& serving) {
  mlbench::test::TempDir dir("mlbench-gemm-model");
  auto path = dir / "mixtral.yaml";
  std::ofstream(path) << R"(kind: llm-inference
name: Mixtral 8x7B offline, batch 64
hardware: 8xH100-SXM
nodes: 1
offline: true
batch: 64
model: {layers: 32, hidden: 4096, heads: 32, kv_heads: 8, ffn_hidden: 14336, vocab: 32000, experts: 8, top_k: 2}
input_tokens: 512
output_tokens: 256
)" << serving;
  return plan_file(path);
}

TEST(GemmShapeModel, MoeDecodeRunsGroupedExpertsAndPaysThePermutation) {
  auto s = plan_mixtral("tp: 2\nprecision: bf16\nkv_precision: bf16\n");
  const SheetLine* gemms = find_line(s, "GEMM efficiency (decode)");
  ASSERT_NE(gemms, nullptr);
  EXPECT_NE(gemms->driver.find("experts up 16x14336x4096 x 8 grouped"), std::string::npos) << gemms->driver;
  EXPECT_NE(gemms->driver.find("router 64x8x4096"), std::string::npos) << gemms->driver;
  const SheetLine* step = find_line(s, "Decode step (TPOT)");
  ASSERT_NE(step, nullptr);
  EXPECT_NE(step->driver.find("MoE permute 192.00 MiB"), std::string::npos) << step->driver;
}

// The same model on TensorRT-LLM on one GPU runs its MoE layers as the engine's measured fused-MoE op: the
// sheet's GEMMs leave the experts (the router stays), the step names the op's figure and source and pays no
// permutation of its own.
TEST(GemmShapeModel, TensorRtLlmMoeOnOneGpuRunsTheMeasuredOp) {
  auto s = plan_mixtral("engine: trtllm\ntp: 1\nprecision: fp8\nkv_precision: fp8\n");
  for (const char* phase : {"GEMM efficiency (decode)", "GEMM efficiency (prefill)"}) {
    const SheetLine* gemms = find_line(s, phase);
    ASSERT_NE(gemms, nullptr);
    EXPECT_EQ(gemms->driver.find("experts"), std::string::npos) << gemms->driver;
    EXPECT_NE(gemms->driver.find("router "), std::string::npos) << gemms->driver;
  }
  EXPECT_NE(find_line(s, "GEMM efficiency (decode)")->driver.find("router 64x8x4096"), std::string::npos);
  const SheetLine* step = find_line(s, "Decode step (TPOT)");
  ASSERT_NE(step, nullptr);
  EXPECT_NE(step->spec.find("the 32 MoE layers at TensorRT-LLM 1.2.0rc5's fused MoE on one H100-SXM (fp8)"),
            std::string::npos)
      << step->spec;
  EXPECT_NE(step->driver.find("MoE layers"), std::string::npos) << step->driver;
  EXPECT_EQ(step->driver.find("MoE permute"), std::string::npos) << step->driver;
}

// DeepGEMM's published FP8 GEMM tables (deepseek-ai/DeepGEMM README, 2025-04; H800 SXM5, achieved TFLOPS):
// normal GEMMs of 64, 128 and 4,096 rows, contiguous grouped GEMMs of 4,096-8,192 rows per group and masked
// grouped ones of 256-1,024. The shape model at the H100 MAMF FP8 asymptote with gemm_time's unhidden share
// reproduces them at 11 % RMS (log time); the pure roofline (max of compute and memory) is 10-44 % too fast
// at 64-1,024 rows.
TEST(GemmShapeModel, UnhiddenShareReproducesDeepGemmsPublishedTables) {
  struct Row {
    double m, n, k, groups, tflops;
  };
  const Row rows[] = {{64, 2112, 7168, 1, 206},     {64, 24576, 1536, 1, 289},    {64, 32768, 512, 1, 219},
                      {64, 7168, 16384, 1, 336},    {64, 4096, 7168, 1, 287},     {64, 7168, 2048, 1, 295},
                      {128, 2112, 7168, 1, 352},    {128, 24576, 1536, 1, 535},   {128, 32768, 512, 1, 358},
                      {128, 7168, 16384, 1, 645},   {128, 4096, 7168, 1, 533},    {128, 7168, 2048, 1, 510},
                      {4096, 2112, 7168, 1, 1127},  {4096, 24576, 1536, 1, 1212}, {4096, 32768, 512, 1, 775},
                      {4096, 7168, 16384, 1, 1520}, {4096, 4096, 7168, 1, 1410},  {4096, 7168, 2048, 1, 1168},
                      {8192, 4096, 7168, 4, 1346},  {8192, 7168, 2048, 4, 1214},  {4096, 4096, 7168, 8, 1346},
                      {4096, 7168, 2048, 8, 1214},  {1024, 4096, 7168, 1, 1233},  {1024, 7168, 2048, 1, 925},
                      {512, 4096, 7168, 2, 1040},   {512, 7168, 2048, 2, 916},    {256, 4096, 7168, 4, 932},
                      {256, 7168, 2048, 4, 815}};
  const GpuSpec& h800 = gpu("H800-SXM");
  GemmRates r{h800.peak_for("fp8").value_or(0), 1402.6 / 1979, h800.memory_bandwidth * 0.9, 1, 2, h800.sms};
  double fit = 0, roofline = 0, small_roofline = 0;
  int small = 0;
  for (const Row& row : rows) {
    auto g = gemm_shape_efficiency({"deepgemm", {row.m, row.n, row.k}, row.groups}, r);
    double measured = 2 * row.m * row.n * row.k * row.groups / (row.tflops * 1e12);
    double model = gemm_time<double>(g.memory_s, g.compute_s) + g.reduction_s;
    fit += std::pow(std::log(model / measured), 2);
    roofline += std::pow(std::log(g.time_s() / measured), 2);
    if (row.m <= 1024) {
      small_roofline += g.time_s() / measured - 1;
      ++small;
    }
  }
  const double n = std::size(rows);
  EXPECT_LT(std::sqrt(fit / n), 0.11);
  EXPECT_GT(std::sqrt(roofline / n), 0.25);
  EXPECT_LT(small_roofline / small, -0.15);  // the roofline alone: too fast at few rows
}

}  // namespace
}  // namespace mlbench::sizing::test
