// storage.checkpoint — how long a checkpoint stalls training: R writer threads (ranks) each write their shard
// of a checkpoint into a folder mlbench creates, fsync it, drop its pages from the page cache
// (POSIX_FADV_DONTNEED on mlbench's own files, or O_DIRECT — never a system-wide cache drop), then read it
// back, all through io_uring (psync when refused).
//
// Sizes (MLPerf Storage v2.0): a checkpoint is 14 B per parameter; --model 8b|70b|405b gives the parameters
// and the TP×PP×DP layout (1×1×8, 8×1×8, 8×32×2), and a node writes the node-local subset num_gpus ÷
// (TP·PP·DP) of the whole (at most all of it); --size gives the node's bytes instead. Each of the R ranks
// writes bytes ÷ R (rounded down to 4 KiB). Figures (the MLPerf convention: duration is the slowest rank's):
// write_bandwidth = bytes / the slowest rank's write+fsync time, read_bandwidth likewise, the per-rank
// spread (max − min) / max, the longest fsync, and stall = the slowest rank's write+fsync time, what a
// synchronous checkpoint holds a training step for. Each figure's spread comes from the ranks' times
// (checkpoint_metrics).
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "bench/probe.hpp"
#include "storage/engine.hpp"

namespace mlbench::storage {

struct CheckpointModel {
  std::string_view name;
  double params;
  unsigned tp, pp, dp;
};
inline constexpr CheckpointModel kCheckpointModels[] = {
    {"8b", 8e9, 1, 1, 8}, {"70b", 70e9, 8, 1, 8}, {"405b", 405e9, 8, 32, 2}};
inline constexpr double kCheckpointBytesPerParam = 14;
// The unit of a rank's shard and of --bs (O_DIRECT's alignment); each block written carries its offset.
inline constexpr std::uint64_t kCheckpointBlock = 4096;

// The bytes one node writes: 14 B/param × params × min(1, gpus ÷ (TP·PP·DP)).
std::uint64_t node_checkpoint_bytes(const CheckpointModel& m, unsigned gpus);

struct CheckpointConfig {
  std::filesystem::path folder;  // created by mlbench; the ranks' files go in it (named in messages)
  int folder_fd = -1;            // that folder, open: the ranks' files are created and opened relative to it
  std::uint64_t shard = 0;       // bytes per rank
  unsigned ranks = 1;
  std::uint64_t bs = 4u << 20;
  unsigned depth = 4;
  bool direct = false;
  bool read_back = true;
  EngineKind engine = EngineKind::uring;
};

struct RankOutcome {
  double write_s = 0, fsync_s = 0, read_s = 0;  // write_s includes the fsync
  std::uint64_t written = 0, read = 0;
  bool fsynced = false, dropped = false;
};

struct CheckpointOutcome {
  std::vector<RankOutcome> ranks;
  std::vector<std::string> files;
  std::string error;
  bool stopped = false;
};

// The file rank `rank` writes in the run's folder ("rank-0000.ckpt" to "rank-9999.ckpt"), and whether
// `name` is one of those.
std::string checkpoint_file_name(unsigned rank);
bool is_checkpoint_file_name(std::string_view name);

// Writes, syncs, drops and reads back; the files stay (the caller removes them). Whatever fails in a rank
// (the buffers' allocation too) is in the outcome's error, never an exception out of a thread.
CheckpointOutcome run_checkpoint(const CheckpointConfig& cfg, const std::atomic<bool>& stop);

// The figures of a run from its ranks' times, each with the spread of the statistic it is (base/stats.hpp),
// as its ci: stall and fsync_max are the largest of the ranks' times, so their spread is the Gumbel spread of
// the two largest; write_bandwidth, read_bandwidth and write_bandwidth_slowest_rank are bytes / the slowest
// rank's time, with that time's relative spread; write_spread and read_spread, 100 × (max − min) / max, carry
// the Gumbel spreads of both extremes (the fastest from the two fastest) propagated through the ratio. Each
// rank is one sample by design (the MLPerf figure is one write of a checkpoint): these spreads are what
// differs between the ranks, and a run with one rank has none (no ci; compare then uses its threshold).
std::vector<Metric> checkpoint_metrics(const std::vector<RankOutcome>& ranks, std::uint64_t shard,
                                       bool read_back);

// The folders in `dir` that a killed checkpoint run left ("mlbench-checkpoint-<pid>-XXXXXX" whose PID is gone
// and whose lock is free, storage/owner.hpp): removes the ranks' files in each (regular files of their names,
// never through a link) and the folder when that empties it. Returns one warning for each such name, naming
// it and `dir`: what was removed (and its size), or that it was kept and why (it holds files mlbench did not
// make, it is a link or not a folder, the removal's error). A live run's folder is not mentioned.
std::vector<std::string> remove_stale_checkpoints(const std::string& dir, const std::atomic<bool>& stop);

std::span<const OptionSpec> checkpoint_options();
std::unique_ptr<Probe> make_checkpoint_probe();

}  // namespace mlbench::storage
