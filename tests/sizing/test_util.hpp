// Shared helpers of the sizing tests: the shipped catalog and workloads, fixture paths.
#pragma once

#include <filesystem>
#include <string>

#include "sizing/catalog.hpp"
#include "sizing/planner.hpp"
#include "sizing/workload.hpp"

namespace mlbench::sizing::test {

inline std::filesystem::path source_dir() { return MLBENCH_SOURCE_DIR; }
inline std::filesystem::path data_dir() { return std::filesystem::path(MLBENCH_TEST_DATA_DIR) / "sizing"; }

inline const HardwareCatalog& shipped_catalog() {
  static const HardwareCatalog c = load_hardware_catalog(source_dir() / "configs" / "hardware");
  return c;
}

inline Sheet plan_file(const std::filesystem::path& workload, double headroom = kDefaultHeadroom) {
  PlanRequest req;
  req.workload = load_workload(workload);
  req.headroom = headroom;
  return plan(req, shipped_catalog());
}

}  // namespace mlbench::sizing::test
