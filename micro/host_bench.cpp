// Micro-benchmarks of the host layer: building the inventory from the two-socket fixture tree (run once per
// report and per `sysinfo`), and the STREAM triad loop of each ISA on an L1-resident chunk (the loop's own
// speed, which host.membw must never be limited by).
#include <benchmark/benchmark.h>

#include "bench/sysinfo.hpp"
#include "kernels/host/mapped_array.hpp"
#include "kernels/host/stream.hpp"
#include "mlbench_config.hpp"

namespace mlbench {
namespace {

void BM_CollectHostInfoFixture(benchmark::State& state) {
  SysReader reader(std::filesystem::path(MLBENCH_SOURCE_CONFIG_DIR) / "../tests/data/sysfs/two_socket");
  for (auto _ : state) benchmark::DoNotOptimize(collect_host_info(reader));
}
BENCHMARK(BM_CollectHostInfoFixture);

void BM_TriadInCache(benchmark::State& state) {
  auto isa = static_cast<hostmem::Isa>(state.range(0));
  if (!hostmem::isa_supported(isa)) {
    state.SkipWithError("ISA not supported by this CPU");
    return;
  }
  constexpr std::size_t n = 1024;  // 3 × 8 KiB
  hostmem::MappedArray a(n), b(n), c(n);
  for (std::size_t i = 0; i < n; ++i) {
    b.data()[i] = 2.0;
    c.data()[i] = hostmem::x_of(i);
  }
  auto fn = hostmem::chunk_fn(isa);
  for (auto _ : state) {
    fn(hostmem::Kernel::triad, a.data(), b.data(), c.data(), n, hostmem::kScalar, false);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * n * 24));
  state.SetLabel(std::string(hostmem::to_string(isa)));
}
BENCHMARK(BM_TriadInCache)->DenseRange(0, 3);

}  // namespace
}  // namespace mlbench
