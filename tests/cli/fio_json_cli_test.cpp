// fio's JSON from mlbench: `mlbench storage --output-format=fio-json` and `mlbench export REPORT --format
// fio` write fio's schema (reports/fio_json.hpp) with the report's figures, under the key names and types
// real fio writes: checked against a fixture of fio-3.33's own output (tests/data/fio/fio-3.33-randrw.json,
// fio run on the job file beside it) and, where fio is installed, against fio's output for the same tiny job.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_util.hpp"
#include "tests/storage/storage_test_util.hpp"

namespace mlbench::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json read_json(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

const json& metric(const json& result, const std::string& name) {
  for (const auto& m : result["metrics"])
    if (m["name"] == name) return m;
  static const json none;
  ADD_FAILURE() << "no metric " << name;
  return none;
}

// Every key path of `ours` (objects only; arrays by their first element; "job options" and the percentile
// names, which are values rather than schema, left out) that `fio` lacks, or has with another JSON type.
void compare_shape(const json& ours, const json& fio, const std::string& path,
                   std::vector<std::string>& bad) {
  for (const auto& [key, value] : ours.items()) {
    const std::string here = path + "/" + key;
    if (key == "job options" || key == "global options" || key == "percentile") continue;
    if (!fio.contains(key)) {
      bad.push_back(here + " (not in fio's)");
      continue;
    }
    const json& theirs = fio[key];
    const bool both_numbers = value.is_number() && theirs.is_number();
    if (!both_numbers && value.type() != theirs.type()) {
      bad.push_back(here + " (type " + value.type_name() + ", fio's " + theirs.type_name() + ")");
    } else if (value.is_object()) {
      compare_shape(value, theirs, here, bad);
    } else if (value.is_array() && !value.empty() && !theirs.empty()) {
      compare_shape(value[0], theirs[0], here + "[0]", bad);
    }
  }
}

// The keys fio's readers need (fio-plot: jobs[].job options, read/write bw, iops, iops_stddev, lat_ns mean
// and stddev, latency_ns/us/ms, usr_cpu, sys_cpu; dashboards: clat_ns percentiles, disk_util).
void expect_fio_keys(const json& j) {
  for (const char* key : {"fio version", "timestamp", "timestamp_ms", "time", "jobs", "disk_util"})
    EXPECT_TRUE(j.contains(key)) << key;
  ASSERT_FALSE(j["jobs"].empty());
  const json& job = j["jobs"][0];
  for (const char* key : {"jobname", "job options", "read", "write", "trim", "usr_cpu", "sys_cpu", "ctx",
                          "latency_ns", "latency_us", "latency_ms", "job_runtime"})
    EXPECT_TRUE(job.contains(key)) << key;
  for (const char* dir : {"read", "write", "trim"}) {
    for (const char* key : {"io_bytes", "io_kbytes", "bw_bytes", "bw", "iops", "runtime", "total_ios",
                            "slat_ns", "clat_ns", "lat_ns", "iops_stddev", "bw_mean"})
      EXPECT_TRUE(job[dir].contains(key)) << dir << "." << key;
    for (const char* key : {"min", "max", "mean", "stddev", "N"})
      EXPECT_TRUE(job[dir]["clat_ns"].contains(key)) << dir << ".clat_ns." << key;
  }
}

// The storage job's fio JSON on stdout carries the report's own figures (the same run's -o report), and an
// export of that report gives the same document.
TEST(FioJsonCli, StorageWritesFiosSchemaWithTheReportsFigures) {
  storage::test::TempDir disk;
  TempDir t;
  const auto report_path = t.path() / "r.json";
  auto r = run_cli({"storage", "--directory", disk.path().string(), "--rw", "randrw", "--rwmixread", "70",
                    "--iodepth", "4", "--size", "8M", "--runtime", "0.5", "--name", "tiny",
                    "--output-format=fio-json", "-o", report_path.string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  const json fio = json::parse(r.out);
  expect_fio_keys(fio);
  const json report = read_json(report_path);
  const json& result = report["results"][0];
  ASSERT_EQ(fio["jobs"].size(), 1u);
  const json& job = fio["jobs"][0];
  EXPECT_EQ(job["jobname"], "tiny");
  EXPECT_EQ(job["job options"]["rw"], "randrw");
  EXPECT_EQ(job["job options"]["iodepth"], "4");
  EXPECT_EQ(job["job options"]["bs"], "4096");
  EXPECT_EQ(job["job options"]["numjobs"], "1");
  EXPECT_EQ(job["job options"]["rwmixread"], "70");
  EXPECT_TRUE(fio["global options"].contains("rw"));  // one job: everything it has is shared
  const std::map<std::string, std::string> dirs{{"read", "reads"}, {"write", "writes"}};
  for (const auto& [dir, count] : dirs) {
    SCOPED_TRACE(dir);
    const json& d = job[dir];
    const std::uint64_t ios = result["work"][count];
    ASSERT_GT(ios, 0u);
    EXPECT_EQ(d["total_ios"], ios);
    EXPECT_EQ(d["io_bytes"], ios * 4096);
    EXPECT_EQ(d["io_kbytes"], ios * 4096 / 1024);
    EXPECT_DOUBLE_EQ(d["iops"].get<double>(), metric(result, dir + "_iops")["value"].get<double>());
    EXPECT_NEAR(d["bw_bytes"].get<double>(), metric(result, dir + "_bandwidth")["value"].get<double>(), 1);
    EXPECT_EQ(d["bw"], d["bw_bytes"].get<std::uint64_t>() / 1024);
    EXPECT_EQ(d["runtime"], std::llround(result["work"]["seconds"].get<double>() * 1000));
    EXPECT_EQ(d["lat_ns"], result["info"]["io_latency"][dir]["lat_ns"]);
    EXPECT_EQ(d["clat_ns"], result["info"]["io_latency"][dir]["clat_ns"]);
    EXPECT_NEAR(d["lat_ns"]["mean"].get<double>() * 1e-9,
                metric(result, dir + "_lat_mean")["value"].get<double>(), 1e-12);
    EXPECT_EQ(d["clat_ns"]["percentile"].size(), 17u);
    EXPECT_TRUE(d["clat_ns"]["percentile"].contains("99.990000"));
    EXPECT_EQ(d["iops_samples"], metric(result, dir + "_iops")["stats"]["n"]);
  }
  EXPECT_EQ(job["trim"]["total_ios"], 0);
  EXPECT_DOUBLE_EQ(job["usr_cpu"].get<double>(), metric(result, "usr_cpu")["value"].get<double>());
  EXPECT_DOUBLE_EQ(job["sys_cpu"].get<double>(), metric(result, "sys_cpu")["value"].get<double>());
  EXPECT_EQ(job["ctx"], result["info"]["rusage"]["ctx"]);
  ASSERT_EQ(fio["disk_util"].size(), result["info"]["disk_stats"].size());
  if (!fio["disk_util"].empty()) {
    EXPECT_EQ(fio["disk_util"][0]["name"], result["info"]["disk_stats"][0]["name"]);
    EXPECT_EQ(fio["disk_util"][0]["read_ios"], result["info"]["disk_stats"][0]["read_ios"]);
    EXPECT_DOUBLE_EQ(fio["disk_util"][0]["util"].get<double>(),
                     result["info"]["disk_stats"][0]["util"].get<double>());
  }

  auto exported = run_cli({"export", report_path.string(), "--format", "fio"});
  ASSERT_EQ(exported.rc, 0) << exported.err;
  EXPECT_EQ(json::parse(exported.out), fio);

  // Its shape is fio's: every key mlbench writes is fio-3.33's, with fio's JSON type.
  const json real = read_json(fs::path(MLBENCH_TEST_DATA_DIR) / "fio" / "fio-3.33-randrw.json");
  expect_fio_keys(real);
  std::vector<std::string> bad;
  compare_shape(fio, real, "", bad);
  // read_sectors and write_sectors are fio's since 3.34 (json_array_add_disk_util); 3.33 has the rest.
  std::erase_if(bad,
                [](const std::string& b) { return b.find("_sectors (not in fio's)") != std::string::npos; });
  EXPECT_TRUE(bad.empty()) << ::testing::PrintToString(bad);
}

// Where fio is installed, a tiny job file through fio itself, then through mlbench on the file fio laid out
// (reads: mlbench does not overwrite a file it did not create): mlbench's keys are a subset of this fio's.
TEST(FioJsonCli, KeysMatchTheInstalledFiosOutput) {
  if (std::system("command -v fio >/dev/null 2>&1") != 0) GTEST_SKIP() << "fio is not installed";
  storage::test::TempDir disk;
  const fs::path job = disk.path() / "tiny.fio", out = disk.path() / "fio.json";
  std::ofstream(job) << "[global]\nioengine=io_uring\ndirect=1\nbs=4k\nsize=4m\nruntime=1\ntime_based\n"
                     << "filename=" << (disk.path() / "data").string()
                     << "\n[tiny]\nrw=randread\niodepth=4\n";
  ASSERT_EQ(std::system(("fio --output-format=json --output=" + out.string() + " " + job.string() +
                         " >/dev/null 2>&1")
                            .c_str()),
            0);
  const json real = read_json(out);
  auto r = run_cli({"storage", "--job", job.string(), "--output-format=fio-json"});
  ASSERT_EQ(r.rc, 0) << r.err;
  const json ours = json::parse(r.out);
  expect_fio_keys(real);
  expect_fio_keys(ours);
  EXPECT_EQ(ours["jobs"][0]["jobname"], real["jobs"][0]["jobname"]);
  std::vector<std::string> bad;
  compare_shape(ours, real, "", bad);
  // read_sectors and write_sectors: fio's since 3.34.
  std::erase_if(bad,
                [](const std::string& b) { return b.find("_sectors (not in fio's)") != std::string::npos; });
  EXPECT_TRUE(bad.empty()) << ::testing::PrintToString(bad);
}

// A report without a storage job's fio figures is bad input for the fio export: one line, exit 2.
TEST(FioJsonCli, ExportOfAReportWithoutStorageFiguresIsBadInput) {
  auto r =
      run_cli({"export", std::string(MLBENCH_TEST_DATA_DIR) + "/reports/cpu_only.json", "--format", "fio"});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("no storage.io result with fio's figures"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_TRUE(r.out.empty());
}

}  // namespace
}  // namespace mlbench::test
