// The data every rank sends, chosen so that every collective's result is exact in any reduction order and in
// every data type: small positive integers whose sum over all ranks stays within the type's exact-integer
// range (bf16 256, half 2048, int8 127, float 2^24). With more ranks than that range allows, each element is
// 1 on exactly one rank and 0 elsewhere, so every sum is exactly 1. Values vary with rank and index (never a
// constant buffer). Shared by the host (tests, expectations) and the fill/check kernels.
#pragma once

#include <cstdint>

#include "kernels/gpu/hd.hpp"
#include "network/types.hpp"

namespace mlbench::net {

// Largest value one rank may contribute, for `ranks` ranks and a type exact up to `exact_limit`; 0 selects
// the one-hot pattern.
MLBENCH_HD constexpr std::int64_t pattern_modulus(int ranks, std::int64_t exact_limit) {
  std::int64_t m = exact_limit / ranks;
  return m > 251 ? 251 : m;
}

// The value rank `rank` puts at element `i` of its input.
MLBENCH_HD constexpr std::int64_t input_value(int rank, std::uint64_t i, int ranks, std::int64_t modulus) {
  if (modulus == 0) return (i + static_cast<std::uint64_t>(rank)) % static_cast<std::uint64_t>(ranks) == 0;
  return 1 + static_cast<std::int64_t>((i * 7 + static_cast<std::uint64_t>(rank) * 13) %
                                       static_cast<std::uint64_t>(modulus));
}

// Sum over all ranks of input element i.
MLBENCH_HD constexpr std::int64_t reduced_value(std::uint64_t i, int ranks, std::int64_t modulus) {
  std::int64_t sum = 0;
  for (int r = 0; r < ranks; ++r) sum += input_value(r, i, ranks, modulus);
  return sum;
}

// What rank `rank` must hold at element j of its output after one call with `count` (the NCCL count; see
// CallSize), root 0. Returns -1 where the output is not defined (reduce on a non-root rank).
MLBENCH_HD constexpr std::int64_t expected_value(Collective op, std::uint64_t j, std::uint64_t count,
                                                 int rank, int ranks, std::int64_t modulus) {
  switch (op) {
    case Collective::all_reduce:
      return reduced_value(j, ranks, modulus);
    case Collective::reduce:
      return rank == 0 ? reduced_value(j, ranks, modulus) : -1;
    case Collective::broadcast:
      return input_value(0, j, ranks, modulus);
    case Collective::reduce_scatter:
      return reduced_value(static_cast<std::uint64_t>(rank) * count + j, ranks, modulus);
    case Collective::all_gather:
      return input_value(static_cast<int>(j / count), j % count, ranks, modulus);
    case Collective::alltoall:
      // Block q of rank r's output is block r of rank q's input.
      return input_value(static_cast<int>(j / count), static_cast<std::uint64_t>(rank) * count + j % count,
                         ranks, modulus);
    case Collective::sendrecv:
      return input_value((rank + ranks - 1) % ranks, j, ranks, modulus);
  }
  return -1;
}

}  // namespace mlbench::net
