// A burn-in phase: one kind of sustained load (GEMM on every GPU, HBM pattern test, copies, NCCL all_reduce,
// host memory pattern test, storage write-verify-read) run until a deadline, checking every result as it
// goes. The phases are built on the probes' own code (the gpu.gemm probe's cuBLASLt case, the storage engine,
// ...), not a second copy of it; this seam only lets the burn-in run each one for a share of --duration, all
// of them at once in the final phase, and stop at SIGINT.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/names.hpp"
#include "report/report.hpp"

namespace mlbench::burnin {

// The phases in the order they run; `all` runs every other available phase at once.
enum class PhaseId { gemm, hbm, copy, nccl, host_memory, storage, all };
inline constexpr EnumName<PhaseId> kPhaseNames[] = {{PhaseId::gemm, "gemm"},
                                                    {PhaseId::hbm, "hbm"},
                                                    {PhaseId::copy, "copy"},
                                                    {PhaseId::nccl, "nccl"},
                                                    {PhaseId::host_memory, "hostmem"},
                                                    {PhaseId::storage, "storage"},
                                                    {PhaseId::all, "all"}};
static_assert(names_cover(kPhaseNames));
inline std::string_view to_string(PhaseId p) { return name_of(kPhaseNames, p); }
// The phases that load the GPUs, and so heat them: only around these does the burn-in cool down.
constexpr bool is_gpu_phase(PhaseId p) {
  return p == PhaseId::gemm || p == PhaseId::hbm || p == PhaseId::copy || p == PhaseId::nccl;
}

struct PhaseContext {
  const Json& host;  // the inventory (bench/sysinfo.hpp)
  std::chrono::steady_clock::time_point deadline;
  const std::atomic<bool>& stop;      // SIGINT/SIGTERM: end the phase now, keep what ran
  std::filesystem::path scratch_dir;  // where the storage phase writes its scratch file (created and removed)
  std::uint64_t seed = 1;             // the same on every GPU, so GEMM outputs must be bit-identical
  // Share of free memory the pattern tests cover: GPU HBM at least 0.9; the host phase takes this share of
  // MemAvailable (default 0.5, so the node stays usable).
  double gpu_memory_fraction = 0.9, host_memory_fraction = 0.5;
  // Bytes of the storage phase's scratch file.
  std::uint64_t storage_bytes = 1ull << 30;

  bool stopping() const;
  bool past_deadline() const;  // deadline reached or stop set
};

// What one full verified pass of a phase takes here, measured before the burn-in (burnin/run.hpp plans the
// shares with it): the seconds, what they cover in words ("a write and check of 11.3 GiB at 0.93 GB/s") and
// the option that makes a pass shorter ("--host-memory-share"); seconds 0 when a pass takes a negligible
// share of any duration.
struct PassEstimate {
  double seconds = 0;
  std::string what, smaller_with;
};

// What a phase returns: one Result per device it loaded (probe "burnin.<phase>", params {device, ...}; the
// orchestrator adds params.phase), see report/report_burnin.hpp. The first metric is the sustained rate with
// stats over the iterations; then "errors" (count, Better::lower). A result whose check failed has status
// `incorrect` and a reason naming the device, the count and the first address; one stopped before its
// first full verified pass has info.iterations 0, status `skipped` and a reason saying how far it got.
class Phase {
 public:
  virtual ~Phase() = default;
  virtual PhaseId id() const = 0;
  // Why this phase cannot run on this machine (no GPU, built without CUDA/NCCL, fewer than 2 GPUs), or
  // nullopt.
  virtual std::optional<std::string> unavailable(const Json& host) const = 0;
  // One full verified pass here, measured on a sample of the load (ctx.deadline is not read). The GPU
  // phases' iterations take milliseconds: they keep this default.
  virtual PassEstimate estimate(const PhaseContext&) { return {}; }
  // Runs until ctx.deadline or ctx.stop and returns by the deadline: a pass that would not end before it
  // is not started; throws Error only when the phase cannot start at all.
  virtual std::vector<Result> run(const PhaseContext& ctx) = 0;
};

// The host phases (host_phases.cpp): host memory pattern test and storage write-verify-read.
std::vector<std::unique_ptr<Phase>> make_host_phases();
// The GPU phases (gpu_phases.cpp): GEMM, HBM pattern, copies, NCCL all_reduce; in a build without CUDA each
// says so through unavailable().
std::vector<std::unique_ptr<Phase>> make_gpu_phases();

}  // namespace mlbench::burnin
