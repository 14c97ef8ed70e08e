// Which launcher started this process, read from its environment (pure: tests pass a map).
//
// Recognised, first match wins:
//   torchrun / Kubernetes   RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE
//   Open MPI (mpirun)       OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK, _LOCAL_SIZE
//   MPICH / Hydra / PMI     PMI_RANK, PMI_SIZE, MPI_LOCALRANKID, MPI_LOCALNRANKS
//   Slurm (srun step)       SLURM_PROCID, SLURM_STEP_NUM_TASKS, SLURM_LOCALID (SLURM_NTASKS alone is also set
//                           in the batch script itself, which is one process, so it does not count)
// MASTER_ADDR / MASTER_PORT (default 29500, torchrun's) name where rank 0 listens for the TCP rendezvous;
// they are needed unless the MPI bootstrap is used.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace mlbench::net {

enum class Launcher { none, torchrun, openmpi, pmi, slurm };
std::string_view to_string(Launcher l);

struct LaunchInfo {
  Launcher launcher = Launcher::none;
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  std::optional<int> local_world_size;
  std::string master_addr;  // empty when not given
  int master_port = 29500;

  bool multi_process() const { return world_size > 1; }
  bool mpi_launched() const { return launcher == Launcher::openmpi || launcher == Launcher::pmi; }
};

using EnvMap = std::map<std::string, std::string>;

// This process's environment.
EnvMap process_env();

// Throws UsageError (naming the variable and the fix) on a malformed or inconsistent value: a rank outside
// [0, world size), a non-numeric count, a malformed MASTER_ADDR or MASTER_PORT.
LaunchInfo parse_launch_env(const EnvMap& env);

// True when `addr` is an IPv4/IPv6 literal (IPv6 optionally in brackets) or an RFC 1123 host name.
bool valid_master_addr(std::string_view addr);

// Every NCCL_* variable in the environment: the NCCL settings in effect.
std::map<std::string, std::string> nccl_env(const EnvMap& env);

// Which local GPU a rank drives, given the GPUs this process sees.
struct GpuChoice {
  std::optional<int> device;  // nullopt: no GPU here (skip_reason says so)
  std::string skip_reason;
};
// local_rank < gpus: that GPU; exactly one GPU visible: it (the launcher isolated one GPU per process);
// no GPU: skipped; otherwise the world is larger than the GPUs found: UsageError.
GpuChoice choose_gpu(const LaunchInfo& launch, int visible_gpus, std::string_view host);

}  // namespace mlbench::net
