#include "bench/sysinfo.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace mlbench {

std::filesystem::path SysReader::resolve(const std::filesystem::path& abs) const {
  return root_ / abs.relative_path();
}

std::optional<std::string> SysReader::read(const std::filesystem::path& abs) const {
  std::ifstream in(resolve(abs));
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return std::nullopt;
  std::string s = ss.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

std::optional<long long> SysReader::read_int(const std::filesystem::path& abs) const {
  auto s = read(abs);
  if (!s) return std::nullopt;
  try {
    std::size_t pos = 0;
    long long v = std::stoll(*s, &pos, 0);
    return v;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::vector<std::string> SysReader::list(const std::filesystem::path& abs_dir) const {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(resolve(abs_dir), ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    out.push_back(it->path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

nlohmann::json collect_host_info(const SysReader& reader, GpuInventoryFn gpus) {
  nlohmann::json host{{"cpu", nlohmann::json::object()}, {"memory", nlohmann::json::object()},
                      {"numa", nlohmann::json::array()}, {"block_devices", nlohmann::json::array()},
                      {"raid", nlohmann::json::array()}, {"nics", nlohmann::json::array()},
                      {"gpus", nlohmann::json::array()}, {"notes", nlohmann::json::array()}};
  if (auto h = reader.read("/proc/sys/kernel/hostname")) host["hostname"] = *h;
  if (auto k = reader.read("/proc/sys/kernel/osrelease")) host["kernel"] = *k;
  if (gpus != nullptr) host["gpus"] = gpus(host["notes"]);
  return host;
}

}  // namespace mlbench
