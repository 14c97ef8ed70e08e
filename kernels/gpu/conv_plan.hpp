// Host-side plan of gpu.conv (cuDNN): the ResNet-50 layer table, FLOP and memory counts, the option table,
// case planning and the images/s estimate. Plain C++ (no CUDA) so the CPU tests cover it; conv_plan.cpp
// implements it, conv_probe.cpp runs what it decides.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/gpu/plan.hpp"

namespace mlbench::gpu {

struct ConvLayer {
  std::string name;
  int c = 0, k = 0, h = 0, w = 0, r = 0, s = 0, stride = 1, pad = 0;
  int count = 1;  // occurrences in the network
  int p() const { return (h + 2 * pad - r) / stride + 1; }
  int q() const { return (w + 2 * pad - s) / stride + 1; }
};
enum class ConvDirection { fwd, bwd_data, bwd_filter };
inline constexpr EnumName<ConvDirection> kConvDirectionNames[] = {{ConvDirection::fwd, "fwd"},
                                                                  {ConvDirection::bwd_data, "bwd_data"},
                                                                  {ConvDirection::bwd_filter, "bwd_filter"}};
static_assert(names_cover(kConvDirectionNames));
inline std::string_view to_string(ConvDirection d) { return name_of(kConvDirectionNames, d); }

// ResNet-50 v1.5 (torchvision: stride on the 3x3), each distinct convolution once with its count.
const std::vector<ConvLayer>& resnet50_layers();
// 2·N·K·C·R·S·P·Q (the same for all three directions).
double conv_flops(const ConvLayer& l, int batch);

struct ConvCase {
  int device = 0;
  std::string precision;  // fp16 | bf16
  int batch = 0;
  const ConvLayer* layer = nullptr;  // nullptr: the ResNet-50 estimate case that sums the layers
};
std::span<const OptionSpec> conv_options();  // precisions, batch, layers, devices
void validate_conv_options(const Json& options, const OptionSource& source = {});
std::vector<ConvCase> plan_conv(const Json& options, Profile profile, const std::vector<DeviceFacts>& devices,
                                const OptionSource& source = {});
// What a correct output of an fp16 or bf16 convolution may differ from its FP64 reference by (plan.hpp
// ErrorModel): the output's rounding, tensor-core accumulation (8-deep blocks into a truncating FP32
// accumulator) and, since cuDNN's autotuning may pick a Winograd or FFT engine that transforms the operands
// and rounds the transforms to the input format, up to 4 units of that format per term. That 16 units of the
// output format times √Σt² also covers a reduction of split parts rounded to the output format (plan.hpp
// ErrorModel parts) of up to about 200 parts, which cuDNN does not report.
ErrorModel conv_error_model(std::string_view precision);
std::uint64_t conv_bytes_needed(const ConvLayer& l, int batch, int elem_bytes, std::uint64_t workspace);

// Images/s of ResNet-50 training estimated from per-layer seconds (sum over layers of count × (fwd + bwd-data
// + bwd-filter); the stem has no bwd-data, as its input needs no gradient). Convolutions only: an estimate.
struct ConvLayerTimes {
  std::string layer;
  double fwd_s = 0, bwd_data_s = 0, bwd_filter_s = 0;  // the median seconds of each direction's samples
  // Their standard errors (median_standard_error, base/stats.hpp), in seconds.
  double fwd_se_s = 0, bwd_data_se_s = 0, bwd_filter_se_s = 0;
};
double resnet50_images_per_s(const std::vector<ConvLayerTimes>& times, int batch);
// The standard uncertainty of that estimate, in images/s: the medians' standard errors, each × its layer's
// count (the count repeats one measurement, so its error does not average out), in quadrature over the
// independent measurements, carried through batch / sum to first order; 0 when no time has one.
double resnet50_images_per_s_sigma(const std::vector<ConvLayerTimes>& times, int batch);

}  // namespace mlbench::gpu
