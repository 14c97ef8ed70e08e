#include "network/launch_env.hpp"

#include <arpa/inet.h>

#include <cctype>
#include <charconv>

#include <fmt/format.h>

#include "base/error.hpp"
#include "network/text.hpp"

extern char** environ;

namespace mlbench::net {
namespace {

std::optional<std::string> get(const EnvMap& env, const std::string& name) {
  auto it = env.find(name);
  if (it == env.end() || it->second.empty()) return std::nullopt;
  return it->second;
}

int parse_int(const EnvMap& env, const std::string& name, int min_value) {
  auto text = get(env, name).value_or("");
  int value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || value < min_value) {
    throw UsageError(
        fmt::format("{}='{}' is not an integer >= {}; fix the launcher environment", name, text, min_value));
  }
  return value;
}

std::optional<int> parse_opt_int(const EnvMap& env, const std::string& name, int min_value) {
  if (!get(env, name)) return std::nullopt;
  return parse_int(env, name, min_value);
}

bool valid_hostname(std::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  bool all_numeric = true;
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t dot = name.find('.', start);
    if (dot == std::string_view::npos) dot = name.size();
    auto label = name.substr(start, dot - start);
    if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') return false;
    for (char ch : label) {
      if (std::isalnum(static_cast<unsigned char>(ch)) == 0 && ch != '-') return false;
      if (std::isdigit(static_cast<unsigned char>(ch)) == 0) all_numeric = false;
    }
    start = dot + 1;
  }
  // "10.0.0.300" looks like an address but is not one: refuse it rather than resolving it as a name.
  return !all_numeric;
}

// The launch_env.hpp order; Slurm's job and step ids come last, joined.
constexpr const char* kJobIdVariables[] = {"MLBENCH_JOB_ID", "TORCHELASTIC_RUN_ID", "PMIX_NAMESPACE",
                                           "OMPI_MCA_ess_base_jobid", "OMPI_MCA_orte_ess_jobid"};

std::optional<JobId> find_job_id(const EnvMap& env) {
  std::optional<JobId> id;
  for (const char* name : kJobIdVariables) {
    if (auto v = get(env, name)) {
      id = JobId{*v, name};
      break;
    }
  }
  if (!id) {
    if (auto job = get(env, "SLURM_JOB_ID")) {
      auto step = get(env, "SLURM_STEP_ID");
      id = step ? JobId{*job + "." + *step, "SLURM_JOB_ID.SLURM_STEP_ID"} : JobId{*job, "SLURM_JOB_ID"};
    }
  }
  if (id && !valid_job_id(id->value)) {
    throw UsageError(
        fmt::format("{} is not a usable job id ({} printable characters at most, no space or "
                    "control character); set MLBENCH_JOB_ID to the same simple value on every rank",
                    id->source, kMaxJobIdLength));
  }
  return id;
}

}  // namespace

bool valid_job_id(std::string_view id) {
  return !id.empty() && id.size() <= kMaxJobIdLength && printable_word(id);
}

bool valid_job_token(std::string_view token) {
  return token.size() >= kMinJobTokenLength && token.size() <= kMaxJobTokenLength && printable_word(token);
}

std::string job_id_variables() {
  std::string out;
  for (const char* name : kJobIdVariables) out += std::string(name) + ", ";
  return out + "SLURM_JOB_ID";
}

EnvMap process_env() {
  EnvMap env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view kv(*e);
    auto eq = kv.find('=');
    if (eq == std::string_view::npos) continue;
    env.emplace(std::string(kv.substr(0, eq)), std::string(kv.substr(eq + 1)));
  }
  return env;
}

bool valid_master_addr(std::string_view addr) {
  if (addr.empty()) return false;
  std::string a(addr);
  if (a.size() >= 2 && a.front() == '[' && a.back() == ']') a = a.substr(1, a.size() - 2);
  unsigned char buf[16];
  if (inet_pton(AF_INET, a.c_str(), buf) == 1 || inet_pton(AF_INET6, a.c_str(), buf) == 1) return true;
  return addr.front() != '[' && valid_hostname(a);
}

LaunchInfo parse_launch_env(const EnvMap& env) {
  LaunchInfo li;
  struct Names {
    Launcher launcher;
    const char *rank, *size, *local_rank, *local_size;
  };
  static constexpr Names kLaunchers[] = {
      {Launcher::torchrun, "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"},
      {Launcher::openmpi, "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
       "OMPI_COMM_WORLD_LOCAL_SIZE"},
      {Launcher::pmi, "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"},
      {Launcher::slurm, "SLURM_PROCID", "SLURM_STEP_NUM_TASKS", "SLURM_LOCALID", "SLURM_STEP_TASKS_PER_NODE"},
  };
  for (const auto& n : kLaunchers) {
    if (!get(env, n.rank) || !get(env, n.size)) continue;
    li.launcher = n.launcher;
    li.world_size = parse_int(env, n.size, 1);
    li.rank = parse_int(env, n.rank, 0);
    if (li.rank >= li.world_size) {
      throw UsageError(fmt::format("{}={} is outside the world of {}={} ranks; fix the launcher environment",
                                   n.rank, li.rank, n.size, li.world_size));
    }
    li.local_rank = parse_opt_int(env, n.local_rank, 0).value_or(li.world_size == 1 ? 0 : li.rank);
    // Slurm writes tasks per node as "4(x2)"; only a plain number is a local size.
    if (n.launcher != Launcher::slurm || get(env, n.local_size).value_or("").find('(') == std::string::npos) {
      li.local_world_size = parse_opt_int(env, n.local_size, 1);
    }
    if (li.local_world_size && li.local_rank >= *li.local_world_size) {
      throw UsageError(fmt::format("{}={} is outside the {}={} local ranks; fix the launcher environment",
                                   n.local_rank, li.local_rank, n.local_size, *li.local_world_size));
    }
    break;
  }
  if (auto addr = get(env, "MASTER_ADDR")) {
    if (!valid_master_addr(*addr)) {
      throw UsageError(fmt::format(
          "MASTER_ADDR='{}' is not an IP address or host name; set it to rank 0's address, e.g. 10.0.0.1",
          *addr));
    }
    li.master_addr = *addr;
  }
  if (get(env, "MASTER_PORT")) li.master_port = parse_int(env, "MASTER_PORT", 1);
  if (li.master_port > 65535) {
    throw UsageError(fmt::format("MASTER_PORT={} is not a TCP port (1-65535)", li.master_port));
  }
  // Only the rendezvous uses it: one process is never refused for an odd id in its environment.
  if (li.multi_process()) {
    li.job = find_job_id(env);
    li.token = get(env, "MLBENCH_JOB_TOKEN");
    if (li.token && !valid_job_token(*li.token)) {
      throw UsageError(fmt::format(
          "MLBENCH_JOB_TOKEN is not a usable job token (it needs {} to {} printable characters without "
          "space: at least 128 random bits as hex digits); give every rank the same random one, e.g. from: "
          "{}",
          kMinJobTokenLength, kMaxJobTokenLength, kMakeJobToken));
    }
  }
  return li;
}

std::map<std::string, std::string> nccl_env(const EnvMap& env) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : env) {
    if (k.starts_with("NCCL_")) out.emplace(k, v);
  }
  return out;
}

GpuChoice choose_gpu(const LaunchInfo& launch, int visible_gpus, std::string_view host) {
  if (visible_gpus <= 0) {
    return {std::nullopt, fmt::format("no CUDA GPU visible to rank {} on {}", launch.rank, host)};
  }
  if (launch.local_rank < visible_gpus) return {launch.local_rank, {}};
  if (visible_gpus == 1) return {0, {}};
  throw UsageError(
      fmt::format("rank {} has local rank {} but {} sees only {} GPUs: "
                  "the world of {} ranks does not match the GPUs found; start one process per GPU",
                  launch.rank, launch.local_rank, host, visible_gpus, launch.world_size));
}

}  // namespace mlbench::net
