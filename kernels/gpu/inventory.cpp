// The GPU inventory provider (bench/sysinfo.hpp GpuInventoryFn) and the probes' shared run-time helpers.
#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <fmt/format.h>

#include "bench/sysinfo.hpp"
#include "kernels/gpu/copy_plan.hpp"
#include "kernels/gpu/cuda_util.hpp"
#include "kernels/gpu/driver_check.hpp"
#include "kernels/gpu/probe_util.hpp"
#include "kernels/gpu/probes.hpp"

namespace mlbench::gpu {
namespace {

std::string version_string(int v) { return fmt::format("{}.{}", v / 1000, (v % 1000) / 10); }

int attribute(cudaDeviceAttr attr, int device) {
  int v = 0;
  MLBENCH_CHECK_CUDA(cudaDeviceGetAttribute(&v, attr, device));
  return v;
}

Json one_device(int i, int runtime, int driver, Nvml* nvml, const SysReader& sys, Json& notes) {
  cudaDeviceProp p{};
  MLBENCH_CHECK_CUDA(cudaGetDeviceProperties(&p, i));
  Json g{{"index", i},
         {"name", p.name},
         {"uuid", format_uuid(p.uuid)},
         {"compute_capability", fmt::format("{}.{}", p.major, p.minor)},
         {"sms", p.multiProcessorCount},
         {"memory_bytes", static_cast<std::uint64_t>(p.totalGlobalMem)},
         {"sm_clock_hz", attribute(cudaDevAttrClockRate, i) * 1e3},
         {"memory_clock_hz", attribute(cudaDevAttrMemoryClockRate, i) * 1e3},
         {"bus_width_bits", attribute(cudaDevAttrGlobalMemoryBusWidth, i)},
         {"l2_bytes", attribute(cudaDevAttrL2CacheSize, i)},
         {"runtime_version", version_string(runtime)},
         {"driver_version", version_string(driver)},
         {"cublaslt_version", cublasLtGetVersion()}};
  char bus[32] = {};
  MLBENCH_CHECK_CUDA(cudaDeviceGetPCIBusId(bus, sizeof bus, i));
  std::string bus_id = bus;
  for (auto& ch : bus_id) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  // sysfs names devices with a 4-digit PCI domain; NVML-style ids carry 8.
  if (auto colon = bus_id.find(':'); colon == 8) bus_id = bus_id.substr(4);
  g["pci_bus_id"] = bus_id;
  std::filesystem::path dev = std::filesystem::path("/sys/bus/pci/devices") / bus_id;
  if (auto node = sys.read_int(dev / "numa_node")) g["numa_node"] = *node;
  // Current and maximum link both: an idle GPU's link often reads Gen1 until the GPU is loaded, so gpu.copy
  // takes its peak from the maximum (plan.cpp pcie_peak).
  if (auto link = pcie_link_info(sys, dev)) g["pcie"] = std::move(*link);
  if (nvml) {
    if (auto h = nvml->device_by_uuid(g["uuid"].get<std::string>())) {
      auto extra = nvml->inventory(*h);
      for (auto& [k, v] : extra.items()) {
        if (k == "pcie" && g.contains("pcie")) {
          for (auto& [pk, pv] : v.items()) g["pcie"][pk] = pv;
        } else {
          g[k] = v;
        }
      }
      if (auto d = nvml->driver_version(); !d.empty()) g["driver_version"] = d;
    } else {
      notes.push_back(fmt::format("gpus: NVML does not know GPU {} ({})", i, g["uuid"].get<std::string>()));
    }
  }
  return g;
}

}  // namespace

Json gpu_inventory(Json& notes) {
  Json gpus = Json::array();
  int count = 0;
  cudaError_t rc = cudaGetDeviceCount(&count);
  if (rc != cudaSuccess) {
    // Without any driver the runtime still says cudaErrorInsufficientDriver, which sends users to upgrade a
    // driver that is not there.
    if (auto missing = missing_driver_reason()) {
      notes.push_back(fmt::format("gpus: {}", *missing));
    } else {
      notes.push_back(
          fmt::format("gpus: cudaGetDeviceCount: {} ({})", cudaGetErrorName(rc), cudaGetErrorString(rc)));
    }
    cudaGetLastError();
    return gpus;
  }
  if (count == 0) {
    notes.push_back("gpus: the CUDA runtime sees no device");
    return gpus;
  }
  int runtime = 0, driver = 0;
  MLBENCH_CHECK_CUDA(cudaRuntimeGetVersion(&runtime));
  MLBENCH_CHECK_CUDA(cudaDriverGetVersion(&driver));
  std::string why;
  Nvml* nvml = Nvml::get(&why);
  if (!nvml) notes.push_back(fmt::format("gpus: {}; ECC, power limit and persistence mode left out", why));
  SysReader sys("/");
  for (int i = 0; i < count; ++i) {
    try {
      gpus.push_back(one_device(i, runtime, driver, nvml, sys, notes));
    } catch (const Error& e) {
      notes.push_back(fmt::format("gpus: GPU {} left out: {}", i, e.what()));
    }
  }
  return gpus;
}

std::vector<std::unique_ptr<Probe>> make_gpu_probes() {
  std::vector<std::unique_ptr<Probe>> out;
  out.push_back(make_gemm_probe());
  out.push_back(make_hbm_probe());
  out.push_back(make_copy_probe());
  out.push_back(make_conv_probe());
  return out;
}

DeviceFacts device_facts(const Json& host, int index) {
  auto all = device_facts_from_inventory(host);
  if (index < 0 || index >= static_cast<int>(all.size())) {
    throw Error(fmt::format("GPU {} is not in the inventory ({} GPUs)", index, all.size()));
  }
  DeviceFacts d = all[static_cast<std::size_t>(index)];
  DeviceGuard guard(d.index);
  std::size_t free = 0, total = 0;
  MLBENCH_CHECK_CUDA(cudaMemGetInfo(&free, &total));
  d.free_bytes = free;
  return d;
}

std::vector<DeviceFacts> live_device_facts(const Json& host) {
  std::vector<DeviceFacts> out;
  for (std::size_t i = 0; i < device_facts_from_inventory(host).size(); ++i) {
    out.push_back(device_facts(host, static_cast<int>(i)));
  }
  return out;
}

const GpuSpec* catalog_entry(const DeviceFacts& d, Result& r) {
  const GpuSpec* spec = match_gpu(gpu_catalog(), d.name, d.cc);
  if (!spec) {
    r.warnings.push_back(
        fmt::format("GPU '{}' (compute capability {}) is not in configs/hardware/gpus.yaml: no pct_of_peak",
                    d.name, d.cc));
  } else {
    r.info["catalog_entry"] = spec->name;
  }
  return spec;
}

void add_device_params(Json& params, const DeviceFacts& d) {
  params["device"] = d.index;
  params["device_name"] = d.name;
  params["uuid"] = d.uuid;
}

CaseTelemetry::CaseTelemetry(const std::string& uuid) {
  Nvml* nvml = Nvml::get(&unavailable_);
  if (!nvml) return;
  auto handle = nvml->device_by_uuid(uuid);
  if (!handle) {
    unavailable_ = fmt::format("NVML does not know {}", uuid);
    return;
  }
  Nvml::Device dev = *handle;
  sampler_ = std::make_unique<TelemetrySampler>([nvml, dev] { return nvml->sample(dev); });
  sampler_->start();
}

void CaseTelemetry::finish(Result& r) {
  if (!sampler_) {
    r.telemetry = Json{{"available", false}, {"reason", unavailable_}};
    return;
  }
  auto summary = summarize_telemetry(sampler_->stop());
  r.telemetry = std::move(summary.json);
  if (summary.warning) r.warnings.push_back(*summary.warning);
}

}  // namespace mlbench::gpu
