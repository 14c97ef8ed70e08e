// The GPU hardware catalog (configs/hardware/gpus.yaml): datasheet peaks that "% of peak", `mlbench check`
// and the sizing engine divide by. Matched to a running device by name substring and compute capability.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mlbench {

struct GpuSpec {
  std::string name;                // catalog name: "H200-SXM"
  std::vector<std::string> match;  // device-name substrings
  std::string compute_capability;  // "9.0"
  std::map<std::string, double>
      peak;  // precision (fp32, tf32, fp16, bf16, fp8, int8) -> FLOP/s (OP/s for int8)
  double memory_bytes = 0;
  std::string memory_type;
  double memory_bandwidth = 0;  // B/s
  std::string link;             // "NVLink4"
  double link_bandwidth = 0;    // B/s per direction
  int pcie_gen = 0;
  double tdp_w = 0;
  int sms = 0;  // streaming multiprocessors (compute units); 0 when the catalog does not give them
  std::vector<std::string> unverified;

  // Peak for a precision, or nullopt when the GPU has none (FP8 on an A100).
  std::optional<double> peak_for(std::string_view precision) const;
};

// Loads and validates the catalog; UsageError names the file, entry and field on bad input.
std::vector<GpuSpec> load_gpu_catalog(const std::filesystem::path& path);
// config_dir()/hardware/gpus.yaml, loaded once.
const std::vector<GpuSpec>& gpu_catalog();

// The entry whose compute capability equals `cc` (when given) and whose longest `match` substring occurs in
// `device_name` (case-insensitive); nullptr for an unknown GPU.
const GpuSpec* match_gpu(const std::vector<GpuSpec>& catalog, std::string_view device_name,
                         std::string_view cc);
// By catalog name (case-insensitive, exact); nullptr when absent.
const GpuSpec* find_gpu(const std::vector<GpuSpec>& catalog, std::string_view name);

}  // namespace mlbench
