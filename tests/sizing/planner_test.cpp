#include <algorithm>
#include <cmath>
#include <fstream>
#include <regex>

#include <gtest/gtest.h>

#include "base/error.hpp"
#include "sizing/model_llm_training.hpp"
#include "tests/common/files.hpp"
#include "tests/sizing/test_util.hpp"

namespace mlbench::sizing::test {
namespace {

std::string expect_usage_error(const PlanRequest& req) {
  try {
    plan(req, shipped_catalog());
  } catch (const UsageError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no UsageError";
  return "";
}

PlanRequest request(const std::filesystem::path& workload) {
  PlanRequest r;
  r.workload = load_workload(workload);
  return r;
}

const SheetLine* find_line(const Sheet& s, const std::string& item) {
  for (const auto& l : s.lines)
    if (l.item == item) return &l;
  return nullptr;
}

// The formula text of a line is what its quantity is computed from: its numbers recompute the result it
// shows, and that result is the line's quantity (the ResNet-50 sheet once read "with 21.0 % exposed
// gradient sync = 0": 3 fields for 4 numbers).
TEST(Planner, ImagesPerSecondFormulaEvaluatesToItsQuantity) {
  auto s =
      plan(request(source_dir() / "configs" / "workloads" / "resnet50-imagenet.yaml"), shipped_catalog());
  const SheetLine* l = find_line(s, "Images per second per GPU");
  ASSERT_NE(l, nullptr);
  // The driver prints the formula with its numbers and its result; the numbers are what the model ran on.
  std::smatch m;
  const std::regex formula(
      R"(batch ([0-9]+) / \(3 x batch [0-9]+ x per image ([0-9.e+]+) FLOP / \(peak ([0-9.]+) TFLOPS x eta_CNN )"
      R"(([0-9.]+)\) \+ exposed DP ([0-9.]+) s\) = ([0-9]+) .*)");
  ASSERT_TRUE(std::regex_match(l->driver, m, formula)) << l->driver;
  const double batch = std::stod(m[1]), flops = std::stod(m[2]), tflops = std::stod(m[3]),
               eta = std::stod(m[4]), exposed = std::stod(m[5]), shown = std::stod(m[6]);
  EXPECT_NEAR(batch / (3 * batch * flops / (tflops * 1e12 * eta) + exposed), shown, 0.01 * shown)
      << l->driver;
  EXPECT_NEAR(shown, l->quantity, 0.5) << l->driver;
  EXPECT_GT(eta, 0.0);
  EXPECT_LT(eta, 1.0);
}

// A fixed layout runs on the nodes that hold its GPUs, the last in part: 8 GPUs of a 72-GPU GB200 NVL72 rack
// plan one rack, 64 of its GPUs idle, the throughput per working GPU; another node count is refused, naming
// the one that holds them.
TEST(Planner, AFixedLayoutRunsOnPartOfItsLastNode) {
  auto req = request(data_dir() / "nemo2511-llama3-8b-gb200-fp8.yaml");
  auto s = plan(req, shipped_catalog());
  EXPECT_EQ(s.figures.at("nodes").get<double>(), 1);
  bool warned = false;
  for (const auto& w : s.warnings)
    warned = warned || (w.find("64 of 72 GPUs idle: the layout (TP 1 x PP 1 x DP 8") != std::string::npos &&
                        w.find("the last node runs 8 of its 72") != std::string::npos);
  EXPECT_TRUE(warned) << nlohmann::json(s.warnings);
  double per_gpu = s.figures.at("tokens_per_s_gpu").get<double>();
  EXPECT_NEAR(per_gpu * 8, s.figures.at("tokens_per_s").get<double>(), 1e-6 * per_gpu * 8);
  std::get<LlmTraining>(req.workload.spec).layout.dp = 80;  // 80 GPUs: two racks
  req.workload.nodes = 1;
  try {
    plan(req, shipped_catalog());
    ADD_FAILURE() << "80 GPUs planned on one 72-GPU rack";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("= 80 GPUs, but 1 nodes of 72 GPUs (allowed: nodes 2"),
              std::string::npos)
        << e.what();
  }
}

TEST(Planner, HeadroomRange) {
  EXPECT_EQ(check_headroom(0.25), "");
  EXPECT_NE(check_headroom(0.1), "");
  EXPECT_NE(check_headroom(0.45), "");
  EXPECT_THROW(check_headroom(0.6), UsageError);
  EXPECT_THROW(check_headroom(-0.1), UsageError);
}

TEST(Planner, InverseFindsTheSmallestNodeCountMeetingTheDeadline) {
  auto req = request(source_dir() / "configs" / "workloads" / "llm-7b-pretraining.yaml");
  auto s = plan(req, shipped_catalog());
  int nodes = s.figures.at("nodes").get<int>();
  double deadline = *req.workload.deadline_s;
  EXPECT_LE(s.figures.at("time_s").get<double>() * 1.25, deadline);
  req.nodes = nodes - 1;
  auto fewer = plan(req, shipped_catalog());
  EXPECT_GT(fewer.figures.at("time_s").get<double>() * 1.25, deadline);
  EXPECT_NE(fewer.mode.find("NOT met"), std::string::npos);
}

// 405B: the planner must not trade the pipeline bubble for data parallelism (one micro-batch per replica,
// bubble (p - 1)/(v m)); the fastest layout keeps the bubble under a tenth of the compute, and one node fewer
// misses the deadline.
TEST(Planner, InversePicksTheFastestLayoutNotTheWidestDataParallelism) {
  auto req = request(source_dir() / "configs" / "workloads" / "llm-405b-pretraining.yaml");
  auto s = plan(req, shipped_catalog());
  const auto& w = std::get<LlmTraining>(req.workload.spec);
  const auto& l = s.figures.at("layout");
  double micro_batches =
      w.global_batch_tokens / (l.at("d").get<double>() * l.at("micro_batch").get<double>() * w.seq_len);
  EXPECT_GT(micro_batches, 1);
  EXPECT_LT(pipeline_bubble(l.at("p").get<int>(), l.at("v").get<int>(), micro_batches), 0.1);
  EXPECT_GT(s.figures.at("mfu").get<double>(), 0.3);
  double deadline = *req.workload.deadline_s;
  req.nodes = s.figures.at("nodes").get<int>() - 1;
  EXPECT_GT(plan(req, shipped_catalog()).figures.at("time_s").get<double>() * 1.25, deadline);
}

TEST(Planner, DeadlineThatNoClusterCanMeetIsExplained) {
  auto req = request(source_dir() / "configs" / "workloads" / "llm-405b-pretraining.yaml");
  auto& w = std::get<LlmTraining>(req.workload.spec);
  w.global_batch_tokens = 16.0 * w.seq_len;  // 16 sequences per step cap data parallelism at 16 replicas
  auto what = expect_usage_error(req);
  EXPECT_NE(what.find("cannot be met"), std::string::npos) << what;
  EXPECT_NE(what.find("global batch"), std::string::npos) << what;
}

TEST(Planner, EveryLineShowsItsHeadroomAndSource) {
  auto s =
      plan(request(source_dir() / "configs" / "workloads" / "llm-70b-pretraining.yaml"), shipped_catalog());
  for (const auto& l : s.lines) {
    EXPECT_FALSE(l.headroom.empty()) << l.item;
    EXPECT_FALSE(l.source.empty()) << l.item;
  }
  EXPECT_NE(find_line(s, "Shared write bandwidth")->headroom.find("+25 %"), std::string::npos);
  EXPECT_NE(find_line(s, "HBM per GPU (modelled)")->headroom.find("<= HBM 80.00 GiB"), std::string::npos);
  EXPECT_NE(find_line(s, "Capital"), nullptr);
}

TEST(Planner, ReportOfAnotherGpuIsUsedOnlyWithAStatedTransfer) {
  auto req = request(source_dir() / "configs" / "workloads" / "llm-7b-pretraining.yaml");
  req.reports.push_back(load_report(data_dir() / "report-a100-8gpu.json"));
  req.hardware = "8xH100-SXM";
  auto s = plan(req, shipped_catalog());
  EXPECT_EQ(s.figures.at("gemm_source").get<std::string>(), "transferred");
  bool warned = false;
  for (const auto& w : s.warnings) warned |= w.find("transferred") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST(Planner, MeasuredNodeIsSizedWhenNoHardwareIsGiven) {
  auto req = request(source_dir() / "configs" / "workloads" / "llm-7b-pretraining.yaml");
  req.reports.push_back(load_report(data_dir() / "report-a100-8gpu.json"));
  auto s = plan(req, shipped_catalog());
  EXPECT_NE(s.hardware.find("8xA100-80GB-SXM"), std::string::npos) << s.hardware;
  EXPECT_EQ(s.figures.at("gemm_source").get<std::string>(), "measured");
}

TEST(Planner, NodeWithoutGpuFallsBackToTheDefaultTemplate) {
  auto req = request(source_dir() / "configs" / "workloads" / "default.yaml");
  req.reports.push_back(load_report(data_dir() / "report-cpu-only.json"));
  auto s = plan(req, shipped_catalog());
  EXPECT_NE(s.hardware.find("no GPU"), std::string::npos) << s.hardware;
  EXPECT_EQ(s.figures.at("gemm_source").get<std::string>(), "assumed");
}

// Each warning once, and true of the node sized: two reports of one A100 node warn of the transfer once; a
// report of a node without GPUs does not claim a GPU was measured; a report of the very node --hardware names
// is that node's measurement, not "another node".
TEST(Planner, EachWarningOnceAndTrueOfThisNode) {
  auto count = [](const Sheet& s, const std::string& text) {
    return std::count_if(s.warnings.begin(), s.warnings.end(),
                         [&](const std::string& w) { return w.find(text) != std::string::npos; });
  };
  auto twice = request(source_dir() / "configs" / "workloads" / "llm-7b-pretraining.yaml");
  twice.reports = {load_report(data_dir() / "report-a100-8gpu.json"),
                   load_report(data_dir() / "report-a100-8gpu.json")};
  twice.hardware = "8xH100-SXM";
  auto s = plan(twice, shipped_catalog());
  EXPECT_EQ(count(s, "report measured on A100-SXM4-80GB"), 1) << nlohmann::json(s.warnings);
  for (const auto& w : s.warnings) EXPECT_EQ(count(s, w), 1) << w;

  auto cpu = request(source_dir() / "configs" / "workloads" / "default.yaml");
  cpu.reports.push_back(load_report(data_dir() / "report-cpu-only.json"));
  auto c = plan(cpu, shipped_catalog());
  EXPECT_EQ(count(c, "another measured GPU"), 0) << nlohmann::json(c.warnings);
  EXPECT_EQ(count(c, "no GPU was measured"), 1) << nlohmann::json(c.warnings);

  auto same = request(source_dir() / "configs" / "workloads" / "llm-7b-pretraining.yaml");
  same.reports.push_back(load_report(data_dir() / "report-a100-8gpu.json"));
  same.hardware = "8xA100-80GB-SXM";
  auto m = plan(same, shipped_catalog());
  EXPECT_EQ(count(m, "another node"), 0) << nlohmann::json(m.warnings);
  EXPECT_EQ(count(m, "not the node sized"), 0) << nlohmann::json(m.warnings);
}

// What fits a GPU is its HBM less the runtime's reserve, not (1 - headroom) x HBM: a layout whose memory is
// above 0.75 x HBM but within HBM less the reserve runs without recomputation, and the memory line shows the
// reserve's terms.
TEST(Planner, TheRuntimesReserveNotTheHeadroomLimitsTheMemoryFit) {
  auto s = plan_file(data_dir() / "memfit-70b-tp4-pp8-fp8-h100.yaml");
  EXPECT_EQ(s.figures.at("layout").at("recompute").get<std::string>(), "none");
  double hbm = s.figures.at("hbm_bytes").get<double>();
  EXPECT_GT(hbm, 0.75 * 80 * 1024.0 * 1024 * 1024);
  const auto* l = find_line(s, "HBM per GPU (modelled)");
  ASSERT_NE(l, nullptr);
  for (const char* term : {"CUDA context", "cuBLAS workspace", "NCCL 3 communicators", "fragmentation"})
    EXPECT_NE(l->driver.find(term), std::string::npos) << term << ": " << l->driver;
  EXPECT_EQ(l->headroom.find("(1 - 0.25)"), std::string::npos) << l->headroom;
}

// The KV cache as vLLM's own memory profile reports it (PR #10511, Llama-3-8B on H100): 53.29 GiB at TP 1,
// 71.29 - 7.48 - 3.58 - 1.26 = 58.97 GiB at TP 2, each within 5 %; the profile pass's activation peak grows
// with max_num_batched_tokens by (2 h + 3 f / t) x 2 B per token.
TEST(Planner, ServingKvCacheMatchesVllmsMemoryProfile) {
  auto kv = [](const char* file) {
    return plan_file(data_dir() / file).figures.at("kv_cache_gib_per_gpu").get<double>();
  };
  EXPECT_NEAR(kv("vllm-llama3-8b-h100-tp1.yaml") / 53.29, 1, 0.05);
  EXPECT_NEAR(kv("vllm-llama3-8b-h100-tp2.yaml") / 58.97, 1, 0.05);
  auto req = request(data_dir() / "vllm-llama3-8b-h100-tp1.yaml");
  auto& w = std::get<LlmInference>(req.workload.spec);
  double base = plan(req, shipped_catalog()).figures.at("kv_cache_gib_per_gpu").get<double>();
  w.max_num_batched_tokens = 65536;
  double longer = plan(req, shipped_catalog()).figures.at("kv_cache_gib_per_gpu").get<double>();
  EXPECT_NEAR((base - longer) * 1024 * 1024 * 1024, (65536 - 8192) * (2.0 * 4096 + 3.0 * 14336) * 2, 1e3);
}

// The engine schedules at most max_num_seqs sequences: the Granite log's L40S KV cache holds ~1,950 of them
// but vLLM's default on a GPU under 70 GiB is 256, and a smaller setting caps the batch again.
TEST(Planner, ServingBatchIsCappedAtMaxNumSeqs) {
  auto req = request(data_dir() / "vllm-granite4-micro-l40s.yaml");
  auto s = plan(req, shipped_catalog());
  EXPECT_GT(s.figures.at("max_batch").get<double>(), 1000);
  EXPECT_EQ(s.figures.at("batch").get<double>(), 256);
  std::get<LlmInference>(req.workload.spec).max_num_seqs = 100;
  EXPECT_LE(plan(req, shipped_catalog()).figures.at("batch").get<double>(), 100);
}

// TensorRT-LLM sizes its KV cache as free_gpu_memory_fraction of the memory left after weights, activations
// and runtime, and GUARANTEED_NO_EVICT admits a request for its whole input + output: Llama 3.3 70B FP8 on
// one H200 at 500/2000 (its weights 70.55 GB at 1 B, the embedding and head 2.1 GB more at 16 bits) holds
// (141 GiB - 67.7 GiB - ...) x 0.9 / (160 KiB x 2,500) sequences, trtllm-bench
// runs them all, and each decode step's GEMMs are padded to the next captured CUDA graph: trtllm-bench's
// max_batch_size 192, which TensorRT-LLM captures in place of the listed sizes above it (256, ...).
TEST(Planner, TensorRtLlmReservesWholeSequencesOfItsFreeMemory) {
  auto req = request(data_dir() / "trtllm-llama33-70b-h200-tp1-500-2000.yaml");
  auto s = plan(req, shipped_catalog());
  double kv = s.figures.at("kv_cache_gib_per_gpu").get<double>() * (1ull << 30);
  double hbm = 141.0 * (1ull << 30), weights = 70.55e9 + 2.0 * 128256 * 8192;
  EXPECT_LT(kv, 0.9 * (hbm - weights));
  EXPECT_GT(kv, 0.9 * (hbm - weights) - 2e9);
  double per_sequence = 160.0 * 1024 * 2500;
  EXPECT_EQ(s.figures.at("max_batch").get<double>(), std::floor(kv / per_sequence));
  EXPECT_EQ(s.figures.at("batch").get<double>(), s.figures.at("max_batch").get<double>());
  const SheetLine* l = find_line(s, "GEMM efficiency (decode)");
  ASSERT_NE(l, nullptr);
  EXPECT_NE(l->spec.find("decode (192-row)"), std::string::npos) << l->spec;
  const SheetLine* step = find_line(s, "Decode step (TPOT)");
  ASSERT_NE(step, nullptr);
  EXPECT_NE(step->spec.find("padded to the CUDA graph of 192 rows"), std::string::npos) << step->spec;
  // MAX_UTILIZATION (NVIDIA's MLPerf harness) allocates as tokens come: the mean context 500 + 2000 / 2.
  std::get<LlmInference>(req.workload.spec).capacity_scheduler_policy = "max_utilization";
  auto util = plan(req, shipped_catalog());
  EXPECT_EQ(util.figures.at("max_batch").get<double>(),
            std::floor(util.figures.at("kv_cache_gib_per_gpu").get<double>() * (1ull << 30) /
                       (160.0 * 1024 * 1500)));
}

TEST(Planner, ModelThatFitsNoLayoutIsExplainedWithItsMemory) {
  auto req = request(source_dir() / "configs" / "workloads" / "llm-405b-pretraining.yaml");
  req.nodes = 1;
  auto msg = expect_usage_error(req);
  EXPECT_NE(msg.find("fits no layout"), std::string::npos) << msg;
  EXPECT_NE(msg.find("optimizer"), std::string::npos) << msg;
  auto serve = request(source_dir() / "configs" / "workloads" / "llm-70b-serving.yaml");
  serve.hardware = "8xL4-inference";
  msg = expect_usage_error(serve);
  EXPECT_NE(msg.find("fits no layout"), std::string::npos) << msg;
}

TEST(Planner, UnknownHardwareSuggestsTheClosest) {
  auto req = request(source_dir() / "configs" / "workloads" / "default.yaml");
  req.hardware = "8xH200";
  EXPECT_NE(expect_usage_error(req).find("8xH200-SXM"), std::string::npos);
}

TEST(Planner, ServingFleetScalesWithTheRequestRate) {
  auto req = request(source_dir() / "configs" / "workloads" / "llm-70b-serving.yaml");
  auto s = plan(req, shipped_catalog());
  auto& serve = std::get<LlmInference>(req.workload.spec);
  serve.request_rate *= 4;
  auto big = plan(req, shipped_catalog());
  EXPECT_GT(big.figures.at("nodes").get<int>(), s.figures.at("nodes").get<int>());
  EXPECT_LE(s.figures.at("tpot_s").get<double>(), 0.05 * 0.75 + 1e-12);
}

// The request queue: at a TTFT target the throughput's node count cannot meet (prefills stretch the decode
// steps, TTFT = wait + prefill + step / (1 - lambda x prefill)), the inverse planner adds nodes until it
// does.
TEST(Planner, RequestQueueRaisesTheNodeCountForTheTtftTarget) {
  auto req = request(source_dir() / "configs" / "workloads" / "llm-70b-serving.yaml");
  auto base = plan(req, shipped_catalog());
  auto& serve = std::get<LlmInference>(req.workload.spec);
  serve.tp = base.figures.at("tp").get<int>();  // the same instances: only the queue can meet the target
  serve.ttft_s = 0.11;
  auto tight = plan(req, shipped_catalog());
  EXPECT_GT(tight.figures.at("nodes").get<int>(), base.figures.at("nodes").get<int>());
  EXPECT_LE(tight.figures.at("ttft_s").get<double>(), 0.11 * 0.75);
  EXPECT_TRUE(tight.figures.at("queue").at("stable").get<bool>());
  EXPECT_NE(find_line(tight, "Nodes")->driver.find("raised to"), std::string::npos);
  EXPECT_NE(find_line(tight, "Request queue wait"), nullptr);
}

// A layout with tp, pp, dp and cp all given sets the node count; the planner searches nothing it fixes.
TEST(Planner, FixedLayoutSetsTheNodeCountAndIsKept) {
  auto req = request(data_dir() / "korthikanti-175b-seqsel.yaml");
  req.workload.nodes.reset();
  req.workload.deadline_s = 30 * 86400.0;
  auto s = plan(req, shipped_catalog());
  EXPECT_EQ(s.figures.at("nodes").get<int>(), 8);
  const auto& l = s.figures.at("layout");
  EXPECT_EQ(l.at("t").get<int>(), 8);
  EXPECT_EQ(l.at("p").get<int>(), 8);
  EXPECT_EQ(l.at("v").get<int>(), 3);
  EXPECT_EQ(l.at("recompute").get<std::string>(), "selective");
  EXPECT_GT(s.figures.at("hfu").get<double>(), s.figures.at("mfu").get<double>());
}

// When the planner chooses, the sheet compares the fastest layouts with their step times, best first.
TEST(Planner, SearchedLayoutListsTheFastestThree) {
  auto s =
      plan(request(source_dir() / "configs" / "workloads" / "llm-70b-pretraining.yaml"), shipped_catalog());
  const auto& compared = s.figures.at("layouts_compared");
  ASSERT_EQ(compared.size(), 3u);
  EXPECT_DOUBLE_EQ(compared[0].at("step_s").get<double>(), s.figures.at("step_s").get<double>());
  EXPECT_LE(compared[0].at("step_s").get<double>(), compared[1].at("step_s").get<double>());
  EXPECT_LE(compared[1].at("step_s").get<double>(), compared[2].at("step_s").get<double>());
  EXPECT_NE(find_line(s, "Layouts compared"), nullptr);
}

// Megatron-LM runs a layout only when micro_batch x dp divides the global batch's sequences
// (num_microbatches_calculator.py) and, interleaved, when p divides the micro-batches per replica
// (schedules.py). On 68 nodes the 70B example once planned DP 17: 60.2 micro-batches per replica.
TEST(Planner, LayoutsSplitTheBatchIntoWholeMicroBatches) {
  auto req = request(source_dir() / "configs" / "workloads" / "llm-70b-pretraining.yaml");
  req.nodes = 68;
  auto s = plan(req, shipped_catalog());
  double sequences = 4194304.0 / 4096;
  auto check = [&](const nlohmann::json& l) {
    SCOPED_TRACE(l.dump());
    int per_step = l.at("micro_batch").get<int>() * l.at("d").get<int>();
    EXPECT_EQ(std::fmod(sequences, per_step), 0);
    if (l.at("v").get<int>() > 1) {
      EXPECT_EQ(std::fmod(sequences / per_step, l.at("p").get<int>()), 0);
    }
  };
  check(s.figures.at("layout"));
  for (const auto& c : s.figures.at("layouts_compared")) check(c.at("layout"));
  const auto* line = find_line(s, "Parallel layout");
  ASSERT_NE(line, nullptr);
  EXPECT_EQ(line->driver.find(".2 micro-batches"), std::string::npos) << line->driver;
}

// A workload whose fixed dp does not divide its batch is planned at the nearest batch that runs, said so.
TEST(Planner, BatchThatNoFixedLayoutSplitsIsRoundedAndSaid) {
  static const mlbench::test::TempDir dir("mlbench-runnable");
  auto p = dir / "dp3.yaml";
  std::ofstream(p)
      << "kind: llm-training\nhardware: 8xH100-SXM\nmodel: {layers: 32, hidden: 4096, heads: 32}\n"
         "tokens: 10B\nseq_len: 4096\nglobal_batch_tokens: 4194304\nnodes: 3\n"
         "layout: {tp: 8, pp: 1, dp: 3, cp: 1, micro_batch: 1}\n";
  auto s = plan(request(p), shipped_catalog());
  // 1024 sequences / 3 replicas: the nearest multiple of 3 is 1023.
  EXPECT_DOUBLE_EQ(s.figures.at("tokens_per_s").get<double>() * s.figures.at("step_s").get<double>(),
                   1023.0 * 4096);
  bool said = false;
  for (const auto& w : s.warnings)
    said |= w.find("rounded from 4194304 to 4190208 tokens") != std::string::npos;
  EXPECT_TRUE(said);
  EXPECT_NE(find_line(s, "Parallel layout")->driver.find("341 micro-batches"), std::string::npos);
}

// A LoRA fine-tune's sheet says what trains, and its checkpoints hold the adapters and their optimizer state.
TEST(Planner, LoraSheetCountsTheAdaptersOnly) {
  static const mlbench::test::TempDir dir("mlbench-lora");
  auto p = dir / "lora.yaml";
  std::ofstream(p)
      << "kind: llm-training\nhardware: 8xH100-SXM\nmodel: {layers: 32, hidden: 4096, heads: 32, "
         "ffn_hidden: 11008}\ntokens: 1B\nseq_len: 4096\nglobal_batch_tokens: 1M\nnodes: 1\n"
         "finetune: {method: lora, rank: 16, targets: [q, v]}\n";
  auto s = plan(request(p), shipped_catalog());
  const auto* lora = find_line(s, "LoRA fine-tuning");
  ASSERT_NE(lora, nullptr);
  EXPECT_DOUBLE_EQ(lora->quantity, 16.0 * 32 * 2 * 8192);
  EXPECT_NEAR(find_line(s, "Checkpoint size")->quantity, 14 * 16.0 * 32 * 2 * 8192 / 1e9, 1e-9);
  EXPECT_NE(find_line(s, "Training compute")->driver.find("4 (N_act - V h) frozen"), std::string::npos);
}

// TTFT and TPOT targets bound the 99th percentile of requests, as MLPerf's server and interactive scenarios
// set them: a target between the mean and the p99 is missed, and the inverse planner adds nodes for it.
TEST(Planner, LatencyTargetsArePercentilesNotMeans) {
  auto req = request(source_dir() / "configs" / "workloads" / "llm-70b-serving.yaml");
  auto& serve = std::get<LlmInference>(req.workload.spec);
  serve.tp = 2;
  serve.batch = 8;  // few slots: requests wait
  serve.request_rate = 4;
  serve.ttft_s = 0;
  req.nodes = 1;
  auto s = plan(req, shipped_catalog());
  const auto& q = s.figures.at("queue");
  ASSERT_TRUE(q.at("stable").get<bool>());
  double mean = s.figures.at("ttft_s").get<double>(), p99 = q.at("ttft_p99_s").get<double>();
  EXPECT_GT(p99, mean * 1.05);
  EXPECT_NEAR(p99 - mean, q.at("wait_p99_s").get<double>() - q.at("wait_s").get<double>(), 1e-12);
  EXPECT_GT(q.at("tpot_p99_s").get<double>(), q.at("tpot_at_rate_s").get<double>());
  EXPECT_NE(find_line(s, "Time per output token p99"), nullptr);
  serve.ttft_s = (mean + p99) / 2 / (1 - kDefaultHeadroom);
  auto missed = plan(req, shipped_catalog());
  bool said = false;
  for (const auto& w : missed.warnings) said |= w.find("p99 TTFT") != std::string::npos;
  EXPECT_TRUE(said);
  req.nodes.reset();
  auto sized = plan(req, shipped_catalog());
  EXPECT_GT(sized.figures.at("nodes").get<int>(), 1);
  EXPECT_LE(sized.figures.at("queue").at("ttft_p99_s").get<double>(), serve.ttft_s * (1 - kDefaultHeadroom));
}

}  // namespace
}  // namespace mlbench::sizing::test
