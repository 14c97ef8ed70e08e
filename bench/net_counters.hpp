// The byte and error counters of every network interface and InfiniBand port, read once here for the two
// that need them: `mlbench monitor`'s net and infiniband sources (live rates) and net.nccl, which records
// what each NIC carried during its timed loop (the measured ceiling the monitor's ratios divide by).
//
// Method: the kernel's cumulative counters through SysReader (root "/" on the machine, a fixture folder in
// tests): /sys/class/net/*/statistics/{rx,tx}_{bytes,errors} for every interface but lo, and
// /sys/class/infiniband/*/ports/*/counters/port_{rcv,xmit}_data (4-byte words, so ×4 for bytes) with
// port_rcv_errors and port_xmit_discards. A rate is the difference of two readings over the steady-clock
// time between them. Caveats: some Ethernet drivers refresh their statistics periodically (every second or
// two) rather than on each read, so a rate over a short window can be 0 or several windows' worth; the
// InfiniBand counters are read from the HCA. A window under kMinLinkRateWindowSeconds gives no rates.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bench/sysinfo_reader.hpp"
#include "report/report.hpp"

namespace mlbench {

inline constexpr const char* kLinkEthernet = "ethernet";
inline constexpr const char* kLinkInfiniband = "infiniband";
// Shorter windows are dominated by the counters' refresh and the reads themselves.
inline constexpr double kMinLinkRateWindowSeconds = 0.1;

struct LinkCounters {
  std::string device;  // "eth0", or "mlx5_0/1" for an InfiniBand port
  std::string kind;    // kLinkEthernet | kLinkInfiniband
  std::uint64_t rx_bytes = 0, tx_bytes = 0, rx_errors = 0, tx_errors = 0;
};

// Every interface but lo that has statistics; nullopt when /sys/class/net cannot be read at all.
std::optional<std::vector<LinkCounters>> read_ethernet_counters(const SysReader& reader);
// Every port of every HCA that has counters; empty when there is none.
std::vector<LinkCounters> read_infiniband_counters(const SysReader& reader);

struct LinkRate {
  std::string device, kind;
  double rx_bytes_per_second = 0, tx_bytes_per_second = 0;
};
// The byte rates of each device in both readings over `seconds`, in `after`'s order. Left out: a device that
// carried no byte either way, one whose counter went backwards (a reset or a driver reload), and every
// device when `seconds` is not positive.
std::vector<LinkRate> link_rates(const std::vector<LinkCounters>& before,
                                 const std::vector<LinkCounters>& after, double seconds);
// The report's form (a result's info.nic_rates, report/report.schema.json):
// {"mlx5_0/1": {"kind": "infiniband", "rx_bytes_per_second": ..., "tx_bytes_per_second": ...}, ...}.
Json link_rates_json(const std::vector<LinkRate>& rates);

// Every NIC's and InfiniBand port's rates over one window: begin() and end() each read every counter and
// the clock; rates() gives them once both are read and the window lasted at least
// kMinLinkRateWindowSeconds, nullopt otherwise.
class LinkRateWindow {
 public:
  using Clock = std::function<double()>;  // seconds, monotonic
  explicit LinkRateWindow(SysReader reader, Clock now = steady_seconds);
  void begin();
  void end();
  std::optional<std::vector<LinkRate>> rates() const;

  static double steady_seconds();

 private:
  std::vector<LinkCounters> read_all() const;

  SysReader reader_;
  Clock now_;
  std::vector<LinkCounters> before_, after_;
  std::optional<double> begin_s_, end_s_;
};

}  // namespace mlbench
