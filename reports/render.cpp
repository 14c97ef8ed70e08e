#include "reports/render.hpp"

#include <fmt/format.h>

#include "base/error.hpp"

namespace mlbench {
namespace {

bool has_tail(const Document& d) { return !d.notes.empty() || !d.closing.empty() || !d.list.empty(); }

std::string render_text(const Document& d, bool colour) {
  std::string out;
  if (!d.title.empty()) {
    out += d.title + "\n" + std::string(display_width(d.title), '=') + "\n";
    for (const auto& f : d.facts) out += f + "\n";
    out += "\n";
  }
  for (std::size_t i = 0; i < d.tables.size(); ++i) {
    out += to_text(d.tables[i], colour);
    if (i + 1 < d.tables.size() || has_tail(d)) out += "\n";
  }
  for (const auto& n : d.notes) out += "note: " + n + "\n";
  if (!d.closing.empty()) out += d.closing + "\n";
  if (!d.list.empty()) {
    out += d.list_title + "\n";
    for (const auto& item : d.list) out += "  - " + item + "\n";
  }
  return out;
}

std::string render_markdown(const Document& d) {
  std::string out;
  const int level = d.title.empty() ? 3 : 2;
  if (!d.title.empty()) {
    out += "# " + markdown_cell(d.title) + "\n\n";
    for (const auto& f : d.facts) out += "- " + f + "\n";
    out += "\n";
  }
  for (std::size_t i = 0; i < d.tables.size(); ++i) {
    out += to_markdown(d.tables[i], level);
    if (i + 1 < d.tables.size() || has_tail(d)) out += "\n";
  }
  for (const auto& n : d.notes) out += "note: " + n + "\n";
  if (!d.closing.empty()) out += d.closing + "\n";
  if (!d.list.empty()) {
    out += std::string(static_cast<std::size_t>(level), '#') + " " + markdown_cell(d.list_title) + "\n\n";
    for (const auto& item : d.list) out += "- " + item + "\n";
  }
  return out;
}

std::string render_csv(const Document& d) {
  if (d.tables.empty()) return {};
  Table all{"", d.tables.front().columns, {}};
  for (const auto& t : d.tables) all.rows.insert(all.rows.end(), t.rows.begin(), t.rows.end());
  return to_csv(all);
}

std::string render_html(const Document& d) {
  std::string body;
  for (const auto& t : d.tables) body += to_html(t);
  for (const auto& n : d.notes) body += "<p class=\"note\">note: " + html_escape(n) + "</p>\n";
  if (!d.closing.empty()) body += "<p>" + html_escape(d.closing) + "</p>\n";
  if (!d.list.empty()) {
    body += "<h2>" + html_escape(d.list_title) + "</h2>\n<ul>";
    for (const auto& item : d.list) body += "<li>" + html_escape(item) + "</li>";
    body += "</ul>\n";
  }
  if (d.title.empty()) return body;
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
                    html_escape(d.title) + "</title>\n<style>\n" + std::string(kHtmlTableStyle) +
                    "body{font-family:sans-serif}.note{color:#555}\n</style>\n</head>\n<body>\n";
  out += "<h1>" + html_escape(d.title) + "</h1>\n";
  if (!d.facts.empty()) {
    out += "<ul>";
    for (const auto& f : d.facts) out += "<li>" + html_escape(f) + "</li>";
    out += "</ul>\n";
  }
  return out + body + "</body>\n</html>\n";
}

}  // namespace

std::string render(const Document& d, Format f, bool colour) {
  switch (f) {
    case Format::text:
      return render_text(d, colour);
    case Format::markdown:
      return render_markdown(d);
    case Format::csv:
      return render_csv(d);
    case Format::json:
      return d.json.dump(2) + "\n";
    case Format::html:
      return render_html(d);
    case Format::xlsx:
    case Format::prometheus:
    case Format::fio:
      break;
  }
  throw Error(fmt::format("{} is not a format of tables", to_string(f)));
}

std::string render(const std::vector<Table>& tables, const std::vector<std::string>& notes, Format f,
                   bool colour) {
  Document d;
  d.tables = tables;
  d.notes = notes;
  return render(d, f, colour);
}

}  // namespace mlbench
