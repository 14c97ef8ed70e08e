#include "network/mpi_bootstrap.hpp"

#include <mpi.h>

#include <fmt/format.h>

#include "base/error.hpp"

#define MLBENCH_MPI_CHECK(call)                                                                \
  do {                                                                                         \
    int mlbench_rc_ = (call);                                                                  \
    if (mlbench_rc_ != MPI_SUCCESS) {                                                          \
      char mlbench_msg_[MPI_MAX_ERROR_STRING] = {};                                            \
      int mlbench_len_ = 0;                                                                    \
      MPI_Error_string(mlbench_rc_, mlbench_msg_, &mlbench_len_);                              \
      ::mlbench::throw_call_error(#call, __FILE__, __LINE__,                                   \
                                  fmt::format("MPI error {}: {}", mlbench_rc_, mlbench_msg_)); \
    }                                                                                          \
  } while (0)

namespace mlbench::net {

MpiBootstrap::MpiBootstrap() {
  int initialized = 0;
  MLBENCH_MPI_CHECK(MPI_Initialized(&initialized));
  if (initialized == 0) {
    int provided = 0;
    MLBENCH_MPI_CHECK(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided));
    owns_ = true;
  }
  MLBENCH_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
  MLBENCH_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &world_));
}

MpiBootstrap::~MpiBootstrap() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (owns_ && finalized == 0) MPI_Finalize();
}

std::string MpiBootstrap::broadcast(const std::string& blob) {
  unsigned long long len = blob.size();
  MLBENCH_MPI_CHECK(MPI_Bcast(&len, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD));
  std::string out = rank_ == 0 ? blob : std::string(len, '\0');
  MLBENCH_MPI_CHECK(MPI_Bcast(out.data(), static_cast<int>(len), MPI_CHAR, 0, MPI_COMM_WORLD));
  return out;
}

std::vector<std::string> MpiBootstrap::gather(const std::string& mine) {
  int len = static_cast<int>(mine.size());
  std::vector<int> lens(rank_ == 0 ? static_cast<std::size_t>(world_) : 0);
  MLBENCH_MPI_CHECK(MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD));
  std::vector<int> displs(lens.size());
  std::string all;
  if (rank_ == 0) {
    int total = 0;
    for (std::size_t i = 0; i < lens.size(); ++i) {
      displs[i] = total;
      total += lens[i];
    }
    all.resize(static_cast<std::size_t>(total));
  }
  MLBENCH_MPI_CHECK(MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR,
                                0, MPI_COMM_WORLD));
  std::vector<std::string> out;
  for (std::size_t i = 0; i < lens.size(); ++i) {
    out.push_back(all.substr(static_cast<std::size_t>(displs[i]), static_cast<std::size_t>(lens[i])));
  }
  return out;
}

}  // namespace mlbench::net
