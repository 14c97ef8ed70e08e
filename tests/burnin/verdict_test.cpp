// The burn-in verdict on fixture records: each fail rule alone fails exactly the GPU it names with one reason
// line, a GPU warns at 6 % below its peers' median or the baseline (warn_pct 5) and not at 4 %, the rates are
// medians over the phase run alone, host phases fail the node without becoming GPUs, and the baseline medians
// come from burn-in reports written to disk.
#include "burnin/verdict.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include <fmt/format.h>

#include "base/error.hpp"
#include "tests/common/files.hpp"

namespace mlbench::burnin {
namespace {

using burnin_report::Event;
using burnin_report::Verdict;

constexpr double kTflops = 1e15;  // FLOP/s of a healthy GPU in the fixture
constexpr double kHbm = 3e12;     // B/s

// A phase result as a phase returns it, with params.phase as the orchestrator adds it.
Result phase_result(const std::string& phase, const std::string& device, double rate, double errors = 0,
                    const std::string& ran_in = "") {
  Result r;
  r.probe = "burnin." + phase;
  r.params = Json{{"device", device}, {"phase", ran_in.empty() ? phase : ran_in}};
  bool gemm = phase == "gemm";
  r.add_metric(gemm ? "tflops" : "bandwidth", rate, gemm ? "FLOP/s" : "B/s");
  r.add_metric("errors", errors, "", Better::lower);
  return r;
}

GpuCounters healthy_counters() {
  GpuCounters c;
  c.ecc_dbe_volatile = 0;
  c.ecc_dbe_aggregate = 4;
  c.row_remap_pending = false;
  c.row_remap_failed = false;
  c.retired_pages_pending = false;
  c.pcie_gen = c.pcie_gen_max = 5;
  c.pcie_width = c.pcie_width_max = 16;
  return c;
}

GpuRecord gpu_record(int i) {
  GpuRecord g;
  g.id = GpuId{fmt::format("gpu{}", i), fmt::format("GPU-{}", i), fmt::format("0000:{:02x}:00.0", i), "H100"};
  g.before = g.after = g.peak_load = healthy_counters();
  // What a GPU at full load is expected to do: not a failure.
  g.throttle_seconds = {{"sw_power_cap", 40}, {"sw_thermal_slowdown", 3}, {"gpu_idle", 60}};
  return g;
}

// A healthy node: `n` GPUs with one GEMM and one HBM result each at the same rate, and the host phases.
struct Node {
  std::vector<Result> results;
  std::vector<GpuRecord> gpus;
  std::vector<Event> events;
  VerdictOptions opts;

  NodeVerdict judge() const { return burnin::judge(results, gpus, events, opts); }
  Result& result(const std::string& probe, const std::string& device) {
    for (auto& r : results) {
      if (r.probe == probe && r.params["device"] == device) return r;
    }
    throw std::logic_error("no fixture result " + probe + " " + device);
  }
};

Node healthy_node(int n = 4) {
  Node node;
  for (int i = 0; i < n; ++i) {
    node.gpus.push_back(gpu_record(i));
    node.results.push_back(phase_result("gemm", fmt::format("gpu{}", i), kTflops));
    node.results.push_back(phase_result("hbm", fmt::format("gpu{}", i), kHbm));
  }
  node.results.push_back(phase_result("hostmem", "host", 20e9));
  node.results.push_back(phase_result("storage", "/var/tmp/mlbench-burnin-1.dat", 2e9));
  return node;
}

TEST(BurninVerdict, HealthyNodePasses) {
  auto v = healthy_node().judge();
  EXPECT_EQ(v.verdict, Verdict::pass);
  EXPECT_TRUE(v.reasons.empty());
  ASSERT_EQ(v.gpus.size(), 4u);  // the host phases are not GPUs
  for (const auto& g : v.gpus) {
    EXPECT_EQ(g.verdict, Verdict::pass) << g.device;
    EXPECT_DOUBLE_EQ(g.rates.at("gemm_tflops"), kTflops);
    EXPECT_DOUBLE_EQ(g.rates.at("hbm_bandwidth"), kHbm);
    EXPECT_EQ(g.rates.size(), 2u);
  }
  EXPECT_EQ(v.exit_code(), 0);
}

struct FailRule {
  const char* name;
  std::function<void(Node&)> break_gpu2;
  const char* reason;  // the one reason line, exactly
};

TEST(BurninVerdict, EachFailRuleAloneFailsExactlyThatGpu) {
  const std::vector<FailRule> rules = {
      {"bad words",
       [](Node& n) {
         auto& r = n.result("burnin.hbm", "gpu2");
         r.status = Status::incorrect;
         r.reason = "gpu2: 3 bad words";
         r.metrics[1].value = 3;
         r.info["bad_words"] = Json::array({{{"address", "0x7f0000001000"}, {"expected", 1}, {"actual", 3}}});
       },
       "gpu2: 3 bad words in the HBM pattern test, first at 0x7f0000001000"},
      {"errors counted while the status is ok",
       [](Node& n) { n.result("burnin.gemm", "gpu2").metrics[1].value = 1; },
       "gpu2: 1 wrong outputs in the GEMM output check"},
      {"incorrect without a count",
       [](Node& n) {
         auto& r = n.result("burnin.gemm", "gpu2");
         r.status = Status::incorrect;
         r.reason = "output hash differs from gpu0, gpu1, gpu3";
         r.metrics.pop_back();
       },
       "gpu2: the GEMM output check found a wrong result: output hash differs from gpu0, gpu1, gpu3"},
      {"a phase that did not complete",
       [](Node& n) {
         auto& r = n.result("burnin.hbm", "gpu2");
         r.status = Status::failed;
         r.reason = "cudaErrorIllegalAddress";
         r.metrics.clear();
       },
       "gpu2: the HBM pattern test did not complete: cudaErrorIllegalAddress"},
      {"XID",
       [](Node& n) {
         n.events.push_back(Event{812.4, "gpu2", "xid", 79, "GPU has fallen off the bus"});
       },
       "gpu2: XID 79 at 812 s: GPU has fallen off the bus"},
      {"new DBE", [](Node& n) { n.gpus[2].after->ecc_dbe_volatile = 2; },
       "gpu2: 2 new double-bit ECC errors (volatile count 0 before, 2 after)"},
      {"row remap pending",
       [](Node& n) {
         n.gpus[2].after->row_remap_pending = true;
         n.gpus[2].after->remapped_rows_uncorrectable = 1;
       },
       "gpu2: row remap pending at the end (0 correctable, 1 uncorrectable rows remapped)"},
      {"row remap failed", [](Node& n) { n.gpus[2].after->row_remap_failed = true; },
       "gpu2: row remap failed at the end (0 correctable, 0 uncorrectable rows remapped)"},
      {"retired page pending",
       [](Node& n) {
         n.gpus[2].after->retired_pages_pending = true;
         n.gpus[2].after->retired_pages_dbe = 1;
       },
       "gpu2: retired page pending at the end (0 single-bit, 1 double-bit pages retired)"},
      {"PCIe generation", [](Node& n) { n.gpus[2].peak_load->pcie_gen = 4; },
       "gpu2: PCIe link Gen4 x16 under load, maximum Gen5 x16"},
      {"PCIe width", [](Node& n) { n.gpus[2].peak_load->pcie_width = 8; },
       "gpu2: PCIe link Gen5 x8 under load, maximum Gen5 x16"},
      {"lost", [](Node& n) { n.gpus[2].lost = true; }, "gpu2: stopped answering during the burn-in (lost)"},
      {"hardware slowdown", [](Node& n) { n.gpus[2].throttle_seconds["hw_slowdown"] = 2; },
       "gpu2: 2.0 s in hw_slowdown throttling"},
      {"hardware thermal slowdown", [](Node& n) { n.gpus[2].throttle_seconds["hw_thermal_slowdown"] = 12.5; },
       "gpu2: 12.5 s in hw_thermal_slowdown throttling"},
      {"hardware power brake", [](Node& n) { n.gpus[2].throttle_seconds["hw_power_brake_slowdown"] = 1; },
       "gpu2: 1.0 s in hw_power_brake_slowdown throttling"},
      {"errors in the all phase",
       [](Node& n) {
         n.results.push_back(phase_result("hbm", "gpu2", kHbm, 5, "all"));
         n.results.back().info["bad_words"] = Json::array({{{"address", 4096}}});
       },
       "gpu2: 5 bad words in the HBM pattern test, first at 0x1000 (in the all phase)"},
  };
  for (const auto& rule : rules) {
    SCOPED_TRACE(rule.name);
    Node node = healthy_node();
    rule.break_gpu2(node);
    auto v = node.judge();
    EXPECT_EQ(v.verdict, Verdict::fail);
    EXPECT_EQ(v.exit_code(), 1);
    ASSERT_EQ(v.gpus.size(), 4u);
    for (const auto& g : v.gpus) {
      if (g.device == "gpu2") {
        EXPECT_EQ(g.verdict, Verdict::fail);
        EXPECT_EQ(g.reasons, std::vector<std::string>{rule.reason});
      } else {
        EXPECT_EQ(g.verdict, Verdict::pass) << g.device;
        EXPECT_TRUE(g.reasons.empty()) << g.device;
      }
    }
    EXPECT_EQ(v.reasons, std::vector<std::string>{rule.reason});
  }
}

TEST(BurninVerdict, FieldsNvmlDoesNotReportAreNotChecked) {
  Node node = healthy_node();
  node.gpus[1].peak_load->pcie_gen_max.reset();  // Gen4 of an unknown maximum: no check
  node.gpus[1].peak_load->pcie_gen = 4;
  node.gpus[2].before->ecc_dbe_volatile.reset();  // no ECC before: no delta
  node.gpus[2].after->ecc_dbe_volatile = 7;
  node.gpus[3].after.reset();
  node.gpus[3].peak_load.reset();
  EXPECT_EQ(node.judge().verdict, Verdict::pass);
}

TEST(BurninVerdict, WarnsSixPercentBelowThePeerMedianNotFour) {
  Node node = healthy_node();
  node.result("burnin.gemm", "gpu2").metrics[0].value = 0.94 * kTflops;
  auto v = node.judge();
  EXPECT_EQ(v.verdict, Verdict::warn);
  EXPECT_EQ(v.exit_code(), 0);
  EXPECT_EQ(v.gpus[2].verdict, Verdict::warn);
  EXPECT_EQ(v.gpus[2].reasons,
            std::vector<std::string>{
                "gpu2: gemm_tflops 6.0 % below the node median (940 TFLOP/s, median 1 PFLOP/s)"});
  EXPECT_DOUBLE_EQ(v.gpus[2].rates.at("gemm_tflops"), 0.94 * kTflops);
  for (int i : {0, 1, 3}) EXPECT_EQ(v.gpus[i].verdict, Verdict::pass);

  node.result("burnin.gemm", "gpu2").metrics[0].value = 0.96 * kTflops;
  v = node.judge();
  EXPECT_EQ(v.verdict, Verdict::pass);
  EXPECT_TRUE(v.reasons.empty());

  node.result("burnin.hbm", "gpu0").metrics[0].value = 0.94 * kHbm;  // every key is judged
  v = node.judge();
  EXPECT_EQ(v.gpus[0].verdict, Verdict::warn);
  ASSERT_EQ(v.gpus[0].reasons.size(), 1u);
  EXPECT_EQ(v.gpus[0].reasons[0].rfind("gpu0: hbm_bandwidth 6.0 % below the node median", 0), 0u);
}

TEST(BurninVerdict, RatesAreMediansOfThePhaseRunAlone) {
  // Five GPUs: per GPU the median over its own results, then the median (not the mean) over the GPUs.
  Node node = healthy_node(5);
  const double rates[] = {1.00, 1.01, 1.02, 1.20, 1.30};
  for (int i = 0; i < 5; ++i) {
    auto device = fmt::format("gpu{}", i);
    node.result("burnin.gemm", device).metrics[0].value = rates[i] * kTflops;
    node.results.push_back(phase_result("gemm", device, (rates[i] - 0.1) * kTflops));
    node.results.push_back(phase_result("gemm", device, (rates[i] + 0.3) * kTflops));
    // The all phase: everything competes, its rates are not the GPU's sustained rate.
    node.results.push_back(phase_result("gemm", device, 0.5 * kTflops, 0, "all"));
  }
  auto v = node.judge();
  for (int i = 0; i < 5; ++i) EXPECT_DOUBLE_EQ(v.gpus[i].rates.at("gemm_tflops"), rates[i] * kTflops);
  // gpu0 is 2 % below the median of 1.02 (it would be 9.6 % below the mean of 1.106).
  EXPECT_EQ(v.verdict, Verdict::pass);

  node.result("burnin.gemm", "gpu1").metrics[0].value = 0.95 * kTflops;  // 6.9 % below 1.02
  v = node.judge();
  EXPECT_EQ(v.gpus[1].verdict, Verdict::warn);
  EXPECT_EQ(v.gpus[0].verdict, Verdict::pass);
}

TEST(BurninVerdict, OneGpuHasNoPeers) {
  Node node = healthy_node(1);
  node.result("burnin.gemm", "gpu0").metrics[0].value = 0.5 * kTflops;
  auto v = node.judge();
  EXPECT_EQ(v.verdict, Verdict::pass);
  EXPECT_DOUBLE_EQ(v.gpus[0].rates.at("gemm_tflops"), 0.5 * kTflops);
}

TEST(BurninVerdict, WarnsBelowTheBaselineFleetMedian) {
  Node node = healthy_node();
  node.opts.baseline_median = {{"gemm_tflops", 1.04 * kTflops}, {"hbm_bandwidth", 1.064 * kHbm}};
  auto v = node.judge();
  EXPECT_EQ(v.verdict, Verdict::warn);
  for (const auto& g : v.gpus) {  // GEMM 3.8 % below: fine; HBM 6.0 % below: every GPU warns
    EXPECT_EQ(g.verdict, Verdict::warn);
    EXPECT_EQ(g.reasons,
              std::vector<std::string>{g.device + ": hbm_bandwidth 6.0 % below the baseline fleet median "
                                                  "(3 TB/s, median 3.19 TB/s)"});
  }
  node.opts.warn_pct = 7;
  EXPECT_EQ(node.judge().verdict, Verdict::pass);
}

TEST(BurninVerdict, FailOutranksWarnAndListsBoth) {
  Node node = healthy_node();
  node.result("burnin.gemm", "gpu1").metrics[0].value = 0.9 * kTflops;
  node.gpus[1].lost = true;
  auto v = node.judge();
  EXPECT_EQ(v.gpus[1].verdict, Verdict::fail);
  ASSERT_EQ(v.gpus[1].reasons.size(), 2u);
  EXPECT_EQ(v.gpus[1].reasons[0], "gpu1: stopped answering during the burn-in (lost)");
  EXPECT_EQ(v.reasons, v.gpus[1].reasons);
}

TEST(BurninVerdict, HostPhasesFailTheNodeAndAreNoGpu) {
  Node node = healthy_node();
  auto& mem = node.result("burnin.hostmem", "host");
  mem.status = Status::incorrect;
  mem.metrics[1].value = 2;
  mem.info["bad_words"] = Json::array({{{"address", "0x7ffd1000"}}});
  auto& disk = node.result("burnin.storage", "/var/tmp/mlbench-burnin-1.dat");
  disk.metrics[1].value = 1;
  disk.info["bad_blocks"] = Json::array({{{"offset", 1048576}}});
  auto v = node.judge();
  EXPECT_EQ(v.verdict, Verdict::fail);
  EXPECT_EQ(v.exit_code(), 1);
  EXPECT_EQ(v.reasons, (std::vector<std::string>{
                           "host: 2 bad words in the host memory pattern test, first at 0x7ffd1000",
                           "/var/tmp/mlbench-burnin-1.dat: 1 bad blocks in the storage write-verify-read, "
                           "first at 0x100000"}));
  ASSERT_EQ(v.gpus.size(), 4u);
  for (const auto& g : v.gpus) EXPECT_EQ(g.verdict, Verdict::pass);
}

TEST(BurninVerdict, AnXidOfNoKnownGpuFailsTheNode) {
  Node node = healthy_node();
  node.events.push_back(Event{5, "0000:c1:00.0", "xid", 48, "DBE"});
  node.events.push_back(Event{6, "gpu1", "throttle", 0, "hw_thermal_slowdown"});  // judged by the seconds
  auto v = node.judge();
  EXPECT_EQ(v.verdict, Verdict::fail);
  EXPECT_EQ(v.reasons,
            std::vector<std::string>{"0000:c1:00.0: XID 48 at 5 s on no GPU the burn-in knows: DBE"});
  for (const auto& g : v.gpus) EXPECT_EQ(g.verdict, Verdict::pass);
}

TEST(BurninVerdict, ExitCodes) {
  NodeVerdict v;
  EXPECT_EQ(v.exit_code(), 0);
  v.verdict = Verdict::warn;
  EXPECT_EQ(v.exit_code(), 0);
  v.verdict = Verdict::incomplete;
  EXPECT_EQ(v.exit_code(), 1);
  v.verdict = Verdict::fail;
  EXPECT_EQ(v.exit_code(), 1);
}

// A phase result as a phase cut before its first full pass returns it.
void cut_short(Result& r, const std::string& why) {
  r.status = Status::skipped;
  r.reason = why;
  r.metrics.erase(r.metrics.begin());  // no rate: nothing whole was verified
  r.info["iterations"] = 0;
}

TEST(BurninVerdict, APhaseStoppedBeforeAFullPassMakesTheNodeIncompleteNeverPass) {
  Node node = healthy_node();
  cut_short(node.result("burnin.storage", "/var/tmp/mlbench-burnin-1.dat"),
            "stopped after 40 % of one verified pass over the 1.00 GiB scratch file (3.0 s)");
  auto v = node.judge();
  EXPECT_EQ(v.verdict, Verdict::incomplete);
  EXPECT_EQ(v.exit_code(), 1);
  EXPECT_EQ(v.reasons,
            std::vector<std::string>{"/var/tmp/mlbench-burnin-1.dat: the storage write-verify-read is "
                                     "incomplete: stopped after 40 % of one verified pass over the "
                                     "1.00 GiB scratch file (3.0 s)"});
  for (const auto& g : v.gpus) EXPECT_EQ(g.verdict, Verdict::pass);

  // A GPU's phase cut short: the GPU is judged on what ran, the node is incomplete.
  Node gpu_cut = healthy_node();
  cut_short(gpu_cut.result("burnin.hbm", "gpu2"), "stopped after 10 % of one pattern pass");
  v = gpu_cut.judge();
  EXPECT_EQ(v.verdict, Verdict::incomplete);
  EXPECT_EQ(v.gpus[2].verdict, Verdict::pass);
  ASSERT_EQ(v.reasons.size(), 1u);
  EXPECT_EQ(v.reasons[0], "gpu2: the HBM pattern test is incomplete: stopped after 10 % of one pattern pass");

  // A fail outranks it, and both are said.
  node.gpus[1].lost = true;
  v = node.judge();
  EXPECT_EQ(v.verdict, Verdict::fail);
  EXPECT_EQ(v.reasons.size(), 2u);
}

TEST(BurninVerdict, APhaseThatCouldNotRunIsSkippedNotIncomplete) {
  Node node = healthy_node();
  auto& mem = node.result("burnin.hostmem", "host");
  mem.status = Status::skipped;
  mem.reason =
      "hostmem: 0.5 of the 1.20 GiB available, keeping 1.00 GiB free, is 0 B: under the 64.00 MiB "
      "worth testing";
  mem.metrics.clear();
  auto v = node.judge();
  EXPECT_EQ(v.verdict, Verdict::pass);
  EXPECT_TRUE(v.reasons.empty());
}

// The verdict in words, from a report's results: the counts it rests on, then each phase passed (with its
// verified passes), incomplete or failed, and the skipped ones grouped by reason.
TEST(BurninBanner, SaysWhatPassedWhatWasSkippedAndWhyInWords) {
  auto phase = [](const std::string& probe, const std::string& ran, const std::string& device, int passes) {
    Result r = phase_result(probe, device, 1e9, 0, ran);
    r.info["iterations"] = passes;
    return r;
  };
  auto skipped = [](const std::string& probe, const std::string& why) {
    Result r;
    r.probe = "burnin." + probe;
    r.params = Json{{"phase", probe}};
    r.status = Status::skipped;
    r.reason = why;
    return r;
  };
  auto node = [](const std::string& verdict) {
    Result r;
    r.probe = "burnin.node";
    r.info = Json{{"verdict", verdict}};
    return r;
  };
  std::vector<Result> host = {skipped("gemm", "built without CUDA"),
                              skipped("hbm", "built without CUDA"),
                              phase("hostmem", "", "host", 3),
                              phase("storage", "", "/var/tmp/s.dat", 1),
                              phase("hostmem", "all", "host", 10),
                              phase("storage", "all", "/var/tmp/s.dat", 4),
                              node("pass")};
  EXPECT_EQ(
      burnin_report::verdict_banner(host),
      "PASS (3 of 3 phases passed; 2 skipped; no GPU) — hostmem passed (3 verified passes); storage "
      "passed (1 verified pass); all passed (hostmem 10, storage 4 verified passes); gemm, hbm skipped: "
      "built without CUDA");

  cut_short(host[3], "stopped after 40 % of one verified pass over the 1.00 GiB scratch file (3.0 s)");
  host.back() = node("incomplete");
  EXPECT_EQ(burnin_report::verdict_banner(host),
            "INCOMPLETE (2 of 3 phases passed, 1 incomplete; 2 skipped; no GPU) — hostmem passed (3 verified "
            "passes); storage incomplete: stopped after 40 % of one verified pass over the 1.00 GiB scratch "
            "file (3.0 s); all passed (hostmem 10, storage 4 verified passes); gemm, hbm skipped: built "
            "without CUDA");

  std::vector<Result> gpus = {phase("gemm", "", "gpu0", 400), phase("gemm", "", "gpu1", 380)};
  gpus[1].status = Status::incorrect;
  for (const char* v : {"pass", "fail"}) {
    Result g;
    g.probe = "burnin.gpu";
    g.info = Json{{"verdict", v}};
    gpus.push_back(g);
  }
  gpus.push_back(node("fail"));
  EXPECT_EQ(burnin_report::verdict_banner(gpus),
            "FAIL (0 of 1 phase passed, 1 failed; 2 GPUs: 1 pass, 0 warn, 1 fail) — gemm failed on gpu1");
}

// A burn-in report of `rates` GEMM TFLOPS per GPU; the first GPU is named by the inventory (uuid), the others
// by params.name.
Report burnin_report_of(const std::string& host, const std::string& model, const std::vector<double>& rates) {
  Report r;
  r.tool = tool_info();
  r.host = Json{{"hostname", host}, {"gpus", Json::array()}};
  r.run = Json{{"started_utc", "2026-12-01T10:00:00Z"}, {"duration_s", 1800}};
  for (std::size_t i = 0; i < rates.size(); ++i) {
    auto uuid = fmt::format("GPU-{}-{}", host, i);
    r.host["gpus"].push_back({{"index", i}, {"uuid", uuid}, {"name", model}});
    Result g;
    g.probe = "burnin.gpu";
    g.params = Json{{"device", fmt::format("gpu{}", i)}, {"uuid", uuid}};
    if (i > 0) g.params["name"] = model;
    g.add_metric("gemm_tflops", rates[i] * kTflops, "FLOP/s");
    g.add_metric("hbm_bandwidth", kHbm, "B/s");
    g.add_metric("sm_clock_hz", 1.98e9, "Hz");  // a summary, not a rate key
    r.results.push_back(g);
  }
  return r;
}

TEST(BurninBaseline, MediansPerKeyOverTheGpusOfOneModel) {
  test::TempDir dir;
  write_report(dir / "node01.json", burnin_report_of("node01", "H100", {1.0, 1.1, 0.9}));
  write_report(dir / "node02.json", burnin_report_of("node02", "H100", {1.2, 1.3}));
  write_report(dir / "node03.json", burnin_report_of("node03", "A100", {0.3, 0.3, 0.3}));
  auto files = baseline_medians({(dir / "node01.json").string(), (dir / "node02.json").string()}, "H100");
  EXPECT_EQ(files.size(), 2u);
  EXPECT_DOUBLE_EQ(files.at("gemm_tflops"), 1.1 * kTflops);  // median of 1.0 1.1 0.9 1.2 1.3
  EXPECT_DOUBLE_EQ(files.at("hbm_bandwidth"), kHbm);
  // The folder holds the A100 node too; only the H100s count.
  EXPECT_EQ(baseline_medians({dir.path().string()}, "H100"), files);
  EXPECT_DOUBLE_EQ(baseline_medians({dir.path().string()}, "A100").at("gemm_tflops"), 0.3 * kTflops);
  EXPECT_THROW(baseline_medians({dir.path().string()}, "B200"), UsageError);
}

TEST(BurninBaseline, APathWithoutBurninResultsIsBadInput) {
  test::TempDir dir;
  Report plain;
  plain.tool = tool_info();
  plain.run = Json{{"started_utc", "2026-12-01T10:00:00Z"}};
  Result gemm;
  gemm.probe = "gpu.gemm";
  gemm.add_metric("tflops", kTflops, "FLOP/s");
  plain.results.push_back(gemm);
  std::filesystem::create_directory(dir / "plain");
  write_report(dir / "plain" / "run.json", plain);
  write_report(dir / "burnin.json", burnin_report_of("node01", "H100", {1.0}));
  try {
    baseline_medians({(dir / "burnin.json").string(), (dir / "plain").string()}, "H100");
    FAIL() << "a folder of a non-burn-in report was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find((dir / "plain").string()), std::string::npos) << e.what();
  }
  EXPECT_THROW(baseline_medians({(dir / "missing").string()}, "H100"), UsageError);
}

}  // namespace
}  // namespace mlbench::burnin
