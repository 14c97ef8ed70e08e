// gpu.conv's plan: the ResNet-50 layer table, FLOPs and memory per layer, the images/s estimate, and its
// options.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "kernels/gpu/conv_plan.hpp"

namespace mlbench::gpu {

const std::vector<ConvLayer>& resnet50_layers() {
  // name, C, K, H, W, R, S, stride, pad, count. Bottleneck blocks: 1x1 reduce, 3x3, 1x1 expand; the first
  // block of each stage has a 1x1 projection on its shortcut and (stages 2-4) stride 2 on the 3x3.
  static const std::vector<ConvLayer> layers = {
      {"conv1", 3, 64, 224, 224, 7, 7, 2, 3, 1},
      {"s1.reduce_first", 64, 64, 56, 56, 1, 1, 1, 0, 1},
      {"s1.reduce", 256, 64, 56, 56, 1, 1, 1, 0, 2},
      {"s1.conv3x3", 64, 64, 56, 56, 3, 3, 1, 1, 3},
      {"s1.expand", 64, 256, 56, 56, 1, 1, 1, 0, 3},
      {"s1.shortcut", 64, 256, 56, 56, 1, 1, 1, 0, 1},
      {"s2.reduce_first", 256, 128, 56, 56, 1, 1, 1, 0, 1},
      {"s2.conv3x3_s2", 128, 128, 56, 56, 3, 3, 2, 1, 1},
      {"s2.reduce", 512, 128, 28, 28, 1, 1, 1, 0, 3},
      {"s2.conv3x3", 128, 128, 28, 28, 3, 3, 1, 1, 3},
      {"s2.expand", 128, 512, 28, 28, 1, 1, 1, 0, 4},
      {"s2.shortcut", 256, 512, 56, 56, 1, 1, 2, 0, 1},
      {"s3.reduce_first", 512, 256, 28, 28, 1, 1, 1, 0, 1},
      {"s3.conv3x3_s2", 256, 256, 28, 28, 3, 3, 2, 1, 1},
      {"s3.reduce", 1024, 256, 14, 14, 1, 1, 1, 0, 5},
      {"s3.conv3x3", 256, 256, 14, 14, 3, 3, 1, 1, 5},
      {"s3.expand", 256, 1024, 14, 14, 1, 1, 1, 0, 6},
      {"s3.shortcut", 512, 1024, 28, 28, 1, 1, 2, 0, 1},
      {"s4.reduce_first", 1024, 512, 14, 14, 1, 1, 1, 0, 1},
      {"s4.conv3x3_s2", 512, 512, 14, 14, 3, 3, 2, 1, 1},
      {"s4.reduce", 2048, 512, 7, 7, 1, 1, 1, 0, 2},
      {"s4.conv3x3", 512, 512, 7, 7, 3, 3, 1, 1, 2},
      {"s4.expand", 512, 2048, 7, 7, 1, 1, 1, 0, 3},
      {"s4.shortcut", 1024, 2048, 14, 14, 1, 1, 2, 0, 1},
  };
  return layers;
}

double conv_flops(const ConvLayer& l, int batch) {
  return 2.0 * batch * l.k * l.c * l.r * l.s * static_cast<double>(l.p()) * l.q();
}

ErrorModel conv_error_model(std::string_view precision) {
  const bool half = precision == "fp16";
  const double unit = half ? 0x1p-11 : 0x1p-8;
  return {unit, 4 * unit, 0x1p-23, 8, half ? 0x1p-25 : 0x1p-134};
}

std::uint64_t conv_bytes_needed(const ConvLayer& l, int batch, int elem_bytes, std::uint64_t workspace) {
  const std::uint64_t n = static_cast<std::uint64_t>(batch);
  const std::uint64_t x = n * l.c * l.h * l.w, y = n * l.k * l.p() * l.q(),
                      w = std::uint64_t(l.k) * l.c * l.r * l.s;
  return 2 * (x + y + w) * static_cast<std::uint64_t>(elem_bytes) + workspace;  // x, dx, y, dy, w, dw
}

namespace {

constexpr std::uint64_t kConvWorkspace = 1ull << 30;
// quick: the four 3x3 stages only (cuDNN's autotuning of all 24 layers x 3 directions takes about a minute).
const std::vector<std::string> kQuickLayers = {"s1.conv3x3", "s2.conv3x3", "s3.conv3x3", "s4.conv3x3"};

constexpr OptionSpec kOptions[] = {
    {.name = "precisions",
     .type = OptionType::choices,
     .def = "fp16,bf16; quick: bf16",
     .choices =
         [] {
           return std::vector<std::string_view>{"fp16", "bf16"};
         },
     .help = "Precisions"},
    {.name = "batch",
     .type = OptionType::integer,
     .def = "256; quick: 64",
     .min = 1,
     .max = 4096,
     .help = "Batch size"},
    {.name = "layers",
     .type = OptionType::choices,
     .def = "all; quick: the four 3x3 stages",
     .choices =
         [] {
           std::vector<std::string_view> names;
           for (const auto& l : resnet50_layers()) names.push_back(l.name);
           return names;
         },
     .help = "ResNet-50 layers, e.g. conv1,s3.conv3x3"},
    kDevicesOption,
};

struct ConvPlanOptions {
  std::vector<std::string> precisions;
  int batch = 256;
  std::vector<const ConvLayer*> layers;
  bool all_layers = true;
};

ConvPlanOptions parse_conv_options(const Json& options, Profile profile, const OptionSource& source) {
  const auto values = parse_options(kOptions, options, source);
  const bool quick = profile == Profile::quick;
  ConvPlanOptions out;
  out.precisions =
      values.given<std::vector<std::string>>("precisions")
          .value_or(quick ? std::vector<std::string>{"bf16"} : std::vector<std::string>{"fp16", "bf16"});
  out.batch = static_cast<int>(values.given<std::int64_t>("batch").value_or(quick ? 64 : 256));
  auto chosen = values.given<std::vector<std::string>>("layers").value_or(quick ? kQuickLayers
                                                                                : std::vector<std::string>{});
  for (const auto& l : resnet50_layers()) {
    if (chosen.empty() || std::find(chosen.begin(), chosen.end(), l.name) != chosen.end())
      out.layers.push_back(&l);
  }
  out.all_layers = out.layers.size() == resnet50_layers().size();
  return out;
}

}  // namespace

std::span<const OptionSpec> conv_options() { return kOptions; }

void validate_conv_options(const Json& options, const OptionSource& source) {
  parse_conv_options(options, Profile::standard, source);
}

std::vector<ConvCase> plan_conv(const Json& options, Profile profile, const std::vector<DeviceFacts>& devices,
                                const OptionSource& source) {
  auto opts = parse_conv_options(options, profile, source);
  std::vector<ConvCase> out;
  for (int dev : select_devices(options, profile, static_cast<int>(devices.size()), source)) {
    for (const auto& p : opts.precisions) {
      for (const auto* l : opts.layers) {
        check_fits(conv_bytes_needed(*l, opts.batch, 2, kConvWorkspace), devices.at(dev),
                   fmt::format("gpu.conv {} batch {}", l->name, opts.batch),
                   fmt::format("use a smaller {}", source.name("batch")));
        out.push_back({dev, p, opts.batch, l});
      }
      if (opts.all_layers) out.push_back({dev, p, opts.batch, nullptr});
    }
  }
  return out;
}

namespace {

// The seconds of one ResNet-50 training pass over its convolutions and that sum's variance.
struct PassSeconds {
  double total = 0, variance = 0;
};

PassSeconds resnet50_pass(const std::vector<ConvLayerTimes>& times) {
  PassSeconds p;
  for (const auto& l : resnet50_layers()) {
    auto it = std::find_if(times.begin(), times.end(), [&](const auto& t) { return t.layer == l.name; });
    if (it == times.end()) {
      throw Error(fmt::format("the ResNet-50 estimate needs layer {}, which was not measured", l.name));
    }
    const bool stem = l.name == "conv1";
    const double bwd_data = stem ? 0.0 : it->bwd_data_s;
    const double bwd_data_se = stem ? 0.0 : it->bwd_data_se_s;
    p.total += l.count * (it->fwd_s + bwd_data + it->bwd_filter_s);
    p.variance +=
        static_cast<double>(l.count) * l.count *
        (it->fwd_se_s * it->fwd_se_s + bwd_data_se * bwd_data_se + it->bwd_filter_se_s * it->bwd_filter_se_s);
  }
  if (p.total <= 0) throw Error("the ResNet-50 estimate got no layer times");
  return p;
}

}  // namespace

double resnet50_images_per_s(const std::vector<ConvLayerTimes>& times, int batch) {
  return batch / resnet50_pass(times).total;
}

double resnet50_images_per_s_sigma(const std::vector<ConvLayerTimes>& times, int batch) {
  const PassSeconds p = resnet50_pass(times);
  return batch * std::sqrt(p.variance) / (p.total * p.total);
}

}  // namespace mlbench::gpu
