// The burn-in verdict (burnin/verdict.hpp): every rule reads the phase results and the sampler's records,
// and every reason is one line naming the device, the check and its numbers, so the report says why without
// the timeline.
//
// Fail, per GPU: a phase result of the GPU that is incorrect, failed or counts "errors" > 0; an XID naming
// it; a new volatile double-bit ECC error (after − before); a row remap pending or failed, or a retired page
// pending, in the last reading; a PCIe link below its maximum generation or width in the highest-power
// reading (a field NVML does not report is not checked); a GPU that stopped answering; any time in the
// hardware slowdowns (DCGM's stress tests fail on the same; software power caps and thermal slowdowns are
// what a GPU at full load is expected to do and are summarised, not judged). A phase result of a device that
// is not a GPU (the host memory test, the storage scratch file) or an XID naming no known GPU fails the node.
//
// Incomplete, for the node only: nothing failed, but a phase result (a GPU's or the host's) ran and stopped
// before its first full verified pass (burnin_report::phase_outcome); its reason says how far it got. What
// did not finish was not verified, so it is never a pass.
//
// Warn, per GPU and rate key "<phase>_<first metric>" ("gemm_tflops", "hbm_bandwidth"): the GPU's rate is the
// median of that metric over its ok results of that phase run alone (params.phase equal to the phase; in
// "all" every load competes for power and cooling, so those rates are not comparable); it warns when that
// rate is more than warn_pct below the median over the node's GPUs (a node with one GPU has no peers), or
// below the baseline fleet median of the key. A rate that is more than warn_pct below is below 1 − warn_pct
// / 100 times the reference.
//
// The node's reasons are every GPU's reasons in GPU order, then the host's: the node verdict reads whole
// without the per-GPU table.
//
// The baseline: burnin.gpu results carry one metric per rate key, named by the key; their median per key over
// every GPU of every --baseline report whose model (params.name, else the inventory's name for params.uuid)
// is the node's.
#include "burnin/verdict.hpp"

#include <algorithm>
#include <cstdint>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"
#include "base/stats.hpp"
#include "base/units.hpp"
#include "bench/host_view.hpp"
#include "burnin/phase.hpp"
#include "kernels/gpu/telemetry.hpp"
#include "reports/inputs.hpp"

namespace mlbench::burnin {

std::string rate_key(PhaseId phase, std::string_view metric) {
  return fmt::format("{}_{}", to_string(phase), metric);
}

std::optional<std::pair<PhaseId, std::string>> split_rate_key(std::string_view key) {
  const auto cut = key.find('_');
  if (cut == std::string_view::npos || cut + 1 == key.size()) return std::nullopt;
  auto phase = value_of(kPhaseNames, key.substr(0, cut));
  if (!phase || *phase == PhaseId::all) return std::nullopt;
  return std::pair{*phase, std::string(key.substr(cut + 1))};
}
namespace {

using burnin_report::Verdict;

// nvmlClocksEventReasonHwSlowdown | HwThermalSlowdown | HwPowerBrakeSlowdown (nvml.h, METHODS.md "Burn-in"):
// named through gpu::throttle_reason_names, the table the sampler names GpuRecord::throttle_seconds with.
constexpr std::uint64_t kHardwareSlowdownBits = 0x8 | 0x40 | 0x80;

// What each phase checks, what one of its errors is, and where its result's info lists the first ones.
struct PhaseCheck {
  PhaseId phase;
  std::string_view check, errors, first_list, first_field;
};
constexpr PhaseCheck kPhaseChecks[] = {
    {PhaseId::gemm, "GEMM output check", "wrong outputs", "", ""},
    {PhaseId::hbm, "HBM pattern test", "bad words", "bad_words", "address"},
    {PhaseId::copy, "copy check", "errors", "", ""},
    {PhaseId::nccl, "NCCL all_reduce check", "errors", "", ""},
    {PhaseId::host_memory, "host memory pattern test", "bad words", "bad_words", "address"},
    {PhaseId::storage, "storage write-verify-read", "bad blocks", "bad_blocks", "offset"},
    {PhaseId::all, "combined load", "errors", "", ""},
};
constexpr bool checks_cover() {
  if (std::size(kPhaseChecks) != std::size(kPhaseNames)) return false;
  for (std::size_t i = 0; i < std::size(kPhaseChecks); ++i) {
    if (kPhaseChecks[i].phase != kPhaseNames[i].value) return false;
  }
  return true;
}
static_assert(checks_cover());

// The phase a result belongs to ("burnin.hbm" → hbm), or nullopt for any other probe.
std::optional<PhaseId> phase_of(const Result& r) {
  if (!r.probe.starts_with(burnin_report::kPhaseProbePrefix)) return std::nullopt;
  return value_of(kPhaseNames, std::string_view(r.probe).substr(burnin_report::kPhaseProbePrefix.size()));
}

std::string string_param(const Json& params, const char* key) {
  if (!params.is_object() || !params.contains(key) || !params[key].is_string()) return "";
  return params[key].get<std::string>();
}

// " (in the all phase)" when the result ran in another phase than its own.
std::string during(const Result& r, PhaseId phase) {
  auto ran = string_param(r.params, "phase");
  return ran.empty() || ran == to_string(phase) ? "" : fmt::format(" (in the {} phase)", ran);
}

// ", first at 0x7f00" from the result's first listed error, or "".
std::string first_at(const Result& r, const PhaseCheck& c) {
  if (c.first_list.empty() || !r.info.is_object()) return "";
  auto list = r.info.find(c.first_list);
  if (list == r.info.end() || !list->is_array() || list->empty() || !(*list)[0].is_object()) return "";
  auto at = (*list)[0].find(c.first_field);
  if (at == (*list)[0].end()) return "";
  if (at->is_string()) return fmt::format(", first at {}", at->get<std::string>());
  if (at->is_number_integer()) return fmt::format(", first at 0x{:x}", at->get<std::uint64_t>());
  return "";
}

// The fail reason of one phase result, or nullopt when it verified.
std::optional<std::string> phase_failure(const Result& r, const std::string& device) {
  auto phase = phase_of(r);
  if (!phase || burnin_report::phase_outcome(r) != burnin_report::PhaseOutcome::failed) return std::nullopt;
  const auto& c = kPhaseChecks[static_cast<std::size_t>(*phase)];
  const Metric* errors = r.metric(burnin_report::kErrorsMetric);
  if (errors != nullptr && errors->value > 0) {
    return fmt::format("{}: {} {} in the {}{}{}", device, errors->value, c.errors, c.check, first_at(r, c),
                       during(r, *phase));
  }
  if (r.status == Status::incorrect || r.status == Status::failed) {
    return fmt::format("{}: the {} {}{}: {}", device, c.check,
                       r.status == Status::incorrect ? "found a wrong result" : "did not complete",
                       during(r, *phase), r.reason);
  }
  return std::nullopt;
}

// The reason of a phase result that ran but stopped before its first full verified pass, or nullopt.
std::optional<std::string> phase_incomplete(const Result& r, const std::string& device) {
  auto phase = phase_of(r);
  if (!phase || burnin_report::phase_outcome(r) != burnin_report::PhaseOutcome::incomplete)
    return std::nullopt;
  const auto& c = kPhaseChecks[static_cast<std::size_t>(*phase)];
  return fmt::format("{}: the {} is incomplete{}: {}", device, c.check, during(r, *phase),
                     r.reason.empty() ? std::string("no full verified pass") : r.reason);
}

std::string pcie_link(std::optional<int> gen, std::optional<int> width) {
  std::string out = gen ? fmt::format("Gen{}", *gen) : std::string("Gen?");
  if (width) out += fmt::format(" x{}", *width);
  return out;
}

// The fail reasons the sampler's record gives for one GPU.
void record_failures(const GpuRecord& g, std::vector<std::string>& reasons) {
  const auto& dev = g.id.device;
  if (g.lost) reasons.push_back(fmt::format("{}: stopped answering during the burn-in (lost)", dev));
  if (g.before && g.after && g.before->ecc_dbe_volatile && g.after->ecc_dbe_volatile &&
      *g.after->ecc_dbe_volatile > *g.before->ecc_dbe_volatile) {
    reasons.push_back(fmt::format("{}: {} new double-bit ECC errors (volatile count {} before, {} after)",
                                  dev, *g.after->ecc_dbe_volatile - *g.before->ecc_dbe_volatile,
                                  *g.before->ecc_dbe_volatile, *g.after->ecc_dbe_volatile));
  }
  if (g.after) {
    const auto& a = *g.after;
    auto rows =
        fmt::format("{} correctable, {} uncorrectable rows remapped", a.remapped_rows_correctable.value_or(0),
                    a.remapped_rows_uncorrectable.value_or(0));
    if (a.row_remap_failed.value_or(false))
      reasons.push_back(fmt::format("{}: row remap failed at the end ({})", dev, rows));
    if (a.row_remap_pending.value_or(false))
      reasons.push_back(fmt::format("{}: row remap pending at the end ({})", dev, rows));
    if (a.retired_pages_pending.value_or(false)) {
      reasons.push_back(
          fmt::format("{}: retired page pending at the end ({} single-bit, {} double-bit pages retired)", dev,
                      a.retired_pages_sbe.value_or(0), a.retired_pages_dbe.value_or(0)));
    }
  }
  if (g.peak_load) {
    const auto& p = *g.peak_load;
    bool gen_low = p.pcie_gen && p.pcie_gen_max && *p.pcie_gen < *p.pcie_gen_max;
    bool width_low = p.pcie_width && p.pcie_width_max && *p.pcie_width < *p.pcie_width_max;
    if (gen_low || width_low) {
      reasons.push_back(fmt::format("{}: PCIe link {} under load, maximum {}", dev,
                                    pcie_link(p.pcie_gen, p.pcie_width),
                                    pcie_link(p.pcie_gen_max, p.pcie_width_max)));
    }
  }
  for (const auto& reason : gpu::throttle_reason_names(kHardwareSlowdownBits)) {
    auto it = g.throttle_seconds.find(reason);
    if (it != g.throttle_seconds.end() && it->second > 0)
      reasons.push_back(fmt::format("{}: {:.1f} s in {} throttling", dev, it->second, reason));
  }
}

struct Rate {
  double value = 0;
  std::string unit;
};

// The GPU's rate per key: the median of each phase's first metric over its ok results of that phase alone.
std::map<std::string, Rate> gpu_rates(const std::vector<Result>& results, const std::string& device) {
  std::map<std::string, std::vector<double>> values;
  std::map<std::string, std::string> units;
  for (const auto& r : results) {
    auto phase = phase_of(r);
    if (!phase || r.status != Status::ok || r.metrics.empty()) continue;
    if (string_param(r.params, "device") != device || string_param(r.params, "phase") != to_string(*phase))
      continue;
    auto key = rate_key(*phase, r.metrics.front().name);
    values[key].push_back(r.metrics.front().value);
    units[key] = r.metrics.front().unit;
  }
  std::map<std::string, Rate> out;
  for (const auto& [key, v] : values) out[key] = Rate{median(v), units[key]};
  return out;
}

// "6.0 % below" the reference when `rate` is more than warn_pct below it.
std::optional<double> pct_below(double rate, double reference, double warn_pct) {
  if (!(reference > 0) || rate >= reference * (1 - warn_pct / 100)) return std::nullopt;
  return (reference - rate) / reference * 100;
}

Verdict worst(Verdict a, Verdict b) { return static_cast<int>(a) >= static_cast<int>(b) ? a : b; }

}  // namespace

int NodeVerdict::exit_code() const {
  return verdict == Verdict::fail || verdict == Verdict::incomplete ? 1 : 0;
}

NodeVerdict judge(const std::vector<Result>& phase_results, const std::vector<GpuRecord>& gpus,
                  const std::vector<burnin_report::Event>& events, const VerdictOptions& opts) {
  NodeVerdict node;
  std::set<std::string> gpu_devices;
  for (const auto& g : gpus) gpu_devices.insert(g.id.device);

  std::vector<std::map<std::string, Rate>> rates;
  std::map<std::string, std::vector<double>> per_key;
  for (const auto& g : gpus) {
    rates.push_back(gpu_rates(phase_results, g.id.device));
    for (const auto& [key, rate] : rates.back()) per_key[key].push_back(rate.value);
  }
  std::map<std::string, double> node_median;
  for (const auto& [key, v] : per_key) {
    if (v.size() > 1) node_median[key] = median(v);
  }

  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const auto& g = gpus[i];
    GpuVerdict v;
    v.device = g.id.device;
    std::vector<std::string> fails, warns;
    std::vector<std::string> incomplete;
    for (const auto& r : phase_results) {
      if (string_param(r.params, "device") != v.device) continue;
      if (auto why = phase_failure(r, v.device)) fails.push_back(*why);
      if (auto why = phase_incomplete(r, v.device)) incomplete.push_back(*why);
    }
    for (const auto& e : events) {
      if (e.kind == "xid" && e.device == v.device)
        fails.push_back(fmt::format("{}: XID {} at {:.0f} s: {}", v.device, e.code, e.time_s, e.text));
    }
    record_failures(g, fails);
    for (const auto& [key, rate] : rates[i]) {
      v.rates[key] = rate.value;
      if (auto m = node_median.find(key); m != node_median.end()) {
        if (auto below = pct_below(rate.value, m->second, opts.warn_pct)) {
          warns.push_back(fmt::format("{}: {} {:.1f} % below the node median ({}, median {})", v.device, key,
                                      *below, format_rate(rate.value, rate.unit),
                                      format_rate(m->second, rate.unit)));
        }
      }
      if (auto b = opts.baseline_median.find(key); b != opts.baseline_median.end()) {
        if (auto below = pct_below(rate.value, b->second, opts.warn_pct)) {
          warns.push_back(fmt::format("{}: {} {:.1f} % below the baseline fleet median ({}, median {})",
                                      v.device, key, *below, format_rate(rate.value, rate.unit),
                                      format_rate(b->second, rate.unit)));
        }
      }
    }
    // A GPU is judged on what ran; a phase of its that stopped before a full pass makes the node incomplete.
    v.verdict = !fails.empty() ? Verdict::fail : !warns.empty() ? Verdict::warn : Verdict::pass;
    v.reasons = std::move(fails);
    v.reasons.insert(v.reasons.end(), warns.begin(), warns.end());
    node.verdict = worst(node.verdict, v.verdict);
    if (!incomplete.empty()) node.verdict = worst(node.verdict, Verdict::incomplete);
    node.reasons.insert(node.reasons.end(), v.reasons.begin(), v.reasons.end());
    node.reasons.insert(node.reasons.end(), incomplete.begin(), incomplete.end());
    node.gpus.push_back(std::move(v));
  }

  for (const auto& r : phase_results) {
    auto device = string_param(r.params, "device");
    if (gpu_devices.contains(device)) continue;
    const std::string named = device.empty() ? std::string("host") : device;
    if (auto why = phase_failure(r, named)) {
      node.reasons.push_back(*why);
      node.verdict = Verdict::fail;
    } else if (auto cut = phase_incomplete(r, named)) {
      node.reasons.push_back(*cut);
      node.verdict = worst(node.verdict, Verdict::incomplete);
    }
  }
  for (const auto& e : events) {
    if (e.kind == "xid" && !gpu_devices.contains(e.device)) {
      node.reasons.push_back(fmt::format("{}: XID {} at {:.0f} s on no GPU the burn-in knows: {}",
                                         e.device.empty() ? std::string("node") : e.device, e.code, e.time_s,
                                         e.text));
      node.verdict = Verdict::fail;
    }
  }
  return node;
}

std::map<std::string, double> baseline_medians(const std::vector<std::string>& paths,
                                               const std::string& gpu_name) {
  std::map<std::string, std::vector<double>> per_key;
  std::set<std::string> models;
  bool matched = false;
  for (const auto& path : paths) {
    bool burnin = false;
    for (const auto& named : load_reports({path})) {
      const auto& host = named.report.host;
      for (const auto& r : named.report.results) {
        if (r.probe != burnin_report::kGpuProbe) continue;
        burnin = true;
        auto name = string_param(r.params, "name");
        if (name.empty()) {
          auto uuid = string_param(r.params, "uuid");
          for (const auto& g : HostView(host).gpus) {
            if (!uuid.empty() && string_param(g, "uuid") == uuid) name = string_param(g, "name");
          }
        }
        if (!name.empty()) models.insert(name);
        if (name != gpu_name) continue;
        matched = true;
        for (const auto& m : r.metrics) {
          if (split_rate_key(m.name)) per_key[m.name].push_back(m.value);
        }
      }
    }
    if (!burnin) {
      throw UsageError(fmt::format(
          "--baseline {}: no burn-in GPU result ({}) in it; pass reports written by mlbench burnin", path,
          burnin_report::kGpuProbe));
    }
  }
  if (!matched) {
    throw UsageError(
        fmt::format("--baseline: no GPU named '{}' in the baseline reports (they hold: {}); pass "
                    "burn-in reports of the same GPU model",
                    gpu_name, fmt::join(models, ", ")));
  }
  if (per_key.empty()) {
    throw UsageError(
        fmt::format("--baseline: the baseline reports' {} results carry no rate metric "
                    "(\"gemm_tflops\", ...); pass reports written by mlbench burnin",
                    burnin_report::kGpuProbe));
  }
  std::map<std::string, double> out;
  for (const auto& [key, v] : per_key) out[key] = median(v);
  return out;
}

}  // namespace mlbench::burnin
