// Inline SVG charts for the HTML report: grouped bars, lines on a log-2 x axis, horizontal bars and a dot
// strip for fleet deviations. Plain strings, no scripts, no external references, so a page stays
// self-contained and renders the same offline.
#pragma once

#include <string>
#include <vector>

namespace mlbench {

// A unit scaled for an axis: values are divided by `factor` and labelled with `label` ("TFLOP/s").
struct AxisUnit {
  double factor = 1;
  std::string label;
};
AxisUnit axis_unit(double max_value, const std::string& unit);
// Tick values covering [0, max] (or [min, max]) at a 1/2/5 × 10^k step, about `count` of them.
std::vector<double> nice_ticks(double min, double max, int count);

struct BarGroup {
  std::string label;
  std::vector<double> values;  // one per series; NaN = no bar
};
struct BarChart {
  std::string title;
  std::string unit;  // SI unit of the values
  std::vector<std::string> series;
  std::vector<BarGroup> groups;
};
std::string svg_bar_chart(const BarChart& c);

struct LineSeries {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y), x > 0 (log axis)
};
struct LineChart {
  std::string title;
  std::string x_label;  // the x axis is bytes on a log-2 scale
  std::string unit;     // of y
  std::vector<LineSeries> series;
};
std::string svg_line_chart(const LineChart& c);

struct HBar {
  std::string label;
  double value = 0;  // percent
};
// Percent bars (0-100+, axis to the larger of 100 and the max) with reference lines at `marks` percent.
std::string svg_percent_bars(const std::string& title, const std::vector<HBar>& bars,
                             const std::vector<double>& marks);

struct DotRow {
  std::string label;
  struct Dot {
    double x = 0;  // percent deviation from the median, < 0 worse
    bool outlier = false;
    std::string name;  // shown for outliers
  };
  std::vector<Dot> dots;
};
// Rows of dots on a shared percent axis, a dashed line at −threshold, outliers red and named.
std::string svg_dot_rows(const std::string& title, const std::vector<DotRow>& rows, double threshold_pct);

}  // namespace mlbench
