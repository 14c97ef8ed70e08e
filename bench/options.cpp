#include "bench/options.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include <fmt/ranges.h>

#include "base/error.hpp"
#include "base/units.hpp"

namespace mlbench {
namespace {

using nlohmann::json;
using Value = OptionValues::Value;

std::string_view trim(std::string_view s) {
  auto b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// A value as the user wrote it, for messages: a string without its quotes.
std::string shown(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// A count with a decimal suffix (base/units.hpp parse_count: 100k, 2M, 13B), the grammar workload and
// thresholds files take too; nullopt for text that is not one.
std::optional<double> count_text(std::string_view s) {
  s = trim(s);
  if (s.empty() || !std::isalpha(static_cast<unsigned char>(s.back()))) return std::nullopt;
  try {
    return parse_count(s, "");
  } catch (const UsageError&) {
    return std::nullopt;
  }
}

// A whole number: digits, or a count with a decimal suffix that comes out whole (100k, 1.5M).
std::optional<std::int64_t> whole_text(std::string_view s) {
  s = trim(s);
  std::int64_t n = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (!s.empty() && ec == std::errc() && ptr == s.data() + s.size()) return n;
  auto c = count_text(s);
  if (!c || *c != std::floor(*c) || *c >= 9e18) return std::nullopt;
  return static_cast<std::int64_t>(*c);
}

std::optional<double> number_text(std::string_view s) {
  s = trim(s);
  double d = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) return count_text(s);
  return d;
}

std::string bound_text(const OptionSpec& row, double x) {
  if (row.type == OptionType::size) return format_size(x);
  return fmt::format("{}{}", x, row.type == OptionType::duration ? "s" : "");
}

void check_range(const OptionSpec& row, double x, std::string_view what, const std::string& name) {
  bool below = row.min_exclusive ? !(x > row.min) : x < row.min;
  if (below || x > row.max)
    throw UsageError(fmt::format("{}: {} is out of range ({})", name, what, range_text(row)));
}

// "a, b or c".
std::string english_list(const std::vector<std::string_view>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    out += names[i];
  }
  return out;
}

std::string checked_choice(const OptionSpec& row, std::string s, const std::string& name) {
  auto allowed = row.choices();
  if (std::find(allowed.begin(), allowed.end(), s) == allowed.end())
    throw UsageError(fmt::format("{}: unknown value '{}' (use {})", name, s, english_list(allowed)));
  return s;
}

// The items of a list option: a string split at commas, or a JSON list of strings (each split too) and whole
// numbers. Empty items are dropped; an empty list is refused.
std::vector<std::string> list_items(const json& v, const std::string& name) {
  std::vector<std::string> out;
  auto add = [&out](std::string_view text) {
    std::size_t start = 0;
    while (start <= text.size()) {
      auto end = std::min(text.find(',', start), text.size());
      auto item = trim(text.substr(start, end - start));
      if (!item.empty()) out.emplace_back(item);
      start = end + 1;
    }
  };
  auto bad = [&] {
    return UsageError(fmt::format("{}: '{}' is not a comma-separated list", name, shown(v)));
  };
  if (v.is_string()) {
    add(v.get<std::string>());
  } else if (v.is_array()) {
    for (const auto& item : v) {
      if (item.is_string()) {
        add(item.get<std::string>());
      } else if (item.is_number_integer()) {
        out.push_back(item.dump());
      } else {
        throw bad();
      }
    }
  } else if (v.is_number_integer()) {
    out.push_back(v.dump());
  } else {
    throw bad();
  }
  if (out.empty()) throw UsageError(fmt::format("{}: the list is empty", name));
  return out;
}

std::int64_t parse_integer(const OptionSpec& row, const json& v, const std::string& name) {
  std::optional<std::int64_t> n;
  if (v.is_number_unsigned()) {
    if (v.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      n = v.get<std::int64_t>();
  } else if (v.is_number_integer()) {
    n = v.get<std::int64_t>();
  } else if (v.is_number_float()) {
    double d = v.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e18) n = static_cast<std::int64_t>(d);
  } else if (v.is_string()) {
    n = whole_text(v.get<std::string>());
  }
  if (!n) throw UsageError(fmt::format("{}: '{}' is not a whole number", name, shown(v)));
  check_range(row, static_cast<double>(*n), shown(v), name);
  return *n;
}

double parse_number(const OptionSpec& row, const json& v, const std::string& name) {
  std::optional<double> x;
  if (v.is_number()) {
    x = v.get<double>();
  } else if (v.is_string()) {
    x = number_text(v.get_ref<const std::string&>());
  }
  if (!x || !std::isfinite(*x)) throw UsageError(fmt::format("{}: '{}' is not a number", name, shown(v)));
  check_range(row, *x, shown(v), name);
  return *x;
}

std::uint64_t parse_size_value(const OptionSpec& row, const json& v, const std::string& name) {
  auto negative = [&] {
    return UsageError(
        fmt::format("{}: '{}' is negative; give a positive size such as 4k or 1G", name, shown(v)));
  };
  std::uint64_t bytes = 0;
  if (v.is_number_unsigned()) {
    bytes = v.get<std::uint64_t>();
  } else if (v.is_number_integer()) {
    if (v.get<std::int64_t>() < 0) throw negative();
    bytes = v.get<std::uint64_t>();
  } else if (v.is_number_float()) {
    double d = v.get<double>();
    if (d < 0) throw negative();
    if (!std::isfinite(d) || d != std::floor(d) || d >= 1.8e19)
      throw UsageError(fmt::format("{}: '{}' is not a whole number of bytes", name, shown(v)));
    bytes = static_cast<std::uint64_t>(d);
  } else if (v.is_string()) {
    auto s = trim(v.get_ref<const std::string&>());
    if (!s.empty() && s.front() == '-') throw negative();
    bytes = parse_size(s, name);
  } else {
    throw UsageError(fmt::format("{}: '{}' is not a size such as 4k or 1G", name, shown(v)));
  }
  check_range(row, static_cast<double>(bytes), shown(v), name);
  return bytes;
}

double parse_duration_value(const OptionSpec& row, const json& v, const std::string& name) {
  double s = 0;
  if (v.is_number()) {
    s = v.get<double>();
  } else if (v.is_string()) {
    s = parse_duration(trim(v.get<std::string>()), name);
  } else {
    throw UsageError(fmt::format("{}: '{}' is not a duration such as 10s or 2m", name, shown(v)));
  }
  if (!std::isfinite(s) || s < 0)
    throw UsageError(fmt::format("{}: '{}' must not be negative", name, shown(v)));
  check_range(row, s, shown(v), name);
  return s;
}

Value parse_value(const OptionSpec& row, const json& v, const std::string& name) {
  switch (row.type) {
    case OptionType::flag:
      if (!v.is_boolean()) throw UsageError(fmt::format("{}: '{}' is not true or false", name, shown(v)));
      return v.get<bool>();
    case OptionType::integer:
      return parse_integer(row, v, name);
    case OptionType::number:
      return parse_number(row, v, name);
    case OptionType::size:
      return parse_size_value(row, v, name);
    case OptionType::duration:
      return parse_duration_value(row, v, name);
    case OptionType::choice:
      if (!v.is_string() && !v.is_number())
        throw UsageError(fmt::format("{}: '{}' is not a name", name, shown(v)));
      return checked_choice(row, shown(v), name);
    case OptionType::choices: {
      std::vector<std::string> out;
      for (auto& item : list_items(v, name)) {
        item = checked_choice(row, std::move(item), name);
        if (std::find(out.begin(), out.end(), item) == out.end()) out.push_back(std::move(item));
      }
      return out;
    }
    case OptionType::integers: {
      std::vector<std::int64_t> out;
      for (const auto& item : list_items(v, name)) {
        auto n = whole_text(item);
        if (!n) throw UsageError(fmt::format("{}: '{}' is not a whole number", name, item));
        check_range(row, static_cast<double>(*n), item, name);
        out.push_back(*n);
      }
      return out;
    }
    case OptionType::text:
      if (!v.is_string() && !v.is_number())
        throw UsageError(fmt::format("{}: '{}' is not text", name, shown(v)));
      return shown(v);
    case OptionType::list:
      return list_items(v, name);
    case OptionType::paths: {
      auto bad = [&] { return UsageError(fmt::format("{}: expected a path or a list of paths", name)); };
      if (v.is_string()) return std::vector<std::string>{v.get<std::string>()};
      if (!v.is_array()) throw bad();
      std::vector<std::string> out;
      for (const auto& item : v) {
        if (!item.is_string()) throw bad();
        out.push_back(item.get<std::string>());
      }
      return out;
    }
  }
  throw std::logic_error("unknown option type");
}

json value_to_json(const Value& v) {
  return std::visit([](const auto& x) { return json(x); }, v);
}

}  // namespace

std::string range_text(const OptionSpec& row) {
  const bool low = std::isfinite(row.min), high = std::isfinite(row.max);
  if (low && high) return fmt::format("{} to {}", bound_text(row, row.min), bound_text(row, row.max));
  if (low)
    return fmt::format("{} {}", row.min_exclusive ? "greater than" : "at least", bound_text(row, row.min));
  if (high) return fmt::format("at most {}", bound_text(row, row.max));
  return "";
}

std::string_view to_string(OptionType t) { return name_of(kOptionTypeNames, t); }

std::string flag_name(std::string_view key) {
  std::string out = "--";
  for (char c : key) out += c == '_' ? '-' : c;
  return out;
}

OptionSource OptionSource::config(std::string_view probe_id) {
  OptionSource s;
  s.prefix_ = fmt::format("options.{}", probe_id);
  return s;
}

OptionSource OptionSource::job_file() {
  OptionSource s;
  s.bare_ = true;
  return s;
}

std::string OptionSource::name(std::string_view key) const {
  if (bare_) return std::string(key);
  return prefix_.empty() ? flag_name(key) : fmt::format("{}.{}", prefix_, key);
}

bool OptionValues::has(std::string_view key) const {
  row(key);  // a key not in the table is a bug
  return find(key) != nullptr;
}

const OptionSpec& OptionValues::row(std::string_view key) const {
  for (const auto& r : table_) {
    if (r.name == key) return r;
  }
  throw std::logic_error(fmt::format("option '{}' is not in the probe's table", key));
}

const Value* OptionValues::find(std::string_view key) const {
  for (const auto& g : given_) {
    if (g.key == key) return &g.value;
  }
  return nullptr;
}

Value OptionValues::default_of(const OptionSpec& r) const {
  if (r.type == OptionType::flag) {
    if (r.def == "true" || r.def == "false") return r.def == "true";
  } else if (!r.def.empty()) {
    try {
      return parse_value(r, json(std::string(r.def)), std::string(r.name));
    } catch (const UsageError&) {
    }
  }
  throw std::logic_error(
      fmt::format("option '{}' has no default value ('{}'); check has() first", r.name, r.def));
}

json OptionValues::effective() const {
  json out = json::object();
  for (const auto& r : table_) {
    if (const Value* v = find(r.name)) {
      out[std::string(r.name)] = value_to_json(*v);
    } else if (!r.def.empty()) {
      try {
        out[std::string(r.name)] = value_to_json(default_of(r));
      } catch (const std::logic_error&) {
        out[std::string(r.name)] = r.def;  // a default in words
      }
    }
  }
  return out;
}

OptionValues parse_options(std::span<const OptionSpec> table, const json& options,
                           const OptionSource& source) {
  OptionValues out;
  out.table_ = table;
  out.source_ = source;
  if (options.is_null()) return out;
  if (!options.is_object()) {
    throw UsageError(fmt::format("{}: expected a mapping of option names to values",
                                 source.from_config() ? source.prefix() : "options"));
  }
  for (const auto& item : options.items()) {
    // A named reference, not a structured binding: clang 14 (the fuzz build) cannot capture a binding in a
    // lambda.
    const std::string& key = item.key();
    const json& value = item.value();
    auto it = std::find_if(table.begin(), table.end(), [&](const OptionSpec& r) {
      return r.name == key || (!r.alias.empty() && r.alias == key);
    });
    if (it == table.end()) {
      std::vector<std::string_view> names;
      for (const auto& r : table) {
        names.push_back(r.name);
        if (!r.alias.empty()) names.push_back(r.alias);
      }
      throw UsageError(
          fmt::format("{}: unknown option (allowed: {})", source.name(key), fmt::join(names, ", ")));
    }
    if (out.find(it->name) != nullptr)
      throw UsageError(fmt::format("{} and {} are the same option; give it once", source.name(it->name),
                                   source.name(it->alias)));
    out.given_.push_back({it->name, parse_value(*it, value, source.name(key))});
  }
  return out;
}

json flag_value(const OptionSpec& row, const std::string& text) {
  if (row.type == OptionType::integer) {
    if (auto n = whole_text(text)) return *n;
  } else if (row.type == OptionType::number) {
    if (auto x = number_text(text); x && std::isfinite(*x)) return *x;
  }
  return text;
}

json options_to_json(std::span<const OptionSpec> table) {
  json out = json::array();
  for (const auto& r : table) {
    json o{{"name", r.name}, {"type", to_string(r.type)}};
    if (!r.def.empty()) o["default"] = r.def;
    if (!r.unit.empty()) o["unit"] = r.unit;
    if (auto range = range_text(r); !range.empty()) o["range"] = range;
    if (r.choices != nullptr) o["choices"] = r.choices();
    o["help"] = r.help;
    if (!r.alias.empty()) o["alias"] = r.alias;
    if (r.cli) o["flag"] = flag_name(r.name);
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace mlbench
