// The GPU phases' pure checks (burnin/gpu_checks.hpp) and what the GPU phases say on a machine without GPUs:
// the GEMM output hashes held against the majority of their (model, precision) group, the GPUs' burn-in names
// in PCI bus order, the HBM bad-word log, and each phase's unavailable() reason.
#include "burnin/gpu_checks.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>

#include "bench/probe.hpp"
#include "mlbench_config.hpp"

#if MLBENCH_HAS_CUDA
#include "kernels/gpu/plan.hpp"
#include "kernels/gpu/probes.hpp"
#endif

namespace mlbench::burnin {
namespace {

TEST(BurninGemmHashes, AGpuThatDiffersFromTheMajorityIsNamed) {
  std::vector<OutputHash> reports;
  for (const char* dev : {"gpu0", "gpu1", "gpu2", "gpu3"}) {
    for (int run = 0; run < 3; ++run) reports.push_back({dev, "NVIDIA H200", "bf16", "aaaa"});
  }
  EXPECT_TRUE(hash_mismatches(reports).empty());
  reports[7].hash = "bbbb";  // gpu2's second run
  const auto bad = hash_mismatches(reports);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0].index, 7u);
  EXPECT_EQ(bad[0].device, "gpu2");
  EXPECT_NE(bad[0].reason.find("gpu2: bf16 GEMM output hash bbbb differs from aaaa, which 11 of 12 reports"),
            std::string::npos)
      << bad[0].reason;
}

TEST(BurninGemmHashes, GroupsAreModelAndPrecision) {
  // Other models and other precisions give other outputs: each is judged only against its own group.
  const std::vector<OutputHash> reports = {
      {"gpu0", "NVIDIA H200", "bf16", "aaaa"}, {"gpu1", "NVIDIA H200", "bf16", "aaaa"},
      {"gpu0", "NVIDIA H200", "fp8", "cccc"},  {"gpu1", "NVIDIA H200", "fp8", "cccc"},
      {"gpu2", "NVIDIA A100", "bf16", "dddd"}, {"gpu2", "NVIDIA A100", "bf16", "dddd"},
      {"gpu3", "NVIDIA H200", "fp8", "eeee"},
  };
  const auto bad = hash_mismatches(reports);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0].device, "gpu3");
  EXPECT_EQ(bad[0].index, 6u);
}

TEST(BurninGemmHashes, ATieHasNoReferenceAndFlagsEveryGpuOfTheGroup) {
  const std::vector<OutputHash> reports = {{"gpu0", "NVIDIA H200", "bf16", "aaaa"},
                                           {"gpu1", "NVIDIA H200", "bf16", "bbbb"},
                                           {"gpu2", "NVIDIA A100", "bf16", "ffff"}};
  const auto bad = hash_mismatches(reports);
  ASSERT_EQ(bad.size(), 2u);
  EXPECT_EQ(bad[0].device, "gpu0");
  EXPECT_EQ(bad[1].device, "gpu1");
  EXPECT_NE(bad[0].reason.find("disagree"), std::string::npos) << bad[0].reason;
}

TEST(BurninGemmHashes, OneGpuIsHeldToItsOwnRuns) {
  const std::vector<OutputHash> reports = {{"gpu0", "NVIDIA L4", "bf16", "aaaa"},
                                           {"gpu0", "NVIDIA L4", "bf16", "aaaa"},
                                           {"gpu0", "NVIDIA L4", "bf16", "9999"}};
  const auto bad = hash_mismatches(reports);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0].index, 2u);
}

TEST(BurninGpuNames, FollowThePciBusOrderNotTheCudaOrder) {
  // CUDA's default order is fastest first; the telemetry names GPUs by bus id.
  const Json host = {{"gpus",
                      {{{"index", 0}, {"pci_bus_id", "0000:9a:00.0"}},
                       {{"index", 1}, {"pci_bus_id", "0000:1b:00.0"}},
                       {{"index", 2}, {"pci_bus_id", "0000:4c:00.0"}}}}};
  EXPECT_EQ(gpu_device_names(host), (std::vector<std::string>{"gpu2", "gpu0", "gpu1"}));
  const Json no_bus = {{"gpus", {{{"index", 0}}, {{"index", 1}, {"pci_bus_id", "0000:1b:00.0"}}}}};
  EXPECT_EQ(gpu_device_names(no_bus), (std::vector<std::string>{"gpu0", "gpu1"}));
  EXPECT_TRUE(gpu_device_names(Json::object()).empty());
}

TEST(BurninHbmLog, CountsEveryBadWordAndKeepsTheFirstSixteen) {
  BadWordLog log;
  gpu::HbmPatternCounters clean;
  log.add(clean, gpu::hbm_pass(0, 1));
  EXPECT_EQ(log.count(), 0u);
  EXPECT_TRUE(log.to_json().empty());

  gpu::HbmPatternCounters c;
  c.bad_words = 40;
  c.claimed = 40;  // more than were recorded
  for (std::uint32_t i = 0; i < gpu::kHbmRecordedBadWords; ++i)
    c.first[i] = {0x7f0000001000ull + 8 * i, 1, 3};
  log.add(c, gpu::hbm_pass(2, 1));  // walking ones
  log.add(c, gpu::hbm_pass(3, 1));
  EXPECT_EQ(log.count(), 80u);
  const Json j = log.to_json();
  ASSERT_EQ(j.size(), gpu::kHbmRecordedBadWords);
  EXPECT_EQ(j[0]["address"], "0x00007f0000001000");
  EXPECT_EQ(j[0]["expected"], "0x0000000000000001");
  EXPECT_EQ(j[0]["actual"], "0x0000000000000003");
  EXPECT_EQ(j[0]["pattern"], "walking_ones");
  EXPECT_EQ(log.reason("gpu3", 128ull << 30, 4),
            "gpu3: 80 bad words in 128.00 GiB over 4 passes; first at 0x00007f0000001000 (walking_ones: "
            "expected 0x0000000000000001, read 0x0000000000000003)");
}

TEST(BurninPhaseResult, CarriesTheRateThenTheErrors) {
  Result r = phase_result(PhaseId::hbm, "gpu1", "GPU-1234");
  EXPECT_EQ(r.probe, "burnin.hbm");
  EXPECT_EQ(r.params, (Json{{"device", "gpu1"}, {"uuid", "GPU-1234"}}));
  add_iteration_rate(r, "bandwidth", {3e12, 4e12, 5e12}, "B/s");
  add_errors(r, 0, "unused");
  EXPECT_EQ(r.status, Status::ok);
  ASSERT_EQ(r.metrics.size(), 2u);
  EXPECT_EQ(r.metrics[0].name, "bandwidth");
  EXPECT_DOUBLE_EQ(r.metrics[0].value, 4e12);
  EXPECT_EQ(r.metrics[0].stats->n, 3u);
  EXPECT_EQ(r.metrics[1].name, "errors");
  EXPECT_EQ(r.metrics[1].better, Better::lower);

  Result bad = phase_result(PhaseId::gemm, "gpu0", "GPU-0");
  add_iteration_rate(bad, "tflops", {1e15}, "FLOP/s");
  add_errors(bad, 2, "gpu0: 2 runs wrong");
  EXPECT_EQ(bad.status, Status::incorrect);
  EXPECT_EQ(bad.reason, "gpu0: 2 runs wrong");

  // A phase that ended before one iteration finished has no rate: skipped, not ok with "errors" first.
  Result none = phase_result(PhaseId::copy, "gpu2", "GPU-2");
  add_iteration_rate(none, "bandwidth", {}, "B/s");
  EXPECT_TRUE(none.metrics.empty());
  EXPECT_EQ(none.status, Status::skipped);
  EXPECT_EQ(none.reason, "gpu2: no iteration finished before the phase ended");
}

TEST(BurninGpuPhases, SayWhyTheyCannotRunWithoutGpus) {
  const auto phases = make_gpu_phases();
  ASSERT_EQ(phases.size(), 4u);
  EXPECT_EQ(phases[0]->id(), PhaseId::gemm);
  EXPECT_EQ(phases[1]->id(), PhaseId::hbm);
  EXPECT_EQ(phases[2]->id(), PhaseId::copy);
  EXPECT_EQ(phases[3]->id(), PhaseId::nccl);
  const Json none = {{"gpus", Json::array()}, {"notes", {"gpus: the CUDA runtime sees no device"}}};
  const Json one = {{"gpus", {{{"index", 0}, {"name", "NVIDIA H200"}}}}};
  for (const auto& p : phases) {
    const auto why = p->unavailable(none);
    ASSERT_TRUE(why.has_value()) << to_string(p->id());
    if (!MLBENCH_HAS_CUDA) {
      EXPECT_EQ(*why, kBuiltWithoutCuda);
    } else {
      EXPECT_EQ(*why, "no CUDA GPU on this machine: the CUDA runtime sees no device");
    }
  }
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(phases[i]->unavailable(one).has_value(), !MLBENCH_HAS_CUDA);
  const auto nccl = phases[3]->unavailable(one);
  ASSERT_TRUE(nccl.has_value());
  if (MLBENCH_HAS_CUDA && MLBENCH_HAS_NCCL) {
    EXPECT_EQ(*nccl, "all_reduce needs at least 2 GPUs; this host has 1");
  } else if (MLBENCH_HAS_CUDA) {
    EXPECT_NE(nccl->find("built without NCCL"), std::string::npos) << *nccl;
  } else {
    EXPECT_EQ(*nccl, kBuiltWithoutCuda);
  }
}

#if MLBENCH_HAS_CUDA
// On a GPU host: each phase that can run here, for 3 s on every GPU, gives per GPU its rate then no errors.
TEST(BurninGpuPhases, RunCleanOnRealGpus) {
  Json notes = Json::array();
  const Json host = {{"gpus", gpu::gpu_inventory(notes)}, {"notes", notes}};
  if (auto why = gpu::no_gpu_reason(host)) GTEST_SKIP() << *why;
  const std::size_t gpus = host["gpus"].size();
  std::atomic<bool> stop{false};
  for (const auto& p : make_gpu_phases()) {
    if (p->unavailable(host)) continue;
    PhaseContext ctx{host, std::chrono::steady_clock::now() + std::chrono::seconds(3), stop};
    ctx.gpu_memory_fraction = 0.5;
    const auto results = p->run(ctx);
    ASSERT_GE(results.size(), gpus) << to_string(p->id());
    for (const auto& r : results) {
      if (r.status == Status::skipped) continue;
      EXPECT_EQ(r.status, Status::ok) << r.probe << " " << r.params.dump() << ": " << r.reason;
      EXPECT_EQ(r.probe, fmt::format("burnin.{}", to_string(p->id())));
      EXPECT_TRUE(r.params["device"].get<std::string>().starts_with("gpu"));
      ASSERT_EQ(r.metrics.size(), 2u) << r.params.dump();
      EXPECT_GT(r.metrics[0].value, 0);
      EXPECT_EQ(r.metrics[1].name, "errors");
      EXPECT_EQ(r.metrics[1].value, 0);
      EXPECT_GE(r.info["iterations"].get<int>(), 1);
    }
  }
}
#endif

}  // namespace
}  // namespace mlbench::burnin
