// mlbench compare / check / export through the real binary: exit codes, formats, bad input.
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/cli/cli_util.hpp"

namespace mlbench::test {
namespace {

std::string data(const std::string& name) { return std::string(MLBENCH_TEST_DATA_DIR) + "/reports/" + name; }

std::size_t lines(const std::string& s) {
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

void expect_bad_input(const CliResult& r, const std::string& file, const std::string& why) {
  EXPECT_EQ(r.rc, 2) << r.out << r.err;
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find(file), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

// cpu_only.json with its results replaced by GPU probes skipped for `reason`: a run on a host without a GPU.
std::string write_gpu_skipped_report(const std::filesystem::path& dir, const std::string& name) {
  auto j = nlohmann::json::parse(std::ifstream(data("cpu_only.json")));
  j["results"] = nlohmann::json::array();
  for (const char* probe : {"gpu.gemm", "gpu.hbm"}) {
    j["results"].push_back({{"probe", probe},
                            {"params", nlohmann::json::object()},
                            {"status", "skipped"},
                            {"reason", "no NVIDIA driver"},
                            {"metrics", nlohmann::json::array()},
                            {"samples", nlohmann::json::array()},
                            {"warnings", nlohmann::json::array()},
                            {"info", nlohmann::json::object()}});
  }
  auto path = dir / name;
  std::ofstream(path) << j.dump(1);
  return path.string();
}

TEST(ReportsCli, CompareOfReportsThatMeasuredNothingInCommonIsBadInput) {
  TempDir dir;
  auto a = write_gpu_skipped_report(dir.path(), "a.json");
  auto b = write_gpu_skipped_report(dir.path(), "b.json");
  expect_bad_input(run_cli({"compare", a, b}), "b.json", "no results in common with");
}

// A node whose GPU probes were all skipped (a broken driver) fails acceptance, naming what was not measured.
TEST(ReportsCli, CheckFailsWhatWasNotMeasuredUnlessAllowed) {
  TempDir dir;
  auto report = write_gpu_skipped_report(dir.path(), "node.json");
  std::string h100 = std::string(MLBENCH_SOURCE_DIR) + "/configs/acceptance/h100-sxm.yaml";
  auto r = run_cli({"check", report, "--expect", h100});
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("0 pass, 0 warn, 7 fail"), std::string::npos) << r.out;
  // The last line is the verdict with its counts.
  EXPECT_NE(
      r.out.find("\ncheck: fail — 7 of 7 checks failed, 0 warned, 0 passed; 7 rules from H100 SXM node\n"),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("not measured: gpu.gemm skipped — no NVIDIA driver"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not measured: no net.nccl result matches this rule"), std::string::npos) << r.out;
  auto allowed = run_cli({"check", report, "--expect", h100, "--allow-missing"});
  EXPECT_EQ(allowed.rc, 0) << allowed.out << allowed.err;
  EXPECT_NE(allowed.out.find("0 pass, 7 warn, 0 fail"), std::string::npos) << allowed.out;
}

// Without --expect too: a report of a node that measured nothing is a valid report of a failed node, not bad
// input; check fails it (exit 1) with the reason each catalog probe was not measured.
TEST(ReportsCli, CheckAgainstTheCatalogFailsANodeThatMeasuredNothing) {
  TempDir dir;
  auto report = write_gpu_skipped_report(dir.path(), "node.json");
  auto r = run_cli({"check", report});
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("not measured: gpu.gemm skipped — no NVIDIA driver"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not measured: gpu.hbm skipped — no NVIDIA driver"), std::string::npos) << r.out;
  auto allowed = run_cli({"check", report, "--allow-missing"});
  EXPECT_EQ(allowed.rc, 0) << allowed.out << allowed.err;
}

// A probe id or metric name that no probe has is a typo: it would match nothing and pass as "not measured"
// (with --allow-missing, exit 0). Bad input instead, naming the closest real name, before any output.
TEST(ReportsCli, CheckRefusesAnUnknownProbeOrMetricNamingTheClosest) {
  TempDir dir;
  auto write = [&](const std::string& name, const std::string& rule) {
    auto path = dir.path() / name;
    std::ofstream(path) << "rules:\n  - {probe: storage.io, metric: iops, min: 1}\n  - " << rule << "\n";
    return path.string();
  };
  const std::string report = data("run_a.json");
  auto probe = write("probe.yaml", "{probe: storage.oi, metric: iops, min: 1}");
  for (auto flags : {std::vector<std::string>{}, std::vector<std::string>{"--allow-missing"}}) {
    std::vector<std::string> args = {"check", report, "--expect", probe};
    args.insert(args.end(), flags.begin(), flags.end());
    auto r = run_cli(args);
    EXPECT_EQ(r.rc, 2) << r.out << r.err;
    EXPECT_EQ(r.err,
              "mlbench: error: " + probe + ": unknown probe 'storage.oi' (did you mean 'storage.io'?)\n");
    EXPECT_EQ(r.out, "");
  }
  auto metric = write("metric.yaml", "{probe: storage.io, metric: iosp, min: 1}");
  auto m = run_cli({"check", report, "--expect", metric, "--allow-missing"});
  EXPECT_EQ(m.rc, 2) << m.out << m.err;
  EXPECT_EQ(m.err,
            "mlbench: error: " + metric + ": unknown metric 'iosp' of storage.io (did you mean 'iops'?)\n");
  EXPECT_EQ(m.out, "");
  // Nothing close: the known names are listed instead.
  auto far = write("far.yaml", "{probe: gpu.gemm, metric: speed, min: 1}");
  auto f = run_cli({"check", report, "--expect", far});
  EXPECT_EQ(f.rc, 2) << f.out << f.err;
  EXPECT_NE(f.err.find("unknown metric 'speed' of gpu.gemm (known: tflops, tflops_best,"), std::string::npos)
      << f.err;
}

// CSV for spreadsheets: the header first, no comment lines, and the column `number` of every data row
// either empty or a plain number (no unit, no thousands separators, no "%").
void expect_data_csv(const std::string& csv, const std::string& header, std::size_t number) {
  std::istringstream in(csv);
  std::string line;
  ASSERT_TRUE(std::getline(in, line)) << csv;
  EXPECT_EQ(line, header);
  std::size_t rows = 0;
  while (std::getline(in, line)) {
    ++rows;
    EXPECT_NE(line.front(), '#') << line;
    // Up to column `number`, no field here holds a quoted comma (probe, params and names are plain).
    std::size_t pos = 0;
    for (std::size_t c = 0; c < number && pos != std::string::npos; ++c) pos = line.find(',', pos) + 1;
    ASSERT_NE(pos, std::string::npos) << line;
    std::string field = line.substr(pos, line.find(',', pos) - pos);
    if (field.empty()) continue;
    std::size_t used = 0;
    EXPECT_NO_THROW((void)std::stod(field, &used)) << line;
    EXPECT_EQ(used, field.size()) << field << " in " << line;
  }
  EXPECT_GT(rows, 0u) << csv;
}

TEST(ReportsCli, CompareTwoRunsFailsOnTheRegression) {
  auto r = run_cli({"compare", data("run_a.json"), data("run_b.json")});
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.out.find("regression"), std::string::npos);
  EXPECT_NE(r.out.find("status changes"), std::string::npos);
  EXPECT_NE(r.out.find("results in one report only"), std::string::npos);
  EXPECT_EQ(r.out.find('\033'), std::string::npos);  // not a terminal: no colour
  // The last line is the verdict with the counts it rests on.
  EXPECT_NE(r.out.find("compare: regression — "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" metrics; "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("result(s) in one report only"), std::string::npos) << r.out;
  EXPECT_EQ(run_cli({"compare", "--no-fail", data("run_a.json"), data("run_b.json")}).rc, 0);
  r = run_cli({"compare", data("run_a.json"), data("run_a.json")});
  EXPECT_EQ(r.rc, 0);
  EXPECT_NE(r.out.find("compare: pass — 0 regression(s)"), std::string::npos) << r.out;
}

// --base-runs: more runs of the base's machine give its reports the spread between runs (a note says so);
// each takes one file, so the reports after it stay the ones compared; a run of another machine is refused
// with one line naming it (a band set by another machine's runs would judge nothing).
TEST(ReportsCli, CompareBaseRunsAreRunsOfTheBaseMachine) {
  auto r = run_cli({"compare", "--format", "json", "--no-fail", "--base-runs", data("run_a.json"),
                    data("run_a.json"), data("run_b.json")});
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["comparisons"].size(), 1u);
  const auto& notes = j["comparisons"][0]["notes"];
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const nlohmann::json& n) {
    return n.get<std::string>().find("repeated runs of gpu-node-17 (2 runs)") != std::string::npos;
  })) << notes.dump();
  expect_bad_input(
      run_cli({"compare", "--base-runs", data("fleet/node01.json"), data("run_a.json"), data("run_b.json")}),
      "node01.json", "not of the base's machine gpu-node-17");
}

TEST(ReportsCli, CompareFormats) {
  auto json =
      run_cli({"compare", "--format", "json", "--threshold", "50", data("run_a.json"), data("run_b.json")});
  auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["comparisons"][0]["summary"]["regressions"], 0);    // −10 % is inside a 50 % threshold...
  EXPECT_EQ(j["comparisons"][0]["summary"]["regression"], true);  // ...but ok → failed still counts
  EXPECT_EQ(json.rc, 1);
  auto md = run_cli({"compare", "--format", "md", data("run_a.json"), data("run_b.json")});
  EXPECT_NE(md.out.find("| probe | params | metric |"), std::string::npos);
  auto csv = run_cli({"compare", "--format", "csv", data("run_a.json"), data("run_b.json")});
  expect_data_csv(
      csv.out,
      "base_report,other_report,probe,params,metric,unit,base,other,change_pct,noise_band_pct,verdict", 6);
  EXPECT_NE(csv.out.find(",tflops,FLOP/s,"), std::string::npos) << csv.out;  // the unit in its own column
  EXPECT_NE(csv.out.find("status ok -> failed"), std::string::npos) << csv.out;
  auto check = run_cli({"check", "--format", "csv", data("run_a.json")});
  expect_data_csv(check.out, "grade,probe,device,params,metric,unit,value,min,max,warn_pct,detail", 6);
  auto fleet = run_cli({"compare", "--fleet", "--format", "csv", data("fleet")});
  expect_data_csv(fleet.out, "host,device,uuid,side,probe,params,metric,unit,value,median,deviation_pct,z",
                  8);
  EXPECT_NE(
      fleet.out.find(
          "node07,gpu1,GPU-0701a1f3-7c2e-4b8d-9e51-000000000001,worse,gpu.hbm,kernel=triad,bandwidth,B/s,"),
      std::string::npos)
      << fleet.out;
  TempDir dir;
  auto html = dir.path() / "cmp.html";
  auto h =
      run_cli({"compare", "--format", "html", "-o", html.string(), data("run_a.json"), data("run_b.json")});
  EXPECT_EQ(h.rc, 1);
  EXPECT_EQ(h.out, "");
  std::ifstream in(html);
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first, "<!DOCTYPE html>");
}

TEST(ReportsCli, DifferentToolVersionsCompareWithANote) {
  TempDir dir;
  auto j = nlohmann::json::parse(std::ifstream(data("run_a.json")));
  j["tool"]["version"] = "0.2.0";
  std::ofstream(dir.path() / "newer_tool.json") << j.dump();
  auto r = run_cli({"compare", data("run_a.json"), (dir.path() / "newer_tool.json").string()});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("note: reports come from different mlbench versions (0.1.0 vs 0.2.0)"),
            std::string::npos);
}

TEST(ReportsCli, FleetNamesTheBadNodeAndGpu) {
  auto r = run_cli({"compare", "--fleet", data("fleet")});
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.out.find("node07  gpu1 GPU-0701"), std::string::npos) << r.out;
  EXPECT_EQ(run_cli({"compare", "--fleet", "--no-fail", data("fleet")}).rc, 0);
  auto few = run_cli({"compare", "--fleet", data("run_a.json"), data("run_b.json")});
  EXPECT_EQ(few.rc, 2);
  EXPECT_NE(few.err.find("at least 3 reports"), std::string::npos);
}

std::string fleet_hosts(int first, int last) {
  std::string hosts;
  for (int i = first; i <= last; ++i) hosts += fmt::format("{}node{:02}", hosts.empty() ? "" : ",", i);
  return hosts;
}

// A node that was started but wrote no report is named in the fleet verdict and fails the fleet, even with
// --no-fail (which forgives outliers only).
TEST(ReportsCli, FleetExpectNamesTheNodesWithoutAReport) {
  auto r = run_cli({"compare", "--fleet", data("fleet"), "--expect", fleet_hosts(1, 13), "--no-fail"});
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("node13  missing  no report"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fleet verdict: fail — missing: node13 (no report); "), std::string::npos) << r.out;
  EXPECT_EQ(run_cli({"compare", "--fleet", data("fleet"), "--expect", fleet_hosts(1, 12), "--no-fail"}).rc,
            0);

  TempDir dir;
  std::ofstream(dir / "hosts.txt") << "node01\nnode02\nnode99\n";
  auto json = run_cli({"compare", "--fleet", data("fleet"), "--expect", "@" + (dir / "hosts.txt").string(),
                       "--format", "json"});
  EXPECT_EQ(json.rc, 1) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["missing"], nlohmann::json::array({"node99"}));
  EXPECT_EQ(j["verdict"], "fail");
  EXPECT_EQ(
      j["notes"].back(),
      "reports from hosts not expected: node03, node04, node05, node06, node07, node08, node09, node10, "
      "node11, node12");
}

// A fleet run where no node wrote its report: the empty folder is every expected host missing, not bad input.
TEST(ReportsCli, FleetExpectOverAnEmptyFolderNamesEveryHost) {
  TempDir dir;
  auto r = run_cli({"compare", "--fleet", dir.path().string(), "--expect", "node01,node02"});
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("fleet verdict: fail — missing: node01, node02 (no report)"), std::string::npos)
      << r.out;
  EXPECT_EQ(run_cli({"compare", "--fleet", dir.path().string()}).rc, 2);
}

TEST(ReportsCli, FleetExpectBadInput) {
  expect_bad_input(run_cli({"compare", data("run_a.json"), data("run_b.json"), "--expect", "node01"}),
                   "--expect", "needs --fleet");
  expect_bad_input(run_cli({"compare", "--fleet", data("fleet"), "--expect", "@/nonexistent/hosts.txt"}),
                   "/nonexistent/hosts.txt", "cannot read");
  expect_bad_input(run_cli({"compare", "--fleet", data("fleet"), "--expect", ","}), "--expect",
                   "names no host");
}

// A burn-in report whose node verdict failed fails the fleet and names the node, whatever its numbers.
TEST(ReportsCli, FleetFailsOnAFailedBurninNode) {
  TempDir dir;
  for (const char* node : {"node01.json", "node02.json", "node03.json"})
    std::filesystem::copy_file(data(std::string("fleet/") + node), dir / node);
  auto r = run_cli({"compare", "--fleet", dir.path().string()});
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(std::ifstream(dir / "node02.json"));
  j["results"].push_back(
      {{"probe", "burnin.node"},
       {"params", nlohmann::json::object()},
       {"status", "failed"},
       {"reason", "gpu1: 12 bad words in the HBM pattern"},
       {"metrics", nlohmann::json::array()},
       {"info", {{"verdict", "fail"}, {"reasons", {"gpu1: 12 bad words in the HBM pattern"}}}}});
  std::ofstream(dir / "node02.json") << j.dump();
  auto failed = run_cli({"compare", "--fleet", dir.path().string(), "--no-fail"});
  EXPECT_EQ(failed.rc, 1) << failed.out << failed.err;
  EXPECT_NE(failed.out.find("node02  failed   burnin.node: gpu1: 12 bad words in the HBM pattern"),
            std::string::npos)
      << failed.out;
  EXPECT_NE(
      failed.out.find("fleet verdict: fail — failed burn-in: node02 (gpu1: 12 bad words in the HBM pattern)"),
      std::string::npos)
      << failed.out;
}

// One unreadable file in a fleet folder is left out with a warning naming it; the rest is analysed.
TEST(ReportsCli, FleetLeavesOutUnreadableReports) {
  TempDir dir;
  for (const char* node : {"node01.json", "node02.json", "node07.json"})
    std::filesystem::copy_file(data(std::string("fleet/") + node), dir.path() / node);
  std::filesystem::copy_file(data("truncated.json"), dir.path() / "truncated.json");
  auto r = run_cli({"compare", "--fleet", dir.path().string()});
  EXPECT_EQ(r.rc, 1) << r.out << r.err;  // node07's slow GPU, as in the whole fleet
  EXPECT_NE(r.out.find("node07"), std::string::npos) << r.out;
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("warning: left out, unreadable: " + (dir.path() / "truncated.json").string() +
                       ": not valid JSON"),
            std::string::npos)
      << r.err;
  std::filesystem::remove(dir.path() / "node02.json");
  auto few = run_cli({"compare", "--fleet", dir.path().string()});
  EXPECT_EQ(few.rc, 2) << few.out << few.err;
  EXPECT_NE(few.err.find("at least 3 readable reports (got 2; 1 unreadable: "), std::string::npos) << few.err;
}

TEST(ReportsCli, BadInputIsOneLineNamingTheFile) {
  expect_bad_input(run_cli({"compare", data("run_a.json"), data("truncated.json")}), "truncated.json",
                   "not valid JSON");
  expect_bad_input(run_cli({"compare", data("run_a.json"), data("not_mlbench.json")}), "not_mlbench.json",
                   "not an mlbench report");
  expect_bad_input(run_cli({"compare", data("run_a.json"), data("newer_major.json")}), "newer_major.json",
                   "newer than this mlbench understands");
  expect_bad_input(run_cli({"compare", data("run_a.json"), data("cpu_only.json")}), "cpu_only.json",
                   "no results in common");
  expect_bad_input(run_cli({"compare", data("run_a.json"), data("missing.json")}), "missing.json",
                   "cannot open");
  expect_bad_input(run_cli({"check", data("truncated.json")}), "truncated.json", "not valid JSON");
  expect_bad_input(run_cli({"export", data("newer_major.json"), "--format", "prometheus"}),
                   "newer_major.json", "newer");
}

TEST(ReportsCli, NothingIsWrittenOnBadInput) {
  TempDir dir;
  auto out = dir.path() / "cmp.md";
  auto r =
      run_cli({"compare", "--format", "md", "-o", out.string(), data("run_a.json"), data("truncated.json")});
  EXPECT_EQ(r.rc, 2);
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
  auto missing = run_cli(
      {"compare", "-o", (dir.path() / "no" / "x.txt").string(), data("run_a.json"), data("run_b.json")});
  EXPECT_EQ(missing.rc, 2);
  EXPECT_NE(missing.err.find("does not exist"), std::string::npos);
}

TEST(ReportsCli, CheckAgainstCatalogAndThresholdFiles) {
  auto ok = run_cli({"check", data("run_a.json")});
  EXPECT_EQ(ok.rc, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("against catalog"), std::string::npos);
  EXPECT_NE(ok.out.find("warn"), std::string::npos);
  auto bad = run_cli({"check", data("fleet/node07.json")});
  EXPECT_EQ(bad.rc, 1);
  EXPECT_NE(bad.out.find("fail"), std::string::npos);
  std::string h100 = std::string(MLBENCH_SOURCE_DIR) + "/configs/acceptance/h100-sxm.yaml";
  EXPECT_EQ(run_cli({"check", data("fleet/node01.json"), "--expect", h100}).rc, 0);
  auto j = run_cli({"check", data("fleet/node07.json"), "--expect", h100, "--format", "json"});
  EXPECT_EQ(j.rc, 1);
  EXPECT_GT(nlohmann::json::parse(j.out)["summary"]["fail"].get<int>(), 0);
  auto cpu = run_cli({"check", data("cpu_only.json")});
  EXPECT_EQ(cpu.rc, 2);
  EXPECT_NE(cpu.err.find("pass --expect FILE"), std::string::npos);
  TempDir dir;
  std::ofstream(dir.path() / "bad.yaml") << "rules:\n  - {probe: gpu.gemm, metric: tflops}\n";
  auto badfile = run_cli({"check", data("run_a.json"), "--expect", (dir.path() / "bad.yaml").string()});
  EXPECT_EQ(badfile.rc, 2);
  EXPECT_NE(badfile.err.find("bad.yaml: rule 1"), std::string::npos);
}

TEST(ReportsCli, ExportPrometheus) {
  auto r = run_cli({"export", data("run_a.json"), "--format", "prometheus"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("# TYPE mlbench_flop_per_second gauge"), std::string::npos);
  EXPECT_NE(r.out.find("host=\"gpu-node-17\""), std::string::npos);
  TempDir dir;
  auto prom = dir.path() / "mlbench.prom";
  EXPECT_EQ(run_cli({"export", data("run_a.json"), "--format", "prometheus", "-o", prom.string()}).rc, 0);
  EXPECT_TRUE(std::filesystem::file_size(prom) > 1000);
  EXPECT_EQ(run_cli({"export", data("run_a.json"), "--format", "xml"}).rc, 2);
}

}  // namespace
}  // namespace mlbench::test
