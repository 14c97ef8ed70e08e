// The hardware catalog the sizing engine composes nodes and fabrics from (configs/hardware/*.yaml): GPUs (the
// shared bench/gpu_catalog), CPUs, NVMe drives, NICs, switches, node templates, cooling and prices.
//
// Everything is converted to SI on load (B, B/s, W, bit/s); every entry is validated and a bad file fails
// with a UsageError naming the file, entry and field. Names are looked up case-insensitively; an unknown name
// fails with the closest known one suggested.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/gpu_catalog.hpp"

namespace mlbench::sizing {

struct CpuSpec {
  std::string name, vendor;
  int cores = 0, threads = 0;
  double base_ghz = 0;
  int memory_channels = 0;
  double memory_mts = 0;
  double tdp_w = 0;
  int pcie_gen = 0;
  int pcie_lanes = 0;     // root lanes of one socket in a one-socket system
  int pcie_lanes_2p = 0;  // per socket in a two-socket system (EPYC gives lanes to xGMI)
  int lanes(int sockets) const { return sockets * (sockets > 1 ? pcie_lanes_2p : pcie_lanes); }
  // channels x MT/s x 8 B per socket.
  double memory_bandwidth() const { return memory_channels * memory_mts * 1e6 * 8; }
};

struct DriveSpec {
  std::string name, interface;       // "PCIe Gen4 x4"
  double read_bw = 0, write_bw = 0;  // B/s
  double read_iops = 0, write_iops = 0;
  double capacity_bytes = 0;
  double power_w = 0;
  int pcie_gen = 0, lanes = 0;  // from the interface
};

// PCIe payload bandwidth of one lane per direction (128b/130b encoding): Gen3 0.985, Gen4 1.969, Gen5
// 3.938 GB/s; 0 for another generation.
double pcie_lane_bytes_per_s(int gen);

struct NicSpec {
  std::string name, kind;
  double bits_per_s = 0;  // per port
  int ports = 1;
  double power_w = 0;
  double bytes_per_s() const { return bits_per_s * ports / 8; }
};

struct SwitchSpec {
  std::string name, kind;
  int radix = 0;
  double port_bits_per_s = 0;
  double power_w = 0;
};

// A cooling option (configs/hardware/cooling.yaml): the lab's sustained GPU power and training stability,
// the PUE and the rack power, each figure with its source.
struct CoolingSpec {
  std::string name;
  double gpu_w = 0;             // sustained A100 power in the source's comparison
  double gpu_power_factor = 1;  // gpu_w / the reference option's gpu_w: sustained GPU power / TDP
  double stability = 1;         // share of training days without an interruption
  std::string figures_source;   // of gpu_w and stability
  double pue = 1.4;
  std::string pue_source;
  double rack_w = 40e3;
};

struct NodeTemplate {
  std::string name, description;
  std::string gpu, cpu, drive, nic, switch_name, cooling;
  std::string front_end_nic, front_end_switch;  // the catalog's default when the template names none
  int gpus = 0, gpu_domain = 0, sockets = 0, drives = 0, nics = 0, rack_units = 0;
  double ram_bytes = 0;
  double other_w = 0;
};

// Prices by catalog name (nodes, switches, "cable"), storage per TB and energy; `example` marks the shipped
// illustrative figures.
struct Prices {
  bool example = true;
  std::string currency = "USD";
  std::string source;
  double energy_per_kwh = 0;
  double amortisation_years = 4;
  double storage_per_tb = 0;
  std::map<std::string, double> items;
  std::optional<double> item(std::string_view name) const;
};

class HardwareCatalog {
 public:
  std::vector<GpuSpec> gpus;
  std::vector<CpuSpec> cpus;
  std::vector<DriveSpec> drives;
  std::vector<NicSpec> nics;
  std::vector<SwitchSpec> switches;
  std::vector<NodeTemplate> nodes;
  std::vector<CoolingSpec> cooling;
  std::string reference_cooling;  // the option the engine's goodput was measured with
  std::string default_node;
  Prices prices;

  // By name, case-insensitive; UsageError "unknown <kind> 'X' (closest: 'Y'; known: ...)" otherwise.
  const GpuSpec& gpu(std::string_view name) const;
  const CpuSpec& cpu(std::string_view name) const;
  const DriveSpec& drive(std::string_view name) const;
  const NicSpec& nic(std::string_view name) const;
  const SwitchSpec& switch_spec(std::string_view name) const;
  const NodeTemplate& node(std::string_view name) const;
  const CoolingSpec& cooling_spec(std::string_view name) const;
};

// Loads dir/{gpus,cpus,drives,nics,switches,nodes,cooling,prices}.yaml and checks every cross-reference.
// A drive's interface must read "PCIe Gen<g> x<lanes>".
HardwareCatalog load_hardware_catalog(const std::filesystem::path& dir);
// Prices alone (the --prices FILE override).
Prices load_prices(const std::filesystem::path& path);

// The candidate with the smallest case-insensitive edit distance to `name`.
std::string closest_name(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace mlbench::sizing
