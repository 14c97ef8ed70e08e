#include "bench/yaml_json.hpp"

#include <charconv>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "base/error.hpp"
#include "base/utf8.hpp"

namespace mlbench {
namespace {

// A scalar's text, refused when it is not UTF-8 (JSON strings must be, or writing them later throws).
const std::string& text_of(const YAML::Node& node, const std::string& name) {
  const std::string& s = node.Scalar();
  if (invalid_utf8_at(s) != std::string::npos)
    throw UsageError(
        fmt::format("{}:{}: text is not valid UTF-8; save the file as UTF-8", name, node.Mark().line + 1));
  return s;
}

nlohmann::json scalar(const YAML::Node& node, const std::string& name) {
  const std::string& s = text_of(node, name);
  if (node.Tag() == "!") return s;  // quoted: always a string
  if (s == "true" || s == "True" || s == "yes") return true;
  if (s == "false" || s == "False" || s == "no") return false;
  if (s == "null" || s == "~") return nullptr;
  long long i = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), i);
  if (ec == std::errc() && p == s.data() + s.size() && !s.empty()) return i;
  double d = 0;
  auto [p2, ec2] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (ec2 == std::errc() && p2 == s.data() + s.size() && !s.empty()) return d;
  return s;
}

nlohmann::json convert(const YAML::Node& node, const std::string& name) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Scalar:
      return scalar(node, name);
    case YAML::NodeType::Sequence: {
      auto arr = nlohmann::json::array();
      for (const auto& item : node) arr.push_back(convert(item, name));
      return arr;
    }
    case YAML::NodeType::Map: {
      auto obj = nlohmann::json::object();
      for (const auto& kv : node) {
        if (!kv.first.IsScalar()) {
          throw UsageError(
              fmt::format("{}:{}: mapping keys must be plain strings", name, kv.first.Mark().line + 1));
        }
        obj[text_of(kv.first, name)] = convert(kv.second, name);
      }
      return obj;
    }
  }
  return nullptr;
}

}  // namespace

nlohmann::json parse_yaml(const std::string& text, const std::string& name) {
  try {
    return convert(YAML::Load(text), name);
  } catch (const YAML::Exception& e) {
    throw UsageError(fmt::format("{}:{}: invalid YAML: {}; fix the file", name, e.mark.line + 1, e.msg));
  }
}

nlohmann::json load_yaml_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw UsageError(fmt::format("{}: cannot open (does the file exist?)", path.string()));
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_yaml(ss.str(), path.string());
}

}  // namespace mlbench
