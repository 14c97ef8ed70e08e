#include "kernels/host/membw_probe.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "base/units.hpp"
#include "kernels/host/mapped_array.hpp"
#include "kernels/host/thread_team.hpp"

namespace mlbench::hostmem {
namespace {

// Chunk boundaries on 2 MiB (one transparent huge page) when chunks are large, so that no page is
// first-touched by two threads; 4 KiB otherwise, which keeps vector stores aligned.
constexpr std::size_t kHugeAlign = (2u << 20) / sizeof(double);
constexpr std::size_t kPageAlign = 4096 / sizeof(double);
// The default working set never takes more than this share of the memory still available.
constexpr double kMaxMemoryShare = 0.5;
// The ETA assumes this bandwidth; measure() honours the real deadline whatever it is.
constexpr double kAssumedBandwidth = 10e9;
constexpr double kFirstTouchRate = 1e9;  // B/s per thread

const std::vector<std::string>& allowed_keys() {
  static const std::vector<std::string> keys{"threads", "size", "kernels", "numa", "stores", "isa"};
  return keys;
}

std::vector<std::string> split_names(const Json& v) {
  std::vector<std::string> out;
  auto add = [&out](const std::string& s) {
    std::size_t start = 0;
    while (start <= s.size()) {
      auto end = s.find(',', start);
      if (end == std::string::npos) end = s.size();
      if (end > start) out.push_back(s.substr(start, end - start));
      start = end + 1;
    }
  };
  if (v.is_string()) {
    add(v.get<std::string>());
  } else if (v.is_array()) {
    for (const auto& e : v) {
      if (!e.is_string()) throw UsageError("kernels must be names (copy, scale, add, triad)");
      add(e.get<std::string>());
    }
  } else {
    throw UsageError("kernels must be a list or a comma-separated string of copy, scale, add, triad");
  }
  return out;
}

std::vector<int> process_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  MLBENCH_CHECK_SYS(sched_getaffinity(0, sizeof(set), &set));
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  return cpus;
}

std::string_view to_string(Stores s) {
  switch (s) {
    case Stores::automatic:
      return "auto";
    case Stores::non_temporal:
      return "nt";
    case Stores::regular:
      return "regular";
  }
  return "auto";
}

class MembwProbe final : public Probe {
 public:
  ProbeInfo info() const override {
    return {std::string(kProbeId), "Host memory bandwidth: STREAM copy/scale/add/triad, NUMA first-touch",
            "any CPU"};
  }

  std::optional<std::string> unavailable(const Json&) const override { return std::nullopt; }

  std::vector<Case> plan(const PlanContext& ctx) const override {
    auto opts = parse_membw_options(ctx.options);
    auto allowed = process_cpus();
    auto cpus = place_threads(ctx.host, allowed, opts.threads.value_or(0));
    if (cpus.empty()) throw Error("no CPU in this process's affinity mask");

    std::vector<std::string> warnings;
    if (opts.threads && static_cast<std::size_t>(*opts.threads) > allowed.size()) {
      warnings.push_back(fmt::format(
          "--threads {} is more than the {} CPUs this process may use: threads share CPUs, which lowers the "
          "bandwidth and makes it vary",
          *opts.threads, allowed.size()));
    }
    auto llc = llc_size(ctx.host);
    std::uint64_t array_bytes = 0;
    const Json& mem = ctx.host.value("memory", Json::object());
    std::optional<double> available;
    if (mem.contains("available_bytes")) available = mem["available_bytes"].get<double>();
    if (opts.size_bytes) {
      array_bytes = *opts.size_bytes / 3;
      if (available && 3.0 * static_cast<double>(array_bytes) > 0.9 * *available) {
        throw UsageError(
            fmt::format("--size {} does not fit in the {} of memory available; use a "
                        "smaller --size",
                        format_bytes(static_cast<double>(*opts.size_bytes)), format_bytes(*available)));
      }
      if (llc && array_bytes < 4 * llc->bytes) {
        warnings.push_back(fmt::format(
            "each array ({}) is smaller than 4x the last-level caches ({}): the "
            "result includes cache bandwidth",
            format_bytes(static_cast<double>(array_bytes)), format_bytes(static_cast<double>(llc->bytes))));
      }
    } else {
      array_bytes = default_array_bytes(llc ? llc->bytes : 0);
      if (!llc) {
        warnings.push_back(
            "last-level cache size unknown: arrays use the 64 MiB minimum, which a large cache "
            "may hold; pass --size");
      }
      if (available && 3.0 * static_cast<double>(array_bytes) > kMaxMemoryShare * *available) {
        array_bytes = static_cast<std::uint64_t>(kMaxMemoryShare * *available / 3.0) & ~((2ULL << 20) - 1);
        warnings.push_back(fmt::format("arrays shrunk to {} each to fit in half of the available memory",
                                       format_bytes(static_cast<double>(array_bytes))));
      }
    }
    std::uint64_t elements = array_bytes / sizeof(double);
    if (elements < kPageAlign * cpus.size()) {
      throw UsageError(fmt::format("--size {} is too small for {} threads; use at least {}", 3 * array_bytes,
                                   cpus.size(), 3 * kPageAlign * sizeof(double) * cpus.size()));
    }
    Isa isa = opts.isa.value_or(best_isa());
    bool non_temporal = opts.stores == Stores::non_temporal ||
                        (opts.stores == Stores::automatic && (!llc || array_bytes >= llc->bytes));

    auto policy = membw_policy(ctx.profile);
    double bytes_per_pass = 0;
    Json kernels = Json::array();
    for (Kernel k : opts.kernels) {
      kernels.push_back(kernel_spec(k).name);
      bytes_per_pass += static_cast<double>(kernel_spec(k).bytes_per_element) * static_cast<double>(elements);
    }
    double passes = policy.warmup_iters + policy.min_samples;
    // First touch faults in and zeroes every page (page-fault bound, ~1 GB/s per thread), then the passes.
    double first_touch_s =
        3.0 * static_cast<double>(array_bytes) / (kFirstTouchRate * static_cast<double>(cpus.size()));
    double estimate = first_touch_s + std::max(policy.min_time_s * static_cast<double>(opts.kernels.size()),
                                               passes * bytes_per_pass / kAssumedBandwidth);

    Case c;
    c.label = fmt::format("{} threads, 3 x {}", cpus.size(), format_bytes(static_cast<double>(array_bytes)));
    c.params = Json{{"threads", cpus.size()}, {"array_bytes", elements * sizeof(double)}};
    c.config = Json{{"cpus", cpus},
                    {"kernels", kernels},
                    {"numa", opts.numa},
                    {"stores", non_temporal ? "nt" : "regular"},
                    {"stores_option", to_string(opts.stores)},
                    {"isa", to_string(isa)},
                    {"elements", elements},
                    {"warnings", warnings},
                    {"policy", Json{{"warmup_iters", policy.warmup_iters},
                                    {"warmup_s", policy.warmup_s},
                                    {"min_samples", policy.min_samples},
                                    {"max_samples", policy.max_samples},
                                    {"min_time_s", policy.min_time_s},
                                    {"max_time_s", policy.max_time_s}}}};
    if (llc) c.config["llc"] = Json{{"bytes", llc->bytes}, {"source", llc->source}};
    c.estimate_s = estimate;
    return {c};
  }

  std::vector<Result> run(const Case& c, RunContext& ctx) override {
    auto cpus = c.config.at("cpus").get<std::vector<int>>();
    auto elements = c.config.at("elements").get<std::size_t>();
    bool numa = c.config.at("numa").get<bool>();
    bool non_temporal = c.config.at("stores").get<std::string>() == "nt";
    std::string isa_name = c.config.at("isa").get<std::string>();
    Isa isa = Isa::scalar;
    for (Isa i : {Isa::avx512, Isa::avx2, Isa::sse2, Isa::scalar}) {
      if (to_string(i) == isa_name) isa = i;
    }
    ChunkFn fn = chunk_fn(isa);
    std::vector<Kernel> kernels;
    for (const auto& k : c.config.at("kernels")) kernels.push_back(*kernel_from_name(k.get<std::string>()));

    std::array<MappedArray, 3> arrays{MappedArray(elements), MappedArray(elements), MappedArray(elements)};
    double* a = arrays[0].data();
    double* b = arrays[1].data();
    double* cc = arrays[2].data();
    std::size_t align = elements / cpus.size() >= 4 * kHugeAlign ? kHugeAlign : kPageAlign;
    auto chunks = partition(elements, static_cast<int>(cpus.size()), align);
    ThreadTeam team(cpus, numa);

    ArrayState state;
    auto init_range = [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) {
        a[i] = state.arrays[0].at(i);
        b[i] = state.arrays[1].at(i);
        cc[i] = state.arrays[2].at(i);
      }
    };
    if (numa) {
      team.run([&](int t) { init_range(chunks[t].begin, chunks[t].end); });
    } else {
      team.run([&](int t) {
        if (t == 0) init_range(0, elements);
      });
    }

    std::vector<std::string> warnings = c.config.value("warnings", std::vector<std::string>{});
    if (!arrays[0].huge_page_note().empty()) warnings.push_back(arrays[0].huge_page_note());
    const Json& cpu = ctx.host.value("cpu", Json::object());
    if (cpu.contains("governor") && cpu["governor"] != "performance") {
      warnings.push_back(
          fmt::format("CPU governor is '{}', not 'performance'", cpu["governor"].get<std::string>()));
    }
    std::optional<double> peak;
    const Json& mem = ctx.host.value("memory", Json::object());
    if (mem.contains("theoretical_bandwidth")) peak = mem["theoretical_bandwidth"].get<double>();
    Json nodes = Json::array();
    for (int cpu_id : cpus) {
      int node = node_of_cpu(ctx.host, cpu_id);
      if (std::find(nodes.begin(), nodes.end(), node) == nodes.end()) nodes.push_back(node);
    }

    const Json& pj = c.config.at("policy");
    MeasurePolicy policy{pj.at("warmup_iters").get<int>(),  pj.at("warmup_s").get<double>(),
                         pj.at("min_samples").get<int>(),   pj.at("max_samples").get<int>(),
                         pj.at("min_time_s").get<double>(), pj.at("max_time_s").get<double>()};
    std::vector<Result> results;
    for (Kernel k : kernels) {
      const auto& spec = kernel_spec(k);
      auto samples = measure(
          policy,
          [&] {
            return team.run_timed([&](int t) {
              auto [begin, end] = chunks[static_cast<std::size_t>(t)];
              fn(k, a + begin, b + begin, cc + begin, end - begin, kScalar, non_temporal);
            });
          },
          ctx);
      state = apply(k, state);
      Result r = ctx.make_result(kProbeId, c);
      r.params["kernel"] = spec.name;
      double bytes = static_cast<double>(spec.bytes_per_element) * static_cast<double>(elements);
      r.work = Json{{"bytes", bytes}};
      r.samples = samples;
      Metric bw = rate_metric("bandwidth", bytes, samples, "B/s");
      r.metrics.push_back(bw);
      if (peak && *peak > 0) r.add_metric("pct_of_peak", 100.0 * bw.value / *peak, "%");
      r.warnings = warnings;
      r.info = Json{{"formula", spec.formula},
                    {"bytes_per_element", spec.bytes_per_element},
                    {"elements", elements},
                    {"isa", isa_name},
                    {"stores", non_temporal ? "nt" : "regular"},
                    {"cpus", cpus},
                    {"numa_first_touch", numa},
                    {"numa_nodes", nodes}};
      if (c.config.contains("llc")) r.info["llc"] = c.config["llc"];
      if (peak) r.info["theoretical_bandwidth"] = *peak;

      auto mismatch = verify(team, chunks, arrays[static_cast<std::size_t>(spec.destination)].data(),
                             state.arrays[static_cast<std::size_t>(spec.destination)]);
      r.info["verified_elements"] = elements;
      if (mismatch.count > 0) {
        r.status = Status::incorrect;
        r.reason = fmt::format(
            "{} of {} elements of the {} output differ from the expected value (first at {}: "
            "got {}, expected {})",
            mismatch.count, elements, spec.name, mismatch.first, mismatch.got, mismatch.want);
      }
      results.push_back(std::move(r));
    }
    return results;
  }

 private:
  static Mismatch verify(ThreadTeam& team, const std::vector<Chunk>& chunks, const double* out,
                         const Affine& want) {
    std::vector<Mismatch> per_thread(chunks.size());
    team.run([&](int t) {
      per_thread[static_cast<std::size_t>(t)] = check_chunk(out, chunks[static_cast<std::size_t>(t)], want);
    });
    return merge(per_thread);
  }
};

}  // namespace

MembwOptions parse_membw_options(const Json& options) {
  MembwOptions o;
  if (options.is_null()) {
    for (const auto& s : kKernels) o.kernels.push_back(s.kernel);
    return o;
  }
  if (!options.is_object()) throw UsageError("options must be a mapping");
  for (const auto& [key, _] : options.items()) {
    const auto& keys = allowed_keys();
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
      throw UsageError(
          fmt::format("unknown option '{}' (allowed: threads, size, kernels, numa, "
                      "stores, isa)",
                      key));
    }
  }
  if (options.contains("threads")) {
    const auto& t = options["threads"];
    if (!t.is_number_integer() || t.get<long long>() < 1 || t.get<long long>() > 4096) {
      throw UsageError("threads must be an integer from 1 to 4096");
    }
    o.threads = t.get<int>();
  }
  if (options.contains("size")) {
    const auto& s = options["size"];
    std::uint64_t bytes = 0;
    if (s.is_string()) {
      bytes = parse_size(s.get<std::string>(), "--size");
    } else if (s.is_number_integer() && s.get<long long>() > 0) {
      bytes = s.get<std::uint64_t>();
    } else {
      throw UsageError("size must be a positive byte count such as 6G");
    }
    if (bytes == 0) throw UsageError("size must be a positive byte count such as 6G");
    o.size_bytes = bytes;
  }
  std::vector<bool> wanted(kKernels.size(), !options.contains("kernels"));
  if (options.contains("kernels")) {
    for (const auto& name : split_names(options["kernels"])) {
      auto k = kernel_from_name(name);
      if (!k) {
        throw UsageError(fmt::format("unknown kernel '{}' (use copy, scale, add, triad)", name));
      }
      wanted[static_cast<std::size_t>(*k)] = true;  // Kernel's values index kKernels
    }
  }
  for (std::size_t i = 0; i < kKernels.size(); ++i) {
    if (wanted[i]) o.kernels.push_back(kKernels[i].kernel);
  }
  if (o.kernels.empty()) throw UsageError("no kernel selected (use copy, scale, add, triad)");
  if (options.contains("numa")) {
    if (!options["numa"].is_boolean()) throw UsageError("numa must be true or false");
    o.numa = options["numa"].get<bool>();
  }
  if (options.contains("stores")) {
    auto s = options["stores"].is_string() ? options["stores"].get<std::string>() : "";
    if (s == "auto") {
      o.stores = Stores::automatic;
    } else if (s == "nt") {
      o.stores = Stores::non_temporal;
    } else if (s == "regular") {
      o.stores = Stores::regular;
    } else {
      throw UsageError("stores must be auto, nt or regular");
    }
  }
  if (options.contains("isa")) {
    auto s = options["isa"].is_string() ? options["isa"].get<std::string>() : "";
    if (s != "auto") {
      std::optional<Isa> isa;
      for (Isa i : {Isa::avx512, Isa::avx2, Isa::sse2, Isa::scalar}) {
        if (to_string(i) == s) isa = i;
      }
      if (!isa) throw UsageError("isa must be auto, avx512, avx2, sse2 or scalar");
      if (!isa_supported(*isa)) {
        throw UsageError(fmt::format("this CPU cannot run isa {}; use auto", s));
      }
      o.isa = isa;
    }
  }
  return o;
}

MeasurePolicy membw_policy(Profile profile) {
  MeasurePolicy p;
  switch (profile) {
    case Profile::quick:
      p.warmup_iters = 1;
      p.min_samples = 5;
      p.min_time_s = 0.0;
      p.max_time_s = 3.0;
      break;
    case Profile::standard:
      p.warmup_iters = 2;
      p.min_samples = 20;
      p.min_time_s = 1.0;
      p.max_time_s = 15.0;
      break;
    case Profile::full:
      p.warmup_iters = 3;
      p.min_samples = 50;
      p.min_time_s = 3.0;
      p.max_time_s = 60.0;
      break;
  }
  return p;
}

std::optional<LlcSize> llc_size(const Json& host) {
  const Json& cpu = host.value("cpu", Json::object());
  if (cpu.contains("llc_total_bytes")) return LlcSize{cpu["llc_total_bytes"].get<std::uint64_t>(), "sysfs"};
  if (cpu.contains("llc_bytes")) {
    // One instance: assume one per socket when the sharing is unknown.
    auto sockets = cpu.value("sockets", std::uint64_t{1});
    return LlcSize{cpu["llc_bytes"].get<std::uint64_t>() * sockets, "sysfs"};
  }
  // No cache description in sysfs (some VMs): the C library reads CPUID. It reports one instance.
  long l3 = ::sysconf(_SC_LEVEL3_CACHE_SIZE);
  long l2 = ::sysconf(_SC_LEVEL2_CACHE_SIZE);
  long one = l3 > 0 ? l3 : l2;
  if (one <= 0) return std::nullopt;
  auto sockets = cpu.value("sockets", std::uint64_t{1});
  return LlcSize{static_cast<std::uint64_t>(one) * sockets, "cpuid"};
}

std::unique_ptr<Probe> make_membw_probe() { return std::make_unique<MembwProbe>(); }

}  // namespace mlbench::hostmem
