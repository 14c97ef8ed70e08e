#include "kernels/gpu/plan.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/units.hpp"
#include "bench/sysinfo.hpp"

namespace mlbench::gpu {
namespace {

constexpr std::int64_t kMaxDim = 1 << 17;

std::string trim(std::string_view s) {
  auto b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return "";
  auto e = s.find_last_not_of(" \t");
  return std::string(s.substr(b, e - b + 1));
}

std::optional<std::int64_t> parse_int(std::string_view s) {
  std::int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::vector<std::string> split(std::string_view text, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    auto end = text.find(sep, start);
    if (end == std::string_view::npos) end = text.size();
    out.push_back(trim(text.substr(start, end - start)));
    start = end + 1;
  }
  return out;
}

std::string device_label(const DeviceFacts& d) { return fmt::format("GPU {} ({})", d.index, d.name); }

int option_int(const Json& options, std::string_view key, int fallback, int lo, int hi) {
  if (!options.contains(key)) return fallback;
  const auto& v = options.at(std::string(key));
  std::optional<std::int64_t> n;
  if (v.is_number_integer()) n = v.get<std::int64_t>();
  if (v.is_string()) n = parse_int(trim(v.get<std::string>()));
  if (!n || *n < lo || *n > hi) {
    throw UsageError(fmt::format("--{} {}: expected a whole number from {} to {}", key, v.dump(), lo, hi));
  }
  return static_cast<int>(*n);
}

std::optional<std::uint64_t> option_size(const Json& options, std::string_view key) {
  if (!options.contains(key)) return std::nullopt;
  const auto& v = options.at(std::string(key));
  if (v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0)) {
    return v.get<std::uint64_t>();
  }
  if (v.is_string()) return parse_size(v.get<std::string>(), fmt::format("--{}", key));
  throw UsageError(fmt::format("--{} {}: expected a size such as 256M or 1G", key, v.dump()));
}

// Each value of a list option must be one of `known`; the default when absent.
std::vector<std::string> choice_list(const Json& options, std::string_view key,
                                     const std::vector<std::string_view>& known,
                                     std::vector<std::string> fallback) {
  auto values = option_list(options, key);
  if (values.empty()) return fallback;
  std::vector<std::string> out;
  for (const auto& v : values) {
    if (std::find(known.begin(), known.end(), v) == known.end()) {
      throw UsageError(fmt::format("--{}: unknown value '{}' (use {})", key, v, fmt::join(known, ", ")));
    }
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  return out;
}

}  // namespace

int DeviceFacts::cc_number() const {
  auto dot = cc.find('.');
  if (dot == std::string::npos) return 0;
  auto major = parse_int(cc.substr(0, dot)), minor = parse_int(cc.substr(dot + 1));
  if (!major || !minor) return 0;
  return static_cast<int>(*major * 10 + *minor);
}

std::vector<DeviceFacts> device_facts_from_inventory(const Json& host) {
  std::vector<DeviceFacts> out;
  if (!host.contains("gpus") || !host["gpus"].is_array()) return out;
  for (const auto& g : host["gpus"]) {
    DeviceFacts d;
    d.index = g.value("index", static_cast<int>(out.size()));
    d.name = g.value("name", "");
    d.uuid = g.value("uuid", "");
    d.cc = g.value("compute_capability", "");
    d.sms = g.value("sms", 0);
    d.memory_bytes = g.value("memory_bytes", std::uint64_t{0});
    d.free_bytes = d.memory_bytes;
    d.l2_bytes = g.value("l2_bytes", std::uint64_t{0});
    d.memory_clock_hz = g.value("memory_clock_hz", 0.0);
    d.bus_width_bits = g.value("bus_width_bits", 0);
    out.push_back(std::move(d));
  }
  return out;
}

std::optional<std::string> no_gpu_reason(const Json& host) {
  if (host.contains("gpus") && host["gpus"].is_array() && !host["gpus"].empty()) return std::nullopt;
  std::string why = "no CUDA GPU on this machine";
  if (host.contains("notes") && host["notes"].is_array()) {
    for (const auto& n : host["notes"]) {
      if (n.is_string() && n.get<std::string>().starts_with("gpus:")) {
        why += fmt::format(": {}", trim(n.get<std::string>().substr(5)));
        break;
      }
    }
  }
  return why;
}

void check_known_options(const Json& options, const std::vector<std::string_view>& allowed) {
  if (!options.is_object()) throw UsageError("probe options must be a mapping of option names to values");
  for (const auto& [key, _] : options.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      throw UsageError(fmt::format("unknown option '{}' (allowed: {})", key, fmt::join(allowed, ", ")));
    }
  }
}

std::vector<std::string> option_list(const Json& options, std::string_view key) {
  std::vector<std::string> out;
  if (!options.contains(key)) return out;
  const auto& v = options.at(std::string(key));
  auto add = [&](const Json& item) {
    if (item.is_string()) {
      for (auto& part : split(item.get<std::string>(), ',')) {
        if (part.empty()) throw UsageError(fmt::format("--{} {}: empty item in the list", key, v.dump()));
        out.push_back(part);
      }
    } else if (item.is_number_integer()) {
      out.push_back(std::to_string(item.get<std::int64_t>()));
    } else {
      throw UsageError(fmt::format("--{} {}: expected a comma-separated list", key, v.dump()));
    }
  };
  if (v.is_array()) {
    for (const auto& item : v) add(item);
  } else {
    add(v);
  }
  return out;
}

std::vector<int> select_devices(const Json& options, Profile profile, int count) {
  auto values = option_list(options, "devices");
  std::vector<int> out;
  if (values.empty()) {
    for (int i = 0; i < (profile == Profile::quick ? std::min(count, 1) : count); ++i) out.push_back(i);
    return out;
  }
  if (values.size() == 1 && values[0] == "all") {
    for (int i = 0; i < count; ++i) out.push_back(i);
    return out;
  }
  for (const auto& v : values) {
    auto n = parse_int(v);
    if (!n || *n < 0) {
      throw UsageError(fmt::format("--devices '{}': expected 'all' or GPU indices such as 0,2", v));
    }
    if (*n >= count) {
      throw UsageError(count == 0
                           ? fmt::format("--devices {}: this machine has no CUDA GPU", *n)
                           : fmt::format("--devices {}: there is no GPU {}; this machine has GPUs 0-{}", *n,
                                         *n, count - 1));
    }
    if (std::find(out.begin(), out.end(), *n) != out.end()) {
      throw UsageError(fmt::format("--devices: GPU {} is named twice", *n));
    }
    out.push_back(static_cast<int>(*n));
  }
  return out;
}

void check_fits(std::uint64_t need, const DeviceFacts& facts, std::string_view what, std::string_view fix) {
  if (need + kMemoryMargin <= facts.free_bytes) return;
  throw UsageError(fmt::format("{} needs {} on {} but only {} is free ({} kept in reserve); {}", what,
                               format_bytes(static_cast<double>(need)), device_label(facts),
                               format_bytes(static_cast<double>(facts.free_bytes)),
                               format_bytes(static_cast<double>(kMemoryMargin)), fix));
}

double theoretical_bandwidth(double memory_clock_hz, int bus_width_bits) {
  return 2.0 * memory_clock_hz * bus_width_bits / 8.0;
}

std::optional<double> pct_of(double value, std::optional<double> peak) {
  if (!peak || *peak <= 0) return std::nullopt;
  return 100.0 * value / *peak;
}

int launches_per_sample(double launch_s, double target_s, int max_launches) {
  if (!(launch_s > 0)) return 1;
  double n = std::floor(target_s / launch_s);
  return static_cast<int>(std::clamp(n, 1.0, static_cast<double>(max_launches)));
}

// ---- gpu.gemm --------------------------------------------------------------------------------------------

std::optional<std::string> tf32_override_warning(Precision p, const char* value) {
  if (p != Precision::tf32 || value == nullptr || std::string_view(value) != "0") return std::nullopt;
  return "NVIDIA_TF32_OVERRIDE=0 is set: cuBLAS runs this tf32 GEMM without TF32 tensor cores, so it "
         "measures FP32; unset it to measure tf32";
}

const std::vector<PrecisionSpec>& precision_table() {
  // Tolerances: |d - ref| normalised by Σ|a·b| (so output rounding and accumulation order are what is left),
  // METHODS.md's per-precision thresholds; INT8 accumulates in INT32 and must be exact.
  static const std::vector<PrecisionSpec> table = {
      {Precision::fp32, "fp32", 4, 4, 1e-5, 0, 1, "tflops", "FLOP/s"},
      {Precision::tf32, "tf32", 4, 4, 1e-3, 80, 1, "tflops", "FLOP/s"},
      {Precision::fp16, "fp16", 2, 2, 1e-2, 0, 1, "tflops", "FLOP/s"},
      {Precision::bf16, "bf16", 2, 2, 1e-2, 80, 1, "tflops", "FLOP/s"},
      {Precision::fp8, "fp8", 1, 2, 5e-2, 89, 16, "tflops", "FLOP/s"},
      {Precision::int8, "int8", 1, 4, 0.0, 75, 16, "tops", "OP/s"},
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

constexpr std::string_view kGemmOptions[] = {"precisions", "sizes", "shapes", "tokens", "algos", "devices"};

struct GemmPlanOptions {
  std::vector<const PrecisionSpec*> precisions;
  std::vector<GemmShape> shapes;
  int algos = 8;
};

GemmPlanOptions parse_gemm_options(const Json& options, Profile profile) {
  check_known_options(options, {std::begin(kGemmOptions), std::end(kGemmOptions)});
  GemmPlanOptions out;
  auto precisions = option_list(options, "precisions");
  if (precisions.empty()) {
    precisions = profile == Profile::quick
                     ? std::vector<std::string>{"bf16", "fp8"}
                     : std::vector<std::string>{"fp32", "tf32", "fp16", "bf16", "fp8", "int8"};
  }
  for (const auto& p : precisions) {
    const auto* spec = &precision_spec(p);
    if (std::find(out.precisions.begin(), out.precisions.end(), spec) == out.precisions.end()) {
      out.precisions.push_back(spec);
    }
  }

  std::vector<std::int64_t> sizes;
  for (const auto& s : option_list(options, "sizes")) {
    auto n = parse_int(s);
    if (!n || *n <= 0 || *n > kMaxDim) {
      throw UsageError(fmt::format("--sizes '{}': expected square sizes from 1 to {}", s, kMaxDim));
    }
    sizes.push_back(*n);
  }
  if (sizes.empty()) {
    sizes = profile == Profile::quick ? std::vector<std::int64_t>{8192}
            : profile == Profile::standard
                ? std::vector<std::int64_t>{1024, 2048, 4096, 8192, 16384}
                : std::vector<std::int64_t>{1024, 2048, 4096, 6144, 8192, 12288, 16384};
  }
  auto tokens = option_int(options, "tokens", 8192, 16, static_cast<int>(kMaxDim));
  auto shapes = option_list(options, "shapes");
  if (shapes.empty()) {
    shapes = profile == Profile::quick ? std::vector<std::string>{"square"}
                                       : std::vector<std::string>{"square", "transformer"};
  }
  for (const auto& s : shapes) {
    if (s == "square") {
      for (auto n : sizes) out.shapes.push_back({"square", n, n, n});
    } else if (s == "transformer") {
      for (auto& t : transformer_shapes(tokens)) out.shapes.push_back(std::move(t));
    } else {
      auto dims = split(s, 'x');
      std::vector<std::int64_t> v;
      for (const auto& d : dims) {
        auto n = parse_int(d);
        if (n && *n > 0 && *n <= kMaxDim) v.push_back(*n);
      }
      if (dims.size() != 3 || v.size() != 3) {
        throw UsageError(fmt::format(
            "--shapes '{}': expected square, transformer or MxNxK with dimensions from 1 to {}", s, kMaxDim));
      }
      out.shapes.push_back({"custom", v[0], v[1], v[2]});
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
  out.algos = option_int(options, "algos",
                         profile == Profile::quick  ? 4
                         : profile == Profile::full ? 16
                                                    : 8,
                         1, 64);
  return out;
}

}  // namespace

void validate_gemm_options(const Json& options) { parse_gemm_options(options, Profile::standard); }

std::vector<GemmCase> plan_gemm(const Json& options, Profile profile,
                                const std::vector<DeviceFacts>& devices) {
  auto opts = parse_gemm_options(options, profile);
  auto selected = select_devices(options, profile, static_cast<int>(devices.size()));
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
                   "use smaller --sizes or --shapes");
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

// ---- gpu.hbm ---------------------------------------------------------------------------------------------

const std::vector<HbmKernelSpec>& hbm_kernel_table() {
  // BabelStream byte weights: arrays read + written per element.
  static const std::vector<HbmKernelSpec> table = {
      {HbmKernel::copy, "copy", 1, 1},     {HbmKernel::scale, "scale", 1, 1},
      {HbmKernel::add, "add", 2, 1},       {HbmKernel::triad, "triad", 2, 1},
      {HbmKernel::dot, "dot", 2, 0},       {HbmKernel::nstream, "nstream", 3, 1},
      {HbmKernel::read, "read", 1, 0},     {HbmKernel::write, "write", 0, 1},
      {HbmKernel::memcpy, "memcpy", 1, 1},
  };
  return table;
}

const HbmKernelSpec& hbm_kernel_spec(std::string_view name) {
  for (const auto& k : hbm_kernel_table()) {
    if (k.name == name) return k;
  }
  std::vector<std::string_view> names;
  for (const auto& k : hbm_kernel_table()) names.push_back(k.name);
  throw UsageError(fmt::format("unknown HBM kernel '{}' (use {})", name, fmt::join(names, ", ")));
}

double hbm_bytes(const HbmKernelSpec& k, std::uint64_t array_bytes) {
  return static_cast<double>(k.reads + k.writes) * static_cast<double>(array_bytes);
}

HbmValues hbm_expected(HbmKernel k, std::int64_t launches, std::uint64_t elements) {
  HbmValues v;
  const double n = static_cast<double>(elements);
  if (launches <= 0) return v;
  switch (k) {
    case HbmKernel::copy:
    case HbmKernel::memcpy:
      v.c = v.a;
      break;
    case HbmKernel::scale:
      v.b = kHbmScalar * v.c;
      break;
    case HbmKernel::add:
      v.c = v.a + v.b;
      break;
    case HbmKernel::triad:
      v.a = v.b + kHbmScalar * v.c;
      break;
    case HbmKernel::nstream:
      for (std::int64_t i = 0; i < launches; ++i) v.a += v.b + kHbmScalar * v.c;
      break;
    case HbmKernel::dot:
      v.sum = n * v.a * v.b;
      break;
    case HbmKernel::read:
      v.sum = n * v.a;
      break;
    case HbmKernel::write:
      v.a = kHbmWriteValue;
      break;
  }
  return v;
}

std::uint64_t default_hbm_array_bytes(const DeviceFacts& d, Profile profile) {
  const std::uint64_t cap = profile == Profile::quick ? (1ull << 30) : (2ull << 30);
  const std::uint64_t floor = std::max<std::uint64_t>(4 * d.l2_bytes, 64ull << 20);
  auto bytes = std::clamp(d.free_bytes / 8, floor, std::max(cap, floor));
  return bytes / (1ull << 20) * (1ull << 20);
}

namespace {
constexpr std::string_view kHbmOptions[] = {"kernels", "size", "devices"};

std::vector<const HbmKernelSpec*> parse_hbm_kernels(const Json& options) {
  check_known_options(options, {std::begin(kHbmOptions), std::end(kHbmOptions)});
  std::vector<const HbmKernelSpec*> out;
  for (const auto& k : option_list(options, "kernels")) {
    const auto* spec = &hbm_kernel_spec(k);
    if (std::find(out.begin(), out.end(), spec) == out.end()) out.push_back(spec);
  }
  if (out.empty()) {
    for (const auto& k : hbm_kernel_table()) out.push_back(&k);
  }
  if (auto size = option_size(options, "size")) {
    if (*size < (1ull << 20) || *size % 16 != 0) {
      throw UsageError(
          fmt::format("--size {}: each array must be at least 1 MiB and a multiple of 16 bytes", *size));
    }
  }
  return out;
}
}  // namespace

void validate_hbm_options(const Json& options) { parse_hbm_kernels(options); }

std::vector<HbmCase> plan_hbm(const Json& options, Profile profile, const std::vector<DeviceFacts>& devices) {
  auto kernels = parse_hbm_kernels(options);
  auto size = option_size(options, "size");
  std::vector<HbmCase> out;
  for (int dev : select_devices(options, profile, static_cast<int>(devices.size()))) {
    const auto& d = devices.at(dev);
    auto bytes = size ? *size : default_hbm_array_bytes(d, profile);
    check_fits(kHbmArrays * bytes, d,
               fmt::format("gpu.hbm with {} arrays of {}", kHbmArrays, format_bytes(bytes)),
               "use a smaller --size");
    for (const auto* k : kernels) out.push_back({dev, k, bytes});
  }
  return out;
}

// ---- gpu.copy --------------------------------------------------------------------------------------------

std::string_view to_string(CopyDirection d) {
  switch (d) {
    case CopyDirection::h2d:
      return "h2d";
    case CopyDirection::d2h:
      return "d2h";
    case CopyDirection::bidir:
      return "bidir";
  }
  return "h2d";
}

std::string_view to_string(CopyPath p) { return p == CopyPath::copy_engine ? "copy_engine" : "sm_kernel"; }

namespace {
constexpr std::string_view kCopyOptions[] = {"directions", "memory", "paths", "size", "devices"};

struct CopyPlanOptions {
  std::vector<CopyDirection> directions;
  std::vector<bool> pinned;
  std::vector<CopyPath> paths;
  std::optional<std::uint64_t> size;
};

CopyPlanOptions parse_copy_options(const Json& options) {
  check_known_options(options, {std::begin(kCopyOptions), std::end(kCopyOptions)});
  CopyPlanOptions out;
  for (const auto& d : choice_list(options, "directions", {"h2d", "d2h", "bidir"}, {"h2d", "d2h", "bidir"})) {
    out.directions.push_back(d == "h2d"   ? CopyDirection::h2d
                             : d == "d2h" ? CopyDirection::d2h
                                          : CopyDirection::bidir);
  }
  for (const auto& m : choice_list(options, "memory", {"pinned", "pageable"}, {"pinned", "pageable"})) {
    out.pinned.push_back(m == "pinned");
  }
  for (const auto& p : choice_list(options, "paths", {"ce", "sm"}, {"ce", "sm"})) {
    out.paths.push_back(p == "ce" ? CopyPath::copy_engine : CopyPath::sm_kernel);
  }
  out.size = option_size(options, "size");
  if (out.size && (*out.size < (1ull << 20) || *out.size % 16 != 0)) {
    throw UsageError(
        fmt::format("--size {}: copies must be at least 1 MiB and a multiple of 16 bytes", *out.size));
  }
  return out;
}
}  // namespace

void validate_copy_options(const Json& options) { parse_copy_options(options); }

std::vector<CopyCase> plan_copy(const Json& options, Profile profile,
                                const std::vector<DeviceFacts>& devices) {
  auto opts = parse_copy_options(options);
  auto selected = select_devices(options, profile, static_cast<int>(devices.size()));
  const std::uint64_t bytes = opts.size.value_or(profile == Profile::full ? (1ull << 30) : (256ull << 20));
  std::vector<CopyCase> out;
  for (int dev : selected) {
    check_fits(2 * bytes, devices.at(dev), fmt::format("gpu.copy of {}", format_bytes(bytes)),
               "use a smaller --size");
    for (auto dir : opts.directions) {
      for (bool pinned : opts.pinned) {
        for (auto path : opts.paths) {
          // An SM kernel reaches host memory only through a pinned, mapped allocation.
          if (path == CopyPath::sm_kernel && !pinned) continue;
          out.push_back({"host", {dev}, dir, pinned, path, bytes});
        }
      }
    }
  }
  if (selected.size() >= 2) {
    for (auto dir : opts.directions)
      out.push_back({"all", selected, dir, true, CopyPath::copy_engine, bytes});
    out.push_back({"p2p", selected, CopyDirection::bidir, false, CopyPath::copy_engine, bytes});
  }
  return out;
}

double copy_bytes(const CopyCase& c) {
  return static_cast<double>(c.bytes) * (c.direction == CopyDirection::bidir ? 2.0 : 1.0);
}

std::optional<double> pcie_peak(const Json& gpu) {
  if (!gpu.contains("pcie") || !gpu["pcie"].is_object()) return std::nullopt;
  const Json& link = gpu["pcie"];
  if (link.contains("max_bandwidth") && link["max_bandwidth"].is_number()) {
    return link["max_bandwidth"].get<double>();
  }
  if (link.contains("max_gen") && link.contains("max_width") && link["max_gen"].is_number_integer() &&
      link["max_width"].is_number_integer()) {
    static constexpr std::array<double, 7> kGtsOfGen{0, 2.5, 5, 8, 16, 32, 64};  // GT/s per lane, Gen1..Gen6
    const auto gen = link["max_gen"].get<int>();
    if (gen >= 1 && gen < static_cast<int>(kGtsOfGen.size())) {
      return pcie_bandwidth(kGtsOfGen[static_cast<std::size_t>(gen)], link["max_width"].get<int>());
    }
  }
  return std::nullopt;
}

// ---- gpu.conv --------------------------------------------------------------------------------------------

std::string_view to_string(ConvDirection d) {
  switch (d) {
    case ConvDirection::fwd:
      return "fwd";
    case ConvDirection::bwd_data:
      return "bwd_data";
    case ConvDirection::bwd_filter:
      return "bwd_filter";
  }
  return "fwd";
}

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

std::uint64_t conv_bytes_needed(const ConvLayer& l, int batch, int elem_bytes, std::uint64_t workspace) {
  const std::uint64_t n = static_cast<std::uint64_t>(batch);
  const std::uint64_t x = n * l.c * l.h * l.w, y = n * l.k * l.p() * l.q(),
                      w = std::uint64_t(l.k) * l.c * l.r * l.s;
  return 2 * (x + y + w) * static_cast<std::uint64_t>(elem_bytes) + workspace;  // x, dx, y, dy, w, dw
}

namespace {
constexpr std::string_view kConvOptions[] = {"precisions", "batch", "layers", "devices"};
constexpr std::uint64_t kConvWorkspace = 1ull << 30;

struct ConvPlanOptions {
  std::vector<std::string> precisions;
  int batch = 256;
  std::vector<const ConvLayer*> layers;
  bool all_layers = true;
};

ConvPlanOptions parse_conv_options(const Json& options, Profile profile) {
  check_known_options(options, {std::begin(kConvOptions), std::end(kConvOptions)});
  ConvPlanOptions out;
  out.precisions = choice_list(options, "precisions", {"fp16", "bf16"},
                               profile == Profile::quick ? std::vector<std::string>{"bf16"}
                                                         : std::vector<std::string>{"fp16", "bf16"});
  out.batch = option_int(options, "batch", profile == Profile::quick ? 64 : 256, 1, 4096);
  std::vector<std::string_view> names;
  for (const auto& l : resnet50_layers()) names.push_back(l.name);
  // quick: the four 3x3 stages only (cuDNN's autotuning of all 24 layers x 3 directions takes about a
  // minute).
  auto chosen = choice_list(options, "layers", names,
                            profile == Profile::quick ? std::vector<std::string>{"s1.conv3x3", "s2.conv3x3",
                                                                                 "s3.conv3x3", "s4.conv3x3"}
                                                      : std::vector<std::string>{});
  for (const auto& l : resnet50_layers()) {
    if (chosen.empty() || std::find(chosen.begin(), chosen.end(), l.name) != chosen.end())
      out.layers.push_back(&l);
  }
  out.all_layers = out.layers.size() == resnet50_layers().size();
  return out;
}
}  // namespace

void validate_conv_options(const Json& options) { parse_conv_options(options, Profile::standard); }

std::vector<ConvCase> plan_conv(const Json& options, Profile profile,
                                const std::vector<DeviceFacts>& devices) {
  auto opts = parse_conv_options(options, profile);
  std::vector<ConvCase> out;
  for (int dev : select_devices(options, profile, static_cast<int>(devices.size()))) {
    for (const auto& p : opts.precisions) {
      for (const auto* l : opts.layers) {
        check_fits(conv_bytes_needed(*l, opts.batch, 2, kConvWorkspace), devices.at(dev),
                   fmt::format("gpu.conv {} batch {}", l->name, opts.batch), "use a smaller --batch");
        out.push_back({dev, p, opts.batch, l});
      }
      if (opts.all_layers) out.push_back({dev, p, opts.batch, nullptr});
    }
  }
  return out;
}

double resnet50_images_per_s(const std::vector<ConvLayerTimes>& times, int batch) {
  double total = 0;
  for (const auto& l : resnet50_layers()) {
    auto it = std::find_if(times.begin(), times.end(), [&](const auto& t) { return t.layer == l.name; });
    if (it == times.end()) {
      throw Error(fmt::format("the ResNet-50 estimate needs layer {}, which was not measured", l.name));
    }
    double bwd_data = l.name == "conv1" ? 0.0 : it->bwd_data_s;
    total += l.count * (it->fwd_s + bwd_data + it->bwd_filter_s);
  }
  if (total <= 0) throw Error("the ResNet-50 estimate got no layer times");
  return batch / total;
}

}  // namespace mlbench::gpu
