// The ONE list of probes built into mlbench, in the order `mlbench run` executes them. Each line is guarded
// by the MLBENCH_HAS_* of what the probe needs.
#include "bench/registry.hpp"
#include "mlbench_config.hpp"

namespace mlbench {

Registry builtin_registry() {
  Registry r;
  return r;
}

}  // namespace mlbench
