#include <fstream>

#include <gtest/gtest.h>

#include "base/error.hpp"
#include "tests/common/files.hpp"
#include "tests/sizing/test_util.hpp"

namespace mlbench::sizing::test {
namespace {

std::filesystem::path write_temp(const std::string& name, const std::string& text) {
  static const mlbench::test::TempDir dir("mlbench-sizing");
  auto p = dir / (name + ".yaml");
  std::ofstream(p) << text;
  return p;
}

// A serving workload text, loaded.
LlmInference serving(const std::string& name, const std::string& text) {
  return std::get<LlmInference>(load_workload(write_temp(name, text)).spec);
}

// Each workload text must be refused with an error naming `says`.
void expect_refused(const std::vector<std::pair<std::string, std::string>>& cases) {
  for (const auto& [text, says] : cases) {
    try {
      load_workload(write_temp("refused", text));
      ADD_FAILURE() << "accepted " << text;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  }
}

TEST(Workload, ArchitectureGivesTheParameterCount) {
  auto w = load_workload(data_dir() / "llama2-70b-a100.yaml");
  const auto& t = std::get<LlmTraining>(w.spec);
  // Llama-2-70B: 68.98e9 parameters.
  EXPECT_NEAR(t.model.params, 68.98e9, 0.05e9);
  EXPECT_EQ(t.model.head_dim(), 128);
  EXPECT_EQ(*w.nodes, 256);
}

TEST(Workload, EveryShippedExampleLoads) {
  for (const auto& e : std::filesystem::directory_iterator(source_dir() / "configs" / "workloads")) {
    SCOPED_TRACE(e.path().string());
    auto w = load_workload(e.path());
    EXPECT_FALSE(w.name.empty());
  }
}

// The examples of each model shape (head_dim, latent attention with FP4 weights, LoRA) plan to a sheet.
TEST(Workload, ShapeExamplesPlan) {
  for (const char* name : {"qwen3-32b-server", "deepseek-v3-fp4-offline", "llama3-8b-lora"}) {
    SCOPED_TRACE(name);
    auto s = plan_file(source_dir() / "configs" / "workloads" / (std::string(name) + ".yaml"));
    EXPECT_GE(s.figures.at("nodes").get<int>(), 1);
  }
}

TEST(Workload, ParameterCountAloneDerivesAShape) {
  auto p = write_temp("params",
                      "kind: llm-training\nmodel: {params: 7.0e9}\ntokens: 1e12\nseq_len: 4096\n"
                      "deadline_days: 30\n");
  auto w = load_workload(p);
  const auto& m = std::get<LlmTraining>(w.spec).model;
  EXPECT_TRUE(m.derived_shape);
  EXPECT_EQ(m.hidden % 128, 0);
  EXPECT_NEAR(12.0 * m.layers * m.hidden * m.hidden / 7.0e9, 1.0, 0.25);
}

// Workload files take the flags' suffixes, through the one parser (base/units.hpp), read by each key's unit:
// counts decimal (1T tokens, 13B parameters, 4M batch tokens), durations (2m, 200ms, 90m as interval_h),
// sizes binary as --size (8T bytes). The same workload written in plain numbers plans the same.
TEST(Workload, QuantitiesTakeTheFlagsSuffixes) {
  auto suffixed = load_workload(write_temp(
      "suffixed",
      "kind: llm-training\nmodel: {params: 13B}\ntokens: 1T\nseq_len: 4096\nglobal_batch_tokens: 4M\n"
      "deadline_days: 30\ncheckpoint: {interval_h: 90m, allowed_stall_s: 2m}\ndataset_bytes: 8T\n"));
  const auto& t = std::get<LlmTraining>(suffixed.spec);
  EXPECT_DOUBLE_EQ(t.model.params, 13e9);
  EXPECT_DOUBLE_EQ(t.tokens, 1e12);
  EXPECT_DOUBLE_EQ(t.global_batch_tokens, 4e6);
  EXPECT_DOUBLE_EQ(t.checkpoint.interval_s, 5400);
  EXPECT_DOUBLE_EQ(t.checkpoint.allowed_stall_s, 120);
  EXPECT_DOUBLE_EQ(t.dataset_bytes, 8.0 * 1099511627776.0);
  auto serving = load_workload(
      write_temp("serving",
                 "kind: llm-inference\nmodel: {params: 7B}\nrequest_rate: 1.5k\ninput_tokens: 2k\n"
                 "output_tokens: 128\nttft_s: 200ms\ntpot_s: 20ms\n"));
  const auto& i = std::get<LlmInference>(serving.spec);
  EXPECT_DOUBLE_EQ(i.request_rate, 1500);
  EXPECT_DOUBLE_EQ(i.input_tokens, 2000);
  EXPECT_DOUBLE_EQ(i.ttft_s, 0.2);
  EXPECT_DOUBLE_EQ(i.tpot_s, 0.02);
  try {
    load_workload(write_temp("badsuffix",
                             "kind: llm-training\nmodel: {params: 13X}\ntokens: 1T\n"
                             "seq_len: 4096\ndeadline_days: 30\n"));
    FAIL() << "accepted 13X";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("'params': unknown count suffix in '13X'"), std::string::npos)
        << e.what();
  }
}

TEST(Workload, ZeroOrNegativeTokensAreRefused) {
  for (const char* tokens : {"0", "-5e9"}) {
    auto p = write_temp("tokens", std::string("kind: llm-training\nmodel: {params: 7e9}\ntokens: ") + tokens +
                                      "\nseq_len: 4096\ndeadline_days: 30\n");
    try {
      load_workload(p);
      FAIL() << "accepted tokens " << tokens;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("'tokens' must be a positive number"), std::string::npos)
          << e.what();
    }
  }
}

TEST(Workload, UnknownKeyAndKindAreRefused) {
  EXPECT_THROW(load_workload(write_temp("key",
                                        "kind: llm-training\nmodel: {params: 7e9}\ntokens: 1e9\n"
                                        "seq_len: 1024\ndeadline_days: 3\ntokenz: 5\n")),
               UsageError);
  EXPECT_THROW(load_workload(write_temp("kind", "kind: rl-training\n")), UsageError);
  EXPECT_THROW(load_workload(write_temp("deadline",
                                        "kind: llm-training\nmodel: {params: 7e9}\ntokens: 1e9\n"
                                        "seq_len: 1024\n")),
               UsageError);
}

// The serving engine's memory settings take vLLM's names; a utilisation above 1 and unknown keys are refused.
TEST(Workload, ServingEngineSettingsAreReadAndChecked) {
  std::string base =
      "kind: llm-inference\nmodel: {params: 8e9}\nrequest_rate: 1\ninput_tokens: 100\noutput_tokens: 100\n";
  auto w = std::get<LlmInference>(
      load_workload(write_temp("engine", base + "gpu_memory_utilization: 0.8\nmax_num_batched_tokens: 16384\n"
                                                "max_num_seqs: 512\ncuda_graph_bytes: 2G\n"))
          .spec);
  EXPECT_DOUBLE_EQ(*w.gpu_memory_utilization, 0.8);
  EXPECT_EQ(*w.max_num_batched_tokens, 16384);
  EXPECT_EQ(*w.max_num_seqs, 512);
  EXPECT_DOUBLE_EQ(*w.cuda_graph_bytes, 2.0 * 1024 * 1024 * 1024);
  auto unset = serving("engine-unset", base);
  EXPECT_FALSE(unset.gpu_memory_utilization || unset.max_num_batched_tokens || unset.max_num_seqs ||
               unset.cuda_graph_bytes);
  try {
    load_workload(write_temp("engine-over", base + "gpu_memory_utilization: 1.5\n"));
    ADD_FAILURE() << "no UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("gpu_memory_utilization"), std::string::npos) << e.what();
  }
  EXPECT_THROW(load_workload(write_temp("engine-typo", base + "gpu_memory_utilisation: 0.8\n")), UsageError);
}

// The engine key picks vLLM's or TensorRT-LLM's settings; each engine's keys are refused under the other, and
// the CUDA graph sizes must be increasing whole batches.
TEST(Workload, ServingEngineAndItsKeysAreChecked) {
  std::string base =
      "kind: llm-inference\nmodel: {params: 8e9}\nrequest_rate: 1\ninput_tokens: 100\noutput_tokens: 100\n";
  auto w = std::get<LlmInference>(
      load_workload(write_temp("trt", base + "engine: trtllm\nfree_gpu_memory_fraction: 0.95\n"
                                             "cuda_graph_batch_sizes: [1, 8, 64]\n"))
          .spec);
  EXPECT_EQ(w.engine, "trtllm");
  EXPECT_DOUBLE_EQ(*w.free_gpu_memory_fraction, 0.95);
  EXPECT_EQ(w.cuda_graph_batch_sizes, (std::vector<int>{1, 8, 64}));
  EXPECT_EQ(w.capacity_scheduler_policy, "guaranteed_no_evict");
  EXPECT_EQ(std::get<LlmInference>(load_workload(write_temp("trt-util", base + "engine: trtllm\n"
                                                                               "capacity_scheduler_policy: "
                                                                               "max_utilization\n"))
                                       .spec)
                .capacity_scheduler_policy,
            "max_utilization");
  EXPECT_EQ(serving("trt-unset", base).engine, "vllm");
  struct Bad {
    const char* extra;
    const char* says;
  };
  for (const auto& b : {Bad{"engine: sglang\n", "'engine' must be one of vllm, trtllm"},
                        Bad{"engine: trtllm\ngpu_memory_utilization: 0.8\n", "are vLLM's settings"},
                        Bad{"free_gpu_memory_fraction: 0.9\n", "add 'engine: trtllm'"},
                        Bad{"engine: trtllm\nfree_gpu_memory_fraction: 1.2\n", "exceeds 1"},
                        Bad{"cuda_graph_batch_sizes: [8, 4]\n", "increasing positive whole"},
                        Bad{"cuda_graph_batch_sizes: []\n", "non-empty list"},
                        Bad{"capacity_scheduler_policy: max_utilization\n", "add 'engine: trtllm'"},
                        Bad{"engine: trtllm\ncapacity_scheduler_policy: fcfs\n",
                            "must be one of guaranteed_no_evict, max_utilization"}}) {
    try {
      load_workload(write_temp("trt-bad", base + b.extra));
      ADD_FAILURE() << b.extra << ": no UsageError";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(b.says), std::string::npos) << e.what();
    }
  }
}

// A quantized checkpoint's parts kept at 16 bits: listed once each, from the known parts.
TEST(Workload, UnquantizedPartsAreListedOnceFromTheKnownParts) {
  std::string base =
      "kind: llm-inference\nmodel: {layers: 4, hidden: 1024, heads: 8, kv_heads: 8, ffn_hidden: 4096, vocab: "
      "1000}\nrequest_rate: 1\ninput_tokens: 100\noutput_tokens: 100\n";
  auto w = serving("unq", base + "unquantized: [attention, first_last_layers]\n");
  EXPECT_EQ(w.unquantized, (std::vector<std::string>{"attention", "first_last_layers"}));
  EXPECT_TRUE(serving("unq-unset", base).unquantized.empty());
  // The embeddings are no part to list: every quantized checkpoint keeps them at 16 bits, and the error says
  // to drop them.
  try {
    load_workload(write_temp("unq-emb", base + "unquantized: [attention, embeddings]\n"));
    ADD_FAILURE() << "embeddings accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("lists 'embeddings', which every quantized checkpoint keeps at 16 "
                                         "bits with the output head: drop it"),
              std::string::npos)
        << e.what();
  }
  for (const char* extra : {"unquantized: [router]\n", "unquantized: [attention, attention]\n",
                            "unquantized: []\n", "unquantized: attention\n"}) {
    try {
      load_workload(write_temp("unq-bad", base + extra));
      ADD_FAILURE() << extra << ": no UsageError";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("'unquantized' must be a list of the parts kept at 16 bits"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(Workload, LayoutFieldsAreCheckedAgainstTheModel) {
  std::string base =
      "kind: llm-training\nmodel: {layers: 32, hidden: 4096, heads: 32}\ntokens: 1e9\nseq_len: 4096\n"
      "deadline_days: 3\n";
  struct Bad {
    const char* extra;
    const char* says;
  };
  for (const auto& b :
       {Bad{"layout: {vp: 2}\nschedule: 1f1b\n", "needs 'schedule: interleaved'"},
        Bad{"cp_comm: ulysses\n", "'cp_comm' must be one of p2p, all_gather, a2a"},
        Bad{"fp8_params: true\n", "'fp8_params' is for FP8 runs (got precision bf16)"},
        Bad{"precision: fp8\nfp8_activation_input: true\n", "add activation to 'fused' or drop it"},
        Bad{"precision: nvfp4\nfp8_activation_input: true\n",
            "'fp8_activation_input' is for FP8 runs (got precision nvfp4)"},
        Bad{"precision: fp8\nfp8_recipe: blockwise\n", "'fp8_recipe' must be one of delayed, current, mxfp8"},
        Bad{"fp8_recipe: current\n", "'fp8_recipe' is an FP8 run's scaling: it needs 'precision: fp8'"},
        Bad{"fp8_attention: true\n", "'fp8_attention' is for FP8 and FP4 runs"},
        Bad{"precision: fp8\nattention: standard\nfp8_attention: true\n",
            "'fp8_attention' is fused attention in FP8"},
        Bad{"fused: [cross_entropy, te_cross_entropy]\n", "'fused' names two cross-entropy kernels"},
        Bad{"micro_batch: 2\nlayout: {micro_batch: 4}\n", "disagree"},
        Bad{"layout: {pp: 4, vp: 3}\n", "'vp' 3 does not divide the 8 layers per pipeline stage"},
        Bad{"layout: {cp: 3}\n", "'cp' 3 does not divide seq_len 4096"},
        Bad{"layout: {ep: 2}\n", "'ep' 2 needs a mixture-of-experts model"}}) {
    try {
      load_workload(write_temp("layout", base + b.extra));
      ADD_FAILURE() << "accepted " << b.extra;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(b.says), std::string::npos) << e.what();
    }
  }
  try {
    std::string gqa = base;
    gqa.replace(gqa.find("heads: 32}"), 10, "heads: 32, kv_heads: 4}");
    load_workload(write_temp("layout", gqa + "cp_comm: a2a\nlayout: {tp: 2, cp: 4}\n"));
    ADD_FAILURE() << "accepted an all-to-all over 4 KV heads at tp 2 x cp 4";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("32 query and 4 KV heads do not split over tp 2 x cp 4"),
              std::string::npos)
        << e.what();
  }
  try {
    std::string gelu = base;
    gelu.replace(gelu.find("heads: 32}"), 10, "heads: 32, gated_ffn: false}");
    load_workload(
        write_temp("layout", gelu + "precision: fp8\nfp8_activation_input: true\nfused: [activation]\n"));
    ADD_FAILURE() << "accepted fp8_activation_input on a GeLU FFN";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("it needs a gated FFN"), std::string::npos) << e.what();
  }
  auto w =
      load_workload(write_temp("layout", base + "layout: {tp: 8, pp: 2, dp: 4, cp: 1}\nrecompute: full\n"));
  const auto& t = std::get<LlmTraining>(w.spec);
  EXPECT_EQ(t.layout.gpus(), 64);
  EXPECT_EQ(t.recompute, "full");
  EXPECT_EQ(t.attention, "flash");
  EXPECT_TRUE(t.sequence_parallel);
  EXPECT_TRUE(t.overlap_p2p_comm);
  auto waits = load_workload(write_temp("layout", base + "overlap_p2p_comm: false\n"));
  EXPECT_FALSE(std::get<LlmTraining>(waits.spec).overlap_p2p_comm);
  EXPECT_FALSE(t.fp8_attention);
  EXPECT_TRUE(t.fused.kernels.empty());
  auto te = std::get<LlmTraining>(
      load_workload(
          write_temp("layout",
                     base + "precision: fp8\nfp8_attention: true\nfused: [norm, te_cross_entropy]\n"))
          .spec);
  EXPECT_TRUE(te.fp8_attention);
  EXPECT_TRUE(te.fused.has(FusedKernel::norm));
  EXPECT_TRUE(te.fused.has(FusedKernel::te_cross_entropy));
  EXPECT_FALSE(te.fused.has(FusedKernel::rotary));
  EXPECT_EQ(t.cp_comm, "p2p");
  EXPECT_EQ(t.fp8_recipe, "delayed");
  auto meta = std::get<LlmTraining>(
      load_workload(write_temp("layout", base + "precision: fp8\ncp_comm: all_gather\nfp8_recipe: current\n"))
          .spec);
  EXPECT_EQ(meta.cp_comm, "all_gather");
  EXPECT_EQ(meta.fp8_recipe, "current");
  EXPECT_FALSE(meta.fp8_params);
  EXPECT_FALSE(meta.fp8_activation_input);
  auto stored = std::get<LlmTraining>(
      load_workload(write_temp("layout", base +
                                             "precision: fp8\nfp8_params: true\nfp8_activation_input: true\n"
                                             "fused: [activation]\ncp_comm: a2a\nlayout: {tp: 4, cp: 8}\n"))
          .spec);
  EXPECT_TRUE(stored.fp8_params);
  EXPECT_TRUE(stored.fp8_activation_input);
  EXPECT_EQ(stored.cp_comm, "a2a");
  for (const char* bad : {"fused: norm\n", "fused: [norm, norm]\n", "fused: [softmax]\n", "fused: [1]\n"}) {
    try {
      load_workload(write_temp("layout", base + bad));
      ADD_FAILURE() << "accepted " << bad;
    } catch (const UsageError& e) {
      EXPECT_NE(
          std::string(e.what()).find("'fused' must be a list of the elementwise passes run fused, each once, "
                                     "of norm, rotary, activation, cross_entropy, te_cross_entropy"),
          std::string::npos)
          << e.what();
    }
  }
}

// Mixtral-8x7B: 46.7 B parameters, 12.9 B active per token (Mistral AI's figures).
TEST(Workload, ExpertsGiveTotalAndActiveParameters) {
  auto w = load_workload(source_dir() / "configs" / "workloads" / "moe-8x7b-pretraining.yaml");
  const auto& m = std::get<LlmTraining>(w.spec).model;
  EXPECT_EQ(m.experts, 8);
  EXPECT_EQ(m.top_k, 2);
  EXPECT_NEAR(m.params, 46.70e9, 0.05e9);
  EXPECT_NEAR(m.active_params, 12.88e9, 0.05e9);
  EXPECT_DOUBLE_EQ(m.expert_params(), 32.0 * 8 * 3 * 4096 * 14336);
}

// Expert tensor parallelism: below tp it folds the experts (ep x etp from tp x cp x dp, here ep 8 over TP 2 x
// DP 4); equal to tp it is Megatron-Core's default and the layout checks as without it.
TEST(Workload, ExpertTensorParallelismFoldsOrIsTheDefault) {
  std::string base =
      "kind: llm-training\ntokens: 1e9\nseq_len: 4096\ndeadline_days: 3\nmodel: {layers: 32, hidden: 4096, "
      "heads: 32, ffn_hidden: 14336, experts: 8, top_k: 2}\n";
  auto folded = std::get<LlmTraining>(
      load_workload(write_temp("etp", base + "layout: {tp: 2, dp: 4, cp: 1, ep: 8, etp: 1}\n")).spec);
  EXPECT_EQ(folded.layout.etp, 1);
  EXPECT_EQ(folded.layout.ep, 8);
  auto same = std::get<LlmTraining>(
      load_workload(write_temp("etp", base + "layout: {tp: 2, dp: 8, ep: 8, etp: 2}\n")).spec);
  EXPECT_EQ(same.layout.etp, 2);
}

TEST(Workload, BadExpertSettingsNameTheKeyAndTheAllowedValues) {
  std::string base =
      "kind: llm-training\ntokens: 1e9\nseq_len: 4096\ndeadline_days: 3\nmodel: {layers: 32, hidden: 4096, "
      "heads: 32, ffn_hidden: 14336";
  struct Bad {
    const char* model;
    const char* extra;
    const char* says;
  };
  for (const auto& b : {
           Bad{", experts: 8, top_k: 9}\n", "", "'top_k' 9 exceeds the 8 experts (allowed: 1 to 8)"},
           Bad{", experts: 8}\n", "", "'top_k' is required with 'experts' (allowed: 1 to 8)"},
           Bad{", top_k: 2}\n", "", "'top_k' needs 'experts'"},
           Bad{", experts: 8, top_k: 2}\n", "ep: 3\n",
               "'ep' 3 does not divide the 8 experts (allowed: divisors of 8)"},
           Bad{", experts: 8, top_k: 2}\n", "layout: {ep: 16}\n", "'ep' 16 does not divide the 8 experts"},
           Bad{", experts: 8, top_k: 2}\n", "ep: 2\nlayout: {ep: 4}\n", "'ep' 2 and layout.ep 4 disagree"},
           Bad{", experts: 8, top_k: 2}\n", "layout: {dp: 6, ep: 4}\n", "'ep' 4 does not divide dp 6"},
           Bad{", experts: 8, top_k: 2}\n", "layout: {tp: 4, dp: 2, ep: 8, etp: 3}\n",
               "'etp' 3 must divide the layout's tp 4"},
           Bad{", experts: 8, top_k: 2}\n", "layout: {dp: 2, ep: 8, etp: 1}\n",
               "'etp' 1 needs 'tp' in the layout"},
           Bad{", experts: 16, top_k: 2}\n", "layout: {tp: 2, dp: 8, cp: 2, ep: 16, etp: 2}\n",
               "'ep' 16 does not divide dp 8"},
           Bad{", experts: 8, top_k: 2}\n",
               "sequence_parallel: false\nlayout: {tp: 2, dp: 4, ep: 8, etp: 1}\n",
               "layout 'etp' 1 below tp 2 needs 'sequence_parallel: true'"},
           Bad{", experts: 8, top_k: 2}\n", "layout: {tp: 2, dp: 2, cp: 1, ep: 8, etp: 1}\n",
               "'ep' 8 x 'etp' 1 does not divide tp x cp x dp = 4"},
           Bad{", experts: 8, top_k: 2}\n", "layout: {tp: 2, dp: 4, etp: 1}\n", "'etp' 1 needs 'ep'"},
           Bad{"}\n", "ep: 2\n", "'ep' 2 needs a mixture-of-experts model"},
           Bad{", norm: batchnorm}\n", "", "'norm' must be one of rmsnorm, layernorm (got 'batchnorm')"},
           Bad{", experts: 8, top_k: 2, n_group: 4}\n", "", "'n_group' and 'topk_group' go together"},
           Bad{", experts: 8, top_k: 2, n_group: 3, topk_group: 1}\n", "", "'n_group' 3 must divide the 8"},
           Bad{", experts: 8, top_k: 2, n_group: 4, topk_group: 5}\n", "", "'topk_group' 5 must not exceed"},
           Bad{", n_group: 4, topk_group: 2}\n", "", "'n_group' needs 'experts'"},
           Bad{", experts: 8, top_k: 2}\n", "ep_dispatch: fp4\n", "'ep_dispatch' must be one of bf16, fp8"},
           Bad{", experts: 8, top_k: 2}\n", "schedule: zb\n", "1f1b, interleaved, dualpipe"},
           Bad{", experts: 8, top_k: 2}\n", "schedule: dualpipe\nlayout: {pp: 3}\n",
               "'schedule: dualpipe' needs an even pp (got layout pp 3)"},
       }) {
    try {
      load_workload(write_temp("moe", base + b.model + b.extra));
      ADD_FAILURE() << "accepted " << b.model << b.extra;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(b.says), std::string::npos) << e.what();
    }
  }
  auto w = load_workload(write_temp("moe", base + ", experts: 8, top_k: 2}\nep: 4\n"));
  EXPECT_EQ(std::get<LlmTraining>(w.spec).layout.ep, 4);
  auto dual = std::get<LlmTraining>(
      load_workload(write_temp("moe", base + ", experts: 8, top_k: 2, n_group: 4, topk_group: 2}\n"
                                             "schedule: dualpipe\nep_dispatch: fp8\n"))
          .spec);
  EXPECT_EQ(dual.model.expert_groups, 4);
  EXPECT_EQ(dual.model.group_top_k, 2);
  EXPECT_EQ(dual.schedule, "dualpipe");
  EXPECT_EQ(dual.ep_dispatch, "fp8");
}

// tie_word_embeddings (config.json's name): the input embedding and the output head are one vocab x hidden
// matrix. Granite-4.0-micro's 40 layers of 78.6M and its 100,352 x 2,560 table: 3.40B, where untied counts
// 3.66B; a token multiplies the same matrices either way (the head), so its FLOPs do not change.
TEST(Workload, TiedEmbeddingsAreOneMatrix) {
  std::string model =
      "kind: llm-inference\nmodel: {layers: 40, hidden: 2560, heads: 40, kv_heads: 8, ffn_hidden: 8192, "
      "vocab: 100352";
  std::string rest = "}\nrequest_rate: 1\ninput_tokens: 1k\noutput_tokens: 256\n";
  auto tied = serving("tied", model + ", tie_word_embeddings: true" + rest).model;
  auto untied = serving("untied", model + rest).model;
  double table = 100352.0 * 2560;
  EXPECT_TRUE(tied.tied_embeddings);
  EXPECT_FALSE(untied.tied_embeddings);
  EXPECT_DOUBLE_EQ(untied.params - tied.params, table);
  EXPECT_NEAR(tied.params / 3.40e9, 1, 0.005);
  EXPECT_DOUBLE_EQ(tied.embedding_params(), table);
  EXPECT_DOUBLE_EQ(untied.embedding_params(), 2 * table);
  EXPECT_DOUBLE_EQ(tied.multiplied_params(), untied.multiplied_params());
  EXPECT_STREQ(tied.multiplied_params_symbol(), "N_act");
  EXPECT_STREQ(untied.multiplied_params_symbol(), "(N_act - V h)");
}

// Qwen3-32B (config.json: hidden 5120, 64 heads of head_dim 128, 8 KV heads, 64 layers, intermediate 25600,
// vocab 151936, untied embeddings): the attention is 64 x 128 = 8192 wide, not hidden; 32.8B parameters
// (model card). GPT-OSS-120B (hidden 2880, 64 heads x 64, 8 KV heads, 36 layers, 128 experts of 2880,
// top-4, vocab 201088): 116.8B (model card).
TEST(Workload, ExplicitHeadDimSetsTheAttentionWidth) {
  auto qwen = load_workload(write_temp(
      "qwen3",
      "kind: llm-inference\nmodel: {layers: 64, hidden: 5120, heads: 64, kv_heads: 8, head_dim: 128, "
      "ffn_hidden: 25600, vocab: 151936}\nrequest_rate: 1\ninput_tokens: 1k\noutput_tokens: 256\n"));
  const auto& q = std::get<LlmInference>(qwen.spec).model;
  EXPECT_EQ(q.head_dim(), 128);
  EXPECT_DOUBLE_EQ(q.attention_params(), 2.0 * 5120 * 8192 + 2.0 * 5120 * 8 * 128);
  EXPECT_NEAR(q.params / 32.8e9, 1, 0.005);
  EXPECT_DOUBLE_EQ(q.kv_elements_per_token(), 2.0 * 64 * 8 * 128);
  auto oss = load_workload(write_temp(
      "gptoss",
      "kind: llm-inference\nmodel: {layers: 36, hidden: 2880, heads: 64, kv_heads: 8, head_dim: 64, "
      "ffn_hidden: 2880, vocab: 201088, experts: 128, top_k: 4}\nrequest_rate: 1\n"
      "input_tokens: 1k\noutput_tokens: 256\nprecision: mxfp4\n"));
  const auto& g = std::get<LlmInference>(oss.spec);
  EXPECT_NEAR(g.model.params / 116.8e9, 1, 0.005);
  EXPECT_EQ(g.precision, "mxfp4");
  // Without head_dim a hidden that heads do not divide is refused, naming the key that fixes it.
  try {
    load_workload(write_temp("nohd",
                             "kind: llm-inference\nmodel: {layers: 2, hidden: 100, heads: 3}\n"
                             "request_rate: 1\ninput_tokens: 1k\noutput_tokens: 256\n"));
    FAIL() << "accepted hidden 100 / 3 heads";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("give 'head_dim'"), std::string::npos) << e.what();
  }
}

// DeepSeek-V3's attention (config.json): 128 heads, q_lora_rank 1536, kv_lora_rank 512, qk_rope_head_dim
// 64, qk_nope_head_dim 128, v_head_dim 128, 61 layers. The KV cache holds the 512-wide latent and the
// 64-wide rotary key per layer and token: 61 x 576 elements (DeepSeek-V2 paper, section 2.1: (d_c + d_h^R)
// l).
TEST(Workload, LatentAttentionCachesTheLatentAndTheRotaryKey) {
  std::string base =
      "kind: llm-inference\nmodel: {layers: 61, hidden: 7168, heads: 128, kv_lora_rank: 512, "
      "qk_rope_head_dim: 64, qk_nope_head_dim: 128, v_head_dim: 128";
  auto w = load_workload(write_temp(
      "mla", base + ", q_lora_rank: 1536, ffn_hidden: 2048, vocab: 129280, experts: 256, top_k: 8, "
                    "shared_experts: 1}\nrequest_rate: 1\ninput_tokens: 1k\noutput_tokens: 256\n"));
  const auto& m = std::get<LlmInference>(w.spec).model;
  EXPECT_TRUE(m.mla());
  EXPECT_DOUBLE_EQ(m.kv_elements_per_token(), 61.0 * 576);
  EXPECT_DOUBLE_EQ(m.attention_params(), 7168.0 * 1536 + 1536.0 * 128 * 192 + 7168.0 * 576 +
                                             512.0 * 128 * 256 + 128.0 * 128 * 7168);
  // Un-absorbed (training, prefill): heads x (192 + 128) per layer; absorbed decode: heads x (2 x 512 +
  // 64).
  EXPECT_DOUBLE_EQ(m.attention_flops_per_context_token(), 2.0 * 61 * 128 * 320);
  EXPECT_DOUBLE_EQ(m.attention_flops_per_context_token(true), 2.0 * 61 * 128 * 1088);
  std::string tail = "\nrequest_rate: 1\ninput_tokens: 1k\noutput_tokens: 256\n";
  std::string small = "kind: llm-inference\nmodel: {layers: 2, hidden: 64, heads: 4, ";
  expect_refused({
      {base + ", kv_heads: 8}" + tail, "'kv_heads' does not apply to latent attention"},
      {small + "v_head_dim: 16}" + tail, "'v_head_dim' needs 'kv_lora_rank'"},
      {small + "kv_lora_rank: 16}" + tail, "'qk_rope_head_dim' is required with 'kv_lora_rank'"},
  });
}

// Attention data parallelism is TensorRT-LLM's, over a tensor-parallel group of 2 or more whose size divides
// a MoE model's experts; anything else is refused naming the fix.
TEST(Workload, AttentionDataParallelismNeedsTrtllmTpAndExperts) {
  std::string moe =
      "kind: llm-inference\nmodel: {layers: 2, hidden: 64, heads: 8, ffn_hidden: 32, experts: 8, "
      "top_k: 2}\nnodes: 1\noffline: true\ninput_tokens: 8\noutput_tokens: 2\n";
  auto w = serving("adp", moe + "engine: trtllm\ntp: 4\nattention_dp: true\n");
  EXPECT_TRUE(w.attention_dp);
  EXPECT_FALSE(serving("adp-unset", moe).attention_dp);
  std::string queue = moe;
  queue.replace(queue.find("nodes: 1\noffline: true"), 22, "request_rate: 1");
  std::string six = moe;
  six.replace(six.find("experts: 8"), 10, "experts: 6");
  std::string dense =
      "kind: llm-inference\nmodel: {layers: 2, hidden: 64, heads: 8, ffn_hidden: 32}\n"
      "request_rate: 1\ninput_tokens: 8\noutput_tokens: 2\n";
  expect_refused({
      {moe + "tp: 4\nattention_dp: true\n",
       "'attention_dp' is TensorRT-LLM's enable_attention_dp: add 'engine: trtllm'"},
      {moe + "engine: trtllm\nattention_dp: true\n", "give 'tp' of 2 or more"},
      {moe + "engine: trtllm\ntp: 1\nattention_dp: true\n", "give 'tp' of 2 or more"},
      {dense + "engine: trtllm\ntp: 4\nattention_dp: true\n", "it needs a MoE model"},
      {queue + "engine: trtllm\ntp: 4\nattention_dp: true\n",
       "'attention_dp' is modelled for offline throughput, not a request queue at a rate"},
      {six + "engine: trtllm\ntp: 4\nattention_dp: true\n", "whose 'experts' tp divides (got 6 experts)"},
  });
}

// Local attention, by hand on 10 queries and a 4-token window: causal attention sees 1 + 2 + ... + 10 = 55
// query-key pairs; a sliding window min(p, 4): 1 + 2 + 3 + 4 x 7 = 34; 4-token chunks (1-4, 5-8, 9-10):
// 10 + 10 + 3 = 23. Decoding positions 9 and 10: 19 pairs, 8 in the window, 3 in the last chunk. The global
// layers (every global_every-th) keep every pair.
TEST(Workload, LocalAttentionCountsThePairsItsLayersSee) {
  std::string head = "kind: llm-inference\nmodel: {layers: 4, hidden: 64, heads: 4, ";
  std::string tail = "}\nrequest_rate: 1\ninput_tokens: 8\noutput_tokens: 2\n";
  auto model = [&](const std::string& keys) { return serving("local", head + keys + tail).model; };
  auto sliding = model("sliding_window: 4");
  EXPECT_EQ(sliding.local_layers(), 4);
  EXPECT_FALSE(sliding.local_chunked);
  EXPECT_DOUBLE_EQ(sliding.attended_share(0, 10), 34.0 / 55);
  EXPECT_DOUBLE_EQ(sliding.attended_share(8, 10), 8.0 / 19);
  EXPECT_DOUBLE_EQ(sliding.attended_share(0, 4), 1);
  auto chunked = model("attention_chunk_size: 4, global_every: 2");
  EXPECT_EQ(chunked.local_layers(), 2);
  EXPECT_TRUE(chunked.local_chunked);
  EXPECT_DOUBLE_EQ(chunked.attended_share(0, 10), (2 * 55.0 + 2 * 23) / (4 * 55));
  EXPECT_DOUBLE_EQ(chunked.attended_share(8, 10), (2 * 19.0 + 2 * 3) / (4 * 19));
  EXPECT_NE(chunked.local_attention_text(0.5).find(
                "2 of 4 layers attend within their 4-token chunks (attention_chunk_size, global_every 2), "
                "0.500 of the whole context's query-key pairs"),
            std::string::npos)
      << chunked.local_attention_text(0.5);
  auto whole = model("kv_heads: 4");
  EXPECT_EQ(whole.local_layers(), 0);
  EXPECT_DOUBLE_EQ(whole.attended_share(0, 10), 1);
  EXPECT_EQ(whole.local_attention_text(1), "");
  expect_refused({
      {head + "sliding_window: 4, attention_chunk_size: 4" + tail, "exclude each other"},
      {head + "global_every: 2" + tail, "'global_every' needs 'sliding_window' or 'attention_chunk_size'"},
      {head + "sliding_window: 4, global_every: 1" + tail, "'global_every' must be 2 or more"},
      {head + "sliding_window: 0" + tail, "'sliding_window' must be a positive number"},
      {head + "sliding_window: 4, global_every: 5" + tail,
       "'global_every' 5 exceeds the 4 layers (allowed: 2 to 4)"},
  });
}

// DeepSeek-V3 (config.json): its first 3 of 61 layers (first_k_dense_replace) run a dense FFN of 18,432
// (intermediate_size) in place of the router and the 256 + 1 experts of 2,048 the other 58 run. The weights
// count each kind of layer once per layer of that kind; 671B total and 37B active per token (the
// DeepSeek-V3 report, section 4.2 and its Table: without the MTP module).
TEST(Workload, DenseLayersOfAMoeModelRunTheirOwnFfn) {
  std::string head =
      "kind: llm-inference\nmodel: {layers: 61, hidden: 7168, heads: 128, kv_lora_rank: 512, q_lora_rank: "
      "1536, qk_rope_head_dim: 64, qk_nope_head_dim: 128, v_head_dim: 128, ffn_hidden: 2048, vocab: "
      "129280, "
      "experts: 256, top_k: 8, shared_experts: 1";
  std::string tail = "}\nrequest_rate: 1\ninput_tokens: 1k\noutput_tokens: 256\n";
  auto m = serving("dense", head + ", dense_layers: 3, dense_ffn_hidden: 18432" + tail).model;
  EXPECT_EQ(m.moe_layers(), 58);
  double attention = m.attention_params(), expert = 3.0 * 7168 * 2048, dense = 3.0 * 7168 * 18432;
  double embeddings = 2.0 * 129280 * 7168, router = 7168.0 * 256;
  EXPECT_DOUBLE_EQ(m.params, 61 * attention + 58 * (router + 257 * expert) + 3 * dense + embeddings);
  EXPECT_DOUBLE_EQ(m.active_params, 61 * attention + 58 * (router + 9 * expert) + 3 * dense + embeddings);
  EXPECT_DOUBLE_EQ(m.expert_params(), 58.0 * 256 * expert);
  EXPECT_NEAR(m.params / 1e9, 671, 1);
  EXPECT_NEAR(m.active_params / 1e9, 37, 1);
  EXPECT_DOUBLE_EQ(m.ffn_width(), (58 * 9 * 2048.0 + 3 * 18432.0) / 61);
  EXPECT_DOUBLE_EQ(m.ffn_width(false), (58 * 2048.0 + 3 * 18432.0) / 61);
  EXPECT_DOUBLE_EQ(m.moe_share(), 58.0 / 61);
  EXPECT_EQ(TransformerModel{}.moe_share(), 0);  // a dense model, even one without layers yet
  // Llama 4 Maverick: every second layer dense (interleave_moe_layer_step 2, FFN 16,384), the others 128
  // experts of 8,192 top-1 and a shared one: 400B total, 17B active (Meta's model card).
  auto maverick = std::get<LlmInference>(
                      load_workload(data_dir() / "trtllm-perf-llama4-maverick-h200-tp8-1000-1000.yaml").spec)
                      .model;
  EXPECT_EQ(maverick.moe_layers(), 24);
  EXPECT_NEAR(maverick.params / 1e9, 400, 2);
  EXPECT_NEAR(maverick.active_params / 1e9, 17, 0.5);
  expect_refused({
      {head + ", dense_layers: 3" + tail, "'dense_layers' and 'dense_ffn_hidden' go together"},
      {head + ", dense_layers: 61, dense_ffn_hidden: 18432" + tail, "leaves no MoE layer of the 61"},
      {"kind: llm-inference\nmodel: {layers: 2, hidden: 64, heads: 4, dense_layers: 1, dense_ffn_hidden: "
       "256" +
           tail,
       "'dense_layers' needs 'experts'"},
  });
}

// NVFP4: 16 FP4 values + one FP8 scale = 4.5 bits each; MXFP4: 32 + one 8-bit scale = 4.25 bits. Both run
// at the catalog's fp4 peak.
TEST(Workload, Fp4PrecisionsCountTheirBlockScales) {
  EXPECT_DOUBLE_EQ(bytes_per_element("nvfp4"), 4.5 / 8);
  EXPECT_DOUBLE_EQ(bytes_per_element("mxfp4"), 4.25 / 8);
  EXPECT_EQ(peak_precision("nvfp4"), "fp4");
  EXPECT_EQ(peak_precision("bf16"), "bf16");
  EXPECT_THROW(bytes_per_element("fp4"), UsageError);
}

TEST(Workload, LoraFineTuneAndServingScenarioKeys) {
  std::string train =
      "kind: llm-training\nmodel: {layers: 32, hidden: 4096, heads: 32}\ntokens: 1B\nseq_len: 4096\n"
      "deadline_days: 1\n";
  auto w = load_workload(write_temp("lora", train + "finetune: {method: lora, rank: 16, targets: [q, v]}\n"));
  const auto& ft = std::get<LlmTraining>(w.spec).finetune;
  EXPECT_TRUE(ft.lora());
  EXPECT_EQ(ft.rank, 16);
  EXPECT_EQ(ft.targets, (std::vector<std::string>{"q", "v"}));
  auto all = load_workload(write_temp("lora", train + "finetune: {method: lora, rank: 8}\n"));
  EXPECT_EQ(std::get<LlmTraining>(all.spec).finetune.targets.size(), 7u);
  std::string serve =
      "kind: llm-inference\nmodel: {params: 7B}\nrequest_rate: 1\ninput_tokens: 1k\n"
      "output_tokens: 256\n";
  auto s = load_workload(write_temp("scen", serve + "scenario: interactive\nttft_s: 450ms\ntpot_s: 40ms\n"));
  EXPECT_EQ(std::get<LlmInference>(s.spec).scenario, "interactive");
  EXPECT_FALSE(std::get<LlmInference>(s.spec).offline);
  auto off = load_workload(write_temp("scen", serve + "scenario: offline\n"));
  EXPECT_TRUE(std::get<LlmInference>(off.spec).offline);
  EXPECT_FALSE(std::get<LlmInference>(off.spec).requests);
  auto run = load_workload(write_temp("scen", serve + "offline: true\nrequests: 1500\n"));
  EXPECT_EQ(std::get<LlmInference>(run.spec).requests, 1500);
  for (auto [text, says] : {
           std::pair{train + "finetune: {method: dora, rank: 8}\n", "'method' must be one of lora"},
           std::pair{train + "finetune: {method: lora, rank: 8, targets: [qkv]}\n", "'targets' must be"},
           std::pair{train + "finetune: {method: lora}\n", "'rank' is required"},
           std::pair{train + "finetune: {method: lora, rank: 8, alpha: 16}\n", "unknown key 'alpha'"},
           std::pair{serve + "scenario: server\nttft_s: 2\n", "needs its p99 targets"},
           std::pair{serve + "scenario: batch\n", "'scenario' must be one of offline, server, interactive"},
           std::pair{serve + "scenario: server\noffline: true\nttft_s: 2\ntpot_s: 0.2\n", "disagree"},
           std::pair{serve + "requests: 100\n",
                     "'requests' is an offline run's request count: it needs 'offline: true'"},
           std::pair{serve + "offline: true\nrequests: 2.5\n", "'requests' must be a whole number"},
       }) {
    try {
      load_workload(write_temp("bad", text));
      ADD_FAILURE() << "accepted " << text;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace mlbench::sizing::test
