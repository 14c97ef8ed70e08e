#include "reports/table.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "base/utf8.hpp"

namespace mlbench {
namespace {

const char* ansi(Tone tone) {
  switch (tone) {
    case Tone::good:
      return "\033[32m";
    case Tone::warn:
      return "\033[33m";
    case Tone::bad:
      return "\033[1;31m";
    case Tone::plain:
      break;
  }
  return "";
}

}  // namespace

std::size_t display_width(const std::string& s) {
  return static_cast<std::size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string cut_to_width(const std::string& s, std::size_t max) {
  if (display_width(s) <= max) return s;
  if (max <= 3) return std::string(max, '.');
  std::string out;
  for (std::size_t i = 0, cols = 0; i < s.size() && cols + 3 < max; ++cols) {
    const std::size_t n = std::max<std::size_t>(1, utf8_sequence_length(s, i));
    out += s.substr(i, n);
    i += n;
  }
  return out + "...";
}

std::string to_text(const Table& t, bool colour) {
  const std::size_t first = t.grouped ? 1 : 0;
  const std::size_t last = t.columns.size() - std::min(t.details, t.columns.size() - first);
  const std::string indent = t.grouped ? "  " : "";
  std::vector<std::size_t> widths(t.columns.size(), 0);
  for (std::size_t c = first; c < last; ++c) widths[c] = display_width(t.columns[c]);
  for (const auto& row : t.rows) {
    for (std::size_t c = first; c < row.size() && c < last; ++c)
      widths[c] = std::max(widths[c], display_width(row[c].text));
  }
  if (t.width > 0) {
    // The widest text column gives way, one column at a time (so that two wide ones end equally wide), until
    // a row fits or every text column is down to kNarrowest.
    constexpr std::size_t kNarrowest = 24;
    std::vector<bool> numeric(t.columns.size(), false);
    for (const auto& row : t.rows) {
      for (std::size_t c = 0; c < row.size() && c < numeric.size(); ++c)
        numeric[c] = numeric[c] || row[c].numeric;
    }
    auto row_width = [&] {
      std::size_t w = indent.size();
      for (std::size_t c = first; c < last; ++c) w += widths[c] + (c == first ? 0 : 2);
      return w;
    };
    for (std::size_t w = row_width(); w > t.width; w = row_width()) {
      std::size_t widest = last;
      for (std::size_t c = first; c < last; ++c) {
        if (!numeric[c] && widths[c] > kNarrowest && (widest == last || widths[c] > widths[widest]))
          widest = c;
      }
      if (widest == last) break;
      --widths[widest];
    }
  }
  std::string out;
  if (!t.title.empty()) out += t.title + "\n";
  auto line = [&](const std::vector<Cell>& cells) {
    std::string l = indent;
    for (std::size_t c = first; c < cells.size() && c < last; ++c) {
      const std::string shown = cut_to_width(cells[c].text, widths[c]);
      std::string pad(widths[c] - display_width(shown), ' ');
      std::string text = colour && cells[c].tone != Tone::plain
                             ? std::string(ansi(cells[c].tone)) + shown + "\033[0m"
                             : shown;
      l += (c == first ? "" : "  ") + (cells[c].numeric ? pad + text : text + pad);
    }
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l + "\n";
    for (std::size_t c = last; c < cells.size() && c < t.columns.size(); ++c) {
      if (!cells[c].text.empty()) out += indent + "  " + t.columns[c] + ": " + cells[c].text + "\n";
    }
  };
  std::vector<Cell> header;
  for (std::size_t c = 0; c < last; ++c) header.push_back(Cell{t.columns[c]});
  line(header);
  const std::string* group = nullptr;
  for (const auto& row : t.rows) {
    if (t.grouped && !row.empty() && (group == nullptr || *group != row[0].text)) {
      group = &row[0].text;
      out += "\n" + *group + "\n";
    }
    line(row);
  }
  return out;
}

std::string to_markdown(const Table& t, int level) {
  std::string out;
  if (!t.title.empty())
    out += std::string(static_cast<std::size_t>(level), '#') + " " + markdown_cell(t.title) + "\n\n";
  out += "|";
  for (const auto& c : t.columns) out += " " + markdown_cell(c) + " |";
  out += "\n|";
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    bool numeric = !t.rows.empty() && c < t.rows.front().size() && t.rows.front()[c].numeric;
    out += numeric ? "---:|" : "---|";
  }
  out += "\n";
  for (const auto& row : t.rows) {
    out += "|";
    for (const auto& cell : row) {
      std::string text = markdown_cell(cell.text);
      out += " " + (cell.tone == Tone::bad ? "**" + text + "**" : text) + " |";
    }
    out += "\n";
  }
  return out;
}

std::string markdown_cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

std::string csv_number(double v) { return std::isfinite(v) ? fmt::format("{}", v) : std::string(); }

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string to_csv(const Table& t) {
  std::string out;
  for (std::size_t c = 0; c < t.columns.size(); ++c) out += (c ? "," : "") + csv_field(t.columns[c]);
  out += "\n";
  for (const auto& row : t.rows) {
    for (std::size_t c = 0; c < row.size(); ++c) out += (c ? "," : "") + csv_field(row[c].text);
    out += "\n";
  }
  return out;
}

std::string html_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string to_html(const Table& t) {
  static constexpr const char* kToneClass[] = {"", "good", "warn", "bad"};
  std::string out = "<table>\n";
  if (!t.title.empty()) out += "<caption>" + html_escape(t.title) + "</caption>\n";
  out += "<thead><tr>";
  for (const auto& c : t.columns) out += "<th>" + html_escape(c) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& row : t.rows) {
    out += "<tr>";
    for (const auto& cell : row) {
      std::string cls = kToneClass[static_cast<int>(cell.tone)];
      if (cell.numeric) cls += cls.empty() ? "num" : " num";
      out += cls.empty() ? "<td>" : fmt::format("<td class=\"{}\">", cls);
      out += html_escape(cell.text) + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</tbody>\n</table>\n";
}

}  // namespace mlbench
