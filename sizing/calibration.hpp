// Calibration: the efficiencies the performance models run on, taken from measured reports where they exist.
//
// Each figure says where it came from: `measured` (this GPU/node in a report), `transferred` (the efficiency
// of the closest measured device applied to the sized device's datasheet), or `assumed` (the calibration
// defaults of sizing/assumptions.hpp). Efficiencies are fractions of the sized device's datasheet figure, so
// a transfer is "the measured fraction of the measured device's datasheet".
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/names.hpp"
#include "report/report.hpp"
#include "sizing/assumptions.hpp"
#include "sizing/catalog.hpp"

namespace mlbench::sizing {

enum class Source { measured, transferred, assumed };
inline constexpr EnumName<Source> kSourceNames[] = {
    {Source::measured, "measured"}, {Source::transferred, "transferred"}, {Source::assumed, "assumed"}};
static_assert(names_cover(kSourceNames));
std::string_view to_string(Source s);

struct Figure {
  double value = 0;
  Source source = Source::assumed;
  std::string basis;  // where the number comes from, in words with its numbers
};

// The default GEMM efficiency of a precision (assumption::kGemm16, kGemm8 or kGemm4).
const Assumption& default_gemm_efficiency(std::string_view precision);
// The large-GEMM asymptote a GPU is assumed to reach at a precision where no report measured it: its own
// published figure (assumption::kPublishedGemm) where there is one, else the precision's default;
// `sustained` (serving): its published sustained figure (assumption::kPublishedSustainedGemm) where there is
// one.
Figure assumed_gemm_asymptote(const GpuSpec& gpu, std::string_view precision, bool sustained = false);

struct Calibration {
  Figure gemm;     // of the sized GPU's datasheet peak at the workload precision, at the workload's shapes
  Figure hbm;      // of datasheet HBM bandwidth
  Figure nvlink;   // in-node all_reduce busbw / link bandwidth per direction
  Figure network;  // inter-node busbw / NIC line rate
  // alltoall busbw (MoE dispatch and combine), same units; the all_reduce figures where none was measured.
  Figure alltoall_nvlink, alltoall_network;
  Figure conv;                         // whole-CNN training FLOPs / BF16 peak
  Figure storage_read, storage_write;  // node-local B/s; value 0 = from the drives' datasheet
  Figure host_mem;                     // of theoretical host memory bandwidth
  std::string measured_gpu;            // catalog name of the GPU the reports measured, "" when none
  bool sustained = false;              // the GEMM figures at sustained clocks (CalibrationInput's)
  std::vector<std::string> warnings;
};

using GemmShape = std::array<double, 3>;  // m, n, k

struct CalibrationInput {
  const GpuSpec* target = nullptr;
  std::string precision;
  std::vector<GemmShape> shapes;  // the workload's GEMMs (empty: best shape)
  bool node_is_measured = false;  // sizing the node the reports came from (storage/host numbers apply)
  bool sustained = false;         // GEMMs at sustained clocks (serving): assumed_gemm_asymptote's `sustained`
};

// The physical range of a figure a report gives the calibration (a metric, or a fact of the host inventory),
// in the unit the probes write it in.
struct PhysicalRange {
  std::string_view metric, unit;
  double lo, hi;
};
// The range of `name`; Error naming it when the table has none (a figure the calibration reads must have
// one).
const PhysicalRange& physical_range(std::string_view name);

Calibration calibrate(const std::vector<Report>& reports, const HardwareCatalog& catalog,
                      const CalibrationInput& in);

// What a serving workload asks of a serving measurement (probe serve.llm, `mlbench serve`) to size from it.
struct ServingWant {
  std::string model;  // the served model's name, matched case-insensitively with the result's params.model
  double input_tokens = 0, output_tokens = 0;
  double ttft_s = 0, tpot_s = 0;  // p99 targets; 0 = none
  const GpuSpec* gpu = nullptr;   // the sized node: its GPU, GPU count and template name
  int gpus = 0;
  std::string node;
};
// A load point is used when its isl and osl are each within this share of the workload's lengths, and when
// at most this per cent of its requests failed.
inline constexpr double kServingLengthTolerance = 0.10;
inline constexpr double kServingMaxErrorPct = 1.0;

struct ServingMeasurement {
  // Output tokens/s per sized node (source measured), from the serve.llm load point with the most output
  // tokens/s among those of the same model and lengths whose TTFT p99 and TPOT p99 meet the targets, scaled
  // by the sized node's GPUs over the GPUs that served it (info.node.gpus; taken as one node when the report
  // does not say). None when no load point qualifies.
  std::optional<Figure> per_node;
  std::vector<std::string> not_used;  // why serve.llm results were left out, each reason once
};
ServingMeasurement serving_measurement(const std::vector<Report>& reports, const HardwareCatalog& catalog,
                                       const ServingWant& want);

// The catalog GPU of a report's host inventory (first GPU), or nullptr.
const GpuSpec* report_gpu(const Report& r, const HardwareCatalog& catalog);

}  // namespace mlbench::sizing
