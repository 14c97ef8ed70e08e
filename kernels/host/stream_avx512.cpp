// STREAM loops with AVX512 vectors; compiled with -mavx512f (kernels/host/CMakeLists.txt) and only called
// after the run-time CPU check in stream.cpp.
#include <immintrin.h>

#include "kernels/host/stream_loops.hpp"

namespace mlbench::hostmem {
namespace {

struct Ops {
  using V = __m512d;
  static constexpr std::size_t kWidth = 8;
  static V load(const double* p) { return _mm512_load_pd(p); }
  static void store(double* p, V v) { _mm512_store_pd(p, v); }
  static void stream(double* p, V v) { _mm512_stream_pd(p, v); }
  static V set1(double x) { return _mm512_set1_pd(x); }
  static V add(V x, V y) { return _mm512_add_pd(x, y); }
  static V mul(V x, V y) { return _mm512_mul_pd(x, y); }
  static void fence() { _mm_sfence(); }
};

}  // namespace

void stream_chunk_avx512(Kernel k, double* a, double* b, double* c, std::size_t n, double q,
                         bool non_temporal) {
  stream_chunk<Ops>(k, a, b, c, n, q, non_temporal);
}

}  // namespace mlbench::hostmem
