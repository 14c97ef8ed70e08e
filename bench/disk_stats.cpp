#include "bench/disk_stats.hpp"

#include <algorithm>
#include <charconv>

namespace mlbench {

std::optional<DiskStat> parse_disk_stat(std::string_view name, std::string_view text) {
  std::vector<std::uint64_t> f;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n')) ++i;
    if (i >= text.size()) break;
    std::uint64_t v = 0;
    auto [ptr, ec] = std::from_chars(text.data() + i, text.data() + text.size(), v);
    if (ec != std::errc() ||
        (ptr != text.data() + text.size() && *ptr != ' ' && *ptr != '\t' && *ptr != '\n'))
      return std::nullopt;
    f.push_back(v);
    i = static_cast<std::size_t>(ptr - text.data());
  }
  if (f.size() < 11) return std::nullopt;
  DiskStat d;
  d.name = std::string(name);
  d.read_ios = f[0];
  d.read_merges = f[1];
  d.read_sectors = f[2];
  d.read_ticks = f[3];
  d.write_ios = f[4];
  d.write_merges = f[5];
  d.write_sectors = f[6];
  d.write_ticks = f[7];
  // f[8] is the I/Os in flight now, a level rather than a counter.
  d.io_ticks = f[9];
  d.in_queue = f[10];
  return d;
}

DiskStat disk_delta(const DiskStat& after, const DiskStat& before, double msec) {
  auto minus = [](std::uint64_t a, std::uint64_t b) { return a >= b ? a - b : 0; };
  DiskStat d;
  d.name = after.name;
  d.read_ios = minus(after.read_ios, before.read_ios);
  d.read_merges = minus(after.read_merges, before.read_merges);
  d.read_sectors = minus(after.read_sectors, before.read_sectors);
  d.read_ticks = minus(after.read_ticks, before.read_ticks);
  d.write_ios = minus(after.write_ios, before.write_ios);
  d.write_merges = minus(after.write_merges, before.write_merges);
  d.write_sectors = minus(after.write_sectors, before.write_sectors);
  d.write_ticks = minus(after.write_ticks, before.write_ticks);
  d.io_ticks = minus(after.io_ticks, before.io_ticks);
  d.in_queue = minus(after.in_queue, before.in_queue);
  d.msec = msec;
  return d;
}

void add_disk_stat(DiskStat& to, const DiskStat& d) {
  to.read_ios += d.read_ios;
  to.read_merges += d.read_merges;
  to.read_sectors += d.read_sectors;
  to.read_ticks += d.read_ticks;
  to.write_ios += d.write_ios;
  to.write_merges += d.write_merges;
  to.write_sectors += d.write_sectors;
  to.write_ticks += d.write_ticks;
  to.io_ticks += d.io_ticks;
  to.in_queue += d.in_queue;
  to.msec += d.msec;
}

double disk_util_pct(const DiskStat& d) {
  if (d.msec <= 0) return 0;
  return std::min(100.0, 100.0 * static_cast<double>(d.io_ticks) / d.msec);
}

nlohmann::json to_json(const DiskStat& d) {
  return {{"name", d.name},
          {"read_ios", d.read_ios},
          {"write_ios", d.write_ios},
          {"read_sectors", d.read_sectors},
          {"write_sectors", d.write_sectors},
          {"read_merges", d.read_merges},
          {"write_merges", d.write_merges},
          {"read_ticks", d.read_ticks},
          {"write_ticks", d.write_ticks},
          {"in_queue", d.in_queue},
          {"util", disk_util_pct(d)},
          {"io_ticks", d.io_ticks},
          {"msec", d.msec}};
}

DiskStat disk_stat_from_json(const nlohmann::json& j) {
  DiskStat d;
  d.name = j.value("name", std::string());
  auto u = [&j](const char* key) { return j.value(key, std::uint64_t{0}); };
  d.read_ios = u("read_ios");
  d.write_ios = u("write_ios");
  d.read_sectors = u("read_sectors");
  d.write_sectors = u("write_sectors");
  d.read_merges = u("read_merges");
  d.write_merges = u("write_merges");
  d.read_ticks = u("read_ticks");
  d.write_ticks = u("write_ticks");
  d.in_queue = u("in_queue");
  d.io_ticks = u("io_ticks");
  d.msec = j.value("msec", 0.0);
  return d;
}

std::vector<std::string> stat_disks(const std::string& disk, const SysReader& sys) {
  if (disk.empty()) return {};
  std::vector<std::string> out{disk};
  for (const auto& s : sys.list("/sys/block/" + disk + "/slaves"))
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  return out;
}

std::optional<DiskStat> read_disk_stat(const std::string& name, const SysReader& sys) {
  if (name.empty() || name.find('/') != std::string::npos) return std::nullopt;
  auto text = sys.read("/sys/class/block/" + name + "/stat");  // a disk or a partition (a slave)
  if (!text) return std::nullopt;
  return parse_disk_stat(name, *text);
}

}  // namespace mlbench
