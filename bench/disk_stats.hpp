// A disk's I/O statistics over a job, as fio's "Disk stats" and disk_util: the counters of
// /sys/block/<disk>/stat (Documentation/block/stat.rst) read before and after the measured window, and the
// utilisation: the time the disk had I/O in flight (io_ticks) over the window's wall time.
//
// The disks are the target's (TargetInfo::disk: a partition's whole disk) and, for a device-mapper or md
// device, the disks under it (/sys/block/<disk>/slaves), each listed apart as fio lists them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/sysinfo_reader.hpp"

namespace mlbench {

struct DiskStat {
  std::string name;
  std::uint64_t read_ios = 0, read_merges = 0, read_sectors = 0, read_ticks = 0;  // ticks: ms
  std::uint64_t write_ios = 0, write_merges = 0, write_sectors = 0, write_ticks = 0;
  std::uint64_t io_ticks = 0, in_queue = 0;  // ms with I/O in flight; ms × I/Os in flight (time_in_queue)
  double msec = 0;                           // a delta's wall time (the window), ms
};

// The counters of one stat file's text; nullopt when it has fewer than the 11 fields every kernel since 2.6
// writes or a field is not a number. Pure; unit-tested.
std::optional<DiskStat> parse_disk_stat(std::string_view name, std::string_view text);
// after − before over `msec` ms (a counter that went back, as on a reset, counts 0).
DiskStat disk_delta(const DiskStat& after, const DiskStat& before, double msec);
// Adds `d`'s counts and wall time to `to` (the rounds of one job, the jobs of a report).
void add_disk_stat(DiskStat& to, const DiskStat& d);
// 100 × io_ticks / msec, at most 100 (fio's util); 0 without a window.
double disk_util_pct(const DiskStat& d);
// fio's disk_util entry: name, read_ios, write_ios, read_sectors, write_sectors, read_merges, write_merges,
// read_ticks, write_ticks, in_queue, util — and msec, the window, so that entries can be added up.
nlohmann::json to_json(const DiskStat& d);
DiskStat disk_stat_from_json(const nlohmann::json& j);

// `disk` and the disks under it (/sys/block/<disk>/slaves), without repeats; empty for an empty name.
std::vector<std::string> stat_disks(const std::string& disk, const SysReader& sys);
// /sys/class/block/<name>/stat now (a disk or a partition); nullopt when it cannot be read or parsed.
std::optional<DiskStat> read_disk_stat(const std::string& name, const SysReader& sys);

}  // namespace mlbench
