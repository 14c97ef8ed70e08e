// Sizing a serving workload from a serving measurement (`mlbench serve`, probe serve.llm): the measured
// output tokens/s per node at the targets replaces the model's estimate when the measurement is of the same
// model, lengths and targets; otherwise the sheet says why it was not used.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "sizing/planner.hpp"
#include "tests/sizing/test_util.hpp"

namespace mlbench::sizing::test {
namespace {

Report serve_report() { return load_report(data_dir() / "report-serve-llama2-70b-h100.json"); }

Sheet plan_serving(const std::vector<Report>& reports, void (*edit)(LlmInference&) = nullptr) {
  PlanRequest req;
  req.workload = load_workload(data_dir() / "serve-llama2-70b-h100.yaml");
  if (edit) edit(std::get<LlmInference>(req.workload.spec));
  req.reports = reports;
  return plan(req, shipped_catalog());
}

const SheetLine* find(const Sheet& s, const std::string& item) {
  for (const auto& l : s.lines)
    if (l.item == item) return &l;
  return nullptr;
}

std::string warnings(const Sheet& s) {
  std::string all;
  for (const auto& w : s.warnings) all += w + "\n";
  return all;
}

// Every serve.llm result of the report edited by `edit`.
template <typename Edit>
Report edited(Edit edit) {
  Report r = serve_report();
  for (auto& res : r.results) edit(res);
  return r;
}

void set_metric(Result& r, const char* name, double v) {
  for (auto& m : r.metrics)
    if (m.name == name) m.value = v;
}

// The search's point (3,072 tokens/s, TTFT p99 1.6 s, TPOT p99 44 ms) is the best that meets 2 s / 50 ms; the
// 3,500 tokens/s point misses TTFT. 40 req/s x 256 tokens x 1.25 / 3,072 = 4.2 -> 5 nodes.
TEST(ServingMeasurement, MeasuredThroughputAtTheTargetsSizesTheNodesAndTheModelIsShownBeside) {
  Sheet model = plan_serving({});
  Sheet s = plan_serving({serve_report()});
  const SheetLine* measured = find(s, "Measured throughput per node");
  ASSERT_NE(measured, nullptr) << warnings(s);
  EXPECT_DOUBLE_EQ(measured->quantity, 3072);
  EXPECT_EQ(measured->source, "measured");
  EXPECT_NE(measured->driver.find("serve.llm search point at 12 req/s"), std::string::npos)
      << measured->driver;
  // The model's estimate stays on the sheet, beside it.
  const SheetLine* estimate = find(s, "Throughput per node");
  ASSERT_NE(estimate, nullptr);
  EXPECT_DOUBLE_EQ(estimate->quantity, find(model, "Throughput per node")->quantity);
  EXPECT_EQ(s.figures["nodes"].get<int>(), static_cast<int>(std::ceil(40 * 256 * 1.25 / 3072)));
  EXPECT_DOUBLE_EQ(s.figures["measured_tokens_per_s_node"].get<double>(), 3072);
  EXPECT_NE(find(s, "Nodes")->driver.find("measured"), std::string::npos) << find(s, "Nodes")->driver;
  EXPECT_FALSE(model.figures.contains("measured_tokens_per_s_node"));
}

// Measured on 4 GPUs, sized on 8-GPU nodes: twice the tokens/s per node, and the sheet says it scaled.
TEST(ServingMeasurement, ScaledByGpuCountWhereTheNodeDiffersAndSaysSo) {
  Sheet s = plan_serving({edited([](Result& r) { r.info["node"]["gpus"] = 4; })});
  const SheetLine* measured = find(s, "Measured throughput per node");
  ASSERT_NE(measured, nullptr) << warnings(s);
  EXPECT_DOUBLE_EQ(measured->quantity, 3072.0 * 8 / 4);
  EXPECT_NE(measured->driver.find("scaled"), std::string::npos) << measured->driver;
  EXPECT_NE(measured->driver.find("4 GPUs"), std::string::npos) << measured->driver;
  EXPECT_EQ(s.figures["nodes"].get<int>(), static_cast<int>(std::ceil(40 * 256 * 1.25 / 6144)));
}

// The measurement, not the model's request queue, sets the node count: measured above the model's estimate,
// the nodes follow it and the model's queue adds none, nor warns of its own.
TEST(ServingMeasurement, AMeasurementAboveTheModelSetsTheNodesWithoutTheModelsQueue) {
  // 400 req/s x 256 tokens x 1.25 = 128,000 tokens/s: one node at the measured 200,000, where the model's
  // queue (about 12,600 tokens/s per node) would be unstable.
  Sheet s = plan_serving({edited([](Result& r) { set_metric(r, "output_tokens_per_s", 200000); })},
                         [](LlmInference& w) { w.request_rate = 400; });
  ASSERT_NE(find(s, "Measured throughput per node"), nullptr) << warnings(s);
  EXPECT_EQ(s.figures["nodes"].get<int>(), 1);
  EXPECT_EQ(warnings(s).find("request queue"), std::string::npos) << warnings(s);
  EXPECT_EQ(warnings(s).find("miss the targets"), std::string::npos) << warnings(s);
}

// Forward planning (nodes given) says when the nodes' measured throughput falls short of the demand.
TEST(ServingMeasurement, GivenNodesShortOfTheDemandAtTheMeasuredRateWarn) {
  PlanRequest req;
  req.workload = load_workload(data_dir() / "serve-llama2-70b-h100.yaml");
  req.reports = {serve_report()};
  req.nodes = 2;
  Sheet s = plan(req, shipped_catalog());
  EXPECT_NE(
      warnings(s).find("measured 3072 tokens/s per node x 2 nodes = 6144 tokens/s is below the demand of "
                       "10240 tokens/s"),
      std::string::npos)
      << warnings(s);
  req.nodes = 4;
  EXPECT_EQ(warnings(plan(req, shipped_catalog())).find("below the demand"), std::string::npos);
}

// A point is used only when it meets the workload's own targets: at 1 s TTFT the search's point (1.6 s)
// misses and the slower point (0.9 s, 2,048 tokens/s) is the measurement.
TEST(ServingMeasurement, TheBestPointMeetingTheWorkloadsTargetsIsTaken) {
  Sheet s = plan_serving({serve_report()}, [](LlmInference& w) { w.ttft_s = 1.0; });
  const SheetLine* measured = find(s, "Measured throughput per node");
  ASSERT_NE(measured, nullptr) << warnings(s);
  EXPECT_DOUBLE_EQ(measured->quantity, 2048);
}

TEST(ServingMeasurement, LengthsWithinTenPercentMatch) {
  Sheet s = plan_serving({edited([](Result& r) { r.params["isl"] = 1100; })});
  EXPECT_NE(find(s, "Measured throughput per node"), nullptr) << warnings(s);
}

// Each mismatch: no measured line, the model's node count, and a warning naming the reason.
struct Mismatch {
  const char* name;
  void (*edit_report)(Result&);
  void (*edit_workload)(LlmInference&);
  const char* reason;
};

class ServingMismatch : public ::testing::TestWithParam<Mismatch> {};

TEST_P(ServingMismatch, MeasurementNotUsedAndTheSheetSaysWhy) {
  const Mismatch& m = GetParam();
  Report r = serve_report();
  if (m.edit_report)
    for (auto& res : r.results) m.edit_report(res);
  Sheet model = plan_serving({}, m.edit_workload);
  Sheet s = plan_serving({r}, m.edit_workload);
  EXPECT_EQ(find(s, "Measured throughput per node"), nullptr);
  EXPECT_EQ(s.figures["nodes"], model.figures["nodes"]);
  std::string w = warnings(s);
  EXPECT_NE(w.find("serve.llm measurement not used"), std::string::npos) << w;
  EXPECT_NE(w.find(m.reason), std::string::npos) << w;
}

INSTANTIATE_TEST_SUITE_P(
    Sizing, ServingMismatch,
    ::testing::Values(
        Mismatch{"OtherModel", [](Result& r) { r.params["model"] = "mistralai/Mixtral-8x7B"; }, nullptr,
                 "model 'mistralai/Mixtral-8x7B'"},
        Mismatch{"LongerPrompt", [](Result& r) { r.params["isl"] = 2048; }, nullptr, "input 2048 tokens"},
        Mismatch{"ShorterAnswer", [](Result& r) { r.params["osl"] = 128; }, nullptr, "output 128 tokens"},
        Mismatch{"PromptFile",
                 [](Result& r) {
                   r.params.erase("isl");
                   r.params.erase("osl");
                 },
                 nullptr, "no fixed input/output lengths"},
        Mismatch{"TargetsMissed", nullptr, [](LlmInference& w) { w.ttft_s = 0.5; }, "TTFT p99"},
        Mismatch{"TpotMissed", nullptr, [](LlmInference& w) { w.tpot_s = 0.02; }, "TPOT p99"},
        Mismatch{"OtherGpu", [](Result& r) { r.info["node"]["gpu"] = "L4"; }, nullptr, "served on L4"},
        Mismatch{"Errors", [](Result& r) { set_metric(r, "error_rate", 5); }, nullptr,
                 "5 % of requests failed"},
        Mismatch{"Failed", [](Result& r) { r.status = Status::failed; }, nullptr, "status failed"},
        Mismatch{"ThroughputOutOfRange", [](Result& r) { set_metric(r, "output_tokens_per_s", 1e300); },
                 nullptr, "output_tokens_per_s = 1e+300 token/s is outside its physical range"},
        Mismatch{"LatencyInAnotherUnit",
                 [](Result& r) {
                   for (auto& m : r.metrics)
                     if (m.name == "ttft_p99") m.unit = "ms";
                 },
                 nullptr, "ttft_p99 is in 'ms', not 's'"}),
    [](const ::testing::TestParamInfo<Mismatch>& i) { return std::string(i.param.name); });

// A report that does not say what served it is taken as one node of the sized template, and says so.
TEST(ServingMeasurement, WithoutNodeInformationItIsTakenAsOneNodeAndSaysSo) {
  Sheet s = plan_serving({edited([](Result& r) { r.info.erase("node"); })});
  const SheetLine* measured = find(s, "Measured throughput per node");
  ASSERT_NE(measured, nullptr) << warnings(s);
  EXPECT_DOUBLE_EQ(measured->quantity, 3072);
  EXPECT_NE(measured->driver.find("taken as one 8xH100-SXM"), std::string::npos) << measured->driver;
}

// A serving report measured the server behind a URL, not the host it ran on (a load client without GPUs):
// it does not pick the node template, and no "no GPU" warning is given about it.
TEST(ServingMeasurement, AServingReportDoesNotPickTheNodeFromTheClientHost) {
  Sheet s = plan_serving({serve_report()});
  EXPECT_EQ(s.hardware.find("the measured node"), std::string::npos) << s.hardware;
  EXPECT_EQ(warnings(s).find("no GPU"), std::string::npos) << warnings(s);
}

}  // namespace
}  // namespace mlbench::sizing::test
