// Inline SVG charts for the HTML report: grouped bars, lines on a log-2 x axis, horizontal bars, a dot
// strip for fleet deviations and timelines (the burn-in's telemetry over time, phases shaded, events marked).
// Plain strings, no scripts, no external references, so a page stays self-contained and renders the same
// offline.
//
// Text is laid out without a browser, so its width is estimated (text_width) on the wide side: a label judged
// to fit does fit. A bar label wider than its group's slot is wrapped at spaces, or rotated when a word alone
// is wider than the slot; a row label (percent bars, fleet dots) is wrapped onto as many lines as it needs,
// never cut. Every chart is kChartWidth units wide and drawn at the page's width (width 100 %).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace mlbench {

// The charts' coordinate width, and the HTML page's content width (its max-width): on a window at least
// this wide a chart is drawn 1:1, with 11 px text; on a narrower one it scales down with the page.
inline constexpr double kChartWidth = 1100;
// Label font size and the distance between two lines of it.
inline constexpr double kFontSize = 11;
inline constexpr double kLineHeight = 13;

// The advance of `text` at `font_size` px in DejaVu Sans (kerning ignored: it only narrows), 1 em for a code
// point beyond ASCII. DejaVu Sans is the default sans-serif of Debian and most Linux desktops and wider than
// Arial, Liberation Sans and Helvetica (the Windows and macOS defaults), so a label judged to fit does fit.
double text_width(std::string_view text, double font_size = kFontSize);
// `text` broken at spaces into lines no wider than `max_width`; a word wider than that alone is broken
// inside it. Every character of `text` except the breaking spaces is kept.
std::vector<std::string> wrap_text(const std::string& text, double max_width, double font_size = kFontSize);

// How the group labels under a bar chart are set: each on one line when all fit their slot, else wrapped
// onto up to kMaxLabelLines lines when every line fits, else turned (45°, or 90° when the slots are too
// narrow for slanted lines to clear each other, in a smaller font when even upright lines would touch).
// `height` is the depth the labels take below the axis.
inline constexpr std::size_t kMaxLabelLines = 3;
struct BarLabelLayout {
  double angle = 0;  // degrees, counter-clockwise; 0 = horizontal
  double font_size = kFontSize;
  std::vector<std::vector<std::string>> lines;  // per label: its lines (one line when turned)
  double height = 0;
};
BarLabelLayout layout_bar_labels(const std::vector<std::string>& labels, double slot_width);

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

// The most of the chart's width a row-label column takes; longer labels wrap.
inline constexpr double kMaxLabelColumn = 0.45;

struct HBar {
  std::string label;
  double value = 0;  // percent
};
// Percent bars (0-100+, axis to the larger of 100 and the max) with reference lines at `marks` percent.
// Labels are whole, wrapped in a label column as wide as the longest (at most kMaxLabelColumn of the chart).
std::string svg_percent_bars(const std::string& title, const std::vector<HBar>& bars,
                             const std::vector<double>& marks);

struct DotRow {
  std::string label;
  struct Dot {
    double x = 0;  // percent deviation from the median, < 0 worse
    bool outlier = false;
    bool worse = false;  // an outlier worse than the median (red; a better one is green)
    std::string name;    // shown for outliers
  };
  std::vector<Dot> dots;
};
// Rows of dots on a shared percent axis, a dashed line at −threshold, outliers named (worse red, better
// green); row labels as the percent bars'.
std::string svg_dot_rows(const std::string& title, const std::vector<DotRow>& rows, double threshold_pct);

// A timeline: panels of lines over one linear time axis (seconds since the start, ticked in s, min or h),
// sharing shaded bands (the burn-in's phases, each labelled; a `light` one paler: the cooldowns) and marked
// instants (events: a dashed vertical line and its label). Band and marker labels sit in rows above the plot,
// a label moving down a row where it would touch its neighbour; a marker whose label would need more than
// kMaxMarkerRows rows keeps only its tooltip, and the chart counts those. NaN values are gaps in a line.
inline constexpr std::size_t kMaxMarkerRows = 4;
struct TimeSeries {
  std::string name;
  std::vector<double> t, y;  // the same length; y NaN = no sample
  std::size_t colour = 0;    // palette index: a GPU keeps its colour across charts
  bool dashed = false;
};
struct TimePanel {
  std::string label;  // what the panel shows ("power"); the y axis reads "label (unit)"
  std::string unit;   // SI unit of y, scaled for the axis (axis_unit)
  std::vector<TimeSeries> series;
  // The y axis starts at zero; else at the tick below the lowest value (clocks and temperatures, whose
  // changes would be flattened against zero).
  bool from_zero = true;
};
struct TimeBand {
  std::string label;
  double start = 0, end = 0;
  bool light = false;
};
struct TimeMarker {
  double t = 0;
  std::string label;   // drawn at the line ("XID 79 gpu1")
  std::string detail;  // its tooltip (the event's own text)
};
struct TimeChart {
  std::string title;
  std::vector<TimePanel> panels;
  std::vector<TimeBand> bands;
  std::vector<TimeMarker> markers;
};
std::string svg_time_chart(const TimeChart& c);

}  // namespace mlbench
