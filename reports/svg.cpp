#include "reports/svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "reports/table.hpp"

namespace mlbench {
namespace {

constexpr double kWidth = kChartWidth;
constexpr double kLeft = 70;
constexpr double kRight = 20;
constexpr double kTop = 34;
constexpr double kPlotHeight = 220;
// Left of a row-label column: its labels end kLabelPad before the plot.
constexpr double kLabelPad = 10;
constexpr const char* kPalette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                                    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
constexpr std::size_t kPaletteSize = sizeof(kPalette) / sizeof(kPalette[0]);

// Fleet outliers: worse than the median red, better green.
constexpr const char* kWorse = "#e15759";
constexpr const char* kBetter = "#1a7f37";

const char* colour(std::size_t i) { return kPalette[i % kPaletteSize]; }

double radians(double degrees) { return degrees * std::numbers::pi / 180; }

std::string number_label(double v) {
  if (v == 0) return "0";
  return fmt::format("{:g}", std::round(v * 1000) / 1000);
}

// "4K", "1M", "8G": binary sizes for the log-2 byte axis.
std::string byte_label(double bytes) {
  static constexpr const char* kUnits[] = {"", "K", "M", "G", "T"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  return fmt::format("{:g}{}", bytes, kUnits[u]);
}

// The longest prefix of `word` (whole code points, at least one) no wider than `max_width`.
std::size_t fitting_prefix(const std::string& word, double max_width, double font_size) {
  std::size_t end = 0;
  for (std::size_t i = 1; i <= word.size(); ++i) {
    bool boundary = i == word.size() || (static_cast<unsigned char>(word[i]) & 0xC0) != 0x80;
    if (!boundary) continue;
    if (end > 0 && text_width(std::string_view(word).substr(0, i), font_size) > max_width) break;
    end = i;
  }
  return end;
}

// Lines of text set from `y` down, `kLineHeight` apart.
std::string text_lines(const std::vector<std::string>& lines, double x, double y, const char* anchor) {
  std::string out = fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"{}\">", x, y, anchor);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    out += i == 0 ? "<tspan>" : fmt::format("<tspan x=\"{:.1f}\" dy=\"{:g}\">", x, kLineHeight);
    out += html_escape(lines[i]) + "</tspan>";
  }
  return out + "</text>";
}

std::string open_svg(double height, const std::string& title) {
  return fmt::format(
             "<svg class=\"chart\" role=\"img\" width=\"100%\" viewBox=\"0 0 {:g} {:.0f}\" "
             "font-family=\"sans-serif\" font-size=\"{:g}\">\n<title>{}</title>\n",
             kWidth, std::ceil(height), kFontSize, html_escape(title)) +
         fmt::format("<text x=\"{:g}\" y=\"18\" font-size=\"14\" font-weight=\"bold\">{}</text>\n", kLeft,
                     html_escape(title));
}

std::string legend(const std::vector<std::string>& names, double y) {
  std::string out;
  double x = kLeft;
  for (std::size_t i = 0; i < names.size(); ++i) {
    double w = 18 + text_width(names[i]) + 14;
    if (x + w > kWidth - kRight && x > kLeft) {
      x = kLeft;
      y += 16;
    }
    out += fmt::format("<rect x=\"{:g}\" y=\"{:g}\" width=\"12\" height=\"12\" fill=\"{}\"/>", x, y - 10,
                       colour(i));
    out += fmt::format("<text x=\"{:g}\" y=\"{:g}\">{}</text>\n", x + 16, y, html_escape(names[i]));
    x += w;
  }
  return out;
}

double legend_height(const std::vector<std::string>& names) {
  double x = kLeft;
  double rows = names.empty() ? 0 : 1;
  for (const auto& n : names) {
    double w = 18 + text_width(n) + 14;
    if (x + w > kWidth - kRight && x > kLeft) {
      x = kLeft;
      ++rows;
    }
    x += w;
  }
  return rows * 16;
}

// Horizontal grid lines and y labels for ticks scaled into the plot (from `top`, `height` tall), and the axis
// title turned along its left edge.
std::string y_grid(const std::vector<double>& ticks, double lo, double hi, const std::string& title,
                   double left = kLeft, double top = kTop, double height = kPlotHeight) {
  std::string out;
  for (double t : ticks) {
    double y = top + height * (1 - (t - lo) / (hi - lo));
    out += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:g}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>", left,
                       y, kWidth - kRight, y);
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", left - 6, y + 4,
                       number_label(t));
  }
  out += fmt::format("<text transform=\"translate(14,{:g}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n",
                     top + height / 2, html_escape(title));
  return out;
}

// A column of row labels, each wrapped to the column's width: the width of the longest label, at most
// kMaxLabelColumn of the chart.
struct LabelColumn {
  double width = 0;
  std::vector<std::vector<std::string>> lines;
  std::vector<double> row_heights;  // each at least `min_row`, and tall enough for its lines
  double total = 0;
};

LabelColumn label_column(const std::vector<std::string>& labels, double min_row, double padding) {
  LabelColumn c;
  for (const auto& l : labels) c.width = std::max(c.width, text_width(l));
  c.width = std::min(c.width, kMaxLabelColumn * kWidth);
  for (const auto& l : labels) {
    c.lines.push_back(wrap_text(l, c.width));
    double h = std::max(min_row, kLineHeight * static_cast<double>(c.lines.back().size()) + padding);
    c.row_heights.push_back(h);
    c.total += h;
  }
  return c;
}

// A row's label, its lines centred on the row (the first baseline 10 units below the lines' top).
std::string row_label(const std::vector<std::string>& lines, double right, double top, double height) {
  double block = kLineHeight * static_cast<double>(lines.size());
  return text_lines(lines, right, top + (height - block) / 2 + 10, "end");
}

}  // namespace

double text_width(std::string_view text, double font_size) {
  // DejaVu Sans's advances of ASCII 32..126 in font units (2048 an em), as Chromium measures them.
  static constexpr std::uint16_t kAdvance[95] = {
      651,  821,  942,  1716, 1303, 1946, 1597, 563,  799,  799,  1024, 1716, 651,  739,  651,  690,
      1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 690,  690,  1716, 1716, 1716, 1087,
      2048, 1401, 1405, 1430, 1577, 1294, 1178, 1587, 1540, 604,  604,  1343, 1141, 1767, 1532, 1612,
      1235, 1612, 1423, 1300, 1251, 1499, 1401, 2025, 1403, 1251, 1403, 799,  690,  799,  1716, 1024,
      1024, 1255, 1300, 1126, 1300, 1260, 721,  1300, 1298, 569,  569,  1186, 569,  1995, 1298, 1253,
      1300, 1300, 842,  1067, 803,  1298, 1212, 1675, 1212, 1212, 1075, 1303, 690,  1303, 1716};
  constexpr double kUnitsPerEm = 2048;
  double units = 0;
  for (char ch : text) {
    auto c = static_cast<unsigned char>(ch);
    if (c >= 32 && c <= 126) {
      units += kAdvance[c - 32];
    } else if ((c & 0xC0) != 0x80) {
      units += kUnitsPerEm;  // a control character or the first byte of a code point beyond ASCII
    }
  }
  // Chromium rounds glyph advances at small sizes: up to 0.3 % wider than the font's (measured at 11 px).
  constexpr double kRounding = 1.01;
  return kRounding * font_size * units / kUnitsPerEm;
}

std::vector<std::string> wrap_text(const std::string& text, double max_width, double font_size) {
  std::vector<std::string> lines;
  std::string line;
  auto add_word = [&](std::string word) {
    while (text_width(word, font_size) > max_width) {
      if (!line.empty()) lines.push_back(std::exchange(line, {}));
      std::size_t cut = fitting_prefix(word, max_width, font_size);
      lines.push_back(word.substr(0, cut));
      word.erase(0, cut);
    }
    if (word.empty()) return;
    if (!line.empty() && text_width(line + " " + word, font_size) <= max_width) {
      line += " " + word;
    } else {
      if (!line.empty()) lines.push_back(std::exchange(line, {}));
      line = std::move(word);
    }
  };
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t space = text.find(' ', start);
    if (space == std::string::npos) space = text.size();
    if (space > start) add_word(text.substr(start, space - start));
    start = space + 1;
  }
  if (!line.empty() || lines.empty()) lines.push_back(line);
  return lines;
}

BarLabelLayout layout_bar_labels(const std::vector<std::string>& labels, double slot_width) {
  // Neighbouring labels keep this much space between them.
  constexpr double kGap = 4;
  const double room = slot_width - kGap;
  auto fits = [&](const std::string& text) { return text_width(text) <= room; };
  BarLabelLayout out;
  if (std::all_of(labels.begin(), labels.end(), fits)) {
    for (const auto& l : labels) out.lines.push_back({l});
    out.height = kLineHeight + 6;
    return out;
  }
  // Wrapped at spaces when no word alone is wider than the slot and no label needs too many lines.
  bool wraps = true;
  std::size_t most_lines = 1;
  for (const auto& l : labels) {
    for (std::size_t start = 0, end = 0; start <= l.size(); start = end + 1) {
      end = std::min(l.find(' ', start), l.size());
      wraps = wraps && fits(l.substr(start, end - start));
    }
    out.lines.push_back(wrap_text(l, room));
    wraps = wraps && out.lines.back().size() <= kMaxLabelLines;
    most_lines = std::max(most_lines, out.lines.back().size());
  }
  if (wraps) {
    out.height = kLineHeight * static_cast<double>(most_lines) + 6;
    return out;
  }
  // Turned labels are parallel lines slot × sin(angle) apart: 45° while that clears a line of text, else
  // upright, in a font small enough for its lines to clear each other.
  out.angle = slot_width * std::sin(radians(45)) >= kLineHeight ? 45 : 90;
  out.font_size = std::min(kFontSize, kFontSize * slot_width / kLineHeight);
  double longest = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    out.lines[i] = {labels[i]};
    longest = std::max(longest, text_width(labels[i], out.font_size));
  }
  out.height = 10 + longest * std::sin(radians(out.angle)) + out.font_size * std::cos(radians(out.angle)) + 4;
  return out;
}

AxisUnit axis_unit(double max_value, const std::string& unit) {
  if (unit == "s") {
    if (max_value < 1e-3) return {1e-6, "us"};
    if (max_value < 1) return {1e-3, "ms"};
    return {1, "s"};
  }
  if (unit == "%" || unit.empty()) return {1, unit};
  // Events per second read better as "M/s" than "M1/s".
  std::string base = unit == "1/s" ? "/s" : unit;
  static constexpr const char* kPrefixes[] = {"", "k", "M", "G", "T", "P"};
  double factor = 1;
  int p = 0;
  while (max_value / factor >= 1000 && p < 5) {
    factor *= 1000;
    ++p;
  }
  return {factor, std::string(kPrefixes[p]) + base};
}

std::vector<double> nice_ticks(double min, double max, int count) {
  if (!(max > min) || count < 1) return {min};
  double mag = std::pow(10, std::floor(std::log10((max - min) / count)));
  // The 1/2/5 step whose tick count is closest to the wish.
  double step = mag;
  double best = INFINITY;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    double miss = std::fabs((max - min) / (m * mag) - count);
    if (miss < best) {
      best = miss;
      step = m * mag;
    }
  }
  std::vector<double> ticks;
  for (double k = std::ceil(min / step - 1e-9); k * step <= max + step * 1e-9; ++k) ticks.push_back(k * step);
  return ticks;
}

std::string svg_bar_chart(const BarChart& c) {
  double max = 0;
  for (const auto& g : c.groups) {
    for (double v : g.values) {
      if (std::isfinite(v)) max = std::max(max, v);
    }
  }
  AxisUnit u = axis_unit(max, c.unit);
  auto ticks = nice_ticks(0, max / u.factor, 5);
  double hi = ticks.empty() || ticks.back() <= 0 ? 1 : std::max(ticks.back(), max / u.factor);
  const double groups = static_cast<double>(std::max<std::size_t>(1, c.groups.size()));
  std::vector<std::string> names;
  for (const auto& g : c.groups) names.push_back(g.label);
  double left = kLeft;
  auto group_w = [&] { return (kWidth - left - kRight) / groups; };
  BarLabelLayout labels = layout_bar_labels(names, group_w());
  if (labels.angle > 0 && labels.angle < 90) {
    // A slanted label hangs left of its group's centre by width × cos(angle): widen the left margin so the
    // first ones stay inside the chart (solved for the margin, since the slots narrow as it grows).
    for (std::size_t i = 0; i < names.size(); ++i) {
      double centre = (static_cast<double>(i) + 0.5) / groups;
      double reach = text_width(names[i]) * std::cos(radians(labels.angle)) + 4;
      left = std::max(left, (reach - (kWidth - kRight) * centre) / (1 - centre));
    }
    labels = layout_bar_labels(names, group_w());
  }
  const double axis = kTop + kPlotHeight;
  const double legend_y = axis + labels.height + 18;
  std::string out = open_svg(legend_y + legend_height(c.series) - 6, c.title);
  out += y_grid(ticks, 0, hi, u.label, left);
  double bar_w = group_w() * 0.8 / static_cast<double>(std::max<std::size_t>(1, c.series.size()));
  for (std::size_t gi = 0; gi < c.groups.size(); ++gi) {
    const auto& g = c.groups[gi];
    double gx = left + group_w() * static_cast<double>(gi) + group_w() * 0.1;
    for (std::size_t si = 0; si < g.values.size() && si < c.series.size(); ++si) {
      double v = g.values[si];
      if (!std::isfinite(v)) continue;
      double h = kPlotHeight * (v / u.factor) / hi;
      double x = gx + bar_w * static_cast<double>(si);
      out += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\">"
          "<title>{} {}: {} {}</title></rect>\n",
          x, axis - h, std::max(bar_w - 1, 1.0), h, colour(si), html_escape(c.series[si]),
          html_escape(g.label), number_label(v / u.factor), html_escape(u.label));
    }
    double centre = gx + group_w() * 0.4;
    if (labels.angle == 0) {
      out += text_lines(labels.lines[gi], centre, axis + 16, "middle") + "\n";
    } else {
      // The end of the label at the axis, the text hanging down to the left; shifted right by a third of
      // the font size so the turned glyphs sit centred under the group.
      double x = centre + labels.font_size / 3;
      out += fmt::format(
          "<text class=\"turned\" x=\"{0:.1f}\" y=\"{1:g}\" text-anchor=\"end\" font-size=\"{2:.3g}\" "
          "transform=\"rotate(-{3:g} {0:.1f} {1:g})\">{4}</text>\n",
          x, axis + 10, labels.font_size, labels.angle, html_escape(g.label));
    }
  }
  out += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:g}\" x2=\"{2:g}\" y2=\"{1:g}\" stroke=\"#333\"/>\n", left,
                     axis, kWidth - kRight);
  out += legend(c.series, legend_y);
  return out + "</svg>\n";
}

std::string svg_line_chart(const LineChart& c) {
  double xmin = INFINITY, xmax = 0, ymax = 0;
  for (const auto& s : c.series) {
    for (auto [x, y] : s.points) {
      if (!(x > 0) || !std::isfinite(y)) continue;
      xmin = std::min(xmin, x);
      xmax = std::max(xmax, x);
      ymax = std::max(ymax, y);
    }
  }
  if (!(xmax > 0)) xmin = xmax = 1;
  double lx0 = std::floor(std::log2(xmin));
  double lx1 = std::max(std::ceil(std::log2(xmax)), lx0 + 1);
  AxisUnit u = axis_unit(ymax, c.unit);
  auto ticks = nice_ticks(0, ymax / u.factor, 5);
  double hi = ticks.empty() || ticks.back() <= 0 ? 1 : std::max(ticks.back(), ymax / u.factor);
  std::vector<std::string> names;
  for (const auto& s : c.series) names.push_back(s.name);
  double lh = legend_height(names);
  double height = kTop + kPlotHeight + 62 + lh;
  std::string out = open_svg(height, c.title);
  out += y_grid(ticks, 0, hi, u.label);
  double plot_w = kWidth - kLeft - kRight;
  auto px = [&](double x) { return kLeft + plot_w * (std::log2(x) - lx0) / (lx1 - lx0); };
  auto py = [&](double y) { return kTop + kPlotHeight * (1 - (y / u.factor) / hi); };
  double step = std::max(1.0, std::ceil((lx1 - lx0) / 12));
  for (double e = lx0; e <= lx1; e += step) {
    double x = kLeft + plot_w * (e - lx0) / (lx1 - lx0);
    out += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:g}\" x2=\"{0:.1f}\" y2=\"{2:g}\" stroke=\"#eee\"/>", x,
                       kTop, kTop + kPlotHeight);
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:g}\" text-anchor=\"middle\">{}</text>\n", x,
                       kTop + kPlotHeight + 16, byte_label(std::exp2(e)));
  }
  out += fmt::format("<text x=\"{:g}\" y=\"{:g}\" text-anchor=\"middle\">{} (log scale)</text>\n",
                     kLeft + plot_w / 2, kTop + kPlotHeight + 34, html_escape(c.x_label));
  for (std::size_t si = 0; si < c.series.size(); ++si) {
    auto pts = c.series[si].points;
    std::sort(pts.begin(), pts.end());
    std::string path;
    for (auto [x, y] : pts) {
      if (!(x > 0) || !std::isfinite(y)) continue;
      path += fmt::format("{}{:.1f},{:.1f}", path.empty() ? "" : " ", px(x), py(y));
    }
    out += fmt::format(
        "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\" "
        "points=\"{}\"><title>{}</title></polyline>\n",
        colour(si), path, html_escape(c.series[si].name));
    for (auto [x, y] : pts) {
      if (!(x > 0) || !std::isfinite(y)) continue;
      out += fmt::format(
          "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.5\" fill=\"{}\"><title>{}: {} {}</title></circle>",
          px(x), py(y), colour(si), byte_label(x), number_label(y / u.factor), html_escape(u.label));
    }
    out += "\n";
  }
  out += fmt::format("<line x1=\"{0:g}\" y1=\"{1:g}\" x2=\"{2:g}\" y2=\"{1:g}\" stroke=\"#333\"/>\n", kLeft,
                     kTop + kPlotHeight, kWidth - kRight);
  out += legend(names, kTop + kPlotHeight + 54);
  return out + "</svg>\n";
}

std::string svg_percent_bars(const std::string& title, const std::vector<HBar>& bars,
                             const std::vector<double>& marks) {
  constexpr double kRow = 18;
  constexpr double kBar = 14;
  double max = 100;
  std::vector<std::string> names;
  for (const auto& b : bars) {
    if (std::isfinite(b.value)) max = std::max(max, b.value);
    names.push_back(b.label);
  }
  auto ticks = nice_ticks(0, max, 5);
  double hi = std::max(max, ticks.empty() ? max : ticks.back());
  LabelColumn labels = label_column(names, kRow, 5);
  double plot_x = kLabelPad + labels.width + kLabelPad;
  // Room right of the longest bar for its value.
  double plot_w = kWidth - plot_x - kRight - text_width("100.0 %", 10);
  double bottom = kTop + labels.total;
  std::string out = open_svg(bottom + 30, title);
  for (double t : ticks) {
    double x = plot_x + plot_w * t / hi;
    out += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:g}\" x2=\"{0:.1f}\" y2=\"{2:g}\" stroke=\"#ddd\"/>", x,
                       kTop, bottom);
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:g}\" text-anchor=\"middle\">{} %</text>\n", x, bottom + 14,
                       number_label(t));
  }
  double y = kTop;
  for (std::size_t i = 0; i < bars.size(); ++i) {
    double h = labels.row_heights[i];
    double v = std::isfinite(bars[i].value) ? bars[i].value : 0;
    double bar_y = y + (h - kBar) / 2;
    out += row_label(labels.lines[i], plot_x - kLabelPad, y, h);
    out += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:g}\" fill=\"{}\">"
        "<title>{:.1f} %</title></rect>",
        plot_x, bar_y, plot_w * v / hi, kBar, colour(0), v);
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\">{:.1f} %</text>\n",
                       plot_x + plot_w * v / hi + 4, bar_y + 10, v);
    y += h;
  }
  for (double m : marks) {
    double x = plot_x + plot_w * m / hi;
    out += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1:g}\" x2=\"{0:.1f}\" y2=\"{2:g}\" stroke=\"#e15759\" "
        "stroke-dasharray=\"4 3\"/>\n",
        x, kTop, bottom);
  }
  return out + "</svg>\n";
}

std::string svg_dot_rows(const std::string& title, const std::vector<DotRow>& rows, double threshold_pct) {
  constexpr double kRow = 26;
  double lo = -threshold_pct * 2, hi = threshold_pct * 2;
  std::vector<std::string> names;
  // Outliers are named right of their dot: room for the longest name past the axis's end.
  double name_room = 60;
  for (const auto& r : rows) {
    names.push_back(r.label);
    for (const auto& d : r.dots) {
      lo = std::min(lo, d.x);
      hi = std::max(hi, d.x);
      if (d.outlier) name_room = std::max(name_room, 7 + text_width(d.name, 10));
    }
  }
  auto ticks = nice_ticks(lo, hi, 6);
  LabelColumn labels = label_column(names, kRow, 8);
  double plot_x = kLabelPad + labels.width + kLabelPad;
  double plot_w = kWidth - plot_x - kRight - name_room;
  double bottom = kTop + labels.total;
  auto px = [&](double x) { return plot_x + plot_w * (x - lo) / (hi - lo); };
  std::string out = open_svg(bottom + 34, title);
  for (double t : ticks) {
    out += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:g}\" x2=\"{0:.1f}\" y2=\"{2:g}\" stroke=\"{3}\"/>",
                       px(t), kTop, bottom, t == 0 ? "#999" : "#eee");
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:g}\" text-anchor=\"middle\">{:+g} %</text>\n", px(t),
                       bottom + 14, t);
  }
  out += fmt::format(
      "<text x=\"{:g}\" y=\"{:g}\" text-anchor=\"middle\">"
      "deviation from the fleet median (negative = worse)</text>\n",
      plot_x + plot_w / 2, bottom + 28);
  out += fmt::format(
      "<line x1=\"{0:.1f}\" y1=\"{1:g}\" x2=\"{0:.1f}\" y2=\"{2:g}\" stroke=\"#e15759\" "
      "stroke-dasharray=\"4 3\"/>\n",
      px(-threshold_pct), kTop, bottom);
  double top = kTop;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    double h = labels.row_heights[i];
    double y = top + h / 2;
    out += row_label(labels.lines[i], plot_x - kLabelPad, top, h) + "\n";
    for (const auto& d : rows[i].dots) {
      if (!d.outlier) {
        out += fmt::format(
            "<circle cx=\"{:.1f}\" cy=\"{:g}\" r=\"3\" fill=\"#4e79a7\" fill-opacity=\"0.5\"/>", px(d.x), y);
      }
    }
    for (const auto& d : rows[i].dots) {
      if (d.outlier) {
        const char* fill = d.worse ? kWorse : kBetter;
        out += fmt::format(
            "<circle cx=\"{:.1f}\" cy=\"{:g}\" r=\"5\" fill=\"{}\"><title>{} {:+.1f} %</title></circle>",
            px(d.x), y, fill, html_escape(d.name), d.x);
        out += fmt::format("<text x=\"{:.1f}\" y=\"{:g}\" font-size=\"10\" fill=\"{}\">{}</text>",
                           px(d.x) + 7, y - 4, fill, html_escape(d.name));
      }
    }
    out += "\n";
    top += h;
  }
  return out + "</svg>\n";
}

namespace {

// Label rows above a timeline: a label takes the first row where it clears the one before it by kGap.
class LabelRows {
 public:
  explicit LabelRows(std::size_t max_rows) : max_rows_(max_rows) {}
  // The row for a label spanning [x0, x1], or nullopt when every allowed row is taken there.
  std::optional<std::size_t> place(double x0, double x1) {
    constexpr double kGap = 6;
    for (std::size_t r = 0; r < ends_.size(); ++r) {
      if (ends_[r] + kGap <= x0) {
        ends_[r] = x1;
        return r;
      }
    }
    if (ends_.size() == max_rows_) return std::nullopt;
    ends_.push_back(x1);
    return ends_.size() - 1;
  }
  std::size_t rows() const { return ends_.size(); }

 private:
  std::size_t max_rows_;
  std::vector<double> ends_;  // per row, the right end of its last label
};

// The time axis's unit: seconds up to 5 minutes, minutes up to 3 hours, then hours.
std::pair<double, const char*> time_unit(double max_s) {
  if (max_s < 300) return {1, "s"};
  if (max_s < 3 * 3600) return {60, "min"};
  return {3600, "h"};
}

// Ticks covering [lo, hi] whole: the 1/2/5 step nice_ticks picks, widened to the steps around the data.
std::vector<double> covering_ticks(double lo, double hi, int count) {
  auto inner = nice_ticks(lo, hi, count);
  if (inner.size() < 2) return {lo, hi};
  const double step = inner[1] - inner[0];
  std::vector<double> out;
  for (double k = std::floor(lo / step + 1e-9); k * step < hi + step * (1 - 1e-9); ++k)
    out.push_back(k * step);
  return out;
}

// A legend entry's swatch: a short stretch of the series' line.
std::string line_swatch(double x, double y, std::size_t colour_index, bool dashed) {
  return fmt::format(
      "<line x1=\"{:g}\" y1=\"{:g}\" x2=\"{:g}\" y2=\"{:g}\" stroke=\"{}\" stroke-width=\"2\"{}/>", x, y - 4,
      x + 14, y - 4, colour(colour_index), dashed ? " stroke-dasharray=\"5 3\"" : "");
}

}  // namespace

std::string svg_time_chart(const TimeChart& c) {
  constexpr double kLabelTop = 30;      // the first label row's top
  constexpr double kPanelHeight = 130;  // each panel of a chart of several
  constexpr double kPanelGap = 24;
  constexpr double kMarkerPad = 3;  // between a marker's line and its label
  double t_max = 0;
  for (const auto& p : c.panels) {
    for (const auto& s : p.series) {
      for (double t : s.t) {
        if (std::isfinite(t)) t_max = std::max(t_max, t);
      }
    }
  }
  for (const auto& b : c.bands) t_max = std::max(t_max, b.end);
  for (const auto& m : c.markers) t_max = std::max(t_max, m.t);
  if (!(t_max > 0)) t_max = 1;
  const double plot_w = kWidth - kLeft - kRight;
  auto px = [&](double t) { return kLeft + plot_w * std::clamp(t, 0.0, t_max) / t_max; };

  // Labels first: their rows decide where the plot starts.
  struct Placed {
    std::size_t row;
    double x;
    const char* anchor;
  };
  LabelRows band_rows(std::numeric_limits<std::size_t>::max());
  std::vector<Placed> band_labels;
  for (const auto& b : c.bands) {
    const double w = text_width(b.label);
    const double x0 = std::max(kLeft, std::min((px(b.start) + px(b.end) - w) / 2, kWidth - kRight - w));
    band_labels.push_back(Placed{*band_rows.place(x0, x0 + w), x0, "start"});
  }
  std::vector<std::size_t> order(c.markers.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return c.markers[a].t < c.markers[b].t; });
  LabelRows marker_rows(kMaxMarkerRows);
  std::vector<std::optional<Placed>> marker_labels(c.markers.size());
  std::size_t unlabelled = 0;
  for (std::size_t i : order) {
    const double x = px(c.markers[i].t), w = text_width(c.markers[i].label);
    // Right of the line, or left of it where the chart ends first.
    const bool left = x + kMarkerPad + w > kWidth - kRight;
    const double x0 = left ? x - kMarkerPad - w : x + kMarkerPad;
    if (auto row = marker_rows.place(x0, x0 + w)) {
      marker_labels[i] =
          Placed{band_rows.rows() + *row, left ? x - kMarkerPad : x + kMarkerPad, left ? "end" : "start"};
    } else {
      ++unlabelled;
    }
  }
  const std::size_t rows = band_rows.rows() + marker_rows.rows();
  const double plot_top = rows == 0 ? kTop : kLabelTop + kLineHeight * static_cast<double>(rows) + 6;
  const double panel_h = c.panels.size() > 1 ? kPanelHeight : kPlotHeight;
  const double plot_bottom =
      plot_top + static_cast<double>(c.panels.size()) * (panel_h + kPanelGap) - kPanelGap;
  auto row_baseline = [&](std::size_t row) {
    return kLabelTop + kLineHeight * static_cast<double>(row) + 10;
  };

  std::vector<std::string> names;
  std::vector<std::pair<std::size_t, bool>> styles;
  for (const auto& p : c.panels) {
    for (const auto& s : p.series) {
      if (std::find(names.begin(), names.end(), s.name) != names.end()) continue;
      names.push_back(s.name);
      styles.emplace_back(s.colour, s.dashed);
    }
  }
  const double axis_y = plot_bottom + 16;
  const double legend_y = axis_y + 38;
  const double note_y = legend_y + legend_height(names) + (unlabelled > 0 ? 4 : -16);
  std::string out = open_svg(note_y + 10, c.title);

  for (std::size_t i = 0; i < c.bands.size(); ++i) {
    const auto& b = c.bands[i];
    out += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\"><title>{} {:g}-{:g} "
        "s</title></rect>",
        px(b.start), plot_top, std::max(0.0, px(b.end) - px(b.start)), plot_bottom - plot_top,
        b.light ? "#f4f4f4" : "#dfe7f1", html_escape(b.label), b.start, b.end);
    out += fmt::format("<text class=\"band\" x=\"{:.1f}\" y=\"{:g}\" fill=\"#555\">{}</text>\n",
                       band_labels[i].x, row_baseline(band_labels[i].row), html_escape(b.label));
  }

  // Time ticks through every panel, labelled under the last.
  const auto [unit_s, unit_name] = time_unit(t_max);
  for (double tick : nice_ticks(0, t_max / unit_s, 8)) {
    const double x = px(tick * unit_s);
    out +=
        fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#e4e4e4\"/>",
                    x, plot_top, plot_bottom);
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n", x, axis_y,
                       number_label(tick));
  }
  out +=
      fmt::format("<text x=\"{:g}\" y=\"{:.1f}\" text-anchor=\"middle\">time since the start ({})</text>\n",
                  kLeft + plot_w / 2, axis_y + 18, unit_name);

  for (std::size_t pi = 0; pi < c.panels.size(); ++pi) {
    const auto& p = c.panels[pi];
    const double top = plot_top + static_cast<double>(pi) * (panel_h + kPanelGap);
    double lo = INFINITY, hi = -INFINITY;
    for (const auto& s : p.series) {
      for (double y : s.y) {
        if (!std::isfinite(y)) continue;
        lo = std::min(lo, y);
        hi = std::max(hi, y);
      }
    }
    if (!(hi >= lo)) lo = hi = 0;
    const AxisUnit u = axis_unit(std::max(std::fabs(lo), std::fabs(hi)), p.unit);
    const double from = p.from_zero ? std::min(0.0, lo / u.factor) : lo / u.factor;
    auto ticks = covering_ticks(from, std::max(hi / u.factor, from + 1e-9), 4);
    const double y_lo = ticks.front(), y_hi = ticks.back() > y_lo ? ticks.back() : y_lo + 1;
    out += y_grid(ticks, y_lo, y_hi, u.label.empty() ? p.label : p.label + " (" + u.label + ")", kLeft, top,
                  panel_h);
    auto py = [&](double y) { return top + panel_h * (1 - (y / u.factor - y_lo) / (y_hi - y_lo)); };
    for (const auto& s : p.series) {
      const std::size_t n = std::min(s.t.size(), s.y.size());
      std::vector<std::string> segments(1);
      for (std::size_t i = 0; i < n; ++i) {
        if (!std::isfinite(s.t[i]) || !std::isfinite(s.y[i])) {
          if (!segments.back().empty()) segments.emplace_back();
          continue;
        }
        segments.back() +=
            fmt::format("{}{:.1f},{:.1f}", segments.back().empty() ? "" : " ", px(s.t[i]), py(s.y[i]));
      }
      for (const auto& points : segments) {
        if (points.empty()) continue;
        out += fmt::format(
            "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\" stroke-linecap=\"round\"{} "
            "points=\"{}\"><title>{}</title></polyline>\n",
            colour(s.colour), s.dashed ? " stroke-dasharray=\"5 3\"" : "",
            points.find(' ') == std::string::npos
                ? points + " " + points  // a lone sample: a zero-length line, drawn by its round cap
                : points,
            html_escape(s.name));
      }
    }
    out += fmt::format("<line x1=\"{0:g}\" y1=\"{1:.1f}\" x2=\"{2:g}\" y2=\"{1:.1f}\" stroke=\"#333\"/>\n",
                       kLeft, top + panel_h, kWidth - kRight);
  }

  for (std::size_t i = 0; i < c.markers.size(); ++i) {
    const auto& m = c.markers[i];
    const double x = px(m.t);
    const double y0 = marker_labels[i] ? row_baseline(marker_labels[i]->row) - 10 : plot_top;
    out += fmt::format(
        "<line class=\"marker\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"{3}\" "
        "stroke-width=\"1.5\" stroke-dasharray=\"4 2\"><title>{4}</title></line>",
        x, y0, plot_bottom, kWorse, html_escape(m.detail.empty() ? m.label : m.label + ": " + m.detail));
    if (marker_labels[i]) {
      out += fmt::format(
          "<text class=\"marker\" x=\"{:.1f}\" y=\"{:g}\" text-anchor=\"{}\" fill=\"{}\">{}</text>",
          marker_labels[i]->x, row_baseline(marker_labels[i]->row), marker_labels[i]->anchor, kWorse,
          html_escape(m.label));
    }
    out += "\n";
  }

  // The legend: each series' line style and name.
  double x = kLeft, y = legend_y;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const double w = 18 + text_width(names[i]) + 14;
    if (x + w > kWidth - kRight && x > kLeft) {
      x = kLeft;
      y += 16;
    }
    out += line_swatch(x, y, styles[i].first, styles[i].second);
    out += fmt::format("<text x=\"{:g}\" y=\"{:g}\">{}</text>\n", x + 18, y, html_escape(names[i]));
    x += w;
  }
  if (unlabelled > 0) {
    out += fmt::format(
        "<text x=\"{:g}\" y=\"{:g}\" fill=\"{}\">{} more event(s) marked without a label: each line's "
        "tooltip "
        "names its event</text>\n",
        kLeft, note_y, kWorse, unlabelled);
  }
  return out + "</svg>\n";
}

}  // namespace mlbench
