#include "bench/sysinfo_reader.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "base/utf8.hpp"

namespace mlbench {

std::filesystem::path SysReader::resolve(const std::filesystem::path& abs) const {
  return root_ / abs.relative_path();
}

std::optional<std::string> SysReader::read(const std::filesystem::path& abs) const {
  auto bytes = read_bytes(abs);
  if (!bytes) return std::nullopt;
  std::string s = to_valid_utf8(*bytes);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

std::optional<std::string> SysReader::read_bytes(const std::filesystem::path& abs) const {
  std::ifstream in(resolve(abs), std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return ss.str();
}

std::optional<std::filesystem::path> SysReader::canonical(const std::filesystem::path& abs) const {
  std::error_code ec;
  auto real = std::filesystem::canonical(resolve(abs), ec);
  if (ec) return std::nullopt;
  auto root = std::filesystem::canonical(root_, ec);
  if (ec) return std::nullopt;
  auto rel = real.lexically_relative(root);
  if (rel.empty() || *rel.begin() == "..") return std::nullopt;
  return std::filesystem::path("/") / (rel == "." ? std::filesystem::path() : rel);
}

bool SysReader::exists(const std::filesystem::path& abs) const {
  std::error_code ec;
  return std::filesystem::exists(resolve(abs), ec);
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
    auto name = it->path().filename().string();
    if (invalid_utf8_at(name) == std::string::npos) out.push_back(std::move(name));
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace mlbench
