// The bootstrap over MPI_COMM_WORLD, for runs started by mpirun/srun in a build with MPI: MPI itself did the
// rendezvous, so no MASTER_ADDR is needed. MPI has no timeouts: a dead rank is handled by the MPI launcher,
// which ends the job.
#pragma once

#include "network/bootstrap.hpp"

namespace mlbench::net {

class MpiBootstrap : public Bootstrap {
 public:
  MpiBootstrap();            // MPI_Init unless already initialised
  ~MpiBootstrap() override;  // MPI_Finalize when this object initialised MPI
  MpiBootstrap(const MpiBootstrap&) = delete;
  MpiBootstrap& operator=(const MpiBootstrap&) = delete;

  int rank() const override { return rank_; }
  int world_size() const override { return world_; }
  std::string describe() const override { return "mpi"; }
  std::string broadcast(const std::string& blob) override;
  std::vector<std::string> gather(const std::string& mine) override;
  // A broadcast: MPI ends the whole job when a rank dies, so every rank that gets here is alive.
  std::string finish(const std::string& status) override { return broadcast(status); }

 private:
  bool owns_ = false;
  int rank_ = 0, world_ = 1;
};

}  // namespace mlbench::net
