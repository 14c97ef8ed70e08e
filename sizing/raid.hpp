// RAID levels for a node's local NVMe: one table of levels, each with its formulas (usable capacity, read and
// write bandwidth, random-write IOPS through the write penalty, rebuild, failures tolerated), evaluated on
// per-drive figures — the catalog's datasheet x the sustained share, or a node's measured storage.io results.
//
// Why a table: the sheet used to know only RAID-0, and a common recommendation ("8 x 4 TB NVMe striped to
// 32 TB and mirrored, theoretical 56 GB/s, over 1.5 M IOPS") quotes striped figures for a mirrored array. The
// sheet states each level's figures from the same formulas, so the mirror's halved capacity and write
// bandwidth, the write penalty (1 / 2 / 2 / 4 / 6: each random write costs that many drive I/Os) and the PCIe
// lanes the drives take are on the page. Rebuild copies one drive's capacity at the replacement's write rate
// (mirrors copy, parity levels read the n - 1 survivors): the best case; Linux md caps it at
// sync_speed_max (200 MB/s by default) unless raised.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "report/report.hpp"

namespace mlbench::sizing {

struct RaidLevel {
  std::string_view name;  // "RAID-10"
  int min_drives = 1;
  int max_drives = 0;  // 0: no limit
  int step = 1;        // drive counts min, min + step, ...
  // Drives' worth of each figure at n drives: a x n + b.
  double capacity_a = 1, capacity_b = 0;
  double read_a = 1, read_b = 0;
  double write_a = 1, write_b = 0;
  int write_penalty = 1;  // drive I/Os per random write
  int tolerates = 0;      // drive failures survived in any case
  std::string_view formulas;
  bool allows(int n) const {
    return n >= min_drives && (max_drives == 0 || n <= max_drives) && (n - min_drives) % step == 0;
  }
};

// RAID 0, 1, 10, 5, 6.
std::span<const RaidLevel> raid_levels();
const RaidLevel& raid_level(std::string_view name);

// One drive's figures, in SI; `basis` says where they come from.
struct DriveFigures {
  double capacity = 0, read = 0, write = 0, read_iops = 0, write_iops = 0;
  std::string basis;
};

struct RaidFigures {
  int drives = 0;
  double usable = 0, read = 0, write = 0, read_iops = 0, write_iops = 0;
  double rebuild_s = 0;  // 0 when a failure loses the array
};
RaidFigures raid_figures(const RaidLevel& level, int drives, const DriveFigures& d);

// What the local drives must give: bandwidths, capacity, and whether the array must survive a drive (the
// staged checkpoint is the only recent copy until it reaches shared storage).
struct LocalNeed {
  double write = 0, read = 0, capacity = 0;
  bool survive_drive_loss = false;
};
// The fewest drives of `level` that meet `need`, or nullopt when none up to `max_drives` do (or the level
// cannot survive a loss that must be survived).
std::optional<int> drives_for(const RaidLevel& level, const LocalNeed& need, const DriveFigures& d,
                              int max_drives);
// The level the need chooses: fewest drives; on a tie, the one that survives more failures, then the faster
// writer. nullopt when no level meets the need within `max_drives`.
struct RaidChoice {
  const RaidLevel* level = nullptr;
  int drives = 0;
};
std::optional<RaidChoice> choose_raid(const LocalNeed& need, const DriveFigures& d, int max_drives);

// Per-drive figures measured by storage.io on the node: each result's device (info.device) is one drive, or
// an md array whose members (the host's block devices it holds) share the figure equally; a result without a
// device is left out (the drives it spans are unknown). Fields not measured keep `datasheet`'s; nullopt when
// no report has a usable storage.io result.
std::optional<DriveFigures> measured_drive(const std::vector<Report>& reports, const DriveFigures& datasheet);

// A storage.dataload training result: what the node read while it fed its simulated accelerators.
struct DataloadFigures {
  std::string workload, accelerator;  // the dataload workload and its simulated accelerator ("h100")
  double bandwidth = 0;               // B/s read at the accelerators supported
  double accelerators = 0;            // accelerators_supported: the most kept at AU >= the floor
  double au_floor = 0;                // %
  int drives = 0;                     // drives under info.device (md members counted), 0 when not recorded
};
// The report's storage.dataload training results with accelerators_supported and a read bandwidth: the one
// whose accelerator `prefix` starts (the sized GPU's catalog name, lower case: "a100-sxm4-80gb" takes "a100")
// with the highest bandwidth, else the highest of any accelerator; nullopt when none.
std::optional<DataloadFigures> measured_dataload(const std::vector<Report>& reports, std::string_view gpu);

}  // namespace mlbench::sizing
