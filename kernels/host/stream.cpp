#include "kernels/host/stream.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/units.hpp"
#include "bench/host_view.hpp"

namespace mlbench::hostmem {

const KernelSpec& kernel_spec(Kernel k) {
  for (const auto& s : kKernels) {
    if (s.kernel == k) return s;
  }
  throw Error("unknown STREAM kernel");
}

std::optional<Kernel> kernel_from_name(std::string_view name) {
  for (const auto& s : kKernels) {
    if (s.name == name) return s.kernel;
  }
  return std::nullopt;
}

double x_of(std::size_t i) { return 1.0 + static_cast<double>(i & 1023) / 1024.0; }

ArrayState apply(Kernel k, ArrayState s) {
  auto& [a, b, c] = s.arrays;
  switch (k) {
    case Kernel::copy:
      c = a;
      break;
    case Kernel::scale:
      b = {kScalar * c.alpha, kScalar * c.beta};
      break;
    case Kernel::add:
      c = {a.alpha + b.alpha, a.beta + b.beta};
      break;
    case Kernel::triad:
      a = {b.alpha + kScalar * c.alpha, b.beta + kScalar * c.beta};
      break;
  }
  return s;
}

Mismatch check_chunk(const double* out, Chunk chunk, const Affine& want) {
  Mismatch m;
  for (std::size_t i = chunk.begin; i < chunk.end; ++i) {
    double expected = want.at(i);
    if (out[i] != expected) {
      if (m.count == 0) m = {0, i, out[i], expected};
      ++m.count;
    }
  }
  return m;
}

Mismatch merge(const std::vector<Mismatch>& parts) {
  Mismatch total;
  for (const auto& m : parts) {
    if (m.count == 0) continue;
    if (total.count == 0 || m.first < total.first) {
      std::size_t count = total.count;
      total = m;
      total.count += count;
    } else {
      total.count += m.count;
    }
  }
  return total;
}

std::vector<Chunk> partition(std::size_t n, int parts, std::size_t align) {
  if (parts <= 0) throw Error("partition: parts must be positive");
  align = std::max<std::size_t>(align, 1);
  std::vector<Chunk> out;
  std::size_t begin = 0;
  for (int p = 0; p < parts; ++p) {
    std::size_t end = n;
    if (p + 1 < parts) {
      std::size_t target = n * static_cast<std::size_t>(p + 1) / static_cast<std::size_t>(parts);
      end = std::min(n, std::max(begin, (target + align / 2) / align * align));
    }
    out.push_back({begin, end});
    begin = end;
  }
  return out;
}

ArraySize array_size(std::optional<std::uint64_t> llc_total_bytes, std::optional<double> available_bytes,
                     bool hypervisor, std::optional<std::uint64_t> requested) {
  constexpr std::uint64_t kRound = 2ULL << 20;
  const std::uint64_t rule =
      (std::max(kArrayFloorBytes, 4 * llc_total_bytes.value_or(0)) + kRound - 1) / kRound * kRound;
  const std::string rule_text = fmt::format("{} the rule asks (at least {}, and 4x the last-level caches)",
                                            format_bytes(static_cast<double>(rule)),
                                            format_bytes(static_cast<double>(kArrayFloorBytes)));
  ArraySize out;
  if (hypervisor) {
    out.warnings.push_back(
        fmt::format("virtual machine (CPU flag 'hypervisor'): the last-level cache it reports ({}) may be "
                    "smaller than the host's; the {} floor per array, not that figure, keeps the arrays out "
                    "of the caches",
                    llc_total_bytes ? format_bytes(static_cast<double>(*llc_total_bytes)) : "none",
                    format_bytes(static_cast<double>(kArrayFloorBytes))));
  }
  if (requested) {
    out.bytes = *requested;
    if (out.bytes < rule) {
      out.warnings.push_back(
          fmt::format("each array ({}) is below the {}: a cache may hold part of them, so the result "
                      "may include cache bandwidth",
                      format_bytes(static_cast<double>(out.bytes)), rule_text));
    }
    return out;
  }
  out.bytes = rule;
  if (!llc_total_bytes) {
    out.warnings.push_back(
        fmt::format("last-level cache size unknown: arrays use the {} floor, which a larger cache "
                    "would hold; pass --size",
                    format_bytes(static_cast<double>(rule))));
  }
  if (available_bytes && 3.0 * static_cast<double>(rule) > kMaxMemoryShare * *available_bytes) {
    out.bytes = static_cast<std::uint64_t>(kMaxMemoryShare * *available_bytes / 3.0) / kRound * kRound;
    out.warnings.push_back(fmt::format(
        "arrays shrunk to {} each to fit in {:.0f}% of the {} of memory available: below the {}, a cache may "
        "hold part of them",
        format_bytes(static_cast<double>(out.bytes)), 100 * kMaxMemoryShare, format_bytes(*available_bytes),
        rule_text));
  }
  return out;
}

int node_of_cpu(const nlohmann::json& host, int cpu) {
  for (const auto& n : HostView(host).numa) {
    for (const auto& c : n.value("cpus", nlohmann::json::array())) {
      if (c.get<int>() == cpu) return n.value("node", -1);
    }
  }
  return -1;
}

std::vector<int> place_threads(const nlohmann::json& host, const std::vector<int>& allowed, int threads) {
  std::set<int> ok(allowed.begin(), allowed.end());
  std::vector<int> cores;
  auto core_cpus = HostView(host).cpu.value("core_cpus", nlohmann::json::array());
  for (const auto& c : core_cpus) {
    if (ok.count(c.get<int>()) != 0) cores.push_back(c.get<int>());
  }
  if (cores.empty()) cores.assign(ok.begin(), ok.end());
  // Round-robin over nodes: node0's first core, node1's first core, node0's second core, ...
  std::map<int, std::vector<int>> by_node;
  for (int c : cores) by_node[node_of_cpu(host, c)].push_back(c);
  std::vector<int> order;
  for (std::size_t i = 0; order.size() < cores.size(); ++i) {
    for (auto& [_, list] : by_node) {
      if (i < list.size()) order.push_back(list[i]);
    }
  }
  if (threads <= 0) return order;
  // Beyond one per core, use the sibling hardware threads, still spread across nodes.
  std::set<int> used(order.begin(), order.end());
  std::vector<int> rest;
  for (int c : ok) {
    if (used.count(c) == 0) rest.push_back(c);
  }
  order.insert(order.end(), rest.begin(), rest.end());
  std::vector<int> out;
  for (int t = 0; t < threads; ++t) {
    if (order.empty()) break;
    out.push_back(order[static_cast<std::size_t>(t) % order.size()]);
  }
  return out;
}

bool isa_supported(Isa isa) {
#if defined(__x86_64__)
  switch (isa) {
    case Isa::avx512:
      return __builtin_cpu_supports("avx512f") != 0;
    case Isa::avx2:
      return __builtin_cpu_supports("avx2") != 0;
    case Isa::sse2:
    case Isa::scalar:
      return true;
  }
  return false;
#else
  return isa == Isa::scalar;
#endif
}

Isa best_isa() {
  for (Isa isa : {Isa::avx512, Isa::avx2, Isa::sse2}) {
    if (isa_supported(isa)) return isa;
  }
  return Isa::scalar;
}

ChunkFn chunk_fn(Isa isa) {
  if (!isa_supported(isa))
    throw Error(fmt::format("this CPU cannot run the {} STREAM loops", to_string(isa)));
  switch (isa) {
#if defined(__x86_64__)
    case Isa::avx512:
      return &stream_chunk_avx512;
    case Isa::avx2:
      return &stream_chunk_avx2;
    case Isa::sse2:
      return &stream_chunk_sse2;
#endif
    default:
      return &stream_chunk_scalar;
  }
}

}  // namespace mlbench::hostmem
