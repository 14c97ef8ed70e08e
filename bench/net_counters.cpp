#include "bench/net_counters.hpp"

#include <algorithm>
#include <chrono>

#include "bench/sysinfo_parse.hpp"

namespace mlbench {
namespace {

// A missing or malformed counter reads as 0 rather than failing the reading of the others.
std::uint64_t counter(const SysReader& r, const std::string& path) {
  auto text = r.read(path);
  return text ? sysparse::parse_number<std::uint64_t>(*text).value_or(0) : 0;
}

}  // namespace

std::optional<std::vector<LinkCounters>> read_ethernet_counters(const SysReader& reader) {
  if (!reader.exists("/sys/class/net")) return std::nullopt;
  std::vector<LinkCounters> out;
  for (const auto& nic : reader.list("/sys/class/net")) {
    std::string base = "/sys/class/net/" + nic + "/statistics/";
    if (nic == "lo" || !reader.exists(base + "rx_bytes")) continue;
    out.push_back({nic, kLinkEthernet, counter(reader, base + "rx_bytes"), counter(reader, base + "tx_bytes"),
                   counter(reader, base + "rx_errors"), counter(reader, base + "tx_errors")});
  }
  return out;
}

std::vector<LinkCounters> read_infiniband_counters(const SysReader& reader) {
  std::vector<LinkCounters> out;
  for (const auto& hca : reader.list("/sys/class/infiniband")) {
    for (const auto& port : reader.list("/sys/class/infiniband/" + hca + "/ports")) {
      std::string base = "/sys/class/infiniband/" + hca + "/ports/" + port + "/counters/";
      if (!reader.exists(base + "port_rcv_data")) continue;
      out.push_back({hca + "/" + port, kLinkInfiniband, counter(reader, base + "port_rcv_data") * 4,
                     counter(reader, base + "port_xmit_data") * 4, counter(reader, base + "port_rcv_errors"),
                     counter(reader, base + "port_xmit_discards")});
    }
  }
  return out;
}

std::vector<LinkRate> link_rates(const std::vector<LinkCounters>& before,
                                 const std::vector<LinkCounters>& after, double seconds) {
  std::vector<LinkRate> out;
  if (!(seconds > 0)) return out;
  for (const auto& a : after) {
    auto b = std::find_if(before.begin(), before.end(),
                          [&a](const LinkCounters& x) { return x.device == a.device && x.kind == a.kind; });
    if (b == before.end() || a.rx_bytes < b->rx_bytes || a.tx_bytes < b->tx_bytes) continue;
    if (a.rx_bytes == b->rx_bytes && a.tx_bytes == b->tx_bytes) continue;
    out.push_back({a.device, a.kind, static_cast<double>(a.rx_bytes - b->rx_bytes) / seconds,
                   static_cast<double>(a.tx_bytes - b->tx_bytes) / seconds});
  }
  return out;
}

Json link_rates_json(const std::vector<LinkRate>& rates) {
  Json out = Json::object();
  for (const auto& r : rates)
    out[r.device] = Json{{"kind", r.kind},
                         {"rx_bytes_per_second", r.rx_bytes_per_second},
                         {"tx_bytes_per_second", r.tx_bytes_per_second}};
  return out;
}

LinkRateWindow::LinkRateWindow(SysReader reader, Clock now)
    : reader_(std::move(reader)), now_(std::move(now)) {}

double LinkRateWindow::steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::vector<LinkCounters> LinkRateWindow::read_all() const {
  auto out = read_ethernet_counters(reader_).value_or(std::vector<LinkCounters>{});
  auto ib = read_infiniband_counters(reader_);
  out.insert(out.end(), ib.begin(), ib.end());
  return out;
}

// The clock is read outside the two readings, so the window holds every byte counted (a rate never
// overstates what the link carried by the readings' own time).
void LinkRateWindow::begin() {
  begin_s_ = now_();
  before_ = read_all();
  end_s_.reset();
}

void LinkRateWindow::end() {
  after_ = read_all();
  end_s_ = now_();
}

std::optional<std::vector<LinkRate>> LinkRateWindow::rates() const {
  if (!begin_s_ || !end_s_ || *end_s_ - *begin_s_ < kMinLinkRateWindowSeconds) return std::nullopt;
  return link_rates(before_, after_, *end_s_ - *begin_s_);
}

}  // namespace mlbench
