#include "sizing/plan_context.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "base/units.hpp"
#include "sizing/assumptions.hpp"

namespace mlbench::sizing::planning {

double Planner::local_bw(bool write) const {
  const Figure& f = write ? cal_.storage_write : cal_.storage_read;
  if (f.value > 0) return f.value;
  const auto& d = cat_.drive(node_->drive);
  return node_->drives * (write ? d.write_bw : d.read_bw) * assumption::kDriveEfficiency.value;
}

std::string Planner::tier(double read, double write) const {
  const auto& tiers = assumption::kStorageTiers;
  const auto* t = std::find_if(std::begin(tiers), std::end(tiers) - 1,
                               [&](const auto& x) { return read <= x.read && write <= x.write; });
  auto rates = fmt::format("{} tier ({:g}/{:g} GB/s per node)", t->name, t->read / 1e9, t->write / 1e9);
  return t == std::begin(tiers) ? rates + " suffices" : "needs the " + rates;
}

void Planner::add_storage(double ckpt, const Checkpointing& c, double dataset_bytes, double read_rate,
                          int nodes) {
  const auto& drive = cat_.drive(node_->drive);
  line("Storage", "Checkpoint size", ckpt / 1e9, "GB", "bf16 weights + fp32 master + Adam m, v",
       fmt::format("{:.0f} B/param x {:.3g} params", assumption::kCheckpointBytesPerParam.value,
                   ckpt / assumption::kCheckpointBytesPerParam.value),
       "-", "model");
  double write_need = ckpt / c.allowed_stall_s;
  line("Storage", "Shared write bandwidth", write_need * (1 + h_) / 1e9, "GB/s",
       "parallel file system, aggregate",
       fmt::format("checkpoint {} / allowed stall {:.0f} s = {}", format_bytes(ckpt), c.allowed_stall_s,
                   gbs(write_need)),
       plus_h(h_), "workload");
  double mtbf_h = assumption::kNodeMtbfHours.value / nodes;
  double young = std::sqrt(2 * c.allowed_stall_s * mtbf_h * 3600);
  line("Storage", "Checkpoint interval", c.interval_s / 3600, "hours",
       fmt::format("retention {} checkpoints", c.retention),
       fmt::format("Young/Daly optimum sqrt(2 x {:.0f} s x MTBF {:.1f} h) = {:.2f} h", c.allowed_stall_s,
                   mtbf_h, young / 3600),
       "-", "workload");
  double capacity = ckpt * c.retention + dataset_bytes;
  line("Storage", "Shared capacity", capacity * (1 + h_) / 1e12, "TB", "usable, after RAID/erasure coding",
       fmt::format("{} checkpoints x {} + dataset {}", c.retention, format_bytes(ckpt),
                   format_bytes(dataset_bytes)),
       plus_h(h_), "workload");
  line("Storage", "Shared read bandwidth", read_rate * (1 + h_) / 1e9, "GB/s", "aggregate training-data read",
       fmt::format("{} for the whole cluster = {:.3f} GB/s per GPU", gbs(read_rate),
                   read_rate / (nodes * facts_.gpus) / 1e9),
       plus_h(h_), "model");
  // Local NVMe stages this node's checkpoint shard (two copies) and caches its share of the data; RAID-0
  // stripes for bandwidth because everything on it can be re-fetched from shared storage.
  double node_write = ckpt / nodes / c.allowed_stall_s * (1 + h_);
  double node_read = read_rate / nodes * (1 + h_);
  double node_capacity = (2 * ckpt / nodes + std::min(dataset_bytes, dataset_bytes / nodes * 2)) * (1 + h_);
  double per_drive_w = drive.write_bw * assumption::kDriveEfficiency.value;
  double per_drive_r = drive.read_bw * assumption::kDriveEfficiency.value;
  int drives_needed =
      static_cast<int>(std::max({1.0, std::ceil(node_write / per_drive_w), std::ceil(node_read / per_drive_r),
                                 std::ceil(node_capacity / drive.capacity_bytes)}));
  line("Storage", "Local NVMe per node", drives_needed, "drives",
       fmt::format("{} ({}, {:.1f}/{:.1f} GB/s) in RAID-0; template has {}", drive.name, drive.interface,
                   drive.read_bw / 1e9, drive.write_bw / 1e9, node_->drives),
       fmt::format("max(write {} / {}, read {} / {}, capacity {} / {}) ; node storage {} ({} GB/s local "
                   "read/write available: {:.1f}/{:.1f})",
                   gbs(node_write), gbs(per_drive_w), gbs(node_read), gbs(per_drive_r),
                   format_bytes(node_capacity), format_bytes(drive.capacity_bytes),
                   tier(node_read, node_write), src(cal_.storage_read), local_bw(false) / 1e9,
                   local_bw(true) / 1e9),
       plus_h(h_), src(cal_.storage_write));
  if (drives_needed > node_->drives)
    sheet_.warnings.push_back(fmt::format("{} needs {} local drives per node but the {} template holds {}",
                                          req_.workload.name, drives_needed, node_->name, node_->drives));
  // As the table shows them: planned figures include the headroom.
  sheet_.figures["storage"] = {{"checkpoint_bytes", ckpt},
                               {"write_bytes_per_s", write_need * (1 + h_)},
                               {"capacity_bytes", capacity * (1 + h_)},
                               {"local_drives", drives_needed}};
}

void Planner::add_network(int nodes, double comm_share) {
  const auto& nic = cat_.nic(node_->nic);
  const auto& sw = cat_.switch_spec(node_->switch_name);
  line("Network", "Compute-fabric NICs", nodes * node_->nics, "NICs",
       fmt::format("{} {} ({:.0f} Gb/s)", nic.name, nic.kind, nic.bits_per_s / 1e9),
       fmt::format("{} per node = {:.2f} per GPU ({:.0f} Gb/s per GPU)", node_->nics,
                   static_cast<double>(node_->nics) / node_->gpus,
                   nic.bits_per_s * node_->nics / node_->gpus / 1e9),
       "-", "catalog");
  int ports_for = static_cast<int>(std::ceil(nodes * (1 + h_)));
  auto f = rail_optimised_fabric(nodes <= 1 ? 1 : ports_for, node_->nics, sw.radix);
  std::string drive =
      fmt::format("{} rails x ceil({} nodes / {} ports down per leaf)", f.rails, ports_for, sw.radix / 2);
  line("Network", "Leaf switches", f.leaves, "switches", fmt::format("{} radix {}", sw.name, sw.radix),
       nodes <= 1 ? "one node: no fabric" : drive, nodes <= 1 ? "-" : plus_h(h_) + " ports", "catalog");
  line("Network", "Spine switches", f.spines, "switches", fmt::format("{} radix {}", sw.name, sw.radix),
       nodes <= 1 ? "one node: no fabric"
                  : fmt::format("ceil({} leaves x {} uplinks / {})", f.leaves, sw.radix / 2, sw.radix),
       nodes <= 1 ? "-" : plus_h(h_) + " ports", "catalog");
  line("Network", "Cables/transceivers", f.cables, "links", "node-leaf + leaf-spine",
       fmt::format("{} node ports + {} uplinks", f.node_ports, f.leaves * (sw.radix / 2)), "-", "catalog");
  line("Network", "Exposed communication", comm_share, "fraction",
       fmt::format("budget {:.2f}", assumption::kCommBudget.value), "exposed communication time / step time",
       "-", src(cal_.network));
  if (comm_share > assumption::kCommBudget.value)
    sheet_.warnings.push_back(
        fmt::format("exposed communication is {:.0f} % of the step (budget {:.0f} %): "
                    "consider a faster fabric or a larger global batch",
                    100 * comm_share, 100 * assumption::kCommBudget.value));
  fabric_switches_ = f.leaves + f.spines;
  fabric_cables_ = f.cables;
  sheet_.figures["network"] = {{"leaves", f.leaves}, {"spines", f.spines}, {"nics", nodes * node_->nics}};
}

void Planner::add_power_host_cost(int nodes, double run_s, double ckpt, const std::string& per,
                                  double tokens) {
  const auto& cool = cat_.cooling_spec(node_->cooling);
  const auto& cpu = cat_.cpu(node_->cpu);
  const auto& sw = cat_.switch_spec(node_->switch_name);
  double node_w = node_nameplate_w(*node_, cat_);
  double switch_w = fabric_switches_ * sw.power_w;
  double it_w = nodes * node_w + switch_w;
  int per_rack = std::max(1, static_cast<int>(cool.rack_w / node_w));
  int racks = (nodes + per_rack - 1) / per_rack;
  double avg_w = nodes * node_w * assumption::kAveragePowerShare.value + switch_w;
  double mwh = avg_w * run_s / 3600 / 1e6 * cool.pue;
  line("Power", "Node power (nameplate)", node_w / 1e3, "kW",
       fmt::format("{} cooling, GPU power x {:.2f}", cool.name, cool.gpu_power_factor),
       fmt::format(
           "{} GPUs x {:.0f} W x {:.2f} + {} CPUs x {:.0f} W + DRAM {:.0f} GB x {} W + NICs + drives + "
           "{:.0f} W other",
           node_->gpus, facts_.gpu->tdp_w, cool.gpu_power_factor, node_->sockets, cpu.tdp_w,
           node_->ram_bytes / 1e9, assumption::kDramWattsPerGb.value, node_->other_w),
       "nameplate", "catalog");
  line("Power", "IT power", it_w / 1e3, "kW", "nodes + fabric switches",
       fmt::format("{} x {:.2f} kW + {} switches x {:.0f} W", nodes, node_w / 1e3, fabric_switches_,
                   sw.power_w),
       "nameplate", "catalog");
  line("Power", "Racks", racks, "racks", fmt::format("{:.0f} kW per rack ({})", cool.rack_w / 1e3, cool.name),
       fmt::format("ceil({} nodes / {} per rack)", nodes, per_rack), "nameplate per rack", "catalog");
  line("Power", "Energy", mwh, "MWh", per,
       fmt::format("{:.0f} kW average ({:.0f} % of nodes' nameplate) x {:.0f} h x PUE {:.2f}", avg_w / 1e3,
                   100 * assumption::kAveragePowerShare.value, run_s / 3600, cool.pue),
       "-", "assumed");

  double cores_needed = node_->gpus * cores_per_gpu(req_.workload.kind).value * (1 + h_);
  double cores_have = node_->sockets * cpu.cores;
  double ram_have = node_->ram_bytes;
  std::string ram_src = "catalog";
  if (node_is_measured_ && !req_.reports.empty()) {
    const auto& host = req_.reports.front().host;
    if (host.contains("memory") && host["memory"].contains("total_bytes")) {
      ram_have = host["memory"]["total_bytes"].get<double>();
      ram_src = "measured";
    }
  }
  line("Host", "CPU cores per node", cores_needed, "cores",
       fmt::format("{} x {} = {:.0f} cores", node_->sockets, cpu.name, cores_have),
       fmt::format("{} GPUs x {:.0f} cores per GPU ({})", node_->gpus,
                   cores_per_gpu(req_.workload.kind).value, req_.workload.kind),
       plus_h(h_), "assumed");
  if (cores_needed > cores_have)
    sheet_.warnings.push_back(
        fmt::format("{:.0f} CPU cores per node needed, the template has {:.0f}", cores_needed, cores_have));
  double ram_need =
      std::max(assumption::kHostRamPerHbm.value * node_->gpus * facts_.gpu->memory_bytes, ckpt / nodes * 2) *
      (1 + h_);
  line("Host", "Host RAM per node", ram_need / 1e9, "GB", fmt::format("{} installed", format_bytes(ram_have)),
       fmt::format("max({:.0f} x HBM of the node, 2 x checkpoint shard)", assumption::kHostRamPerHbm.value),
       plus_h(h_), ram_src);
  if (ram_need > ram_have)
    sheet_.warnings.push_back(fmt::format("host RAM: {} needed per node, {} installed",
                                          format_bytes(ram_need), format_bytes(ram_have)));
  double membw = node_->sockets * cpu.memory_bandwidth() * cal_.host_mem.value;
  line("Host", "Host memory bandwidth", membw / 1e9, "GB/s",
       fmt::format("{} sockets x {} ch x {:.0f} MT/s x 8 B", node_->sockets, cpu.memory_channels,
                   cpu.memory_mts),
       fmt::format("theoretical x {:.2f}", cal_.host_mem.value), "-", src(cal_.host_mem));

  add_cost(nodes, run_s, mwh, per, tokens);
  total("Nodes", nodes, "nodes", node_->name);
  total("GPUs", nodes * node_->gpus, "GPUs", facts_.gpu->name);
  total("IT power", it_w / 1e3, "kW", "nameplate");
  total("Racks", racks, "racks", cool.name);
  total("Energy", mwh, "MWh", per);
  sheet_.figures["power"] = {{"node_w", node_w}, {"it_w", it_w}, {"racks", racks}, {"mwh", mwh}};
}

void Planner::add_cost(int nodes, double run_s, double mwh, const std::string& per, double tokens) {
  std::string label = prices_.example ? "example price" : "prices file";
  auto node_price = prices_.item(node_->name);
  if (!node_price) {
    sheet_.warnings.push_back(
        fmt::format("no price for {}: cost lines left out (give --prices FILE)", node_->name));
    return;
  }
  const auto& sw = cat_.switch_spec(node_->switch_name);
  double switch_price = prices_.item(sw.name).value_or(0);
  double cable_price = prices_.item("cable").value_or(0);
  double storage_tb = 0;
  for (const auto& l : sheet_.lines)
    if (l.section == "Storage" && l.item == "Shared capacity") storage_tb = l.quantity;
  double capital = nodes * *node_price + fabric_switches_ * switch_price + fabric_cables_ * cable_price +
                   storage_tb * prices_.storage_per_tb;
  line("Cost", "Capital", capital, prices_.currency, label,
       fmt::format("{} nodes x {:.0f} + {} switches x {:.0f} + {} cables x {:.0f} + {:.1f} TB x {:.0f}",
                   nodes, *node_price, fabric_switches_, switch_price, fabric_cables_, cable_price,
                   storage_tb, prices_.storage_per_tb),
       "-", label);
  double energy_cost = mwh * 1000 * prices_.energy_per_kwh;
  line("Cost", "Energy cost", energy_cost, prices_.currency, per,
       fmt::format("{:.1f} MWh x {:.3f} {}/kWh", mwh, prices_.energy_per_kwh, prices_.currency), "-", label);
  double amortised = capital * run_s / (prices_.amortisation_years * kSecondsPerYear);
  line("Cost", tokens > 0 ? "Cost per year" : "Cost per run", amortised + energy_cost, prices_.currency, per,
       fmt::format("capital over {:.0f} years x {:.2f} years + energy", prices_.amortisation_years,
                   run_s / kSecondsPerYear),
       "-", label);
  if (tokens > 0)
    line("Cost", "Cost per million tokens", (amortised + energy_cost) / (tokens / 1e6), prices_.currency,
         "output tokens at the planned load",
         fmt::format("({:.0f} + {:.0f}) / {:.3g} M tokens", amortised, energy_cost, tokens / 1e6), "-",
         label);
  total("Capital", capital, prices_.currency, label);
  if (prices_.example)
    sheet_.warnings.push_back(
        "prices are the shipped EXAMPLES (configs/hardware/prices.yaml), not quotes: pass "
        "--prices FILE with real ones");
}

void Planner::add_assumptions() {
  auto fig = [&](std::string_view name, const Figure& f, bool fraction = true) {
    sheet_.assumptions.push_back(
        {std::string(name), fraction ? fmt::format("{:.3f}", f.value) : gbs(f.value), src(f), f.basis});
  };
  fig(assumption::kGemm16.name, cal_.gemm);
  fig(assumption::kHbm.name, cal_.hbm);
  fig(assumption::kNvlink.name, cal_.nvlink);
  fig(assumption::kNetwork.name, cal_.network);
  if (req_.workload.kind == "cv-training") fig(assumption::kConvModel.name, cal_.conv);
  if (cal_.storage_read.value > 0) fig("Local storage read", cal_.storage_read, false);
  if (cal_.storage_write.value > 0) fig("Local storage write", cal_.storage_write, false);
  fig(assumption::kHostMem.name, cal_.host_mem);
  for (const Assumption* a : engine_assumptions())
    if (a->kind.empty() || a->kind == req_.workload.kind)
      sheet_.assumptions.push_back(
          {std::string(a->name), format_quantity(a->listed()), "assumed", std::string(a->basis)});
  sheet_.assumptions.push_back(
      {"Headroom", format_quantity(h_), "assumed", "per resource, shown on each line"});
  sheet_.warnings.insert(sheet_.warnings.begin(), cal_.warnings.begin(), cal_.warnings.end());
}

}  // namespace mlbench::sizing::planning
