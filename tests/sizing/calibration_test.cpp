#include <gtest/gtest.h>

#include <limits>
#include <regex>

#include "base/error.hpp"
#include "sizing/calibration.hpp"
#include "sizing/sheet.hpp"
#include "tests/sizing/test_util.hpp"

namespace mlbench::sizing::test {
namespace {

Calibration calibrate_on(const char* gpu, const std::vector<Report>& reports, bool same_node) {
  const auto& c = shipped_catalog();
  CalibrationInput in{&c.gpu(gpu), "bf16", {{4096, 11008, 4096}}, same_node};
  return calibrate(reports, c, in);
}

TEST(Calibration, NoReportMeansMethodsDefaults) {
  auto cal = calibrate_on("H100-SXM", {}, false);
  EXPECT_EQ(cal.gemm.source, Source::assumed);
  EXPECT_DOUBLE_EQ(cal.gemm.value, 794.5 / 989);  // the H100's published best-shape BF16 figure
  EXPECT_EQ(cal.hbm.source, Source::assumed);
  EXPECT_NEAR(cal.hbm.value, 2.97e12 / 3.35e12, 1e-9);  // its published BabelStream triad
}

// Serving GEMMs run for minutes: where a GPU and precision have a published sustained figure (cuBLASLt after
// 10,000 warm-up iterations) a serving calibration takes it, a training one keeps the short-run figure (its
// derate holds the sustained clocks); a GPU or precision without one keeps the short-run figure either way.
TEST(Calibration, ServingTakesThePublishedSustainedGemm) {
  const auto& c = shipped_catalog();
  auto at = [&](const char* gpu, const char* precision, bool sustained) {
    CalibrationInput in{&c.gpu(gpu), precision, {{4096, 11008, 4096}}, false, sustained};
    return calibrate({}, c, in).gemm;
  };
  EXPECT_NEAR(at("H200-SXM", "fp8", true).value, 1366.3 / 1979, 1e-12);
  EXPECT_NE(at("H200-SXM", "fp8", true).basis.find("10,000 warm-up iterations"), std::string::npos);
  EXPECT_NEAR(at("H200-SXM", "fp8", false).value, 1453.4 / 1979, 1e-12);
  EXPECT_NEAR(at("A100-SXM4-80GB", "fp16", true).value, 256.5 / 312, 1e-12);
  EXPECT_NEAR(at("A100-SXM4-80GB", "bf16", false).value, 271.2 / 312, 1e-12);
  EXPECT_NEAR(at("A100-SXM4-40GB", "bf16", true).value, at("A100-SXM4-80GB", "bf16", true).value, 1e-12);
  EXPECT_NEAR(at("H200-SXM", "bf16", true).value, 794.5 / 989, 1e-12);  // no sustained BF16 figure
  EXPECT_NEAR(at("B200", "fp8", true).value, 3432.5 / 4500, 1e-12);     // no sustained figure
  // Every sustained figure names a catalog GPU and lies below its short-run figure.
  for (const auto& s : assumption::kPublishedSustainedGemm) {
    ASSERT_NE(find_gpu(c.gpus, s.gpu), nullptr) << s.gpu;
    const GpuSpec& gpu = c.gpu(std::string(s.gpu));
    if (s.fp8 > 0) {
      EXPECT_LT(s.fp8, assumed_gemm_asymptote(gpu, "fp8").value) << s.gpu;
    }
    if (s.bf16 > 0) {
      EXPECT_LT(s.bf16, assumed_gemm_asymptote(gpu, "bf16").value) << s.gpu;
    }
  }
}

// A GPU with a published HBM measurement defaults to it (the A100-80GB's, H100's and H200's BabelStream
// triads), the others to kHbm; a report's gpu.hbm still replaces either.
TEST(Calibration, PublishedHbmMeasurementIsTheDefaultOfItsGpu) {
  auto cal = calibrate_on("A100-SXM4-80GB", {}, false);
  EXPECT_EQ(cal.hbm.source, Source::assumed);
  EXPECT_NEAR(cal.hbm.value, 1724.8e9 / 2039e9, 1e-9);
  EXPECT_NE(cal.hbm.basis.find("BabelStream"), std::string::npos) << cal.hbm.basis;
  EXPECT_DOUBLE_EQ(calibrate_on("A100-SXM4-40GB", {}, false).hbm.value, assumption::kHbm.value);
}

// A published measurement of the target itself is better evidence than an efficiency moved over from another
// GPU: an A100-40GB report's HBM efficiency does not replace the A100-80GB's BabelStream figure, while its
// GEMM efficiency (no published figure) is transferred; on its own GPU the report's HBM is used.
TEST(Calibration, PublishedHbmOfTheTargetBeatsATransferredOne) {
  Report r = load_report(data_dir() / "report-a100-8gpu.json");
  for (auto& g : r.host["gpus"]) g["name"] = "NVIDIA A100-SXM4-40GB";
  for (auto& res : r.results)  // within the 40GB's datasheet 1,555 GB/s: 90 % of it
    if (res.probe == "gpu.hbm")
      for (auto& m : res.metrics)
        if (m.name == "bandwidth") m.value = 1.4e12;
  auto cal = calibrate_on("A100-SXM4-80GB", {r}, false);
  EXPECT_EQ(cal.gemm.source, Source::transferred);
  EXPECT_EQ(cal.hbm.source, Source::assumed);
  EXPECT_NEAR(cal.hbm.value, 1724.8e9 / 2039e9, 1e-9);
  auto own = calibrate_on("A100-SXM4-40GB", {r}, false);
  EXPECT_EQ(own.hbm.source, Source::measured);
  EXPECT_NEAR(own.hbm.value, 1.4e12 / 1555e9, 1e-9);
}

TEST(Calibration, SameGpuIsMeasuredAtTheNearestShape) {
  auto r = load_report(data_dir() / "report-a100-8gpu.json");
  auto cal = calibrate_on("A100-SXM4-80GB", {r}, true);
  EXPECT_EQ(cal.gemm.source, Source::measured);
  // Nearest measured shape to 4096x11008x4096 is the 250 TFLOPS one; the incorrect 500 TFLOPS result is
  // ignored.
  EXPECT_NEAR(cal.gemm.value, 250e12 / 312e12, 1e-9);
  EXPECT_NEAR(cal.hbm.value, 1.78e12 / 2.039e12, 1e-9);
  EXPECT_NEAR(cal.nvlink.value, 232e9 / 300e9, 1e-9);
  EXPECT_EQ(cal.storage_read.source, Source::measured);
  EXPECT_DOUBLE_EQ(cal.storage_read.value, 24.5e9);
  EXPECT_TRUE(cal.warnings.empty());
}

TEST(Calibration, OtherGpuIsTransferredWithAWarning) {
  auto r = load_report(data_dir() / "report-a100-8gpu.json");
  auto cal = calibrate_on("H100-SXM", {r}, false);
  EXPECT_EQ(cal.gemm.source, Source::transferred);
  EXPECT_NEAR(cal.gemm.value, 250e12 / 312e12, 1e-9);
  EXPECT_NE(cal.gemm.basis.find("A100-SXM4-80GB"), std::string::npos);
  EXPECT_EQ(cal.storage_read.source, Source::assumed);
  ASSERT_FALSE(cal.warnings.empty());
  EXPECT_NE(cal.warnings.front().find("transferred"), std::string::npos);
}

// MoE all-to-all: a report's net.nccl alltoall busbw at its largest message is the alltoall figure; without
// one, the all_reduce figure stands in and says so.
TEST(Calibration, AlltoallBusbwIsMeasuredWhenTheReportHasIt) {
  auto r = load_report(data_dir() / "report-a100-8gpu.json");
  auto without = calibrate_on("A100-SXM4-80GB", {r}, true);
  EXPECT_DOUBLE_EQ(without.alltoall_nvlink.value, without.nvlink.value);
  EXPECT_EQ(without.alltoall_nvlink.source, Source::measured);  // the measured all_reduce figure
  EXPECT_NE(without.alltoall_nvlink.basis.find("no alltoall measured"), std::string::npos);
  Result a2a;
  a2a.probe = "net.nccl";
  a2a.params = {{"collective", "alltoall"}, {"bytes", 1073741824}, {"ranks", 8}};
  a2a.metrics.push_back({"busbw", 180e9, "B/s"});
  r.results.push_back(a2a);
  auto with = calibrate_on("A100-SXM4-80GB", {r}, true);
  EXPECT_EQ(with.alltoall_nvlink.source, Source::measured);
  EXPECT_NEAR(with.alltoall_nvlink.value, 180e9 / 300e9, 1e-12);
  EXPECT_NE(with.alltoall_nvlink.basis.find("alltoall busbw 180 GB/s"), std::string::npos);
  EXPECT_NEAR(with.nvlink.value, 232e9 / 300e9, 1e-12);  // all_reduce unchanged
  EXPECT_EQ(calibrate_on("H100-SXM", {}, false).alltoall_network.source, Source::assumed);
}

TEST(Calibration, ReportWithoutGpuLeavesGpuFiguresAssumed) {
  auto r = load_report(data_dir() / "report-cpu-only.json");
  auto cal = calibrate_on("H100-SXM", {r}, false);
  EXPECT_EQ(cal.gemm.source, Source::assumed);
  EXPECT_EQ(cal.hbm.source, Source::assumed);
}

// Every metric of a report at 0, negative, 1e300 or 1e-300: none is a measurement. Each is ignored with a
// warning naming its probe and metric, the figures stay the assumed ones, and the sheet shows no NaN or
// infinity.
TEST(Calibration, MetricsOutsideTheirPhysicalRangeAreIgnoredByName) {
  for (double v : {0.0, -5e11, 1e300, 1e-300, std::numeric_limits<double>::quiet_NaN()}) {
    Report r = load_report(data_dir() / "report-a100-8gpu.json");
    for (auto& res : r.results)
      for (auto& m : res.metrics) m.value = v;
    const auto cal = calibrate_on("A100-SXM4-80GB", {r}, true);
    EXPECT_EQ(cal.gemm.source, Source::assumed) << v;
    EXPECT_EQ(cal.hbm.source, Source::assumed) << v;
    EXPECT_EQ(cal.nvlink.source, Source::assumed) << v;
    EXPECT_EQ(cal.storage_read.source, Source::assumed) << v;
    EXPECT_EQ(cal.host_mem.source, Source::assumed) << v;
    std::string all;
    for (const auto& w : cal.warnings) all += w + "\n";
    for (const char* named : {"gpu.gemm tflops", "gpu.hbm bandwidth", "net.nccl busbw",
                              "storage.io bandwidth", "host.membw bandwidth"})
      EXPECT_NE(all.find(named), std::string::npos) << v << ": " << all;

    PlanRequest req;
    req.workload = load_workload(source_dir() / "configs" / "workloads" / "llm-70b-pretraining.yaml");
    req.reports = {r};
    const std::string sheet = render_sheet(plan(req, shipped_catalog()), Format::text);
    EXPECT_FALSE(std::regex_search(sheet, std::regex(R"(\b(nan|inf)\b)", std::regex::icase))) << v << sheet;
  }
}

// The table of physical ranges answers for the figures the calibration reads; a name it lacks is a clear
// Error naming it, never a read past the table's end.
TEST(Calibration, AFigureWithoutAPhysicalRangeIsAnErrorNamingIt) {
  EXPECT_EQ(physical_range("busbw").unit, "B/s");
  try {
    physical_range("no_such_metric");
    FAIL() << "no error for a metric the table lacks";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'no_such_metric'"), std::string::npos) << e.what();
  }
}

// FP4 GEMMs default to the published B200 NVFP4 figure, below the FP8 one, and say where it comes from.
TEST(Calibration, Fp4DefaultIsThePublishedB200Figure) {
  for (const char* p : {"nvfp4", "mxfp4"}) {
    const auto& a = default_gemm_efficiency(p);
    EXPECT_NEAR(a.value, 3904.3 / 9000, 1e-12);
    EXPECT_LT(a.value, assumption::kGemm8.value);
    EXPECT_NE(std::string(a.basis).find("B200 NVFP4"), std::string::npos) << a.basis;
  }
  EXPECT_DOUBLE_EQ(default_gemm_efficiency("bf16").value, assumption::kGemm16.value);
}

// The FP4 figure was measured on a B200. A GB200 takes it scaled by the two GPUs' published FP8 asymptotes
// (the same tensor cores at the GB200's own clocks), and says so; a GPU without a published FP8 asymptote
// takes the B200's share as it is.
TEST(Calibration, Fp4AsymptoteMovesToOtherGpusByTheirFp8Asymptotes) {
  const auto& c = shipped_catalog();
  auto row = [](std::string_view gpu) {
    for (const auto& p : assumption::kPublishedGemm)
      if (p.gpu == gpu) return p;
    return assumption::PublishedGemm{};
  };
  EXPECT_DOUBLE_EQ(assumed_gemm_asymptote(c.gpu("B200"), "nvfp4").value, assumption::kGemm4.value);
  Figure gb200 = assumed_gemm_asymptote(c.gpu("GB200"), "nvfp4");
  EXPECT_DOUBLE_EQ(gb200.value, assumption::kGemm4.value * row("GB200").fp8 / row("B200").fp8);
  EXPECT_LT(gb200.value, assumption::kGemm4.value);
  EXPECT_NE(gb200.basis.find("GB200's FP8 asymptote"), std::string::npos) << gb200.basis;
  GpuSpec unpublished;
  unpublished.name = "FP4-GPU-without-published-figures";
  EXPECT_DOUBLE_EQ(assumed_gemm_asymptote(unpublished, "mxfp4").value, assumption::kGemm4.value);
  // Other precisions keep their own published figure.
  EXPECT_DOUBLE_EQ(assumed_gemm_asymptote(c.gpu("GB200"), "fp8").value, row("GB200").fp8);
}

}  // namespace
}  // namespace mlbench::sizing::test
