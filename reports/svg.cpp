#include "reports/svg.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "reports/table.hpp"

namespace mlbench {
namespace {

constexpr double kWidth = 760;
constexpr double kLeft = 70;
constexpr double kRight = 20;
constexpr double kTop = 34;
constexpr double kPlotHeight = 220;
constexpr const char* kPalette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                                    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
constexpr std::size_t kPaletteSize = sizeof(kPalette) / sizeof(kPalette[0]);

const char* colour(std::size_t i) { return kPalette[i % kPaletteSize]; }

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

std::string open_svg(double height, const std::string& title) {
  return fmt::format(
             "<svg class=\"chart\" role=\"img\" width=\"{0:g}\" height=\"{1:g}\" viewBox=\"0 0 {0:g} {1:g}\" "
             "font-family=\"sans-serif\" font-size=\"11\">\n<title>{2}</title>\n",
             kWidth, height, html_escape(title)) +
         fmt::format("<text x=\"{:g}\" y=\"18\" font-size=\"14\" font-weight=\"bold\">{}</text>\n", kLeft,
                     html_escape(title));
}

std::string legend(const std::vector<std::string>& names, double y) {
  std::string out;
  double x = kLeft;
  for (std::size_t i = 0; i < names.size(); ++i) {
    double w = 18 + 6.5 * static_cast<double>(names[i].size()) + 14;
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
    double w = 18 + 6.5 * static_cast<double>(n.size()) + 14;
    if (x + w > kWidth - kRight && x > kLeft) {
      x = kLeft;
      ++rows;
    }
    x += w;
  }
  return rows * 16;
}

// Horizontal grid lines and y labels for ticks scaled into the plot.
std::string y_grid(const std::vector<double>& ticks, double lo, double hi, const AxisUnit& u) {
  std::string out;
  for (double t : ticks) {
    double y = kTop + kPlotHeight * (1 - (t - lo) / (hi - lo));
    out += fmt::format("<line x1=\"{:g}\" y1=\"{:.1f}\" x2=\"{:g}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>", kLeft,
                       y, kWidth - kRight, y);
    out += fmt::format("<text x=\"{:g}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", kLeft - 6, y + 4,
                       number_label(t));
  }
  out += fmt::format("<text transform=\"translate(14,{:g}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n",
                     kTop + kPlotHeight / 2, html_escape(u.label));
  return out;
}

}  // namespace

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
  double lh = legend_height(c.series);
  double height = kTop + kPlotHeight + 50 + lh;
  std::string out = open_svg(height, c.title);
  out += y_grid(ticks, 0, hi, u);
  double plot_w = kWidth - kLeft - kRight;
  double group_w = plot_w / static_cast<double>(std::max<std::size_t>(1, c.groups.size()));
  double bar_w = group_w * 0.8 / static_cast<double>(std::max<std::size_t>(1, c.series.size()));
  for (std::size_t gi = 0; gi < c.groups.size(); ++gi) {
    const auto& g = c.groups[gi];
    double gx = kLeft + group_w * static_cast<double>(gi) + group_w * 0.1;
    for (std::size_t si = 0; si < g.values.size() && si < c.series.size(); ++si) {
      double v = g.values[si];
      if (!std::isfinite(v)) continue;
      double h = kPlotHeight * (v / u.factor) / hi;
      double x = gx + bar_w * static_cast<double>(si);
      out += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\">"
          "<title>{} {}: {} {}</title></rect>\n",
          x, kTop + kPlotHeight - h, std::max(bar_w - 1, 1.0), h, colour(si), html_escape(c.series[si]),
          html_escape(g.label), number_label(v / u.factor), html_escape(u.label));
    }
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:g}\" text-anchor=\"middle\">{}</text>\n", gx + group_w * 0.4,
                       kTop + kPlotHeight + 16, html_escape(g.label));
  }
  out += fmt::format("<line x1=\"{0:g}\" y1=\"{1:g}\" x2=\"{2:g}\" y2=\"{1:g}\" stroke=\"#333\"/>\n", kLeft,
                     kTop + kPlotHeight, kWidth - kRight);
  out += legend(c.series, kTop + kPlotHeight + 40);
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
  out += y_grid(ticks, 0, hi, u);
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
  constexpr double kLabelW = 330;
  double max = 100;
  for (const auto& b : bars) {
    if (std::isfinite(b.value)) max = std::max(max, b.value);
  }
  auto ticks = nice_ticks(0, max, 5);
  double hi = std::max(max, ticks.empty() ? max : ticks.back());
  double plot_x = kLabelW + 10;
  double plot_w = kWidth - plot_x - kRight;
  double height = kTop + kRow * static_cast<double>(bars.size()) + 30;
  std::string out = open_svg(height, title);
  double bottom = kTop + kRow * static_cast<double>(bars.size());
  for (double t : ticks) {
    double x = plot_x + plot_w * t / hi;
    out += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:g}\" x2=\"{0:.1f}\" y2=\"{2:g}\" stroke=\"#ddd\"/>", x,
                       kTop, bottom);
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:g}\" text-anchor=\"middle\">{} %</text>\n", x, bottom + 14,
                       number_label(t));
  }
  for (std::size_t i = 0; i < bars.size(); ++i) {
    double y = kTop + kRow * static_cast<double>(i);
    double v = std::isfinite(bars[i].value) ? bars[i].value : 0;
    out += fmt::format("<text x=\"{:g}\" y=\"{:g}\" text-anchor=\"end\">{}</text>", kLabelW, y + 12,
                       html_escape(bars[i].label));
    out += fmt::format(
        "<rect x=\"{:g}\" y=\"{:g}\" width=\"{:.1f}\" height=\"{:g}\" fill=\"{}\">"
        "<title>{:.1f} %</title></rect>",
        plot_x, y + 2, plot_w * v / hi, kRow - 4, colour(0), v);
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:g}\" font-size=\"10\">{:.1f} %</text>\n",
                       plot_x + plot_w * v / hi + 4, y + 12, v);
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
  constexpr double kLabelW = 300;
  double lo = -threshold_pct * 2, hi = threshold_pct * 2;
  for (const auto& r : rows) {
    for (const auto& d : r.dots) {
      lo = std::min(lo, d.x);
      hi = std::max(hi, d.x);
    }
  }
  auto ticks = nice_ticks(lo, hi, 6);
  double plot_x = kLabelW + 10;
  double plot_w = kWidth - plot_x - kRight - 60;
  double bottom = kTop + kRow * static_cast<double>(rows.size());
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
  for (std::size_t i = 0; i < rows.size(); ++i) {
    double y = kTop + kRow * static_cast<double>(i) + kRow / 2;
    out += fmt::format("<text x=\"{:g}\" y=\"{:g}\" text-anchor=\"end\">{}</text>\n", kLabelW, y + 4,
                       html_escape(rows[i].label));
    for (const auto& d : rows[i].dots) {
      if (!d.outlier) {
        out += fmt::format(
            "<circle cx=\"{:.1f}\" cy=\"{:g}\" r=\"3\" fill=\"#4e79a7\" fill-opacity=\"0.5\"/>", px(d.x), y);
      }
    }
    for (const auto& d : rows[i].dots) {
      if (d.outlier) {
        out += fmt::format(
            "<circle cx=\"{:.1f}\" cy=\"{:g}\" r=\"5\" fill=\"#e15759\"><title>{} {:+.1f} %</title></circle>",
            px(d.x), y, html_escape(d.name), d.x);
        out += fmt::format("<text x=\"{:.1f}\" y=\"{:g}\" font-size=\"10\" fill=\"#e15759\">{}</text>",
                           px(d.x) + 7, y - 4, html_escape(d.name));
      }
    }
    out += "\n";
  }
  return out + "</svg>\n";
}

}  // namespace mlbench
