// The NIC and InfiniBand counters net.nccl records around its timed loop (bench/net_counters): a fixture
// sysfs tree read before and after, the rates and the report's info.nic_rates, and rank 0's count of the
// world's nodes that decides whether they are recorded at all.
#include "bench/net_counters.hpp"

#include <fstream>

#include <gtest/gtest.h>

#include "network/cluster.hpp"
#include "tests/common/files.hpp"

namespace mlbench {
namespace {

namespace fs = std::filesystem;

void put(const fs::path& p, std::uint64_t value) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << value << "\n";
}

// eth0, lo, a virtual interface without statistics and one InfiniBand port (counting 4-byte words).
struct Sysfs {
  test::TempDir dir{"mlbench-nic"};
  Sysfs() {
    fs::create_directories(dir / "sys/class/net/bond0");
    set(0, 0, 0);
  }
  void set(std::uint64_t eth_rx, std::uint64_t eth_tx, std::uint64_t ib_words) {
    for (const char* nic : {"eth0", "lo"}) {
      fs::path s = dir / "sys/class/net" / nic / "statistics";
      put(s / "rx_bytes", eth_rx);
      put(s / "tx_bytes", eth_tx);
      put(s / "rx_errors", 1);
      put(s / "tx_errors", 2);
    }
    fs::path c = dir / "sys/class/infiniband/mlx5_0/ports/1/counters";
    put(c / "port_rcv_data", ib_words);
    put(c / "port_xmit_data", 3 * ib_words);
    put(c / "port_rcv_errors", 5);
    put(c / "port_xmit_discards", 6);
  }
  SysReader reader() const { return SysReader(dir.path()); }
};

TEST(NetCounters, ReadEveryInterfaceButLoAndEveryInfinibandPortInBytes) {
  Sysfs f;
  f.set(1000, 2000, 250);
  auto eth = read_ethernet_counters(f.reader());
  ASSERT_TRUE(eth);
  ASSERT_EQ(eth->size(), 1u);  // not lo, not bond0 (no statistics)
  EXPECT_EQ((*eth)[0].device, "eth0");
  EXPECT_EQ((*eth)[0].rx_bytes, 1000u);
  EXPECT_EQ((*eth)[0].tx_errors, 2u);
  auto ib = read_infiniband_counters(f.reader());
  ASSERT_EQ(ib.size(), 1u);
  EXPECT_EQ(ib[0].device, "mlx5_0/1");
  EXPECT_EQ(ib[0].kind, kLinkInfiniband);
  EXPECT_EQ(ib[0].rx_bytes, 1000u);  // 250 words
  EXPECT_EQ(ib[0].tx_bytes, 3000u);
  EXPECT_EQ(ib[0].rx_errors, 5u);
  EXPECT_EQ(ib[0].tx_errors, 6u);
  test::TempDir empty;
  EXPECT_FALSE(read_ethernet_counters(SysReader(empty.path())));
  EXPECT_TRUE(read_infiniband_counters(SysReader(empty.path())).empty());
}

TEST(NetCounters, AWindowGivesEachDevicesRatesFromTheCountersBeforeAndAfter) {
  Sysfs f;
  f.set(1000, 2000, 250);
  double now = 50;
  LinkRateWindow w(f.reader(), [&now] { return now; });
  EXPECT_FALSE(w.rates());  // nothing read yet
  w.begin();
  f.set(1000 + 4'000'000, 2000 + 1'000'000, 250 + 25'000'000);
  now = 52;
  w.end();
  auto rates = w.rates();
  ASSERT_TRUE(rates);
  ASSERT_EQ(rates->size(), 2u);
  EXPECT_EQ((*rates)[0].device, "eth0");
  EXPECT_DOUBLE_EQ((*rates)[0].rx_bytes_per_second, 2e6);
  EXPECT_DOUBLE_EQ((*rates)[0].tx_bytes_per_second, 5e5);
  EXPECT_EQ((*rates)[1].device, "mlx5_0/1");
  EXPECT_DOUBLE_EQ((*rates)[1].rx_bytes_per_second, 5e7);  // 25e6 words x 4 bytes over 2 s
  EXPECT_DOUBLE_EQ((*rates)[1].tx_bytes_per_second, 1.5e8);
  Json j = link_rates_json(*rates);
  EXPECT_EQ(j["mlx5_0/1"],
            (Json{{"kind", "infiniband"}, {"rx_bytes_per_second", 5e7}, {"tx_bytes_per_second", 1.5e8}}));
  EXPECT_EQ(j.size(), 2u);

  w.begin();  // a loop shorter than the minimum window gives no rates
  now += kMinLinkRateWindowSeconds / 2;
  w.end();
  EXPECT_FALSE(w.rates());
}

TEST(NetCounters, IdleAndResetDevicesAreLeftOut) {
  std::vector<LinkCounters> before{{"eth0", kLinkEthernet, 100, 100, 0, 0},
                                   {"eth1", kLinkEthernet, 100, 100, 0, 0},
                                   {"eth2", kLinkEthernet, 900, 100, 0, 0}};
  std::vector<LinkCounters> after{{"eth0", kLinkEthernet, 100, 100, 0, 0},  // idle
                                  {"eth1", kLinkEthernet, 100, 300, 0, 0},
                                  {"eth2", kLinkEthernet, 10, 500, 0, 0},    // reset
                                  {"eth3", kLinkEthernet, 500, 500, 0, 0}};  // new
  auto r = link_rates(before, after, 2);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].device, "eth1");
  EXPECT_DOUBLE_EQ(r[0].rx_bytes_per_second, 0);
  EXPECT_DOUBLE_EQ(r[0].tx_bytes_per_second, 100);
  EXPECT_TRUE(link_rates(before, after, 0).empty());
}

TEST(NetCounters, RankZeroCountsTheWorldsNodes) {
  auto hello = [](int rank, const char* node, const char* bus) {
    return Json{{"rank", rank}, {"node", node}, {"bus_id", bus}, {"free_bytes", 80}};
  };
  EXPECT_EQ(net::decide_world({hello(0, "a", "0000:1b:00.0"), hello(1, "a", "0000:1c:00.0")})["nodes"], 1);
  EXPECT_EQ(net::decide_world({hello(0, "a", "0000:1b:00.0"), hello(1, "a", "0000:1c:00.0"),
                               hello(2, "b", "0000:1b:00.0")})["nodes"],
            2);
}

}  // namespace
}  // namespace mlbench
