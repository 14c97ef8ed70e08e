// Micro-benchmarks of the framework's hot paths: statistics over sample sets and report write/read.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <random>

#include "base/stats.hpp"
#include "report/report.hpp"

namespace mlbench {
namespace {

std::vector<double> random_samples(std::size_t n) {
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> dist(0.0, 0.1);
  std::vector<double> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

void BM_ComputeStats(benchmark::State& state) {
  auto v = random_samples(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(compute_stats(v));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ComputeStats)->Arg(20)->Arg(1000)->Arg(100000);

Report big_report(std::size_t n) {
  Report r;
  r.tool = tool_info();
  r.run = Json{{"started_utc", "2026-01-01T00:00:00Z"},
               {"duration_s", 1.0},
               {"argv", Json::array()},
               {"profile", "default"}};
  auto samples = random_samples(20);
  for (std::size_t i = 0; i < n; ++i) {
    Result res;
    res.probe = "gpu.gemm";
    res.params = Json{{"dtype", "bf16"}, {"m", 8192}, {"n", 8192}, {"k", static_cast<int>(i)}, {"device", 0}};
    res.work = Json{{"flops", 2.0 * 8192 * 8192 * 8192}};
    res.samples = samples;
    res.metrics.push_back(rate_metric("tflops", 1.1e12, samples, "FLOP/s"));
    r.results.push_back(std::move(res));
  }
  return r;
}

void BM_ReportWriteRead(benchmark::State& state) {
  auto report = big_report(static_cast<std::size_t>(state.range(0)));
  auto path = std::filesystem::temp_directory_path() / "mlbench-micro-report.json";
  for (auto _ : state) {
    write_report(path, report);
    benchmark::DoNotOptimize(load_report(path));
  }
  std::filesystem::remove(path);
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ReportWriteRead)->Arg(100)->Arg(10000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace mlbench
