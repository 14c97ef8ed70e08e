// The pure half of the burn-in's GPU phases (burnin/gpu_phases.cpp), tested without a GPU: the GEMM output
// comparison across GPUs, the GPUs' burn-in names, the HBM pattern test's bad-word log and the shape of a
// phase result.
//
// Cross-GPU comparison: every GPU runs the same GEMM cases on inputs from the same seeds, and cuBLAS gives
// bit-identical results for the same algorithm on GPUs of one architecture and SM count, so all healthy GPUs
// of one model report one output hash per precision (gpu.gemm info.output_hash). gpu-burn compares a GPU only
// with its own earlier result and so misses a GPU that is wrong from the start; here each hash is held
// against its peers': the hash most reports of a (model, precision) group agree on is the reference, and each
// report with another hash is an error of the GPU that made it. Every iteration counts as one report, so a
// GPU that drifts during the phase is caught too, and one GPU alone is still compared with itself.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "burnin/phase.hpp"
#include "kernels/gpu/hbm_pattern_math.hpp"
#include "report/report.hpp"

namespace mlbench::burnin {

// One GEMM output hash: one iteration of one case on one GPU.
struct OutputHash {
  std::string device;     // "gpu0"
  std::string model;      // the GPU's name ("NVIDIA H200")
  std::string precision;  // "bf16"
  std::string hash;       // info.output_hash
};

// A report whose hash is not its group's reference.
struct HashMismatch {
  std::size_t index = 0;  // into the reports given
  std::string device;
  std::string reason;  // one line: the device, the precision, its hash, the reference and who holds it
};

// The reports that differ from their (model, precision) group's reference: the hash the most reports of the
// group carry. When two hashes tie for most there is no reference and every report of the group is a
// mismatch (the GPUs disagree and nothing says which is right: the node cannot pass).
std::vector<HashMismatch> hash_mismatches(const std::vector<OutputHash>& reports);

// The burn-in's name of each GPU of the inventory (host.gpus, in CUDA device order): "gpu<k>" with k its
// place in PCI bus id order, the order the telemetry names GPUs in (telemetry.hpp GpuId), so that phase
// results and telemetry agree whatever CUDA_DEVICE_ORDER says. Inventory order when a bus id is missing.
std::vector<std::string> gpu_device_names(const Json& host);

// The HBM pattern test's names of its patterns (hbm_pattern_math.hpp), as results record them.
inline constexpr EnumName<gpu::HbmPattern> kHbmPatternNames[] = {
    {gpu::HbmPattern::address, "address"},
    {gpu::HbmPattern::address_inverse, "address_inverse"},
    {gpu::HbmPattern::walking_ones, "walking_ones"},
    {gpu::HbmPattern::walking_zeros, "walking_zeros"},
    {gpu::HbmPattern::random, "random"}};
static_assert(names_cover(kHbmPatternNames));

// The bad words of one GPU over all passes of the HBM phase: every one counted, the first ones kept.
class BadWordLog {
 public:
  // Adds what one pass's check left in its counters (read back from the device).
  void add(const gpu::HbmPatternCounters& counters, const gpu::HbmPass& pass);
  std::uint64_t count() const { return count_; }
  // [{address, expected, actual, pattern}], values as 0x-prefixed hex, in the order found.
  Json to_json() const;
  // "<device>: N bad words in <bytes> over P passes; first at 0x.. (pattern, expected 0x.., read 0x..)".
  std::string reason(std::string_view device, std::uint64_t bytes, std::uint64_t passes) const;

 private:
  struct Entry {
    gpu::HbmBadWord word;
    gpu::HbmPattern pattern;
  };
  std::uint64_t count_ = 0;
  std::vector<Entry> first_;  // at most gpu::kHbmRecordedBadWords
};

// A phase's result for one device: probe "burnin.<phase>", params {device, uuid}, status ok.
Result phase_result(PhaseId phase, const std::string& device, const std::string& uuid);
// The phase's rate from one value per iteration: the median, with stats over the iterations. Without any
// iteration (the phase ended before one finished) there is no rate, and an `ok` result becomes `skipped`
// saying so, so that a result's first metric is always its rate.
void add_iteration_rate(Result& r, std::string name, const std::vector<double>& rates, std::string unit);
// The "errors" metric (count, lower is better); with errors, a result that is not `failed` becomes
// `incorrect` with `reason`.
void add_errors(Result& r, std::uint64_t errors, const std::string& reason);

}  // namespace mlbench::burnin
