#include "bench/yaml_json.hpp"

#include <charconv>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "base/error.hpp"
#include "base/input_file.hpp"
#include "base/units.hpp"
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

// What a conversion has spent of kYamlLimits. yaml-cpp keeps an alias as a second reference to its anchor's
// node, so a few hundred bytes of nested aliases stand for billions of values: the count is of the values
// converted, each alias counted at every use, and the conversion stops at the first one over the limit.
struct Budget {
  const std::string& name;
  std::size_t values = 0;
  std::size_t depth = 0;
};

void spend(Budget& b, const YAML::Node& node) {
  if (++b.values > kYamlLimits.values)
    throw UsageError(
        fmt::format("{}:{}: more than {} values once its aliases are expanded; write the values "
                    "out or use fewer nested aliases",
                    b.name, node.Mark().line + 1, kYamlLimits.values));
}

nlohmann::json convert(const YAML::Node& node, Budget& budget) {
  const std::string& name = budget.name;
  spend(budget, node);
  if (node.IsSequence() || node.IsMap()) {
    if (++budget.depth > kYamlLimits.depth)
      throw UsageError(
          fmt::format("{}:{}: nested more than {} levels deep (an alias inside its own anchor?); "
                      "flatten the file",
                      name, node.Mark().line + 1, kYamlLimits.depth));
  }
  struct Leave {
    Budget& b;
    bool nested;
    ~Leave() {
      if (nested) --b.depth;
    }
  } leave{budget, node.IsSequence() || node.IsMap()};
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Scalar:
      return scalar(node, name);
    case YAML::NodeType::Sequence: {
      auto arr = nlohmann::json::array();
      for (const auto& item : node) arr.push_back(convert(item, budget));
      return arr;
    }
    case YAML::NodeType::Map: {
      auto obj = nlohmann::json::object();
      for (const auto& kv : node) {
        if (!kv.first.IsScalar()) {
          throw UsageError(
              fmt::format("{}:{}: mapping keys must be plain strings", name, kv.first.Mark().line + 1));
        }
        spend(budget, kv.first);
        obj[text_of(kv.first, name)] = convert(kv.second, budget);
      }
      return obj;
    }
  }
  return nullptr;
}

}  // namespace

nlohmann::json parse_yaml(const std::string& text, const std::string& name) {
  try {
    Budget budget{name};
    return convert(YAML::Load(text), budget);
  } catch (const YAML::Exception& e) {
    throw UsageError(fmt::format("{}:{}: invalid YAML: {}; fix the file", name, e.mark.line + 1, e.msg));
  }
}

nlohmann::json load_yaml_file(const std::filesystem::path& path) {
  return parse_yaml(read_input_file(path, InputKind::yaml), path.string());
}

double quantity_value(const nlohmann::json& v, std::string_view unit, const std::string& what) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) return parse_quantity(v.get_ref<const std::string&>(), unit, what);
  throw UsageError(
      fmt::format("{}: {} is not a number or a quantity such as 4k, 2ms, 700k or 13B", what, v.dump()));
}

}  // namespace mlbench
