#include "sizing/assumptions.hpp"

#include <vector>

namespace mlbench::sizing {

// Each row names its entry once: the macro spells the identifier the test finds in assumptions.hpp.
#define MLBENCH_ASSUMPTION(id, listing, engine) \
  DeclaredAssumption { #id, &assumption::id, Listing::listing, engine }

std::span<const DeclaredAssumption> declared_assumptions() {
  // The engine rows in the order the sheet lists them.
  static constexpr DeclaredAssumption kDeclared[] = {
      MLBENCH_ASSUMPTION(kGemm16, calibration, ""),
      MLBENCH_ASSUMPTION(kGemm8, calibration, ""),
      MLBENCH_ASSUMPTION(kGemm4, calibration, ""),
      MLBENCH_ASSUMPTION(kHbm, calibration, ""),
      MLBENCH_ASSUMPTION(kNvlink, calibration, ""),
      MLBENCH_ASSUMPTION(kNetwork, calibration, ""),
      MLBENCH_ASSUMPTION(kConvModel, calibration, ""),
      MLBENCH_ASSUMPTION(kHostMem, calibration, ""),
      MLBENCH_ASSUMPTION(kGoodput, engine, ""),
      MLBENCH_ASSUMPTION(kTrainingGemmDerate, engine, ""),
      MLBENCH_ASSUMPTION(kAttentionRelative, engine, ""),
      MLBENCH_ASSUMPTION(kOverlapHidden, engine, ""),
      MLBENCH_ASSUMPTION(kCudaContext, engine, ""),
      MLBENCH_ASSUMPTION(kCublasWorkspace, engine, ""),
      MLBENCH_ASSUMPTION(kNcclCommunicator, engine, ""),
      MLBENCH_ASSUMPTION(kFragmentation, engine, ""),
      MLBENCH_ASSUMPTION(kAveragePowerShare, engine, ""),
      MLBENCH_ASSUMPTION(kNodeMtbfHours, engine, ""),
      MLBENCH_ASSUMPTION(kRestartTime, engine, ""),
      MLBENCH_ASSUMPTION(kCollectiveLatency, engine, ""),
      MLBENCH_ASSUMPTION(kCheckpointBytesPerParam, engine, ""),
      MLBENCH_ASSUMPTION(kCommBudget, engine, ""),
      MLBENCH_ASSUMPTION(kHostRamPerHbm, engine, ""),
      MLBENCH_ASSUMPTION(kDramWattsPerGb, engine, ""),
      MLBENCH_ASSUMPTION(kDriveEfficiency, engine, ""),
      MLBENCH_ASSUMPTION(kCoresPerGpuText, engine, ""),
      MLBENCH_ASSUMPTION(kCoresPerGpuImages, engine, ""),
      MLBENCH_ASSUMPTION(kCoresPerGpuServing, engine, ""),
      MLBENCH_ASSUMPTION(kConvShareOfNetwork, engine, ""),
      MLBENCH_ASSUMPTION(kZero3Traffic, engine, ""),
      MLBENCH_ASSUMPTION(kModelVersions, engine, ""),
      MLBENCH_ASSUMPTION(kServingAllReduceLatency, engine, ""),
      MLBENCH_ASSUMPTION(kGemmUnhiddenShare, engine, ""),
      MLBENCH_ASSUMPTION(kGpuMemoryUtilization, serving_engine, "vllm"),
      MLBENCH_ASSUMPTION(kCudaGraphs, serving_engine, "vllm"),
      MLBENCH_ASSUMPTION(kTrtllmFreeGpuMemoryFraction, serving_engine, "trtllm"),
  };
  return kDeclared;
}

#undef MLBENCH_ASSUMPTION

std::span<const Assumption* const> engine_assumptions() {
  static const std::vector<const Assumption*> kListed = [] {
    std::vector<const Assumption*> out;
    for (const auto& d : declared_assumptions())
      if (d.listing == Listing::engine) out.push_back(d.assumption);
    return out;
  }();
  return kListed;
}

const Assumption& cores_per_gpu(std::string_view kind) {
  for (const Assumption* a : {&assumption::kCoresPerGpuImages, &assumption::kCoresPerGpuServing})
    if (a->kind == kind) return *a;
  return assumption::kCoresPerGpuText;
}

}  // namespace mlbench::sizing
