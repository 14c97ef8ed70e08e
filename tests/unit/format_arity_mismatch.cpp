// Compiled by CTest (tests/unit/CMakeLists.txt), never linked: with MLBENCH_FORMAT_ARGS_MATCH it must
// compile; without, the extra argument must be a compile error naming the failed check.
#include <string>

namespace mlbench {

std::string sync_line(double eta, double exposed, double images) {
#ifdef MLBENCH_FORMAT_ARGS_MATCH
  return fmt::format("eta {:.1f} % with {:.1f} % exposed = {:.0f}", eta, exposed, images);
#else
  return fmt::format("eta {:.1f} % exposed = {:.0f}", eta, exposed, images);  // 2 fields, 3 arguments
#endif
}

}  // namespace mlbench
