#include <gtest/gtest.h>

#include "bench/error.hpp"
#include "sizing/models.hpp"
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
  // DGX H100: 10.2 kW at most (METHODS).
  EXPECT_NEAR(node_nameplate_w(c.node("8xH100-SXM"), c), 10.2e3, 0.5e3);
}

}  // namespace
}  // namespace mlbench::sizing::test
