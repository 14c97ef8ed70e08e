// The ONE list of probes built into mlbench, in the order `mlbench run` executes them. Each line is guarded
// by the MLBENCH_HAS_* of what the probe needs.
#include "bench/registry.hpp"
#include "bench/sysinfo.hpp"
#include "kernels/gpu/probe_info.hpp"    // always built: the GPU probes are listed in every build
#include "kernels/host/membw_probe.hpp"  // always built: needs only a CPU
#include "mlbench_config.hpp"
#if MLBENCH_HAS_CUDA
#include "kernels/gpu/probes.hpp"
#endif
#include "network/nccl_probe.hpp"             // always built: says "built without NCCL" when so
#include "serve/probe.hpp"                    // always built: sockets and OpenSSL
#include "storage/checkpoint/checkpoint.hpp"  // always built: psync needs nothing optional
#include "storage/dataload/probe.hpp"         // always built: plain calls need nothing optional
#include "storage/io/probe.hpp"               // always built: psync needs nothing optional

namespace mlbench {

Registry builtin_registry() {
  Registry r;
  r.add(hostmem::make_membw_probe());
  r.add(storage::make_storage_probe());
  r.add(storage::make_dataload_probe());
  r.add(storage::make_checkpoint_probe());
  r.add(net::make_nccl_probe());
  r.add(serve::make_serve_probe());
#if MLBENCH_HAS_CUDA
  for (auto& p : gpu::make_gpu_probes()) r.add(std::move(p));
#else
  for (auto& p : gpu::make_unavailable_gpu_probes(std::string(kBuiltWithoutCuda))) r.add(std::move(p));
#endif
  return r;
}

#if MLBENCH_HAS_CUDA
Json builtin_host_info() { return collect_host_info(SysReader("/"), gpu::gpu_inventory); }
#else
Json builtin_host_info() { return collect_host_info(SysReader("/")); }
#endif

}  // namespace mlbench
