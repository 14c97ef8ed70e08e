// The nccl-tests conventions: which bytes a collective moves and how bus bandwidth follows from algorithm
// bandwidth (each collective's row is facts() in network/types.hpp), plus the data types and the size sweep.
// Pure host code, unit-tested against the table of METHODS.md "net.nccl" (and nccl-tests' src/*.cu):
//
//   collective       S (the "size" column)                        busbw = algbw ×
//   all_reduce       count·typesize                               2(n−1)/n
//   reduce_scatter   per-rank recv count·typesize·n               (n−1)/n
//   all_gather       per-rank send count·typesize·n               (n−1)/n
//   alltoall         per-peer count·typesize·n                    (n−1)/n
//   broadcast        count·typesize                               1
//   reduce           count·typesize                               1
//   sendrecv         count·typesize (to the ring neighbour)       1
//
// algbw = S / t with t the mean over ranks of the wall time per call. busbw assumes a ring: with NVLS or
// CollNet (in-network reduction) all_reduce busbw exceeds the physical link rate.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "network/types.hpp"

namespace mlbench::net {

struct DataTypeSpec {
  DataType id;
  std::string_view name;
  std::size_t size;  // bytes per element
  // Largest integer every value up to which the type represents exactly (sums stay exact below it).
  std::int64_t exact_limit;
};

// Every collective's row of facts() (network/types.hpp), in report order.
std::span<const CollectiveFacts> collectives();
const CollectiveFacts& spec(Collective c);
// NCCL defines an in-place form of the collective.
constexpr bool in_place_defined(Collective c) { return facts(c).in_place != InPlace::undefined; }
const DataTypeSpec& spec(DataType t);
std::span<const DataTypeSpec> data_types();

// Throw UsageError naming the accepted values.
Collective collective_from_name(std::string_view name);
DataType data_type_from_name(std::string_view name);

// The fewest ranks a collective measures the fabric with: NCCL runs a one-rank collective as a local copy
// (nothing crosses a link, and all_reduce's busbw, 2(n−1)/n × algbw, is 0).
inline constexpr int kMinRanks = 2;
// Why net.nccl cannot measure a world of `ranks` ranks (fewer than kMinRanks), or nullopt.
std::optional<std::string> too_few_ranks(int ranks);

// busbw / algbw for `ranks` ranks (0 for a one-rank all_reduce/all_gather, as nccl-tests prints).
double bus_factor(Collective c, int ranks);

// The buffers of one call, nccl-tests style, for a requested size in bytes.
struct CallSize {
  std::uint64_t bytes = 0;       // S: what algbw divides (rounded down to whole elements per rank)
  std::uint64_t count = 0;       // the element count passed to NCCL (per rank / per peer where S spans ranks)
  std::uint64_t send_bytes = 0;  // per rank
  std::uint64_t recv_bytes = 0;  // per rank
};
// count is 0 when the size is too small for one element per rank.
CallSize call_size(Collective c, std::uint64_t requested_bytes, std::size_t type_size, int ranks);

// min, min·f, min·f², ... up to max (inclusive), each rounded down to whole bytes and deduplicated; max is
// appended when the last step falls short of it. Throws UsageError when min is 0, min > max or factor <= 1.
std::vector<std::uint64_t> sweep_sizes(std::uint64_t min_bytes, std::uint64_t max_bytes, double factor);

// Time of one call on every rank → the numbers of one result.
struct Timing {
  double mean_s = 0;     // over ranks: what algbw uses (nccl-tests averages the ranks' times)
  double slowest_s = 0;  // the slowest rank's time
  int slowest_rank = 0;
  double algbw = 0;  // B/s
  double busbw = 0;  // B/s
};
// Throws Error on an empty set or a non-positive time.
Timing summarize(Collective c, std::uint64_t bytes, int ranks, std::span<const double> seconds_per_rank);

}  // namespace mlbench::net
