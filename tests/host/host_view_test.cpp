// The inventory's typed view (bench/host_view.hpp): it reads every block the collector writes, by the same
// names, and takes a block that is missing or of the wrong kind (a report read back from an older version
// or edited by hand) as empty, never throwing.
#include <gtest/gtest.h>

#include <filesystem>
#include <iterator>
#include <string>

#include "bench/host_view.hpp"
#include "bench/sysinfo.hpp"

namespace mlbench {
namespace {

using Json = nlohmann::json;

const std::filesystem::path kFixtures = std::filesystem::path(MLBENCH_TEST_DATA_DIR) / "sysfs";

TEST(HostView, ReadsEveryBlockTheCollectorWrites) {
  const Json host = collect_host_info(SysReader(kFixtures / "two_socket"));
  // The collector writes the blocks of the table and nothing else at the top level but the three strings.
  EXPECT_EQ(host.size(), std::size(kInventoryBlocks) + 3) << host.dump();
  for (const auto& b : kInventoryBlocks) {
    ASSERT_TRUE(host.contains(b.key)) << b.key;
    EXPECT_EQ(host[b.key].is_array(), b.list) << b.key;
    EXPECT_EQ(host[b.key].is_object(), !b.list) << b.key;
  }
  const HostView v(host);
  EXPECT_EQ(v.hostname, host.at("hostname").get<std::string>());
  EXPECT_EQ(v.kernel, host.at("kernel").get<std::string>());
  EXPECT_EQ(v.os, host.at("os").get<std::string>());
  // The blocks are the inventory's own, not copies.
  EXPECT_EQ(&v.cpu, &host.at("cpu"));
  EXPECT_EQ(&v.memory, &host.at("memory"));
  EXPECT_EQ(&v.numa, &host.at("numa"));
  EXPECT_EQ(&v.block_devices, &host.at("block_devices"));
  EXPECT_EQ(&v.raid, &host.at("raid"));
  EXPECT_EQ(&v.nics, &host.at("nics"));
  EXPECT_EQ(&v.gpus, &host.at("gpus"));
  EXPECT_EQ(&v.notes, &host.at("notes"));
  ASSERT_TRUE(v.memory_total_bytes);
  EXPECT_EQ(*v.memory_total_bytes, host["memory"]["total_bytes"].get<double>());
  EXPECT_FALSE(v.numa.empty());
}

TEST(HostView, TakesAMissingOrMistypedBlockAsEmpty) {
  const Json host = {{"hostname", 7},
                     {"os", "Debian"},
                     {"cpu", Json::array({"x"})},
                     {"memory", {{"total_bytes", "2 TB"}, {"available_bytes", 5e9}}},
                     {"gpus", "gpu0"},
                     {"nics", {{"name", "ib0"}}}};
  const HostView v(host);
  EXPECT_EQ(v.hostname, "");
  EXPECT_EQ(v.kernel, "");
  EXPECT_EQ(v.os, "Debian");
  EXPECT_TRUE(v.cpu.is_object() && v.cpu.empty());
  EXPECT_FALSE(v.memory_total_bytes);
  ASSERT_TRUE(v.memory_available_bytes);
  EXPECT_EQ(*v.memory_available_bytes, 5e9);
  EXPECT_FALSE(v.memory_theoretical_bandwidth);
  for (const Json* list : {&v.gpus, &v.nics, &v.numa, &v.block_devices, &v.raid, &v.notes})
    EXPECT_TRUE(list->is_array() && list->empty()) << list->dump();
}

TEST(HostView, AnInventoryThatIsNoMappingIsEmpty) {
  for (const Json& host : {Json(), Json::array({1, 2}), Json("host")}) {
    const HostView v(host);
    EXPECT_EQ(v.hostname, "");
    EXPECT_TRUE(v.gpus.empty() && v.memory.empty());
    EXPECT_FALSE(v.memory_total_bytes);
  }
}

}  // namespace
}  // namespace mlbench
