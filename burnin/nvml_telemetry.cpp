// The burn-in's real telemetry reader: every GPU NVML lists (ordered by PCI bus id, named gpu0..), read each
// second through kernels/gpu/telemetry's Nvml (dlopen; every counter optional, so an older driver or a GPU
// without a feature gives nullopt, not a failure), and XID events from NVML's event set and from the kernel
// log's "NVRM: Xid" lines (/dev/kmsg when readable, parsed by monitor::parse_xid_line), the same XID seen
// through both counted once.
#include "burnin/nvml_telemetry.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <optional>

#include "base/error.hpp"
#include "bench/sysinfo_parse.hpp"
#include "kernels/gpu/telemetry.hpp"
#include "monitor/sources.hpp"

namespace mlbench::burnin {
namespace detail {
namespace {

// "00000000:01:00.0" or "0000:01:00" → {domain, bus, device}; nullopt for anything else.
std::optional<std::array<unsigned long, 3>> pci_address(std::string_view s) {
  std::array<unsigned long, 3> out{};
  for (std::size_t i = 0; i < out.size(); ++i) {
    auto end = s.find_first_of(i + 1 < out.size() ? ":" : ".");
    auto part = s.substr(0, end);
    auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), out[i], 16);
    if (part.empty() || ec != std::errc() || ptr != part.data() + part.size()) return std::nullopt;
    if (end == std::string_view::npos) return i + 1 == out.size() ? std::optional(out) : std::nullopt;
    s.remove_prefix(end + 1);
  }
  return out;
}

}  // namespace

KmsgReader::KmsgReader(const std::filesystem::path& path) {
  fd_ = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd_ < 0)
    throw Error(fmt::format("cannot read {} for XID events: {}", path.string(), std::strerror(errno)));
  lseek(fd_, 0, SEEK_END);
}

KmsgReader::~KmsgReader() { close(fd_); }

std::vector<std::string> KmsgReader::read_messages() {
  std::vector<std::string> out;
  char buf[8192];  // more than a /dev/kmsg record holds (a shorter buffer fails with EINVAL)
  for (;;) {
    ssize_t n = read(fd_, buf, sizeof buf);
    if (n < 0 && errno == EPIPE) continue;  // records overwritten before they were read: go on from the next
    if (n <= 0) break;                      // EAGAIN (nothing new), end of a regular file, or an error
    pending_.append(buf, static_cast<std::size_t>(n));
    std::size_t eol;
    while ((eol = pending_.find('\n')) != std::string::npos) {
      std::string_view line(pending_.data(), eol);
      if (!line.empty() && line.front() != ' ') {
        auto semi = line.find(';');
        out.emplace_back(semi == std::string_view::npos ? line : line.substr(semi + 1));
      }
      pending_.erase(0, eol + 1);
    }
    if (pending_.size() > sizeof buf) pending_.clear();  // a line without an end: no record of the kernel's
  }
  return out;
}

std::vector<burnin_report::Event> kmsg_xid_events(KmsgReader& kmsg, const std::vector<GpuId>& gpus) {
  std::vector<burnin_report::Event> out;
  for (auto& message : kmsg.read_messages()) {
    auto xid = monitor::parse_xid_line(message);
    if (!xid) continue;
    std::string device = xid->pci;
    for (const auto& g : gpus)
      if (same_pci_device(g.pci, xid->pci)) device = g.device;
    out.push_back({0, device, "xid", xid->xid, std::string(sysparse::trim(message))});
  }
  return out;
}

bool same_pci_device(std::string_view a, std::string_view b) {
  auto x = pci_address(a), y = pci_address(b);
  return x && y && *x == *y;
}

bool XidDedup::admit(const std::string& device, int xid, Source source, double time_s) {
  while (!recent_.empty() && recent_.front().time_s < time_s - kWindowS) recent_.pop_front();
  for (auto& s : recent_) {
    if (!s.paired && s.source != source && s.device == device && s.xid == xid) {
      s.paired = true;
      return false;
    }
  }
  recent_.push_back({device, xid, source, time_s, false});
  return true;
}

}  // namespace detail

namespace {

class NvmlTelemetry final : public GpuTelemetry {
 public:
  NvmlTelemetry(gpu::Nvml* nvml, std::string* why) : nvml_(nvml) {
    if (!nvml_) return;
    struct Found {
      GpuId id;
      gpu::Nvml::Device handle;
    };
    std::vector<Found> found;
    for (auto d : nvml_->devices()) {
      if (auto id = nvml_->identity(d)) found.push_back({{"", id->uuid, id->pci, id->name}, d});
    }
    if (found.empty()) {
      if (why) *why = "NVML lists no GPUs";
      return;
    }
    // Bus ids sort in PCI order, the order CUDA_DEVICE_ORDER=PCI_BUS_ID and nvidia-smi number GPUs in.
    std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) { return a.id.pci < b.id.pci; });
    for (std::size_t i = 0; i < found.size(); ++i) {
      found[i].id.device = fmt::format("gpu{}", i);
      ids_.push_back(found[i].id);
      handles_.push_back(found[i].handle);
    }
    xids_ = nvml_->xid_events(handles_);
    try {
      kmsg_ = std::make_unique<detail::KmsgReader>("/dev/kmsg");
    } catch (const Error&) {
      // Not readable without root or CAP_SYSLOG: XIDs then come from NVML's event set alone.
    }
  }

  std::vector<GpuId> gpus() override { return ids_; }

  std::optional<GpuCounters> read(const GpuId& gpu) override {
    auto d = handle(gpu.device);
    if (!d) return std::nullopt;
    auto s = nvml_->sample(*d);
    if (!s) return std::nullopt;
    GpuCounters c;
    c.sm_clock_hz = s->sm_clock_hz;
    c.memory_clock_hz = s->memory_clock_hz;
    c.power_w = s->power_w;
    c.temperature_c = s->temperature_c;
    c.clock_event_reasons = s->throttle_reasons;
    c.memory_temperature_c = nvml_->memory_temperature(*d);
    c.utilisation = nvml_->utilisation(*d);
    c.ecc_sbe_volatile = nvml_->ecc_errors(*d, false, false);
    c.ecc_dbe_volatile = nvml_->ecc_errors(*d, true, false);
    c.ecc_sbe_aggregate = nvml_->ecc_errors(*d, false, true);
    c.ecc_dbe_aggregate = nvml_->ecc_errors(*d, true, true);
    c.retired_pages_sbe = nvml_->retired_pages(*d, false);
    c.retired_pages_dbe = nvml_->retired_pages(*d, true);
    c.retired_pages_pending = nvml_->retired_pages_pending(*d);
    if (auto rows = nvml_->remapped_rows(*d)) {
      c.remapped_rows_correctable = rows->correctable;
      c.remapped_rows_uncorrectable = rows->uncorrectable;
      c.row_remap_pending = rows->pending;
      c.row_remap_failed = rows->failed;
    }
    c.pcie_replays = nvml_->pcie_replays(*d);
    auto link = nvml_->pcie_link(*d);
    c.pcie_gen = link.gen;
    c.pcie_width = link.width;
    c.pcie_gen_max = link.max_gen;
    c.pcie_width_max = link.max_width;
    c.nvlink_errors = nvml_->nvlink_errors(*d);
    c.violation_seconds = nvml_->violation_seconds(*d);
    return c;
  }

  std::vector<burnin_report::Event> events() override {
    std::vector<burnin_report::Event> out;
    double now = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    if (xids_) {
      for (const auto& x : xids_->poll()) {
        std::string device = "unknown GPU";
        for (std::size_t i = 0; i < handles_.size(); ++i)
          if (handles_[i] == x.device) device = ids_[i].device;
        if (dedup_.admit(device, x.xid, detail::XidDedup::Source::nvml, now))
          out.push_back({0, device, "xid", x.xid, fmt::format("XID {} (NVML event)", x.xid)});
      }
    }
    if (kmsg_) {
      for (auto& e : detail::kmsg_xid_events(*kmsg_, ids_))
        if (dedup_.admit(e.device, e.code, detail::XidDedup::Source::kmsg, now)) out.push_back(std::move(e));
    }
    return out;
  }

 private:
  std::optional<gpu::Nvml::Device> handle(const std::string& device) const {
    for (std::size_t i = 0; i < ids_.size(); ++i)
      if (ids_[i].device == device) return handles_[i];
    return std::nullopt;
  }

  gpu::Nvml* nvml_;
  std::vector<GpuId> ids_;
  std::vector<gpu::Nvml::Device> handles_;  // by index of ids_
  std::unique_ptr<gpu::Nvml::XidEvents> xids_;
  std::unique_ptr<detail::KmsgReader> kmsg_;
  detail::XidDedup dedup_;
};

}  // namespace

std::unique_ptr<GpuTelemetry> make_nvml_telemetry(std::string* why) {
  return std::make_unique<NvmlTelemetry>(gpu::Nvml::get(why), why);
}

}  // namespace mlbench::burnin
