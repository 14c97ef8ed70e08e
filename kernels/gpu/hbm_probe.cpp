// gpu.hbm: device-memory bandwidth with STREAM/BabelStream kernels (gpu_kernels.cu) and cudaMemcpy D2D.
//
// Bytes per element (FP64 arrays): copy 2, scale 2, add 3, triad 3, dot 2, nstream 4, read 1, write 1 (×8 B);
// cudaMemcpy device-to-device counts read + write (2). bandwidth = bytes / t. Three arrays of ≥ 4× L2 each
// (default free/8 clamped to [4·L2, 1 GiB quick / 2 GiB]); 16-byte accesses; grid = the kernel's own resident
// blocks per SM × SMs. A first, untimed launch loads the kernel (CUDA loads modules lazily, so it takes
// milliseconds), a second sizes the samples (launch_loop.hpp); warm-up samples are dropped; then ≥ 20
// samples, each a CUDA-event-timed loop of ~20 ms of launches. pct_of_peak divides by the catalog's datasheet
// bandwidth, pct_of_theoretical by 2·memory clock·bus width/8. Every array is verified on the device after
// the run against the values the launch count implies (plan.cpp hbm_expected); dot and read sums against
// n·a·b and n·a. Values are constants: plain cudaMalloc memory is not compressed, so the bytes moved do not
// depend on them.
#include <fmt/format.h>

#include "base/units.hpp"
#include "bench/measure.hpp"
#include "kernels/gpu/cuda_util.hpp"
#include "kernels/gpu/gpu_kernels.hpp"
#include "kernels/gpu/hbm_plan.hpp"
#include "kernels/gpu/launch_loop.hpp"
#include "kernels/gpu/probe_util.hpp"
#include "kernels/gpu/probes.hpp"

namespace mlbench::gpu {
namespace {

constexpr double kTolerance = 1e-9;

class HbmProbe : public Probe {
 public:
  ProbeInfo info() const override { return hbm_info(); }

  std::optional<std::string> unavailable(const Json& host) const override { return no_gpu_reason(host); }

  std::vector<Case> plan(const PlanContext& ctx) const override {
    auto facts = live_device_facts(ctx.host);
    std::vector<Case> out;
    for (const auto& h : plan_hbm(ctx.options, ctx.profile, facts, ctx.source)) {
      const auto& d = facts.at(static_cast<std::size_t>(h.device));
      Case c;
      c.label = fmt::format("{} {} GPU{}", h.kernel->name, format_bytes(static_cast<double>(h.array_bytes)),
                            h.device);
      c.params = {{"kernel", h.kernel->name}, {"array_bytes", h.array_bytes}, {"dtype", "fp64"}};
      add_device_params(c.params, d);
      c.estimate_s = 2.0;
      out.push_back(std::move(c));
    }
    return out;
  }

  std::vector<Result> run(const Case& c, RunContext& ctx) override {
    const int device = c.params.at("device").get<int>();
    DeviceFacts d = device_facts(ctx.host, device);
    const HbmKernelSpec& spec = hbm_kernel_spec(c.params.at("kernel").get<std::string>());
    const std::uint64_t array_bytes = c.params.at("array_bytes");
    DeviceGuard guard(device);
    Result r = ctx.make_result(info().id, c);
    const GpuSpec* catalog = catalog_entry(d, r);
    if (array_bytes < 4 * d.l2_bytes) {
      r.warnings.push_back(fmt::format(
          "arrays of {} are smaller than 4x the {} L2: the cache inflates the result",
          format_bytes(static_cast<double>(array_bytes)), format_bytes(static_cast<double>(d.l2_bytes))));
    }

    Stream stream;
    HbmArrays arr;
    int blocks_per_sm = 0;
    MLBENCH_CHECK_CUDA(hbm_blocks_per_sm(spec.kernel, &blocks_per_sm));
    arr.grid = resident_grid(d.sms, blocks_per_sm);
    DeviceBuffer a(array_bytes), b(array_bytes), cbuf(array_bytes);
    DeviceBuffer partial(static_cast<std::size_t>(arr.grid) * sizeof(double));
    DeviceBuffer counter(sizeof(unsigned long long));
    arr.a = a.as<double>();
    arr.b = b.as<double>();
    arr.c = cbuf.as<double>();
    arr.partial = partial.as<double>();
    arr.n = array_bytes / sizeof(double);
    MLBENCH_CHECK_CUDA(hbm_init(arr, stream.get()));

    std::int64_t launches = 0;  // every launch, timed or not: the verification replays them all
    Event start, stop;
    auto timed = [&](int count) {
      return event_timed(stream.get(), start, stop, count, [&] {
        MLBENCH_CHECK_CUDA(hbm_launch(spec.kernel, arr, stream.get()));
        ++launches;
      });
    };
    MeasurePolicy policy;
    policy.warmup_iters = 2;
    policy.warmup_s = 0.1;
    policy.min_samples = 20;
    policy.max_samples = 200;
    policy.min_time_s = 0.3;
    policy.max_time_s = 10;
    const auto loop = time_launch_loop(timed, LoopTarget{0.02, 10000, 1}, policy, d.uuid, r, ctx);
    const auto& samples = loop.samples;
    const int per_sample = loop.launches_per_sample;

    const double bytes = hbm_bytes(spec, array_bytes);
    r.work = {{"bytes", bytes}};
    r.samples = samples;
    Metric bw = rate_metric("bandwidth", bytes, samples, "B/s");
    r.metrics.push_back(bw);
    const double theoretical = theoretical_bandwidth(d.memory_clock_hz, d.bus_width_bits);
    if (catalog) {
      if (auto pct = pct_of(bw.value, catalog->memory_bandwidth))
        r.add_metric("pct_of_peak", *pct, "%").ci = proportional_ci(bw, *pct);
      r.info["datasheet_bandwidth"] = catalog->memory_bandwidth;
    }
    if (auto pct = pct_of(bw.value, theoretical))
      r.add_metric("pct_of_theoretical", *pct, "%").ci = proportional_ci(bw, *pct);
    r.info["theoretical_bandwidth"] = theoretical;
    r.info["grid"] = arr.grid;
    r.info["blocks_per_sm"] = blocks_per_sm;
    r.info["block"] = kHbmBlock;
    r.info["elements"] = arr.n;
    r.info["launches"] = launches;
    r.info["launches_per_sample"] = per_sample;
    r.info["bytes_per_element"] = (spec.reads + spec.writes) * kHbmElementBytes;
    if (spec.kernel == HbmKernel::memcpy) r.info["byte_counting"] = "cudaMemcpy D2D counted as read + write";

    // Verification: every element of every array, and the dot/read sums.
    const HbmValues expect = hbm_expected(spec.kernel, launches, arr.n);
    std::vector<std::string> bad;
    const std::pair<const double*, double> arrays[] = {
        {arr.a, expect.a}, {arr.b, expect.b}, {arr.c, expect.c}};
    const char* names[] = {"a", "b", "c"};
    for (int i = 0; i < 3; ++i) {
      MLBENCH_CHECK_CUDA(cudaMemsetAsync(counter.get(), 0, sizeof(unsigned long long), stream.get()));
      MLBENCH_CHECK_CUDA(count_mismatches(arrays[i].first, arr.n, arrays[i].second, kTolerance,
                                          counter.as<unsigned long long>(), stream.get()));
      unsigned long long wrong = 0;
      MLBENCH_CHECK_CUDA(
          cudaMemcpyAsync(&wrong, counter.get(), sizeof wrong, cudaMemcpyDeviceToHost, stream.get()));
      stream.sync();
      if (wrong)
        bad.push_back(fmt::format("{} elements of {} differ from {}", wrong, names[i], arrays[i].second));
    }
    if (spec.kernel == HbmKernel::dot || spec.kernel == HbmKernel::read) {
      std::vector<double> sums(static_cast<std::size_t>(arr.grid));
      MLBENCH_CHECK_CUDA(
          cudaMemcpy(sums.data(), arr.partial, sums.size() * sizeof(double), cudaMemcpyDeviceToHost));
      double total = 0;
      for (double s : sums) total += s;
      if (!(std::abs(total - expect.sum) <= kTolerance * std::abs(expect.sum))) {
        bad.push_back(fmt::format("sum {} instead of {}", total, expect.sum));
      }
      r.info["sum"] = total;
    }
    r.info["verification"] = {{"arrays_checked", 3}, {"tolerance", kTolerance}, {"bad", bad}};
    if (!bad.empty()) {
      r.status = Status::incorrect;
      r.reason = fmt::format("contents wrong after {} launches: {}", launches, bad.front());
    }
    return {std::move(r)};
  }
};

}  // namespace

std::unique_ptr<Probe> make_hbm_probe() { return std::make_unique<HbmProbe>(); }

}  // namespace mlbench::gpu
