// Network: interfaces from /sys/class/net (driver, speed, MTU, state; virtual when there is no device), and
// InfiniBand ports from /sys/class/infiniband, attached to their IPoIB netdev when they have one.
#include "bench/sysinfo_collect.hpp"

#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "bench/sysinfo_parse.hpp"

namespace mlbench {

using namespace sysparse;
using Json = nlohmann::json;

namespace {

std::optional<std::string> uevent_value(const SysReader& reader, const std::filesystem::path& uevent,
                                        const std::string& key) {
  auto text = reader.read(uevent);
  if (!text) return std::nullopt;
  auto kv = parse_key_values(*text, '=');
  auto it = kv.find(key);
  if (it == kv.end()) return std::nullopt;
  return it->second;
}

// "400 Gb/sec (4X NDR)" → 400; "4: ACTIVE" → "ACTIVE".
Json infiniband_port(const SysReader& reader, const std::string& hca, const std::string& port) {
  auto base = std::filesystem::path("/sys/class/infiniband") / hca / "ports" / port;
  Json ib{{"device", hca}, {"port", parse_number<int>(port).value_or(0)}};
  if (auto rate = reader.read(base / "rate")) {
    auto words = split_words(*rate);
    if (!words.empty()) {
      if (auto v = parse_number<double>(words[0])) ib["rate_gbps"] = *v;
    }
  }
  if (auto state = reader.read(base / "state")) {
    auto colon = state->find(':');
    ib["state"] = std::string(trim(colon == std::string::npos ? *state : state->substr(colon + 1)));
  }
  if (auto ll = reader.read(base / "link_layer")) ib["link_layer"] = *ll;
  return ib;
}

}  // namespace

void collect_nics(const SysReader& reader, Json& host, Json& notes) {
  Json nics = Json::array();
  std::map<std::string, std::size_t> by_name;
  for (const auto& name : reader.list("/sys/class/net")) {
    if (name == "lo") continue;
    auto base = std::filesystem::path("/sys/class/net") / name;
    Json n{{"name", name}};
    bool physical = reader.exists(base / "device");
    n["virtual"] = !physical;
    if (physical) {
      if (auto drv = uevent_value(reader, base / "device/uevent", "DRIVER")) n["driver"] = *drv;
    }
    if (auto mtu = reader.read_int(base / "mtu")) n["mtu"] = *mtu;
    if (auto state = reader.read(base / "operstate")) n["operstate"] = *state;
    // Reading `speed` fails (EINVAL) or gives -1 when the link is down or the driver does not report it.
    if (auto speed = reader.read_int(base / "speed"); speed && *speed > 0) {
      n["speed_mbps"] = *speed;
    } else if (physical) {
      note(notes, fmt::format("{}: link speed unknown (link down or not reported by the driver)", name));
    }
    by_name[name] = nics.size();
    nics.push_back(std::move(n));
  }
  for (const auto& hca : reader.list("/sys/class/infiniband")) {
    auto ports = reader.list(std::filesystem::path("/sys/class/infiniband") / hca / "ports");
    auto netdevs = reader.list(std::filesystem::path("/sys/class/infiniband") / hca / "device/net");
    for (const auto& port : ports) {
      Json ib = infiniband_port(reader, hca, port);
      int port_no = ib["port"].get<int>();
      // A netdev's dev_port is 0-based; a single-netdev HCA maps its only port.
      std::optional<std::string> owner;
      for (const auto& nd : netdevs) {
        auto dev_port = reader.read_int(std::filesystem::path("/sys/class/net") / nd / "dev_port");
        if ((dev_port && *dev_port + 1 == port_no) || (!dev_port && netdevs.size() == 1)) owner = nd;
      }
      if (owner && by_name.count(*owner) != 0) {
        nics[by_name[*owner]]["infiniband"] = std::move(ib);
      } else {
        Json n{{"name", fmt::format("{}/{}", hca, port)}, {"virtual", false}, {"infiniband", std::move(ib)}};
        if (auto drv = uevent_value(
                reader, std::filesystem::path("/sys/class/infiniband") / hca / "device/uevent", "DRIVER")) {
          n["driver"] = *drv;
        }
        nics.push_back(std::move(n));
      }
    }
  }
  if (nics.empty()) note(notes, "nics: no network interface besides lo under /sys/class/net");
  host[kNicsKey] = nics;
}

}  // namespace mlbench
