// gpu.copy: host↔device and peer-to-peer copy bandwidth.
//
// H2D, D2H and bidirectional (both directions issued on two streams; at once for pinned memory only, see the
// pageable bidir warning in run_host), pinned (cudaHostRegister'd memory first touched by a thread bound to
// the GPU's NUMA node) and pageable, through the copy engines (cudaMemcpyAsync, path=copy_engine) or an SM
// kernel reading/writing mapped pinned memory (path=sm_kernel); per GPU, all selected GPUs at once (host wall
// clock around concurrent copies, the data-loader case), and a peer matrix (cudaMemcpyPeerAsync, one way and
// both ways per pair) when ≥ 2 GPUs. bandwidth = bytes / t (bidirectional counts both directions). Pinned
// single-GPU copies are timed with CUDA events, pageable and multi-GPU ones with the host clock around a
// synchronised loop. Buffers ≥ 256 MiB; ≥ 20 samples of ~30 ms. % of peak is against the PCIe link at its
// maximum rate. The copied data is a hash pattern, checked word by word at the destination after the run.
#include <pthread.h>
#include <sched.h>

#include <chrono>
#include <optional>

#include <fmt/format.h>

#include "base/units.hpp"
#include "bench/host_view.hpp"
#include "bench/measure.hpp"
#include "kernels/gpu/copy_plan.hpp"
#include "kernels/gpu/cuda_util.hpp"
#include "kernels/gpu/gpu_kernels.hpp"
#include "kernels/gpu/launch_loop.hpp"
#include "kernels/gpu/probe_util.hpp"
#include "kernels/gpu/probes.hpp"
#include "kernels/gpu/verify.hpp"

namespace mlbench::gpu {
namespace {

constexpr std::uint64_t kSeedHost = 11, kSeedDevice = 12;

// Binds the calling thread to the CPUs of a NUMA node for the scope (first touch then places pages there).
class NumaScope {
 public:
  NumaScope(const Json& host, int device) {
    const HostView view(host);
    const auto& gpus = view.gpus;
    if (device >= static_cast<int>(gpus.size()) || !gpus[device].contains("numa_node")) return;
    node_ = gpus[device]["numa_node"].get<int>();
    if (node_ < 0) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    bool any = false;
    for (const auto& n : view.numa) {
      if (n.value("node", -1) != node_ || !n.contains("cpus")) continue;
      for (const auto& c : n["cpus"]) {
        CPU_SET(c.get<int>(), &set);
        any = true;
      }
    }
    if (!any) return;
    pthread_getaffinity_np(pthread_self(), sizeof old_, &old_);
    bound_ = pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
  }
  ~NumaScope() {
    if (bound_) pthread_setaffinity_np(pthread_self(), sizeof old_, &old_);
  }
  NumaScope(const NumaScope&) = delete;
  NumaScope& operator=(const NumaScope&) = delete;
  int node() const { return node_; }
  bool bound() const { return bound_; }

 private:
  cpu_set_t old_{};
  int node_ = -1;
  bool bound_ = false;
};

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Everything one GPU needs for a host copy case.
struct HostSide {
  int device;
  HostBuffer up, down;      // H2D source, D2H destination
  DeviceBuffer dup, ddown;  // H2D destination, D2H source
  Stream s1, s2;
  int grid;
};

HostSide make_side(const Json& host, int device, std::uint64_t bytes, bool pinned, bool up, bool down,
                   int sms, Json& info) {
  DeviceGuard guard(device);
  NumaScope numa(host, device);
  info["numa_node"] = numa.node();
  info["numa_bound"] = numa.bound();
  HostSide s{device,
             HostBuffer(up ? bytes : 0, pinned),
             HostBuffer(down ? bytes : 0, pinned),
             DeviceBuffer(up ? bytes : 0),
             DeviceBuffer(down ? bytes : 0),
             Stream(),
             Stream(),
             sms * 4};
  if (up) fill_pattern({s.up.as<std::uint64_t>(), bytes / 8}, kSeedHost);
  if (down) {
    MLBENCH_CHECK_CUDA(
        fill_pattern_device(s.ddown.as<std::uint64_t>(), bytes / 8, kSeedDevice, s.grid, s.s2.get()));
    s.s2.sync();
  }
  return s;
}

void* device_view(const HostBuffer& h) {
  void* p = nullptr;
  MLBENCH_CHECK_CUDA(cudaHostGetDevicePointer(&p, h.get(), 0));
  return p;
}

void issue(HostSide& s, CopyDirection dir, CopyPath path, std::uint64_t bytes) {
  const bool up = dir != CopyDirection::d2h, down = dir != CopyDirection::h2d;
  const int grid = dir == CopyDirection::bidir ? std::max(1, s.grid / 2) : s.grid;
  if (up) {
    if (path == CopyPath::copy_engine) {
      MLBENCH_CHECK_CUDA(cudaMemcpyAsync(s.dup.get(), s.up.get(), bytes, cudaMemcpyHostToDevice, s.s1.get()));
    } else {
      MLBENCH_CHECK_CUDA(sm_copy(s.dup.get(), device_view(s.up), bytes, grid, s.s1.get()));
    }
  }
  if (down) {
    if (path == CopyPath::copy_engine) {
      MLBENCH_CHECK_CUDA(
          cudaMemcpyAsync(s.down.get(), s.ddown.get(), bytes, cudaMemcpyDeviceToHost, s.s2.get()));
    } else {
      MLBENCH_CHECK_CUDA(sm_copy(device_view(s.down), s.ddown.get(), bytes, grid, s.s2.get()));
    }
  }
}

// Bad words at the destinations of a side after its copies.
std::vector<std::string> verify_side(HostSide& s, CopyDirection dir, std::uint64_t bytes) {
  std::vector<std::string> bad;
  DeviceGuard guard(s.device);
  if (dir != CopyDirection::d2h) {
    DeviceBuffer counter(sizeof(unsigned long long));
    MLBENCH_CHECK_CUDA(cudaMemsetAsync(counter.get(), 0, sizeof(unsigned long long), s.s1.get()));
    MLBENCH_CHECK_CUDA(count_pattern_mismatches_device(s.dup.as<std::uint64_t>(), bytes / 8, kSeedHost,
                                                       counter.as<unsigned long long>(), s.grid, s.s1.get()));
    unsigned long long wrong = 0;
    MLBENCH_CHECK_CUDA(
        cudaMemcpyAsync(&wrong, counter.get(), sizeof wrong, cudaMemcpyDeviceToHost, s.s1.get()));
    s.s1.sync();
    if (wrong) bad.push_back(fmt::format("GPU {}: {} words wrong after host-to-device", s.device, wrong));
  }
  if (dir != CopyDirection::h2d) {
    auto wrong = count_pattern_mismatches({s.down.as<std::uint64_t>(), bytes / 8}, kSeedDevice);
    if (wrong) bad.push_back(fmt::format("GPU {}: {} words wrong after device-to-host", s.device, wrong));
  }
  return bad;
}

// ~30 ms samples of at most 100 copies of a buffer of >= 256 MiB.
constexpr LoopTarget kCopyLoop{0.03, 100, 1};

MeasurePolicy copy_policy() {
  MeasurePolicy p;
  p.warmup_iters = 2;
  p.min_samples = 20;
  p.max_samples = 100;
  p.max_time_s = 10;
  return p;
}

class CopyProbe : public Probe {
 public:
  ProbeInfo info() const override { return copy_info(); }

  std::optional<std::string> unavailable(const Json& host) const override { return no_gpu_reason(host); }

  std::vector<Case> plan(const PlanContext& ctx) const override {
    auto facts = live_device_facts(ctx.host);
    std::vector<Case> out;
    for (const auto& cc : plan_copy(ctx.options, ctx.profile, facts, ctx.source)) {
      Case c;
      c.params = {{"kind", cc.kind}, {"direction", to_string(cc.direction)}, {"bytes", cc.bytes}};
      if (cc.kind == "p2p") {
        c.label = fmt::format("p2p matrix {} GPUs", cc.devices.size());
        c.params.erase("direction");
        c.estimate_s = 2.0 * static_cast<double>(cc.devices.size() * cc.devices.size());
      } else {
        c.params["memory"] = cc.pinned ? "pinned" : "pageable";
        c.params["path"] = to_string(cc.path);
        c.label = fmt::format("{} {} {} {}", to_string(cc.direction), c.params["memory"].get<std::string>(),
                              to_string(cc.path),
                              cc.kind == "all" ? "all GPUs" : fmt::format("GPU{}", cc.devices[0]));
        c.estimate_s = 2.5;
      }
      if (cc.kind == "host") {
        add_device_params(c.params, facts.at(static_cast<std::size_t>(cc.devices[0])));
      } else {
        c.params["device"] = "all";
        c.params["devices"] = cc.devices;
        Json names = Json::array(), uuids = Json::array();
        for (int dv : cc.devices) {
          names.push_back(facts.at(static_cast<std::size_t>(dv)).name);
          uuids.push_back(facts.at(static_cast<std::size_t>(dv)).uuid);
        }
        c.params["device_name"] = names;
        c.params["uuid"] = uuids;
      }
      out.push_back(std::move(c));
    }
    return out;
  }

  std::vector<Result> run(const Case& c, RunContext& ctx) override {
    const std::string kind = c.params.at("kind");
    if (kind == "p2p") return run_p2p(c, ctx);
    return {run_host(c, ctx, kind == "all")};
  }

 private:
  Result run_host(const Case& c, RunContext& ctx, bool all) {
    Result r = ctx.make_result(info().id, c);
    const std::uint64_t bytes = c.params.at("bytes");
    const std::string dir_name = c.params.at("direction");
    const CopyDirection dir = dir_name == "h2d"   ? CopyDirection::h2d
                              : dir_name == "d2h" ? CopyDirection::d2h
                                                  : CopyDirection::bidir;
    const bool pinned = c.params.at("memory") == "pinned";
    const CopyPath path = c.params.at("path") == "copy_engine" ? CopyPath::copy_engine : CopyPath::sm_kernel;
    std::vector<int> devices = all ? c.params.at("devices").get<std::vector<int>>()
                                   : std::vector<int>{c.params.at("device").get<int>()};
    std::vector<HostSide> sides;
    Json per_device = Json::array();
    std::optional<double> link_peak = 0.0;  // summed over the devices; unknown when one device's is
    for (int dv : devices) {
      DeviceFacts d = device_facts(ctx.host, dv);
      Json dinfo{{"device", dv}};
      sides.push_back(make_side(ctx.host, dv, bytes, pinned, dir != CopyDirection::d2h,
                                dir != CopyDirection::h2d, d.sms, dinfo));
      const auto& g = HostView(ctx.host).gpus.at(static_cast<std::size_t>(dv));
      if (g.contains("pcie")) dinfo["pcie"] = g["pcie"];  // the link now and at its maximum
      const auto peak = pcie_peak(g);
      link_peak = link_peak && peak ? std::optional<double>(*link_peak + *peak) : std::nullopt;
      per_device.push_back(dinfo);
    }
    const bool events = pinned && !all;
    DeviceGuard first(devices[0]);  // events belong to the device whose streams record them
    Event start, stop, mid;
    auto timed = [&](int reps) {
      if (events) {
        auto& s = sides[0];
        DeviceGuard guard(s.device);
        start.record(s.s1.get());
        MLBENCH_CHECK_CUDA(cudaStreamWaitEvent(s.s2.get(), start.get(), 0));
        for (int i = 0; i < reps; ++i) issue(s, dir, path, bytes);
        mid.record(s.s2.get());
        MLBENCH_CHECK_CUDA(cudaStreamWaitEvent(s.s1.get(), mid.get(), 0));
        stop.record(s.s1.get());
        return elapsed_s(start, stop) / reps;
      }
      double t0 = now_s();
      for (int i = 0; i < reps; ++i) {
        for (auto& s : sides) {
          DeviceGuard guard(s.device);
          issue(s, dir, path, bytes);
        }
      }
      for (auto& s : sides) {
        s.s1.sync();
        s.s2.sync();
      }
      return (now_s() - t0) / reps;
    };
    const auto loop = time_launch_loop(timed, kCopyLoop, copy_policy(),
                                       all ? std::string() : device_facts(ctx.host, devices[0]).uuid, r, ctx);
    const auto& samples = loop.samples;
    const int reps = loop.launches_per_sample;

    const double per_device_bytes = static_cast<double>(bytes) * (dir == CopyDirection::bidir ? 2.0 : 1.0);
    const double total = per_device_bytes * static_cast<double>(devices.size());
    r.work = {{"bytes", total}};
    r.samples = samples;
    Metric bw = rate_metric("bandwidth", total, samples, "B/s");
    r.metrics.push_back(bw);
    if (link_peak && *link_peak > 0) {
      const double peak = *link_peak * (dir == CopyDirection::bidir ? 2.0 : 1.0);
      if (auto pct = pct_of(bw.value, peak))
        r.add_metric("pct_of_peak", *pct, "%").ci = proportional_ci(bw, *pct);
      r.info["peak_basis"] =
          "PCIe bandwidth per direction at the link's maximum rate (sysfs max_link_speed/max_link_width, "
          "else NVML's maximum generation/width; an idle link trains down), x2 for bidirectional";
      r.info["link_bandwidth"] = peak;
    } else {
      r.info["peak_basis"] = "none: the maximum rate of a GPU's PCIe link is not known";
    }
    if (!pinned && dir == CopyDirection::bidir) {
      r.info["directions_concurrent"] = false;
      r.warnings.push_back(
          "pageable bidir is not concurrent: one thread issues both directions, and a pageable "
          "cudaMemcpyAsync returns only once its data is staged (H2D) or has arrived (D2H), so the two "
          "mostly take turns; the figure is their combined rate, not duplex bandwidth (pinned bidir is "
          "concurrent)");
    }
    r.info["timing"] = events ? "CUDA events" : "host clock around synchronised copies";
    r.info["copies_per_sample"] = reps;
    r.info["devices"] = per_device;
    std::vector<std::string> bad;
    for (auto& s : sides) {
      for (auto& b : verify_side(s, dir, bytes)) bad.push_back(std::move(b));
    }
    r.info["verification"] = {{"words_per_buffer", bytes / 8}, {"bad", bad}};
    if (!bad.empty()) {
      r.status = Status::incorrect;
      r.reason = bad.front();
    }
    return r;
  }

  std::vector<Result> run_p2p(const Case& c, RunContext& ctx) {
    const std::uint64_t bytes = c.params.at("bytes");
    const auto devices = c.params.at("devices").get<std::vector<int>>();
    std::vector<DeviceBuffer> src, dst;
    std::vector<Stream> streams;
    for (int dv : devices) {
      DeviceGuard guard(dv);
      src.emplace_back(bytes);
      dst.emplace_back(bytes);
      streams.emplace_back();
      MLBENCH_CHECK_CUDA(fill_pattern_device(src.back().as<std::uint64_t>(), bytes / 8, dv + 100, 1024,
                                             streams.back().get()));
      streams.back().sync();
    }
    for (int i : devices) {
      for (int j : devices) {
        if (i == j) continue;
        int can = 0;
        MLBENCH_CHECK_CUDA(cudaDeviceCanAccessPeer(&can, i, j));
        if (!can) continue;
        DeviceGuard guard(i);
        cudaError_t rc = cudaDeviceEnablePeerAccess(j, 0);
        if (rc == cudaErrorPeerAccessAlreadyEnabled) {
          cudaGetLastError();
        } else {
          MLBENCH_CHECK_CUDA(rc);
        }
      }
    }
    std::vector<Result> out;
    const std::size_t nd = devices.size();
    for (std::size_t a = 0; a < nd; ++a) {
      for (std::size_t b = 0; b < nd; ++b) {
        if (a == b) continue;
        for (bool both : {false, true}) {
          if (both && b < a) continue;
          ctx.check_interrupted();
          const int i = devices[a], j = devices[b];
          Case pc = c;
          pc.params = {{"kind", "p2p"},  {"direction", both ? "bidir" : "uni"},
                       {"src", i},       {"dst", j},
                       {"bytes", bytes}, {"device", i},
                       {"peer", j}};
          DeviceFacts di = device_facts(ctx.host, i), dj = device_facts(ctx.host, j);
          pc.params["device_name"] = di.name;
          pc.params["uuid"] = di.uuid;
          pc.params["peer_uuid"] = dj.uuid;
          Result r = ctx.make_result(info().id, pc);
          int can = 0;
          MLBENCH_CHECK_CUDA(cudaDeviceCanAccessPeer(&can, i, j));
          r.info["peer_access"] = can != 0;
          std::optional<Event> start, mid, stop;
          {
            DeviceGuard gi(i);
            start.emplace();
            stop.emplace();
          }
          {
            DeviceGuard gj(j);
            mid.emplace();
          }
          auto timed = [&](int reps) {
            DeviceGuard guard(i);
            start->record(streams[a].get());
            MLBENCH_CHECK_CUDA(cudaStreamWaitEvent(streams[b].get(), start->get(), 0));
            for (int k = 0; k < reps; ++k) {
              MLBENCH_CHECK_CUDA(
                  cudaMemcpyPeerAsync(dst[b].get(), j, src[a].get(), i, bytes, streams[a].get()));
              if (both) {
                MLBENCH_CHECK_CUDA(
                    cudaMemcpyPeerAsync(dst[a].get(), i, src[b].get(), j, bytes, streams[b].get()));
              }
            }
            {
              DeviceGuard gj(j);
              mid->record(streams[b].get());
            }
            MLBENCH_CHECK_CUDA(cudaStreamWaitEvent(streams[a].get(), mid->get(), 0));
            stop->record(streams[a].get());
            return elapsed_s(*start, *stop) / reps;
          };
          const auto samples = time_launch_loop(timed, kCopyLoop, copy_policy(), "", r, ctx).samples;
          const double moved = static_cast<double>(bytes) * (both ? 2.0 : 1.0);
          r.work = {{"bytes", moved}};
          r.samples = samples;
          r.metrics.push_back(rate_metric("bandwidth", moved, samples, "B/s"));
          const GpuSpec* spec = catalog_entry(di, r);
          if (spec && can && spec->link.starts_with("NVLink")) {
            if (auto pct = pct_of(r.metrics[0].value, spec->link_bandwidth * (both ? 2.0 : 1.0))) {
              const auto ci = proportional_ci(r.metrics[0], *pct);
              r.add_metric("pct_of_peak", *pct, "%").ci = ci;
            }
          }
          std::vector<std::pair<std::size_t, std::size_t>> checks{{a, b}};
          if (both) checks.emplace_back(b, a);
          for (auto [from, to] : checks) {
            DeviceGuard guard(devices[to]);
            DeviceBuffer counter(sizeof(unsigned long long));
            MLBENCH_CHECK_CUDA(
                cudaMemsetAsync(counter.get(), 0, sizeof(unsigned long long), streams[to].get()));
            MLBENCH_CHECK_CUDA(
                count_pattern_mismatches_device(dst[to].as<std::uint64_t>(), bytes / 8, devices[from] + 100,
                                                counter.as<unsigned long long>(), 1024, streams[to].get()));
            unsigned long long wrong = 0;
            MLBENCH_CHECK_CUDA(cudaMemcpyAsync(&wrong, counter.get(), sizeof wrong, cudaMemcpyDeviceToHost,
                                               streams[to].get()));
            streams[to].sync();
            if (wrong) {
              r.status = Status::incorrect;
              r.reason = fmt::format("{} words wrong on GPU {} after the copy from GPU {}", wrong,
                                     devices[to], devices[from]);
            }
          }
          out.push_back(std::move(r));
        }
      }
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Probe> make_copy_probe() { return std::make_unique<CopyProbe>(); }

}  // namespace mlbench::gpu
