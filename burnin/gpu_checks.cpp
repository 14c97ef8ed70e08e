// The pure half of the GPU phases (burnin/gpu_checks.hpp).
#include "burnin/gpu_checks.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <utility>

#include <fmt/format.h>

#include "base/stats.hpp"
#include "base/units.hpp"
#include "bench/host_view.hpp"
#include "report/report_burnin.hpp"

namespace mlbench::burnin {
namespace {

std::string hex(std::uint64_t v) { return fmt::format("0x{:016x}", v); }

}  // namespace

std::vector<HashMismatch> hash_mismatches(const std::vector<OutputHash>& reports) {
  // (model, precision) -> hash -> the reports carrying it.
  std::map<std::pair<std::string, std::string>, std::map<std::string, std::vector<std::size_t>>> groups;
  for (std::size_t i = 0; i < reports.size(); ++i) {
    groups[{reports[i].model, reports[i].precision}][reports[i].hash].push_back(i);
  }
  std::vector<HashMismatch> out;
  for (const auto& [key, by_hash] : groups) {
    if (by_hash.size() < 2) continue;
    std::size_t most = 0, holders = 0;
    const std::string* reference = nullptr;
    for (const auto& [hash, idx] : by_hash) {
      if (idx.size() > most) {
        most = idx.size();
        holders = 1;
        reference = &hash;
      } else if (idx.size() == most) {
        ++holders;
      }
    }
    const bool tie = holders > 1;
    for (const auto& [hash, idx] : by_hash) {
      if (!tie && &hash == reference) continue;
      for (std::size_t i : idx) {
        const auto& r = reports[i];
        std::string why =
            tie ? fmt::format(
                      "{}: {} GEMM output hash {} — the {} GPUs disagree ({} different hashes, none "
                      "held by most reports), so none can be trusted",
                      r.device, r.precision, r.hash, r.model, by_hash.size())
                : fmt::format(
                      "{}: {} GEMM output hash {} differs from {}, which {} of {} reports of {} GPUs "
                      "give for the same inputs",
                      r.device, r.precision, r.hash, *reference, most,
                      std::accumulate(by_hash.begin(), by_hash.end(), std::size_t{0},
                                      [](std::size_t n, const auto& h) { return n + h.second.size(); }),
                      r.model);
        out.push_back({i, r.device, std::move(why)});
      }
    }
  }
  std::sort(out.begin(), out.end(),
            [](const HashMismatch& a, const HashMismatch& b) { return a.index < b.index; });
  return out;
}

std::vector<std::string> gpu_device_names(const Json& host) {
  std::vector<std::string> out;
  const Json& gpus = HostView(host).gpus;
  std::vector<std::size_t> order(gpus.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  const bool all_have_bus = std::all_of(gpus.begin(), gpus.end(), [](const Json& g) {
    return g.contains("pci_bus_id") && g["pci_bus_id"].is_string();
  });
  if (all_have_bus) {
    std::stable_sort(order.begin(), order.end(), [&gpus](std::size_t a, std::size_t b) {
      return gpus[a]["pci_bus_id"].get<std::string>() < gpus[b]["pci_bus_id"].get<std::string>();
    });
  }
  out.resize(gpus.size());
  for (std::size_t rank = 0; rank < order.size(); ++rank) out[order[rank]] = fmt::format("gpu{}", rank);
  return out;
}

void BadWordLog::add(const gpu::HbmPatternCounters& counters, const gpu::HbmPass& pass) {
  count_ += counters.bad_words;
  const std::uint32_t recorded = std::min(counters.claimed, gpu::kHbmRecordedBadWords);
  for (std::uint32_t i = 0; i < recorded && first_.size() < gpu::kHbmRecordedBadWords; ++i) {
    first_.push_back({counters.first[i], pass.pattern});
  }
}

Json BadWordLog::to_json() const {
  Json out = Json::array();
  for (const auto& e : first_) {
    out.push_back({{"address", hex(e.word.address)},
                   {"expected", hex(e.word.expected)},
                   {"actual", hex(e.word.actual)},
                   {"pattern", name_of(kHbmPatternNames, e.pattern)}});
  }
  return out;
}

std::string BadWordLog::reason(std::string_view device, std::uint64_t bytes, std::uint64_t passes) const {
  std::string out =
      fmt::format("{}: {} bad word{} in {} over {} pass{}", device, count_, count_ == 1 ? "" : "s",
                  format_bytes(static_cast<double>(bytes)), passes, passes == 1 ? "" : "es");
  if (!first_.empty()) {
    const auto& f = first_.front();
    out += fmt::format("; first at {} ({}: expected {}, read {})", hex(f.word.address),
                       name_of(kHbmPatternNames, f.pattern), hex(f.word.expected), hex(f.word.actual));
  }
  return out;
}

Result phase_result(PhaseId phase, const std::string& device, const std::string& uuid) {
  Result r;
  r.probe = fmt::format("{}{}", burnin_report::kPhaseProbePrefix, to_string(phase));
  r.params = Json{{"device", device}, {"uuid", uuid}};
  return r;
}

void add_iteration_rate(Result& r, std::string name, const std::vector<double>& rates, std::string unit) {
  if (rates.empty()) {
    if (r.status == Status::ok) {
      r.status = Status::skipped;
      r.reason =
          fmt::format("{}: no iteration finished before the phase ended", r.params.value("device", ""));
    }
    return;
  }
  Metric m;
  m.name = std::move(name);
  m.unit = std::move(unit);
  m.stats = compute_stats(rates);
  m.value = m.stats->median;
  r.metrics.push_back(std::move(m));
}

void add_errors(Result& r, std::uint64_t errors, const std::string& reason) {
  r.add_metric(std::string(burnin_report::kErrorsMetric), static_cast<double>(errors), "", Better::lower);
  if (errors > 0 && r.status != Status::failed) {
    r.status = Status::incorrect;
    r.reason = reason;
  }
}

}  // namespace mlbench::burnin
