// The NCCL entry points net.nccl and the burn-in call, each forwarding to the function of the same name in
// libnccl.so.N, which is loaded at the first call (kernels/gpu/lazy_library.hpp) instead of being linked:
// `mlbench` then starts on a host without NCCL, where net.nccl and the burn-in's NCCL phase are skipped
// (nccl_probe.hpp nccl_unavailable says why). The signatures are nccl.h's own; a mismatch fails to compile.
#include <fmt/format.h>
#include <nccl.h>

#include "kernels/gpu/lazy_library.hpp"
#include "network/nccl_probe.hpp"

namespace mlbench::net {
namespace {

gpu::LazyLibrary& nccl_library() {
  static gpu::LazyLibrary lib(fmt::format("libnccl.so.{}", NCCL_MAJOR), fmt::format("NCCL {}", NCCL_MAJOR));
  return lib;
}

}  // namespace

std::optional<std::string> nccl_load_problem() { return nccl_library().problem(); }

}  // namespace mlbench::net

#define MLBENCH_FORWARD(ret, name, params, args)                                                          \
  extern "C" ret name params {                                                                            \
    static const auto fn = reinterpret_cast<decltype(&name)>(mlbench::net::nccl_library().symbol(#name)); \
    return fn args;                                                                                       \
  }
MLBENCH_FORWARD(ncclResult_t, ncclGetVersion, (int* version), (version))
MLBENCH_FORWARD(ncclResult_t, ncclGetUniqueId, (ncclUniqueId * uniqueId), (uniqueId))
MLBENCH_FORWARD(ncclResult_t, ncclCommInitRankConfig,
                (ncclComm_t * comm, int nranks, ncclUniqueId commId, int rank, ncclConfig_t* config),
                (comm, nranks, commId, rank, config))
MLBENCH_FORWARD(ncclResult_t, ncclCommFinalize, (ncclComm_t comm), (comm))
MLBENCH_FORWARD(ncclResult_t, ncclCommDestroy, (ncclComm_t comm), (comm))
MLBENCH_FORWARD(ncclResult_t, ncclCommAbort, (ncclComm_t comm), (comm))
MLBENCH_FORWARD(const char*, ncclGetErrorString, (ncclResult_t result), (result))
MLBENCH_FORWARD(const char*, ncclGetLastError, (ncclComm_t comm), (comm))
MLBENCH_FORWARD(ncclResult_t, ncclCommGetAsyncError, (ncclComm_t comm, ncclResult_t* asyncError),
                (comm, asyncError))
MLBENCH_FORWARD(ncclResult_t, ncclGroupStart, (), ())
MLBENCH_FORWARD(ncclResult_t, ncclGroupEnd, (), ())
MLBENCH_FORWARD(ncclResult_t, ncclAllReduce,
                (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op,
                 ncclComm_t comm, cudaStream_t stream),
                (sendbuff, recvbuff, count, datatype, op, comm, stream))
MLBENCH_FORWARD(ncclResult_t, ncclAllGather,
                (const void* sendbuff, void* recvbuff, size_t sendcount, ncclDataType_t datatype,
                 ncclComm_t comm, cudaStream_t stream),
                (sendbuff, recvbuff, sendcount, datatype, comm, stream))
MLBENCH_FORWARD(ncclResult_t, ncclReduceScatter,
                (const void* sendbuff, void* recvbuff, size_t recvcount, ncclDataType_t datatype,
                 ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream),
                (sendbuff, recvbuff, recvcount, datatype, op, comm, stream))
MLBENCH_FORWARD(ncclResult_t, ncclBroadcast,
                (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, int root,
                 ncclComm_t comm, cudaStream_t stream),
                (sendbuff, recvbuff, count, datatype, root, comm, stream))
MLBENCH_FORWARD(ncclResult_t, ncclReduce,
                (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op,
                 int root, ncclComm_t comm, cudaStream_t stream),
                (sendbuff, recvbuff, count, datatype, op, root, comm, stream))
MLBENCH_FORWARD(ncclResult_t, ncclSend,
                (const void* sendbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                 cudaStream_t stream),
                (sendbuff, count, datatype, peer, comm, stream))
MLBENCH_FORWARD(ncclResult_t, ncclRecv,
                (void* recvbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                 cudaStream_t stream),
                (recvbuff, count, datatype, peer, comm, stream))
#undef MLBENCH_FORWARD
