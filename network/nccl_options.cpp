#include "network/nccl_options.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/units.hpp"
#include "network/bootstrap.hpp"

namespace mlbench::net {
namespace {

constexpr OptionSpec kOptions[] = {
    {.name = "ops",
     .type = OptionType::choices,
     .def = "all; quick: all_reduce, all_gather, reduce_scatter",
     .choices =
         [] {
           std::vector<std::string_view> names;
           for (const auto& c : collectives()) names.push_back(c.name);
           return names;
         },
     .help = "Collectives"},
    {.name = "dtype",
     .type = OptionType::choices,
     .def = "float; full: every type",
     .choices =
         [] {
           std::vector<std::string_view> names;
           for (const auto& t : data_types()) names.push_back(t.name);
           return names;
         },
     .help = "Data types"},
    {.name = "min_bytes",
     .type = OptionType::size,
     .def = "8; quick: 1M",
     .unit = "B",
     .help = "Smallest size S (bytes, or 64K, 1M...)"},
    {.name = "max_bytes",
     .type = OptionType::size,
     .def = "8G; quick: 1G",
     .unit = "B",
     .help = "Largest size S (capped by the GPUs' free memory)"},
    {.name = "factor",
     .type = OptionType::number,
     .def = "2; quick: 8",
     .min = 1,
     .min_exclusive = true,
     .help = "Multiply the size by this between steps"},
    {.name = "iters",
     .type = OptionType::integer,
     .def = "20; full: 50",
     .min = 1,
     .max = 1000000,
     .help = "Timed back-to-back calls per size"},
    {.name = "warmup",
     .type = OptionType::integer,
     .def = "5; full: 10",
     .min = 0,
     .max = 1000000,
     .help = "Untimed calls before timing"},
    {.name = "timeout",
     .type = OptionType::duration,
     .def = "300s",
     .unit = "s",
     .min = 0,
     .max = kMaxTimeoutS,
     .min_exclusive = true,
     .help = "Abort (ncclCommAbort) any wait longer than this, and bound the rendezvous"},
    {.name = "placement",
     .type = OptionType::choice,
     .def = "both",
     .choices =
         [] {
           return std::vector<std::string_view>{"both", "out", "in"};
         },
     .help = "Out-of-place and/or in-place"},
    {.name = "gpus",
     .type = OptionType::integer,
     .def = "all",
     .min = kMinRanks,
     .max = 1000000,
     .help = "Single-process mode: local GPUs to use"},
    {.name = "timing",
     .type = OptionType::choice,
     .def = "blocking",
     .choices =
         [] {
           return std::vector<std::string_view>{"blocking", "nonblocking"};
         },
     .help = "The communicators the timed calls run on: blocking as nccl-tests; nonblocking hands every "
             "launch to an NCCL thread"},
};

}  // namespace

std::span<const OptionSpec> nccl_option_table() { return kOptions; }

NcclOptions parse_nccl_options(const Json& options, Profile profile, const OptionSource& source) {
  auto values = parse_options(kOptions, options, source);
  NcclOptions o;
  if (profile == Profile::quick) {
    o.ops = {Collective::all_reduce, Collective::all_gather, Collective::reduce_scatter};
    o.min_bytes = std::uint64_t{1} << 20;
    o.max_bytes = std::uint64_t{1} << 30;
    o.factor = 8;
  } else {
    for (const auto& s : collectives()) o.ops.push_back(s.id);
  }
  if (profile == Profile::full) {
    for (const auto& t : data_types()) o.dtypes.push_back(t.id);
    o.iters = 50;
    o.warmup = 10;
  } else {
    o.dtypes = {DataType::float32};
  }
  if (auto ops = values.given<std::vector<std::string>>("ops")) {
    o.ops.clear();
    for (const auto& n : *ops) o.ops.push_back(collective_from_name(n));
  }
  if (auto types = values.given<std::vector<std::string>>("dtype")) {
    o.dtypes.clear();
    for (const auto& n : *types) o.dtypes.push_back(data_type_from_name(n));
  }
  o.min_bytes = values.given<std::uint64_t>("min_bytes").value_or(o.min_bytes);
  o.max_bytes = values.given<std::uint64_t>("max_bytes").value_or(o.max_bytes);
  o.factor = values.given<double>("factor").value_or(o.factor);
  o.iters = static_cast<int>(values.given<std::int64_t>("iters").value_or(o.iters));
  o.warmup = static_cast<int>(values.given<std::int64_t>("warmup").value_or(o.warmup));
  o.gpus = static_cast<int>(values.given<std::int64_t>("gpus").value_or(0));
  o.timeout_s = values.get<double>("timeout");
  auto placement = values.get<std::string>("placement");
  o.out_of_place = placement != "in";
  o.in_place = placement != "out";
  o.blocking = values.get<std::string>("timing") == "blocking";
  // Validates min/max/factor with the sweep's own messages.
  sweep_sizes(o.min_bytes, o.max_bytes, o.factor);
  return o;
}

NcclPlan plan_nccl(const NcclOptions& opts, int ranks, std::optional<std::uint64_t> free_memory_bytes) {
  NcclPlan plan;
  auto sizes = sweep_sizes(opts.min_bytes, opts.max_bytes, opts.factor);
  if (free_memory_bytes) {
    std::uint64_t cap = *free_memory_bytes / 5 * 2;
    std::size_t before = sizes.size();
    std::erase_if(sizes, [cap](std::uint64_t s) { return s > cap; });
    if (sizes.empty()) {
      throw UsageError(fmt::format("--min-bytes {} does not fit in the GPUs' free memory ({}); lower it",
                                   opts.min_bytes, format_bytes(static_cast<double>(*free_memory_bytes))));
    }
    if (sizes.size() < before) plan.capped_at = sizes.back();
  }
  for (Collective op : opts.ops) {
    for (DataType t : opts.dtypes) {
      for (bool in_place : {false, true}) {
        if (in_place ? !(opts.in_place && in_place_defined(op)) : !opts.out_of_place) continue;
        NcclCasePlan c{op, t, in_place, {}};
        for (auto s : sizes) {
          if (call_size(op, s, spec(t).size, ranks).count > 0) c.sizes.push_back(s);
        }
        if (!c.sizes.empty()) plan.cases.push_back(std::move(c));
      }
    }
  }
  return plan;
}

}  // namespace mlbench::net

namespace mlbench::net {

Json nccl_algorithm_info(const std::map<std::string, std::string>& nccl_env) {
  auto get = [&](const char* k) {
    auto it = nccl_env.find(k);
    return it == nccl_env.end() ? std::string() : it->second;
  };
  std::string algo = get("NCCL_ALGO"), proto = get("NCCL_PROTO");
  Json info;
  constexpr const char* kUnknown =
      "chosen by NCCL per call; its API does not report it (NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING logs "
      "it)";
  info["algorithm"] = algo.empty() ? std::string(kUnknown) : algo + " (NCCL_ALGO)";
  info["protocol"] = proto.empty() ? std::string(kUnknown) : proto + " (NCCL_PROTO)";
  if (algo.empty()) {
    info["in_network_reduction"] = "unknown";
    return info;
  }
  // NCCL_ALGO is a list ("Ring,Tree", "allreduce:nvls,ring", "^NVLS"): a token starting with ^ excludes.
  std::string lower;
  for (char ch : algo) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  bool allowed = false;
  std::size_t start = 0;
  while (start <= lower.size()) {
    std::size_t end = lower.find_first_of(",;", start);
    if (end == std::string::npos) end = lower.size();
    std::string token = lower.substr(start, end - start);
    auto colon = token.find(':');
    if (colon != std::string::npos) token = token.substr(colon + 1);
    bool exclude = !token.empty() && token.front() == '^';
    if (!exclude && (token.find("nvls") != std::string::npos || token.find("collnet") != std::string::npos)) {
      allowed = true;
    }
    start = end + 1;
  }
  info["in_network_reduction"] = allowed;
  return info;
}

}  // namespace mlbench::net
