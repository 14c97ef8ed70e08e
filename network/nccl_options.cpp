#include "network/nccl_options.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/units.hpp"

namespace mlbench::net {
namespace {

std::vector<std::string> string_list(const Json& v, const char* key) {
  std::vector<std::string> out;
  auto split = [&out](const std::string& s) {
    std::size_t start = 0;
    while (start <= s.size()) {
      auto comma = s.find(',', start);
      if (comma == std::string::npos) comma = s.size();
      if (comma > start) out.push_back(s.substr(start, comma - start));
      start = comma + 1;
    }
  };
  if (v.is_string()) {
    split(v.get<std::string>());
  } else if (v.is_array()) {
    for (const auto& e : v) {
      if (!e.is_string()) throw UsageError(fmt::format("'{}' must list names (strings)", key));
      split(e.get<std::string>());
    }
  } else {
    throw UsageError(fmt::format("'{}' must be a name or a list of names", key));
  }
  if (out.empty()) throw UsageError(fmt::format("'{}' is empty", key));
  return out;
}

std::uint64_t size_value(const Json& v, const char* flag) {
  if (v.is_number_integer() && v.get<long long>() >= 0) return v.get<std::uint64_t>();
  if (v.is_string()) return parse_size(v.get<std::string>(), flag);
  throw UsageError(fmt::format("{} must be a size in bytes (e.g. 8, 64K, 8G)", flag));
}

int positive_int(const Json& v, const char* flag, int min_value) {
  if (!v.is_number_integer() || v.get<long long>() < min_value || v.get<long long>() > 1000000) {
    throw UsageError(fmt::format("{} must be an integer between {} and 1000000", flag, min_value));
  }
  return v.get<int>();
}

}  // namespace

NcclOptions parse_nccl_options(const Json& options, Profile profile) {
  if (!options.is_object()) throw UsageError("net.nccl options must be a mapping");
  static const char* kKeys[] = {"ops",    "dtype",   "min_bytes", "max_bytes", "factor", "iters",
                                "warmup", "timeout", "placement", "gpus",      "timing"};
  for (const auto& item : options.items()) {
    const std::string& key = item.key();  // a named variable: clang 14 cannot capture a structured binding
    if (std::find_if(std::begin(kKeys), std::end(kKeys), [&](const char* k) { return key == k; }) ==
        std::end(kKeys)) {
      throw UsageError(fmt::format("unknown option '{}' (allowed: {})", key, fmt::join(kKeys, ", ")));
    }
  }
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
  if (options.contains("ops")) {
    o.ops.clear();
    for (const auto& n : string_list(options["ops"], "--ops")) o.ops.push_back(collective_from_name(n));
  }
  if (options.contains("dtype")) {
    o.dtypes.clear();
    for (const auto& n : string_list(options["dtype"], "--dtype")) o.dtypes.push_back(data_type_from_name(n));
  }
  if (options.contains("min_bytes")) o.min_bytes = size_value(options["min_bytes"], "--min-bytes");
  if (options.contains("max_bytes")) o.max_bytes = size_value(options["max_bytes"], "--max-bytes");
  if (options.contains("factor")) {
    if (!options["factor"].is_number()) throw UsageError("--factor must be a number greater than 1");
    o.factor = options["factor"].get<double>();
  }
  if (options.contains("iters")) o.iters = positive_int(options["iters"], "--iters", 1);
  if (options.contains("warmup")) o.warmup = positive_int(options["warmup"], "--warmup", 0);
  if (options.contains("gpus")) o.gpus = positive_int(options["gpus"], "--gpus", 1);
  if (options.contains("timeout")) {
    const auto& t = options["timeout"];
    o.timeout_s = t.is_number()   ? t.get<double>()
                  : t.is_string() ? parse_duration(t.get<std::string>(), "--timeout")
                                  : -1;
    if (!(o.timeout_s > 0)) throw UsageError("--timeout must be a positive duration (e.g. 60, 5m)");
  }
  if (options.contains("placement")) {
    auto p = options["placement"].is_string() ? options["placement"].get<std::string>() : "";
    if (p != "both" && p != "out" && p != "in") {
      throw UsageError("--placement must be one of: both, out, in");
    }
    o.out_of_place = p != "in";
    o.in_place = p != "out";
  }
  if (options.contains("timing")) {
    auto t = options["timing"].is_string() ? options["timing"].get<std::string>() : "";
    if (t != "blocking" && t != "nonblocking") {
      throw UsageError("--timing must be one of: blocking, nonblocking");
    }
    o.blocking = t == "blocking";
  }
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
