// A probe's options, declared once in a table (fio's options[] is the model): one row per option with its
// name (the key of the probe's options JSON), type, range, default, unit and help. Everything else reads the
// table: the family subcommand's flags (cli/common.hpp add_option_flags), `run --config` validation, `list
// --json` and `--dry-run`; parse_options() turns an options JSON into validated typed values.
//
// A value comes as JSON from a config file (numbers, strings, lists) or as the text of a flag; every type
// takes both. Sizes take fio suffixes (4k, 1M: binary) and durations seconds or a suffix (5s, 2m), both
// through base/units.hpp. Errors name the option the way the user gave it: `--rwmix-read` on the command
// line, `options.storage.io.rwmix_read` in a config file (OptionSource). Checks between options (rwmix_read
// only with randrw) stay in the probe, after this generic pass, and name options through the same source.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/names.hpp"

namespace mlbench {

enum class OptionType {
  flag,      // true or false; on the command line --NAME, and --no-NAME too when it defaults to true
  integer,   // a whole number within [min, max]
  number,    // a real number within [min, max]
  size,      // bytes: a whole number or fio suffixes (4k, 128k, 1M, 2G), within [min, max]
  duration,  // seconds: a number or a suffix (us, ms, s, m, h), within [min, max]
  choice,    // one of `choices`
  choices,   // a comma-separated list (or JSON list) of `choices`, duplicates dropped
  integers,  // a comma-separated list of whole numbers, each within [min, max]
  text,      // free text
  list,      // a comma-separated list (or JSON list) of free text items
  paths,     // paths (a flag repeated, or a JSON list); never split at commas
};
// As `list --json` shows each type.
inline constexpr EnumName<OptionType> kOptionTypeNames[] = {
    {OptionType::flag, "bool"},         {OptionType::integer, "int"},       {OptionType::number, "number"},
    {OptionType::size, "size"},         {OptionType::duration, "duration"}, {OptionType::choice, "enum"},
    {OptionType::choices, "enum list"}, {OptionType::integers, "int list"}, {OptionType::text, "string"},
    {OptionType::list, "string list"},  {OptionType::paths, "path list"}};
static_assert(names_cover(kOptionTypeNames));
std::string_view to_string(OptionType t);

inline constexpr double kUnbounded = std::numeric_limits<double>::infinity();

struct OptionSpec {
  std::string_view name;  // key in the options JSON ("rwmix_read"); the flag is --rwmix-read
  // Another name for the same option, as fio spells it ("numjobs" for jobs): a second flag (--numjobs) and a
  // second key a config file may use; messages, reports and --dry-run name the option by `name`.
  std::string_view alias;
  OptionType type = OptionType::text;
  // The default as users read it ("4k", "auto", "all; quick: bf16,fp8"); empty when there is none. When it
  // is a value of the option's type, OptionValues::get() falls back to it; a default in words (it depends on
  // the profile or the machine) is applied by the probe, which asks has() first.
  std::string_view def;
  std::string_view unit;                       // of the value ("B", "s", "%"); empty for counts and names
  double min = -kUnbounded, max = kUnbounded;  // inclusive range of integer, number, size, duration, integers
  bool min_exclusive = false;                  // the value must be greater than min
  std::vector<std::string_view> (*choices)() = nullptr;  // choice, choices: the names allowed, in order
  std::string_view help;
  std::string_view off_help;  // a flag that defaults to true: the help of --no-NAME
  bool cli = true;            // false: not a flag of the family subcommand (another flag sets it)
};

// How the user gave a probe's options, so that a message names an option as the user wrote it.
class OptionSource {
 public:
  OptionSource() = default;                               // flags: --rwmix-read
  static OptionSource config(std::string_view probe_id);  // a --config file: options.storage.io.rwmix_read
  static OptionSource job_file();                         // a fio-style job file: the key itself, rwmix_read
  std::string name(std::string_view key) const;
  bool from_config() const { return !prefix_.empty() || bare_; }
  std::string_view prefix() const { return prefix_; }  // "options.storage.io"; empty for flags

 private:
  std::string prefix_;
  bool bare_ = false;
};

// "--rwmix-read" for "rwmix_read".
std::string flag_name(std::string_view key);
// A flag's text as the options JSON (and the report's run.options) records it: a number for an integer or
// number option when the text is one, as a config file would give it; the text otherwise (sizes and durations
// keep their suffixes; text that is no number is refused by parse_options, naming the flag).
nlohmann::json flag_value(const OptionSpec& row, const std::string& text);
// The row's range as users read it ("1 to 4096", "greater than 0s", "at most 1G"); empty when unbounded.
std::string range_text(const OptionSpec& row);

// The validated values of one probe's options: what the user gave, typed, and the table's defaults.
class OptionValues {
 public:
  using Value = std::variant<bool, std::int64_t, double, std::uint64_t, std::string, std::vector<std::string>,
                             std::vector<std::int64_t>>;

  // True when the user gave this option.
  bool has(std::string_view key) const;
  // The value given, else the row's default parsed. T follows the type: flag bool, integer std::int64_t,
  // number and duration double, size std::uint64_t, choice and text std::string, choices, list and paths
  // std::vector<std::string>, integers std::vector<std::int64_t>. Asking for another type, or for the
  // default of a row whose default is words, is a bug (std::logic_error).
  template <class T>
  T get(std::string_view key) const;
  // The value given, or nullopt.
  template <class T>
  std::optional<T> given(std::string_view key) const;

  // How the user names `key` (--bs, options.storage.io.bs).
  std::string name(std::string_view key) const { return source_.name(key); }
  const OptionSource& source() const { return source_; }
  // Every row: the value given, else the default, typed (sizes in bytes, durations in seconds); a default in
  // words as its text.
  nlohmann::json effective() const;

 private:
  friend OptionValues parse_options(std::span<const OptionSpec>, const nlohmann::json&, const OptionSource&);
  struct Given {
    std::string_view key;
    Value value;
  };
  const OptionSpec& row(std::string_view key) const;
  const Value* find(std::string_view key) const;
  Value default_of(const OptionSpec& row) const;
  template <class T>
  static T as(const Value& v, std::string_view key);

  std::span<const OptionSpec> table_;
  std::vector<Given> given_;
  OptionSource source_;
};

// Checks every key of `options` against `table` (an unknown key is refused, naming the keys allowed) and
// every value against its row; throws UsageError naming the option through `source`. A null `options` is
// no options.
OptionValues parse_options(std::span<const OptionSpec> table, const nlohmann::json& options,
                           const OptionSource& source = {});

// The names of an enum's table (base/names.hpp) as an option's choices.
template <class E, std::size_t N>
std::vector<std::string_view> choices_of(const EnumName<E> (&table)[N]) {
  std::vector<std::string_view> out;
  for (const auto& row : table) out.push_back(row.name);
  return out;
}

// The table as `list --json` documents it: [{name, type, default, unit, range, choices, help}].
nlohmann::json options_to_json(std::span<const OptionSpec> table);

template <class T>
T OptionValues::as(const Value& v, std::string_view key) {
  if (const T* p = std::get_if<T>(&v)) return *p;
  throw std::logic_error(fmt::format("option '{}' read as the wrong type", key));
}

template <class T>
T OptionValues::get(std::string_view key) const {
  if (const Value* v = find(key)) return as<T>(*v, key);
  return as<T>(default_of(row(key)), key);
}

template <class T>
std::optional<T> OptionValues::given(std::string_view key) const {
  if (const Value* v = find(key)) return as<T>(*v, key);
  row(key);  // a key not in the table is a bug, also when it was not given
  return std::nullopt;
}

}  // namespace mlbench
