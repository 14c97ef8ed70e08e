// net.nccl: what the GPU fabric (NVLink inside a node, InfiniBand/RoCE between nodes) delivers to real NCCL
// collectives, in nccl-tests' conventions (network/collectives.hpp has the byte counts and bus factors).
//
// Measures, per collective × data type × placement (out-of-place, in-place where NCCL defines it) and per
// size of the sweep: one correctness call on exact-integer inputs (any wrong element → `incorrect`), `warmup`
// calls, then `iters` back-to-back calls timed by the wall clock to the end of a stream sync; the per-call
// time is gathered from every rank: algbw = S / mean time, busbw = algbw × factor, plus the slowest rank's
// time. After each sweep one extra result holds the peak busbw of that collective. Caveats: busbw assumes a
// ring; when NCCL uses NVLS or CollNet (in-network reduction) it is not a physical link rate — flagged when
// known (NCCL_ALGO), and the algorithm NCCL picked is otherwise not exposed by its API.
//
// Two modes: one process driving every local GPU (a world of all local GPUs), or one rank of a multi-process
// world (network/cluster.hpp) driving one GPU. The probe is always built; without NCCL it is unavailable.
//
// When the world spans more than one node, each size's result also records what this host's NICs and
// InfiniBand ports carried during its timed loop: info.nic_rates {"mlx5_0/1": {"kind", "rx_bytes_per_second",
// "tx_bytes_per_second"}, ...} (bench/net_counters: the counters read right before the first timed call and
// right after the stream sync; devices that carried nothing left out; none for a loop shorter than
// kMinLinkRateWindowSeconds). They are the network's measured ceiling for `mlbench monitor --baseline`;
// NCCL's own busbw says nothing of which link carried the bytes.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bench/probe.hpp"
#include "mlbench_config.hpp"
#include "network/collectives.hpp"

namespace mlbench::net {

// How this process takes part in a multi-process world (decided by the bootstrap).
struct ClusterRole {
  int world_size = 1;
  int rank = 0;
  int device = 0;                          // the local GPU this rank drives
  std::string unique_id;                   // rank 0's ncclUniqueId
  std::optional<std::string> skip_reason;  // why NCCL cannot run in this world (no GPU on some rank, ...)
  std::optional<std::uint64_t>
      free_memory_bytes;  // the smallest over the world: caps the sizes on every rank
  std::string host;
  int nodes = 1;  // distinct hosts in the world: more than one when NCCL's traffic crosses the network
};

// Single-process mode when `cluster` is empty.
std::unique_ptr<Probe> make_nccl_probe(std::optional<ClusterRole> cluster = std::nullopt);

// Why NCCL cannot run in this process: built without it, or libnccl cannot be loaded (it is loaded at the
// first use, network/nccl_entry.cpp; the text names the fix); nullopt when it can.
std::optional<std::string> nccl_unavailable();
#if MLBENCH_HAS_NCCL
// The load half of nccl_unavailable (network/nccl_entry.cpp).
std::optional<std::string> nccl_load_problem();
#endif

// This process's view of its GPUs for the bootstrap (none when NCCL cannot run).
struct LocalGpus {
  int count = 0;
  std::string why_none;  // when count is 0: built without NCCL, no GPU, ...
};
LocalGpus local_gpus();
// Facts about one local GPU, for the cluster inventory: {device, bus_id, free_bytes}. Throws Error.
Json local_gpu_facts(int device);
// A fresh ncclUniqueId as bytes (throws Error when built without NCCL).
std::string new_unique_id();

// One size's metrics from every rank's per-call time (t: summarize of them), each with the spread of the
// statistic it is (base/stats.hpp): time is the mean over the ranks of each rank's loop mean; its standard
// uncertainty is the larger of s/sqrt(n) over the ranks' times (what differs between ranks: skewed starts,
// one slower link) and s/sqrt(k) over the per-call means of the loop's k chunks (`chunk_seconds`, CUDA events
// between chunks on the first GPU: how steady the loop itself ran; the only figure when one process drives
// every local GPU with one clock, so that the ranks' times are equal). algbw and busbw are bytes / that mean,
// so their relative ci is the mean's (first order); time_slowest_rank is the largest of the ranks' times, its
// ci the Gumbel spread of the two slowest, or the loop's when the ranks are equal. The peak row carries its
// size's. Neither covers a change that slows every call of a run alike, which repeated runs show (compare
// --base-runs). With equal ranks and no chunks (or one) the metrics carry no ci: compare then judges them by
// its threshold.
void add_size_metrics(Result& r, const Timing& t, std::span<const double> seconds_per_rank,
                      std::span<const double> chunk_seconds = {});

}  // namespace mlbench::net
