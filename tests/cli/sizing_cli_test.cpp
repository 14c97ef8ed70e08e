// `mlbench size` end to end: formats, written files, exit codes and one-line errors.
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/cli/cli_util.hpp"

namespace mlbench::test {
namespace {

std::string workload(const char* name) {
  return (std::filesystem::path(MLBENCH_SOURCE_DIR) / "configs" / "workloads" / name).string();
}
std::string fixture(const char* name) {
  return (std::filesystem::path(MLBENCH_TEST_DATA_DIR) / "sizing" / name).string();
}

TEST(SizeCli, TableOnStdoutWithEverySection) {
  auto r = run_cli({"size", "--workload", workload("default.yaml")});
  ASSERT_EQ(r.rc, 0) << r.err;
  for (const char* s : {"Compute", "Memory", "Storage", "Network", "Power", "Host", "Cost", "Assumptions"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s;
}

// Cooling options side by side: one table, one row per option; an unknown option names --cooling, exit 2.
TEST(SizeCli, CompareCoolingPrintsEveryOptionInOneTable) {
  auto r = run_cli({"size", "--workload", workload("default.yaml"), "--nodes", "2", "--compare-cooling",
                    "--format", "json"});
  ASSERT_EQ(r.rc, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["options"].size(), 3u) << r.out;
  EXPECT_EQ(j["options"][2]["cooling"]["name"], "phase-change");
  EXPECT_LT(j["options"][1]["mwh"].get<double>(), j["options"][0]["mwh"].get<double>());
  auto bad = run_cli({"size", "--workload", workload("default.yaml"), "--cooling", "watercool"});
  EXPECT_EQ(bad.rc, 2);
  EXPECT_NE(bad.err.find("--cooling: unknown cooling 'watercool'"), std::string::npos) << bad.err;
}

TEST(SizeCli, ReportWithoutGpuSizesTheDefaultTemplateAndSaysSo) {
  auto r = run_cli({"size", "--workload", workload("default.yaml"), "--report",
                    fixture("report-cpu-only.json"), "--format", "json"});
  ASSERT_EQ(r.rc, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_NE(j["hardware"].get<std::string>().find("no GPU"), std::string::npos);
  EXPECT_NE(r.err.find("warning"), std::string::npos);
}

// A serving measurement of the workload's served model, lengths and targets sizes the nodes as a measured
// line beside the model's estimate; of another model, it is not used and the warning says why.
TEST(SizeCli, ServingReportIsAMeasuredLineOrAWarningSayingWhyNot) {
  auto r = run_cli({"size", "--workload", fixture("serve-llama2-70b-h100.yaml"), "--report",
                    fixture("report-serve-llama2-70b-h100.json")});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(Measured throughput per node +3,072 +tokens/s)")))
      << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(Throughput per node +[0-9,]+ +tokens/s)"))) << r.out;
  EXPECT_EQ(r.err.find("not used"), std::string::npos) << r.err;
  auto other = run_cli({"size", "--workload", workload("llm-70b-serving.yaml"), "--report",
                        fixture("report-serve-llama2-70b-h100.json")});
  ASSERT_EQ(other.rc, 0) << other.err;
  EXPECT_EQ(other.out.find("Measured throughput per node"), std::string::npos);
  EXPECT_NE(other.err.find("serve.llm measurement not used"), std::string::npos) << other.err;
  EXPECT_NE(other.err.find("model 'meta-llama/Llama-2-70b-chat-hf'"), std::string::npos) << other.err;
}

// A report's host inventory read back with fields of the wrong type (an edited file, another version) is
// read as if those fields were missing, as a machine that could not read them writes it: the same sheet, not
// a JSON library's type error.
TEST(SizeCli, InventoryFieldsOfTheWrongTypeReadAsMissing) {
  TempDir dir;
  auto edited = nlohmann::json::parse(std::ifstream(fixture("report-a100-8gpu.json")));
  auto missing = edited;
  edited["host"]["memory"] = {{"total_bytes", "2 TB"}, {"theoretical_bandwidth", "fast"}};
  edited["host"]["nics"] = "ib0";
  missing["host"]["memory"] = nlohmann::json::object();
  missing["host"].erase("nics");
  std::string out[2];
  for (int i = 0; i < 2; ++i) {
    const std::filesystem::path file = dir / (i == 0 ? "edited.json" : "missing.json");
    std::ofstream(file) << (i == 0 ? edited : missing).dump();
    auto r = run_cli({"size", "--workload", workload("llm-70b-pretraining.yaml"), "--report", file.string(),
                      "--format", "csv"});
    ASSERT_EQ(r.rc, 0) << file << ": " << r.err;
    out[i] = r.out;
  }
  EXPECT_EQ(out[0], out[1]);
}

TEST(SizeCli, WritesEachFormatToAFile) {
  TempDir dir;
  for (const char* f : {"md", "csv", "json", "html", "xlsx"}) {
    auto out = dir.path() / (std::string("sheet.") + f);
    auto r =
        run_cli({"size", "--workload", workload("llm-70b-serving.yaml"), "--format", f, "-o", out.string()});
    if (std::string(f) == "xlsx" && r.rc == 2 && r.err.find("without libxlsxwriter") != std::string::npos)
      continue;
    ASSERT_EQ(r.rc, 0) << f << ": " << r.err;
    EXPECT_GT(std::filesystem::file_size(out), 100u) << f;
  }
  int leftovers = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    leftovers += e.path().filename().string().find(".tmp") != std::string::npos;
  EXPECT_EQ(leftovers, 0);
}

TEST(SizeCli, BadInputIsOneLineAndExitTwo) {
  TempDir dir;
  auto zero = dir.path() / "zero.yaml";
  std::ofstream(zero)
      << "kind: llm-training\nmodel: {params: 7e9}\ntokens: 0\nseq_len: 4096\ndeadline_days: 9\n";
  struct Case {
    std::vector<std::string> args;
    const char* says;
  };
  auto training = [&](const char* name, const std::string& extra) {
    auto path = dir.path() / name;
    std::ofstream(path) << "kind: llm-training\nhardware: 8xA100-80GB-SXM\nnodes: 8\n"
                           "model: {layers: 32, hidden: 4096, heads: 32}\ntokens: 1e9\nseq_len: 2048\n"
                        << extra;
    return path.string();
  };
  std::vector<Case> cases = {
      {{"--workload", training("recompute.yaml", "recompute: some\n")},
       "'recompute' must be one of none, selective, full, auto"},
      {{"--workload", training("attention.yaml", "attention: sparse\n")},
       "'attention' must be one of flash, standard"},
      {{"--workload", training("schedule.yaml", "schedule: gpipe\n")},
       "'schedule' must be one of 1f1b, interleaved"},
      {{"--workload", training("tp.yaml", "layout: {tp: 3}\n")},
       "'tp' 3 does not divide the 32 attention heads"},
      {{"--workload", training("product.yaml", "layout: {tp: 8, pp: 2, dp: 2, cp: 1}\n")},
       "layout tp x pp x dp x cp = 8 x 2 x 2 x 1 = 32 GPUs, but 8 nodes of 8 GPUs (allowed: nodes 4"},
      {{"--workload", workload("default.yaml"), "--hardware", "8xH100"}, "closest: '8xH100-SXM'"},
      {{"--workload", zero.string()}, "'tokens' must be a positive number"},
      {{"--workload", workload("default.yaml"), "--headroom", "0.7"}, "out of range"},
      {{"--workload", workload("llm-405b-pretraining.yaml"), "--nodes", "1"}, "fits no layout"},
      {{"--workload", workload("default.yaml"), "--format", "pdf"}, "unknown --format"},
      {{"--workload", workload("default.yaml"), "--nodes", "0"}, "--nodes"},
  };
  for (auto& c : cases) {
    auto out = dir.path() / "never.md";
    c.args.insert(c.args.begin(), "size");
    c.args.push_back("-o");
    c.args.push_back(out.string());
    auto r = run_cli(c.args);
    EXPECT_EQ(r.rc, 2) << c.says << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out));
  }
}

TEST(SizeCli, HeadroomOutsideTheRecommendedBandWarns) {
  auto r = run_cli({"size", "--workload", workload("default.yaml"), "--headroom", "0.4", "--format", "csv"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("outside the recommended"), std::string::npos);
  EXPECT_NE(r.out.find("+40 %"), std::string::npos);
}

TEST(SizeCli, ReportOfAnotherGpuIsATransferWarning) {
  auto r = run_cli({"size", "--workload", workload("llm-7b-pretraining.yaml"), "--report",
                    fixture("report-a100-8gpu.json"), "--hardware", "8xH100-SXM", "--format", "md"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("transferred"), std::string::npos);
  EXPECT_NE(r.out.find("| transferred |"), std::string::npos);
}

// A report whose every metric is 0, negative, 1e300 or 1e-300 measured nothing: each metric the sizing
// takes in is named in a warning, and the sheet shows no NaN or infinity ("takes -nan days").
TEST(SizeCli, NamesEveryMetricOutsideItsPhysicalRangeAndPrintsNoNan) {
  TempDir dir;
  for (const char* v : {"0", "-5e11", "1e300", "1e-300"}) {
    auto j = nlohmann::json::parse(std::ifstream(fixture("report-a100-8gpu.json")));
    for (auto& r : j["results"])
      for (auto& m : r["metrics"]) m["value"] = nlohmann::json::parse(v);
    const std::filesystem::path bad = dir / "bad.json";
    std::ofstream(bad) << j.dump();
    auto r = run_cli({"size", "--workload", workload("llm-70b-pretraining.yaml"), "--report", bad.string()});
    EXPECT_EQ(r.rc, 0) << v << ": " << r.err;
    for (const char* named :
         {"gpu.gemm tflops", "gpu.hbm bandwidth", "net.nccl busbw", "storage.io bandwidth"})
      EXPECT_NE(r.err.find(named), std::string::npos) << v << ": " << r.err;
    EXPECT_FALSE(std::regex_search(r.out, std::regex(R"(\b(nan|inf)\b)", std::regex::icase))) << v << r.out;
  }
}

}  // namespace
}  // namespace mlbench::test
