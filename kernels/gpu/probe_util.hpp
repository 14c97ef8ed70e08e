// Helpers every GPU probe uses while it runs: live device facts, catalog lookup, telemetry around a case,
// events-over-a-loop timing.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/gpu_catalog.hpp"
#include "bench/probe.hpp"
#include "kernels/gpu/plan.hpp"
#include "kernels/gpu/telemetry.hpp"

namespace mlbench::gpu {

// The inventory's devices with free memory from cudaMemGetInfo (for plan()'s fit checks).
std::vector<DeviceFacts> live_device_facts(const Json& host);
// One device's facts from the inventory (free memory queried too).
DeviceFacts device_facts(const Json& host, int index);

// The catalog entry of a device, or nullptr with a warning added to `r` (no pct_of_peak for unknown GPUs).
const GpuSpec* catalog_entry(const DeviceFacts& d, Result& r);

// Identity every GPU result carries.
void add_device_params(Json& params, const DeviceFacts& d);

// Samples NVML for one device from construction to finish(); finish() writes Result::telemetry (or why it
// is absent) and a warning when the GPU throttled.
class CaseTelemetry {
 public:
  explicit CaseTelemetry(const std::string& uuid);
  void finish(Result& r);

 private:
  std::unique_ptr<TelemetrySampler> sampler_;
  std::string unavailable_;
};

}  // namespace mlbench::gpu
