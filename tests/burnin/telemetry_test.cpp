// The burn-in sampler on a fixture telemetry script and a fixture procfs/sysfs tree: timelines filled per
// sample, the seconds in each clock-event reason, one event for a lost GPU, events stamped with the sample
// time, before/after/peak readings, host rates from two snapshots; and the real reader's pieces that need no
// GPU: /dev/kmsg records read from a regular file, PCI address matching, XID deduplication.
#include "burnin/telemetry.hpp"

#include <cmath>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "base/error.hpp"
#include "burnin/nvml_telemetry.hpp"
#include "tests/common/files.hpp"

namespace mlbench::burnin {
namespace {

namespace fs = std::filesystem;

void put(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text << "\n";
}

// A fixture machine: one NVMe drive with a partition, a loop device, /proc/stat and /proc/meminfo.
struct Machine {
  test::TempDir dir{"mlbench-burnin-telemetry"};
  Machine() {
    set_disk(0, 0);
    fs::create_directories(dir / "sys/block/nvme0n1");
    fs::create_directories(dir / "sys/block/loop0");
    set_cpu(100, 700);
    put(dir / "proc/meminfo", "MemTotal:       1000 kB\nMemFree:         100 kB\nMemAvailable:    400 kB");
  }
  // Sectors read and written by nvme0n1 (its partition and the loop device report the same, and must not
  // count).
  void set_disk(std::uint64_t sectors_read, std::uint64_t sectors_written) {
    put(dir / "proc/diskstats", fmt::format(" 7 0 loop0 10 0 {0} 1 0 0 {1} 0 0 1 1 0 0 0 0\n"
                                            " 259 0 nvme0n1 10 0 {0} 5 20 0 {1} 3 0 9 8 0 0 0 0\n"
                                            " 259 1 nvme0n1p1 10 0 {0} 5 20 0 {1} 3 0 9 8 0 0 0 0",
                                            sectors_read, sectors_written));
  }
  // user+system ticks (busy) and idle ticks; iowait fixed at 100.
  void set_cpu(std::uint64_t busy, std::uint64_t idle) {
    put(dir / "proc/stat", fmt::format("cpu  {} 0 0 {} 100 0 0 0 0 0", busy, idle));
  }
};

Json gpu_ids(int n) {
  Json gpus = Json::array();
  for (int i = 0; i < n; ++i) {
    gpus.push_back({{"device", fmt::format("gpu{}", i)},
                    {"uuid", fmt::format("GPU-{}", i)},
                    {"pci", fmt::format("00000000:{:02X}:00.0", i + 1)},
                    {"name", "NVIDIA H100 80GB HBM3"}});
  }
  return gpus;
}

Json counters(double power_w, std::uint64_t reasons = 0) {
  return {{"sm_clock_hz", 1.98e9},
          {"memory_clock_hz", 2.6e9},
          {"power_w", power_w},
          {"temperature_c", 60},
          {"clock_event_reasons", reasons},
          {"utilisation", 0.97},
          {"pcie_gen", 5},
          {"pcie_width", 16}};
}

const std::vector<double>& series(const burnin_report::Timeline& t, std::string_view name) {
  const auto* s = t.find(name);
  if (!s) throw std::runtime_error("no series " + std::string(name));
  return *s;
}

TEST(BurninSampler, FillsEveryGpuTimelinePerSample) {
  Machine m;
  Json script = {{"gpus", gpu_ids(2)}, {"samples", Json::array()}};
  for (double w : {100.0, 200.0, 300.0}) {
    Json c = counters(w);
    c["memory_temperature_c"] = w / 5;
    script["samples"].push_back({{"gpu0", c}, {"gpu1", counters(w + 1)}});
  }
  Sampler s(make_fixture_telemetry(script), m.dir.path(), std::chrono::steady_clock::now());
  ASSERT_EQ(s.gpus().size(), 2u);
  for (double t : {0.0, 1.0, 2.0}) s.sample_at(t);
  auto records = s.gpu_records();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].id.device, "gpu0");
  EXPECT_EQ(records[1].id.uuid, "GPU-1");
  const auto& t0 = records[0].timeline;
  EXPECT_EQ(t0.t, (std::vector<double>{0, 1, 2}));
  EXPECT_EQ(series(t0, "power_w"), (std::vector<double>{100, 200, 300}));
  EXPECT_EQ(series(t0, "memory_temperature_c"), (std::vector<double>{20, 40, 60}));
  EXPECT_EQ(series(t0, "sm_clock_hz")[2], 1.98e9);
  EXPECT_EQ(series(t0, "memory_clock_hz")[0], 2.6e9);
  EXPECT_EQ(series(t0, "temperature_c")[1], 60);
  EXPECT_EQ(series(t0, "utilisation")[1], 0.97);
  EXPECT_EQ(series(records[1].timeline, "power_w"), (std::vector<double>{101, 201, 301}));
  // gpu1 reports no HBM temperature: the series is there, NaN.
  for (double v : series(records[1].timeline, "memory_temperature_c")) EXPECT_TRUE(std::isnan(v));
  EXPECT_FALSE(records[0].lost);
  EXPECT_TRUE(s.events().empty());
}

// The interval between two samples goes to the reasons set in the later one: hw_thermal_slowdown (0x40) set
// at t = 0, 1, 2.5 is 2.5 s; sw_power_cap (0x4) set at t = 1 and 2.5 is 1 + 1.5 = 2.5 s; gpu_idle (0x1) only
// in the first sample has no interval ending in it, so it is not counted. Each throttling reason is announced
// once, when it first appears.
TEST(BurninSampler, AccountsSecondsPerClockEventReason) {
  Machine m;
  Json script = {{"gpus", gpu_ids(1)},
                 {"samples",
                  {{{"gpu0", counters(500, 0x41)}},
                   {{"gpu0", counters(500, 0x44)}},
                   {{"gpu0", counters(500, 0x44)}},
                   {{"gpu0", counters(500, 0x0)}}}}};
  Sampler s(make_fixture_telemetry(script), m.dir.path(), std::chrono::steady_clock::now());
  for (double t : {0.0, 1.0, 2.5, 4.0}) s.sample_at(t);
  auto seconds = s.gpu_records()[0].throttle_seconds;
  EXPECT_EQ(seconds, (std::map<std::string, double>{{"hw_thermal_slowdown", 2.5}, {"sw_power_cap", 2.5}}));
  auto events = s.events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].kind, "throttle");
  EXPECT_EQ(events[0].time_s, 0);
  EXPECT_NE(events[0].text.find("hw_thermal_slowdown"), std::string::npos);
  EXPECT_EQ(events[1].time_s, 1);
  EXPECT_NE(events[1].text.find("sw_power_cap"), std::string::npos);
}

TEST(BurninSampler, ALostGpuGetsOneEventAndNaNs) {
  Machine m;
  Json script = {{"gpus", gpu_ids(2)},
                 {"samples",
                  {{{"gpu0", counters(400)}, {"gpu1", counters(400)}},
                   {{"gpu0", counters(400)}, {"gpu1", nullptr}},
                   {{"gpu0", counters(400)}}}}};  // the last sample repeats: gpu1 stays silent
  Sampler s(make_fixture_telemetry(script), m.dir.path(), std::chrono::steady_clock::now());
  for (double t : {0.0, 1.0, 2.0, 3.0, 4.0}) s.sample_at(t);
  auto records = s.gpu_records();
  EXPECT_FALSE(records[0].lost);
  EXPECT_TRUE(records[1].lost);
  const auto& power = series(records[1].timeline, "power_w");
  ASSERT_EQ(power.size(), 5u);
  EXPECT_EQ(power[0], 400);
  for (std::size_t i = 1; i < power.size(); ++i) EXPECT_TRUE(std::isnan(power[i])) << i;
  auto events = s.events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, "lost");
  EXPECT_EQ(events[0].device, "gpu1");
  EXPECT_EQ(events[0].time_s, 1);
  // The readings it gave before it went are kept.
  ASSERT_TRUE(records[1].after);
  EXPECT_EQ(records[1].after->power_w, 400);
}

TEST(BurninSampler, StampsTheSourcesEventsWithTheSampleTime) {
  Machine m;
  Json script = {
      {"gpus", gpu_ids(1)},
      {"samples", {{{"gpu0", counters(300)}}}},
      {"events",
       {Json::array(),
        {{{"kind", "xid"}, {"device", "gpu0"}, {"code", 79}, {"text", "GPU has fallen off the bus"}}}}}};
  Sampler s(make_fixture_telemetry(script), m.dir.path(), std::chrono::steady_clock::now());
  for (double t : {10.0, 11.0, 12.0}) s.sample_at(t);
  auto events = s.events();
  ASSERT_EQ(events.size(), 1u);  // the list is not repeated on the third call
  EXPECT_EQ(events[0].time_s, 11);
  EXPECT_EQ(events[0].kind, "xid");
  EXPECT_EQ(events[0].code, 79);
  EXPECT_EQ(events[0].device, "gpu0");
}

TEST(BurninSampler, KeepsBeforeAfterAndTheHighestPowerReading) {
  Machine m;
  Json low = counters(100), peak = counters(700), last = counters(300);
  low["pcie_gen"] = 1;  // idle GPUs drop their link speed
  peak["ecc_dbe_volatile"] = 0;
  last["ecc_dbe_volatile"] = 2;
  Json script = {{"gpus", gpu_ids(1)}, {"samples", {{{"gpu0", low}}, {{"gpu0", peak}}, {{"gpu0", last}}}}};
  Sampler s(make_fixture_telemetry(script), m.dir.path(), std::chrono::steady_clock::now());
  for (double t : {0.0, 1.0, 2.0}) s.sample_at(t);
  auto r = s.gpu_records()[0];
  ASSERT_TRUE(r.before && r.after && r.peak_load);
  EXPECT_EQ(r.before->power_w, 100);
  EXPECT_EQ(r.before->pcie_gen, 1);
  EXPECT_EQ(r.peak_load->power_w, 700);
  EXPECT_EQ(r.peak_load->pcie_gen, 5);
  EXPECT_EQ(r.after->power_w, 300);
  EXPECT_EQ(r.after->ecc_dbe_volatile, 2u);
  EXPECT_FALSE(r.before->ecc_dbe_volatile);
}

// Busy share and disk rates come from two snapshots: from the first to the second sample (2 s apart) the CPU
// was busy 300 of 400 ticks and nvme0n1 read 4096 sectors (2 MiB, 1 MiB/s) and wrote 1024 (256 KiB/s); its
// partition and the loop device do not count again. Memory in use is MemTotal - MemAvailable.
TEST(BurninSampler, HostRatesFromTwoSnapshots) {
  Machine m;
  Sampler s(make_fixture_telemetry({{"gpus", Json::array()}, {"samples", Json::array()}}), m.dir.path(),
            std::chrono::steady_clock::now());
  s.sample_at(0);
  m.set_cpu(400, 800);
  m.set_disk(4096, 1024);
  s.sample_at(2);
  auto host = s.host_record().timeline;
  EXPECT_EQ(host.t, (std::vector<double>{0, 2}));
  EXPECT_TRUE(std::isnan(series(host, "cpu_busy")[0]));
  EXPECT_TRUE(std::isnan(series(host, "disk_read_bps")[0]));
  EXPECT_DOUBLE_EQ(series(host, "cpu_busy")[1], 0.75);
  EXPECT_EQ(series(host, "disk_read_bps")[1], 1024.0 * 1024);
  EXPECT_EQ(series(host, "disk_write_bps")[1], 256.0 * 1024);
  EXPECT_EQ(series(host, "memory_used_bytes"), (std::vector<double>{600.0 * 1024, 600.0 * 1024}));
}

TEST(BurninSampler, ASourceThatThrowsLeavesNaN) {
  Machine m;
  Sampler s(make_fixture_telemetry({{"gpus", Json::array()}, {"samples", Json::array()}}), m.dir.path(),
            std::chrono::steady_clock::now());
  s.sample_at(0);
  fs::remove(m.dir / "proc/diskstats");
  m.set_cpu(200, 800);
  s.sample_at(1);
  auto host = s.host_record().timeline;
  EXPECT_TRUE(std::isnan(series(host, "disk_read_bps")[1]));
  EXPECT_TRUE(std::isnan(series(host, "disk_write_bps")[1]));
  EXPECT_DOUBLE_EQ(series(host, "cpu_busy")[1], 0.5);
}

TEST(BurninSampler, SamplesOnItsThreadUntilStopped) {
  Machine m;
  Json script = {{"gpus", gpu_ids(1)}, {"samples", {{{"gpu0", counters(250)}}}}};
  Sampler s(make_fixture_telemetry(script), m.dir.path(), std::chrono::steady_clock::now(),
            std::chrono::milliseconds(5));
  s.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  s.stop();
  auto t = s.gpu_records()[0].timeline.t;
  ASSERT_GE(t.size(), 3u);
  EXPECT_TRUE(std::is_sorted(t.begin(), t.end()));
  std::size_t n = t.size();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(s.gpu_records()[0].timeline.t.size(), n);  // stopped means stopped
}

TEST(BurninCounters, JsonLeavesOutWhatNvmlDidNotReportAndReadsBack) {
  GpuCounters c;
  c.power_w = 650;
  c.clock_event_reasons = 0x44;
  c.ecc_dbe_aggregate = 3;
  c.row_remap_pending = true;
  c.violation_seconds["power"] = 1.5;
  Json j = to_json(c);
  EXPECT_EQ(j["power_w"], 650);
  EXPECT_EQ(j["clock_event_reasons"], 0x44);
  EXPECT_EQ(j["ecc_dbe_aggregate"], 3);
  EXPECT_EQ(j["row_remap_pending"], true);
  EXPECT_EQ(j["violation_seconds"]["power"], 1.5);
  EXPECT_FALSE(j.contains("memory_temperature_c"));
  EXPECT_FALSE(j.contains("nvlink_errors"));
  auto fixture = make_fixture_telemetry({{"gpus", gpu_ids(1)}, {"samples", {{{"gpu0", j}}}}});
  auto back = fixture->read(fixture->gpus()[0]);
  ASSERT_TRUE(back);
  EXPECT_EQ(to_json(*back), j);
}

TEST(BurninCounters, ABadScriptIsAUsageError) {
  EXPECT_THROW(make_fixture_telemetry(Json::object()), UsageError);
  EXPECT_THROW(make_fixture_telemetry({{"gpus", {{{"device", "gpu0"}}}}, {"samples", Json::array()}}),
               UsageError);
  EXPECT_THROW(
      make_fixture_telemetry({{"gpus", gpu_ids(1)}, {"samples", {{{"gpu0", {{"power_w", "hot"}}}}}}}),
      UsageError);
  EXPECT_THROW(make_fixture_telemetry(
                   {{"gpus", gpu_ids(1)}, {"samples", Json::array()}, {"events", {{{{"kind", 1}}}}}}),
               UsageError);
}

// Records in /dev/kmsg's format: "PRIORITY,SEQ,USEC,FLAGS[,caller];message", then " KEY=value" continuation
// lines. What was in the file before the reader opened it is not read.
TEST(BurninKmsg, ReadsOnlyNewXidRecordsAndSkipsContinuationLines) {
  test::TempDir dir("mlbench-kmsg");
  fs::path log = dir / "kmsg";
  std::ofstream(log) << "4,900,100,-;NVRM: Xid (PCI:0000:01:00): 48, pid=1, DBE before the reader opened\n";
  detail::KmsgReader reader(log);
  {
    std::ofstream out(log, std::ios::app);
    out << "4,1234,5678901234,-;NVRM: Xid (PCI:0000:01:00): 79, pid=4242, name=python3, GPU has fallen off "
           "the "
           "bus.\n"
        << " SUBSYSTEM=pci\n"
        << " DEVICE=+pci:0000:01:00.0\n"
        << " NOTE=NVRM: Xid (PCI:0000:02:00): 31, a continuation line, not a record\n"
        << "6,1235,5678901300,-;usb 1-1: new high-speed USB device number 2 using xhci_hcd\n"
        << "3,1236,5678901400,c,caller=T812;NVRM: Xid (PCI:0000:9A:00): 13, pid=77, Graphics SM Warp "
           "Exception\n"
        << "4,1237,5678901500,-;NVRM: Xid (PCI:0000:02:00): 9";  // not finished yet
  }
  std::vector<GpuId> gpus = {{"gpu0", "GPU-0", "00000000:01:00.0", "H100"},
                             {"gpu1", "GPU-1", "00000000:02:00.0", "H100"}};
  auto events = detail::kmsg_xid_events(reader, gpus);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].device, "gpu0");
  EXPECT_EQ(events[0].kind, "xid");
  EXPECT_EQ(events[0].code, 79);
  EXPECT_EQ(events[0].text,
            "NVRM: Xid (PCI:0000:01:00): 79, pid=4242, name=python3, GPU has fallen off the bus.");
  EXPECT_EQ(events[1].device, "0000:9a:00");  // no listed GPU there
  EXPECT_EQ(events[1].code, 13);
  std::ofstream(log, std::ios::app) << "4, pid=5, Reset Channel Verif Error\n";
  events = detail::kmsg_xid_events(reader, gpus);
  ASSERT_EQ(events.size(), 1u);  // the line finished in a later read
  EXPECT_EQ(events[0].device, "gpu1");
  EXPECT_EQ(events[0].code, 94);
  EXPECT_TRUE(detail::kmsg_xid_events(reader, gpus).empty());
}

TEST(BurninKmsg, AnUnreadableLogNamesThePath) {
  try {
    detail::KmsgReader reader("/nonexistent/kmsg");
    FAIL() << "opened";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/kmsg"), std::string::npos);
  }
}

TEST(BurninXid, PciAddressesMatchAcrossNvmlAndTheKernelLog) {
  EXPECT_TRUE(detail::same_pci_device("00000000:9A:00.0", "0000:9a:00"));
  EXPECT_FALSE(detail::same_pci_device("00000000:9A:00.0", "0000:9b:00"));
  EXPECT_FALSE(detail::same_pci_device("00000001:9A:00.0", "0000:9a:00"));
  EXPECT_FALSE(detail::same_pci_device("", "0000:9a:00"));
  EXPECT_FALSE(detail::same_pci_device("gpu0", "0000:9a:00"));
  EXPECT_FALSE(detail::same_pci_device("0000:9a:00:00", "0000:9a:00"));
  // A kernel line is input: an address too long for any number is no match, not an exception.
  EXPECT_FALSE(detail::same_pci_device("FFFFFFFFFFFFFFFFFFFFFFFFFFFF:9A:00.0", "0000:9a:00"));
}

// The same XID through NVML and the kernel log within 2 s is one event; the same XID again later, or twice
// through one source, is two.
TEST(BurninXid, TheSameXidThroughBothSourcesCountsOnce) {
  using Source = detail::XidDedup::Source;
  detail::XidDedup d;
  EXPECT_TRUE(d.admit("gpu0", 79, Source::nvml, 100.0));
  EXPECT_FALSE(d.admit("gpu0", 79, Source::kmsg, 101.5));
  EXPECT_TRUE(d.admit("gpu0", 79, Source::kmsg, 101.6));  // its NVML twin is already paired
  EXPECT_TRUE(d.admit("gpu1", 79, Source::nvml, 101.6));  // another GPU
  EXPECT_TRUE(d.admit("gpu0", 48, Source::nvml, 101.6));  // another XID
  EXPECT_TRUE(d.admit("gpu0", 31, Source::kmsg, 200.0));
  EXPECT_TRUE(d.admit("gpu0", 31, Source::nvml, 202.5));  // more than 2 s later
  EXPECT_TRUE(d.admit("gpu0", 31, Source::nvml, 202.6));
  EXPECT_FALSE(d.admit("gpu0", 31, Source::kmsg, 203.0));
}

TEST(BurninNvml, WithoutGpusTheListIsEmptyAndSaysWhy) {
  std::string why;
  auto t = make_nvml_telemetry(&why);
  ASSERT_TRUE(t);
  if (t->gpus().empty()) {
    EXPECT_FALSE(why.empty());
    EXPECT_TRUE(t->events().empty());
  } else {
    for (const auto& g : t->gpus()) EXPECT_TRUE(t->read(g)) << g.device;
  }
}

}  // namespace
}  // namespace mlbench::burnin
