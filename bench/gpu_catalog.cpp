#include "bench/gpu_catalog.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "base/error.hpp"
#include "bench/paths.hpp"
#include "bench/yaml_json.hpp"

namespace mlbench {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// `needle` occurs in `hay` and does not run on into a longer token ("l4" must not match "l40s").
bool contains_token(const std::string& hay, const std::string& needle) {
  for (auto pos = hay.find(needle); pos != std::string::npos; pos = hay.find(needle, pos + 1)) {
    std::size_t end = pos + needle.size();
    if (end == hay.size() || !std::isalnum(static_cast<unsigned char>(hay[end]))) return true;
  }
  return false;
}

double positive(const nlohmann::json& e, const char* key, const std::string& where) {
  if (!e.contains(key) || !e[key].is_number() || e[key].get<double>() <= 0) {
    throw UsageError(fmt::format("{}: '{}' must be a positive number", where, key));
  }
  return e[key].get<double>();
}

std::string text_or_empty(const nlohmann::json& e, const char* key, const std::string& where) {
  if (!e.contains(key)) return "";
  if (!e[key].is_string()) throw UsageError(fmt::format("{}: '{}' must be a string (quote it)", where, key));
  return e[key].get<std::string>();
}

// A list of strings; `required` refuses an absent or empty one.
std::vector<std::string> strings(const nlohmann::json& e, const char* key, const std::string& where,
                                 bool required, const char* what) {
  if (!e.contains(key) && !required) return {};
  const auto& v = e.contains(key) ? e[key] : nlohmann::json();
  if (!v.is_array() || (required && v.empty()) ||
      !std::all_of(v.begin(), v.end(), [](const auto& s) { return s.is_string(); })) {
    throw UsageError(
        fmt::format("{}: '{}' must be a {}list of {}", where, key, required ? "non-empty " : "", what));
  }
  return v.get<std::vector<std::string>>();
}

}  // namespace

std::optional<double> GpuSpec::peak_for(std::string_view precision) const {
  auto it = peak.find(std::string(precision));
  if (it == peak.end()) return std::nullopt;
  return it->second;
}

std::vector<GpuSpec> load_gpu_catalog(const std::filesystem::path& path) {
  auto doc = load_yaml_file(path);
  if (!doc.is_object() || !doc.contains("gpus") || !doc["gpus"].is_array()) {
    throw UsageError(fmt::format("{}: expected a top-level 'gpus' list", path.string()));
  }
  std::vector<GpuSpec> out;
  for (const auto& e : doc["gpus"]) {
    if (!e.is_object() || !e.contains("name") || !e["name"].is_string()) {
      throw UsageError(fmt::format("{}: every entry needs a 'name'", path.string()));
    }
    GpuSpec g;
    g.name = e["name"].get<std::string>();
    std::string where = fmt::format("{}: gpu '{}'", path.string(), g.name);
    g.match = strings(e, "match", where, true, "device-name substrings");
    g.compute_capability = text_or_empty(e, "compute_capability", where);
    if (!e.contains("peak_tflops") || !e["peak_tflops"].is_object()) {
      throw UsageError(fmt::format("{}: 'peak_tflops' must map precisions to TFLOPS", where));
    }
    for (const auto& [prec, v] : e["peak_tflops"].items()) {
      if (!v.is_number() || v.get<double>() <= 0) {
        throw UsageError(fmt::format("{}: peak_tflops.{} must be a positive number", where, prec));
      }
      g.peak[prec] = v.get<double>() * 1e12;
    }
    // HBM and GDDR capacities are binary: an "80 GB" H100 holds 80 GiB.
    g.memory_bytes = positive(e, "memory_gib", where) * 0x1p30;
    g.memory_type = text_or_empty(e, "memory_type", where);
    g.memory_bandwidth = positive(e, "memory_bandwidth_tbps", where) * 1e12;
    g.link = text_or_empty(e, "link", where);
    g.link_bandwidth = positive(e, "link_gbps_bidir", where) * 1e9 / 2;
    if (e.contains("pcie_gen")) {
      const auto& gen = e["pcie_gen"];
      if (!gen.is_number_integer() || gen.get<long long>() < 1 || gen.get<long long>() > 16)
        throw UsageError(fmt::format("{}: 'pcie_gen' must be a PCIe generation (1-16)", where));
      g.pcie_gen = gen.get<int>();
    }
    g.tdp_w = positive(e, "tdp_w", where);
    if (e.contains("sms")) {
      const auto& sms = e["sms"];
      if (!sms.is_number_integer() || sms.get<long long>() < 1 || sms.get<long long>() > 100000)
        throw UsageError(
            fmt::format("{}: 'sms' must be a count of streaming multiprocessors (1-100000)", where));
      g.sms = sms.get<int>();
    }
    g.unverified = strings(e, "unverified", where, false, "figure names");
    out.push_back(std::move(g));
  }
  return out;
}

const std::vector<GpuSpec>& gpu_catalog() {
  static const std::vector<GpuSpec> catalog = load_gpu_catalog(config_dir() / "hardware" / "gpus.yaml");
  return catalog;
}

const GpuSpec* match_gpu(const std::vector<GpuSpec>& catalog, std::string_view device_name,
                         std::string_view cc) {
  std::string name = lower(device_name);
  const GpuSpec* best = nullptr;
  std::size_t best_len = 0;
  for (const auto& g : catalog) {
    if (!cc.empty() && !g.compute_capability.empty() && g.compute_capability != cc) continue;
    for (const auto& m : g.match) {
      if (m.size() > best_len && contains_token(name, lower(m))) {
        best = &g;
        best_len = m.size();
      }
    }
  }
  return best;
}

const GpuSpec* find_gpu(const std::vector<GpuSpec>& catalog, std::string_view name) {
  std::string wanted = lower(name);
  for (const auto& g : catalog) {
    if (lower(g.name) == wanted) return &g;
  }
  return nullptr;
}

}  // namespace mlbench
