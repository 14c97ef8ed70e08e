// Storage: block devices from /sys/block (model, sizes, transport, the NVMe PCIe link from the controller's
// PCI function, queues, partitions, holders) with their mount points from /proc/self/mountinfo, and md arrays
// from /proc/mdstat and /sys/block/mdX/md.
#include "bench/sysinfo_collect.hpp"

#include <algorithm>
#include <array>
#include <filesystem>
#include <limits>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "bench/sysinfo.hpp"
#include "bench/sysinfo_parse.hpp"

namespace mlbench {

using namespace sysparse;
using Json = nlohmann::json;

namespace {

// Block devices that are not storage: loop devices, RAM disks, compressed swap.
bool is_virtual_block(std::string_view name) {
  for (std::string_view p : {"loop", "ram", "zram"}) {
    if (name.substr(0, p.size()) == p) return true;
  }
  return false;
}

// Transport per device-name prefix; NVMe reads its controller's own `transport` file instead.
constexpr std::array<std::pair<std::string_view, std::string_view>, 7> kTransportByPrefix{{
    {"nvme", "pcie"},
    {"sd", "scsi"},
    {"vd", "virtio"},
    {"md", "md"},
    {"dm-", "device-mapper"},
    {"mmcblk", "mmc"},
    {"xvd", "xen"},
}};

// Where the source `dev` ("/dev/nvme0n1p1") is mounted, as mount(8) named it.
std::vector<std::string> mount_table(const SysReader& reader, const std::string& dev) {
  std::vector<std::string> out;
  auto text = reader.read("/proc/self/mountinfo");
  if (!text) return out;
  for (const auto& m : parse_mountinfo(*text)) {
    if (m.source == dev) out.push_back(m.mount_point);
  }
  return out;
}

// sysfs counts 512-byte sectors whatever the logical block size; nullopt for a count no device has (negative,
// or bytes beyond a long long).
std::optional<long long> sector_bytes(long long sectors) {
  if (sectors < 0 || sectors > std::numeric_limits<long long>::max() / 512) return std::nullopt;
  return sectors * 512;
}

}  // namespace

Json block_device_info(const SysReader& reader, const std::string& name, Json& notes) {
  auto base = std::filesystem::path("/sys/block") / name;
  Json d{{"name", name}};
  auto model = reader.read(base / "device/model");
  if (model) d["model"] = std::string(trim(*model));
  if (auto sectors = reader.read_int(base / "size"); !sectors) {
    note(notes, fmt::format("{}: size not readable", name));
  } else if (auto bytes = sector_bytes(*sectors)) {
    d["size_bytes"] = *bytes;
  } else {
    note(notes, fmt::format("{}: size {} sectors is out of range", name, *sectors));
  }
  if (auto v = reader.read_int(base / "queue/logical_block_size")) d["logical_block_size"] = *v;
  if (auto v = reader.read_int(base / "queue/physical_block_size")) d["physical_block_size"] = *v;
  if (auto v = reader.read_int(base / "queue/rotational")) d["rotational"] = *v != 0;

  bool nvme = name.rfind("nvme", 0) == 0;
  for (const auto& [prefix, transport] : kTransportByPrefix) {
    if (name.rfind(prefix, 0) == 0) d["transport"] = std::string(transport);
  }
  if (nvme) {
    if (auto t = reader.read(base / "device/transport")) d["transport"] = *t;
    // /sys/block/nvmeXnY/device is the controller; its `device` is the PCI function holding the link files.
    if (auto link = pcie_link_info(reader, base / "device/device")) {
      const Json& l = *link;
      if (l.contains("max_speed_gts") &&
          (l["max_speed_gts"] > l["speed_gts"] || l["max_width"] > l["width"])) {
        note(notes, fmt::format("{}: PCIe link runs below its maximum ({} GT/s x{} of {} GT/s x{})", name,
                                l["speed_gts"].get<double>(), l["width"].get<int>(),
                                l["max_speed_gts"].get<double>(), l["max_width"].get<int>()));
      }
      d["pcie"] = std::move(*link);
    } else if (d.value("transport", "") == "pcie") {
      note(notes, fmt::format("{}: PCIe link speed/width not readable", name));
    }
    if (auto pq = reader.read_int("/sys/module/nvme/parameters/poll_queues")) {
      d["nvme_poll_queues"] = *pq;
    }
  }
  auto mq = reader.list(base / "mq");
  if (!mq.empty()) d["hw_queues"] = mq.size();

  Json partitions = Json::array();
  std::vector<std::string> devs{name};
  for (const auto& e : reader.list(base)) {
    if (e.rfind(name, 0) == 0 && reader.exists(base / e / "partition")) {
      partitions.push_back(e);
      devs.push_back(e);
    }
  }
  d["partitions"] = partitions;
  d["holders"] = reader.list(base / "holders");
  Json mounts = Json::array();
  for (const auto& dev : devs) {
    for (auto& m : mount_table(reader, "/dev/" + dev)) mounts.push_back(std::move(m));
  }
  d["mountpoints"] = mounts;
  if (!model && !nvme && name.rfind("md", 0) != 0 && name.rfind("dm-", 0) != 0) {
    note(notes, fmt::format("{}: no model in sysfs", name));
  }
  return d;
}

void collect_block(const SysReader& reader, Json& host, Json& notes) {
  Json devices = Json::array();
  auto names = reader.list("/sys/block");
  if (names.empty()) note(notes, "block_devices: /sys/block is empty or not readable");
  for (const auto& name : names) {
    if (is_virtual_block(name)) continue;
    devices.push_back(block_device_info(reader, name, notes));
  }
  host[kBlockDevicesKey] = devices;
}

void collect_raid(const SysReader& reader, Json& host, Json& notes) {
  Json arrays = Json::array();
  auto mdstat = reader.read("/proc/mdstat");
  if (!mdstat) {
    host[kRaidKey] = arrays;
    return;
  }
  for (const auto& array : parse_mdstat(*mdstat)) {
    const std::string& name = array.name;
    auto md = std::filesystem::path("/sys/block") / name / "md";
    Json a{{"name", name}};
    if (array.state) a["state"] = *array.state;
    if (array.level) a["level"] = *array.level;
    std::vector<std::string> members = array.members;
    if (auto level = reader.read(md / "level")) a["level"] = *level;
    auto slaves = reader.list(std::filesystem::path("/sys/block") / name / "slaves");
    if (!slaves.empty()) members = slaves;
    std::sort(members.begin(), members.end());
    a["members"] = members;
    if (auto chunk = reader.read_int(md / "chunk_size"); chunk && *chunk > 0) {
      a["chunk_bytes"] = *chunk;
    } else if (a.value("level", "") != "raid1") {
      note(notes, fmt::format("{}: chunk size not readable from {}", name, (md / "chunk_size").string()));
    }
    if (auto sectors = reader.read_int(std::filesystem::path("/sys/block") / name / "size")) {
      if (auto bytes = sector_bytes(*sectors)) a["size_bytes"] = *bytes;
    }
    if (!a.contains("level")) note(notes, fmt::format("{}: RAID level unknown", name));
    arrays.push_back(std::move(a));
  }
  host[kRaidKey] = arrays;
}

}  // namespace mlbench
