#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <fstream>
#include <regex>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "base/error.hpp"
#include "monitor/exporter.hpp"
#include "monitor/http.hpp"
#include "reports/inputs.hpp"
#include "tests/common/files.hpp"
#include "tests/common/sanitizers.hpp"
#include "tests/storage/storage_test_util.hpp"

namespace mlbench::monitor {
namespace {

namespace fs = std::filesystem;

void put(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text << "\n";
}

std::string diskstats(std::uint64_t sectors_read, std::uint64_t reads, std::uint64_t io_ms) {
  return fmt::format(
      "   7       0 loop0 10 0 80 1 0 0 0 0 0 1 1 0 0 0 0\n"
      " 259       0 nvme0n1 {} 0 {} 5 20 0 160 3 0 {} 8 0 0 0 0\n"
      " 259       1 nvme0n1p1 {} 0 {} 5 20 0 160 3 0 {} 8 0 0 0 0",
      reads, sectors_read, io_ms, reads, sectors_read, io_ms);
}

// A fixture machine: one NVMe drive with a partition and a loop device, eth0 and lo, one InfiniBand port,
// /proc/stat and /proc/meminfo.
struct Machine {
  test::TempDir dir{"mlbench-monitor"};
  Machine() {
    put(dir / "proc/diskstats", diskstats(0, 0, 0));
    fs::create_directories(dir / "sys/block/nvme0n1");
    fs::create_directories(dir / "sys/block/loop0");
    for (const char* nic : {"eth0", "lo"}) {
      for (const char* c : {"rx_bytes", "tx_bytes", "rx_errors", "tx_errors"})
        put(dir / "sys/class/net" / nic / "statistics" / c, "0");
    }
    set_ib(0, 0);
    put(dir / "proc/stat", "cpu  100 0 100 700 100 0 0 0 0 0\ncpu0 100 0 100 700 100 0 0 0 0 0");
    put(dir / "proc/meminfo", "MemTotal:       1000 kB\nMemFree:         100 kB\nMemAvailable:    400 kB");
  }
  void set_eth(std::uint64_t rx, std::uint64_t tx) {
    put(dir / "sys/class/net/eth0/statistics/rx_bytes", std::to_string(rx));
    put(dir / "sys/class/net/eth0/statistics/tx_bytes", std::to_string(tx));
  }
  void set_ib(std::uint64_t words, std::uint64_t errors) {
    fs::path c = dir / "sys/class/infiniband/mlx5_0/ports/1/counters";
    put(c / "port_rcv_data", std::to_string(words));
    put(c / "port_xmit_data", std::to_string(2 * words));
    put(c / "port_rcv_errors", std::to_string(errors));
    put(c / "port_xmit_discards", "0");
  }
  SysReader reader() const { return SysReader(dir.path()); }
};

std::vector<std::unique_ptr<Source>> host_sources(const Machine& m) {
  std::vector<std::unique_ptr<Source>> s;
  s.push_back(make_disk_source(m.reader()));
  s.push_back(make_net_source(m.reader()));
  s.push_back(make_infiniband_source(m.reader()));
  s.push_back(make_cpu_memory_source(m.reader(), 100));
  return s;
}

bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos || text.starts_with(line + "\n");
}

TEST(MonitorSources, ReadWholeDisksLinksCpuAndMemory) {
  Machine m;
  Snapshot s;
  for (auto& src : host_sources(m)) src->sample(s);
  ASSERT_EQ(s.disks.size(), 1u);  // the partition and the loop device are left out
  EXPECT_EQ(s.disks[0].device, "nvme0n1");
  ASSERT_EQ(s.links.size(), 2u);  // eth0 and the InfiniBand port, not lo
  EXPECT_EQ(s.links[0].device, "eth0");
  EXPECT_EQ(s.links[1].device, "mlx5_0/1");
  EXPECT_EQ(s.links[1].kind, "infiniband");
  ASSERT_TRUE(s.cpu && s.memory);
  EXPECT_DOUBLE_EQ(s.cpu->busy_seconds, 2.0);  // user + system = 200 ticks at 100 Hz
  EXPECT_DOUBLE_EQ(s.cpu->idle_seconds, 7.0);
  EXPECT_DOUBLE_EQ(s.cpu->iowait_seconds, 1.0);
  EXPECT_DOUBLE_EQ(s.memory->available_bytes, 400.0 * 1024);
}

TEST(MonitorExposition, CountersAndRatiosFromTwoSamples) {
  Machine m;
  Ceilings c;
  c.storage_read_bytes_per_second["nvme0n1"] = 1e6;
  std::vector<std::string> logs;
  Monitor mon(host_sources(m), c, [&logs](const std::string& l) { logs.push_back(l); });
  mon.sample(100);
  put(m.dir / "proc/diskstats", diskstats(9766, 250, 1500));  // 9766 sectors = 5000192 bytes in 10 s
  m.set_ib(1000, 3);
  mon.sample(110);
  std::string text = mon.exposition();
  EXPECT_TRUE(has_line(text, "mlbench_storage_read_bytes_total{device=\"nvme0n1\"} 5000192")) << text;
  EXPECT_TRUE(has_line(text, "mlbench_storage_reads_total{device=\"nvme0n1\"} 250")) << text;
  EXPECT_TRUE(has_line(text, "mlbench_storage_busy_seconds_total{device=\"nvme0n1\"} 1.5")) << text;
  EXPECT_TRUE(
      has_line(text, "mlbench_network_receive_bytes_total{device=\"mlx5_0/1\",kind=\"infiniband\"} 4000"))
      << text;
  EXPECT_TRUE(
      has_line(text, "mlbench_network_receive_errors_total{device=\"mlx5_0/1\",kind=\"infiniband\"} 3"));
  // 500019.2 B/s over a measured 1 MB/s ceiling; storage is not saturated (< 0.8), so no bottleneck.
  EXPECT_TRUE(
      has_line(text, "mlbench_utilisation_ratio{resource=\"storage_read\",device=\"nvme0n1\"} 0.5000192"))
      << text;
  EXPECT_TRUE(has_line(text, "mlbench_bottleneck{resource=\"storage\"} 0")) << text;
  EXPECT_NE(text.find("# TYPE mlbench_storage_read_bytes_total counter\n"), std::string::npos);
  EXPECT_TRUE(logs.empty());
}

TEST(MonitorExposition, SaturatedStorageWithIdleGpusIsTheBottleneck) {
  Machine m;
  put(m.dir / "proc/driver/nvidia/gpus/0000:01:00.0/information", "Model: H100\nGPU UUID:  GPU-aaaa");
  Ceilings c;
  c.storage_read_bytes_per_second["nvme0n1"] = 5e5;
  auto sources = host_sources(m);
  sources.push_back(make_gpu_source(m.reader(), [] {
    return GpuReader([](const std::string&) {
      return std::optional<GpuSample>(GpuSample{{1e9, 2e9, 80, 40, 0x1}, 0.02, 0, 0});
    });
  }));
  Monitor mon(std::move(sources), c, [](const std::string&) {});
  mon.sample(100);
  put(m.dir / "proc/diskstats", diskstats(9766, 250, 1500));
  mon.sample(110);
  std::string text = mon.exposition();
  EXPECT_TRUE(has_line(text, "mlbench_bottleneck{resource=\"storage\"} 1")) << text;
  EXPECT_TRUE(has_line(text, "mlbench_gpu_info{device=\"gpu0\",uuid=\"GPU-aaaa\"} 1")) << text;
}

// The same saturated drive with no GPU read (a node without GPUs, or NVML missing): nothing shows the GPUs
// idling, so the storage is not named the bottleneck.
TEST(MonitorExposition, NoGpuReadingNamesNoBottleneck) {
  Machine m;
  Ceilings c;
  c.storage_read_bytes_per_second["nvme0n1"] = 5e5;
  Monitor mon(host_sources(m), c, [](const std::string&) {});
  mon.sample(100);
  put(m.dir / "proc/diskstats", diskstats(9766, 250, 1500));
  mon.sample(110);
  std::string text = mon.exposition();
  EXPECT_TRUE(has_line(text, "mlbench_bottleneck{resource=\"storage\"} 0")) << text;
}

// One GPU whose utilisation the test sets; no power ceiling, so only utilisation tells whether it idles.
std::unique_ptr<Source> gpu_with_utilisation(const Machine& m, const double& utilisation) {
  put(m.dir / "proc/driver/nvidia/gpus/0000:01:00.0/information", "GPU UUID: GPU-aaaa");
  return make_gpu_source(m.reader(), [&utilisation] {
    return GpuReader([&utilisation](const std::string&) {
      return std::optional<GpuSample>(GpuSample{{1e9, 2e9, 80, 40, 0}, utilisation, 0, 0});
    });
  });
}

TEST(MonitorExposition, NetworkAndIopsRatiosAndTheNetworkBottleneck) {
  Machine m;
  Ceilings c;
  c.network_rx_bytes_per_second["mlx5_0/1"] = 400;
  c.network_tx_bytes_per_second["mlx5_0/1"] = 400;
  c.network_rx_bytes_per_second["eth1"] = 100;  // not on this node: no series
  c.storage_read_iops["nvme0n1"] = 50;
  c.storage_write_iops["nvme0n1"] = 10;
  double utilisation = 0.02;
  auto sources = host_sources(m);
  sources.push_back(gpu_with_utilisation(m, utilisation));
  Monitor mon(std::move(sources), c, [](const std::string&) {});
  mon.sample(100);
  m.set_ib(1000, 0);  // 4000 bytes received, 8000 sent in 10 s
  m.set_eth(5000, 5000);
  put(m.dir / "proc/diskstats", diskstats(9766, 250, 1500));  // 250 reads, no new write
  mon.sample(110);
  std::string text = mon.exposition();
  EXPECT_TRUE(has_line(text, "mlbench_utilisation_ratio{resource=\"network_rx\",device=\"mlx5_0/1\"} 1"))
      << text;
  EXPECT_TRUE(has_line(text, "mlbench_utilisation_ratio{resource=\"network_tx\",device=\"mlx5_0/1\"} 2"))
      << text;
  EXPECT_EQ(text.find("device=\"eth0\"}"), std::string::npos) << text;  // eth0 has no ceiling
  EXPECT_EQ(text.find("device=\"eth1\""), std::string::npos) << text;
  EXPECT_TRUE(
      has_line(text, "mlbench_utilisation_ratio{resource=\"storage_read_iops\",device=\"nvme0n1\"} 0.5"))
      << text;
  EXPECT_TRUE(
      has_line(text, "mlbench_utilisation_ratio{resource=\"storage_write_iops\",device=\"nvme0n1\"} 0"))
      << text;
  // The port is saturated while the GPU idles: network-bound. Storage at half its IOPS is not.
  EXPECT_TRUE(has_line(text, "mlbench_bottleneck{resource=\"network\"} 1")) << text;
  EXPECT_TRUE(has_line(text, "mlbench_bottleneck{resource=\"storage\"} 0")) << text;

  utilisation = 0.9;  // the same traffic with a busy GPU: the network keeps up
  m.set_ib(2000, 0);
  mon.sample(120);
  text = mon.exposition();
  EXPECT_TRUE(has_line(text, "mlbench_utilisation_ratio{resource=\"network_rx\",device=\"mlx5_0/1\"} 1"))
      << text;
  EXPECT_TRUE(has_line(text, "mlbench_bottleneck{resource=\"network\"} 0")) << text;

  utilisation = 0.02;  // idle again, and the port quiet: not network-bound
  mon.sample(130);
  text = mon.exposition();
  EXPECT_TRUE(has_line(text, "mlbench_utilisation_ratio{resource=\"network_rx\",device=\"mlx5_0/1\"} 0"))
      << text;
  EXPECT_TRUE(has_line(text, "mlbench_bottleneck{resource=\"network\"} 0")) << text;
}

TEST(MonitorExposition, WithoutANicCeilingThereIsNoNetworkRatioOrBottleneck) {
  Machine m;
  Ceilings c;
  c.storage_read_bytes_per_second["nvme0n1"] = 1e6;
  double utilisation = 0.02;
  auto sources = host_sources(m);
  sources.push_back(gpu_with_utilisation(m, utilisation));
  Monitor mon(std::move(sources), c, [](const std::string&) {});
  mon.sample(100);
  m.set_ib(1'000'000, 0);
  mon.sample(110);
  std::string text = mon.exposition();
  EXPECT_EQ(text.find("resource=\"network"), std::string::npos) << text;
  EXPECT_TRUE(has_line(text, "mlbench_bottleneck{resource=\"storage\"} 0")) << text;
  EXPECT_NE(text.find("mlbench_network_receive_bytes_total{device=\"mlx5_0/1\""), std::string::npos);
}

TEST(MonitorExposition, ClockEventSecondsAccumulateAndAVanishedGpuIsCountedOnce) {
  Machine m;
  fs::path info = m.dir / "proc/driver/nvidia/gpus/0000:01:00.0/information";
  put(info, "GPU UUID: GPU-aaaa");
  std::uint64_t reasons = 0x4;  // sw_power_cap
  bool answers = true;
  std::vector<std::string> logs;
  std::vector<std::unique_ptr<Source>> sources;
  sources.push_back(make_gpu_source(m.reader(), [&] {
    return GpuReader([&](const std::string&) -> std::optional<GpuSample> {
      if (!answers) return std::nullopt;
      return GpuSample{{1.98e9, 2.6e9, 700, 81, reasons}, 0.97, 12, 0};
    });
  }));
  Monitor mon(std::move(sources), std::nullopt, [&logs](const std::string& l) { logs.push_back(l); });
  mon.sample(10);
  mon.sample(15);
  reasons = 0x4 | 0x20;
  mon.sample(20);
  std::string text = mon.exposition();
  EXPECT_TRUE(
      has_line(text, "mlbench_gpu_clock_event_seconds_total{device=\"gpu0\",reason=\"sw_power_cap\"} 10"))
      << text;
  EXPECT_TRUE(has_line(
      text, "mlbench_gpu_clock_event_seconds_total{device=\"gpu0\",reason=\"sw_thermal_slowdown\"} 5"));
  EXPECT_TRUE(has_line(text, "mlbench_gpu_power_watts{device=\"gpu0\"} 700"));
  EXPECT_TRUE(has_line(text, "mlbench_gpu_utilisation_ratio{device=\"gpu0\"} 0.96999999999999997")) << text;
  EXPECT_TRUE(has_line(text, "mlbench_gpu_ecc_errors_total{device=\"gpu0\",type=\"corrected\"} 12"));
  EXPECT_TRUE(has_line(text, "mlbench_bottleneck{resource=\"gpu_power\"} 1"));
  answers = false;  // the GPU falls off the bus
  mon.sample(25);
  mon.sample(30);
  text = mon.exposition();
  EXPECT_EQ(text.find("mlbench_gpu_"), std::string::npos) << text;
  EXPECT_TRUE(has_line(text, "mlbench_monitor_errors_total{source=\"nvml\"} 1")) << text;
  ASSERT_EQ(logs.size(), 1u);
  EXPECT_NE(logs[0].find("gpu0 vanished"), std::string::npos) << logs[0];
}

TEST(MonitorExposition, AFailingSourceIsCountedLoggedOnceAndRecovers) {
  Machine m;
  std::vector<std::string> logs;
  std::vector<std::unique_ptr<Source>> sources;
  sources.push_back(make_disk_source(m.reader()));
  put(m.dir / "proc/driver/nvidia/gpus/0000:01:00.0/information", "GPU UUID: GPU-aaaa");
  sources.push_back(
      make_gpu_source(m.reader(), []() -> GpuReader { throw Error("NVML not available: test"); }));
  Monitor mon(std::move(sources), std::nullopt, [&logs](const std::string& l) { logs.push_back(l); });
  fs::rename(m.dir / "proc/diskstats", m.dir / "proc/diskstats.away");
  mon.sample(1);
  mon.sample(2);
  std::string text = mon.exposition();
  EXPECT_TRUE(has_line(text, "mlbench_monitor_errors_total{source=\"diskstats\"} 2")) << text;
  EXPECT_TRUE(has_line(text, "mlbench_monitor_errors_total{source=\"nvml\"} 2")) << text;
  EXPECT_EQ(text.find("mlbench_storage_"), std::string::npos);
  EXPECT_EQ(logs.size(), 2u);  // one line per failing source, not one per sample
  fs::rename(m.dir / "proc/diskstats.away", m.dir / "proc/diskstats");
  mon.sample(3);
  EXPECT_NE(mon.exposition().find("mlbench_storage_reads_total{device=\"nvme0n1\"}"), std::string::npos);
  EXPECT_EQ(logs.back(), "source diskstats is back");
}

TEST(MonitorXid, KernelLogLinesCountPerGpuAndXid) {
  auto e =
      parse_xid_line("4,1234,567890,-;NVRM: Xid (PCI:0000:C1:00): 79, pid=0, GPU has fallen off the bus.");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->pci, "0000:c1:00");
  EXPECT_EQ(e->xid, 79);
  EXPECT_FALSE(parse_xid_line("NVRM: loading NVIDIA UNIX x86_64 Kernel Module"));
  Machine m;
  put(m.dir / "proc/driver/nvidia/gpus/0000:01:00.0/information", "GPU UUID: GPU-aaaa");
  put(m.dir / "proc/driver/nvidia/gpus/0000:c1:00.0/information", "GPU UUID: GPU-bbbb");
  put(m.dir / "dev/kmsg",
      "4,1,10,-;NVRM: Xid (PCI:0000:c1:00): 79, pid=0, GPU has fallen off the bus.\n"
      "4,2,11,-;NVRM: Xid (PCI:0000:01:00): 13, pid=42, Graphics Exception\n"
      "4,3,12,-;NVRM: Xid (PCI:0000:01:00): 13, pid=42, Graphics Exception");
  std::vector<std::unique_ptr<Source>> sources;
  sources.push_back(make_xid_source(m.reader()));
  Monitor mon(std::move(sources), std::nullopt, [](const std::string&) {});
  mon.sample(1);
  std::string text = mon.exposition();
  EXPECT_TRUE(has_line(text, "mlbench_gpu_xid_errors_total{device=\"gpu0\",xid=\"13\"} 2")) << text;
  EXPECT_TRUE(has_line(text, "mlbench_gpu_xid_errors_total{device=\"gpu1\",xid=\"79\"} 1")) << text;
  std::ofstream(m.dir / "dev/kmsg", std::ios::app) << "4,4,13,-;NVRM: Xid (PCI:0000:01:00): 13, pid=42, x\n";
  mon.sample(2);  // only the new record is read
  EXPECT_TRUE(has_line(mon.exposition(), "mlbench_gpu_xid_errors_total{device=\"gpu0\",xid=\"13\"} 3"));
}

TEST(MonitorBaseline, CeilingsComeFromTheReportsMeasurements) {
  auto reports = load_reports({std::string(MLBENCH_TEST_DATA_DIR) + "/reports/run_a.json"});
  Ceilings c = ceilings_from_report(reports[0].report);
  ASSERT_EQ(c.storage_read_bytes_per_second.count("nvme0n1"), 1u);
  EXPECT_NEAR(c.storage_read_bytes_per_second["nvme0n1"], 7271923725.335213, 1);  // the 1 MiB sequential read
  EXPECT_NEAR(c.storage_write_bytes_per_second["nvme0n1"], 1687196049.5975678, 1);
}

Metric metric(const char* name, double value) {
  Metric m;
  m.name = name;
  m.value = value;
  return m;
}

Result storage_io(const char* rw, Json target, std::vector<Metric> metrics) {
  Result r;
  r.probe = "storage.io";
  r.params = Json{{"rw", rw}, {"bs", 4096}, {"target", std::move(target)}};
  r.metrics = std::move(metrics);
  return r;
}

Result nccl(std::uint64_t bytes, Json nic_rates, Status status = Status::ok) {
  Result r;
  r.probe = "net.nccl";
  r.params = Json{{"collective", "all_reduce"}, {"bytes", bytes}};
  r.status = status;
  r.add_metric("busbw", 1e9, "B/s");
  r.info["nic_rates"] = std::move(nic_rates);
  return r;
}

Json rates(double rx, double tx) {
  return Json{{"kind", "infiniband"}, {"rx_bytes_per_second", rx}, {"tx_bytes_per_second", tx}};
}

TEST(MonitorBaseline, NicAndIopsCeilingsAreTheMaximaOverTheResults) {
  Report report;
  report.results.push_back(nccl(1 << 20, Json{{"mlx5_0/1", rates(1e9, 2e9)}}));
  report.results.push_back(nccl(1 << 30, Json{{"mlx5_0/1", rates(4e10, 3e10)}, {"eth0", rates(5e6, 6e6)}}));
  report.results.push_back(nccl(1 << 29, Json{{"mlx5_0/1", rates(2e10, 3.5e10)}}));
  report.results.push_back(nccl(1 << 28, Json{{"mlx5_0/1", rates(9e10, 9e10)}}, Status::failed));  // not ok
  report.results.push_back(storage_io("randread", Json::array({"/dev/nvme0n1"}),
                                      {metric("iops", 9e5), metric("bandwidth", 3.6e9)}));
  report.results.push_back(storage_io("randread", "/dev/nvme0n1", {metric("iops", 1e6)}));
  report.results.push_back(storage_io("randwrite", "/dev/nvme0n1", {metric("iops", 4e5)}));
  report.results.push_back(storage_io(
      "randrw", "/dev/nvme1n1", {metric("iops", 9e5), metric("read_iops", 6e5), metric("write_iops", 3e5)}));
  // Two targets share the job's IOPS: no ceiling for either.
  report.results.push_back(
      storage_io("randread", Json::array({"/dev/nvme2n1", "/dev/nvme3n1"}), {metric("iops", 2e6)}));
  Ceilings c = ceilings_from_report(report);
  // eth0 carried 11 MB/s of background beside mlx5_0/1's 70 GB/s (under kNicCarrierShare): no ceiling.
  EXPECT_EQ(c.network_rx_bytes_per_second, (std::map<std::string, double>{{"mlx5_0/1", 4e10}}));
  EXPECT_EQ(c.network_tx_bytes_per_second, (std::map<std::string, double>{{"mlx5_0/1", 3.5e10}}));
  // Two ports that share the collective's traffic are both ceilings.
  Report two;
  two.results.push_back(
      nccl(1 << 30, Json{{"mlx5_0/1", rates(2e10, 2e10)}, {"mlx5_1/1", rates(1.9e10, 2e10)}}));
  EXPECT_EQ(ceilings_from_report(two).network_rx_bytes_per_second.size(), 2u);
  EXPECT_EQ(c.storage_read_iops, (std::map<std::string, double>{{"nvme0n1", 1e6}, {"nvme1n1", 6e5}}));
  EXPECT_EQ(c.storage_write_iops, (std::map<std::string, double>{{"nvme0n1", 4e5}, {"nvme1n1", 3e5}}));
  EXPECT_EQ(c.storage_read_bytes_per_second, (std::map<std::string, double>{{"nvme0n1", 3.6e9}}));
  // The shipped report has no NIC rates (no cross-node run): no network ceiling, IOPS from its storage.io.
  auto shipped = load_reports({std::string(MLBENCH_TEST_DATA_DIR) + "/reports/run_a.json"});
  Ceilings a = ceilings_from_report(shipped[0].report);
  EXPECT_TRUE(a.network_rx_bytes_per_second.empty());
  EXPECT_NEAR(a.storage_read_iops["nvme0n1"], 1051681.3774560743, 1e-6);
  EXPECT_NEAR(a.storage_write_iops["nvme0n1"], 411913.0980462812, 1e-6);
  // Both together (`--baseline run.json nccl.json`): each ceiling the maximum over both reports.
  shipped.push_back({"nccl.json", report});
  Ceilings both = ceilings_from_reports(shipped);
  EXPECT_EQ(both.network_rx_bytes_per_second, c.network_rx_bytes_per_second);
  EXPECT_EQ(both.storage_read_iops,
            (std::map<std::string, double>{{"nvme0n1", 1051681.3774560743}, {"nvme1n1", 6e5}}));
  EXPECT_EQ(both.storage_read_bytes_per_second.at("nvme0n1"), a.storage_read_bytes_per_second.at("nvme0n1"));
}

TEST(MonitorHttp, AnswersMetricsOnlyAndParsesListen) {
  auto body = std::make_shared<const std::string>("a 1\n");
  std::string ok = http_response("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", body).text();
  EXPECT_TRUE(ok.starts_with("HTTP/1.1 200 OK\r\n")) << ok;
  EXPECT_NE(ok.find("Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"), std::string::npos);
  EXPECT_NE(ok.find("Content-Length: 4\r\n"), std::string::npos);
  EXPECT_TRUE(ok.ends_with("\r\n\r\na 1\n"));
  std::string head = http_response("HEAD /metrics HTTP/1.1\r\n\r\n", body).text();
  EXPECT_NE(head.find("Content-Length: 4\r\n"), std::string::npos);
  EXPECT_TRUE(head.ends_with("\r\n\r\n")) << head;
  EXPECT_TRUE(http_response("GET / HTTP/1.1\r\n\r\n", body).text().starts_with("HTTP/1.1 404 "));
  EXPECT_TRUE(http_response("POST /metrics HTTP/1.1\r\n\r\n", body).text().starts_with("HTTP/1.1 405 "));
  EXPECT_TRUE(http_response("garbage\r\n\r\n", body).text().starts_with("HTTP/1.1 400 "));
  EXPECT_EQ(parse_listen("127.0.0.1:9401").port, 9401);
  EXPECT_EQ(parse_listen("0.0.0.0:80").host, "0.0.0.0");
  EXPECT_THROW(parse_listen(":9401"), UsageError);
  EXPECT_THROW(parse_listen("localhost:9401"), UsageError);
  EXPECT_THROW(parse_listen("127.0.0.1:70000"), UsageError);
}

int run_shell(const std::string& cmd) {
  int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}
bool have_tool(const std::string& name) { return run_shell("command -v " + name + " > /dev/null 2>&1") == 0; }

TEST(MonitorExposition, PassesPromtool) {
  if (!have_tool("promtool")) GTEST_SKIP() << "promtool not installed (Debian package 'prometheus')";
  Machine m;
  put(m.dir / "proc/driver/nvidia/gpus/0000:01:00.0/information", "GPU UUID: GPU-aaaa");
  Ceilings c;
  c.storage_read_bytes_per_second["nvme0n1"] = 1e6;
  c.storage_write_bytes_per_second["nvme0n1"] = 1e6;
  c.storage_read_iops["nvme0n1"] = 100;
  c.storage_write_iops["nvme0n1"] = 100;
  c.network_rx_bytes_per_second["mlx5_0/1"] = 1e3;
  c.network_tx_bytes_per_second["mlx5_0/1"] = 1e3;
  c.gpu_power_watts["gpu0"] = 700;
  auto sources = host_sources(m);
  sources.push_back(make_gpu_source(m.reader(), [] {
    return GpuReader([](const std::string&) {
      return std::optional<GpuSample>(GpuSample{{1e9, 2e9, 300, 60, 0x4 | 0x8}, 0.5, 3, 1});
    });
  }));
  put(m.dir / "dev/kmsg", "4,1,10,-;NVRM: Xid (PCI:0000:01:00): 79, pid=0, GPU has fallen off the bus.");
  sources.push_back(make_xid_source(m.reader()));
  Monitor mon(std::move(sources), c, [](const std::string&) {});
  mon.sample(1);
  put(m.dir / "proc/diskstats", diskstats(9766, 250, 1500));
  m.set_ib(1000, 0);
  mon.sample(2);
  test::TempDir out;
  std::ofstream(out / "m.prom") << mon.exposition();
  std::string cmd = fmt::format("promtool check metrics < '{}' > '{}' 2>&1", (out / "m.prom").string(),
                                (out / "log").string());
  EXPECT_EQ(run_shell(cmd), 0) << test::slurp(out / "log") << mon.exposition();
  EXPECT_EQ(test::slurp(out / "log"), "");  // no lint warnings either
  // The live dashboard queries only families this exposition has, and only resources it has series of.
  auto dashboard =
      nlohmann::json::parse(test::slurp(fs::path(MLBENCH_SOURCE_DIR) / "configs/grafana/mlbench-live.json"));
  std::string text = mon.exposition();
  std::size_t queried = 0;
  std::set<std::string> resources;  // the alternatives the panels select
  for (const auto& panel : dashboard.at("panels")) {
    for (const auto& target : panel.at("targets")) {
      std::string expr = target.at("expr").get<std::string>();
      std::regex name(R"(mlbench_[a-z0-9_]+)");
      for (std::sregex_iterator it(expr.begin(), expr.end(), name), end; it != end; ++it, ++queried)
        EXPECT_NE(text.find("# TYPE " + it->str() + " "), std::string::npos) << it->str() << " in " << expr;
      // resource="x" or resource=~"x|y_.*": each alternative matches a series here.
      std::smatch selected;
      if (std::regex_search(expr, selected, std::regex(R"re(resource=~?"([^"]+)")re"))) {
        std::string alternatives = selected[1].str();
        std::regex bar(R"(\|)");
        for (std::sregex_token_iterator it(alternatives.begin(), alternatives.end(), bar, -1), end; it != end;
             ++it) {
          std::regex series("\\{resource=\"(" + it->str() + ")\"");
          EXPECT_TRUE(std::regex_search(text, series)) << *it << " in " << expr;
          resources.insert(it->str());
        }
      }
    }
  }
  EXPECT_GE(queried, 17u);
  // The network and IOPS ratios have panels of their own beside the storage bandwidth ratio.
  for (const char* r : {"storage_read", "storage_read_iops", "network_rx", "network_tx", "gpu_power"})
    EXPECT_TRUE(std::any_of(resources.begin(), resources.end(),
                            [r](const std::string& alt) { return std::regex_match(r, std::regex(alt)); }))
        << r << " is on no panel";
}

int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa), 0);
  socklen_t len = sizeof sa;
  getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len);
  close(fd);
  return ntohs(sa.sin_port);
}

pid_t spawn(const std::vector<std::string>& argv, const fs::path& log) {
  pid_t pid = fork();
  if (pid == 0) {
    FILE* f = std::freopen(log.c_str(), "w", stderr);
    if (!f || !std::freopen(log.c_str(), "a", stdout)) _exit(127);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  return pid;
}

int stop(pid_t pid) {
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(MonitorEndToEnd, TextfileIsWrittenAtomicallyAndSigtermStopsCleanly) {
  test::TempDir dir{"mlbench-textfile"};
  fs::path file = dir / "mlbench.prom";
  pid_t exporter =
      spawn({MLBENCH_EXE, "monitor", "--interval", "200ms", "--textfile", file.string()}, dir / "log");
  std::string text;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline &&
         text.find("mlbench_monitor_info") == std::string::npos) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    text = test::slurp(file);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // a few rewrites
  EXPECT_EQ(stop(exporter), 0) << test::slurp(dir / "log");
  EXPECT_NE(text.find("# TYPE mlbench_monitor_errors_total counter\n"), std::string::npos) << text;
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir.path())) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"log", "mlbench.prom"}));  // no temporary file left behind
}

TEST(MonitorEndToEnd, SeveralBaselinesGiveTheStorageAndNetworkBottlenecks) {
  test::TempDir dir{"mlbench-baselines"};
  const std::string run = std::string(MLBENCH_TEST_DATA_DIR) + "/reports/run_a.json";
  Report nccl_report = load_reports({run})[0].report;
  nccl_report.results = {nccl(1 << 30, Json{{"mlx5_0/1", rates(4e10, 3e10)}})};
  write_report(dir / "nccl.json", nccl_report);
  fs::path file = dir / "mlbench.prom";
  pid_t exporter = spawn({MLBENCH_EXE, "monitor", "--interval", "200ms", "--textfile", file.string(),
                          "--baseline", run, (dir / "nccl.json").string()},
                         dir / "log");
  std::string text;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline &&
         text.find("mlbench_bottleneck{resource=\"network\"}") == std::string::npos) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    text = test::slurp(file);
  }
  EXPECT_EQ(stop(exporter), 0) << test::slurp(dir / "log");
  EXPECT_NE(text.find("mlbench_bottleneck{resource=\"network\"} "), std::string::npos) << text;
  EXPECT_NE(text.find("mlbench_bottleneck{resource=\"storage\"} "), std::string::npos) << text;
}

// A baseline that measured none of the ceilings the ratios divide by (no raw-device storage.io, no NIC
// rates, no GPU power) is said on stderr at the start, not left for the operator to find as missing series;
// the exporter runs on, and what it writes passes promtool.
TEST(MonitorEndToEnd, ABaselineWithNoCeilingSaysSo) {
  test::TempDir dir{"mlbench-noceiling"};
  const std::string cpu_only = std::string(MLBENCH_TEST_DATA_DIR) + "/reports/cpu_only.json";
  EXPECT_TRUE(ceilings_from_reports(load_reports({cpu_only})).empty());
  fs::path file = dir / "mlbench.prom";
  pid_t exporter = spawn(
      {MLBENCH_EXE, "monitor", "--interval", "200ms", "--textfile", file.string(), "--baseline", cpu_only},
      dir / "log");
  std::string text;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline &&
         text.find("mlbench_monitor_info") == std::string::npos) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    text = test::slurp(file);
  }
  EXPECT_EQ(stop(exporter), 0) << test::slurp(dir / "log");
  const std::string log = test::slurp(dir / "log");
  EXPECT_NE(log.find("--baseline " + cpu_only + ": no ceiling"), std::string::npos) << log;
  EXPECT_NE(log.find("mlbench_utilisation_ratio"), std::string::npos) << log;
  EXPECT_EQ(text.find("mlbench_utilisation_ratio"), std::string::npos) << text;
  if (!have_tool("promtool")) GTEST_SKIP() << "promtool not installed (Debian package 'prometheus')";
  std::string cmd =
      fmt::format("promtool check metrics < '{}' > '{}' 2>&1", file.string(), (dir / "promtool").string());
  EXPECT_EQ(run_shell(cmd), 0) << test::slurp(dir / "promtool");
  EXPECT_EQ(test::slurp(dir / "promtool"), "");
}

TEST(MonitorEndToEnd, BadFlagsExitTwoWithOneLine) {
  test::TempDir dir{"mlbench-flags"};
  for (const char* args : {"--listen localhost:9401", "--listen :9401", "--interval 0s",
                           "--listen 127.0.0.1:0 --textfile x.prom"}) {
    std::string cmd = fmt::format("'{}' monitor {} > '{}' 2>&1", MLBENCH_EXE, args, (dir / "out").string());
    EXPECT_EQ(run_shell(cmd), 2) << args;
    std::string out = test::slurp(dir / "out");
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  }
  // A --textfile in a missing folder names --textfile, the flag given, not another command's -o.
  std::string cmd = fmt::format("'{}' monitor --textfile /nonexistent-mlbench-dir/x.prom > '{}' 2>&1",
                                MLBENCH_EXE, (dir / "out").string());
  EXPECT_EQ(run_shell(cmd), 2);
  const std::string out = test::slurp(dir / "out");
  EXPECT_NE(out.find("choose another --textfile path"), std::string::npos) << out;
  EXPECT_EQ(out.find("-o "), std::string::npos) << out;
}

TEST(MonitorEndToEnd, PrometheusScrapesTheExporterAndAnswersAQuery) {
  if (!have_tool("prometheus") || !have_tool("curl")) GTEST_SKIP() << "prometheus or curl not installed";
  test::TempDir dir{"mlbench-prom"};
  int exporter_port = free_port();
  int prom_port = free_port();
  put(dir / "prometheus.yml",
      fmt::format("global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: mlbench\n"
                  "    static_configs:\n      - targets: ['127.0.0.1:{}']",
                  exporter_port));
  pid_t exporter = spawn(
      {MLBENCH_EXE, "monitor", "--interval", "1s", "--listen", fmt::format("127.0.0.1:{}", exporter_port)},
      dir / "exporter.log");
  pid_t prom = spawn({"prometheus", "--config.file=" + (dir / "prometheus.yml").string(),
                      "--storage.tsdb.path=" + (dir / "data").string(),
                      fmt::format("--web.listen-address=127.0.0.1:{}", prom_port)},
                     dir / "prometheus.log");
  std::string answer;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    run_shell(
        fmt::format("curl -s 'http://127.0.0.1:{}/api/v1/query?query=mlbench_memory_total_bytes' > '{}'",
                    prom_port, (dir / "answer.json").string()));
    answer = test::slurp(dir / "answer.json");
    if (answer.find("\"result\":[{") != std::string::npos) break;
  }
  int prom_rc = stop(prom);
  int exporter_rc = stop(exporter);
  ASSERT_NE(answer.find("\"result\":[{"), std::string::npos)
      << answer << "\nexporter:\n"
      << test::slurp(dir / "exporter.log") << "\nprometheus:\n"
      << test::slurp(dir / "prometheus.log");
  EXPECT_NE(answer.find("\"__name__\":\"mlbench_memory_total_bytes\""), std::string::npos) << answer;
  EXPECT_NE(answer.find("\"job\":\"mlbench\""), std::string::npos) << answer;
  EXPECT_EQ(exporter_rc, 0) << test::slurp(dir / "exporter.log");  // SIGTERM stops it cleanly
  EXPECT_NE(test::slurp(dir / "exporter.log").find("stopped"), std::string::npos);
  EXPECT_EQ(prom_rc, 0);
}

// A client socket connected to the exporter on 127.0.0.1:`port`, closed by the destructor.
struct Client {
  int fd = -1;
  explicit Client(int port, int receive_buffer = 0) {
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    // A small receive buffer (set before connect, so the window stays small) makes a client that does not
    // read hold the server's send at once.
    if (receive_buffer > 0) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(static_cast<std::uint16_t>(port));
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    // At most 2 s to connect (a server that does not accept fills its backlog, and a blocking connect would
    // wait for the kernel's SYN retries): a failed connect leaves fd at -1, which the checks then see.
    int flags = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, flags | O_NONBLOCK);
    pollfd p{fd, POLLOUT, 0};
    int error = 0;
    socklen_t len = sizeof error;
    if (connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 &&
        (errno != EINPROGRESS || poll(&p, 1, 2000) != 1 ||
         getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) != 0 || error != 0)) {
      close(fd);
      fd = -1;
      return;
    }
    fcntl(fd, F_SETFL, flags);
  }
  ~Client() {
    if (fd >= 0) close(fd);
  }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;
  bool send_text(const std::string& text) const {
    return fd >= 0 && ::send(fd, text.data(), text.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(text.size());
  }
  // Everything the server sends until it closes, or until `timeout` passes.
  std::string read_all(std::chrono::milliseconds timeout) const {
    std::string text;
    auto deadline = std::chrono::steady_clock::now() + timeout;
    char buf[65536];
    for (;;) {
      auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      pollfd p{fd, POLLIN, 0};
      if (left.count() <= 0 || poll(&p, 1, static_cast<int>(left.count())) <= 0) return text;
      ssize_t n = recv(fd, buf, sizeof buf, 0);
      if (n <= 0) return text;
      text.append(buf, static_cast<std::size_t>(n));
    }
  }
  // True once the server has closed the connection (end of stream or reset), waiting at most `timeout`.
  bool closed_by_server(std::chrono::milliseconds timeout) const {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(timeout.count())) <= 0) return false;
    char c;
    return recv(fd, &c, 1, MSG_DONTWAIT) <= 0;
  }
};

constexpr const char* kScrape = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";

// The timing bounds of the server tests, generous so that a loaded machine running a sanitizer build passes,
// and each still below the delay the test guards against. kNotDelayed: a scrape beside hostile clients (a
// server that waited on them would wait for as long as they dribble, or for each idle one in turn). kPrompt:
// a stop, or a scrape beside a client the server cannot finish, which a server that waited on its clients
// would reach only at their request deadline.
constexpr std::chrono::milliseconds kNotDelayed{5000};
constexpr std::chrono::milliseconds kPrompt = kRequestDeadline - std::chrono::milliseconds(500);
constexpr double seconds_of(std::chrono::milliseconds d) { return std::chrono::duration<double>(d).count(); }

// One scrape; its response (empty when none came within `timeout`) and how long it took.
std::pair<std::string, double> scrape(int port, std::chrono::milliseconds timeout = kNotDelayed) {
  auto start = std::chrono::steady_clock::now();
  Client c(port);
  c.send_text(kScrape);
  std::string text = c.read_all(timeout);
  return {text, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
}

double samples_total(const std::string& exposition) {
  std::smatch m;
  if (!std::regex_search(exposition, m, std::regex("\nmlbench_monitor_samples_total ([0-9.e+]+)\n")))
    return -1;
  return std::stod(m[1].str());
}

// The real binary serving on 127.0.0.1 at a port the kernel picked (read from its log line), sampling every
// 100 ms; stopped with SIGTERM by the destructor when the test has not stopped it.
struct Exporter {
  test::TempDir dir{"mlbench-exporter"};
  pid_t pid = -1;
  int port = 0;
  Exporter() {
    pid = spawn({MLBENCH_EXE, "monitor", "--interval", "100ms", "--listen", "127.0.0.1:0"}, dir / "log");
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    std::smatch m;
    std::string log;
    while (std::chrono::steady_clock::now() < deadline) {
      log = test::slurp(dir / "log");
      if (std::regex_search(log, m, std::regex(R"(serving http://127\.0\.0\.1:([0-9]+)/metrics)"))) {
        port = std::stoi(m[1].str());
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  ~Exporter() {
    if (pid > 0) stop(pid);
  }
  std::string log() const { return test::slurp(dir / "log"); }
};

TEST(MonitorServer, ASlowlorisDoesNotDelayAnotherScrapeAndIsCutAtTheRequestDeadline) {
  Exporter e;
  ASSERT_GT(e.port, 0) << e.log();
  auto start = std::chrono::steady_clock::now();
  Client slow(e.port);
  ASSERT_TRUE(slow.send_text("GET /metrics HTTP/1.1\r\n"));
  // One header byte every 0.5 s on its own thread, for longer than a scrape may take: each receive gets
  // data, only the request's deadline ends it.
  const auto dribble_for = kRequestDeadline + kNotDelayed;
  std::atomic<bool> cut{false};
  std::thread dribble([&] {
    while (std::chrono::steady_clock::now() - start < dribble_for) {
      if (slow.closed_by_server(std::chrono::milliseconds(500))) {
        cut = true;
        return;
      }
      slow.send_text("X");
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  auto [text, seconds] = scrape(e.port);
  EXPECT_TRUE(text.starts_with("HTTP/1.1 200 OK\r\n")) << text << e.log();
  EXPECT_LT(seconds, seconds_of(kNotDelayed));
  dribble.join();
  double held = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(cut) << "the slow client was never cut";
  EXPECT_LT(held, seconds_of(kRequestDeadline) + 2.0);  // cut at its deadline, not when it stopped dribbling
}

TEST(MonitorServer, HundredsOfIdleConnectionsDelayNoScrapeAndSamplingGoesOn) {
  Exporter e;
  ASSERT_GT(e.port, 0) << e.log();
  std::vector<std::unique_ptr<Client>> idle;
  for (int i = 0; i < 200 && (idle.empty() || idle.back()->fd >= 0); ++i)
    idle.push_back(std::make_unique<Client>(e.port));
  EXPECT_EQ(idle.back()->fd >= 0 ? idle.size() : 0u, 200u) << "the server stopped accepting";
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  auto [first, first_s] = scrape(e.port);
  EXPECT_LT(first_s, seconds_of(kNotDelayed));
  ASSERT_TRUE(first.starts_with("HTTP/1.1 200 OK\r\n")) << first << e.log();
  // Sampling (every 100 ms) goes on while the idle clients are connected: scraped again until three more
  // samples show, each scrape undelayed.
  std::string second;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (samples_total(second) < samples_total(first) + 3 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    double second_s = 0;
    std::tie(second, second_s) = scrape(e.port);
    EXPECT_LT(second_s, seconds_of(kNotDelayed));
    ASSERT_TRUE(second.starts_with("HTTP/1.1 200 OK\r\n")) << second << e.log();
  }
  EXPECT_GE(samples_total(second), samples_total(first) + 3) << first << second;
}

TEST(MonitorServer, SigintEndsTheExporterPromptlyWhileClientsHoldConnections) {
  Exporter e;
  ASSERT_GT(e.port, 0) << e.log();
  std::vector<std::unique_ptr<Client>> idle;
  for (int i = 0; i < 50; ++i) idle.push_back(std::make_unique<Client>(e.port));
  idle.front()->send_text("GET /metrics HTTP/1.1\r\n");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto start = std::chrono::steady_clock::now();
  kill(e.pid, SIGINT);
  int status = 0;
  waitpid(e.pid, &status, 0);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  e.pid = -1;
  EXPECT_LT(seconds, seconds_of(kPrompt));
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status << e.log();
  EXPECT_NE(e.log().find("stopped"), std::string::npos) << e.log();
}

TEST(MonitorServer, AServingFaultEndsTheExporterWithOneErrorLineNotAnAbort) {
  // With no descriptor left, UBSan's vptr check cannot open the pipe it probes memory with and reports every
  // exception a source throws as an object of invalid type: the sanitizer, not the exporter, would fail.
  if (test::kSanitized)
    GTEST_SKIP() << "the sanitizers need file descriptors of their own, which this test takes away";
  Exporter e;
  ASSERT_GT(e.port, 0) << e.log();
  std::vector<std::unique_ptr<Client>> idle;
  for (int i = 0; i < 40; ++i) idle.push_back(std::make_unique<Client>(e.port));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // accepted
  // An open-file limit below the connections held makes the serving thread's poll() fail (EINVAL) while
  // the sampling thread runs: the fault must end the process with its one error line, the sampler stopped.
  // The limit leaves room for the few descriptors the exit itself may open (a sanitizer's report).
  rlimit low{16, 0};
  rlimit before{};
  ASSERT_EQ(prlimit(e.pid, RLIMIT_NOFILE, nullptr, &before), 0) << std::strerror(errno);
  low.rlim_max = before.rlim_max;
  ASSERT_EQ(prlimit(e.pid, RLIMIT_NOFILE, &low, nullptr), 0) << std::strerror(errno);
  int status = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  pid_t ended = 0;
  while ((ended = waitpid(e.pid, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_EQ(ended, e.pid) << "still serving 10 s after the fault\n" << e.log();
  e.pid = -1;
  const std::string log = e.log();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << status << "\n" << log;
  const auto first = log.find("mlbench: error: ");
  EXPECT_NE(first, std::string::npos) << log;
  EXPECT_EQ(first, log.rfind("mlbench: error: ")) << log;
  EXPECT_NE(log.find("the open-file limit, ulimit -n, must be above"), std::string::npos) << log;
  EXPECT_EQ(log.find("terminate"), std::string::npos) << log;
}

// A MetricsServer on 127.0.0.1 run by its own thread in this process, serving `exposition`.
struct InProcessServer {
  Exposition exposition;
  std::atomic<bool> stop{false};
  MetricsServer server{ListenAddress{"127.0.0.1", 0}};
  std::thread thread;
  explicit InProcessServer(std::string text) {
    exposition.publish(std::move(text));
    thread = std::thread([this] { server.run(exposition, stop); });
  }
  ~InProcessServer() {
    stop = true;
    thread.join();
  }
  int port() const { return server.port(); }
};

TEST(MonitorServer, AClientThatNeverReadsALargeResponseBlocksNoOneAndIsCut) {
  const std::string body(16 << 20, 'x');  // far more than the socket buffers hold
  InProcessServer s(body);
  auto start = std::chrono::steady_clock::now();
  Client stalled(s.port(), 4096);
  ASSERT_TRUE(stalled.send_text(kScrape));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto [text, seconds] = scrape(s.port());
  // Answered while the stalled client is still held (before its request deadline).
  EXPECT_LT(std::chrono::steady_clock::now(), start + kRequestDeadline) << seconds;
  EXPECT_TRUE(text.starts_with("HTTP/1.1 200 OK\r\n"));
  EXPECT_TRUE(text.ends_with("\r\n\r\n" + body)) << text.size();
  // Past the deadline the server has given up on it: what it gets is the part sent before, not the whole.
  std::this_thread::sleep_until(start + kRequestDeadline + std::chrono::milliseconds(500));
  EXPECT_LT(stalled.read_all(std::chrono::seconds(2)).size(), body.size());
}

TEST(MonitorServer, PastTheConnectionCapTheOldestIsClosedAndAScrapeIsAnswered) {
  InProcessServer s("a 1\n");
  std::vector<std::unique_ptr<Client>> idle;
  for (std::size_t i = 0; i < kMaxConnections; ++i) idle.push_back(std::make_unique<Client>(s.port()));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(idle.front()->closed_by_server(std::chrono::milliseconds(0)));
  auto [text, seconds] = scrape(s.port());
  EXPECT_TRUE(text.ends_with("\r\n\r\na 1\n")) << text;
  EXPECT_LT(seconds, seconds_of(kNotDelayed));
  EXPECT_TRUE(idle.front()->closed_by_server(std::chrono::milliseconds(500)));  // made room for the scrape
  EXPECT_FALSE(idle.back()->closed_by_server(std::chrono::milliseconds(0)));
}

TEST(MonitorServer, AtTheConnectionCapAnIdleConnectionMakesRoomNotAScrapeInFlight) {
  const std::string body(16 << 20, 'x');  // far more than the socket buffers hold: the answer stays in flight
  InProcessServer s(body);
  Client reader(s.port(), 4096);  // the oldest connection, reading its answer slowly
  ASSERT_TRUE(reader.send_text(kScrape));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  // A flood of idle connections, one more than the room left: the cap is reached with the scrape open.
  std::vector<std::unique_ptr<Client>> idle;
  for (std::size_t i = 0; i < kMaxConnections; ++i) idle.push_back(std::make_unique<Client>(s.port()));
  std::string text = reader.read_all(kRequestDeadline);
  EXPECT_TRUE(text.starts_with("HTTP/1.1 200 OK\r\n")) << text.substr(0, 200);
  EXPECT_TRUE(text.ends_with("\r\n\r\n" + body)) << text.size() << " bytes of " << body.size();
  EXPECT_TRUE(idle.front()->closed_by_server(std::chrono::milliseconds(0)));  // the oldest idle made room
  EXPECT_FALSE(idle.back()->closed_by_server(std::chrono::milliseconds(0)));
}

TEST(MonitorServer, AnOversizedRequestHeadIsRefusedWith400) {
  InProcessServer s("a 1\n");
  Client c(s.port());
  c.send_text("GET /metrics HTTP/1.1\r\nX: " + std::string(2 * kMaxRequestHead, 'a'));
  std::string text = c.read_all(std::chrono::seconds(2));
  EXPECT_TRUE(text.starts_with("HTTP/1.1 400 ")) << text;
}

TEST(MonitorServer, TheStopFlagEndsTheLoopPromptlyWithClientsConnected) {
  auto s = std::make_unique<InProcessServer>("a 1\n");
  Client idle(s->port());
  Client slow(s->port());
  slow.send_text("GET /met");
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  auto start = std::chrono::steady_clock::now();
  s.reset();  // sets the flag and joins the serving thread
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
            seconds_of(kPrompt));
  EXPECT_TRUE(idle.closed_by_server(std::chrono::milliseconds(500)));  // its connections closed with it
}

TEST(MonitorTextfile, AFailedWriteIsLoggedOnceKeepsTheLastFileAndIsRetried) {
  test::TempDir dir{"mlbench-textfile-writer"};
  std::vector<std::string> lines;
  TextfileWriter gone(dir / "missing/m.prom", [&lines](const std::string& l) { lines.push_back(l); });
  EXPECT_FALSE(gone.write("a 1\n"));
  EXPECT_FALSE(gone.write("a 2\n"));
  ASSERT_EQ(lines.size(), 1u);  // the same failure again is not logged again
  EXPECT_NE(lines[0].find("missing/m.prom"), std::string::npos) << lines[0];
  fs::create_directories(dir / "missing");
  EXPECT_TRUE(gone.write("a 3\n"));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[1].find("written again after 2 failed writes"), std::string::npos) << lines[1];
  std::string text = test::slurp(dir / "missing/m.prom");
  EXPECT_TRUE(text.starts_with("a 3\n")) << text;
  EXPECT_NE(text.find("\nmlbench_textfile_write_errors_total 2\n"), std::string::npos) << text;
}

TEST(MonitorEndToEnd, AFullTextfileFolderIsAWarningAndTheExporterRecovers) {
  if (!storage::test::is_root()) GTEST_SKIP() << "needs root to mount a small tmpfs";
  test::TempDir dir{"mlbench-textfile-full"};
  auto mount = storage::test::TmpfsMount::mount(dir / "mnt", "64k");
  if (!mount) GTEST_SKIP() << "cannot mount tmpfs here";
  fs::path file = dir / "mnt/mlbench.prom";
  pid_t exporter =
      spawn({MLBENCH_EXE, "monitor", "--interval", "100ms", "--textfile", file.string()}, dir / "log");
  // The count of failed writes in the file, once the file holds it within 10 s; -1 when it never does.
  const std::regex errors_total("\nmlbench_textfile_write_errors_total ([0-9]+)\n");
  auto wait_for_errors = [&](auto wanted) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      std::string text = test::slurp(file);
      std::smatch m;
      if (std::regex_search(text, m, errors_total) && wanted(std::stoi(m[1].str())))
        return std::stoi(m[1].str());
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return -1;
  };
  EXPECT_EQ(wait_for_errors([](int n) { return n == 0; }), 0) << test::slurp(dir / "log");
  {  // Fill the filesystem to the last byte.
    std::ofstream filler(dir / "mnt/filler", std::ios::binary);
    std::string block(4096, 'f');
    while (filler.write(block.data(), block.size()) && filler.flush()) {
    }
  }
  const std::string warning = "No space left on device; retrying each interval";
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (test::slurp(dir / "log").find(warning) == std::string::npos &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  // Each failed write removes its temporary file: five more removals are five more failed intervals, counted
  // as they happen (inotify) with a generous deadline, whatever the machine's pace.
  const int watch = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  ASSERT_GE(watch, 0) << std::strerror(errno);
  ASSERT_GE(inotify_add_watch(watch, (dir / "mnt").c_str(), IN_DELETE), 0) << std::strerror(errno);
  int failed = 0;
  deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (failed < 5 && std::chrono::steady_clock::now() < deadline) {
    pollfd p{watch, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    alignas(inotify_event) char events[4096];
    ssize_t n = read(watch, events, sizeof events);
    for (ssize_t at = 0; at < n;) {
      const auto* event = reinterpret_cast<const inotify_event*>(events + at);
      if (event->len > 0 && std::string_view(event->name).starts_with(".mlbench.prom.")) ++failed;
      at += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
    }
  }
  close(watch);
  EXPECT_GE(failed, 5) << test::slurp(dir / "log");
  EXPECT_EQ(waitpid(exporter, nullptr, WNOHANG), 0) << "the exporter ended\n" << test::slurp(dir / "log");
  std::string log = test::slurp(dir / "log");
  EXPECT_NE(log.find(warning), std::string::npos) << log;
  EXPECT_EQ(log.find(warning), log.rfind(warning)) << log;  // once, not once per interval
  EXPECT_NE(test::slurp(file).find("\nmlbench_textfile_write_errors_total 0\n"), std::string::npos);
  fs::remove(dir / "mnt/filler");
  EXPECT_GE(wait_for_errors([](int n) { return n > 0; }), 5) << test::slurp(dir / "log");
  EXPECT_NE(test::slurp(dir / "log").find("written again after"), std::string::npos);
  EXPECT_EQ(stop(exporter), 0) << test::slurp(dir / "log");
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir / "mnt")) names.push_back(e.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"mlbench.prom"});  // no temporary file left behind
}

}  // namespace
}  // namespace mlbench::monitor
