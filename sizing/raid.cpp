#include "sizing/raid.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"
#include "bench/host_view.hpp"

namespace mlbench::sizing {
namespace {

// n drives, capacity C, read R, write W, random-write IOPS I per drive.
constexpr RaidLevel kLevels[] = {
    {"RAID-0", 1, 0, 1, 1, 0, 1, 0, 1, 0, 1, 0,
     "striped: usable n C, read n R, write n W, random writes n I / 1; a failed drive loses the array"},
    {"RAID-1", 2, 2, 1, 0.5, 0, 1, 0, 0.5, 0, 2, 1,
     "mirrored pair: usable C, read 2 R, write W (both copies), random writes 2 I / 2"},
    {"RAID-10", 4, 0, 2, 0.5, 0, 1, 0, 0.5, 0, 2, 1,
     "striped mirrors: usable n C / 2, read n R, write n W / 2, random writes n I / 2"},
    {"RAID-5", 3, 0, 1, 1, -1, 1, -1, 1, -1, 4, 1,
     "single parity: usable (n - 1) C, read (n - 1) R, full-stripe write (n - 1) W, random writes n I / 4"},
    {"RAID-6", 4, 0, 1, 1, -2, 1, -2, 1, -2, 6, 2,
     "double parity: usable (n - 2) C, read (n - 2) R, full-stripe write (n - 2) W, random writes n I / 6"},
};

// A string field of a free-form JSON object, "" when absent or not a string.
std::string text_field(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

// The drives `device` spans on the report's host: the block devices that name it a holder (an md array's
// members), else 1.
int drives_under(const Report& report, const std::string& device) {
  int members = 0;
  for (const auto& b : HostView(report.host).block_devices)
    if (b.contains("holders") && b["holders"].is_array())
      for (const auto& h : b["holders"])
        if (h.is_string() && h.get<std::string>() == device) ++members;
  return std::max(1, members);
}

}  // namespace

std::span<const RaidLevel> raid_levels() { return kLevels; }

const RaidLevel& raid_level(std::string_view name) {
  for (const auto& l : kLevels)
    if (l.name == name) return l;
  throw Error(fmt::format("unknown RAID level '{}'", name));
}

RaidFigures raid_figures(const RaidLevel& level, int drives, const DriveFigures& d) {
  double n = drives;
  RaidFigures f;
  f.drives = drives;
  f.usable = (level.capacity_a * n + level.capacity_b) * d.capacity;
  f.read = (level.read_a * n + level.read_b) * d.read;
  f.write = (level.write_a * n + level.write_b) * d.write;
  f.read_iops = n * d.read_iops;
  f.write_iops = n * d.write_iops / level.write_penalty;
  f.rebuild_s = level.tolerates > 0 ? d.capacity / d.write : 0;
  return f;
}

std::optional<int> drives_for(const RaidLevel& level, const LocalNeed& need, const DriveFigures& d,
                              int max_drives) {
  if (need.survive_drive_loss && level.tolerates == 0) return std::nullopt;
  for (int n = level.min_drives; n <= max_drives; ++n) {
    if (!level.allows(n)) continue;
    auto f = raid_figures(level, n, d);
    if (f.write >= need.write && f.read >= need.read && f.usable >= need.capacity) return n;
  }
  return std::nullopt;
}

std::optional<RaidChoice> choose_raid(const LocalNeed& need, const DriveFigures& d, int max_drives) {
  std::optional<RaidChoice> best;
  for (const auto& level : kLevels) {
    auto n = drives_for(level, need, d, max_drives);
    if (!n) continue;
    auto better = [&] {
      if (!best) return true;
      if (*n != best->drives) return *n < best->drives;
      if (level.tolerates != best->level->tolerates) return level.tolerates > best->level->tolerates;
      return raid_figures(level, *n, d).write > raid_figures(*best->level, *n, d).write;
    };
    if (better()) best = RaidChoice{&level, *n};
  }
  return best;
}

std::optional<DriveFigures> measured_drive(const std::vector<Report>& reports,
                                           const DriveFigures& datasheet) {
  struct Kind {
    std::string_view rw, metric, label, unit;
    double scale;
    double DriveFigures::*field;
  };
  static constexpr Kind kKinds[] = {
      {"read", "bandwidth", "read", "GB/s", 1e9, &DriveFigures::read},
      {"write", "bandwidth", "write", "GB/s", 1e9, &DriveFigures::write},
      {"randread", "iops", "random read", "k IOPS", 1e3, &DriveFigures::read_iops},
      {"randwrite", "iops", "random write", "k IOPS", 1e3, &DriveFigures::write_iops},
  };
  double best[std::size(kKinds)] = {};
  std::string basis[std::size(kKinds)];
  for (const auto& report : reports) {
    for (const auto& r : report.results) {
      if (r.probe != "storage.io" || r.status != Status::ok) continue;
      std::string rw = text_field(r.params, "rw");
      std::string device = text_field(r.info, "device");
      if (device.empty()) continue;  // no device: how many drives the figure spans is unknown
      int drives = drives_under(report, device);
      for (std::size_t k = 0; k < std::size(kKinds); ++k) {
        const Kind& kind = kKinds[k];
        const Metric* m = r.metric(kind.metric);
        if (rw != kind.rw || !m || m->value / drives <= best[k]) continue;
        best[k] = m->value / drives;
        std::string on = device;
        if (drives > 1) on += fmt::format(" ({} drives)", drives);
        basis[k] = fmt::format("{} {:.3g} {} on {} = {:.3g} {} per drive", kind.label, m->value / kind.scale,
                               kind.unit, on, best[k] / kind.scale, kind.unit);
      }
    }
  }
  DriveFigures d = datasheet;
  std::vector<std::string> measured;
  for (std::size_t k = 0; k < std::size(kKinds); ++k)
    if (best[k] > 0) {
      d.*(kKinds[k].field) = best[k];
      measured.push_back(basis[k]);
    }
  if (measured.empty()) return std::nullopt;
  d.basis = fmt::format("storage.io measured {}", fmt::join(measured, "; "));
  return d;
}

std::optional<DataloadFigures> measured_dataload(const std::vector<Report>& reports, std::string_view gpu) {
  std::optional<DataloadFigures> best;
  auto matches = [&](const DataloadFigures& d) {
    return !d.accelerator.empty() && gpu.starts_with(d.accelerator);
  };
  for (const auto& report : reports)
    for (const auto& r : report.results) {
      if (r.probe != "storage.dataload" || r.status != Status::ok || text_field(r.params, "phase") != "train")
        continue;
      const Metric* bw = r.metric("bandwidth");
      const Metric* acc = r.metric("accelerators_supported");
      if (!bw || !acc || bw->value <= 0 || acc->value <= 0) continue;
      DataloadFigures d{
          text_field(r.params, "workload"), text_field(r.params, "accelerator"), bw->value, acc->value, 0, 0};
      if (r.info.is_object() && r.info.contains("au_floor") && r.info["au_floor"].is_number())
        d.au_floor = r.info["au_floor"].get<double>();
      if (std::string device = text_field(r.info, "device"); !device.empty())
        d.drives = drives_under(report, device);
      if (!best || matches(d) > matches(*best) ||
          (matches(d) == matches(*best) && d.bandwidth > best->bandwidth))
        best = d;
    }
  return best;
}

}  // namespace mlbench::sizing
