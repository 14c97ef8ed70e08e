// The options of net.nccl (from `mlbench nccl` flags or a run config's options.net.nccl) and the plan they
// give: pure, so that every bad input is caught before anything runs and the planning is unit-tested.
//
// Keys: ops [names] (default: every collective; quick: all_reduce, all_gather, reduce_scatter), dtype [names]
// (default float; full: every type), min_bytes / max_bytes (bytes or "8G"; default 8 B … 8 GiB, quick 1 MiB …
// 1 GiB), factor (default 2, quick 8), iters (20, full 50), warmup (5, full 10), timeout (seconds, default
// 300, at most a day), placement ("both", "out", "in"; in-place runs only where NCCL defines it), gpus
// (single-process mode: how many local GPUs, default all), timing ("blocking", the default, as nccl-tests
// launches; "nonblocking": non-blocking communicators throughout, see network/nccl_session.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bench/probe.hpp"
#include "network/collectives.hpp"

namespace mlbench::net {

struct NcclOptions {
  std::vector<Collective> ops;
  std::vector<DataType> dtypes;
  std::uint64_t min_bytes = 8;
  std::uint64_t max_bytes = std::uint64_t{8} << 30;
  double factor = 2;
  int iters = 20;
  int warmup = 5;
  double timeout_s = 300;
  bool out_of_place = true;
  bool in_place = true;
  int gpus = 0;          // 0: every visible GPU
  bool blocking = true;  // timing: blocking communicators for the measurement
};

// The probe's option table (`mlbench nccl` flags, options.net.nccl in a --config file).
std::span<const OptionSpec> nccl_option_table();
// Reads the options through the table and applies the profile's defaults; throws UsageError naming the option
// as `source` gives it (an unknown key, collective or type, min > max, factor <= 1, non-positive counts).
NcclOptions parse_nccl_options(const Json& options, Profile profile, const OptionSource& source = {});

// One case: a collective, a type and a placement, swept over sizes.
struct NcclCasePlan {
  Collective op;
  DataType dtype;
  bool in_place;
  std::vector<std::uint64_t> sizes;  // requested bytes with at least one element per rank
};

struct NcclPlan {
  std::vector<NcclCasePlan> cases;
  std::optional<std::uint64_t> capped_at;  // largest size kept when free GPU memory capped the sweep
};

// `free_memory_bytes` is the smallest free memory of the GPUs taking part (nullopt: unknown, no cap). A size
// needs about twice its bytes per GPU (send + receive buffers); sizes above 40 % of the free memory are
// dropped.
NcclPlan plan_nccl(const NcclOptions& opts, int ranks, std::optional<std::uint64_t> free_memory_bytes);

}  // namespace mlbench::net

namespace mlbench::net {

// What can be said about the algorithm/protocol NCCL used, from the NCCL_* settings: {algorithm, protocol,
// in_network_reduction: true | false | "unknown"}. NVLS and CollNet reduce inside the switch, so their busbw
// is not a physical link rate.
Json nccl_algorithm_info(const std::map<std::string, std::string>& nccl_env);

}  // namespace mlbench::net
