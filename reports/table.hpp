// A small table model every cross-report view renders to, and its writers: aligned text (optionally
// coloured), Markdown, CSV and an HTML <table>. One model keeps the four formats showing the same rows.
#pragma once

#include <string>
#include <vector>

namespace mlbench {

// How a cell is emphasised: good (green), bad (red), warn (yellow), plain.
enum class Tone { plain, good, warn, bad };

struct Cell {
  std::string text;
  Tone tone = Tone::plain;
  bool numeric = false;  // right-aligned
};

struct Table {
  std::string title;
  std::vector<std::string> columns;
  std::vector<std::vector<Cell>> rows;
};

std::string to_text(const Table& t, bool colour);
std::string to_markdown(const Table& t);
// RFC 4180: fields with commas, quotes or newlines are quoted, quotes doubled. The title is not written.
std::string to_csv(const Table& t);
std::string to_html(const Table& t);

// One RFC 4180 CSV field: quoted (quotes doubled) when it holds a comma, quote or line break.
std::string csv_field(const std::string& s);
// A number as a CSV field: the shortest text that reads back to the same double; empty when not finite.
std::string csv_number(double v);
// Escapes &, <, >, " and ' for HTML/SVG text and attributes.
std::string html_escape(const std::string& s);

}  // namespace mlbench
