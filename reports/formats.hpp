// Every output format mlbench writes and what each can carry: the one list that `--format`'s choices and help
// (compare, check, export, size), its refusals and `mlbench list --formats` read. A kind of output is what a
// command renders (a report, a comparison, a fleet, a check, a sizing sheet, the cooling comparison); a
// format carries a kind when that kind's renderer writes it (reports/writers.hpp for the reports' kinds,
// sizing/sheet.hpp for the sheet's).
#pragma once

#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/names.hpp"

namespace mlbench {

enum class Format { text, markdown, csv, json, html, xlsx, prometheus, fio };
// The --format names.
inline constexpr EnumName<Format> kFormatNames[] = {{Format::text, "table"},
                                                    {Format::markdown, "md"},
                                                    {Format::csv, "csv"},
                                                    {Format::json, "json"},
                                                    {Format::html, "html"},
                                                    {Format::xlsx, "xlsx"},
                                                    {Format::prometheus, "prometheus"},
                                                    {Format::fio, "fio"}};
static_assert(names_cover(kFormatNames));

// What a command renders.
enum class Content { report, compare, fleet, check, sizing_sheet, cooling };
inline constexpr EnumName<Content> kContentNames[] = {{Content::report, "report"},
                                                      {Content::compare, "compare"},
                                                      {Content::fleet, "fleet"},
                                                      {Content::check, "check"},
                                                      {Content::sizing_sheet, "sizing-sheet"},
                                                      {Content::cooling, "cooling-comparison"}};
static_assert(names_cover(kContentNames));
// The command that writes each kind, as the user types it (its refusals name it), in the order of the enum.
inline constexpr std::string_view kContentCommands[] = {"export", "compare", "compare --fleet",
                                                        "check",  "size",    "size --compare-cooling"};
static_assert(std::size(kContentCommands) == std::size(kContentNames));

// A set of kinds, one bit each.
constexpr unsigned kinds(std::initializer_list<Content> list) {
  unsigned bits = 0;
  for (Content k : list) bits |= 1u << static_cast<unsigned>(k);
  return bits;
}
// What the table writers (reports/render.hpp) carry: every kind made of tables.
inline constexpr unsigned kTableKinds =
    kinds({Content::compare, Content::fleet, Content::check, Content::sizing_sheet, Content::cooling});

// A format's row: what it is and the kinds it carries.
struct FormatInfo {
  Format format;
  std::string_view description;
  unsigned carries;  // kinds()
};
// One row per format, in the order of the enum (the order every list of formats is shown in).
inline constexpr FormatInfo kFormats[] = {
    {Format::text, "aligned text tables (coloured on a terminal)", kTableKinds},
    {Format::markdown, "Markdown tables", kTableKinds},
    {Format::csv, "data only, numbers unformatted (notes and the verdict on stderr)", kTableKinds},
    {Format::json, "the data behind the tables, in full", kTableKinds},
    {Format::html, "a self-contained page (inline CSS and SVG charts)",
     kTableKinds | kinds({Content::report})},
    {Format::xlsx, "an Excel workbook with live formulas (needs -o FILE)", kinds({Content::sizing_sheet})},
    {Format::prometheus, "the Prometheus textfile-collector format (node_exporter)",
     kinds({Content::report})},
    {Format::fio, "the storage jobs in fio's JSON schema, for fio-plot and fio's readers",
     kinds({Content::report})},
};
constexpr bool formats_cover() {
  if (std::size(kFormats) != std::size(kFormatNames)) return false;
  for (std::size_t i = 0; i < std::size(kFormats); ++i) {
    if (kFormats[i].format != kFormatNames[i].value || kFormats[i].carries == 0) return false;
  }
  return true;
}
static_assert(formats_cover(), "kFormats: one row per Format, in the enum's order, each carrying a kind");

std::string_view to_string(Format f);
std::string_view to_string(Content k);
// nullopt for a name that is not a format.
std::optional<Format> format_from_string(std::string_view name);
// Every --format name, in the order of the enum.
std::vector<std::string> format_names();

bool carries(Format f, Content k);
// The names of the formats `k` can be written in, in the order of the enum.
std::vector<std::string> format_names(Content k);
// "html, prometheus or fio": the formats `k` can be written in, as a sentence names them.
std::string format_list(Content k);
// "table | md | csv | json | html (`mlbench list --formats` says what each is)": a --format's help.
std::string format_help(Content k);
// The format called `name` when `k` can be written in it; else UsageError naming the formats `k` can be
// written in ("unknown --format 'pdf' (...)", "--format xlsx: a compare is not written as xlsx (...)").
Format format_for(Content k, std::string_view name);
// [{name, description, carries: [kind...], commands: [the command of each kind]}], in the order of the enum,
// for `mlbench list --formats --json`.
nlohmann::json formats_to_json();

}  // namespace mlbench
