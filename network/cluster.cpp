#include "network/cluster.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "bench/runner.hpp"
#include "mlbench_config.hpp"
#include "network/nccl_probe.hpp"

#if MLBENCH_HAS_MPI
#include "network/mpi_bootstrap.hpp"
#endif

namespace mlbench::net {
namespace {

std::string to_hex(const std::string& bytes) {
  std::string out;
  for (unsigned char ch : bytes) out += fmt::format("{:02x}", ch);
  return out;
}

std::string from_hex(const std::string& hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  }
  return out;
}

int severity(Status s) {
  switch (s) {
    case Status::failed:
      return 3;
    case Status::incorrect:
      return 2;
    case Status::skipped:
      return 1;
    case Status::ok:
      return 0;
  }
  return 0;
}

}  // namespace

std::unique_ptr<Bootstrap> make_bootstrap(const LaunchInfo& launch, double timeout_s) {
#if MLBENCH_HAS_MPI
  if (launch.mpi_launched()) return std::make_unique<MpiBootstrap>();
#endif
  return std::make_unique<TcpBootstrap>(launch.rank, launch.world_size, launch.master_addr,
                                        launch.master_port, timeout_s,
                                        rendezvous_job_id(launch.rank, launch.job));
}

Json decide_world(const std::vector<Json>& hellos) {
  // Two ranks of one node on the same GPU: the world is larger than the GPUs found.
  std::map<std::pair<std::string, std::string>, int> owner;
  for (const auto& h : hellos) {
    if (!h.contains("bus_id") || !h["bus_id"].is_string()) continue;
    auto key = std::make_pair(h["node"].get<std::string>(), h["bus_id"].get<std::string>());
    auto [it, fresh] = owner.emplace(key, h["rank"].get<int>());
    if (!fresh) {
      return Json{
          {"error", fmt::format("ranks {} and {} on {} would share GPU {}: the world of {} ranks is larger "
                                "than the GPUs found; start one process per GPU",
                                it->second, h["rank"].get<int>(), key.first, key.second, hellos.size())}};
    }
  }
  std::vector<std::string> reasons;
  for (const auto& h : hellos) {
    if (h.contains("skip_reason") && h["skip_reason"].is_string()) reasons.push_back(h["skip_reason"]);
  }
  if (!reasons.empty()) {
    std::string why = reasons.front();
    if (reasons.size() > 1)
      why += fmt::format(" (and {} more rank{})", reasons.size() - 1, reasons.size() > 2 ? "s" : "");
    return Json{{"skip", why}};
  }
  std::uint64_t free_min = UINT64_MAX;
  for (const auto& h : hellos) free_min = std::min(free_min, h.value("free_bytes", UINT64_MAX));
  std::set<std::string> nodes;
  for (const auto& h : hellos) nodes.insert(h.value("node", std::string()));
  Json out{{"run", true}, {"nodes", nodes.size()}};
  if (free_min != UINT64_MAX) out["free_bytes"] = free_min;
  return out;
}

void merge_rank_results(std::vector<Result>& root, int rank, const std::vector<Result>& theirs) {
  for (const auto& t : theirs) {
    auto it = std::find_if(root.begin(), root.end(), [&](const Result& r) { return r.params == t.params; });
    if (it == root.end()) {
      Result copy = t;
      copy.reason = fmt::format("rank {}: {}", rank, t.reason);
      root.push_back(std::move(copy));
      continue;
    }
    if (severity(t.status) > severity(it->status) && t.status != Status::skipped) {
      it->status = t.status;
      it->reason = fmt::format("rank {}: {}", rank, t.reason);
    }
  }
}

ClusterOutcome run_cluster(const LaunchInfo& launch, Bootstrap& boot, const ClusterRun& run) {
  const std::string node = run.host.value("hostname", std::string("unknown-host"));
  auto gpus = local_gpus();
  GpuChoice choice = choose_gpu(launch, gpus.count, node);
  if (!choice.device)
    choice.skip_reason = gpus.why_none.empty()
                             ? choice.skip_reason
                             : fmt::format("rank {} on {}: {}", launch.rank, node, gpus.why_none);
  Json hello{{"rank", boot.rank()}, {"node", node}, {"local_rank", launch.local_rank}, {"host", run.host}};
  hello["gpu"] = choice.device ? Json(*choice.device) : Json();
  if (choice.device) {
    auto facts = local_gpu_facts(*choice.device);
    hello["bus_id"] = facts["bus_id"];
    hello["free_bytes"] = facts["free_bytes"];
  } else {
    hello["skip_reason"] = choice.skip_reason;
  }

  auto hellos_raw = boot.gather(hello.dump());
  std::string blob;
  std::vector<Json> hellos;
  if (boot.rank() == 0) {
    for (const auto& h : hellos_raw) hellos.push_back(Json::parse(h));
    Json decision = decide_world(hellos);
    if (decision.contains("run")) decision["unique_id"] = to_hex(new_unique_id());
    blob = decision.dump();
  }
  Json decision = Json::parse(boot.broadcast(blob));
  if (decision.contains("error")) throw UsageError(decision["error"].get<std::string>());

  ClusterRole role;
  role.world_size = boot.world_size();
  role.rank = boot.rank();
  role.device = choice.device.value_or(0);
  role.host = node;
  if (decision.contains("skip")) role.skip_reason = decision["skip"].get<std::string>();
  if (decision.contains("unique_id")) role.unique_id = from_hex(decision["unique_id"].get<std::string>());
  if (decision.contains("free_bytes")) role.free_memory_bytes = decision["free_bytes"].get<std::uint64_t>();
  role.nodes = decision.value("nodes", 1);

  Registry registry;
  registry.add(make_nccl_probe(role));
  Runner runner(registry, run.host);
  RunOptions opts;
  opts.profile = run.profile;
  opts.probe_ids = {"net.nccl"};
  opts.probe_options = Json{{"net.nccl", run.options}};
  opts.argv = run.argv;
  if (boot.rank() == 0) opts.output = run.output;
  ClusterOutcome out;
  out.rank = boot.rank();
  out.report = runner.run(opts);
  out.interrupted = runner.interrupted();

  Json mine = Json::array();
  for (const auto& r : out.report.results) mine.push_back(to_json(r));
  std::vector<std::string> gathered;
  std::string gather_error;
  try {
    gathered = boot.gather(mine.dump());
  } catch (const Error& e) {
    if (boot.rank() != 0) throw;
    gather_error = e.what();  // rank 0 still writes what it has, then fails
  }
  // A rank that vanished fails every survivor, not only rank 0: the others' own results may all be fine.
  Json status = gather_error.empty() ? Json{{"ok", true}} : Json{{"error", gather_error}};
  status = Json::parse(boot.finish(status.dump()));
  if (boot.rank() != 0) {
    if (status.contains("error")) {
      throw Error(fmt::format("rank 0 reports the run incomplete: {}", status["error"].get<std::string>()));
    }
    return out;
  }

  for (int r = 1; r < static_cast<int>(gathered.size()); ++r) {
    std::vector<Result> theirs;
    for (const auto& j : Json::parse(gathered[static_cast<std::size_t>(r)]))
      theirs.push_back(result_from_json(j));
    merge_rank_results(out.report.results, r, theirs);
  }
  Json ranks = Json::array();
  for (const auto& h : hellos) {
    Json gpu = h["gpu"].is_null() ? Json() : Json{{"device", h["gpu"]}, {"bus_id", h.value("bus_id", "")}};
    ranks.push_back(Json{{"rank", h["rank"]},
                         {"node", h["node"]},
                         {"local_rank", h["local_rank"]},
                         {"gpu", gpu},
                         {"host", h["host"]}});
  }
  std::vector<std::string> nodes;
  for (const auto& h : hellos) {
    auto n = h["node"].get<std::string>();
    if (std::find(nodes.begin(), nodes.end(), n) == nodes.end()) nodes.push_back(n);
  }
  out.report.cluster = Json{{"world_size", boot.world_size()},
                            {"nodes", nodes},
                            {"bootstrap", boot.describe()},
                            {"launcher", to_string(launch.launcher)},
                            {"ranks", ranks}};
  if (!gather_error.empty())
    out.report.cluster["incomplete"] = "results of the other ranks missing: " + gather_error;
  if (run.output) write_report(*run.output, out.report);
  if (!gather_error.empty()) throw Error(gather_error);
  return out;
}

}  // namespace mlbench::net
