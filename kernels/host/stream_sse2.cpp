// STREAM loops with SSE2 vectors; compiled with (x86-64 baseline) (kernels/host/CMakeLists.txt) and only
// called after the run-time CPU check in stream.cpp.
#include <immintrin.h>

#include "kernels/host/stream_loops.hpp"

namespace mlbench::hostmem {
namespace {

struct Ops {
  using V = __m128d;
  static constexpr std::size_t kWidth = 2;
  static V load(const double* p) { return _mm_load_pd(p); }
  static void store(double* p, V v) { _mm_store_pd(p, v); }
  static void stream(double* p, V v) { _mm_stream_pd(p, v); }
  static V set1(double x) { return _mm_set1_pd(x); }
  static V add(V x, V y) { return _mm_add_pd(x, y); }
  static V mul(V x, V y) { return _mm_mul_pd(x, y); }
  static void fence() { _mm_sfence(); }
};

}  // namespace

void stream_chunk_sse2(Kernel k, double* a, double* b, double* c, std::size_t n, double q,
                       bool non_temporal) {
  stream_chunk<Ops>(k, a, b, c, n, q, non_temporal);
}

}  // namespace mlbench::hostmem
