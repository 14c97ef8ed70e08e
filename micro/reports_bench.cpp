// Fleet analysis at scale: 1,000 reports of 8-GPU nodes (GEMM, HBM, NCCL, storage results with stats and
// samples, as a default run writes them), in memory and loaded from files. The goal: under 2 s for 1,000.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "reports/fleet.hpp"

namespace {

using mlbench::Json;

mlbench::Result bench_result(std::mt19937& rng, std::string probe, Json params, const char* metric,
                             double value, const char* unit) {
  std::normal_distribution<double> jitter(1.0, 0.004);
  mlbench::Result r;
  r.probe = std::move(probe);
  r.params = std::move(params);
  r.work = Json{{"bytes", 1 << 30}};
  for (int i = 0; i < 30; ++i) r.samples.push_back(1e-3 * jitter(rng));
  // A copy: a reference into r.metrics would dangle once the second add_metric grows the vector.
  const auto stats = mlbench::compute_stats(std::vector<double>(r.samples.begin(), r.samples.end()));
  r.add_metric(metric, value * jitter(rng), unit).stats = stats;
  r.add_metric("pct_of_peak", 77 * jitter(rng), "%").stats = stats;
  return r;
}

mlbench::NamedReport node(int index) {
  std::mt19937 rng(static_cast<unsigned>(index));
  mlbench::NamedReport nr;
  nr.file = fmt::format("node{:04d}.json", index);
  nr.report.tool =
      Json{{"name", "mlbench"}, {"version", "0.1.0"}, {"git_sha", "x"}, {"features", Json::object()}};
  nr.report.host = Json{{"hostname", fmt::format("node{:04d}", index)}, {"gpus", Json::array()}};
  nr.report.run = Json{{"started_utc", "2026-11-28T09:14:03Z"},
                       {"duration_s", 1800},
                       {"argv", Json::array()},
                       {"profile", "default"}};
  for (int dev = 0; dev < 8; ++dev) {
    nr.report.host["gpus"].push_back(Json{{"index", dev},
                                          {"name", "NVIDIA H100 80GB HBM3"},
                                          {"uuid", fmt::format("GPU-{:04d}-{}", index, dev)}});
    for (const char* dtype : {"fp32", "tf32", "bf16", "fp16", "fp8"}) {
      for (int n : {4096, 8192}) {
        nr.report.results.push_back(
            bench_result(rng, "gpu.gemm", {{"dtype", dtype}, {"m", n}, {"n", n}, {"k", n}, {"device", dev}},
                         "tflops", 760e12, "FLOP/s"));
      }
    }
    for (const char* kernel : {"copy", "scale", "add", "triad"}) {
      nr.report.results.push_back(
          bench_result(rng, "gpu.hbm", {{"kernel", kernel}, {"device", dev}}, "bandwidth", 3e12, "B/s"));
    }
  }
  for (int exp = 10; exp <= 32; exp += 2) {
    nr.report.results.push_back(
        bench_result(rng, "net.nccl", {{"op", "all_reduce"}, {"bytes", 1LL << exp}}, "busbw", 360e9, "B/s"));
  }
  for (int qd : {1, 32, 128}) {
    nr.report.results.push_back(bench_result(
        rng, "storage.io", {{"rw", "randread"}, {"bs", 4096}, {"iodepth", qd}}, "iops", 1e6, "1/s"));
  }
  return nr;
}

const std::vector<mlbench::NamedReport>& fleet_in_memory() {
  static const std::vector<mlbench::NamedReport> kFleet = [] {
    std::vector<mlbench::NamedReport> v;
    for (int i = 0; i < 1000; ++i) v.push_back(node(i));
    return v;
  }();
  return kFleet;
}

// The fleet written once as report files into a temp folder (plain writes: fsync of 1,000 files would only
// slow the set-up), removed at exit.
const std::filesystem::path& fleet_on_disk() {
  struct Folder {
    std::filesystem::path path;
    Folder() {
      std::string tmpl = (std::filesystem::temp_directory_path() / "mlbench-fleet-XXXXXX").string();
      if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
      path = tmpl;
      for (const auto& nr : fleet_in_memory())
        std::ofstream(path / nr.file) << mlbench::to_json(nr.report).dump(2);
    }
    ~Folder() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  };
  static const Folder kFolder;
  return kFolder.path;
}

void BM_FleetAnalyze1000(benchmark::State& state) {
  const auto& fleet = fleet_in_memory();
  for (auto _ : state) {
    auto f = mlbench::analyze_fleet(fleet, {});
    benchmark::DoNotOptimize(f.groups.data());
  }
  state.counters["reports"] = static_cast<double>(fleet.size());
}
BENCHMARK(BM_FleetAnalyze1000)->Unit(benchmark::kMillisecond);

void BM_FleetLoadAndAnalyze1000(benchmark::State& state) {
  const auto& dir = fleet_on_disk();
  for (auto _ : state) {
    auto reports = mlbench::load_reports({dir.string()});
    auto f = mlbench::analyze_fleet(reports, {});
    benchmark::DoNotOptimize(f.groups.data());
  }
  state.counters["reports"] = 1000;
}
BENCHMARK(BM_FleetLoadAndAnalyze1000)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
