// gpu.gemm's plan: the precision table, transformer shapes, buffer rotation and workspace, and its options.
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kernels/gpu/gemm_plan.hpp"

namespace mlbench::gpu {

std::optional<std::string> tf32_override_warning(Precision p, const char* value) {
  if (p != Precision::tf32 || value == nullptr || std::string_view(value) != "0") return std::nullopt;
  return "NVIDIA_TF32_OVERRIDE=0 is set: cuBLAS runs this tf32 GEMM without TF32 tensor cores, so it "
         "measures FP32; unset it to measure tf32";
}

const std::vector<PrecisionSpec>& precision_table() {
  // Error models (plan.hpp ErrorModel): FP32 on the CUDA cores rounds each fused multiply-add to nearest;
  // the tensor cores (tf32, fp16, bf16) add 8-deep blocks of exact products into an FP32 accumulator that
  // truncates, and TF32 truncates its FP32 inputs to 10 fraction bits; FP8 with fast accumulation keeps 13
  // fraction bits in the accumulator (truncated) and adds a 32-deep block per step (Hopper's e8m13
  // accumulator); D is rounded to its format (FP32, FP16, or BF16 for bf16 and fp8). INT8 accumulates in
  // INT32 and must be exact.
  constexpr double kFp32Unit = 0x1p-24, kFp16Unit = 0x1p-11, kBf16Unit = 0x1p-8;
  constexpr double kFp32Floor = 0x1p-150, kFp16Floor = 0x1p-25, kBf16Floor = 0x1p-134;
  constexpr ErrorModel kFp32{kFp32Unit, 0, kFp32Unit, 1, kFp32Floor};
  constexpr ErrorModel kTf32{kFp32Unit, 0x1p-10, 0x1p-23, 8, kFp32Floor};
  constexpr ErrorModel kFp16{kFp16Unit, 0, 0x1p-23, 8, kFp16Floor};
  constexpr ErrorModel kBf16{kBf16Unit, 0, 0x1p-23, 8, kBf16Floor};
  constexpr ErrorModel kFp8{kBf16Unit, 0, 0x1p-13, 32, kBf16Floor};
  static const std::vector<PrecisionSpec> table = {
      {Precision::fp32, "fp32", 4, 4, kFp32, 0, 1, "tflops", "FLOP/s"},
      {Precision::tf32, "tf32", 4, 4, kTf32, 80, 1, "tflops", "FLOP/s"},
      {Precision::fp16, "fp16", 2, 2, kFp16, 0, 1, "tflops", "FLOP/s"},
      {Precision::bf16, "bf16", 2, 2, kBf16, 80, 1, "tflops", "FLOP/s"},
      {Precision::fp8, "fp8", 1, 2, kFp8, 89, 16, "tflops", "FLOP/s"},
      {Precision::int8, "int8", 1, 4, ErrorModel{}, 75, 16, "tops", "OP/s"},
  };
  return table;
}

const PrecisionSpec& precision_spec(std::string_view name) {
  for (const auto& p : precision_table()) {
    if (p.name == name) return p;
  }
  std::vector<std::string_view> names;
  for (const auto& p : precision_table()) names.push_back(p.name);
  throw UsageError(fmt::format("unknown precision '{}' (use {})", name, fmt::join(names, ", ")));
}

double gemm_flops(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch) {
  return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) *
         static_cast<double>(batch);
}

std::vector<GemmShape> transformer_shapes(std::int64_t tokens) {
  // hidden, fused QKV width (h + 2·n_kv·d_h), FFN width (SwiGLU: gate and up fused = 2·ffn).
  struct Model {
    std::string_view name;
    std::int64_t hidden, qkv, ffn;
  };
  static constexpr Model kModels[] = {
      {"llama3-8b", 4096, 4096 + 2 * 8 * 128, 14336},
      {"llama3-70b", 8192, 8192 + 2 * 8 * 128, 28672},
  };
  std::vector<GemmShape> out;
  for (const auto& m : kModels) {
    out.push_back({fmt::format("{}.qkv", m.name), tokens, m.qkv, m.hidden});
    out.push_back({fmt::format("{}.o", m.name), tokens, m.hidden, m.hidden});
    out.push_back({fmt::format("{}.ffn_up", m.name), tokens, 2 * m.ffn, m.hidden});
    out.push_back({fmt::format("{}.ffn_down", m.name), tokens, m.hidden, m.ffn});
  }
  return out;
}

std::uint64_t gemm_set_bytes(const PrecisionSpec& p, const GemmShape& s) {
  return static_cast<std::uint64_t>((s.m * s.k + s.k * s.n) * p.in_bytes);
}

int gemm_buffer_sets(std::uint64_t set_bytes, std::uint64_t l2_bytes) {
  if (l2_bytes == 0) return 2;
  auto sets = (2 * l2_bytes + set_bytes - 1) / set_bytes;
  return static_cast<int>(std::clamp<std::uint64_t>(sets, 1, 64));
}

std::uint64_t gemm_workspace_bytes(int cc_number) { return cc_number >= 90 ? 32ull << 20 : 4ull << 20; }

namespace {

constexpr OptionSpec kOptions[] = {
    {.name = "precisions",
     .type = OptionType::choices,
     .def = "all; quick: bf16,fp8",
     .choices =
         [] {
           std::vector<std::string_view> names;
           for (const auto& p : precision_table()) names.push_back(p.name);
           return names;
         },
     .help = "Precisions"},
    {.name = "sizes",
     .type = OptionType::integers,
     .def = "1024,2048,4096,8192,16384; quick: 8192; full: 7 sizes from 1024",
     .min = 1,
     .max = kMaxGemmDim,
     .help = "Square sizes, e.g. 4096,8192"},
    {.name = "shapes",
     .type = OptionType::list,
     .def = "square,transformer; quick: square",
     .help = "square, transformer (the GEMMs of Llama 3 layers) and/or MxNxK"},
    {.name = "tokens",
     .type = OptionType::integer,
     .def = "8192",
     .min = 16,
     .max = kMaxGemmDim,
     .help = "Tokens (M) of the transformer-layer GEMMs"},
    {.name = "algos",
     .type = OptionType::integer,
     .def = "8; quick: 4; full: 16",
     .min = 1,
     .max = 64,
     .help = "cuBLASLt heuristic candidates timed per case"},
    kDevicesOption,
};

struct GemmPlanOptions {
  std::vector<const PrecisionSpec*> precisions;
  std::vector<GemmShape> shapes;
  int algos = 8;
};

// "MxNxK" with every dimension from 1 to kMaxGemmDim, or nullopt.
std::optional<GemmShape> custom_shape(const std::string& text) {
  std::vector<std::int64_t> dims;
  std::size_t start = 0;
  while (start <= text.size()) {
    auto end = std::min(text.find('x', start), text.size());
    auto n = whole_number(std::string_view(text).substr(start, end - start));
    if (!n || *n <= 0 || *n > kMaxGemmDim) return std::nullopt;
    dims.push_back(*n);
    start = end + 1;
  }
  if (dims.size() != 3) return std::nullopt;
  return GemmShape{"custom", dims[0], dims[1], dims[2]};
}

GemmPlanOptions parse_gemm_options(const Json& options, Profile profile, const OptionSource& source) {
  const auto values = parse_options(kOptions, options, source);
  GemmPlanOptions out;
  auto precisions =
      values.given<std::vector<std::string>>("precisions")
          .value_or(profile == Profile::quick
                        ? std::vector<std::string>{"bf16", "fp8"}
                        : std::vector<std::string>{"fp32", "tf32", "fp16", "bf16", "fp8", "int8"});
  for (const auto& p : precisions) out.precisions.push_back(&precision_spec(p));

  auto sizes = values.given<std::vector<std::int64_t>>("sizes").value_or(
      profile == Profile::quick      ? std::vector<std::int64_t>{8192}
      : profile == Profile::standard ? std::vector<std::int64_t>{1024, 2048, 4096, 8192, 16384}
                                     : std::vector<std::int64_t>{1024, 2048, 4096, 6144, 8192, 12288, 16384});
  const auto tokens = values.get<std::int64_t>("tokens");
  auto shapes = values.given<std::vector<std::string>>("shapes").value_or(
      profile == Profile::quick ? std::vector<std::string>{"square"}
                                : std::vector<std::string>{"square", "transformer"});
  for (const auto& s : shapes) {
    if (s == "square") {
      for (auto n : sizes) out.shapes.push_back({"square", n, n, n});
    } else if (s == "transformer") {
      for (auto& t : transformer_shapes(tokens)) out.shapes.push_back(std::move(t));
    } else if (auto custom = custom_shape(s)) {
      out.shapes.push_back(*custom);
    } else {
      throw UsageError(
          fmt::format("{} '{}': expected square, transformer or MxNxK with dimensions from 1 to {}",
                      values.name("shapes"), s, kMaxGemmDim));
    }
  }
  for (const auto* p : out.precisions) {
    for (const auto& s : out.shapes) {
      if (s.m % p->dim_multiple || s.n % p->dim_multiple || s.k % p->dim_multiple) {
        throw UsageError(fmt::format("{} GEMM {}x{}x{}: every dimension must be a multiple of {} for {}",
                                     p->name, s.m, s.n, s.k, p->dim_multiple, p->name));
      }
    }
  }
  out.algos = static_cast<int>(values.given<std::int64_t>("algos").value_or(profile == Profile::quick  ? 4
                                                                            : profile == Profile::full ? 16
                                                                                                       : 8));
  return out;
}

}  // namespace

std::span<const OptionSpec> gemm_options() { return kOptions; }

void validate_gemm_options(const Json& options, const OptionSource& source) {
  parse_gemm_options(options, Profile::standard, source);
}

std::vector<GemmCase> plan_gemm(const Json& options, Profile profile, const std::vector<DeviceFacts>& devices,
                                const OptionSource& source) {
  auto opts = parse_gemm_options(options, profile, source);
  auto selected = select_devices(options, profile, static_cast<int>(devices.size()), source);
  std::vector<GemmCase> out;
  for (int dev : selected) {
    const auto& d = devices.at(dev);
    for (const auto* p : opts.precisions) {
      for (const auto& s : opts.shapes) {
        GemmCase c;
        c.device = dev;
        c.spec = p;
        c.shape = s;
        auto set = gemm_set_bytes(*p, s);
        c.buffer_sets = gemm_buffer_sets(set, d.l2_bytes);
        c.workspace = gemm_workspace_bytes(d.cc_number());
        c.bytes_needed =
            set * c.buffer_sets + static_cast<std::uint64_t>(s.m * s.n * p->out_bytes) + c.workspace;
        c.algos = opts.algos;
        check_fits(c.bytes_needed, d, fmt::format("gpu.gemm {} {}x{}x{}", p->name, s.m, s.n, s.k),
                   fmt::format("use smaller {} or {}", source.name("sizes"), source.name("shapes")));
        out.push_back(std::move(c));
      }
    }
  }
  return out;
}

Json gemm_case_params(const GemmCase& c, const DeviceFacts& d) {
  return Json{{"precision", c.spec->name},
              {"shape", c.shape.name},
              {"m", c.shape.m},
              {"n", c.shape.n},
              {"k", c.shape.k},
              {"layout", "TN"},
              {"device", d.index},
              {"device_name", d.name},
              {"uuid", d.uuid}};
}

}  // namespace mlbench::gpu
