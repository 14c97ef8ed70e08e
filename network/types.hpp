// The collectives and data types of net.nccl as plain enums, shared by host code and the CUDA kernels (which
// build as C++17 and so cannot include collectives.hpp with its std::span).
#pragma once

namespace mlbench::net {

enum class Collective { all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, sendrecv };
enum class DataType { float32, bf16, half, int8 };

}  // namespace mlbench::net
