// STREAM loops in plain C++ for CPUs without an x86 vector path (the compiler vectorises them with its
// baseline ISA); "non-temporal" is a regular store here.
#include "kernels/host/stream_loops.hpp"

namespace mlbench::hostmem {
namespace {

struct Ops {
  using V = double;
  static constexpr std::size_t kWidth = 1;
  static V load(const double* p) { return *p; }
  static void store(double* p, V v) { *p = v; }
  static void stream(double* p, V v) { *p = v; }
  static V set1(double x) { return x; }
  static V add(V x, V y) { return x + y; }
  static V mul(V x, V y) { return x * y; }
  static void fence() {}
};

}  // namespace

void stream_chunk_scalar(Kernel k, double* a, double* b, double* c, std::size_t n, double q,
                         bool non_temporal) {
  stream_chunk<Ops>(k, a, b, c, n, q, non_temporal);
}

}  // namespace mlbench::hostmem
