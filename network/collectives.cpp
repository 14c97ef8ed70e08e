#include "network/collectives.hpp"

#include <array>
#include <cmath>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "base/error.hpp"

namespace mlbench::net {
namespace {

template <std::size_t... I>
constexpr std::array<CollectiveFacts, sizeof...(I)> all_facts(std::index_sequence<I...>) {
  return {facts(static_cast<Collective>(I))...};
}
constexpr auto kCollectives = all_facts(std::make_index_sequence<kCollectiveCount>{});
static_assert(kCollectives.back().id == Collective::sendrecv, "kCollectiveCount covers every collective");

// Exact-integer limits: float 2^24, half 2^11, bf16 2^8 (significand bits + 1), int8 its positive range.
constexpr std::array kDataTypes{
    DataTypeSpec{DataType::float32, "float", 4, 16777216},
    DataTypeSpec{DataType::bf16, "bf16", 2, 256},
    DataTypeSpec{DataType::half, "half", 2, 2048},
    DataTypeSpec{DataType::int8, "int8", 1, 127},
};

template <typename Spec>
std::string names_of(std::span<const Spec> specs) {
  std::string out;
  for (const auto& s : specs) out += (out.empty() ? "" : ", ") + std::string(s.name);
  return out;
}

}  // namespace

std::span<const CollectiveFacts> collectives() { return kCollectives; }
std::span<const DataTypeSpec> data_types() { return kDataTypes; }

const CollectiveFacts& spec(Collective c) { return kCollectives[static_cast<std::size_t>(c)]; }
const DataTypeSpec& spec(DataType t) { return kDataTypes[static_cast<std::size_t>(t)]; }

Collective collective_from_name(std::string_view name) {
  for (const auto& s : kCollectives) {
    if (s.name == name) return s.id;
  }
  throw UsageError(fmt::format("unknown collective '{}'; use one of: {}", name,
                               names_of(std::span<const CollectiveFacts>(kCollectives))));
}

DataType data_type_from_name(std::string_view name) {
  for (const auto& s : kDataTypes) {
    if (s.name == name) return s.id;
  }
  throw UsageError(fmt::format("unknown data type '{}'; use one of: {}", name,
                               names_of(std::span<const DataTypeSpec>(kDataTypes))));
}

std::optional<std::string> too_few_ranks(int ranks) {
  if (ranks >= kMinRanks) return std::nullopt;
  return fmt::format(
      "a collective needs at least {} ranks and this world has {}: NCCL runs a one-rank collective as a "
      "local copy that crosses no link (all_reduce's busbw, 2(n-1)/n x algbw, is 0); run on a host with {} "
      "or more GPUs, or across hosts",
      kMinRanks, ranks, kMinRanks);
}

double bus_factor(Collective c, int ranks) {
  double n = ranks;
  switch (spec(c).factor) {
    case BusFactor::two_n_minus_one_over_n:
      return 2.0 * (n - 1) / n;
    case BusFactor::n_minus_one_over_n:
      return (n - 1) / n;
    case BusFactor::one:
      return 1.0;
  }
  return 1.0;
}

CallSize call_size(Collective c, std::uint64_t requested_bytes, std::size_t type_size, int ranks) {
  const auto& s = spec(c);
  const std::uint64_t per_size =
      (s.send_spans_ranks || s.recv_spans_ranks) ? static_cast<std::uint64_t>(ranks) : 1;
  CallSize out;
  out.count = requested_bytes / type_size / per_size;
  out.bytes = out.count * type_size * per_size;
  out.send_bytes = input_elements(c, out.count, ranks) * type_size;
  out.recv_bytes = output_elements(c, out.count, ranks) * type_size;
  return out;
}

std::vector<std::uint64_t> sweep_sizes(std::uint64_t min_bytes, std::uint64_t max_bytes, double factor) {
  if (min_bytes == 0) throw UsageError("--min-bytes must be at least 1 byte");
  if (min_bytes > max_bytes) {
    throw UsageError(
        fmt::format("--min-bytes ({}) is larger than --max-bytes ({}); swap them or lower --min-bytes",
                    min_bytes, max_bytes));
  }
  if (!(factor > 1.0) || !std::isfinite(factor)) {
    throw UsageError(fmt::format("--factor must be greater than 1 (got {}); e.g. --factor 2", factor));
  }
  std::vector<std::uint64_t> sizes;
  double s = static_cast<double>(min_bytes);
  while (s <= static_cast<double>(max_bytes)) {
    auto b = static_cast<std::uint64_t>(s);
    if (sizes.empty() || b > sizes.back()) sizes.push_back(b);
    s *= factor;
  }
  if (sizes.back() < max_bytes) sizes.push_back(max_bytes);
  return sizes;
}

Timing summarize(Collective c, std::uint64_t bytes, int ranks, std::span<const double> seconds_per_rank) {
  if (seconds_per_rank.empty()) throw Error("no rank reported a time");
  Timing t;
  double sum = 0;
  for (std::size_t r = 0; r < seconds_per_rank.size(); ++r) {
    double s = seconds_per_rank[r];
    if (!(s > 0)) throw Error(fmt::format("rank {} reported a non-positive time ({} s)", r, s));
    sum += s;
    if (s > t.slowest_s) {
      t.slowest_s = s;
      t.slowest_rank = static_cast<int>(r);
    }
  }
  t.mean_s = sum / static_cast<double>(seconds_per_rank.size());
  t.algbw = static_cast<double>(bytes) / t.mean_s;
  t.busbw = t.algbw * bus_factor(c, ranks);
  return t;
}

}  // namespace mlbench::net
