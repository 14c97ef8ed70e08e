// The sections every workload kind prints: storage (shared, checkpoints, the local NVMe RAID level chosen
// from the need, sizing/raid.hpp, and with a measured storage.dataload the drives that feed the node's GPUs),
// the network sized from the plan's traffic (sizing/fabric.hpp), power with the cooling option and its
// goodput, host, cost (priced lines with live workbook formulas) and the assumptions. Units on a line are one
// family: decimal bytes (GB, TB) beside GB quantities.
#include "sizing/plan_context.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include <fmt/ranges.h>

#include "bench/host_view.hpp"
#include "sizing/assumptions.hpp"
#include "sizing/fabric.hpp"
#include "sizing/raid.hpp"

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

namespace {

// The goodput with a cooling option: the engine's goodput (measured with the reference cooling) x (1 - lambda
// l) / (1 - lambda_ref l), lambda = -ln(stability) interruptions per day, l = the days one costs.
template <typename Num>
Num cooled_goodput(double base, double lambda, double lambda_ref, double lost_days) {
  auto g = named<Num>("goodput_ref", base, [](double v) { return fmt::format("goodput {:.2f}", v); });
  auto l = named<Num>("lambda", lambda, [](double v) { return fmt::format("{:.4f} interruptions/day", v); });
  auto r =
      named<Num>("lambda_ref", lambda_ref, [](double v) { return fmt::format("reference {:.4f}/day", v); });
  auto d = named<Num>("lost", lost_days, [](double v) { return fmt::format("{:.4f} days lost each", v); });
  return g * (1 - l * d) / (1 - r * d);
}

}  // namespace

double Planner::goodput(const Checkpointing& c) const {
  const auto& ref = cat_.cooling_spec(cat_.reference_cooling);
  double lost = (assumption::kRestartTime.value + c.interval_s / 2) / 86400;
  return cooled_goodput<double>(assumption::kGoodput.value, -std::log(cooling_->stability),
                                -std::log(ref.stability), lost);
}

void Planner::add_cooling(const Checkpointing& c) {
  const auto& ref = cat_.cooling_spec(cat_.reference_cooling);
  double lost = (assumption::kRestartTime.value + c.interval_s / 2) / 86400;
  double per_day = -std::log(cooling_->stability);
  auto g = cooled_goodput<Formula>(assumption::kGoodput.value, per_day, -std::log(ref.stability), lost);
  line({.section = "Power",
        .item = "Goodput with this cooling",
        .quantity = g,
        .unit = "fraction",
        .spec = fmt::format("{}: {:.1f} % training stability ({})", cooling_->name, 100 * cooling_->stability,
                            cooling_->figures_source),
        .driver = fmt::format(
            "{} = {:.4f}: the goodput measured with {} cooling; -ln(stability) interruptions per day, "
            "each losing a restart of {:.0f} min + half the {} checkpoint interval",
            g.shown(), g.value(), ref.name, assumption::kRestartTime.listed(), duration(c.interval_s)),
        .source = "assumed"});
  sheet_.figures["cooling"]["interruptions_per_day"] = per_day;
  sheet_.figures["cooling"]["goodput"] = g.value();
}

void Planner::add_storage(double ckpt, const Checkpointing& c, double dataset_bytes, double read_rate,
                          int nodes) {
  line({.section = "Storage",
        .item = "Checkpoint size",
        .quantity = ckpt / 1e9,
        .unit = "GB",
        .spec = "bf16 weights + fp32 master + Adam m, v",
        .driver = fmt::format("{:.0f} B/param x {:.3g} params", assumption::kCheckpointBytesPerParam.value,
                              ckpt / assumption::kCheckpointBytesPerParam.value),
        .source = "model"});
  double write_need = ckpt / c.allowed_stall_s;
  // A checkpoint figure the workload did not give is the engine's default, and the line says so.
  auto given = [](bool g, const char* key) {
    return g ? fmt::format("the workload's checkpoint.{}", key)
             : fmt::format("the default (the workload gives no checkpoint.{})", key);
  };
  const double write_planned = line(
      {.section = "Storage",
       .item = "Shared write bandwidth",
       .quantity = write_need,
       .per = 1e9,
       .unit = "GB/s",
       .spec = "parallel file system, aggregate",
       .driver = fmt::format("checkpoint {} / allowed stall {:.0f} s ({}) = {}", decimal_bytes(ckpt),
                             c.allowed_stall_s, given(c.stall_given, "allowed_stall_s"), gbs(write_need)),
       .planned = true,
       .source = c.stall_given ? "workload" : "assumed"});
  // Young/Daly: the interval that loses the least to checkpoint stalls (delta / tau) plus re-done work after
  // interruptions (tau / 2 MTBF).
  double mtbf_s = assumption::kNodeMtbfHours.value * 3600 / nodes;
  double young = std::sqrt(2 * c.allowed_stall_s * mtbf_s);
  auto waste = [&](double tau) { return c.allowed_stall_s / tau + tau / (2 * mtbf_s); };
  std::string why = "at the optimum";
  if (std::abs(c.interval_s - young) > 0.05 * young) {
    why = fmt::format(
        "{}, not the optimum: it loses {:.1f} % of the run to stalls and re-done work vs {:.1f} % at {:.2f} "
        "h",
        given(c.interval_given, "interval_h"), 100 * waste(c.interval_s), 100 * waste(young), young / 3600);
  }
  line({.section = "Storage",
        .item = "Checkpoint interval",
        .quantity = c.interval_s / 3600,
        .unit = "hours",
        .spec = fmt::format("retention {} checkpoints", c.retention),
        .driver =
            fmt::format("{}; Young/Daly optimum sqrt(2 x stall {:.0f} s x cluster MTBF {:.2f} h) = {:.2f} h",
                        why, c.allowed_stall_s, mtbf_s / 3600, young / 3600),
        .source = c.interval_given ? "workload" : "assumed"});
  double capacity = ckpt * c.retention + dataset_bytes;
  const double capacity_planned =
      line({.section = "Storage",
            .item = "Shared capacity",
            .quantity = capacity,
            .per = 1e12,
            .unit = "TB",
            .spec = "usable, after RAID/erasure coding",
            .driver = fmt::format("{} checkpoints ({}) x {} + dataset {}", c.retention,
                                  given(c.retention_given, "retention"), decimal_bytes(ckpt),
                                  decimal_bytes(dataset_bytes)),
            .planned = true,
            .source = c.retention_given ? "workload" : "assumed"});
  line({.section = "Storage",
        .item = "Shared read bandwidth",
        .quantity = read_rate,
        .per = 1e9,
        .unit = "GB/s",
        .spec = "aggregate training-data read",
        .driver = fmt::format("{} for the whole cluster = {:.3f} GB/s per GPU", gbs(read_rate),
                              read_rate / (nodes * facts_.gpus) / 1e9),
        .planned = true,
        .source = "model"});
  // Local NVMe stages this node's checkpoint shard (two copies) and caches its share of the data.
  add_local_raid(ckpt / nodes / c.allowed_stall_s, read_rate / nodes,
                 2 * ckpt / nodes + std::min(dataset_bytes, dataset_bytes / nodes * 2), c.survive_drive_loss);
  add_cooling(c);
  // As the table shows them: planned figures include the headroom.
  sheet_.figures["storage"] = {{"checkpoint_bytes", ckpt},
                               {"write_bytes_per_s", write_planned},
                               {"capacity_bytes", capacity_planned},
                               {"local_drives", sheet_.figures["raid"]["drives"]}};
}

void Planner::add_local_raid(double write_need, double read_need, double capacity_need,
                             bool survive_drive_loss) {
  const double write = with_headroom(write_need, h_), read = with_headroom(read_need, h_),
               capacity = with_headroom(capacity_need, h_);
  const auto& drive = cat_.drive(node_->drive);
  const double share = assumption::kDriveEfficiency.value;
  DriveFigures sheet_drive{
      drive.capacity_bytes,   drive.read_bw * share,
      drive.write_bw * share, drive.read_iops,
      drive.write_iops,       fmt::format("{} datasheet x {:.2f} sustained share", drive.name, share)};
  DriveFigures per_drive = sheet_drive;
  std::string source = "catalog";
  if (node_is_measured_)
    if (auto m = measured_drive(req_.reports, sheet_drive)) {
      per_drive = *m;
      source = "measured";
    }
  LocalNeed need{write, read, capacity, survive_drive_loss};
  // Up to twice the template's bays: beyond that no level fits the chassis.
  auto choice = choose_raid(need, per_drive, 2 * node_->drives);
  const RaidLevel& level = choice ? *choice->level : raid_level("RAID-0");
  int drives = choice ? choice->drives : 2 * node_->drives;
  auto chosen = raid_figures(level, drives, per_drive);
  std::string needs =
      fmt::format("write {} / read {} / capacity {}{}", gbs(write), gbs(read), decimal_bytes(capacity),
                  survive_drive_loss ? ", survive a drive loss" : "");
  line({.section = "Storage",
        .item = "Local NVMe per node",
        .quantity = drives,
        .unit = "drives",
        .spec = fmt::format("{} ({}, {:.1f}/{:.1f} GB/s) in {}; template has {}", drive.name, drive.interface,
                            drive.read_bw / 1e9, drive.write_bw / 1e9, level.name, node_->drives),
        .driver = fmt::format(
            "{} chosen for {}: fewest drives of the levels that meet it ({}), giving {} usable, {} "
            "read, {} write; per drive: {}; node storage {}",
            level.name, needs, level.formulas, decimal_bytes(chosen.usable), gbs(chosen.read),
            gbs(chosen.write), per_drive.basis, tier(read, write)),
        .headroom = headroom_shown(h_),
        .source = source});
  if (!choice)
    sheet_.warnings.push_back(fmt::format("local NVMe: no RAID level of up to {} {} drives meets {}",
                                          2 * node_->drives, drive.name, needs));
  else if (drives > node_->drives)
    sheet_.warnings.push_back(
        fmt::format("{} needs {} local drives per node in {} but the {} template holds {}",
                    req_.workload.name, drives, level.name, node_->name, node_->drives));

  // Each level at the template's drive count (the nearest count the level allows), so a reader can weigh a
  // quoted configuration against the same formulas.
  const auto& cpu = cat_.cpu(node_->cpu);
  int root_lanes = cpu.lanes(node_->sockets);
  int device_lanes = 16 * node_->gpus + 16 * node_->nics;
  Table t{fmt::format("Local NVMe RAID levels: {} x {} per node ({})", node_->drives, drive.name,
                      per_drive.basis),
          {"Level", "Drives", "Usable", "Read", "Write", "Random read", "Random write", "Rebuild", "Survives",
           "For this need", "Formulas and caveats"},
          {}};
  nlohmann::json levels = nlohmann::json::array();
  const auto striped = raid_figures(raid_level("RAID-0"), node_->drives, per_drive);
  for (const auto& l : raid_levels()) {
    int n = node_->drives;
    while (n > l.min_drives && !l.allows(n)) --n;
    if (!l.allows(n)) n = l.min_drives;
    auto f = raid_figures(l, n, per_drive);
    auto need_n = drives_for(l, need, per_drive, 4 * node_->drives);
    std::string caveat{l.formulas};
    if (l.write_penalty == 2 && l.max_drives == 0)
      caveat += fmt::format(
          "; the mirror halves capacity and writes vs striping the same drives ({} and {} "
          "of {} and {}): {} usable mirrored takes {} drives",
          decimal_bytes(f.usable), gbs(f.write), decimal_bytes(striped.usable), gbs(striped.write),
          decimal_bytes(striped.usable), 2 * node_->drives);
    if (l.write_penalty > 2)
      caveat += fmt::format("; each random write costs {} drive I/Os", l.write_penalty);
    if (l.tolerates == 0) caveat += "; losing a drive loses the staged checkpoint";
    t.rows.push_back(
        {Cell{std::string(l.name), l.name == level.name ? Tone::good : Tone::plain},
         Cell{std::to_string(n), Tone::plain, true, static_cast<double>(n), "drives"},
         Cell{decimal_bytes(f.usable), Tone::plain, true, f.usable, "B"},
         Cell{fmt::format("{:.1f} GB/s ({:.1f} rated)", f.read / 1e9, f.read / share / 1e9), Tone::plain,
              false, f.read, "B/s"},
         Cell{gbs(f.write), Tone::plain, true, f.write, "B/s"},
         Cell{fmt::format("{:.2f} M IOPS", f.read_iops / 1e6), Tone::plain, true, f.read_iops, "1/s"},
         Cell{fmt::format("{} k IOPS (/{})", with_separators(f.write_iops / 1e3), l.write_penalty),
              Tone::plain, true, f.write_iops, "1/s"},
         f.rebuild_s > 0 ? Cell{fmt::format("{:.1f} h at best", f.rebuild_s / 3600), Tone::plain, false,
                                f.rebuild_s / 3600, "h"}
                         : Cell{"none: lost"},
         Cell{fmt::format("{} drive{}", l.tolerates, l.tolerates == 1 ? "" : "s"), Tone::plain, false,
              static_cast<double>(l.tolerates), "drives"},
         need_n ? Cell{fmt::format("{} drives", *need_n), Tone::plain, false, static_cast<double>(*need_n),
                       "drives"}
                : Cell{"does not meet it"},
         Cell{caveat}});
    levels.push_back({{"level", l.name},
                      {"drives", n},
                      {"usable_bytes", f.usable},
                      {"read_bytes_per_s", f.read},
                      {"write_bytes_per_s", f.write},
                      {"read_iops", f.read_iops},
                      {"write_iops", f.write_iops},
                      {"rebuild_s", f.rebuild_s},
                      {"tolerates", l.tolerates},
                      {"drives_for_need", need_n ? nlohmann::json(*need_n) : nlohmann::json()}});
  }
  sheet_.tables.push_back(std::move(t));
  int drive_lanes = drives * drive.lanes;
  line({.section = "Storage",
        .item = "Local NVMe PCIe lanes",
        .quantity = drive_lanes,
        .unit = "lanes",
        .spec = fmt::format("{} x{} per drive, {:.1f} GB/s link each", drive.interface.substr(0, 9),
                            drive.lanes, drive.lanes * pcie_lane_bytes_per_s(drive.pcie_gen) / 1e9),
        .driver = fmt::format(
            "{} drives x {} lanes; the {} x {} give {} Gen{} root lanes, which {} GPUs x 16 + {} NICs x "
            "16 = {} lanes also need{}; Linux md rebuilds at most at sync_speed_max (200 MB/s unless "
            "raised)",
            drives, drive.lanes, node_->sockets, cpu.name, root_lanes, cpu.pcie_gen, node_->gpus, node_->nics,
            device_lanes,
            device_lanes + drive_lanes > root_lanes
                ? fmt::format(": {} lanes in all exceed them, so the drives sit behind PCIe switches and "
                              "share their uplinks with GPUs and NICs (the array gives less than the "
                              "drives' sum under GPU/NIC load)",
                              device_lanes + drive_lanes)
                : ""),
        .source = "catalog"});
  sheet_.figures["raid"] = {
      {"level", level.name}, {"drives", drives}, {"per_drive_source", source}, {"levels", std::move(levels)}};

  // The measured node's data loading (storage.dataload): the drives, and the level, its GPUs need.
  std::string gpu = node_->gpu;
  std::transform(gpu.begin(), gpu.end(), gpu.begin(), [](unsigned char ch) { return std::tolower(ch); });
  auto dl = node_is_measured_ ? measured_dataload(req_.reports, gpu) : std::nullopt;
  if (!dl) return;
  const bool same_accelerator = !dl->accelerator.empty() && gpu.starts_with(dl->accelerator);
  const std::string measured_by =
      fmt::format("storage.dataload {} on {}: {:.2f} GB/s at {:.0f} accelerators supported (AU >= {:.0f} %)",
                  dl->workload, dl->accelerator, dl->bandwidth / 1e9, dl->accelerators, dl->au_floor);
  // Per GPU: the larger of the workload's training-data read and, for the sized GPU's accelerator, what one
  // simulated accelerator read at AU >= the floor (the measured demand of this GPU).
  const double workload_per_gpu = read_need / node_->gpus;
  const double dataload_per_gpu = dl->bandwidth / dl->accelerators;
  const bool from_dataload = same_accelerator && dataload_per_gpu > workload_per_gpu;
  const double per_gpu = from_dataload ? dataload_per_gpu : workload_per_gpu;
  const std::string workload_basis =
      fmt::format("{} training-data read {:.3f} GB/s", req_.workload.name, workload_per_gpu / 1e9);
  const std::string dataload_basis = fmt::format("{} / {:.0f}", measured_by, dl->accelerators);
  const std::string per_gpu_basis =
      !same_accelerator
          ? fmt::format("{}; storage.dataload simulated {}, not this GPU", workload_basis, dl->accelerator)
      : from_dataload
          ? fmt::format("{}, above the {}", dataload_basis, workload_basis)
          : fmt::format("{}, above {} = {:.3f} GB/s", workload_basis, dataload_basis, dataload_per_gpu / 1e9);
  auto demand =
      with_headroom(Formula::term("per_gpu", per_gpu,
                                  fmt::format("per GPU {:.3f} GB/s ({})", per_gpu / 1e9, per_gpu_basis)) *
                        Formula::term("gpus", node_->gpus, fmt::format("{} GPUs", node_->gpus)),
                    h_);
  line({.section = "Storage",
        .item = "Local read to feed the GPUs",
        .quantity = demand,
        .per = 1e9,
        .unit = "GB/s",
        .spec = fmt::format("{} x {} per node", node_->gpus, node_->gpu),
        .driver = fmt::format("{} = {}", demand.shown(), gbs(demand.value())),
        .headroom = headroom_shown(h_),
        .source = from_dataload ? "measured" : "workload"});
  // Per drive: storage.io on the node's drives, else the loader's read over the drives it ran on (a lower
  // bound: it read what its accelerators asked for).
  DriveFigures feed_drive = per_drive;
  if (source != "measured") {
    int under = dl->drives > 0 ? dl->drives : node_->drives;
    feed_drive.read = dl->bandwidth / under;
    feed_drive.basis = fmt::format("{} over {} drives ({}) = {} per drive, a lower bound", measured_by, under,
                                   dl->drives > 0 ? "its device" : "the template's; its device not recorded",
                                   gbs(feed_drive.read));
  }
  auto feed = choose_raid({0, demand.value(), 0, survive_drive_loss}, feed_drive, 4 * node_->drives);
  const RaidLevel& feed_level = feed ? *feed->level : raid_level("RAID-0");
  const std::string read_formula =
      feed_level.read_b == 0 ? "n R" : fmt::format("(n - {:g}) R", -feed_level.read_b);
  line({.section = "Storage",
        .item = "Local drives to feed the GPUs",
        .quantity = feed ? feed->drives : 0,
        .unit = "drives",
        .spec = fmt::format("{} in {}; template has {}", cat_.drive(node_->drive).name, feed_level.name,
                            node_->drives),
        .driver =
            feed ? fmt::format("fewest drives n with {} read {} >= {}, R = {}: {} drives read {}",
                               feed_level.name, read_formula, gbs(demand.value()), feed_drive.basis,
                               feed->drives, gbs(raid_figures(feed_level, feed->drives, feed_drive).read))
                 : fmt::format("no RAID level of up to {} drives reads {} at R = {}", 4 * node_->drives,
                               gbs(demand.value()), feed_drive.basis),
        .headroom = headroom_shown(h_),
        .source = "measured"});
  if (!feed)
    sheet_.warnings.push_back(fmt::format("the measured node's drives cannot feed its {} GPUs: {} needed, {}",
                                          node_->gpus, gbs(demand.value()), feed_drive.basis));
  else if (feed->drives > node_->drives)
    sheet_.warnings.push_back(
        fmt::format("feeding the {} GPUs takes {} drives in {}, the {} template holds {}", node_->gpus,
                    feed->drives, feed_level.name, node_->name, node_->drives));
  if (same_accelerator && dl->accelerators < node_->gpus)
    sheet_.warnings.push_back(fmt::format(
        "this storage cannot feed this node: storage.dataload {} kept {:.0f} {} accelerators at AU >= "
        "{:.0f} %, the {} node has {} GPUs",
        dl->workload, dl->accelerators, dl->accelerator, dl->au_floor, node_->name, node_->gpus));
  sheet_.figures["raid"]["feed"] = {{"read_bytes_per_s", demand.value()},
                                    {"per_gpu_bytes_per_s", per_gpu},
                                    {"per_gpu_source", from_dataload ? "storage.dataload" : "workload"},
                                    {"per_drive_read_bytes_per_s", feed_drive.read},
                                    {"level", feed ? nlohmann::json(feed_level.name) : nlohmann::json()},
                                    {"drives", feed ? nlohmann::json(feed->drives) : nlohmann::json()},
                                    {"accelerators_supported", dl->accelerators},
                                    {"accelerator", dl->accelerator}};
}

void Planner::add_network(int nodes, double comm_share, bool cross_node) {
  line({.section = "Network",
        .item = "Exposed communication",
        .quantity = comm_share,
        .unit = "fraction",
        .spec = fmt::format("budget {:.2f}", assumption::kCommBudget.value),
        .driver = "exposed communication time / step time",
        .source = src(cal_.network)});
  if (comm_share > assumption::kCommBudget.value)
    sheet_.warnings.push_back(
        fmt::format("exposed communication is {:.0f} % of the step (budget {:.0f} %): "
                    "consider a faster fabric or a larger global batch",
                    100 * comm_share, 100 * assumption::kCommBudget.value));
  if (!cross_node) {
    const auto& nic = cat_.nic(node_->front_end_nic);
    const auto& sw = cat_.switch_spec(node_->front_end_switch);
    auto fe = front_end_network(nodes, sw.radix);
    line({.section = "Network",
          .item = "Front-end NICs",
          .quantity = fe.nics,
          .unit = "NICs",
          .spec = fmt::format("{} {} ({:.0f} Gb/s)", nic.name, nic.kind, nic.bits_per_s / 1e9),
          .driver =
              nodes > 1
                  ? "one per node: each replica fits in a node, so no traffic crosses nodes and no compute "
                    "fabric is bought"
                  : "one node: no traffic crosses nodes, so no compute fabric is bought",
          .source = "catalog"});
    line({.section = "Network",
          .item = "Top-of-rack switches",
          .quantity = fe.switches,
          .unit = "switches",
          .spec = fmt::format("{} radix {}", sw.name, sw.radix),
          .driver = fmt::format(
              "ceil({} nodes / {} ports down per switch); uplinks to the site network not included", nodes,
              sw.radix / 2),
          .source = "catalog"});
    line({.section = "Network",
          .item = "Cables/transceivers",
          .quantity = fe.cables,
          .unit = "links",
          .spec = "node to top-of-rack",
          .driver = fmt::format("{} node ports", fe.cables),
          .source = "catalog"});
    net_ = {&sw, fe.switches, fe.cables, {"Top-of-rack switches"}, "Cables/transceivers"};
    sheet_.figures["network"] = {
        {"kind", "front-end"}, {"switches", fe.switches}, {"nics", fe.nics}, {"cables", fe.cables}};
    return;
  }
  const auto& nic = cat_.nic(node_->nic);
  const auto& sw = cat_.switch_spec(node_->switch_name);
  line({.section = "Network",
        .item = "Compute-fabric NICs",
        .quantity = nodes * node_->nics,
        .unit = "NICs",
        .spec = fmt::format("{} {} ({:.0f} Gb/s)", nic.name, nic.kind, nic.bits_per_s / 1e9),
        .driver = fmt::format("{} per node = {:.2f} per GPU ({:.0f} Gb/s per GPU)", node_->nics,
                              static_cast<double>(node_->nics) / node_->gpus,
                              nic.bits_per_s * node_->nics / node_->gpus / 1e9),
        .source = "catalog"});
  int ports_for = static_cast<int>(std::ceil(with_headroom(nodes, h_)));
  auto f = compute_fabric(ports_for, node_->nics, sw.radix);
  line({.section = "Network",
        .item = "Leaf switches",
        .quantity = f.leaves,
        .unit = "switches",
        .spec = fmt::format("{} radix {}", sw.name, sw.radix),
        .driver = f.spines == 0 ? fmt::format("one switch: {} nodes x {} ports fit its {} ports", ports_for,
                                              f.rails, sw.radix)
                                : fmt::format("{} rails x ceil({} nodes / {} ports down per leaf)", f.rails,
                                              ports_for, sw.radix / 2),
        .headroom = headroom_shown(h_) + " ports",
        .source = "catalog"});
  line({.section = "Network",
        .item = "Spine switches",
        .quantity = f.spines,
        .unit = "switches",
        .spec = fmt::format("{} radix {}", sw.name, sw.radix),
        .driver = f.spines == 0
                      ? "one switch: no spine"
                      : fmt::format("ceil({} uplinks / {} ports); uplinks = downlinks, non-blocking",
                                    f.uplinks, sw.radix),
        .headroom = headroom_shown(h_) + " ports",
        .source = "catalog"});
  line({.section = "Network",
        .item = "Cables/transceivers",
        .quantity = f.cables,
        .unit = "links",
        .spec = "node-leaf + leaf-spine",
        .driver = fmt::format("{} node ports + {} uplinks", f.node_ports, f.uplinks),
        .source = "catalog"});
  net_ = {&sw, f.leaves + f.spines, f.cables, {"Leaf switches", "Spine switches"}, "Cables/transceivers"};
  sheet_.figures["network"] = {{"kind", "compute fabric"},
                               {"leaves", f.leaves},
                               {"spines", f.spines},
                               {"nics", nodes * node_->nics},
                               {"cables", f.cables}};
}

void Planner::add_power_host_cost(int nodes, double run_s, double ckpt, const std::string& per,
                                  double tokens) {
  const auto& cool = *cooling_;
  const auto& cpu = cat_.cpu(node_->cpu);
  auto nameplate = node_nameplate<Formula>(*node_, cat_, cool);
  double node_w = nameplate.value();
  double switch_w = net_.switches * net_.sw->power_w;
  auto it = Formula::term("nodes", nodes, fmt::format("{} nodes", with_separators(nodes))) *
                Formula::term("node_w", node_w, fmt::format("{:.1f} W", node_w)) +
            Formula::term("switches", net_.switches, fmt::format("{} switches", net_.switches)) *
                Formula::term("switch_w", net_.sw->power_w, fmt::format("{:g} W", net_.sw->power_w));
  double it_w = it.value();
  int per_rack = std::max(1, static_cast<int>(cool.rack_w / node_w));
  int racks = (nodes + per_rack - 1) / per_rack;
  auto energy = energy_kwh<Formula>({static_cast<double>(nodes), node_w, assumption::kAveragePowerShare.value,
                                     switch_w, run_s / 3600, cool.pue});
  double mwh = energy.value() / 1000;
  line({.section = "Power",
        .item = "Node power (nameplate)",
        .quantity = nameplate,
        .per = 1e3,
        .unit = "kW",
        .spec = fmt::format("{} cooling, GPU power x {:.4f} ({} W vs {} W per A100: {})", cool.name,
                            cool.gpu_power_factor, cool.gpu_w,
                            cat_.cooling_spec(cat_.reference_cooling).gpu_w, cool.figures_source),
        .driver = fmt::format("{} = {:.1f} W", nameplate.shown(), node_w),
        .headroom = "nameplate",
        .source = "catalog"});
  line({.section = "Power",
        .item = "IT power",
        .quantity = it,
        .per = 1e3,
        .unit = "kW",
        .spec = "nodes + network switches",
        .driver = fmt::format("{} = {:.1f} W", it.shown(), it_w),
        .headroom = "nameplate",
        .source = "catalog"});
  line({.section = "Power",
        .item = "Racks",
        .quantity = racks,
        .unit = "racks",
        .spec = fmt::format("{:.0f} kW per rack ({})", cool.rack_w / 1e3, cool.name),
        .driver = fmt::format("ceil({} nodes / {} per rack)", with_separators(nodes), per_rack),
        .headroom = "nameplate per rack",
        .source = "catalog"});
  line({.section = "Power",
        .item = "Energy",
        .quantity = energy,
        .per = 1e3,
        .unit = "MWh",
        .spec = per,
        .driver = fmt::format("{} = {} kWh; PUE: {}", energy.shown(), with_separators(energy.value()),
                              cool.pue_source),
        .source = "assumed"});

  double cores_have = node_->sockets * cpu.cores;
  double ram_have = node_->ram_bytes;
  std::string ram_src = "catalog";
  if (node_is_measured_ && !req_.reports.empty()) {
    if (auto total = HostView(req_.reports.front().host).memory_total_bytes) {
      ram_have = *total;
      ram_src = "measured";
    }
  }
  const double cores_needed =
      line({.section = "Host",
            .item = "CPU cores per node",
            .quantity = node_->gpus * cores_per_gpu(req_.workload.kind).value,
            .unit = "cores",
            .spec = fmt::format("{} x {} = {:.0f} cores", node_->sockets, cpu.name, cores_have),
            .driver = fmt::format("{} GPUs x {:.0f} cores per GPU ({})", node_->gpus,
                                  cores_per_gpu(req_.workload.kind).value, req_.workload.kind),
            .planned = true,
            .source = "assumed"});
  if (cores_needed > cores_have)
    sheet_.warnings.push_back(fmt::format("CPU cores: {:.0f} needed per node, the {} template has {:.0f}",
                                          cores_needed, node_->name, cores_have));
  const double ram_need =
      line({.section = "Host",
            .item = "Host RAM per node",
            .quantity = std::max(assumption::kHostRamPerHbm.value * node_->gpus * facts_.gpu->memory_bytes,
                                 ckpt / nodes * 2),
            .per = 1e9,
            .unit = "GB",
            .spec = fmt::format("{} installed", decimal_bytes(ram_have)),
            .driver = fmt::format("max({:.0f} x HBM of the node, 2 x checkpoint shard)",
                                  assumption::kHostRamPerHbm.value),
            .planned = true,
            .source = ram_src});
  if (ram_need > ram_have)
    sheet_.warnings.push_back(
        fmt::format("host RAM: {} GB needed per node, {} GB installed in the {} template",
                    with_separators(ram_need / 1e9), with_separators(ram_have / 1e9), node_->name));
  double membw = node_->sockets * cpu.memory_bandwidth() * cal_.host_mem.value;
  line({.section = "Host",
        .item = "Host memory bandwidth",
        .quantity = membw / 1e9,
        .unit = "GB/s",
        .spec = fmt::format("{} sockets x {} ch x {:.0f} MT/s x 8 B", node_->sockets, cpu.memory_channels,
                            cpu.memory_mts),
        .driver = fmt::format("theoretical x {:.2f}", cal_.host_mem.value),
        .source = src(cal_.host_mem)});

  add_cost(nodes, run_s, mwh, per, tokens);
  total("Nodes", nodes, "nodes", node_->name);
  sheet_.totals.back().live = "{Nodes}";
  total("GPUs", nodes * node_->gpus, "GPUs", facts_.gpu->name);
  sheet_.totals.back().live = fmt::format("{{Nodes}}*{}", node_->gpus);
  total("IT power", it_w / 1e3, "kW", "nameplate");
  sheet_.totals.back().live = "{IT power}";
  total("Racks", racks, "racks", cool.name);
  sheet_.totals.back().live = "{Racks}";
  total("Energy", mwh, "MWh", per);
  sheet_.totals.back().live = "{Energy}";
  sheet_.figures["power"] = {{"node_w", node_w}, {"it_w", it_w}, {"racks", racks}, {"mwh", mwh}};
  sheet_.figures["cooling"].update({{"name", cool.name},
                                    {"gpu_w", cool.gpu_w},
                                    {"gpu_power_factor", cool.gpu_power_factor},
                                    {"stability", cool.stability},
                                    {"figures_source", cool.figures_source},
                                    {"pue", cool.pue},
                                    {"pue_source", cool.pue_source}});
  if (!sheet_.figures["cooling"].contains("goodput"))
    sheet_.figures["cooling"]["goodput"] = assumption::kGoodput.value;
}

SheetLine* Planner::find_line(std::string_view item) {
  for (auto& l : sheet_.lines)
    if (l.item == item) return &l;
  return nullptr;
}

void Planner::add_cost(int nodes, double run_s, double mwh, const std::string& per, double tokens) {
  std::string label = prices_.example ? "example price" : "prices file";
  auto node_price = prices_.item(node_->name);
  if (!node_price) {
    sheet_.warnings.push_back(
        fmt::format("no price for {}: cost lines left out (give --prices FILE)", node_->name));
    return;
  }
  const auto& cur = prices_.currency;
  double switch_price = prices_.item(net_.sw->name).value_or(0);
  double cable_price = prices_.item("cable").value_or(0);
  double storage_tb = 0;
  if (auto* l = find_line("Shared capacity")) storage_tb = l->quantity;
  // The priced lines carry their unit price; the workbook's capital is the sum of their cost cells.
  std::vector<std::string> capital_items;
  auto price = [&](std::string_view item, double unit_price) {
    if (auto* l = find_line(item)) {
      l->unit_price = unit_price;
      capital_items.push_back(fmt::format("{{{}:cost}}", item));
    }
  };
  price("Nodes", *node_price);
  for (const auto& item : net_.switch_items) price(item, switch_price);
  price(net_.cable_item, cable_price);
  price("Shared capacity", prices_.storage_per_tb);
  if (auto* l = find_line("Energy")) l->unit_price = prices_.energy_per_kwh * 1000;
  double capital = nodes * *node_price + net_.switches * switch_price + net_.cables * cable_price +
                   storage_tb * prices_.storage_per_tb;
  line({.section = "Cost",
        .item = "Capital",
        .quantity = capital,
        .unit = cur,
        .spec = label,
        .driver =
            fmt::format("{} nodes x {} + {} switches x {} + {} cables x {} + {:.4f} TB x {}",
                        with_separators(nodes), with_separators(*node_price), with_separators(net_.switches),
                        with_separators(switch_price), with_separators(net_.cables),
                        with_separators(cable_price), storage_tb, with_separators(prices_.storage_per_tb)),
        .source = label});
  sheet_.lines.back().live = fmt::format("{}", fmt::join(capital_items, "+"));
  double energy_cost = mwh * 1000 * prices_.energy_per_kwh;
  line({.section = "Cost",
        .item = "Energy cost",
        .quantity = energy_cost,
        .unit = cur,
        .spec = per,
        .driver =
            fmt::format("{} kWh x {:g} {}/kWh", with_separators(mwh * 1000, 1), prices_.energy_per_kwh, cur),
        .source = label});
  sheet_.lines.back().live = "{Energy:cost}";
  double years = run_s / kSecondsPerYear;
  double amortised = capital * years / prices_.amortisation_years;
  const char* per_item = tokens > 0 ? "Cost per year" : "Cost per run";
  line({.section = "Cost",
        .item = per_item,
        .quantity = amortised + energy_cost,
        .unit = cur,
        .spec = per,
        .driver = fmt::format("capital {} / {:g} years x {:.1f} s / {:.0f} s per year + energy {} = {} + {}",
                              with_separators(capital, 2), prices_.amortisation_years, run_s, kSecondsPerYear,
                              with_separators(energy_cost, 2), with_separators(amortised, 2),
                              with_separators(energy_cost, 2)),
        .source = label});
  sheet_.lines.back().live =
      fmt::format("{{Capital}}*{}/{}+{{Energy cost}}", years, prices_.amortisation_years);
  if (tokens > 0) {
    line({.section = "Cost",
          .item = "Cost per million tokens",
          .quantity = (amortised + energy_cost) / (tokens / 1e6),
          .unit = cur,
          .spec = "output tokens at the planned load",
          .driver = fmt::format("({} + {}) / {} M tokens", with_separators(amortised, 2),
                                with_separators(energy_cost, 2), with_separators(tokens / 1e6, 3)),
          .source = label});
    sheet_.lines.back().live = fmt::format("{{Cost per year}}/{}", tokens / 1e6);
  }
  total("Capital", capital, cur, label);
  sheet_.totals.back().live = "{Capital}";
  sheet_.figures["cost"] = {{"currency", cur},
                            {"capital", capital},
                            {"energy_cost", energy_cost},
                            {"cost", amortised + energy_cost},
                            {"per", per_item}};
  if (prices_.example)
    sheet_.warnings.push_back(
        "prices are the shipped EXAMPLES (configs/hardware/prices.yaml), not quotes: pass "
        "--prices FILE with real ones");
}

void Planner::add_assumptions() {
  auto fig = [&](std::string_view name, const Figure& f, bool fraction = true) {
    sheet_.assumptions.push_back({std::string(name), fraction ? fmt::format("{:.3f}", f.value) : gbs(f.value),
                                  src(f), f.basis, fraction ? f.value : f.value / 1e9,
                                  fraction ? "fraction" : "GB/s"});
  };
  fig(assumption::kGemm16.name, cal_.gemm);
  fig(assumption::kHbm.name, cal_.hbm);
  fig(assumption::kNvlink.name, cal_.nvlink);
  fig(assumption::kNetwork.name, cal_.network);
  if (req_.workload.kind == "cv-training") fig(assumption::kConvModel.name, cal_.conv);
  if (cal_.storage_read.value > 0) fig("Local storage read", cal_.storage_read, false);
  if (cal_.storage_write.value > 0) fig("Local storage write", cal_.storage_write, false);
  fig(assumption::kHostMem.name, cal_.host_mem);
  // The cooling figures, each with its source: one lab's comparison, a vendor's claim or an assumption.
  std::string names, watts, stability, pues;
  for (const auto& c : cat_.cooling) {
    const char* sep = names.empty() ? "" : " / ";
    names += sep + c.name;
    watts += fmt::format("{}{:g}", sep, c.gpu_w);
    stability += fmt::format("{}{:g}", sep, 100 * c.stability);
    pues += fmt::format("{}{:g}", sep, c.pue);
  }
  const auto& cool = *cooling_;
  sheet_.assumptions.push_back({fmt::format("Cooling {}: GPU power (W per A100)", cool.name),
                                fmt::format("{:g}", cool.gpu_w), cool.figures_source,
                                fmt::format("{}: {} W; GPU TDP x {:.2f} ({} of {})", names, watts,
                                            cool.gpu_power_factor, cool.name, cat_.reference_cooling),
                                cool.gpu_w, "W"});
  sheet_.assumptions.push_back(
      {fmt::format("Cooling {}: training stability", cool.name), fmt::format("{:g} %", 100 * cool.stability),
       cool.figures_source,
       fmt::format("{}: {} %; read as the share of training days without an interruption", names, stability),
       cool.stability, "fraction"});
  sheet_.assumptions.push_back({fmt::format("Cooling {}: PUE", cool.name), fmt::format("{:.2f}", cool.pue),
                                cool.pue_source, fmt::format("{}: {}", names, pues), cool.pue, "ratio"});
  for (const Assumption* a : engine_assumptions())
    if (a->kind.empty() || a->kind == req_.workload.kind)
      sheet_.assumptions.push_back({a->listed_name(), format_quantity(a->listed()), "assumed",
                                    std::string(a->basis), a->listed(), std::string(a->unit)});
  std::vector<std::string> tiers;
  for (const auto& t : assumption::kStorageTiers)
    tiers.push_back(fmt::format("{} {:g}/{:g} GB/s", t.name, t.read / 1e9, t.write / 1e9));
  sheet_.assumptions.push_back(
      {std::string(assumption::kStorageTiersName), fmt::format("{}", fmt::join(tiers, ", ")), "assumed",
       std::string(assumption::kStorageTiersBasis), assumption::kStorageTiers[0].read, "B/s"});
  sheet_.assumptions.push_back(
      {"Headroom", format_quantity(h_), "assumed", "per resource, shown on each line", h_, "fraction"});
  sheet_.warnings.insert(sheet_.warnings.begin(), cal_.warnings.begin(), cal_.warnings.end());
}

}  // namespace mlbench::sizing::planning
