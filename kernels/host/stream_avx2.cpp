// STREAM loops with AVX2 vectors; compiled with -mavx2 (kernels/host/CMakeLists.txt) and only called
// after the run-time CPU check in stream.cpp.
#include <immintrin.h>

#include "kernels/host/stream_loops.hpp"

namespace mlbench::hostmem {
namespace {

struct Ops {
  using V = __m256d;
  static constexpr std::size_t kWidth = 4;
  static V load(const double* p) { return _mm256_load_pd(p); }
  static void store(double* p, V v) { _mm256_store_pd(p, v); }
  static void stream(double* p, V v) { _mm256_stream_pd(p, v); }
  static V set1(double x) { return _mm256_set1_pd(x); }
  static V add(V x, V y) { return _mm256_add_pd(x, y); }
  static V mul(V x, V y) { return _mm256_mul_pd(x, y); }
  static void fence() { _mm_sfence(); }
};

}  // namespace

void stream_chunk_avx2(Kernel k, double* a, double* b, double* c, std::size_t n, double q,
                       bool non_temporal) {
  stream_chunk<Ops>(k, a, b, c, n, q, non_temporal);
}

}  // namespace mlbench::hostmem
