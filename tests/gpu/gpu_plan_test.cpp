#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/error.hpp"
#include "bench/sysinfo.hpp"
#include "kernels/gpu/conv_plan.hpp"
#include "kernels/gpu/copy_plan.hpp"
#include "kernels/gpu/driver_check.hpp"
#include "kernels/gpu/gemm_plan.hpp"
#include "kernels/gpu/hbm_plan.hpp"
#include "kernels/gpu/telemetry.hpp"
#include "reports/summary.hpp"
#include "tests/common/files.hpp"

namespace mlbench::gpu {
namespace {

DeviceFacts h200(int index = 0) {
  DeviceFacts d;
  d.index = index;
  d.name = "NVIDIA H200";
  d.uuid = "GPU-0";
  d.cc = "9.0";
  d.sms = 132;
  d.memory_bytes = 150ull << 30;
  d.free_bytes = 140ull << 30;
  d.l2_bytes = 60ull << 20;
  d.memory_clock_hz = 3.2e9;
  d.bus_width_bits = 6144;
  return d;
}

TEST(GpuPlan, DeviceSelection) {
  EXPECT_EQ(select_devices(Json::object(), Profile::quick, 4), (std::vector<int>{0}));
  EXPECT_EQ(select_devices(Json::object(), Profile::standard, 3), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(select_devices(Json{{"devices", "all"}}, Profile::quick, 2), (std::vector<int>{0, 1}));
  EXPECT_EQ(select_devices(Json{{"devices", "2,0"}}, Profile::standard, 3), (std::vector<int>{2, 0}));
  EXPECT_THROW(select_devices(Json{{"devices", "3"}}, Profile::standard, 2), UsageError);
  EXPECT_THROW(select_devices(Json{{"devices", "0"}}, Profile::standard, 0), UsageError);
  EXPECT_THROW(select_devices(Json{{"devices", "x"}}, Profile::standard, 2), UsageError);
  EXPECT_THROW(select_devices(Json{{"devices", "1,1"}}, Profile::standard, 2), UsageError);
  try {
    select_devices(Json{{"devices", "5"}}, Profile::standard, 2);
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("no GPU 5"), std::string::npos) << e.what();
  }
}

TEST(GpuPlan, GemmFlopsAndSets) {
  EXPECT_DOUBLE_EQ(gemm_flops(8192, 8192, 8192), 2.0 * 8192.0 * 8192.0 * 8192.0);
  EXPECT_DOUBLE_EQ(gemm_flops(2, 3, 4, 5), 240.0);
  const auto& bf16 = precision_spec("bf16");
  GemmShape s{"square", 1024, 1024, 1024};
  EXPECT_EQ(gemm_set_bytes(bf16, s), 2u * 1024 * 1024 * 2);
  // 4 MiB per set against a 60 MiB L2: 30 sets make 120 MiB = 2x L2.
  EXPECT_EQ(gemm_buffer_sets(gemm_set_bytes(bf16, s), 60ull << 20), 30);
  EXPECT_EQ(gemm_buffer_sets(1ull << 30, 60ull << 20), 1);
  EXPECT_EQ(gemm_workspace_bytes(90), 32ull << 20);
  EXPECT_EQ(gemm_workspace_bytes(80), 4ull << 20);
  EXPECT_THROW(precision_spec("fp64"), UsageError);
}

TEST(GpuPlan, GemmPlanAndBadInput) {
  auto cases = plan_gemm(Json::object(), Profile::quick, {h200()});
  ASSERT_EQ(cases.size(), 2u);  // bf16 and fp8 at 8192
  EXPECT_EQ(cases[0].spec->name, "bf16");
  EXPECT_EQ(cases[1].spec->name, "fp8");
  for (const auto& c : cases) {
    // The rotated inputs cover at least 2x L2 and everything fits.
    EXPECT_GE(c.buffer_sets * gemm_set_bytes(*c.spec, c.shape), 2 * h200().l2_bytes);
    EXPECT_EQ(c.workspace, 32ull << 20);
  }
  auto full = plan_gemm(Json::object(), Profile::standard, {h200()});
  EXPECT_EQ(full.size(), 6u * (5 + 8));
  EXPECT_THROW(plan_gemm(Json{{"precisions", "fp4"}}, Profile::standard, {h200()}), UsageError);
  EXPECT_THROW(plan_gemm(Json{{"sizes", "0"}}, Profile::standard, {h200()}), UsageError);
  EXPECT_THROW(plan_gemm(Json{{"shapes", "8x8"}}, Profile::standard, {h200()}), UsageError);
  EXPECT_THROW(plan_gemm(Json{{"precisions", "fp8"}, {"sizes", "1000"}}, Profile::standard, {h200()}),
               UsageError);
  EXPECT_THROW(plan_gemm(Json{{"bogus", 1}}, Profile::standard, {h200()}), UsageError);
  try {
    plan_gemm(Json{{"precisions", "fp32"}, {"sizes", "131072"}}, Profile::standard, {h200()});
    FAIL() << "a 131072^3 fp32 GEMM cannot fit";
  } catch (const UsageError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("GiB"), std::string::npos) << what;
    EXPECT_NE(what.find("free"), std::string::npos) << what;
  }
}

TEST(GpuPlan, TransformerShapes) {
  auto shapes = transformer_shapes(4096);
  ASSERT_EQ(shapes.size(), 8u);
  EXPECT_EQ(shapes[0].name, "llama3-8b.qkv");
  EXPECT_EQ(shapes[0].n, 6144);  // 4096 + 2 * 8 KV heads * 128
  EXPECT_EQ(shapes[2].n, 2 * 14336);
  EXPECT_EQ(shapes[3].k, 14336);
  for (const auto& s : shapes) EXPECT_EQ(s.m, 4096);
}

TEST(GpuPlan, HbmBytesAndExpectations) {
  EXPECT_DOUBLE_EQ(hbm_bytes(hbm_kernel_spec("copy"), 1000), 2000);
  EXPECT_DOUBLE_EQ(hbm_bytes(hbm_kernel_spec("triad"), 1000), 3000);
  EXPECT_DOUBLE_EQ(hbm_bytes(hbm_kernel_spec("nstream"), 1000), 4000);
  EXPECT_DOUBLE_EQ(hbm_bytes(hbm_kernel_spec("dot"), 1000), 2000);
  EXPECT_DOUBLE_EQ(hbm_bytes(hbm_kernel_spec("memcpy"), 1000), 2000);
  EXPECT_DOUBLE_EQ(hbm_bytes(hbm_kernel_spec("write"), 1000), 1000);
  EXPECT_THROW(hbm_kernel_spec("saxpy"), UsageError);
  auto triad = hbm_expected(HbmKernel::triad, 10, 100);
  EXPECT_DOUBLE_EQ(triad.a, 0.2 + kHbmScalar * 0.3);
  auto nstream = hbm_expected(HbmKernel::nstream, 3, 100);
  EXPECT_NEAR(nstream.a, 0.1 + 3 * (0.2 + kHbmScalar * 0.3), 1e-12);
  EXPECT_DOUBLE_EQ(hbm_expected(HbmKernel::dot, 1, 100).sum, 100 * 0.1 * 0.2);
  EXPECT_DOUBLE_EQ(hbm_expected(HbmKernel::copy, 0, 100).c, 0.3);  // nothing ran
}

// Each STREAM kernel's grid comes from its own occupancy: one full wave on every SM. A grid sized from
// Triad's 6 blocks per SM gave Nstream (5 fit at its register count) a second wave of 132 blocks on a 132-SM
// GPU.
TEST(GpuPlan, HbmGridIsOneWaveOfTheKernelsOwnOccupancy) {
  EXPECT_EQ(resident_grid(132, 5), 660);
  EXPECT_EQ(resident_grid(132, 6), 792);
  const int triad_grid = resident_grid(132, 6), nstream_resident = resident_grid(132, 5);
  EXPECT_EQ((triad_grid + nstream_resident - 1) / nstream_resident, 2);  // the old grid's waves for Nstream
  EXPECT_EQ(triad_grid - nstream_resident, 132);                         // blocks in that second wave
  for (int blocks = 1; blocks <= 16; ++blocks) {
    EXPECT_EQ(resident_grid(132, blocks) % 132, 0);
    EXPECT_EQ(resident_grid(132, blocks) / 132, blocks);
  }
  // An occupancy query that reports 0 (a kernel that cannot fit) still launches one block per SM.
  EXPECT_EQ(resident_grid(132, 0), 132);
  EXPECT_EQ(resident_grid(0, 4), 4);
}

// gpu.gemm captures CUDA graphs only for launches short enough that the host's issue time matters: 1024^3
// (~3 us) does, 8192^3 (~0.8 ms in fp8, ~1.6 ms in bf16 on an H200) does not.
TEST(GpuPlan, GemmGraphsOnlyForShortLaunches) {
  EXPECT_TRUE(use_launch_graph(3e-6));
  EXPECT_TRUE(use_launch_graph(1e-4));
  EXPECT_FALSE(use_launch_graph(kGraphBelowSeconds));
  EXPECT_FALSE(use_launch_graph(8e-4));
  EXPECT_FALSE(use_launch_graph(1.6e-3));
}

TEST(GpuPlan, HbmSizing) {
  auto d = h200();
  auto bytes = default_hbm_array_bytes(d, Profile::standard);
  EXPECT_GE(bytes, 4 * d.l2_bytes);
  EXPECT_LE(bytes, 2ull << 30);
  EXPECT_EQ(bytes % (1ull << 20), 0u);
  auto cases = plan_hbm(Json::object(), Profile::standard, {d});
  EXPECT_EQ(cases.size(), hbm_kernel_table().size());
  EXPECT_THROW(plan_hbm(Json{{"size", "100T"}}, Profile::standard, {d}), UsageError);
  EXPECT_THROW(plan_hbm(Json{{"size", "1000"}}, Profile::standard, {d}), UsageError);
  EXPECT_THROW(plan_hbm(Json{{"kernels", "copy,foo"}}, Profile::standard, {d}), UsageError);
  EXPECT_DOUBLE_EQ(theoretical_bandwidth(2.619e9, 5120), 2 * 2.619e9 * 5120 / 8);
  EXPECT_FALSE(pct_of(1, std::nullopt).has_value());
  EXPECT_DOUBLE_EQ(*pct_of(4.3e12, 4.8e12), 100 * 4.3 / 4.8);
}

TEST(GpuPlan, CopyPlan) {
  auto one = plan_copy(Json::object(), Profile::standard, {h200()});
  // 3 directions x (pinned ce, pinned sm, pageable ce); no multi-GPU cases with one GPU.
  EXPECT_EQ(one.size(), 9u);
  for (const auto& c : one) EXPECT_FALSE(c.path == CopyPath::sm_kernel && !c.pinned);
  auto two = plan_copy(Json::object(), Profile::standard, {h200(0), h200(1)});
  EXPECT_EQ(two.size(), 18u + 3u + 1u);
  EXPECT_EQ(two.back().kind, "p2p");
  EXPECT_DOUBLE_EQ(copy_bytes(CopyCase{"host", {0}, CopyDirection::bidir, true, CopyPath::copy_engine, 100}),
                   200);
  EXPECT_THROW(plan_copy(Json{{"directions", "sideways"}}, Profile::standard, {h200()}), UsageError);
  EXPECT_THROW(plan_copy(Json{{"size", "1T"}}, Profile::standard, {h200()}), UsageError);
}

TEST(GpuPlan, ResNet50Table) {
  double per_image = 0;
  int convs = 0;
  for (const auto& l : resnet50_layers()) {
    per_image += l.count * conv_flops(l, 1);
    convs += l.count;
  }
  EXPECT_EQ(convs, 53);  // 1 stem + 16 blocks x 3 + 4 projections
  // ResNet-50's convolutions: about 4.1 GMACs per 224x224 image.
  EXPECT_GT(per_image, 7.6e9);
  EXPECT_LT(per_image, 8.4e9);
  const auto& conv1 = resnet50_layers().front();
  EXPECT_EQ(conv1.p(), 112);
  EXPECT_THROW(plan_conv(Json{{"precisions", "fp8"}}, Profile::standard, {h200()}), UsageError);
  EXPECT_THROW(plan_conv(Json{{"layers", "conv9"}}, Profile::standard, {h200()}), UsageError);
  auto cases = plan_conv(Json::object(), Profile::standard, {h200()});
  EXPECT_EQ(cases.size(), 2 * (resnet50_layers().size() + 1));  // fp16 and bf16, each with the estimate
  EXPECT_EQ(cases.back().layer, nullptr);
  auto quick = plan_conv(Json::object(), Profile::quick, {h200()});
  EXPECT_EQ(quick.size(), 4u);  // the 3x3 stages only: no estimate without every layer
  for (const auto& c : quick) {
    ASSERT_NE(c.layer, nullptr);
    EXPECT_EQ(c.batch, 64);
  }
}

TEST(GpuPlan, ImagesPerSecond) {
  std::vector<ConvLayerTimes> times;
  for (const auto& l : resnet50_layers()) times.push_back({l.name, 1e-3, 2e-3, 3e-3});
  double total = 0;
  for (const auto& l : resnet50_layers()) total += l.count * (l.name == "conv1" ? 4e-3 : 6e-3);
  EXPECT_NEAR(resnet50_images_per_s(times, 256), 256 / total, 1e-9);
  times.pop_back();
  EXPECT_THROW(resnet50_images_per_s(times, 256), Error);
}

// The estimate's spread, which compare judges a change against: each layer's count × its medians' standard
// errors, in quadrature, through batch / sum; the stem's bwd-data, not in the sum, not in its spread either.
TEST(GpuPlan, ImagesPerSecondCarriesTheSpreadOfItsMedians) {
  std::vector<ConvLayerTimes> times;
  for (const auto& l : resnet50_layers()) times.push_back({l.name, 1e-3, 2e-3, 3e-3});
  EXPECT_EQ(resnet50_images_per_s_sigma(times, 256), 0);
  double total = 0, variance = 0;
  for (auto& t : times) {
    t.fwd_se_s = 1e-5;
    t.bwd_data_se_s = 2e-5;
    t.bwd_filter_se_s = 3e-5;
  }
  for (const auto& l : resnet50_layers()) {
    const bool stem = l.name == "conv1";
    total += l.count * (stem ? 4e-3 : 6e-3);
    variance += l.count * l.count * (stem ? 1e-10 + 9e-10 : 1e-10 + 4e-10 + 9e-10);
  }
  const double images = 256 / total;
  EXPECT_NEAR(resnet50_images_per_s_sigma(times, 256), images * std::sqrt(variance) / total, 1e-9 * images);
  EXPECT_GT(resnet50_images_per_s_sigma(times, 256), 0);
}

TEST(GpuPlan, LaunchesPerSample) {
  EXPECT_EQ(launches_per_sample(0.001, 0.02, 1000), 20);
  EXPECT_EQ(launches_per_sample(1.0, 0.02, 1000), 1);
  EXPECT_EQ(launches_per_sample(1e-9, 0.02, 1000), 1000);
  EXPECT_EQ(launches_per_sample(0.0, 0.02, 1000), 1);
}

// A 1024^3 bf16 GEMM runs ~3 us on an H200: each loop holds thousands of launches (autotuning stopped at 50
// before), and an 8192^3 one (~1.4 ms) still gets several per candidate and per sample.
TEST(GpuPlan, GemmLoopsHoldEnoughLaunches) {
  const double small_s = gemm_flops(1024, 1024, 1024) / 700e12,
               large_s = gemm_flops(8192, 8192, 8192) / 800e12;
  EXPECT_GE(launches_per_sample(small_s, kGemmTuneLoop.sample_s, kGemmTuneLoop.max_launches), 3000);
  EXPECT_GE(launches_per_sample(small_s, kGemmSampleLoop.sample_s, kGemmSampleLoop.max_launches), 8000);
  EXPECT_EQ(launches_per_sample(large_s, kGemmTuneLoop.sample_s, kGemmTuneLoop.max_launches), 7);
  EXPECT_EQ(launches_per_sample(large_s, kGemmSampleLoop.sample_s, kGemmSampleLoop.max_launches), 18);
  // A graph of one launch would size from launch latency; the sizing loop holds several.
  EXPECT_GT(kGemmTuneLoop.sizing_launches, 1);
  EXPECT_GT(kGemmSampleLoop.sizing_launches, 1);
}

TEST(GpuPlan, Tf32OverrideIsDetected) {
  auto w = tf32_override_warning(Precision::tf32, "0");
  ASSERT_TRUE(w.has_value());
  EXPECT_NE(w->find("NVIDIA_TF32_OVERRIDE=0"), std::string::npos) << *w;
  EXPECT_NE(w->find("FP32"), std::string::npos) << *w;
  EXPECT_FALSE(tf32_override_warning(Precision::tf32, nullptr));
  EXPECT_FALSE(tf32_override_warning(Precision::tf32, "1"));
  // CUBLAS_COMPUTE_32F never uses TF32, so the override changes nothing for fp32 (or the 16-bit types).
  EXPECT_FALSE(tf32_override_warning(Precision::fp32, "0"));
  EXPECT_FALSE(tf32_override_warning(Precision::bf16, "0"));
}

// The copy probe's peak is the link's maximum: an idle GPU's link reads Gen1, against which a real 55 GB/s
// copy was ~1,300 % of peak.
TEST(GpuPlan, PciePeakIsTheMaximumLink) {
  const double gen1 = *pcie_bandwidth(2.5, 16), gen5 = *pcie_bandwidth(32.0, 16);
  Json gpu{{"pcie",
            {{"speed_gts", 2.5},
             {"width", 16},
             {"bandwidth", gen1},
             {"max_speed_gts", 32.0},
             {"max_width", 16},
             {"max_bandwidth", gen5}}}};
  EXPECT_DOUBLE_EQ(*pcie_peak(gpu), gen5);
  EXPECT_LE(*pct_of(55e9, pcie_peak(gpu)), 105.0);
  // Only NVML's maximum generation and width (sysfs unreadable, as in some containers).
  EXPECT_DOUBLE_EQ(*pcie_peak(Json{{"pcie", {{"gen", 1}, {"width", 16}, {"max_gen", 4}, {"max_width", 16}}}}),
                   *pcie_bandwidth(16.0, 16));
  // The current link alone is no peak.
  EXPECT_FALSE(pcie_peak(Json{{"pcie", {{"speed_gts", 2.5}, {"width", 16}, {"bandwidth", gen1}}}}));
  EXPECT_FALSE(pcie_peak(Json{{"pcie", {{"max_gen", 9}, {"max_width", 16}}}}));
  EXPECT_FALSE(pcie_peak(Json{{"name", "no pcie"}}));
}

class GpuTempTree : public ::testing::Test {
 protected:
  void write(const std::filesystem::path& rel, const std::string& text) {
    std::filesystem::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel) << text;
  }
  test::TempDir dir_{"mlbench-gpu-plan"};
  const std::filesystem::path& root_ = dir_.path();
};

// The inventory reads the GPU's PCI function as sysfs has it: an idle link at Gen1, its maximum Gen5.
TEST_F(GpuTempTree, PcieLinkFromSysfsKeepsCurrentAndMaximum) {
  const std::filesystem::path dev = "sys/bus/pci/devices/0000:18:00.0";
  write(dev / "current_link_speed", "2.5 GT/s PCIe\n");
  write(dev / "current_link_width", "16\n");
  write(dev / "max_link_speed", "32.0 GT/s PCIe\n");
  write(dev / "max_link_width", "16\n");
  auto link = pcie_link_info(SysReader(root_), "/" / dev);
  ASSERT_TRUE(link.has_value());
  EXPECT_EQ((*link)["speed_gts"], 2.5);
  EXPECT_EQ((*link)["max_speed_gts"], 32.0);
  EXPECT_EQ((*link)["max_width"], 16);
  EXPECT_DOUBLE_EQ(*pcie_peak(Json{{"pcie", *link}}), *pcie_bandwidth(32.0, 16));
  // Without max_link_* the current link is kept, but there is no peak.
  std::filesystem::remove(root_ / dev / "max_link_speed");
  link = pcie_link_info(SysReader(root_), "/" / dev);
  ASSERT_TRUE(link.has_value());
  EXPECT_FALSE(link->contains("max_speed_gts"));
  EXPECT_FALSE(pcie_peak(Json{{"pcie", *link}}));
}

TEST_F(GpuTempTree, NvidiaDeviceNodes) {
  write("null", "");
  EXPECT_FALSE(has_nvidia_device_node(root_));
  write("nvidiactl", "");
  EXPECT_TRUE(has_nvidia_device_node(root_));
  EXPECT_FALSE(has_nvidia_device_node(root_ / "absent"));
}

TEST(GpuDriverCheck, ReasonOnlyWhenNoDriverAtAll) {
  EXPECT_EQ(missing_driver_reason(false, false), "no NVIDIA driver (no /dev/nvidia*, libcuda not found)");
  EXPECT_FALSE(missing_driver_reason(true, false));
  EXPECT_FALSE(missing_driver_reason(false, true));
  EXPECT_TRUE(library_loadable("libc.so.6"));
  EXPECT_FALSE(library_loadable("libmlbench-no-such-library.so.1"));
  Json host{{"gpus", Json::array()},
            {"notes", {"gpus: no NVIDIA driver (no /dev/nvidia*, libcuda not found)"}}};
  EXPECT_EQ(*no_gpu_reason(host),
            "no CUDA GPU on this machine: no NVIDIA driver (no /dev/nvidia*, libcuda not found)");
}

// On a host without a GPU every GPU probe is skipped for the same reason: the console table says it once.
TEST(GpuSummary, SkippedGpuProbesShareOneReasonLine) {
  Report report;
  const std::string why =
      "no CUDA GPU on this machine: no NVIDIA driver (no /dev/nvidia*, libcuda not found)";
  for (const char* probe : {"gpu.gemm", "gpu.hbm", "gpu.copy", "gpu.conv", "net.nccl"}) {
    Result r;
    r.probe = probe;
    r.status = Status::skipped;
    r.reason = std::string_view(probe) == "net.nccl" ? "no CUDA GPU usable" : why;
    report.results.push_back(r);
  }
  std::ostringstream out;
  print_summary(out, report);
  const std::string text = out.str();
  const auto first = text.find(why);
  ASSERT_NE(first, std::string::npos) << text;
  EXPECT_EQ(text.find(why, first + 1), std::string::npos) << text;
  // Under the last row that has it, then the next reason under its own row.
  EXPECT_LT(text.find("gpu.conv"), first);
  EXPECT_LT(first, text.find("net.nccl"));
  EXPECT_NE(text.find("no CUDA GPU usable"), std::string::npos) << text;
}

TEST(GpuTelemetry, SummaryAndThrottling) {
  EXPECT_FALSE(is_throttling(0x1 | 0x10));
  EXPECT_TRUE(is_throttling(0x4));
  EXPECT_EQ(throttle_reason_names(0x4 | 0x40),
            (std::vector<std::string>{"sw_power_cap", "hw_thermal_slowdown"}));
  std::vector<TelemetrySample> s = {
      {1.98e9, 2.6e9, 690, 60, 0}, {1.7e9, 2.6e9, 700, 65, 0x4}, {1.9e9, 2.6e9, 650, 62, 0}};
  auto sum = summarize_telemetry(s);
  EXPECT_DOUBLE_EQ(sum.json["sm_clock_hz"]["min"].get<double>(), 1.7e9);
  EXPECT_DOUBLE_EQ(sum.json["sm_clock_hz"]["median"].get<double>(), 1.9e9);
  EXPECT_DOUBLE_EQ(sum.json["power_w"]["max"].get<double>(), 700);
  ASSERT_TRUE(sum.warning.has_value());
  EXPECT_NE(sum.warning->find("sw_power_cap"), std::string::npos);
  s[1].throttle_reasons = 0x1;
  EXPECT_FALSE(summarize_telemetry(s).warning.has_value());
  EXPECT_EQ(summarize_telemetry({}).json["samples"], 0);
}

TEST(GpuTelemetry, SamplerCollectsFromItsSource) {
  int calls = 0;
  TelemetrySampler sampler(
      [&] {
        ++calls;
        return std::optional<TelemetrySample>(TelemetrySample{1e9, 1e9, 100, 40, 0});
      },
      std::chrono::milliseconds(1));
  sampler.start();
  while (calls < 3) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  auto samples = sampler.stop();
  EXPECT_GE(samples.size(), 3u);
  EXPECT_EQ(static_cast<int>(samples.size()), calls);
}

TEST(GpuTelemetry, NvmlAbsentIsAReasonNotACrash) {
  std::string why;
  Nvml* nvml = Nvml::get(&why);
  if (nvml) GTEST_SKIP() << "NVML is present on this machine";
  EXPECT_NE(why.find("NVML"), std::string::npos) << why;
}

}  // namespace
}  // namespace mlbench::gpu
