#include "monitor/sources.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>

#include "base/error.hpp"
#include "bench/sysinfo_parse.hpp"

namespace mlbench::monitor {
namespace {

using sysparse::split_lines;
using sysparse::split_words;
using sysparse::trim;

// A malformed counter reads as 0 rather than stopping the exporter.
std::uint64_t to_u64(const std::string& s) { return sysparse::parse_number<std::uint64_t>(s).value_or(0); }

class DiskSource final : public Source {
 public:
  explicit DiskSource(SysReader r) : r_(std::move(r)) {}
  const char* name() const override { return "diskstats"; }
  void sample(Snapshot& into) override {
    auto text = r_.read("/proc/diskstats");
    if (!text) throw Error("cannot read /proc/diskstats");
    for (const auto& line : split_lines(*text)) {
      auto w = split_words(line);
      // major minor name reads merged sectors ms writes merged sectors ms in_flight io_ms weighted_ms ...
      if (w.size() < 14) continue;
      const std::string& dev = w[2];
      if (dev.starts_with("loop") || dev.starts_with("ram") || dev.starts_with("zram")) continue;
      if (!r_.exists("/sys/block/" + dev)) continue;  // a partition, counted in its disk
      DiskCounters d;
      d.device = dev;
      d.reads = to_u64(w[3]);
      d.read_bytes = to_u64(w[5]) * 512;
      d.writes = to_u64(w[7]);
      d.write_bytes = to_u64(w[9]) * 512;
      d.busy_seconds = static_cast<double>(to_u64(w[12])) / 1e3;
      into.disks.push_back(std::move(d));
    }
  }
  std::vector<std::string> devices(const Snapshot& s) const override {
    std::vector<std::string> out;
    for (const auto& d : s.disks) out.push_back(d.device);
    return out;
  }

 private:
  SysReader r_;
};

class LinkSource : public Source {
 public:
  LinkSource(SysReader r, const char* kind) : r_(std::move(r)), kind_(kind) {}
  std::vector<std::string> devices(const Snapshot& s) const override {
    std::vector<std::string> out;
    for (const auto& l : s.links)
      if (l.kind == kind_) out.push_back(l.device);
    return out;
  }

 protected:
  SysReader r_;
  std::string kind_;
};

class NetSource final : public LinkSource {
 public:
  explicit NetSource(SysReader r) : LinkSource(std::move(r), kLinkEthernet) {}
  const char* name() const override { return "net"; }
  void sample(Snapshot& into) override {
    auto links = read_ethernet_counters(r_);
    if (!links) throw Error("cannot read /sys/class/net");
    std::move(links->begin(), links->end(), std::back_inserter(into.links));
  }
};

class InfinibandSource final : public LinkSource {
 public:
  explicit InfinibandSource(SysReader r) : LinkSource(std::move(r), kLinkInfiniband) {}
  const char* name() const override { return "infiniband"; }
  void sample(Snapshot& into) override {
    auto links = read_infiniband_counters(r_);
    std::move(links.begin(), links.end(), std::back_inserter(into.links));
  }
};

class CpuMemorySource final : public Source {
 public:
  CpuMemorySource(SysReader r, double hz) : r_(std::move(r)), hz_(hz) {}
  const char* name() const override { return "procfs"; }
  void sample(Snapshot& into) override {
    auto stat = r_.read("/proc/stat");
    auto mem = r_.read("/proc/meminfo");
    if (!stat || !mem) throw Error("cannot read /proc/stat or /proc/meminfo");
    for (const auto& line : split_lines(*stat)) {
      auto w = split_words(line);
      // cpu user nice system idle iowait irq softirq steal (guest time is inside user and nice)
      if (w.size() < 9 || w[0] != "cpu") continue;
      double ticks[8];
      for (int i = 0; i < 8; ++i) ticks[i] = static_cast<double>(to_u64(w[static_cast<std::size_t>(i) + 1]));
      CpuCounters c;
      c.idle_seconds = ticks[3] / hz_;
      c.iowait_seconds = ticks[4] / hz_;
      c.busy_seconds = (ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6] + ticks[7]) / hz_;
      into.cpu = c;
    }
    MemoryGauges m;
    for (const auto& line : split_lines(*mem)) {
      auto w = split_words(line);
      if (w.size() < 2) continue;
      if (w[0] == "MemTotal:") m.total_bytes = static_cast<double>(to_u64(w[1])) * 1024;
      if (w[0] == "MemAvailable:") m.available_bytes = static_cast<double>(to_u64(w[1])) * 1024;
    }
    if (m.total_bytes > 0) into.memory = m;
  }
  std::vector<std::string> devices(const Snapshot&) const override { return {}; }

 private:
  SysReader r_;
  double hz_;
};

class GpuSource final : public Source {
 public:
  GpuSource(SysReader r, GpuReaderFactory open) : r_(std::move(r)), open_(std::move(open)) {}
  const char* name() const override { return "nvml"; }
  void sample(Snapshot& into) override {
    // Bus ids sort in PCI order, the order CUDA_DEVICE_ORDER=PCI_BUS_ID and nvidia-smi number GPUs in.
    int index = 0;
    auto buses = r_.list("/proc/driver/nvidia/gpus");
    if (!buses.empty() && !read_) read_ = open_();
    for (const auto& bus : buses) {
      auto info = r_.read("/proc/driver/nvidia/gpus/" + bus + "/information");
      std::string id = fmt::format("gpu{}", index++);
      if (!info) continue;
      for (const auto& line : split_lines(*info)) {
        auto colon = line.find(':');
        if (colon == std::string::npos || trim(std::string_view(line).substr(0, colon)) != "GPU UUID")
          continue;
        std::string uuid(trim(std::string_view(line).substr(colon + 1)));
        if (auto s = read_(uuid))
          into.gpus.push_back({id, uuid, s->telemetry, s->utilisation, s->ecc_corrected, s->ecc_uncorrected});
      }
    }
  }
  std::vector<std::string> devices(const Snapshot& s) const override {
    std::vector<std::string> out;
    for (const auto& g : s.gpus) out.push_back(g.device);
    return out;
  }

 private:
  SysReader r_;
  GpuReaderFactory open_;
  GpuReader read_;
};

// "0000:01:00.0" (a /proc/driver/nvidia/gpus entry) → "0000:01:00", the form Xid lines name.
std::string pci_without_function(const std::string& bus) {
  std::string out = bus.substr(0, bus.rfind('.'));
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

class XidSource final : public Source {
 public:
  explicit XidSource(SysReader r) : r_(std::move(r)) {}
  ~XidSource() override {
    if (fd_ >= 0) close(fd_);
  }
  XidSource(const XidSource&) = delete;
  XidSource& operator=(const XidSource&) = delete;
  const char* name() const override { return "kmsg"; }
  void sample(Snapshot& into) override {
    auto buses = r_.list("/proc/driver/nvidia/gpus");
    if (buses.empty()) return;
    if (fd_ < 0) {
      fd_ = open(r_.resolve("/dev/kmsg").c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
      if (fd_ < 0) throw Error(fmt::format("cannot read /dev/kmsg for XID events: {}", std::strerror(errno)));
    }
    char buf[8192];
    for (;;) {
      ssize_t n = read(fd_, buf, sizeof buf);
      if (n < 0 && errno == EPIPE) continue;  // records overwritten before they were read: go on
      if (n <= 0) break;
      pending_.append(buf, static_cast<std::size_t>(n));
      std::size_t eol;
      while ((eol = pending_.find('\n')) != std::string::npos) {
        if (auto e = parse_xid_line(std::string_view(pending_).substr(0, eol))) {
          std::string device = e->pci;
          for (std::size_t i = 0; i < buses.size(); ++i)
            if (pci_without_function(buses[i]) == e->pci) device = fmt::format("gpu{}", i);
          counts_[{device, e->xid}] += 1;
        }
        pending_.erase(0, eol + 1);
      }
      if (pending_.size() > sizeof buf) pending_.clear();  // a record without an end: not an Xid line
    }
    for (const auto& [key, count] : counts_) into.xids.push_back({key.first, key.second, count});
  }
  std::vector<std::string> devices(const Snapshot&) const override { return {}; }

 private:
  SysReader r_;
  int fd_ = -1;
  std::string pending_;
  std::map<std::pair<std::string, int>, std::uint64_t> counts_;  // bounded: GPUs x XID numbers
};

}  // namespace

std::optional<XidEvent> parse_xid_line(std::string_view line) {
  auto at = line.find("NVRM: Xid (PCI:");
  if (at == std::string_view::npos) return std::nullopt;
  line.remove_prefix(at + std::string_view("NVRM: Xid (PCI:").size());
  auto close_paren = line.find("): ");
  if (close_paren == std::string_view::npos) return std::nullopt;
  XidEvent e;
  e.pci = std::string(line.substr(0, close_paren));
  std::transform(e.pci.begin(), e.pci.end(), e.pci.begin(), [](unsigned char c) { return std::tolower(c); });
  auto xid = sysparse::parse_number<int>(line.substr(close_paren + 3));
  if (!xid || *xid <= 0) return std::nullopt;
  e.xid = *xid;
  return e;
}

std::unique_ptr<Source> make_xid_source(SysReader reader) {
  return std::make_unique<XidSource>(std::move(reader));
}

std::unique_ptr<Source> make_disk_source(SysReader reader) {
  return std::make_unique<DiskSource>(std::move(reader));
}
std::unique_ptr<Source> make_net_source(SysReader reader) {
  return std::make_unique<NetSource>(std::move(reader));
}
std::unique_ptr<Source> make_infiniband_source(SysReader reader) {
  return std::make_unique<InfinibandSource>(std::move(reader));
}
std::unique_ptr<Source> make_cpu_memory_source(SysReader reader, double ticks_per_second) {
  return std::make_unique<CpuMemorySource>(std::move(reader), ticks_per_second);
}
std::unique_ptr<Source> make_gpu_source(SysReader reader, GpuReaderFactory open) {
  return std::make_unique<GpuSource>(std::move(reader), std::move(open));
}

GpuReader nvml_gpu_reader() {
  std::string why;
  gpu::Nvml* nvml = gpu::Nvml::get(&why);
  if (!nvml) throw Error(why);
  return [nvml](const std::string& uuid) -> std::optional<GpuSample> {
    auto d = nvml->device_by_uuid(uuid);
    if (!d) return std::nullopt;
    auto t = nvml->sample(*d);
    if (!t) return std::nullopt;
    return GpuSample{*t, nvml->utilisation(*d), nvml->ecc_errors(*d, false), nvml->ecc_errors(*d, true)};
  };
}

std::vector<std::unique_ptr<Source>> default_sources(const SysReader& reader) {
  std::vector<std::unique_ptr<Source>> out;
  out.push_back(make_disk_source(reader));
  out.push_back(make_net_source(reader));
  out.push_back(make_infiniband_source(reader));
  out.push_back(make_cpu_memory_source(reader, static_cast<double>(sysconf(_SC_CLK_TCK))));
  out.push_back(make_gpu_source(reader, nvml_gpu_reader));
  out.push_back(make_xid_source(reader));
  return out;
}

}  // namespace mlbench::monitor
