// The STREAM kernel ids and the per-ISA entry points (no other includes: the ISA translation units include
// this with wider -m flags, see stream_loops.hpp).
#pragma once

#include <cstddef>

namespace mlbench::hostmem {

// STREAM semantics: copy c = a; scale b = q·c; add c = a + b; triad a = b + q·c.
enum class Kernel { copy, scale, add, triad };

// One thread's chunk [0, n) of the three arrays. `non_temporal` selects streaming stores.
void stream_chunk_avx512(Kernel k, double* a, double* b, double* c, std::size_t n, double q,
                         bool non_temporal);
void stream_chunk_avx2(Kernel k, double* a, double* b, double* c, std::size_t n, double q, bool non_temporal);
void stream_chunk_sse2(Kernel k, double* a, double* b, double* c, std::size_t n, double q, bool non_temporal);
void stream_chunk_scalar(Kernel k, double* a, double* b, double* c, std::size_t n, double q,
                         bool non_temporal);

}  // namespace mlbench::hostmem
