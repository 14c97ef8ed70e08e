#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/error.hpp"
#include "bench/gpu_catalog.hpp"
#include "bench/paths.hpp"
#include "tests/common/files.hpp"

namespace mlbench {
namespace {

TEST(GpuCatalog, ShippedCatalogHoldsTheMethodsTable) {
  const auto& cat = gpu_catalog();
  const GpuSpec* h200 = find_gpu(cat, "H200-SXM");
  ASSERT_NE(h200, nullptr);
  EXPECT_DOUBLE_EQ(*h200->peak_for("bf16"), 989e12);
  EXPECT_DOUBLE_EQ(*h200->peak_for("fp8"), 1979e12);
  EXPECT_DOUBLE_EQ(h200->memory_bandwidth, 4.8e12);
  EXPECT_DOUBLE_EQ(h200->link_bandwidth, 450e9);  // 900 GB/s bidirectional = 450 per direction
  const GpuSpec* a100 = find_gpu(cat, "a100-sxm4-80gb");
  ASSERT_NE(a100, nullptr);
  EXPECT_FALSE(a100->peak_for("fp8").has_value());
}

TEST(GpuCatalog, MatchesCudaDeviceNamesAndCapability) {
  const auto& cat = gpu_catalog();
  EXPECT_EQ(match_gpu(cat, "NVIDIA H200", "9.0")->name, "H200-SXM");
  EXPECT_EQ(match_gpu(cat, "NVIDIA H100 80GB HBM3", "9.0")->name, "H100-SXM");
  EXPECT_EQ(match_gpu(cat, "NVIDIA H100 PCIe", "9.0")->name, "H100-PCIe");
  EXPECT_EQ(match_gpu(cat, "NVIDIA A100-SXM4-40GB", "8.0")->name, "A100-SXM4-40GB");
  EXPECT_EQ(match_gpu(cat, "NVIDIA L4", "8.9")->name, "L4");
  EXPECT_EQ(match_gpu(cat, "NVIDIA L40S", "8.9")->name, "L40S");
  // A name that matches but a capability that does not is not that GPU.
  EXPECT_EQ(match_gpu(cat, "NVIDIA H200", "8.0"), nullptr);
  EXPECT_EQ(match_gpu(cat, "NVIDIA RTX 4090", "8.9"), nullptr);
}

TEST(GpuCatalog, BadFileNamesTheEntryAndField) {
  test::TempDir dir;
  auto path = dir / "bad-gpus.yaml";
  std::ofstream(path) << "gpus:\n  - name: X1\n    match: [X1]\n    peak_tflops: {bf16: -3}\n";
  try {
    load_gpu_catalog(path);
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("gpu 'X1': peak_tflops.bf16"), std::string::npos) << e.what();
  }
}

// `sms` (the GEMM wave quantization's SM count) is optional: absent it is 0; when given a positive count.
TEST(GpuCatalog, SmCountIsOptionalAndPositive) {
  test::TempDir dir;
  const std::string entry =
      "gpus:\n  - name: X1\n    match: [X1]\n    peak_tflops: {bf16: 100}\n    memory_gib: 16\n"
      "    memory_bandwidth_tbps: 1\n    link_gbps_bidir: 64\n    tdp_w: 300\n";
  auto none = dir / "none.yaml";
  std::ofstream(none) << entry;
  EXPECT_EQ(load_gpu_catalog(none).front().sms, 0);
  auto some = dir / "some.yaml";
  std::ofstream(some) << entry << "    sms: 66\n";
  EXPECT_EQ(load_gpu_catalog(some).front().sms, 66);
  for (const char* bad : {"0", "-4", "many", "1.5"}) {
    auto path = dir / "bad.yaml";
    std::ofstream(path) << entry << "    sms: " << bad << "\n";
    try {
      load_gpu_catalog(path);
      ADD_FAILURE() << "sms " << bad << " accepted";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("gpu 'X1': 'sms'"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(find_gpu(gpu_catalog(), "A100-SXM4-80GB")->sms, 108);
}

}  // namespace
}  // namespace mlbench
