// Multi-process mode of net.nccl: one process per GPU, started by mpirun/srun/torchrun/Kubernetes.
//
// 1. Every rank picks its GPU (launch_env.hpp choose_gpu) and sends rank 0 a hello: rank, node, local rank,
//    GPU (device, PCI bus id, free memory) and its host inventory.
// 2. Rank 0 decides for the world (decide_world): a launch error (two ranks on one GPU) stops every rank with
//    exit 2; a rank without a GPU (or a build without NCCL) makes every rank skip NCCL with that reason;
//    otherwise it makes the NCCL unique id and caps the sizes by the smallest free memory. It broadcasts the
//    decision to every rank.
// 3. Every rank runs the same plan through the runner (collectives synchronise them).
// 4. Every rank sends its results to rank 0, which writes ONE report: rank 0's results (every collective
//    result is already a whole-world number: times are gathered inside NCCL), with the status of any rank
//    that failed where rank 0 did not, and `cluster` {world_size, bootstrap, ranks: [{rank, node, local_rank,
//    gpu, host}]}.
// 5. Rank 0 sends every rank the final status: ok, or the error of a rank that vanished (died during the
//    measurement) or never sent its results. Every surviving rank then exits non-zero, as does a rank that
//    gets no status (rank 0 died).
//
// Every message is JSON and is validated against its schema where it is read (parse_hello and the three
// below): a message that does not fit throws Error with one line naming the sender and the field, never the
// JSON parser's text or the peer's bytes raw (every string a peer sends is escape_peer_text()'d, keys
// included, since a result's params and a host inventory reach the summary and the report). Rank 0 checks
// every rank's hello and results before it sends the final status, so that a bad message fails every rank
// at once with that line. A hello's rank must be the rank its connection joined as: only rank 0's own
// socket speaks for rank 0.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/probe.hpp"
#include "network/bootstrap.hpp"
#include "network/launch_env.hpp"

namespace mlbench::net {

// The hello of `sender` (the rank its connection joined as): {rank, node, local_rank, gpu: null | device,
// bus_id?, free_bytes?, skip_reason?, host: {...}}. Returns it with every string escaped.
Json parse_hello(std::string_view text, int sender);
// Rank 0's decision (decide_world's, with unique_id as hex beside run; or {"fault": text}, a message that
// failed its check). Returns it with the texts escaped.
Json parse_decision(std::string_view text);
// A rank's results: an array of results (report/report.hpp result_from_json), every string escaped.
std::vector<Result> parse_rank_results(std::string_view text, int sender);
// Rank 0's final status, {"ok": true} or {"error": text}: nullopt when ok, else the (escaped) error.
std::optional<std::string> parse_final_status(std::string_view text);

// TCP unless launched by MPI in a build with MPI.
std::unique_ptr<Bootstrap> make_bootstrap(const LaunchInfo& launch, double timeout_s);

// Rank 0's decision from every rank's hello (index = rank): {"error": text} | {"skip": text} | {"run": true,
// "free_bytes": min, "nodes": distinct hosts}. Pure.
Json decide_world(const std::vector<Json>& hellos);

// Folds one other rank's results into rank 0's: where that rank's result for the same case is failed or
// incorrect and rank 0's is not, rank 0's takes that status and the reason "rank N: ...". Pure.
void merge_rank_results(std::vector<Result>& root, int rank, const std::vector<Result>& theirs);

struct ClusterRun {
  Json options;  // net.nccl options
  Profile profile = Profile::standard;
  std::optional<std::filesystem::path> output;  // written by rank 0 only
  std::vector<std::string> argv;
  Json host;  // this rank's inventory
};

struct ClusterOutcome {
  Report report;  // the merged report on rank 0, this rank's own elsewhere
  int rank = 0;
  bool interrupted = false;
};

// Runs steps 1–5. Throws UsageError for a bad launch (all ranks), Error when the rendezvous or the gather
// times out (naming the missing ranks) or a message fails its check; when the final gather fails (ranks
// vanished, or sent invalid results), rank 0 first writes its own results merged with every valid rank's,
// with cluster.incomplete naming every rank that is missing, in one bounded line. Every other rank
// throws Error when rank 0's final status says so or never comes. Interrupted (the stop flag) in a wait:
// rank 0 interrupted in the final gather writes its own results the same way and returns with interrupted
// set; every other wait throws Interrupted.
ClusterOutcome run_cluster(const LaunchInfo& launch, Bootstrap& boot, const ClusterRun& run);

}  // namespace mlbench::net
