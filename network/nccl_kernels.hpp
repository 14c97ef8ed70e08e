// Device-side fill and check of collective buffers with the exact-integer pattern of network/pattern.hpp, so
// that buffers of any size are prepared and verified without copying them to the host.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "network/pattern.hpp"
#include "network/types.hpp"

namespace mlbench::net {

// Every element of buf (n elements of type t) set to -1: a value no collective of the pattern produces.
void fill_sentinel(DataType t, void* buf, std::uint64_t n, cudaStream_t stream);
// Element i of buf = input_value(rank, i, ranks, modulus).
void fill_input(DataType t, void* buf, std::uint64_t n, int rank, int ranks, std::int64_t modulus,
                cudaStream_t stream);
// Adds to *wrong (device memory) the number of the n output elements that differ from expected_value().
void count_wrong(DataType t, const void* buf, std::uint64_t n, Collective op, std::uint64_t count, int rank,
                 int ranks, std::int64_t modulus, unsigned long long* wrong, cudaStream_t stream);

}  // namespace mlbench::net
