#include "sizing/calibration.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <tuple>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/units.hpp"
#include "bench/host_view.hpp"
#include "sizing/workload.hpp"

namespace mlbench::sizing {
namespace {

bool usable(const Result& r, std::string_view probe) { return r.probe == probe && r.status == Status::ok; }

// A value outside its range (zero, negative, not finite, 1e300 B/s, 1e-300 FLOP/s) is a broken or edited
// report, not a measurement: it is ignored with a warning naming it, never turned into a sheet of infinite or
// NaN times.
constexpr PhysicalRange kPhysicalRanges[] = {
    // A megaflop to ten exaflops per GPU; a share of a datasheet peak; a kilobyte to a petabyte per second.
    {"tflops", "FLOP/s", 1e6, 1e19},
    {"pct_of_peak", "%", 1e-6, 1e3},
    {"bandwidth", "B/s", 1e3, 1e15},
    {"busbw", "B/s", 1e3, 1e15},
    {"read_bandwidth", "B/s", 1e3, 1e15},
    {"write_bandwidth", "B/s", 1e3, 1e15},
    {"samples_per_s", "1/s", 1e-6, 1e12},
    {"accelerators_supported", "", 0, 1e9},
    // A serving measurement: output tokens/s of a node, p99 latencies, the share of failed requests.
    {"output_tokens_per_s", "token/s", 1e-6, 1e12},
    {"ttft_p99", "s", 0, 1e6},
    {"tpot_p99", "s", 0, 1e6},
    {"error_rate", "%", 0, 100},
    // Facts of the report's host inventory the efficiencies are taken against.
    {"memory.theoretical_bandwidth", "B/s", 1e3, 1e15},
    {"infiniband.rate_gbps", "Gb/s", 1e-3, 1e6},
};

}  // namespace

const PhysicalRange& physical_range(std::string_view name) {
  const auto* p = std::find_if(std::begin(kPhysicalRanges), std::end(kPhysicalRanges),
                               [name](const PhysicalRange& r) { return r.metric == name; });
  if (p == std::end(kPhysicalRanges))
    throw Error(fmt::format("calibration: no physical range for '{}'; add it to kPhysicalRanges", name));
  return *p;
}

namespace {

bool within(const PhysicalRange& range, double v) {
  return std::isfinite(v) && v >= range.lo && v <= range.hi;
}

// The metrics of a report the calibration takes in: each through its physical range, one warning per probe
// and metric for the values left out.
class Intake {
 public:
  explicit Intake(std::vector<std::string>& warnings) : warnings_(warnings) {}

  const Metric* metric(const Result& r, std::string_view name) {
    const Metric* m = r.metric(name);
    if (m == nullptr) return nullptr;
    const PhysicalRange& range = physical_range(name);
    if (m->unit == range.unit && within(range, m->value)) return m;
    const std::string key = r.probe + " " + std::string(name);
    if (m->unit == range.unit) {
      out_of_range(key, m->value, range);
    } else if (first(key)) {
      warnings_.push_back(fmt::format("report: {} is in '{}', not '{}': ignored", key, m->unit, range.unit));
    }
    return nullptr;
  }

  // A fact of the host inventory (`name` a row of kPhysicalRanges): its value, or 0 (none) outside its range.
  // 0 is how an inventory says it does not know (a link down, an unknown memory type): none, without a word.
  double fact(std::string_view name, double value) {
    const PhysicalRange& range = physical_range(name);
    if (value == 0 || within(range, value)) return value;
    out_of_range("host " + std::string(name), value, range);
    return 0;
  }

 private:
  bool first(const std::string& key) {
    if (std::find(warned_.begin(), warned_.end(), key) != warned_.end()) return false;
    warned_.push_back(key);
    return true;
  }
  // A NaN is how a report stores a value its probe could not give (JSON null).
  void out_of_range(const std::string& key, double value, const PhysicalRange& range) {
    if (!first(key)) return;
    warnings_.push_back(
        std::isnan(value)
            ? fmt::format("report: {} has no value (null): ignored", key)
            : fmt::format("report: {} = {:g} {} is outside its physical range ({:g} to {:g} {}): ignored",
                          key, value, range.unit, range.lo, range.hi, range.unit));
  }

  std::vector<std::string>& warnings_;
  std::vector<std::string> warned_;
};

double param_number(const Result& r, const char* key) {
  if (!r.params.contains(key)) return 0;
  const auto& v = r.params[key];
  return v.is_number() ? v.get<double>() : 0;
}

std::string param_text(const Result& r, const char* key) {
  return r.params.contains(key) && r.params[key].is_string() ? r.params[key].get<std::string>() : "";
}

double shape_distance(const GemmShape& a, const GemmShape& b) {
  double d = 0;
  for (int i = 0; i < 3; ++i) d += std::abs(std::log(a[i] / b[i]));
  return d;
}

struct GemmPoint {
  GemmShape shape;
  double efficiency;
};

Figure assumed(double v, std::string basis) { return {v, Source::assumed, std::move(basis)}; }
Figure assumed(const Assumption& a) { return assumed(a.value, std::string(a.basis)); }

// A measured efficiency on `measured_gpu` becomes measured (same GPU) or transferred (another GPU) for
// `target`.
Figure from_measurement(double eff, const std::string& measured_gpu, const GpuSpec& target,
                        std::string what) {
  if (measured_gpu == target.name) return {eff, Source::measured, std::move(what)};
  return {eff, Source::transferred,
          fmt::format("{} on {}, applied to the {} datasheet", what, measured_gpu, target.name)};
}

}  // namespace

std::string_view to_string(Source s) { return name_of(kSourceNames, s); }

namespace {

std::string lowered(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

}  // namespace

ServingMeasurement serving_measurement(const std::vector<Report>& reports, const HardwareCatalog& catalog,
                                       const ServingWant& want) {
  ServingMeasurement out;
  std::vector<std::string> reasons;
  Intake intake(reasons);
  auto reason = [&](std::string why) { reasons.push_back(std::move(why)); };
  double best = 0;
  for (const auto& report : reports) {
    for (const auto& r : report.results) {
      if (r.probe != "serve.llm") continue;
      if (r.status != Status::ok) {
        reason(fmt::format("a load point has status {}", to_string(r.status)));
        continue;
      }
      const std::string model = param_text(r, "model");
      if (lowered(model) != lowered(want.model)) {
        reason(fmt::format("it measured model '{}', the workload serves '{}' (its served_model)", model,
                           want.model));
        continue;
      }
      const double isl = param_number(r, "isl"), osl = param_number(r, "osl");
      if (isl <= 0 || osl <= 0) {
        reason("a load point has no fixed input/output lengths (a prompt file or a distribution)");
        continue;
      }
      auto off = [](double got, double wanted) {
        return std::abs(got - wanted) > kServingLengthTolerance * wanted;
      };
      if (off(isl, want.input_tokens) || off(osl, want.output_tokens)) {
        reason(
            fmt::format("it measured input {:g} tokens, output {:g} tokens; the workload's are {:g} and {:g} "
                        "(±{:.0f} %)",
                        isl, osl, want.input_tokens, want.output_tokens, 100 * kServingLengthTolerance));
        continue;
      }
      const Metric* tps = intake.metric(r, "output_tokens_per_s");
      if (!tps) {
        reason("a load point has no output_tokens_per_s");
        continue;
      }
      bool meets = true;
      for (auto [name, label, target] :
           {std::tuple{"ttft_p99", "TTFT", want.ttft_s}, std::tuple{"tpot_p99", "TPOT", want.tpot_s}}) {
        if (target <= 0) continue;
        const Metric* m = intake.metric(r, name);
        if (!m || m->value > target) {
          meets = false;
          reason(m ? fmt::format("{} p99 {:.3g} s misses the {:g} s target at {:.0f} output tokens/s", label,
                                 m->value, target, tps->value)
                   : fmt::format("a load point has no {} p99 to check the target with", label));
        }
      }
      if (!meets) continue;
      if (const Metric* err = intake.metric(r, "error_rate"); err && err->value > kServingMaxErrorPct) {
        reason(fmt::format("{:g} % of requests failed (at most {:g} %)", err->value, kServingMaxErrorPct));
        continue;
      }
      const Json node =
          r.info.contains("node") && r.info["node"].is_object() ? r.info["node"] : Json::object();
      const std::string gpu_name =
          node.contains("gpu") && node["gpu"].is_string() ? node["gpu"].get<std::string>() : "";
      if (!gpu_name.empty()) {
        // The catalog's GPU of that name, or a family name of the sized GPU ("H100" of H100-SXM, not "L4" of
        // L40S).
        const GpuSpec* g = find_gpu(catalog.gpus, gpu_name);
        if (!g) g = match_gpu(catalog.gpus, gpu_name, "");
        const std::string family = lowered(gpu_name), sized = lowered(want.gpu->name);
        if (!g && sized.rfind(family, 0) == 0 &&
            (sized.size() == family.size() || sized[family.size()] == '-' || sized[family.size()] == ' '))
          g = want.gpu;
        if (g != want.gpu) {
          reason(fmt::format("it was served on {}, the sized node has {}", g ? g->name : "'" + gpu_name + "'",
                             want.gpu->name));
          continue;
        }
      }
      const double gpus = node.contains("gpus") && node["gpus"].is_number() ? node["gpus"].get<double>() : 0;
      const double per_node = gpus > 0 ? tps->value * want.gpus / gpus : tps->value;
      if (per_node <= best) continue;
      best = per_node;
      std::string what = fmt::format(
          "serve.llm {} point{}: {:.0f} output tokens/s at TTFT p99 {}, TPOT p99 {}", param_text(r, "mode"),
          r.params.contains("rate") ? fmt::format(" at {:g} req/s", param_number(r, "rate"))
          : r.metric("max_rate")    ? fmt::format(" at {:g} req/s", r.metric("max_rate")->value)
                                    : "",
          tps->value, r.metric("ttft_p99") ? fmt::format("{:.3g} s", r.metric("ttft_p99")->value) : "-",
          r.metric("tpot_p99") ? fmt::format("{:.3g} s", r.metric("tpot_p99")->value) : "-");
      std::string scale =
          gpus <= 0 ? fmt::format(
                          "; the report does not say what served it (mlbench serve --node-gpu, "
                          "--node-gpus): taken as one {}",
                          want.node)
          : gpus == want.gpus ? fmt::format(" on {:g} GPUs, as one {}", gpus, want.node)
                              : fmt::format(" on {:g} GPUs, scaled to the {} GPUs of a {}: x {} / {:g}", gpus,
                                            want.gpus, want.node, want.gpus, gpus);
      out.per_node = Figure{per_node, Source::measured, what + scale};
    }
  }
  if (!out.per_node)
    for (auto& why : reasons)
      if (std::find(out.not_used.begin(), out.not_used.end(), why) == out.not_used.end())
        out.not_used.push_back(std::move(why));
  return out;
}

const Assumption& default_gemm_efficiency(std::string_view precision) {
  if (peak_precision(std::string(precision)) == "fp4") return assumption::kGemm4;
  return precision == "fp8" || precision == "int8" ? assumption::kGemm8 : assumption::kGemm16;
}

const GpuSpec* report_gpu(const Report& r, const HardwareCatalog& catalog) {
  const HostView host(r.host);
  if (host.gpus.empty()) return nullptr;
  const auto& g = host.gpus[0];
  return match_gpu(catalog.gpus, g.value("name", ""), g.value("compute_capability", ""));
}

Figure assumed_gemm_asymptote(const GpuSpec& gpu, std::string_view precision, bool sustained) {
  const Assumption& gemm = default_gemm_efficiency(precision);
  Figure f =
      assumed(gemm.value, fmt::format("default {} GEMM efficiency ({}, METHODS.md \"Sizing assumptions\")",
                                      precision, gemm.basis));
  bool eight_bit = &gemm == &assumption::kGemm8, sixteen_bit = precision == "bf16" || precision == "fp16";
  const assumption::PublishedGemm *own = nullptr, *fp4_reference = nullptr;
  for (const auto& published : assumption::kPublishedGemm) {
    if (published.gpu == gpu.name) own = &published;
    if (published.gpu == assumption::kGemm4Gpu) fp4_reference = &published;
  }
  double eff = !own ? 0 : eight_bit ? own->fp8 : sixteen_bit ? own->bf16 : 0;
  if (eff > 0)
    f = assumed(eff, fmt::format("large-GEMM asymptote {}, scaled by each GEMM's tile and wave "
                                 "quantization on {} SMs",
                                 own->basis, gpu.sms));
  // FP4 on a GPU other than the one measured: the measured share x its FP8 asymptote over that GPU's.
  if (&gemm == &assumption::kGemm4 && own && fp4_reference && own != fp4_reference && own->fp8 > 0 &&
      fp4_reference->fp8 > 0)
    f = assumed(gemm.value * own->fp8 / fp4_reference->fp8,
                fmt::format("{} {} share {:.3f} x {}'s FP8 asymptote {:.3f} / the {}'s {:.3f} "
                            "({}; {}, METHODS.md \"Sizing assumptions\")",
                            assumption::kGemm4Gpu, precision, gemm.value, gpu.name, own->fp8,
                            assumption::kGemm4Gpu, fp4_reference->fp8, gemm.basis, own->basis));
  if (sustained && (eight_bit || sixteen_bit))
    for (const auto& published : assumption::kPublishedSustainedGemm)
      if (double held = eight_bit ? published.fp8 : published.bf16; published.gpu == gpu.name && held > 0)
        f = assumed(held, fmt::format("large-GEMM asymptote {}, scaled by each GEMM's tile and wave "
                                      "quantization on {} SMs",
                                      published.basis, gpu.sms));
  return f;
}

Calibration calibrate(const std::vector<Report>& reports, const HardwareCatalog& catalog,
                      const CalibrationInput& in) {
  const GpuSpec& target = *in.target;
  Calibration c;
  c.gemm = assumed_gemm_asymptote(target, in.precision, in.sustained);
  c.sustained = in.sustained;
  c.hbm = assumed(assumption::kHbm);
  bool published_hbm =
      false;  // a published measurement of the target itself beats one moved from another GPU
  for (const auto& published : assumption::kPublishedHbm)
    if (published.gpu == target.name) {
      published_hbm = true;
      c.hbm = assumed(
          published.bytes_per_s / target.memory_bandwidth,
          fmt::format("{} = {:.1f} % of the datasheet {:.0f} GB/s", published.basis,
                      100 * published.bytes_per_s / target.memory_bandwidth, target.memory_bandwidth / 1e9));
    }
  c.nvlink = assumed(assumption::kNvlink);
  c.network = assumed(assumption::kNetwork);
  c.conv = assumed(assumption::kConvModel);
  c.storage_read = assumed(0, fmt::format("drive datasheet x {:.2f}", assumption::kDriveEfficiency.value));
  c.storage_write = c.storage_read;
  c.host_mem = assumed(assumption::kHostMem);
  Intake intake(c.warnings);

  for (const auto& report : reports) {
    const GpuSpec* gpu = report_gpu(report, catalog);
    std::string gpu_name = gpu ? gpu->name : "";
    if (gpu && c.measured_gpu.empty()) c.measured_gpu = gpu_name;
    if (gpu && gpu->name != target.name) {
      c.warnings.push_back(fmt::format(
          "report measured on {} but sizing {}: its GPU efficiencies are transferred to the {} datasheet",
          gpu->name, target.name, target.name));
    }

    // GEMM: the efficiency of the measured shape nearest each workload GEMM, at the workload precision first.
    std::vector<GemmPoint> same, other;
    std::string other_prec;
    for (const auto& r : report.results) {
      if (!usable(r, "gpu.gemm")) continue;
      const Metric* tf = intake.metric(r, "tflops");
      if (!tf) continue;
      std::string dtype = param_text(r, "precision");
      double eff = 0;
      if (gpu && gpu->peak_for(dtype)) {
        eff = tf->value / *gpu->peak_for(dtype);
      } else if (const Metric* pct = intake.metric(r, "pct_of_peak")) {
        eff = pct->value / 100;
      }
      if (eff <= 0 || eff > 1.05) continue;
      GemmShape shape{param_number(r, "m"), param_number(r, "n"), param_number(r, "k")};
      if (shape[0] <= 0 || shape[1] <= 0 || shape[2] <= 0) continue;
      if (dtype == in.precision) {
        same.push_back({shape, eff});
      } else if (dtype == "bf16" || dtype == "fp16") {
        other.push_back({shape, eff});
        other_prec = dtype;
      }
    }
    auto& points = same.empty() ? other : same;
    if (!points.empty()) {
      double eff = 0;
      std::string how;
      if (in.shapes.empty()) {
        for (const auto& p : points) eff = std::max(eff, p.efficiency);
        how = "best measured shape";
      } else {
        double weight = 0;
        for (const auto& s : in.shapes) {
          const GemmPoint* best = &points.front();
          for (const auto& p : points)
            if (shape_distance(p.shape, s) < shape_distance(best->shape, s)) best = &p;
          double w = s[0] * s[1] * s[2];
          eff += w * best->efficiency;
          weight += w;
        }
        eff /= weight;
        how = "measured shapes nearest the workload's GEMMs";
      }
      std::string what = fmt::format("gpu.gemm {} {:.1f} % of peak ({})",
                                     same.empty() ? other_prec : in.precision, eff * 100, how);
      c.gemm = from_measurement(eff, gpu_name.empty() ? "an unknown GPU" : gpu_name, target, what);
      if (same.empty()) {
        c.gemm.source = Source::transferred;
        c.gemm.basis += fmt::format(", {} efficiency used for {}", other_prec, in.precision);
      }
    }

    // HBM: the best STREAM-family kernel against its GPU's datasheet bandwidth.
    if (gpu) {
      double best = 0;
      std::string kernel;
      for (const auto& r : report.results) {
        if (!usable(r, "gpu.hbm")) continue;
        if (const Metric* bw = intake.metric(r, "bandwidth"); bw && bw->value > best) {
          best = bw->value;
          kernel = param_text(r, "kernel");
        }
      }
      if (best > 0 && best <= 1.05 * gpu->memory_bandwidth && (gpu_name == target.name || !published_hbm)) {
        c.hbm = from_measurement(
            best / gpu->memory_bandwidth, gpu_name, target,
            fmt::format("gpu.hbm {} {:.0f} GB/s = {:.1f} % of {:.0f} GB/s", kernel, best / 1e9,
                        100 * best / gpu->memory_bandwidth, gpu->memory_bandwidth / 1e9));
      }
    }

    // NCCL busbw of a collective at its largest message: in-node (ranks within one node) or across nodes.
    const HostView host(report.host);
    int gpus_in_node = static_cast<int>(host.gpus.size());
    auto largest = [&](const char* collective, double& intra, double& inter, double& intra_bytes) {
      double inter_bytes = 0;
      for (const auto& r : report.results) {
        if (!usable(r, "net.nccl") || param_text(r, "collective") != collective) continue;
        const Metric* busbw = intake.metric(r, "busbw");
        if (!busbw) continue;
        double bytes = param_number(r, "bytes");
        bool multi_node = !report.cluster.is_null() && param_number(r, "ranks") > std::max(gpus_in_node, 1);
        double& bw = multi_node ? inter : intra;
        double& at = multi_node ? inter_bytes : intra_bytes;
        if (bytes > at || (bytes == at && busbw->value > bw)) {
          bw = busbw->value;
          at = bytes;
        }
      }
    };
    double intra = 0, inter = 0, intra_bytes = 0;
    largest("all_reduce", intra, inter, intra_bytes);
    double a2a_intra = 0, a2a_inter = 0, a2a_bytes = 0;
    largest("alltoall", a2a_intra, a2a_inter, a2a_bytes);
    if (gpu && a2a_intra > 0)
      c.alltoall_nvlink =
          from_measurement(std::min(1.0, a2a_intra / gpu->link_bandwidth), gpu_name, target,
                           fmt::format("net.nccl alltoall busbw {:.0f} GB/s at {} of {:.0f} GB/s link",
                                       a2a_intra / 1e9, format_bytes(a2a_bytes), gpu->link_bandwidth / 1e9));
    if (gpu && intra > 0) {
      c.nvlink =
          from_measurement(std::min(1.0, intra / gpu->link_bandwidth), gpu_name, target,
                           fmt::format("net.nccl all_reduce busbw {:.0f} GB/s at {} of {:.0f} GB/s link",
                                       intra / 1e9, format_bytes(intra_bytes), gpu->link_bandwidth / 1e9));
      if (intra > gpu->link_bandwidth)
        c.warnings.push_back(
            "measured all_reduce busbw exceeds the link rate (NVLS/SHARP): capped at the link");
    }
    if (inter > 0) {
      double line = 0;
      for (const auto& nic : host.nics) {
        if (nic.contains("infiniband"))
          line += intake.fact("infiniband.rate_gbps", nic["infiniband"].value("rate_gbps", 0.0)) * 1e9 / 8;
      }
      if (line > 0)
        c.network = {std::min(1.0, inter / line), Source::measured,
                     fmt::format("multi-node all_reduce busbw {:.1f} GB/s of {:.1f} GB/s NIC line rate",
                                 inter / 1e9, line / 1e9)};
    }
    if (a2a_inter > 0) {
      double line = 0;
      for (const auto& nic : host.nics)
        if (nic.contains("infiniband"))
          line += intake.fact("infiniband.rate_gbps", nic["infiniband"].value("rate_gbps", 0.0)) * 1e9 / 8;
      if (line > 0)
        c.alltoall_network = {
            std::min(1.0, a2a_inter / line), Source::measured,
            fmt::format("multi-node alltoall busbw {:.1f} GB/s of {:.1f} GB/s NIC line rate", a2a_inter / 1e9,
                        line / 1e9)};
    }

    // Storage and host memory describe the node measured; they only apply when that node is the one sized.
    double read = 0, write = 0, host_bw = 0;
    std::string read_basis, write_basis;
    // The largest read and write figure of storage.io, the training reads of storage.dataload (what the node
    // fed its simulated accelerators) and storage.checkpoint, each named with what measured it.
    auto take = [](double& best, std::string& basis, const Metric* m, std::string what) {
      if (m && m->value > best) {
        best = m->value;
        basis = fmt::format("{} {:.2f} GB/s", what, m->value / 1e9);
      }
    };
    for (const auto& r : report.results) {
      if (usable(r, "storage.io")) {
        std::string rw = param_text(r, "rw");
        if (rw == "read") take(read, read_basis, intake.metric(r, "bandwidth"), "storage.io read");
        if (rw == "write") take(write, write_basis, intake.metric(r, "bandwidth"), "storage.io write");
      }
      if (usable(r, "storage.dataload") && param_text(r, "phase") == "train") {
        const Metric* sps = intake.metric(r, "samples_per_s");
        const Metric* acc = intake.metric(r, "accelerators_supported");
        take(read, read_basis, intake.metric(r, "bandwidth"),
             fmt::format("storage.dataload {} ({:.0f} samples/s{})", param_text(r, "workload"),
                         sps ? sps->value : 0.0,
                         acc ? fmt::format(", {:.0f} accelerators supported", acc->value) : ""));
      }
      if (usable(r, "storage.checkpoint")) {
        take(write, write_basis, intake.metric(r, "write_bandwidth"), "storage.checkpoint write");
        take(read, read_basis, intake.metric(r, "read_bandwidth"), "storage.checkpoint read");
      }
      if (usable(r, "host.membw"))
        if (const Metric* bw = intake.metric(r, "bandwidth")) host_bw = std::max(host_bw, bw->value);
    }
    if (in.node_is_measured) {
      if (read > 0) c.storage_read = {read, Source::measured, read_basis};
      if (write > 0) c.storage_write = {write, Source::measured, write_basis};
      const double theory =
          host.memory_theoretical_bandwidth
              ? intake.fact("memory.theoretical_bandwidth", *host.memory_theoretical_bandwidth)
              : 0;
      if (host_bw > 0 && theory > 0)
        c.host_mem = {
            host_bw / theory, Source::measured,
            fmt::format("host.membw {:.0f} GB/s of {:.0f} GB/s theoretical", host_bw / 1e9, theory / 1e9)};
    } else if (read > 0 || write > 0 || host_bw > 0) {
      c.warnings.push_back(fmt::format(
          "storage/host memory were measured on the reporting node, which is not the node sized (a {} "
          "template): not used, the template's datasheet figures are assumed",
          target.name));
    }
  }
  // No alltoall measured: its busbw efficiency is taken as the all_reduce one's, and says so.
  for (auto [a2a, all_reduce] :
       {std::pair{&c.alltoall_nvlink, &c.nvlink}, std::pair{&c.alltoall_network, &c.network}})
    if (a2a->value <= 0)
      *a2a = {all_reduce->value, all_reduce->source,
              "no alltoall measured, the all_reduce efficiency: " + all_reduce->basis};
  return c;
}

}  // namespace mlbench::sizing
