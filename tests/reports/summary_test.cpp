// The console summary: a result's warnings are printed under its row, and the table ends with their count;
// the table fits the width it is given, sizes read as users type them, a multi-target job's aggregate is told
// apart from its targets, and a storage row carries fio's per-job summary (what a fio user looks for).
#include "reports/summary.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include <fmt/format.h>

#include "reports/table.hpp"

namespace mlbench::test {
namespace {

Result result(const char* probe, std::vector<std::string> warnings) {
  Result r;
  r.probe = probe;
  r.add_metric("bandwidth", 1e10, "B/s");
  r.warnings = std::move(warnings);
  return r;
}

// A headline set as a probe declares it (ProbeInfo::console): storage.io's shape.
constexpr ConsoleField kIoFields[] = {{"iops", "iops"},   {"bandwidth", "bw"},   {"lat_p50", "lat p50"},
                                      {"lat_p99", "p99"}, {"lat_p999", "p99.9"}, {"cpu_per_io", "cpu/io"}};

SummaryOptions io_console(UnitBase units = UnitBase::decimal, bool exact = false) {
  SummaryOptions o;
  o.probes["storage.io"] = ProbeConsole{kIoFields, units};
  o.exact = exact;
  return o;
}

std::string summary_of(const Report& report, const SummaryOptions& options = io_console()) {
  std::ostringstream out;
  print_summary(out, report, kDefaultConsoleWidth, options);
  return out.str();
}

TEST(Summary, WarningsAreUnderTheirRowAndCountedAtTheEnd) {
  Report report;
  report.results.push_back(result("host.membw", {"arrays smaller than the caches", "threads share CPUs"}));
  report.results.push_back(result("storage.io", {"--iodepth 4 acts as 1"}));
  const std::string text = summary_of(report);
  const auto membw = text.find("host.membw"), storage = text.find("storage.io");
  const auto caches = text.find("warning: arrays smaller than the caches");
  const auto share = text.find("warning: threads share CPUs"), iodepth = text.find("warning: --iodepth 4");
  ASSERT_NE(caches, std::string::npos) << text;
  ASSERT_NE(share, std::string::npos) << text;
  ASSERT_NE(iodepth, std::string::npos) << text;
  EXPECT_LT(membw, caches);
  EXPECT_LT(caches, share);
  EXPECT_LT(share, storage) << "a warning is under its own row, not the next one";
  EXPECT_LT(storage, iodepth);
  EXPECT_TRUE(text.ends_with("\n3 warnings, each under its result above\n")) << text;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

Result storage_result(Json params, double iops) {
  Result r;
  r.probe = "storage.io";
  r.params = std::move(params);
  r.add_metric("iops", iops, "1/s");
  r.add_metric("bandwidth", iops * 4096, "B/s");
  r.add_metric("lat_p50", 85.2e-6, "s", Better::lower);
  r.add_metric("lat_p90", 150e-6, "s", Better::lower);
  r.add_metric("lat_p99", 210e-6, "s", Better::lower);
  r.add_metric("lat_p999", 1.2e-3, "s", Better::lower);
  return r;
}

TEST(Summary, SizesReadAsUsersTypeThem) {
  Report report;
  report.results.push_back(storage_result(Json{{"rw", "randread"}, {"bs", 4096}, {"stripe", 131072}}, 1e4));
  Result membw = result("host.membw", {});
  membw.params = Json{{"array_bytes", 1288490189}, {"threads", 8}};
  report.results.push_back(membw);
  const std::string text = summary_of(report);
  EXPECT_NE(text.find("bs=4k"), std::string::npos) << text;
  EXPECT_NE(text.find("stripe=128k"), std::string::npos) << text;
  EXPECT_NE(text.find("array_bytes=1.2G"), std::string::npos) << text;
  EXPECT_NE(text.find("threads=8"), std::string::npos) << "counts stay numbers\n" << text;
  EXPECT_EQ(format_params(Json{{"bytes", 1 << 30}}), "bytes=1G") << "every table's params go through it";
  EXPECT_EQ(format_params(Json{{"ranks", 4}, {"size", 536870912}}), "ranks=4 size=512M")
      << "storage.checkpoint's size";
}

TEST(Summary, TheParamsColumnTakesTheWidthItIsGiven) {
  Report report;
  Json long_params = Json::object();
  for (int i = 0; i < 8; ++i) long_params[fmt::format("param{:02}", i)] = "value";
  Result r = result("host.membw", {});
  r.params = long_params;
  report.results.push_back(r);
  const std::string whole = format_params(long_params);
  for (std::size_t width : {80u, 120u, 200u}) {
    std::ostringstream out;
    print_summary(out, report, width);
    for (const auto& l : lines_of(out.str())) EXPECT_LE(l.size(), width) << width << ":\n" << out.str();
    const auto row = lines_of(out.str()).at(1);
    if (width == 200) {
      EXPECT_NE(row.find(whole), std::string::npos) << "not cut when it fits: " << row;
    } else {
      EXPECT_EQ(row.find(whole), std::string::npos) << row;
      EXPECT_NE(row.find("..."), std::string::npos) << row;
      EXPECT_GE(row.size(), width - 2) << "the params column uses the width: " << row;
    }
  }
}

TEST(Summary, AMultiTargetJobsAggregateIsLabelledAndItsTargetsIndentedBeneath) {
  Report report;
  const Json common{{"rw", "randread"}, {"bs", 4096}, {"iodepth", 32}};
  Json agg = common, t1 = common, t2 = common;
  agg["target"] = {"/mnt/a", "/mnt/b"};
  agg["scope"] = "aggregate";
  t1["target"] = "/mnt/a";
  t1["scope"] = "target";
  t2["target"] = "/mnt/b";
  t2["scope"] = "target";
  report.results.push_back(storage_result(agg, 2e4));
  report.results.push_back(storage_result(t1, 1e4));
  report.results.push_back(storage_result(t2, 1e4));
  const auto lines = lines_of(summary_of(report));
  std::vector<std::string> rows;
  for (const auto& l : lines)
    if (l.starts_with("storage.io")) rows.push_back(l);
  ASSERT_EQ(rows.size(), 3u) << summary_of(report);
  EXPECT_NE(rows[0].find("aggregate of 2 targets: bs=4k iodepth=32 rw=randread"), std::string::npos)
      << rows[0];
  EXPECT_EQ(rows[0].find("/mnt/a"), std::string::npos) << rows[0];
  const auto params_at = lines[0].find("PARAMS");
  EXPECT_EQ(rows[1].find("  target=/mnt/a"), params_at) << rows[1];
  EXPECT_EQ(rows[2].find("  target=/mnt/b"), params_at) << rows[2];
  EXPECT_EQ(rows[1].find("rw="), std::string::npos) << "a target row names only its target: " << rows[1];
}

TEST(Summary, AStorageRowCarriesIopsBandwidthLatencyAndCpuPerIo) {
  Report report;
  Result r = storage_result(Json{{"rw", "randread"}, {"bs", 4096}}, 31500);
  r.add_metric("lat_max", 5e-3, "s", Better::lower);
  r.add_metric("cpu_per_io", 4.1e-6, "s", Better::lower);
  report.results.push_back(r);
  const auto lines = lines_of(summary_of(report));
  ASSERT_EQ(lines.size(), 3u) << summary_of(report);
  EXPECT_NE(lines[2].find(
                "iops 31.5 k/s  bw 129 MB/s  lat p50 85.2 us  p99 210.0 us  p99.9 1.20 ms  cpu/io 4.1 us"),
            std::string::npos)
      << lines[2];
}

TEST(Summary, ARandrwRowShowsReadAndWriteApart) {
  Report report;
  Result r = storage_result(Json{{"rw", "randrw"}, {"bs", 4096}}, 30000);
  for (const char* dir : {"read", "write"}) {
    const double share = std::string(dir) == "read" ? 0.7 : 0.3;
    r.add_metric(fmt::format("{}_iops", dir), 30000 * share, "1/s");
    r.add_metric(fmt::format("{}_bandwidth", dir), 30000 * share * 4096, "B/s");
    r.add_metric(fmt::format("{}_lat_p50", dir), share * 1e-4, "s", Better::lower);
    r.add_metric(fmt::format("{}_lat_p99", dir), share * 1e-3, "s", Better::lower);
    r.add_metric(fmt::format("{}_lat_p999", dir), share * 1e-2, "s", Better::lower);
  }
  r.add_metric("cpu_per_io", 4e-6, "s", Better::lower);
  report.results.push_back(r);
  const auto lines = lines_of(summary_of(report));
  ASSERT_EQ(lines.size(), 5u) << summary_of(report);
  EXPECT_NE(lines[2].find("read  iops 21 k/s  bw 86 MB/s  lat p50 70.0 us  p99 700.0 us  p99.9 7.00 ms"),
            std::string::npos)
      << lines[2];
  EXPECT_NE(lines[3].find("write iops 9 k/s  bw 36.9 MB/s  lat p50 30.0 us"), std::string::npos) << lines[3];
  EXPECT_NE(lines[4].find("all   iops 30 k/s"), std::string::npos) << lines[4];
  EXPECT_TRUE(lines[4].ends_with("cpu/io 4.0 us")) << lines[4];
}

// Under the headline lines, fio's: slat (when the engine split it), clat and lat in the unit fio picks,
// "cpu: usr=, sys=, ctx=", and a "disk" line per disk with fio's Disk stats figures.
TEST(Summary, AStorageRowCarriesFiosLatencyCpuAndDiskLines) {
  Report report;
  Result r = storage_result(Json{{"rw", "randread"}, {"bs", 4096}}, 31500);
  r.add_metric("usr_cpu", 2.6, "%", Better::lower);
  r.add_metric("sys_cpu", 26.2, "%", Better::lower);
  auto lat = [](double min, double max, double mean, double sd, int n) {
    return Json{{"min", min}, {"max", max}, {"mean", mean}, {"stddev", sd}, {"N", n}};
  };
  r.info["io_latency"] = {{"read",
                           {{"slat_ns", lat(2534, 3125124, 6334.6, 31129.5, 36081)},
                            {"clat_ns", lat(90, 22821920, 104343.3, 556826.1, 36081)},
                            {"lat_ns", lat(32438, 22824835, 110677.9, 557708.5, 36081)}}}};
  r.info["rusage"] = {{"ctx", 9010}, {"majf", 0}, {"minf", 14}};
  r.work = {{"ios", 36081}, {"bytes", 36081.0 * 4096}, {"reads", 36081}, {"writes", 0}, {"seconds", 1.146}};
  r.info["disk_stats"] = Json::array({{{"name", "vda"},
                                       {"read_ios", 31739},
                                       {"write_ios", 228},
                                       {"read_merges", 0},
                                       {"write_merges", 4},
                                       {"read_ticks", 1925},
                                       {"write_ticks", 2281},
                                       {"in_queue", 4259},
                                       {"util", 56.040609}}});
  report.results.push_back(r);
  const auto lines = lines_of(summary_of(report));
  ASSERT_EQ(lines.size(), 9u) << summary_of(report);
  EXPECT_NE(lines[3].find("slat (usec): min=3, max=3125, avg=6.33, stdev=31.13"), std::string::npos)
      << lines[3];
  EXPECT_NE(lines[4].find("clat (usec): min=0, max=22822, avg=104.34, stdev=556.83"), std::string::npos)
      << lines[4];
  EXPECT_NE(lines[5].find(" lat (usec): min=32, max=22825, avg=110.68, stdev=557.71"), std::string::npos)
      << lines[5];
  // fio's I/O totals and runtime ("io=..., run=...msec"), of the measured window.
  EXPECT_NE(lines[6].find("io: ios=36081/0 (read/write), 140.94 MiB, run=1146 msec"), std::string::npos)
      << lines[6];
  EXPECT_NE(lines[7].find("cpu: usr=2.60%, sys=26.20%, ctx=9010"), std::string::npos) << lines[7];
  EXPECT_NE(lines[8].find("disk vda: ios=31739/228, merge=0/4, ticks=1925/2281, in_queue=4259, util=56.04%"),
            std::string::npos)
      << lines[8];
  // Without a split (batched io_uring, psync) there is no slat line.
  report.results[0].info["io_latency"]["read"]["slat_ns"] = lat(0, 0, 0, 0, 0);
  EXPECT_EQ(summary_of(report).find("slat"), std::string::npos) << summary_of(report);
}

// compare's, check's and the fleet's text tables on a terminal: the widest text columns give way, numbers
// never, and without a width nothing is cut.
TEST(TextTable, TheWidestTextColumnsGiveWayToFitTheWidth) {
  Table t{"", {"probe", "params", "value", "detail"}, {}};
  const std::string params = format_params(Json{{"rw", "randread"},
                                                {"bs", 4096},
                                                {"iodepth", 32},
                                                {"jobs", 4},
                                                {"target", "/mnt/nvme0/some/deep/folder"}});
  const std::string detail = "not measured: gpu.gemm skipped — no NVIDIA driver (no /dev/nvidia*)";
  t.rows.push_back({Cell{"storage.io"}, Cell{params}, Cell{"123456.7 /s", Tone::plain, true}, Cell{detail}});
  EXPECT_NE(to_text(t, false).find(params), std::string::npos) << "no width: whole";
  t.width = 100;
  const std::string text = to_text(t, false);
  const auto rows = lines_of(text);
  ASSERT_EQ(rows.size(), 2u) << text;
  for (const auto& l : rows) EXPECT_LE(display_width(l), 100u) << l;
  EXPECT_NE(rows[1].find("123456.7 /s"), std::string::npos) << "a number is never cut: " << rows[1];
  EXPECT_NE(rows[1].find("bs=4k iodepth=32"), std::string::npos) << rows[1];
  EXPECT_EQ(rows[1].find(params), std::string::npos) << rows[1];
  EXPECT_NE(rows[1].find("not measured: gpu.gemm"), std::string::npos)
      << "both wide columns give way: " << rows[1];
}

// `mlbench sysinfo` counts in words that agree with the number: "1 socket", "2 sockets".
TEST(Summary, HostCountsAgreeWithTheirNumber) {
  std::ostringstream one, two;
  print_host(one, Json{{"cpu", {{"model", "X"}, {"sockets", 1}, {"cores", 1}, {"threads", 1}}},
                       {"numa", Json::array({Json{{"node", 0}, {"cpus", {0}}}})}});
  EXPECT_NE(one.str().find("X: 1 socket, 1 core, 1 thread, governor"), std::string::npos) << one.str();
  EXPECT_NE(one.str().find("node 0: 1 cpu, "), std::string::npos) << one.str();
  print_host(two, Json{{"cpu", {{"model", "X"}, {"sockets", 2}, {"cores", 64}, {"threads", 128}}}});
  EXPECT_NE(two.str().find("X: 2 sockets, 64 cores, 128 threads, governor"), std::string::npos) << two.str();
}

// --units binary (fio's kb_base=1024): byte rates in MiB/s where the default shows MB/s; other units and
// the report's numbers are untouched. --verbose: every digit of a rate (fio's IOPS=2995).
TEST(Summary, BinaryUnitsAndExactRates) {
  Report report;
  Result r = storage_result(Json{{"rw", "read"}, {"bs", 4096}}, 2995);
  std::swap(r.metrics[0], r.metrics[1]);  // a sequential job's headline is its bandwidth
  report.results.push_back(r);
  const std::string decimal = summary_of(report);
  EXPECT_NE(decimal.find("bandwidth 12.3 MB/s"), std::string::npos) << decimal;
  EXPECT_NE(decimal.find("iops 3 k/s  bw 12.3 MB/s"), std::string::npos) << decimal;
  const std::string binary = summary_of(report, io_console(UnitBase::binary));
  EXPECT_NE(binary.find("bandwidth 11.7 MiB/s"), std::string::npos) << binary;
  EXPECT_NE(binary.find("iops 3 k/s  bw 11.7 MiB/s  lat p50 85.2 us"), std::string::npos) << binary;
  const std::string exact = summary_of(report, io_console(UnitBase::binary, true));
  EXPECT_NE(exact.find("bandwidth 12267520 B/s"), std::string::npos) << exact;
  EXPECT_NE(exact.find("iops 2995/s  bw 12267520 B/s  lat p50 85.2 us"), std::string::npos) << exact;
  EXPECT_EQ(format_metric_value(2.5e9, "B/s", {UnitBase::binary}), "2.33 GiB/s");
  EXPECT_EQ(format_metric_value(2.5e12, "FLOP/s", {UnitBase::binary}), "2.5 TFLOP/s") << "bytes only";
  EXPECT_EQ(format_metric_value(1536, "B", {UnitBase::decimal}), "1.50 KiB") << "sizes stay binary";
  EXPECT_EQ(format_metric_value(12.5, "1/s", {UnitBase::decimal, true}), "12.5 /s") << "nothing to round";
}

// A job stopped by Ctrl-C keeps its figures (fio prints its partial stats): the row is marked interrupted,
// and shows its headline, its headline set and why.
TEST(Summary, AnInterruptedResultShowsItsFiguresAndWhy) {
  Report report;
  Result r = storage_result(Json{{"rw", "randread"}, {"bs", 4096}}, 31500);
  r.status = Status::interrupted;
  r.reason = "interrupted after 1.20 s of measurement of the 60 s asked";
  report.results.push_back(r);
  const auto lines = lines_of(summary_of(report));
  ASSERT_EQ(lines.size(), 4u) << summary_of(report);
  EXPECT_NE(lines[1].find("interrupted  iops 31.5 k/s"), std::string::npos) << lines[1];
  EXPECT_NE(lines[2].find("iops 31.5 k/s  bw 129 MB/s  lat p50 85.2 us"), std::string::npos) << lines[2];
  EXPECT_NE(lines[3].find("interrupted after 1.20 s"), std::string::npos) << lines[3];
}

// Every probe with a headline set gets it under its rows, through the one mechanism: storage.dataload's AU
// beside its floor (an info key), storage.checkpoint's bandwidths; a probe without one, the row alone.
TEST(Summary, EachProbesHeadlineSetIsUnderItsRows) {
  constexpr ConsoleField kLoad[] = {{"au", "AU", "au_floor", "floor"},
                                    {"bandwidth", "bw"},
                                    {"files_per_s", "files"},
                                    {"batch_wait_mean", "batch wait"}};
  constexpr ConsoleField kCheckpoint[] = {{"write_bandwidth", "write"}, {"read_bandwidth", "read-back"}};
  Report report;
  Result load;
  load.probe = "storage.dataload";
  load.add_metric("samples_per_s", 950, "1/s");
  load.add_metric("bandwidth", 2.5e9, "B/s");
  load.add_metric("files_per_s", 950, "1/s");
  load.add_metric("au", 93.1, "%");
  load.add_metric("batch_wait_mean", 1.2e-3, "s", Better::lower);
  load.add_metric("read_p50", 1e-4, "s", Better::lower);  // not a direction of the set: one line
  load.info["au_floor"] = 90;
  report.results.push_back(load);
  Result ck;
  ck.probe = "storage.checkpoint";
  ck.add_metric("write_bandwidth", 1.5e9, "B/s");
  ck.add_metric("read_bandwidth", 3e9, "B/s");
  report.results.push_back(ck);
  report.results.push_back(result("host.membw", {}));
  SummaryOptions o;
  o.probes["storage.dataload"] = ProbeConsole{kLoad};
  o.probes["storage.checkpoint"] = ProbeConsole{kCheckpoint};
  const auto lines = lines_of(summary_of(report, o));
  ASSERT_EQ(lines.size(), 6u) << summary_of(report, o);
  EXPECT_NE(lines[2].find("AU 93.1 % (floor 90.0 %)  bw 2.5 GB/s  files 950 /s  batch wait 1.20 ms"),
            std::string::npos)
      << lines[2];
  EXPECT_NE(lines[4].find("write 1.5 GB/s  read-back 3 GB/s"), std::string::npos) << lines[4];
  EXPECT_TRUE(lines[5].starts_with("host.membw")) << lines[5];
}

TEST(Summary, NoWarningsNoCountLine) {
  Report report;
  report.results.push_back(result("host.membw", {}));
  const std::string text = summary_of(report);
  EXPECT_EQ(text.find("warning"), std::string::npos) << text;
}

}  // namespace
}  // namespace mlbench::test
