#include "kernels/gpu/plan.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "base/units.hpp"
#include "bench/host_view.hpp"

namespace mlbench::gpu {
namespace {

std::string trim(std::string_view s) {
  auto b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return "";
  auto e = s.find_last_not_of(" \t");
  return std::string(s.substr(b, e - b + 1));
}

std::string device_label(const DeviceFacts& d) { return fmt::format("GPU {} ({})", d.index, d.name); }

}  // namespace

std::optional<std::int64_t> whole_number(std::string_view s) {
  std::int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

int DeviceFacts::cc_number() const {
  auto dot = cc.find('.');
  if (dot == std::string::npos) return 0;
  auto major = whole_number(cc.substr(0, dot)), minor = whole_number(cc.substr(dot + 1));
  if (!major || !minor) return 0;
  return static_cast<int>(*major * 10 + *minor);
}

std::vector<DeviceFacts> device_facts_from_inventory(const Json& host) {
  std::vector<DeviceFacts> out;
  for (const auto& g : HostView(host).gpus) {
    DeviceFacts d;
    d.index = g.value("index", static_cast<int>(out.size()));
    d.name = g.value("name", "");
    d.uuid = g.value("uuid", "");
    d.cc = g.value("compute_capability", "");
    d.sms = g.value("sms", 0);
    d.memory_bytes = g.value("memory_bytes", std::uint64_t{0});
    d.free_bytes = d.memory_bytes;
    d.l2_bytes = g.value("l2_bytes", std::uint64_t{0});
    d.memory_clock_hz = g.value("memory_clock_hz", 0.0);
    d.bus_width_bits = g.value("bus_width_bits", 0);
    out.push_back(std::move(d));
  }
  return out;
}

std::optional<std::string> no_gpu_reason(const Json& host) {
  const HostView view(host);
  if (!view.gpus.empty()) return std::nullopt;
  std::string why = "no CUDA GPU on this machine";
  for (const auto& n : view.notes) {
    if (n.is_string() && n.get<std::string>().starts_with("gpus:")) {
      why += fmt::format(": {}", trim(n.get<std::string>().substr(5)));
      break;
    }
  }
  return why;
}

std::vector<int> select_devices(const Json& options, Profile profile, int count, const OptionSource& source) {
  // Only `devices` matters here; the probe's own table checks the other options.
  Json devices = Json::object();
  if (options.is_object() && options.contains("devices")) devices["devices"] = options["devices"];
  const auto values = parse_options(std::span(&kDevicesOption, 1), devices, source);
  const auto name = values.name("devices");
  std::vector<int> out;
  const auto given = values.given<std::vector<std::string>>("devices");
  if (!given) {
    for (int i = 0; i < (profile == Profile::quick ? std::min(count, 1) : count); ++i) out.push_back(i);
    return out;
  }
  if (given->size() == 1 && given->front() == "all") {
    for (int i = 0; i < count; ++i) out.push_back(i);
    return out;
  }
  for (const auto& v : *given) {
    auto n = whole_number(v);
    if (!n || *n < 0) {
      throw UsageError(fmt::format("{} '{}': expected 'all' or GPU indices such as 0,2", name, v));
    }
    if (*n >= count) {
      throw UsageError(count == 0 ? fmt::format("{} {}: this machine has no CUDA GPU", name, *n)
                                  : fmt::format("{} {}: there is no GPU {}; this machine has GPUs 0-{}", name,
                                                *n, *n, count - 1));
    }
    if (std::find(out.begin(), out.end(), *n) != out.end()) {
      throw UsageError(fmt::format("{}: GPU {} is named twice", name, *n));
    }
    out.push_back(static_cast<int>(*n));
  }
  return out;
}

void check_fits(std::uint64_t need, const DeviceFacts& facts, std::string_view what, std::string_view fix) {
  if (need + kMemoryMargin <= facts.free_bytes) return;
  throw UsageError(fmt::format("{} needs {} on {} but only {} is free ({} kept in reserve); {}", what,
                               format_bytes(static_cast<double>(need)), device_label(facts),
                               format_bytes(static_cast<double>(facts.free_bytes)),
                               format_bytes(static_cast<double>(kMemoryMargin)), fix));
}

double theoretical_bandwidth(double memory_clock_hz, int bus_width_bits) {
  return 2.0 * memory_clock_hz * bus_width_bits / 8.0;
}

std::optional<double> pct_of(double value, std::optional<double> peak) {
  if (!peak || *peak <= 0) return std::nullopt;
  return 100.0 * value / *peak;
}

int launches_per_sample(double launch_s, double target_s, int max_launches) {
  if (!(launch_s > 0)) return 1;
  double n = std::floor(target_s / launch_s);
  return static_cast<int>(std::clamp(n, 1.0, static_cast<double>(max_launches)));
}

}  // namespace mlbench::gpu
