// MLBENCH_HD marks functions that both the host code and CUDA kernels call. It expands to
// `__host__ __device__` only when nvcc compiles the file, so plain C++ (the CPU preset, the host tests)
// can include the same headers; no CUDA header is needed here.
#pragma once

#if defined(__CUDACC__)
#define MLBENCH_HD __host__ __device__
#else
#define MLBENCH_HD
#endif
