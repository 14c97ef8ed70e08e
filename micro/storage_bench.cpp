// Micro-benchmarks of the storage probe's hot paths: the histogram's record path, the clock read taken once
// per completion batch, the whole job loop on the null engine (mlbench's own cost per I/O, no kernel), and
// storage.dataload's reader loop on the null engine (feed, prefetch queue and accelerator hand-off per file).
#include <time.h>

#include <benchmark/benchmark.h>

#include <atomic>
#include <random>
#include <vector>

#include "storage/dataload/reader.hpp"
#include "storage/histogram.hpp"
#include "storage/io/job.hpp"

namespace {

using mlbench::storage::LatencyHistogram;

void BM_HistogramRecord(benchmark::State& state) {
  std::mt19937_64 rng(1);
  std::lognormal_distribution<double> dist(11.0, 1.0);
  std::vector<std::uint64_t> values(4096);
  for (auto& v : values) v = static_cast<std::uint64_t>(dist(rng));
  LatencyHistogram h;
  std::size_t i = 0;
  for (auto _ : state) {
    h.record(values[i++ & 4095]);
  }
  benchmark::DoNotOptimize(h.count());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HistogramRecord);

void BM_ClockMonotonic(benchmark::State& state) {
  timespec ts;
  for (auto _ : state) {
    clock_gettime(CLOCK_MONOTONIC, &ts);
    benchmark::DoNotOptimize(ts);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ClockMonotonic);

// One 4k random-read job of 2^18 I/Os per iteration on the null engine: items/s is the loop's ceiling.
void BM_NullEngineSubmissionLoop(benchmark::State& state) {
  mlbench::storage::JobPlan plan;
  plan.spec.rw = mlbench::storage::RwMode::randread;
  plan.spec.iodepth = static_cast<unsigned>(state.range(0));
  plan.spec.number_ios = 1 << 18;
  plan.engine = mlbench::storage::EngineKind::null;
  plan.targets.push_back({"null", -1, 0, std::uint64_t{1} << 30, false});
  std::atomic<bool> stop{false};
  for (auto _ : state) {
    auto out =
        mlbench::storage::run_job(plan, stop, std::chrono::steady_clock::now() + std::chrono::minutes(1));
    benchmark::DoNotOptimize(out.total.ios);
  }
  state.SetItemsProcessed(state.iterations() * (std::int64_t{1} << 18));
}
BENCHMARK(BM_NullEngineSubmissionLoop)->Arg(1)->Arg(32)->Unit(benchmark::kMillisecond);

// One epoch of 2^14 one-sample files per iteration through the dataload reader loop on the null engine, with
// zero step time and `range(0)` accelerators (each one reader thread): items/s is files/s the loop can hand
// out, the ceiling above which the storage, not mlbench, is what a dataload run measures.
void BM_DataloadNullReaderLoop(benchmark::State& state) {
  constexpr std::size_t kFiles = std::size_t{1} << 14;
  std::vector<mlbench::storage::DataFile> files(kFiles, mlbench::storage::DataFile{"null", 323000});
  mlbench::storage::LoadConfig cfg;
  cfg.files = &files;
  cfg.engine = mlbench::storage::EngineKind::null;
  cfg.accelerators = static_cast<unsigned>(state.range(0));
  cfg.batch_size = 24;
  cfg.epochs = 1;
  std::atomic<bool> stop{false};
  for (auto _ : state) {
    auto out = mlbench::storage::run_dataload(cfg, stop);
    benchmark::DoNotOptimize(out.files);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kFiles));
}
BENCHMARK(BM_DataloadNullReaderLoop)->Arg(1)->Arg(4)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
