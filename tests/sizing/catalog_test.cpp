#include <fmt/format.h>
#include <gtest/gtest.h>

#include "base/error.hpp"
#include "sizing/model_node.hpp"
#include "tests/sizing/test_util.hpp"

namespace mlbench::sizing::test {
namespace {

TEST(Catalog, ShippedCatalogLoadsInSiUnits) {
  const auto& c = shipped_catalog();
  const auto& n = c.node("8xH100-SXM");
  EXPECT_EQ(n.gpus, 8);
  EXPECT_DOUBLE_EQ(c.nic(n.nic).bits_per_s, 400e9);
  EXPECT_DOUBLE_EQ(c.cpu("EPYC-9654").memory_bandwidth(), 12 * 4800e6 * 8);
  EXPECT_DOUBLE_EQ(c.drive("Gen5-E3.S-7.68TB").read_bw, 14e9);
  EXPECT_EQ(c.node(c.default_node).name, c.default_node);
  EXPECT_TRUE(c.prices.example);
}

// Device memory is binary: the "80 GB" of an A100 is what the 8-GPU report fixture's inventory holds, 80 GiB.
TEST(Catalog, HbmCapacitiesAreBinary) {
  const auto& c = shipped_catalog();
  EXPECT_DOUBLE_EQ(c.gpu("A100-SXM4-80GB").memory_bytes, 85899345920.0);
  EXPECT_DOUBLE_EQ(c.gpu("H200-SXM").memory_bytes, 141.0 * (1ull << 30));
  EXPECT_DOUBLE_EQ(c.gpu("T4").memory_bytes, 16.0 * (1ull << 30));
}

TEST(Catalog, HopperAndBlackwellVariantsAndInferenceNodes) {
  const auto& c = shipped_catalog();
  EXPECT_DOUBLE_EQ(c.gpu("H800-SXM").link_bandwidth, 200e9);  // 400 GB/s both directions
  EXPECT_DOUBLE_EQ(c.gpu("H800-SXM").peak_for("bf16").value(), c.gpu("H100-SXM").peak_for("bf16").value());
  EXPECT_EQ(c.node("8xH800-SXM").gpu, "H800-SXM");
  EXPECT_EQ(c.node("1xGH200").gpu, "GH200");
  const auto& nvl72 = c.node("GB200-NVL72");
  EXPECT_EQ(nvl72.gpus, 72);
  EXPECT_EQ(nvl72.gpu_domain, 72);
  for (const char* gpu : {"L4", "L40S", "T4"})
    for (int count : {1, 4}) {
      const auto& n = c.node(fmt::format("{}x{}-inference", count, gpu));
      EXPECT_EQ(n.gpu, gpu);
      EXPECT_EQ(n.gpus, count);
      EXPECT_EQ(n.gpu_domain, 1);  // PCIe cards: no NVLink domain
    }
  // Device names pick the longest match: a GH200 is not an H200, a GB200 not a B200.
  EXPECT_EQ(match_gpu(c.gpus, "NVIDIA GH200 480GB", "9.0")->name, "GH200");
  EXPECT_EQ(match_gpu(c.gpus, "NVIDIA GB200", "10.0")->name, "GB200");
  EXPECT_EQ(match_gpu(c.gpus, "NVIDIA H800", "9.0")->name, "H800-SXM");
}

TEST(Catalog, VisionNodeMatchesTheIssue) {
  const auto& c = shipped_catalog();
  const auto& n = c.node("4xA100-vision");
  EXPECT_EQ(n.gpus, 4);
  EXPECT_EQ(n.cpu, "EPYC-9554");
  EXPECT_EQ(n.sockets, 2);
  EXPECT_DOUBLE_EQ(n.ram_bytes, 1024e9);
  EXPECT_NEAR(n.drives * c.drive(n.drive).capacity_bytes, 30e12, 1e12);
  EXPECT_DOUBLE_EQ(c.nic(n.nic).bits_per_s, 200e9);
}

TEST(Catalog, UnknownNameSuggestsTheClosest) {
  try {
    shipped_catalog().node("8xH100");
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("closest: '8xH100-SXM'"), std::string::npos) << e.what();
  }
  EXPECT_EQ(closest_name("h200", {"8xH100-SXM", "8xH200-SXM", "8xL4-inference"}), "8xH200-SXM");
}

TEST(Catalog, NameplatePowerOfAnH100NodeIsNearTheDgxFigure) {
  const auto& c = shipped_catalog();
  // DGX H100: 10.2 kW at most (METHODS.md "Hardware catalog").
  EXPECT_NEAR(node_nameplate_w(c.node("8xH100-SXM"), c, c.cooling_spec("air")), 10.2e3, 0.5e3);
}

}  // namespace
}  // namespace mlbench::sizing::test
