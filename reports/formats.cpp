#include "reports/formats.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"

namespace mlbench {
namespace {

// "a", "a or b", "a, b or c".
std::string english_list(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    out += names[i];
  }
  return out;
}

}  // namespace

std::string_view to_string(Format f) { return name_of(kFormatNames, f); }

std::string_view to_string(Content k) { return name_of(kContentNames, k); }

std::optional<Format> format_from_string(std::string_view name) { return value_of(kFormatNames, name); }

std::vector<std::string> format_names() {
  std::vector<std::string> out;
  for (const auto& row : kFormatNames) out.emplace_back(row.name);
  return out;
}

bool carries(Format f, Content k) {
  return (kFormats[static_cast<std::size_t>(f)].carries & kinds({k})) != 0;
}

std::vector<std::string> format_names(Content k) {
  std::vector<std::string> out;
  for (const auto& row : kFormats) {
    if (carries(row.format, k)) out.emplace_back(to_string(row.format));
  }
  return out;
}

std::string format_list(Content k) { return english_list(format_names(k)); }

std::string format_help(Content k) {
  return fmt::format("{} (`mlbench list --formats` says what each is)", fmt::join(format_names(k), " | "));
}

Format format_for(Content k, std::string_view name) {
  const std::string_view command = kContentCommands[static_cast<std::size_t>(k)];
  const std::string can = format_list(k);
  const auto f = format_from_string(name);
  if (!f) throw UsageError(fmt::format("unknown --format '{}' ({} writes {})", name, command, can));
  if (!carries(*f, k))
    throw UsageError(fmt::format("--format {}: {} writes {}, not {}", name, command, can, name));
  return *f;
}

nlohmann::json formats_to_json() {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& row : kFormats) {
    nlohmann::json kinds_carried = nlohmann::json::array(), commands = nlohmann::json::array();
    for (const auto& k : kContentNames) {
      if (!carries(row.format, k.value)) continue;
      kinds_carried.push_back(k.name);
      commands.push_back(kContentCommands[static_cast<std::size_t>(k.value)]);
    }
    out.push_back({{"name", to_string(row.format)},
                   {"description", row.description},
                   {"carries", std::move(kinds_carried)},
                   {"commands", std::move(commands)}});
  }
  return out;
}

}  // namespace mlbench
