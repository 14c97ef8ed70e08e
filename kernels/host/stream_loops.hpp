// The four STREAM loops over one thread's chunk, written once against a small vector-ops interface and
// instantiated per instruction set in its own translation unit (stream_avx512.cpp, stream_avx2.cpp,
// stream_sse2.cpp), each compiled with that set's -m flags and chosen at run time. Only <cstddef> is included
// here, and every Ops type lives in an unnamed namespace, so the instantiations have internal linkage and no
// wider-ISA code can leak into shared inline functions.
//
// Ops: V, kWidth, load, store (regular), stream (non-temporal), set1, add, mul, fence (after NT stores).
// Unrolled 4 vectors per iteration; scalar tails. NT stores need kWidth*8-byte aligned destinations: chunks
// start on 4 KiB boundaries (kernels/host/stream.hpp), so only the tail is unaligned, and it is scalar.
#pragma once

#include <cstddef>

#include "kernels/host/stream_kernel.hpp"

namespace mlbench::hostmem {

template <typename Ops, bool kNonTemporal>
inline void put(double* p, typename Ops::V v) {
  if constexpr (kNonTemporal) {
    Ops::stream(p, v);
  } else {
    Ops::store(p, v);
  }
}

template <typename Ops, bool kNonTemporal>
void stream_loop(Kernel k, double* __restrict a, double* __restrict b, double* __restrict c, std::size_t n,
                 double q) {
  constexpr std::size_t w = Ops::kWidth;
  constexpr std::size_t step = 4 * w;
  const auto vq = Ops::set1(q);
  std::size_t i = 0;
  switch (k) {
    case Kernel::copy:
      for (; i + step <= n; i += step) {
        for (std::size_t u = 0; u < step; u += w) put<Ops, kNonTemporal>(c + i + u, Ops::load(a + i + u));
      }
      for (; i < n; ++i) c[i] = a[i];
      break;
    case Kernel::scale:
      for (; i + step <= n; i += step) {
        for (std::size_t u = 0; u < step; u += w) {
          put<Ops, kNonTemporal>(b + i + u, Ops::mul(vq, Ops::load(c + i + u)));
        }
      }
      for (; i < n; ++i) b[i] = q * c[i];
      break;
    case Kernel::add:
      for (; i + step <= n; i += step) {
        for (std::size_t u = 0; u < step; u += w) {
          put<Ops, kNonTemporal>(c + i + u, Ops::add(Ops::load(a + i + u), Ops::load(b + i + u)));
        }
      }
      for (; i < n; ++i) c[i] = a[i] + b[i];
      break;
    case Kernel::triad:
      for (; i + step <= n; i += step) {
        for (std::size_t u = 0; u < step; u += w) {
          put<Ops, kNonTemporal>(a + i + u,
                                 Ops::add(Ops::load(b + i + u), Ops::mul(vq, Ops::load(c + i + u))));
        }
      }
      for (; i < n; ++i) a[i] = b[i] + q * c[i];
      break;
  }
  if constexpr (kNonTemporal) Ops::fence();
}

template <typename Ops>
void stream_chunk(Kernel k, double* a, double* b, double* c, std::size_t n, double q, bool non_temporal) {
  if (non_temporal) {
    stream_loop<Ops, true>(k, a, b, c, n, q);
  } else {
    stream_loop<Ops, false>(k, a, b, c, n, q);
  }
}

}  // namespace mlbench::hostmem
