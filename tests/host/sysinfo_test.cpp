// The host inventory on fixture trees (exact values) and on this machine (structure only).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <string>

#include "bench/sysinfo.hpp"
#include "tests/common/files.hpp"

namespace mlbench {
namespace {

using Json = nlohmann::json;

const std::filesystem::path kFixtures = std::filesystem::path(MLBENCH_TEST_DATA_DIR) / "sysfs";

Json fixture(const char* name) { return collect_host_info(SysReader(kFixtures / name)); }

const Json& find_named(const Json& list, const std::string& name) {
  for (const auto& e : list) {
    if (e.value("name", "") == name) return e;
  }
  static const Json kNone;
  ADD_FAILURE() << "no entry named " << name << " in " << list.dump();
  return kNone;
}

bool has_note(const Json& host, const std::string& fragment) {
  for (const auto& n : host["notes"]) {
    if (n.get<std::string>().find(fragment) != std::string::npos) return true;
  }
  return false;
}

TEST(PcieBandwidth, AppliesLineEncodingPerGeneration) {
  EXPECT_DOUBLE_EQ(*pcie_bandwidth(2.5, 1), 2.5e9 * 0.8 / 8);
  EXPECT_DOUBLE_EQ(*pcie_bandwidth(8.0, 16), 8e9 * 16 * 128.0 / 130.0 / 8);
  EXPECT_NEAR(*pcie_bandwidth(16.0, 4), 7.877e9, 1e6);  // Gen4 x4 ≈ 7.9 GB/s (METHODS.md "Reference figures")
  EXPECT_NEAR(*pcie_bandwidth(32.0, 4), 15.754e9, 1e6);  // Gen5 x4 ≈ 15.8 GB/s
  EXPECT_DOUBLE_EQ(*pcie_bandwidth(64.0, 16), 64e9 * 16 * 242.0 / 256.0 / 8);
  EXPECT_FALSE(pcie_bandwidth(3.0, 4));
  EXPECT_FALSE(pcie_bandwidth(16.0, 0));
}

TEST(ParseHelpers, PcieSpeed) {
  EXPECT_DOUBLE_EQ(*parse_pcie_speed("16.0 GT/s PCIe"), 16.0);
  EXPECT_DOUBLE_EQ(*parse_pcie_speed("2.5 GT/s"), 2.5);
  EXPECT_FALSE(parse_pcie_speed("Unknown"));
  EXPECT_FALSE(parse_pcie_speed("16.0 Gb/s"));
  EXPECT_FALSE(parse_pcie_speed(""));
}

TEST(ParseHelpers, CpuList) {
  EXPECT_EQ(parse_cpu_list("0-3,8,10-11"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(parse_cpu_list(" 5\n"), (std::vector<int>{5}));
  EXPECT_TRUE(parse_cpu_list("").empty());
  EXPECT_TRUE(parse_cpu_list("3-1").empty());
  EXPECT_TRUE(parse_cpu_list("a-b").empty());
}

TEST(ParseHelpers, InterruptCounts) {
  const char* text =
      "           CPU0       CPU1\n"
      "  0:         44          0   IO-APIC   2-edge      timer\n"
      " 35:          0          1  PCI-MSIX-0000:00:02.0   0-edge      virtio1-config\n"
      " 36:         10   18958144  PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0\n"
      " 40:          7  PCI-MSI 1-edge\n"
      "NMI:          0          0   Non-maskable interrupts\n"
      "ERR:          0\n";
  auto counts = parse_interrupt_counts(text);
  EXPECT_EQ(counts, (std::map<int, std::uint64_t>{{0, 44}, {35, 1}, {36, 18958154}, {40, 7}}));
  // Garbage, an empty name, a number beyond int, a name that only starts with digits: nothing.
  EXPECT_TRUE(parse_interrupt_counts("garbage\n:\n 12345678901: 5\n12x: 3\n").empty());
}

TEST(ParseHelpers, SmapsAnonHugePages) {
  const char* text =
      "55d0c0000000-55d0c0021000 rw-p 00000000 00:00 0                          [heap]\n"
      "AnonHugePages:         0 kB\n"
      "7f0000200000-7f0000600000 rw-p 00000000 00:00 0 \n"
      "Size:               4096 kB\n"
      "AnonHugePages:      2048 kB\n"
      "VmFlags: rd wr mr mw me ac hg\n"
      "7f0000600000-7f0000800000 rw-p 00000000 00:00 0\n"
      "Size:               2048 kB\n";
  EXPECT_EQ(parse_smaps_anon_huge(text, 0x7f0000200000), 2048u * 1024);
  EXPECT_EQ(parse_smaps_anon_huge(text, 0x7f00005fffff), 2048u * 1024);  // last byte of the mapping
  EXPECT_EQ(parse_smaps_anon_huge(text, 0x55d0c0000010), 0u);
  EXPECT_FALSE(parse_smaps_anon_huge(text, 0x7f0000600000));  // its block has no AnonHugePages line
  EXPECT_FALSE(parse_smaps_anon_huge(text, 0x1000));          // no mapping holds it
  EXPECT_FALSE(parse_smaps_anon_huge("zz-7f0000600000 rw-p\nAnonHugePages: 4 kB\n", 0x7f0000200000));
}

TEST(ParseHelpers, Mdstat) {
  auto arrays = parse_mdstat(
      "Personalities : [raid0] [raid1]\n"
      "md0 : active raid0 nvme2n1[1] nvme1n1[0]\n"
      "      15002951680 blocks super 1.2 512k chunks\n\n"
      "md1 : inactive sdb1[0](S)\n"
      "md2 : active\n"
      "mdx bad line\n"
      "unused devices: <none>\n");
  ASSERT_EQ(arrays.size(), 3u);
  EXPECT_EQ(arrays[0].name, "md0");
  EXPECT_EQ(arrays[0].state, "active");
  EXPECT_EQ(arrays[0].level, "raid0");
  EXPECT_EQ(arrays[0].members, (std::vector<std::string>{"nvme2n1", "nvme1n1"}));
  EXPECT_EQ(arrays[0].line, "md0 : active raid0 nvme2n1[1] nvme1n1[0]");
  EXPECT_EQ(arrays[1].state, "inactive");
  EXPECT_FALSE(arrays[1].level);
  EXPECT_EQ(arrays[1].members, (std::vector<std::string>{"sdb1"}));  // a spare is a member too
  EXPECT_FALSE(arrays[2].state);                                     // a line this short names no state
  EXPECT_TRUE(arrays[2].members.empty());
  EXPECT_TRUE(parse_mdstat("").empty());
}

TEST(ParseHelpers, Mountinfo) {
  auto mounts = parse_mountinfo(
      "22 1 259:4 / /data rw,relatime shared:1 - xfs /dev/nvme0n1p1 rw,attr2\n"
      "24 1 8:0 / /backup rw,relatime - ext4 /dev/sda rw\n"
      "25 1 0:22 / /proc rw - proc\n"                 // no source: left out
      "26 1 0:23 / /x rw shared:3 xfs /dev/sdb rw\n"  // no separator: left out
      "garbage\n");
  ASSERT_EQ(mounts.size(), 2u);
  EXPECT_EQ(mounts[0].dev, "259:4");
  EXPECT_EQ(mounts[0].mount_point, "/data");
  EXPECT_EQ(mounts[0].source, "/dev/nvme0n1p1");
  EXPECT_EQ(mounts[1].dev, "8:0");  // no optional fields
  EXPECT_EQ(mounts[1].source, "/dev/sda");
}

TEST(ParseHelpers, CacheSize) {
  EXPECT_EQ(*parse_cache_size("48K"), 48u * 1024);
  EXPECT_EQ(*parse_cache_size("32M"), 32u << 20);
  EXPECT_EQ(*parse_cache_size("512"), 512u);
  EXPECT_FALSE(parse_cache_size("lots"));
  EXPECT_FALSE(parse_cache_size(""));
}

TEST(Smbios, ParsesPopulatedMemoryDevices) {
  auto table = SysReader(kFixtures / "two_socket").read_bytes("/sys/firmware/dmi/tables/DMI");
  ASSERT_TRUE(table);
  auto dimms = parse_smbios_memory_devices(*table);
  ASSERT_EQ(dimms.size(), 16u);  // the empty slot is left out
  EXPECT_EQ(dimms[0]["locator"], "DIMM_A0");
  EXPECT_EQ(dimms[0]["type"], "DDR5");
  EXPECT_EQ(dimms[0]["size_bytes"], 16ULL << 30);
  EXPECT_EQ(dimms[0]["speed_mts"], 4400);           // configured speed wins over the rated 4800
  EXPECT_EQ(dimms[15]["size_bytes"], 32ULL << 30);  // from the extended size field
  // A truncated table ends the walk without reading past the end.
  EXPECT_EQ(parse_smbios_memory_devices(table->substr(0, 100)).size(), 0u);
  EXPECT_EQ(parse_smbios_memory_devices("").size(), 0u);
}

TEST(HostInfoFixture, OsAndCpu) {
  auto host = fixture("two_socket");
  EXPECT_EQ(host["hostname"], "gpu-node-07");
  EXPECT_EQ(host["kernel"], "6.1.0-27-amd64");
  EXPECT_EQ(host["os"], "Debian GNU/Linux 12 (bookworm)");
  const auto& cpu = host["cpu"];
  EXPECT_EQ(cpu["model"], "Intel(R) Xeon(R) Platinum 8480+");
  EXPECT_EQ(cpu["vendor"], "GenuineIntel");
  EXPECT_EQ(cpu["sockets"], 2);
  EXPECT_EQ(cpu["cores"], 8);
  EXPECT_EQ(cpu["threads"], 16);
  EXPECT_EQ(cpu["core_cpus"], (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(cpu["flags"],
            (std::vector<std::string>{"sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vl",
                                      "avx512_bf16", "amx_tile", "amx_bf16", "amx_int8", "aes"}));
  ASSERT_EQ(cpu["caches"].size(), 4u);
  EXPECT_EQ(
      cpu["caches"][3],
      (Json{{"level", 3}, {"type", "Unified"}, {"size_bytes", 107520 * 1024}, {"shared_cpu_count", 8}}));
  EXPECT_EQ(cpu["llc_bytes"], 107520ULL * 1024);
  EXPECT_EQ(cpu["llc_total_bytes"], 2 * 107520ULL * 1024);
  EXPECT_EQ(cpu["governor"], "performance");
}

TEST(HostInfoFixture, MemoryAndNuma) {
  auto host = fixture("two_socket");
  const auto& mem = host["memory"];
  EXPECT_EQ(mem["total_bytes"], 263856000ULL * 1024);
  EXPECT_EQ(mem["available_bytes"], 250000000ULL * 1024);
  EXPECT_EQ(mem["hugepages"], (Json{{"size_bytes", 2048 * 1024}, {"total", 16}, {"free", 8}}));
  EXPECT_EQ(mem["transparent_hugepage"], "never");
  EXPECT_EQ(mem["dimms"].size(), 16u);
  EXPECT_EQ(mem["channels"], 16);
  EXPECT_DOUBLE_EQ(mem["theoretical_bandwidth"].get<double>(), 16 * 4400e6 * 8);
  ASSERT_EQ(host["numa"].size(), 2u);
  EXPECT_EQ(host["numa"][0]["cpus"], (std::vector<int>{0, 1, 2, 3, 8, 9, 10, 11}));
  EXPECT_EQ(host["numa"][1]["node"], 1);
  EXPECT_EQ(host["numa"][1]["memory_bytes"], 131928000ULL * 1024);
  EXPECT_TRUE(host["gpus"].empty());
}

TEST(HostInfoFixture, BlockDevices) {
  auto host = fixture("two_socket");
  std::vector<std::string> names;
  for (const auto& d : host["block_devices"]) names.push_back(d["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"dm-0", "md0", "nvme0n1", "nvme1n1", "nvme2n1", "sda",
                                             "sdb"}));  // no loop0

  const auto& n0 = find_named(host["block_devices"], "nvme0n1");
  EXPECT_EQ(n0["model"], "SAMSUNG MZQL23T8HCLS-00A07");
  EXPECT_EQ(n0["size_bytes"], 7501476528ULL * 512);
  EXPECT_EQ(n0["logical_block_size"], 4096);
  EXPECT_EQ(n0["physical_block_size"], 4096);
  EXPECT_EQ(n0["rotational"], false);
  EXPECT_EQ(n0["transport"], "pcie");
  EXPECT_EQ(n0["pcie"]["speed_gts"], 16.0);
  EXPECT_EQ(n0["pcie"]["width"], 4);
  EXPECT_DOUBLE_EQ(n0["pcie"]["bandwidth"].get<double>(), *pcie_bandwidth(16.0, 4));
  EXPECT_EQ(n0["hw_queues"], 8);
  EXPECT_EQ(n0["nvme_poll_queues"], 4);
  EXPECT_EQ(n0["partitions"], (std::vector<std::string>{"nvme0n1p1"}));
  EXPECT_EQ(n0["mountpoints"], (std::vector<std::string>{"/data"}));  // through its partition
  EXPECT_TRUE(n0["holders"].empty());

  const auto& n2 = find_named(host["block_devices"], "nvme2n1");
  EXPECT_EQ(n2["pcie"]["speed_gts"], 16.0);
  EXPECT_EQ(n2["pcie"]["max_speed_gts"], 32.0);
  EXPECT_DOUBLE_EQ(n2["pcie"]["max_bandwidth"].get<double>(), *pcie_bandwidth(32.0, 4));
  EXPECT_EQ(n2["holders"], (std::vector<std::string>{"md0"}));
  EXPECT_TRUE(has_note(host, "nvme2n1: PCIe link runs below its maximum"));
  EXPECT_FALSE(has_note(host, "nvme1n1: PCIe link runs below"));

  const auto& sda = find_named(host["block_devices"], "sda");
  EXPECT_EQ(sda["rotational"], true);
  EXPECT_EQ(sda["transport"], "scsi");
  EXPECT_EQ(sda["physical_block_size"], 4096);
  EXPECT_EQ(sda["mountpoints"], (std::vector<std::string>{"/backup"}));
  EXPECT_FALSE(sda.contains("pcie"));
  EXPECT_FALSE(sda.contains("nvme_poll_queues"));

  const auto& sdb = find_named(host["block_devices"], "sdb");
  EXPECT_EQ(sdb["holders"], (std::vector<std::string>{"dm-0"}));
  EXPECT_TRUE(sdb["mountpoints"].empty());
  EXPECT_EQ(find_named(host["block_devices"], "dm-0")["transport"], "device-mapper");
  EXPECT_FALSE(has_note(host, "dm-0: no model"));

  const auto& md0 = find_named(host["block_devices"], "md0");
  EXPECT_EQ(md0["transport"], "md");
  EXPECT_EQ(md0["mountpoints"], (std::vector<std::string>{"/scratch"}));
}

TEST(HostInfoFixture, BlockDeviceHelperMatchesInventory) {
  SysReader reader(kFixtures / "two_socket");
  Json notes = Json::array();
  auto d = block_device_info(reader, "nvme1n1", notes);
  EXPECT_EQ(d, find_named(fixture("two_socket")["block_devices"], "nvme1n1"));
  EXPECT_NEAR(d["pcie"]["bandwidth"].get<double>(), 15.754e9, 1e6);
  EXPECT_TRUE(notes.empty());
}

TEST(HostInfoFixture, RaidAndNics) {
  auto host = fixture("two_socket");
  ASSERT_EQ(host["raid"].size(), 1u);
  EXPECT_EQ(host["raid"][0], (Json{{"name", "md0"},
                                   {"state", "active"},
                                   {"level", "raid0"},
                                   {"members", {"nvme1n1", "nvme2n1"}},
                                   {"chunk_bytes", 524288},
                                   {"size_bytes", 30005903360ULL * 512}}));

  std::vector<std::string> names;
  for (const auto& n : host["nics"]) names.push_back(n["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"docker0", "eno1", "ib0", "mlx5_1/1"}));  // no lo
  const auto& eno1 = find_named(host["nics"], "eno1");
  EXPECT_EQ(eno1["driver"], "ice");
  EXPECT_EQ(eno1["speed_mbps"], 100000);
  EXPECT_EQ(eno1["mtu"], 9000);
  EXPECT_EQ(eno1["virtual"], false);
  EXPECT_EQ(find_named(host["nics"], "docker0")["virtual"], true);
  EXPECT_FALSE(find_named(host["nics"], "docker0").contains("speed_mbps"));
  EXPECT_EQ(find_named(host["nics"], "ib0")["infiniband"], (Json{{"device", "mlx5_0"},
                                                                 {"port", 1},
                                                                 {"rate_gbps", 400.0},
                                                                 {"state", "ACTIVE"},
                                                                 {"link_layer", "InfiniBand"}}));
  const auto& hdr = find_named(host["nics"], "mlx5_1/1");
  EXPECT_EQ(hdr["infiniband"]["rate_gbps"], 200.0);
  EXPECT_EQ(hdr["infiniband"]["state"], "DOWN");
  EXPECT_EQ(hdr["driver"], "mlx5_core");
}

TEST(HostInfoFixture, BrokenTreeLeavesFieldsOutWithNotes) {
  auto host = fixture("broken");
  EXPECT_FALSE(host.contains("hostname"));
  EXPECT_FALSE(host.contains("os"));
  EXPECT_TRUE(has_note(host, "hostname"));
  EXPECT_TRUE(has_note(host, "/proc/cpuinfo not readable"));
  EXPECT_EQ(host["cpu"]["threads"], 4);
  EXPECT_FALSE(host["cpu"].contains("sockets"));
  EXPECT_FALSE(host["cpu"].contains("llc_bytes"));  // the only cache has a malformed size
  EXPECT_TRUE(has_note(host, "topology"));
  EXPECT_FALSE(host["memory"].contains("total_bytes"));
  EXPECT_FALSE(host["memory"].contains("theoretical_bandwidth"));
  EXPECT_TRUE(has_note(host, "lists no populated memory device"));
  ASSERT_EQ(host["numa"].size(), 1u);  // assumed single node
  EXPECT_EQ(host["numa"][0]["cpus"], (std::vector<int>{0, 1, 2, 3}));
  EXPECT_TRUE(has_note(host, "assuming one node"));
  const auto& nvme = find_named(host["block_devices"], "nvme0n1");
  EXPECT_FALSE(nvme.contains("size_bytes"));
  EXPECT_FALSE(nvme.contains("pcie"));
  EXPECT_TRUE(has_note(host, "nvme0n1: PCIe link speed/width not readable"));
  ASSERT_EQ(host["raid"].size(), 1u);
  EXPECT_EQ(host["raid"][0]["members"], (std::vector<std::string>{"nvme0n1"}));
  EXPECT_TRUE(has_note(host, "md1: RAID level unknown"));
  const auto& eth0 = find_named(host["nics"], "eth0");
  EXPECT_FALSE(eth0.contains("speed_mbps"));
  EXPECT_FALSE(eth0.contains("driver"));
  EXPECT_TRUE(has_note(host, "eth0: link speed unknown"));
  EXPECT_FALSE(find_named(host["nics"], "mlx5_0/1")["infiniband"].contains("rate_gbps"));
}

// A sector count no device has (a fuzz finding: 31251759104759104 × 512 overflowed a long long) gives no size
// and a note naming it, not undefined arithmetic; a real count gives its bytes.
TEST(HostInfoTree, BlockDeviceSizeOutOfRangeIsANote) {
  test::TempDir dir("mlbench-blk");
  const std::filesystem::path& root = dir.path();
  std::filesystem::create_directories(root / "sys/block/sda");
  auto size_of = [&](const std::string& sectors, Json& notes) {
    std::ofstream(root / "sys/block/sda/size") << sectors << "\n";
    return block_device_info(SysReader(root), "sda", notes);
  };
  Json notes = Json::array();
  EXPECT_EQ(size_of("7814037168", notes)["size_bytes"], 7814037168LL * 512);
  for (const char* bad : {"31251759104759104", "-8"}) {
    notes = Json::array();
    EXPECT_FALSE(size_of(bad, notes).contains("size_bytes")) << bad;
    EXPECT_NE(notes.dump().find("out of range"), std::string::npos) << notes.dump();
  }
}

// PRETTY_NAME loses its quotes only when they match: an unmatched opening quote once cut the value's last
// byte, splitting "ƫ" (0xC6 0xAA) so that the report could not be written (a fuzz finding).
TEST(HostInfoTree, OsReleaseQuotesAreStrippedOnlyInPairs) {
  test::TempDir dir("mlbench-osrel");
  const std::filesystem::path& root = dir.path();
  std::filesystem::create_directories(root / "etc");
  auto os_of = [&](const std::string& text) {
    std::ofstream(root / "etc/os-release", std::ios::binary) << text;
    auto host = collect_host_info(SysReader(root));
    EXPECT_NO_THROW((void)host.dump());
    return host.value("os", "");
  };
  EXPECT_EQ(os_of("PRETTY_NAME=\"Debian GNU/Linux 13\"\n"), "Debian GNU/Linux 13");
  EXPECT_EQ(os_of("PRETTY_NAME='Debian 13'\n"), "Debian 13");
  EXPECT_EQ(os_of("PRETTY_NAME=Debian\n"), "Debian");
  EXPECT_EQ(os_of("PRETTY_NAME=\"Debian \xc6\xaa\n"), "\"Debian \xc6\xaa");
}

// The x86 `hypervisor` CPU flag (set in every guest) reaches the inventory: host.membw reads it to say that
// the cache sizes a VM reports may not be the host's.
TEST(HostInfoTree, HypervisorFlagIsKept) {
  test::TempDir dir("mlbench-hv");
  const std::filesystem::path& root = dir.path();
  std::filesystem::create_directories(root / "proc");
  auto flags_of = [&](const std::string& flags) {
    std::ofstream(root / "proc/cpuinfo") << "processor\t: 0\nflags\t\t: " << flags << "\n";
    return collect_host_info(SysReader(root))["cpu"]["flags"];
  };
  EXPECT_EQ(flags_of("fpu sse2 avx2 hypervisor lahf_lm"), Json::array({"avx2", "hypervisor"}));
  EXPECT_EQ(flags_of("fpu sse2 avx2 lahf_lm"), Json::array({"avx2"}));
}

// A missing SMBIOS table (most VMs) is not a permission problem: the note must not send root to get root.
TEST(HostInfoTree, AbsentSmbiosTableIsNotBlamedOnPermissions) {
  test::TempDir dir("mlbench-dmi");
  const std::filesystem::path& root = dir.path();
  std::filesystem::create_directories(root / "proc");
  std::ofstream(root / "proc/meminfo") << "MemTotal:       16384 kB\n";
  auto host = collect_host_info(SysReader(root));
  EXPECT_TRUE(has_note(host, "SMBIOS table /sys/firmware/dmi/tables/DMI absent, as in many VMs"))
      << host["notes"];
  EXPECT_FALSE(has_note(host, "needs root")) << host["notes"];
}

TEST(HostInfoFixture, MissingRootGivesEmptyInventoryWithNotes) {
  auto host = collect_host_info(SysReader(kFixtures / "does-not-exist"));
  for (const char* key : {"cpu", "memory", "numa", "block_devices", "raid", "nics", "gpus", "notes"}) {
    EXPECT_TRUE(host.contains(key)) << key;
  }
  EXPECT_TRUE(host["block_devices"].empty());
  EXPECT_GE(host["notes"].size(), 5u);
}

TEST(HostInfoLive, HasTheDocumentedStructure) {
  auto host = collect_host_info(SysReader("/"));
  EXPECT_TRUE(host["cpu"].is_object());
  EXPECT_GT(host["cpu"].value("threads", 0), 0);
  EXPECT_GT(host["memory"].value("total_bytes", 0ULL), 0u);
  ASSERT_FALSE(host["numa"].empty());
  for (const auto& n : host["numa"]) EXPECT_TRUE(n["cpus"].is_array());
  EXPECT_TRUE(host["block_devices"].is_array());
  for (const auto& d : host["block_devices"]) {
    EXPECT_TRUE(d["name"].is_string());
    EXPECT_TRUE(d["mountpoints"].is_array());
  }
  EXPECT_TRUE(host["raid"].is_array());
  EXPECT_TRUE(host["nics"].is_array());
  EXPECT_TRUE(host["gpus"].is_array());
  EXPECT_TRUE(host["notes"].is_array());
  EXPECT_TRUE(host["hostname"].is_string());
  EXPECT_TRUE(host["kernel"].is_string());
}

}  // namespace
}  // namespace mlbench
