// How the ranks of a multi-process run find each other before NCCL exists: exchange of the NCCL unique id
// (rank 0 → all) and the gather of every rank's inventory and results (all → rank 0).
//
// TcpBootstrap: rank 0 listens on MASTER_ADDR:MASTER_PORT; every other rank connects (retrying while rank 0
// is not up yet) and introduces itself. Messages are length-prefixed byte strings. Every wait is bounded by
// the timeout: rank 0's error names the ranks that never arrived (or never sent), the others' error names the
// address that never answered; a connection closed early (a rank died) ends the wait at once.
// MpiBootstrap (network/mpi_bootstrap.hpp, only when built with MPI) does the same over MPI_COMM_WORLD.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace mlbench::net {

class Bootstrap {
 public:
  virtual ~Bootstrap() = default;
  virtual int rank() const = 0;
  virtual int world_size() const = 0;
  virtual std::string describe() const = 0;  // "tcp 10.0.0.1:29500", "mpi"
  // Every rank returns rank 0's `blob` (other ranks' argument is ignored).
  virtual std::string broadcast(const std::string& blob) = 0;
  // Rank 0 returns every rank's message, indexed by rank; the others return an empty vector.
  virtual std::vector<std::string> gather(const std::string& mine) = 0;
};

// Move-only owner of a file descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd();
  Fd(Fd&& o) noexcept : fd_(o.release()) {}
  Fd& operator=(Fd&& o) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  int release() {
    int f = fd_;
    fd_ = -1;
    return f;
  }

 private:
  int fd_ = -1;
};

class TcpBootstrap : public Bootstrap {
 public:
  // Connects the world (see the file comment); throws Error when the rendezvous does not complete in time.
  TcpBootstrap(int rank, int world_size, const std::string& addr, int port, double timeout_s);

  int rank() const override { return rank_; }
  int world_size() const override { return world_; }
  std::string describe() const override;
  std::string broadcast(const std::string& blob) override;
  std::vector<std::string> gather(const std::string& mine) override;

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point deadline() const;
  void accept_all();
  void connect_to_root();

  int rank_, world_;
  std::string addr_;
  int port_;
  double timeout_s_;
  Fd listener_;
  std::vector<Fd> peers_;  // rank 0: one per rank (index 0 empty); others: peers_[0] is rank 0
};

}  // namespace mlbench::net
