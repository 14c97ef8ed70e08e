#include "network/cluster.hpp"

#include <algorithm>
#include <climits>
#include <map>
#include <set>

#include <fmt/format.h>

#include "bench/host_view.hpp"
#include "bench/runner.hpp"
#include "mlbench_config.hpp"
#include "network/nccl_probe.hpp"
#include "network/text.hpp"

#if MLBENCH_HAS_MPI
#include "network/mpi_bootstrap.hpp"
#endif

namespace mlbench::net {
namespace {

// `hex` was checked by parse_decision: lowercase hex digits, an even count.
std::string from_hex(const std::string& hex) {
  const auto digit = [](char ch) { return ch <= '9' ? ch - '0' : ch - 'a' + 10; };
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out += static_cast<char>(digit(hex[i]) * 16 + digit(hex[i + 1]));
  return out;
}

constexpr std::size_t kMaxUniqueIdHex = 2 * 4096;

[[noreturn]] void bad_field(std::string_view message, std::string_view field, std::string_view expected) {
  throw Error(
      fmt::format("{}: field '{}' {} (is every rank the same mlbench version?)", message, field, expected));
}

// How deep a message's JSON may nest: a host inventory or a result nests a few levels. nlohmann's parser
// takes any depth, but its serializer (the report, result_from_json) recurses once per level, so a peer's
// deeply nested value would exhaust the stack.
constexpr int kMaxNesting = 64;

// Whether the arrays and objects of JSON `text` nest at most kMaxNesting deep (brackets inside strings do not
// count). A scan of the bytes, before any parser sees them.
bool nesting_within_limit(std::string_view text) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char ch : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (ch == '\\') {
        escaped = true;
      } else if (ch == '"') {
        in_string = false;
      }
    } else if (ch == '"') {
      in_string = true;
    } else if (ch == '[' || ch == '{') {
      if (++depth > kMaxNesting) return false;
    } else if (ch == ']' || ch == '}') {
      --depth;
    }
  }
  return true;
}

// The JSON value of `message`, never the parser's text (it quotes the peer's bytes).
Json parse_json(std::string_view text, std::string_view message) {
  if (!nesting_within_limit(text)) {
    throw Error(fmt::format("{}: nested deeper than {} levels (is every rank the same mlbench version?)",
                            message, kMaxNesting));
  }
  Json j = Json::parse(text, nullptr, false);
  if (j.is_discarded())
    throw Error(fmt::format("{}: not valid JSON ({} bytes; is every rank the same mlbench version?)", message,
                            text.size()));
  return j;
}

// Escapes every string of `j`, keys included (escape_peer_text): what a peer sends may reach the terminal
// through the summary (a result's params, metric names) and the report. Recurses once per level, which the
// nesting scan has bounded.
void escape_strings(Json& j) {
  if (j.is_string()) {
    j = escape_peer_text(j.get_ref<const std::string&>());
  } else if (j.is_array()) {
    for (auto& item : j) escape_strings(item);
  } else if (j.is_object()) {
    Json out = Json::object();
    for (auto& [key, value] : j.items()) {
      escape_strings(value);
      out[escape_peer_text(key)] = std::move(value);
    }
    j = std::move(out);
  }
}

// The JSON object of `message`.
Json parse_object(std::string_view text, std::string_view message) {
  Json j = parse_json(text, message);
  if (!j.is_object())
    throw Error(fmt::format("{}: not a JSON object (is every rank the same mlbench version?)", message));
  return j;
}

// Whether `v` is an integer in [lo, hi] (nlohmann keeps a non-negative integer unsigned, a negative one
// signed).
bool integer_in(const Json& v, long long lo, unsigned long long hi) {
  if (v.is_number_unsigned()) {
    const auto x = v.get<unsigned long long>();
    return x <= hi && (lo <= 0 || x >= static_cast<unsigned long long>(lo));
  }
  if (!v.is_number_integer()) return false;
  const auto x = v.get<long long>();
  return x >= lo && (x < 0 || static_cast<unsigned long long>(x) <= hi);
}

void check_integer(const Json& j, std::string_view message, const char* field, long long lo,
                   unsigned long long hi) {
  if (!j.contains(field)) bad_field(message, field, "is missing");
  if (!integer_in(j[field], lo, hi))
    bad_field(message, field, fmt::format("must be an integer from {} to {}", lo, hi));
}

// A name (node, PCI bus id): 1 to 255 printable ASCII characters.
void check_name(const Json& j, std::string_view message, const char* field) {
  if (!j.contains(field)) bad_field(message, field, "is missing");
  const Json& v = j[field];
  const bool ok = v.is_string() && !v.get_ref<const std::string&>().empty() &&
                  v.get_ref<const std::string&>().size() <= 255 &&
                  escape_peer_text(v.get_ref<const std::string&>()) == v.get_ref<const std::string&>();
  if (!ok) bad_field(message, field, "must be 1 to 255 printable ASCII characters");
}

// A free text, escaped in place: at most kMaxText bytes.
void check_text(Json& j, std::string_view message, const char* field) {
  if (!j.contains(field)) bad_field(message, field, "is missing");
  Json& v = j[field];
  if (!v.is_string() || v.get_ref<const std::string&>().size() > kMaxText)
    bad_field(message, field, fmt::format("must be a text of at most {} bytes", kMaxText));
  v = escape_peer_text(v.get_ref<const std::string&>());
}

int severity(Status s) {
  switch (s) {
    case Status::failed:
      return 4;
    case Status::incorrect:
      return 3;
    case Status::interrupted:
      return 2;
    case Status::skipped:
      return 1;
    case Status::ok:
      return 0;
  }
  return 0;
}

}  // namespace

Json parse_hello(std::string_view text, int sender) {
  const std::string message = fmt::format("rank {}'s hello", sender);
  Json h = parse_object(text, message);
  if (h.contains("rank") && h["rank"] != sender) {
    bad_field(
        message, "rank",
        fmt::format("must be {}, the rank its connection joined as (only rank 0's own connection speaks "
                    "for rank 0)",
                    sender));
  }
  check_integer(h, message, "rank", sender, static_cast<unsigned long long>(sender));
  check_name(h, message, "node");
  check_integer(h, message, "local_rank", 0, INT_MAX);
  if (!h.contains("gpu")) bad_field(message, "gpu", "is missing");
  if (!h["gpu"].is_null() && !integer_in(h["gpu"], 0, INT_MAX))
    bad_field(message, "gpu", fmt::format("must be null or a device number from 0 to {}", INT_MAX));
  if (h.contains("bus_id")) check_name(h, message, "bus_id");
  if (h.contains("free_bytes")) check_integer(h, message, "free_bytes", 0, UINT64_MAX);
  if (h.contains("skip_reason")) check_text(h, message, "skip_reason");
  if (!h.contains("host") || !h["host"].is_object()) bad_field(message, "host", "must be an object");
  escape_strings(h);  // the host block, and any field a newer mlbench adds
  return h;
}

Json parse_decision(std::string_view text) {
  constexpr std::string_view message = "rank 0's decision";
  Json d = parse_object(text, message);
  for (const char* text_field : {"error", "skip", "fault"}) {
    if (!d.contains(text_field)) continue;
    if (d.size() != 1) bad_field(message, text_field, "must be the only field");
    check_text(d, message, text_field);
    return d;
  }
  if (!d.contains("run") || d["run"] != true)
    bad_field(message, "run", "must be true (or one of error, skip, fault)");
  check_integer(d, message, "nodes", 1, INT_MAX);
  if (d.contains("free_bytes")) check_integer(d, message, "free_bytes", 0, UINT64_MAX);
  const bool hex = d.contains("unique_id") && d["unique_id"].is_string() && [&] {
    const auto& id = d["unique_id"].get_ref<const std::string&>();
    return id.size() % 2 == 0 && id.size() <= kMaxUniqueIdHex && lower_hex(id);
  }();
  if (!hex)
    bad_field(message, "unique_id",
              fmt::format("must be at most {} lowercase hex digits, an even count", kMaxUniqueIdHex));
  return d;
}

std::vector<Result> parse_rank_results(std::string_view text, int sender) {
  const std::string message = fmt::format("rank {}'s results", sender);
  Json all = parse_json(text, message);
  if (!all.is_array())
    throw Error(fmt::format("{}: not a JSON array (is every rank the same mlbench version?)", message));
  escape_strings(all);
  std::vector<Result> out;
  for (std::size_t i = 0; i < all.size(); ++i) {
    try {
      out.push_back(result_from_json(all[i]));
    } catch (const Error& e) {
      // The decoder names the field ("result.status: expected a string"); a value it quotes is the peer's,
      // escaped above.
      throw Error(fmt::format("{}: [{}]: {}", message, i, e.what()));
    }
  }
  return out;
}

std::optional<std::string> parse_final_status(std::string_view text) {
  constexpr std::string_view message = "rank 0's final status";
  Json st = parse_object(text, message);
  if (st.size() == 1 && st.contains("ok") && st["ok"] == true) return std::nullopt;
  if (st.size() != 1 || !st.contains("error"))
    bad_field(message, "ok", "must be true, or the only field be error");
  check_text(st, message, "error");
  return st["error"].get<std::string>();
}

std::unique_ptr<Bootstrap> make_bootstrap(const LaunchInfo& launch, double timeout_s) {
#if MLBENCH_HAS_MPI
  if (launch.mpi_launched()) return std::make_unique<MpiBootstrap>();
#endif
  JobId job = rendezvous_job_id(launch.rank, launch.job);
  return std::make_unique<TcpBootstrap>(launch.rank, launch.world_size, launch.master_addr,
                                        launch.master_port, timeout_s, std::move(job),
                                        rendezvous_token(launch.rank, launch.token));
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
  std::string node = HostView(run.host).hostname;
  if (node.empty()) node = "unknown-host";
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
    // Every rank's hello is checked, so that the line every rank fails with names each bad one.
    std::vector<std::string> faults;
    for (std::size_t r = 0; r < hellos_raw.size(); ++r) {
      try {
        hellos.push_back(parse_hello(hellos_raw[r], static_cast<int>(r)));
      } catch (const Error& e) {
        faults.emplace_back(e.what());
      }
    }
    Json decision;
    try {
      if (!faults.empty()) throw Error(join_bounded(faults, kMaxText));
      decision = decide_world(hellos);
      if (decision.contains("run")) decision["unique_id"] = to_hex(new_unique_id());
    } catch (const Error& e) {
      decision = Json{{"fault", e.what()}};  // every rank fails with this line
    }
    blob = decision.dump();
  }
  Json decision = parse_decision(boot.broadcast(blob));
  if (decision.contains("error")) throw UsageError(decision["error"].get<std::string>());
  if (decision.contains("fault")) throw Error(decision["fault"].get<std::string>());

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
  std::vector<std::optional<std::string>> gathered;  // rank 0: nullopt for a rank that sent nothing
  std::string gather_error;
  try {
    for (auto& message : boot.gather(mine.dump())) gathered.emplace_back(std::move(message));
  } catch (const Interrupted&) {
    if (boot.rank() != 0) throw;
    gather_error = "interrupted on rank 0 before every rank's results were in";
    out.interrupted = true;
  } catch (const RanksVanished& e) {
    if (boot.rank() != 0) throw;
    gather_error = e.what();  // the survivors' results are still merged below
    gathered = e.received();
  } catch (const Error& e) {
    if (boot.rank() != 0) throw;
    gather_error = e.what();  // rank 0 still writes what it has, then fails
  }
  // Each rank's results are checked on their own: one rank's invalid message (or a rank that vanished)
  // neither hides another's nor drops the valid ranks' results, which rank 0 still merges into its report.
  // The final status names every fault in one line that a message field takes.
  std::vector<std::vector<Result>> theirs(gathered.size());
  std::vector<std::string> faults;
  if (!gather_error.empty()) faults.push_back(gather_error);
  for (std::size_t r = 1; r < gathered.size(); ++r) {
    if (!gathered[r]) continue;
    try {
      theirs[r] = parse_rank_results(*gathered[r], static_cast<int>(r));
    } catch (const Error& e) {
      faults.emplace_back(e.what());
    }
  }
  gather_error = join_bounded(faults, kMaxText);
  // A rank that vanished fails every survivor, not only rank 0: the others' own results may all be fine.
  Json status = gather_error.empty() ? Json{{"ok", true}} : Json{{"error", gather_error}};
  const auto final_error = parse_final_status(boot.finish(status.dump()));
  if (boot.rank() != 0) {
    if (final_error) throw Error(fmt::format("rank 0 reports the run incomplete: {}", *final_error));
    return out;
  }

  for (std::size_t r = 1; r < theirs.size(); ++r)
    merge_rank_results(out.report.results, static_cast<int>(r), theirs[r]);
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
    out.report.cluster["incomplete"] = "results of other ranks missing: " + gather_error;
  if (run.output) write_report(*run.output, out.report);
  if (!gather_error.empty() && !out.interrupted) throw Error(gather_error);
  return out;
}

}  // namespace mlbench::net
