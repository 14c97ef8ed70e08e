// A small table model every cross-report view and the sizing sheet render to, and its writers: aligned text
// (optionally coloured), Markdown, CSV and an HTML <table>. One model keeps the four formats showing the same
// rows; reports/render.hpp puts tables, notes and titles together into one output.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace mlbench {

// How a cell is emphasised: good (green), bad (red), warn (yellow), plain.
enum class Tone { plain, good, warn, bad };

struct Cell {
  std::string text;
  Tone tone = Tone::plain;
  bool numeric = false;                         // right-aligned
  std::optional<double> number = std::nullopt;  // the exact value `text` shows, for writers that keep numbers
  std::string unit;                             // of `number` ("B", "B/s", "drives"), for those writers
};

struct Table {
  std::string title;
  std::vector<std::string> columns;
  std::vector<std::vector<Cell>> rows;
  // Text layout only (the other writers show every column as one): the first column's value is a heading
  // line where it changes instead of a column, and the last `details` columns are lines beneath their row
  // ("column: value", left out when empty) — for rows whose long fields would not fit across a terminal.
  bool grouped = false;
  std::size_t details = 0;
  // Text layout only: the columns a row may take (a terminal's width; 0: no limit). When a row is wider, the
  // widest text columns (the params) give way, cut with "..."; numbers never do.
  std::size_t width = 0;
};

// Display width in code points: UTF-8 continuation bytes do not advance the cursor.
std::size_t display_width(const std::string& s);
// `s` within `max` display columns, ending "..." when cut; never cut inside a UTF-8 sequence.
std::string cut_to_width(const std::string& s, std::size_t max);
std::string to_text(const Table& t, bool colour);
// The title as a Markdown heading of `level` (3: "###").
std::string to_markdown(const Table& t, int level = 3);
// RFC 4180: fields with commas, quotes or newlines are quoted, quotes doubled. The title is not written.
std::string to_csv(const Table& t);
std::string to_html(const Table& t);

// One Markdown table cell: pipes escaped, line breaks as spaces.
std::string markdown_cell(const std::string& s);
// One RFC 4180 CSV field: quoted (quotes doubled) when it holds a comma, quote or line break.
std::string csv_field(const std::string& s);
// A number as a CSV field: the shortest text that reads back to the same double; empty when not finite.
std::string csv_number(double v);
// Escapes &, <, >, " and ' for HTML/SVG text and attributes.
std::string html_escape(const std::string& s);

}  // namespace mlbench
