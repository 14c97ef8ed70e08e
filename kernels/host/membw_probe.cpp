#include "kernels/host/membw_probe.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "base/names.hpp"
#include "base/units.hpp"
#include "bench/host_view.hpp"
#include "kernels/host/mapped_array.hpp"
#include "kernels/host/thread_team.hpp"

namespace mlbench::hostmem {
namespace {

// Chunk boundaries on 2 MiB (one transparent huge page) when chunks are large, so that no page is
// first-touched by two threads; 4 KiB otherwise, which keeps vector stores aligned.
constexpr std::size_t kHugeAlign = (2u << 20) / sizeof(double);
constexpr std::size_t kPageAlign = 4096 / sizeof(double);
// The ETA assumes this bandwidth; measure() honours the real deadline whatever it is.
constexpr double kAssumedBandwidth = 10e9;
constexpr double kFirstTouchRate = 1e9;  // B/s per thread

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

// A virtual machine: x86 guests see the CPUID hypervisor bit as the `hypervisor` flag (host.cpu.flags).
bool on_hypervisor(const Json& host) {
  const Json& flags = HostView(host).cpu.value("flags", Json::array());
  return std::find(flags.begin(), flags.end(), "hypervisor") != flags.end();
}

constexpr EnumName<Stores> kStoresNames[] = {
    {Stores::automatic, "auto"}, {Stores::non_temporal, "nt"}, {Stores::regular, "regular"}};
static_assert(names_cover(kStoresNames));

// "auto" or an ISA this CPU may run; auto picks the widest.
constexpr std::string_view kAutoIsa = "auto";
constexpr Isa kIsas[] = {Isa::avx512, Isa::avx2, Isa::sse2, Isa::scalar};

// The params its results carry: the case's (plan) and the kernel each result measured (run).
constexpr std::string_view kParams[] = {"threads", "array_bytes", "kernel"};
constexpr std::string_view kMetrics[] = {"bandwidth", "pct_of_peak"};

constexpr OptionSpec kOptions[] = {
    {.name = "threads",
     .type = OptionType::integer,
     .def = "one per physical core",
     .min = 1,
     .max = 4096,
     .help = "Threads, pinned one per CPU"},
    {.name = "size",
     .type = OptionType::size,
     .def = "each array >= 1 GiB and >= 4x the last-level caches",
     .unit = "B",
     .min = 1,
     .help = "Total bytes of the three arrays, e.g. 6G"},
    {.name = "kernels",
     .type = OptionType::choices,
     .def = "copy,scale,add,triad",
     .choices =
         [] {
           std::vector<std::string_view> names;
           for (const auto& k : kKernels) names.push_back(k.name);
           return names;
         },
     .help = "Kernels to run (always in STREAM order)"},
    {.name = "numa",
     .type = OptionType::flag,
     .def = "true",
     .help = "Pin threads across NUMA nodes, each initialising its own chunk",
     .off_help = "Neither spread threads across NUMA nodes nor first-touch per node"},
    {.name = "stores",
     .type = OptionType::choice,
     .def = "auto",
     .choices = [] { return choices_of(kStoresNames); },
     .help = "Non-temporal (nt) or regular stores; auto: nt when the arrays exceed the last-level caches"},
    {.name = "isa",
     .type = OptionType::choice,
     .def = "auto",
     .choices =
         [] {
           std::vector<std::string_view> names{kAutoIsa};
           for (Isa i : kIsas) names.push_back(to_string(i));
           return names;
         },
     .help = "Vector width of the loops; auto: the widest this CPU supports"},
};

class MembwProbe final : public Probe {
 public:
  ProbeInfo info() const override {
    return {std::string(kProbeId),
            "Host memory bandwidth: STREAM copy/scale/add/triad, NUMA first-touch",
            "any CPU",
            kOptions,
            kParams,
            kMetrics};
  }

  std::optional<std::string> unavailable(const Json&) const override { return std::nullopt; }

  std::vector<Case> plan(const PlanContext& ctx) const override {
    auto opts = parse_membw_options(ctx.options, ctx.source);
    auto allowed = process_cpus();
    auto cpus = place_threads(ctx.host, allowed, opts.threads.value_or(0));
    if (cpus.empty()) throw Error("no CPU in this process's affinity mask");

    std::vector<std::string> warnings;
    if (opts.threads && static_cast<std::size_t>(*opts.threads) > allowed.size()) {
      warnings.push_back(fmt::format(
          "{} {} is more than the {} CPUs this process may use: threads share CPUs, which lowers the "
          "bandwidth and makes it vary",
          ctx.source.name("threads"), *opts.threads, allowed.size()));
    }
    auto llc = llc_size(ctx.host);
    const std::optional<double> available = available_memory(ctx.host);
    if (opts.size_bytes && available &&
        3.0 * static_cast<double>(*opts.size_bytes / 3) > kBufferMemoryShare * *available) {
      throw UsageError(fmt::format(
          "{0} {1} does not fit in the {2} of memory available; use a smaller {0}", ctx.source.name("size"),
          format_bytes(static_cast<double>(*opts.size_bytes)), format_bytes(*available)));
    }
    const bool hypervisor = on_hypervisor(ctx.host);
    auto sized = array_size(llc ? std::optional(llc->bytes) : std::nullopt, available, hypervisor,
                            opts.size_bytes ? std::optional(*opts.size_bytes / 3) : std::nullopt);
    const std::uint64_t array_bytes = sized.bytes;
    warnings.insert(warnings.end(), sized.warnings.begin(), sized.warnings.end());
    std::uint64_t elements = array_bytes / sizeof(double);
    if (elements < kPageAlign * cpus.size()) {
      throw UsageError(fmt::format("{} {} is too small for {} threads; use at least {}",
                                   ctx.source.name("size"), 3 * array_bytes, cpus.size(),
                                   3 * kPageAlign * sizeof(double) * cpus.size()));
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
                    {"stores_option", name_of(kStoresNames, opts.stores)},
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
    if (hypervisor) c.config["llc"]["hypervisor"] = true;
    c.estimate_s = estimate;
    return {c};
  }

  std::vector<Result> run(const Case& c, RunContext& ctx) override {
    auto cpus = c.config.at("cpus").get<std::vector<int>>();
    auto elements = c.config.at("elements").get<std::size_t>();
    bool numa = c.config.at("numa").get<bool>();
    bool non_temporal = c.config.at("stores").get<std::string>() == "nt";
    std::string isa_name = c.config.at("isa").get<std::string>();
    Isa isa = value_of(kIsaNames, isa_name).value_or(Isa::scalar);
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
    const HostView host(ctx.host);
    const Json& cpu = host.cpu;
    if (cpu.contains("governor") && cpu["governor"] != "performance") {
      warnings.push_back(
          fmt::format("CPU governor is '{}', not 'performance'", cpu["governor"].get<std::string>()));
    }
    const std::optional<double> peak = host.memory_theoretical_bandwidth;
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
      const double bytes = static_cast<double>(spec.bytes_per_element) * static_cast<double>(elements);
      auto samples = measure(
          policy,
          [&] {
            const double seconds = team.run_timed([&](int t) {
              auto [begin, end] = chunks[static_cast<std::size_t>(t)];
              fn(k, a + begin, b + begin, cc + begin, end - begin, kScalar, non_temporal);
            });
            const LiveMetric live[] = {{"bandwidth", bytes / seconds, "B/s"}};  // the console's live line
            ctx.report_live(live);
            return seconds;
          },
          ctx);
      state = apply(k, state);
      Result r = ctx.make_result(kProbeId, c);
      r.params["kernel"] = spec.name;
      r.work = Json{{"bytes", bytes}};
      r.samples = samples;
      Metric bw = rate_metric("bandwidth", bytes, samples, "B/s");
      r.metrics.push_back(bw);
      if (peak && *peak > 0) {
        const double pct = 100.0 * bw.value / *peak;
        r.add_metric("pct_of_peak", pct, "%").ci = proportional_ci(bw, pct);
      }
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

std::span<const OptionSpec> membw_options() { return kOptions; }

MembwOptions parse_membw_options(const Json& options, const OptionSource& source) {
  auto values = parse_options(kOptions, options, source);
  MembwOptions o;
  if (auto t = values.given<std::int64_t>("threads")) o.threads = static_cast<int>(*t);
  o.size_bytes = values.given<std::uint64_t>("size");
  auto kernels = values.get<std::vector<std::string>>("kernels");
  for (const auto& k : kKernels) {
    if (std::find(kernels.begin(), kernels.end(), k.name) != kernels.end()) o.kernels.push_back(k.kernel);
  }
  o.numa = values.get<bool>("numa");
  o.stores = *value_of(kStoresNames, values.get<std::string>("stores"));
  auto isa = values.get<std::string>("isa");
  if (auto i = value_of(kIsaNames, isa)) {
    if (!isa_supported(*i))
      throw UsageError(fmt::format("{} {}: this CPU cannot run it; use auto", values.name("isa"), isa));
    o.isa = *i;
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
  const Json& cpu = HostView(host).cpu;
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
