// `mlbench gemm|hbm|copy|conv`: bad input exits 2 with one line and writes nothing, also on a machine without
// a GPU (options are validated before the probe would be skipped); without a GPU the probes are skipped with
// the reason and the run exits 0.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "mlbench_config.hpp"
#include "tests/cli/cli_util.hpp"

namespace mlbench::test {
namespace {

int gpu_count() {
  auto r = run_cli({"sysinfo", "--json"});
  if (r.rc != 0) return 0;
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  return j.is_object() && j.contains("gpus") ? static_cast<int>(j["gpus"].size()) : 0;
}

void expect_usage_error(const std::vector<std::string>& args, std::string_view needle) {
  TempDir dir;
  auto out = dir.path() / "r.json";
  auto full = args;
  full.push_back("-o");
  full.push_back(out.string());
  auto r = run_cli(full);
  EXPECT_EQ(r.rc, 2) << r.out << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

class GpuCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!MLBENCH_HAS_CUDA) GTEST_SKIP() << "built without CUDA: the GPU commands refuse to run";
  }
};

// Every build lists the GPU probes; one without CUDA says why they cannot run, skips them in a run and
// refuses their commands.
TEST(GpuProbes, ListedInEveryBuildWithTheReasonTheyCannotRun) {
  auto list = run_cli({"list"});
  ASSERT_EQ(list.rc, 0) << list.err;
  for (const char* id : {"gpu.gemm", "gpu.hbm", "gpu.copy", "gpu.conv"}) {
    EXPECT_NE(list.out.find(id), std::string::npos) << id << "\n" << list.out;
  }
  if (MLBENCH_HAS_CUDA) return;
  EXPECT_NE(list.out.find("built without CUDA"), std::string::npos) << list.out;
  TempDir dir;
  auto out = dir.path() / "r.json";
  auto run = run_cli({"run", "--probe", "gpu.gemm", "-o", out.string()});
  ASSERT_EQ(run.rc, 0) << run.err;
  auto report = nlohmann::json::parse(std::ifstream(out));
  ASSERT_EQ(report["results"].size(), 1u);
  EXPECT_EQ(report["results"][0]["status"], "skipped");
  EXPECT_NE(report["results"][0]["reason"].get<std::string>().find("built without CUDA"), std::string::npos);
  expect_usage_error({"gemm"}, "gpu.gemm: built without CUDA");
}

TEST_F(GpuCli, UnknownPrecisionIsAUsageError) {
  expect_usage_error({"gemm", "--precisions", "bf16,fp4"}, "--precisions: unknown value 'fp4'");
  expect_usage_error({"conv", "--precisions", "fp32"}, "fp32");
}

TEST_F(GpuCli, MalformedSizesAndKernels) {
  expect_usage_error({"gemm", "--sizes", "0"}, "--sizes");
  expect_usage_error({"gemm", "--precisions", "fp8", "--sizes", "1000"}, "multiple of 16");
  expect_usage_error({"hbm", "--kernels", "saxpy"}, "saxpy");
  expect_usage_error({"hbm", "--size", "12"}, "at least 1 MiB");
  expect_usage_error({"copy", "--directions", "sideways"}, "sideways");
}

TEST_F(GpuCli, DevicesNamingAMissingGpu) {
  int n = gpu_count();
  // With no GPU: "this machine has no CUDA GPU"; with n GPUs: "there is no GPU n".
  expect_usage_error({"hbm", "--devices", std::to_string(n)}, n == 0 ? "no CUDA GPU" : "there is no GPU");
}

TEST_F(GpuCli, SizeThatCannotFitIsRefusedWithTheNumbers) {
  if (gpu_count() == 0) GTEST_SKIP() << "no GPU: free memory is only known on a GPU host";
  expect_usage_error({"hbm", "--devices", "0", "--size", "64T"}, "free");
}

TEST_F(GpuCli, WithoutAGpuTheProbesAreSkipped) {
  if (gpu_count() > 0) GTEST_SKIP() << "this machine has a GPU";
  TempDir dir;
  auto out = dir.path() / "r.json";
  auto r = run_cli({"gemm", "-o", out.string()});
  EXPECT_EQ(r.rc, 0) << r.err;
  ASSERT_TRUE(std::filesystem::exists(out));
  EXPECT_EQ(validate_report_schema(out), "");
  auto j = nlohmann::json::parse(std::ifstream(out));
  ASSERT_EQ(j["results"].size(), 1u);
  EXPECT_EQ(j["results"][0]["status"], "skipped");
  EXPECT_NE(j["results"][0]["reason"].get<std::string>().find("no CUDA GPU"), std::string::npos);
}

}  // namespace
}  // namespace mlbench::test
