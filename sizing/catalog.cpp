#include "sizing/catalog.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"
#include "bench/yaml_json.hpp"

namespace mlbench::sizing {
namespace {

using Json = nlohmann::json;

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Reads typed fields of one catalog entry, naming file and entry in every error.
class Entry {
 public:
  Entry(const Json& j, std::string where) : j_(j), where_(std::move(where)) {}
  double positive(const char* key) const {
    if (!j_.contains(key) || !j_[key].is_number() || j_[key].get<double>() <= 0)
      throw UsageError(fmt::format("{}: '{}' must be a positive number", where_, key));
    return j_[key].get<double>();
  }
  double number_or(const char* key, double fallback) const {
    if (!j_.contains(key)) return fallback;
    if (!j_[key].is_number() || j_[key].get<double>() < 0)
      throw UsageError(fmt::format("{}: '{}' must be a non-negative number", where_, key));
    return j_[key].get<double>();
  }
  int count(const char* key) const {
    double v = positive(key);
    if (v != std::floor(v) || v > std::numeric_limits<int>::max())
      throw UsageError(fmt::format("{}: '{}' must be a whole number", where_, key));
    return static_cast<int>(v);
  }
  std::string text(const char* key) const {
    if (!j_.contains(key) || !j_[key].is_string() || j_[key].get<std::string>().empty())
      throw UsageError(fmt::format("{}: '{}' must be a non-empty string", where_, key));
    return j_[key].get<std::string>();
  }
  std::string text_or(const char* key, const std::string& fallback) const {
    return j_.contains(key) ? text(key) : fallback;
  }

 private:
  const Json& j_;
  std::string where_;
};

// Calls `fn(Entry, name)` for each element of the top-level list `key` of `path`.
template <typename Fn>
void for_each_entry(const std::filesystem::path& path, const char* key, Fn fn) {
  auto doc = load_yaml_file(path);
  if (!doc.is_object() || !doc.contains(key) || !doc[key].is_array() || doc[key].empty())
    throw UsageError(fmt::format("{}: expected a non-empty top-level '{}' list", path.string(), key));
  for (const auto& e : doc[key]) {
    if (!e.is_object() || !e.contains("name") || !e["name"].is_string())
      throw UsageError(fmt::format("{}: every entry of '{}' needs a 'name'", path.string(), key));
    auto name = e["name"].get<std::string>();
    fn(Entry(e, fmt::format("{}: '{}'", path.string(), name)), name);
  }
}

template <typename T>
const T& find_named(const std::vector<T>& items, std::string_view name, const char* kind) {
  for (const auto& item : items)
    if (lower(item.name) == lower(name)) return item;
  std::vector<std::string> names;
  for (const auto& item : items) names.push_back(item.name);
  throw UsageError(fmt::format("unknown {} '{}' (closest: '{}'; known: {})", kind, name,
                               closest_name(name, names), fmt::join(names, ", ")));
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

double pcie_lane_bytes_per_s(int gen) {
  switch (gen) {
    case 3:
      return 8e9 * 128 / 130 / 8;
    case 4:
      return 16e9 * 128 / 130 / 8;
    case 5:
      return 32e9 * 128 / 130 / 8;
    default:
      return 0;
  }
}

std::string closest_name(std::string_view name, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_d = static_cast<std::size_t>(-1);
  for (const auto& c : candidates) {
    // A candidate that contains the name ("8xH100" in "8xH100-SXM") beats any edit.
    std::size_t d =
        lower(c).find(lower(name)) != std::string::npos ? 0 : 1 + edit_distance(lower(name), lower(c));
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

std::optional<double> Prices::item(std::string_view name) const {
  for (const auto& [k, v] : items)
    if (lower(k) == lower(name)) return v;
  return std::nullopt;
}

const GpuSpec& HardwareCatalog::gpu(std::string_view name) const { return find_named(gpus, name, "GPU"); }
const CpuSpec& HardwareCatalog::cpu(std::string_view name) const { return find_named(cpus, name, "CPU"); }
const DriveSpec& HardwareCatalog::drive(std::string_view name) const {
  return find_named(drives, name, "drive");
}
const NicSpec& HardwareCatalog::nic(std::string_view name) const { return find_named(nics, name, "NIC"); }
const SwitchSpec& HardwareCatalog::switch_spec(std::string_view name) const {
  return find_named(switches, name, "switch");
}
const NodeTemplate& HardwareCatalog::node(std::string_view name) const {
  return find_named(nodes, name, "hardware");
}
const CoolingSpec& HardwareCatalog::cooling_spec(std::string_view name) const {
  return find_named(cooling, name, "cooling");
}

Prices load_prices(const std::filesystem::path& path) {
  auto doc = load_yaml_file(path);
  if (!doc.is_object()) throw UsageError(fmt::format("{}: expected a mapping of prices", path.string()));
  Entry e(doc, path.string());
  Prices p;
  p.source = path.string();
  if (doc.contains("example") && !doc["example"].is_boolean())
    throw UsageError(fmt::format("{}: 'example' must be true or false", path.string()));
  p.example = doc.value("example", false);
  p.currency = e.text_or("currency", "USD");
  p.energy_per_kwh = e.number_or("energy_per_kwh", 0);
  p.amortisation_years = e.number_or("amortisation_years", 4);
  if (p.amortisation_years <= 0)
    throw UsageError(fmt::format("{}: 'amortisation_years' must be positive", path.string()));
  p.storage_per_tb = e.number_or("storage_per_tb", 0);
  if (doc.contains("items")) {
    if (!doc["items"].is_object())
      throw UsageError(fmt::format("{}: 'items' must map catalog names to prices", path.string()));
    for (const auto& [k, v] : doc["items"].items()) {
      if (!v.is_number() || v.get<double>() < 0)
        throw UsageError(fmt::format("{}: price of '{}' must be a non-negative number", path.string(), k));
      p.items[k] = v.get<double>();
    }
  }
  return p;
}

HardwareCatalog load_hardware_catalog(const std::filesystem::path& dir) {
  HardwareCatalog c;
  c.gpus = load_gpu_catalog(dir / "gpus.yaml");
  for_each_entry(dir / "cpus.yaml", "cpus", [&](const Entry& e, const std::string& name) {
    CpuSpec cpu{name,
                e.text_or("vendor", ""),
                e.count("cores"),
                e.count("threads"),
                e.positive("base_ghz"),
                e.count("memory_channels"),
                e.positive("memory_mts"),
                e.positive("tdp_w"),
                e.count("pcie_gen"),
                e.count("pcie_lanes")};
    cpu.pcie_lanes_2p = static_cast<int>(e.number_or("pcie_lanes_2p", cpu.pcie_lanes));
    c.cpus.push_back(std::move(cpu));
  });
  for_each_entry(dir / "drives.yaml", "drives", [&](const Entry& e, const std::string& name) {
    DriveSpec d{name,
                e.text("interface"),
                e.positive("read_gbps") * 1e9,
                e.positive("write_gbps") * 1e9,
                e.positive("read_iops"),
                e.positive("write_iops"),
                e.positive("capacity_tb") * 1e12,
                e.positive("power_w")};
    if (std::sscanf(d.interface.c_str(), "PCIe Gen%d x%d", &d.pcie_gen, &d.lanes) != 2 ||
        pcie_lane_bytes_per_s(d.pcie_gen) <= 0 || d.lanes <= 0)
      throw UsageError(fmt::format("{}: '{}': 'interface' must read 'PCIe Gen<3|4|5> x<lanes>', not '{}'",
                                   (dir / "drives.yaml").string(), name, d.interface));
    c.drives.push_back(std::move(d));
  });
  for_each_entry(dir / "nics.yaml", "nics", [&](const Entry& e, const std::string& name) {
    c.nics.push_back(
        {name, e.text("kind"), e.positive("gbps") * 1e9, e.count("ports"), e.positive("power_w")});
  });
  for_each_entry(dir / "switches.yaml", "switches", [&](const Entry& e, const std::string& name) {
    c.switches.push_back(
        {name, e.text("kind"), e.count("radix"), e.positive("port_gbps") * 1e9, e.positive("power_w")});
  });
  for_each_entry(dir / "cooling.yaml", "cooling", [&](const Entry& e, const std::string& name) {
    CoolingSpec cool{name,
                     e.positive("gpu_w"),
                     1,
                     e.positive("stability"),
                     e.text("figures_source"),
                     e.positive("pue"),
                     e.text("pue_source"),
                     e.positive("rack_kw") * 1e3};
    if (cool.stability > 1)
      throw UsageError(fmt::format("{}: '{}': 'stability' is a share: give a number in (0, 1]",
                                   (dir / "cooling.yaml").string(), name));
    c.cooling.push_back(std::move(cool));
  });
  auto cooling_doc = load_yaml_file(dir / "cooling.yaml");
  c.reference_cooling = Entry(cooling_doc, (dir / "cooling.yaml").string()).text("reference");
  const double reference_w = c.cooling_spec(c.reference_cooling).gpu_w;
  for (auto& cool : c.cooling) cool.gpu_power_factor = cool.gpu_w / reference_w;
  for_each_entry(dir / "nodes.yaml", "nodes", [&](const Entry& e, const std::string& name) {
    NodeTemplate n;
    n.name = name;
    n.description = e.text_or("description", "");
    n.gpu = e.text("gpu");
    n.gpus = e.count("gpus");
    n.gpu_domain = e.count("gpu_domain");
    n.cpu = e.text("cpu");
    n.sockets = e.count("sockets");
    n.ram_bytes = e.positive("ram_gb") * 1e9;
    n.drive = e.text("drive");
    n.drives = e.count("drives");
    n.nic = e.text("nic");
    n.nics = e.count("nics");
    n.switch_name = e.text("switch");
    n.other_w = e.number_or("other_w", 0);
    n.rack_units = e.count("rack_units");
    n.cooling = e.text("cooling");
    n.front_end_nic = e.text_or("front_end_nic", "");
    n.front_end_switch = e.text_or("front_end_switch", "");
    c.nodes.push_back(std::move(n));
  });
  auto nodes_doc = load_yaml_file(dir / "nodes.yaml");
  Entry nodes_top(nodes_doc, (dir / "nodes.yaml").string());
  c.default_node = nodes_top.text_or("default_node", c.nodes.front().name);
  for (auto& n : c.nodes) {
    if (n.front_end_nic.empty()) n.front_end_nic = nodes_top.text("front_end_nic");
    if (n.front_end_switch.empty()) n.front_end_switch = nodes_top.text("front_end_switch");
  }
  // Cross-references fail here, at load, rather than in the middle of a sizing.
  for (const auto& n : c.nodes) {
    try {
      c.gpu(n.gpu);
      c.cpu(n.cpu);
      c.drive(n.drive);
      c.nic(n.nic);
      c.switch_spec(n.switch_name);
      c.cooling_spec(n.cooling);
      c.nic(n.front_end_nic);
      c.switch_spec(n.front_end_switch);
    } catch (const UsageError& err) {
      throw UsageError(fmt::format("{}: node '{}': {}", (dir / "nodes.yaml").string(), n.name, err.what()));
    }
    if (n.gpu_domain > n.gpus)
      throw UsageError(
          fmt::format("{}: node '{}': gpu_domain exceeds gpus", (dir / "nodes.yaml").string(), n.name));
  }
  c.node(c.default_node);
  if (std::filesystem::exists(dir / "prices.yaml")) c.prices = load_prices(dir / "prices.yaml");
  return c;
}

}  // namespace mlbench::sizing
