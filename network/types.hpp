// The collectives and data types of net.nccl, and every fact about a collective in one row of one table:
// facts(Collective). Plain constexpr C++17 with MLBENCH_HD, so the host code (byte counts, busbw, planning),
// the tests and the CUDA fill/check kernels (which build as C++17) all read the same row. The NCCL call that
// runs a collective is the only per-collective code elsewhere (network/nccl_session.cpp).
#pragma once

#include <cstdint>

#include "kernels/gpu/hd.hpp"

namespace mlbench::net {

enum class Collective { all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, sendrecv };
enum class DataType { float32, bf16, half, int8 };

inline constexpr int kCollectiveCount = 7;

// busbw = algbw × factor (nccl-tests' conventions, n ranks).
enum class BusFactor { two_n_minus_one_over_n, n_minus_one_over_n, one };

// Where an in-place call's other buffer sits inside the one buffer, as nccl-tests lays it out.
enum class InPlace {
  same,             // send and receive are the same buffer
  send_rank_block,  // all_gather: the input is block `rank` of the output
  recv_rank_block,  // reduce_scatter: the output is block `rank` of the input
  undefined,        // NCCL defines no in-place form (overlapping grouped send/recv)
};

struct CollectiveFacts {
  Collective id;
  const char* name;
  BusFactor factor;
  // Each rank's send and receive buffers hold `count` elements, or count × ranks where these are true. S (the
  // "size" of nccl-tests) spans the ranks exactly when one of the two does.
  bool send_spans_ranks;
  bool recv_spans_ranks;
  bool reduces;   // applies a reduction (sum)
  bool has_root;  // broadcast, reduce: rank 0 is the root; reduce leaves non-root outputs undefined
  InPlace in_place;
};

MLBENCH_HD constexpr CollectiveFacts facts(Collective c) {
  switch (c) {
    case Collective::all_reduce:
      return {c, "all_reduce", BusFactor::two_n_minus_one_over_n, false, false, true, false, InPlace::same};
    case Collective::all_gather:
      return {c,     "all_gather", BusFactor::n_minus_one_over_n, false, true,
              false, false,        InPlace::send_rank_block};
    case Collective::reduce_scatter:
      return {c,     "reduce_scatter",        BusFactor::n_minus_one_over_n, true, false, true,
              false, InPlace::recv_rank_block};
    case Collective::broadcast:
      return {c, "broadcast", BusFactor::one, false, false, false, true, InPlace::same};
    case Collective::reduce:
      return {c, "reduce", BusFactor::one, false, false, true, true, InPlace::same};
    case Collective::alltoall:
      // Built from grouped send/recv like nccl-tests.
      return {c, "alltoall", BusFactor::n_minus_one_over_n, true, true, false, false, InPlace::undefined};
    case Collective::sendrecv:
      return {c, "sendrecv", BusFactor::one, false, false, false, false, InPlace::undefined};
  }
  return {c, "?", BusFactor::one, false, false, false, false, InPlace::undefined};
}

// Elements in one rank's send (input) and receive (output) buffers for one call with NCCL count `count`.
MLBENCH_HD constexpr std::uint64_t input_elements(Collective c, std::uint64_t count, int ranks) {
  return facts(c).send_spans_ranks ? count * static_cast<std::uint64_t>(ranks) : count;
}
MLBENCH_HD constexpr std::uint64_t output_elements(Collective c, std::uint64_t count, int ranks) {
  return facts(c).recv_spans_ranks ? count * static_cast<std::uint64_t>(ranks) : count;
}

// In-place calls use one buffer of max(input, output) elements: the input starts at in_place_send_offset and
// the output at in_place_recv_offset elements into it.
MLBENCH_HD constexpr std::uint64_t in_place_send_offset(Collective c, std::uint64_t count, int rank) {
  return facts(c).in_place == InPlace::send_rank_block ? static_cast<std::uint64_t>(rank) * count : 0;
}
MLBENCH_HD constexpr std::uint64_t in_place_recv_offset(Collective c, std::uint64_t count, int rank) {
  return facts(c).in_place == InPlace::recv_rank_block ? static_cast<std::uint64_t>(rank) * count : 0;
}

}  // namespace mlbench::net
