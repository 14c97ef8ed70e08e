#include "sizing/assumptions.hpp"

namespace mlbench::sizing {

std::span<const Assumption* const> engine_assumptions() {
  using namespace assumption;
  static constexpr const Assumption* kListed[] = {&kGoodput,
                                                  &kTrainingGemmDerate,
                                                  &kAttentionRelative,
                                                  &kOverlapHidden,
                                                  &kCudaContext,
                                                  &kCublasWorkspace,
                                                  &kNcclCommunicator,
                                                  &kFragmentation,
                                                  &kAveragePowerShare,
                                                  &kNodeMtbfHours,
                                                  &kRestartTime,
                                                  &kCollectiveLatency,
                                                  &kCheckpointBytesPerParam,
                                                  &kCommBudget,
                                                  &kHostRamPerHbm,
                                                  &kDramWattsPerGb,
                                                  &kDriveEfficiency,
                                                  &kCoresPerGpuText,
                                                  &kCoresPerGpuImages,
                                                  &kCoresPerGpuServing,
                                                  &kConvShareOfNetwork,
                                                  &kZero3Traffic,
                                                  &kModelVersions,
                                                  &kServingAllReduceLatency,
                                                  &kGemmUnhiddenShare};
  return kListed;
}

const Assumption& cores_per_gpu(std::string_view kind) {
  for (const Assumption* a : {&assumption::kCoresPerGpuImages, &assumption::kCoresPerGpuServing})
    if (a->kind == kind) return *a;
  return assumption::kCoresPerGpuText;
}

}  // namespace mlbench::sizing
