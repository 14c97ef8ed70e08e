// Calibration: the efficiencies the performance models run on, taken from measured reports where they exist.
//
// Each figure says where it came from: `measured` (this GPU/node in a report), `transferred` (the efficiency
// of the closest measured device applied to the sized device's datasheet), or `assumed` (the default
// efficiencies of METHODS.md). Efficiencies are fractions of the sized device's datasheet figure, so a
// transfer is "the measured fraction of the measured device's datasheet".
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "reports/report.hpp"
#include "sizing/catalog.hpp"

namespace mlbench::sizing {

enum class Source { measured, transferred, assumed };
std::string_view to_string(Source s);

struct Figure {
  double value = 0;
  Source source = Source::assumed;
  std::string basis;  // where the number comes from, in words with its numbers
};

// The defaults of METHODS.md used when no report speaks to a figure; each is printed on the sheet.
struct DefaultEfficiencies {
  // Published best-shape GEMM results: H100 BF16 795/989 = 0.80, A100 271/312 = 0.87 -> 0.80 for 16-bit;
  // H100 FP8 1403/1979 = 0.71.
  static double gemm(std::string_view precision);
  static constexpr double kHbm = 0.90;      // good STREAM kernels: ~90 % of datasheet HBM bandwidth
  static constexpr double kNvlink = 0.81;   // 8xH200 ring all_reduce busbw 366 GB/s of 450 GB/s
  static constexpr double kNetwork = 0.90;  // inter-node busbw of a rail-optimised fabric / NIC line rate
  static constexpr double kDrive = 0.90;    // sustained sequential share of an NVMe drive's rating
  static constexpr double kHostMem = 0.70;  // STREAM triad share of channels x MT/s x 8 B
  // Convolution networks: MLPerf ResNet-50 training ~2,700 images/s per A100 = 3 x 8.2 GFLOP x 2,700 = 21 %
  // of the BF16 peak (cuDNN convolutions plus batch-norm/ReLU memory traffic).
  static constexpr double kConvModel = 0.21;
};

struct Calibration {
  Figure gemm;     // of the sized GPU's datasheet peak at the workload precision, at the workload's shapes
  Figure hbm;      // of datasheet HBM bandwidth
  Figure nvlink;   // in-node all_reduce busbw / link bandwidth per direction
  Figure network;  // inter-node busbw / NIC line rate
  Figure conv;     // whole-CNN training FLOPs / BF16 peak
  Figure storage_read, storage_write;  // node-local B/s; value 0 = from the drives' datasheet
  Figure host_mem;                     // of theoretical host memory bandwidth
  std::string measured_gpu;            // catalog name of the GPU the reports measured, "" when none
  std::vector<std::string> warnings;
};

using GemmShape = std::array<double, 3>;  // m, n, k

struct CalibrationInput {
  const GpuSpec* target = nullptr;
  std::string precision;
  std::vector<GemmShape> shapes;  // the workload's GEMMs (empty: best shape)
  bool node_is_measured = false;  // sizing the node the reports came from (storage/host numbers apply)
};

Calibration calibrate(const std::vector<Report>& reports, const HardwareCatalog& catalog,
                      const CalibrationInput& in);

// The catalog GPU of a report's host inventory (first GPU), or nullptr.
const GpuSpec* report_gpu(const Report& r, const HardwareCatalog& catalog);

}  // namespace mlbench::sizing
