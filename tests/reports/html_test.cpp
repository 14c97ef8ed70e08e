#include "reports/html.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <numbers>
#include <regex>

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "report/report_burnin.hpp"
#include "reports/render.hpp"
#include "reports/svg.hpp"
#include "tests/reports/report_fixtures.hpp"

namespace mlbench {
namespace {

std::size_t count(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = hay.find(needle); pos != std::string::npos; pos = hay.find(needle, pos + 1)) ++n;
  return n;
}

// A storage run of one job over two targets at eight queue depths: 24 bars (each target and their
// aggregate), labels like "randread 4K qd128 x1 /dev/nvme1n1".
std::vector<Result> storage_sweep() {
  std::vector<Result> out;
  const Json targets = Json::array({"/dev/nvme0n1", "/dev/nvme1n1"});
  for (int qd : {1, 2, 4, 8, 16, 32, 64, 128}) {
    Json p{{"rw", "randread"}, {"bs", 4096}, {"iodepth", qd}, {"jobs", 1}};
    Json agg = p;
    agg["target"] = targets;
    agg["scope"] = "aggregate";
    out.push_back(test::make_result("storage.io", agg, "iops", 2e4 * qd, "1/s"));
    for (const auto& t : targets) {
      Json one = p;
      one["target"] = t;
      one["scope"] = "target";
      out.push_back(test::make_result("storage.io", one, "iops", 1e4 * qd, "1/s"));
    }
  }
  return out;
}

// A check of run_a: one rule fails, one warns, one passes.
CheckResult sample_check() {
  CheckResult c;
  c.file = "run_a.json";
  c.source = "h100.yaml";
  c.rules = 2;
  for (Grade g : {Grade::fail, Grade::warn, Grade::pass}) {
    CheckItem item;
    item.probe = "gpu.gemm";
    item.metric = "tflops";
    item.unit = "FLOP/s";
    item.value = 500e12;
    item.grade = g;
    c.items.push_back(item);
  }
  return c;
}

// A page of each kind: a report alone (export), a comparison of the two runs, a check and a fleet; between
// them every chart kind appears.
struct Pages {
  std::vector<NamedReport> runs, fleet, one, storage, burnin, burnin_host;
  std::string compare_html, fleet_html, export_html, check_html, storage_html, burnin_html, burnin_host_html;
  Pages() {
    runs =
        load_reports({test::reports_data("run_a.json").string(), test::reports_data("run_b.json").string()});
    fleet = load_reports({test::reports_data("fleet").string()});
    one = {runs[0]};
    Result skipped;
    skipped.probe = "gpu.gemm";
    skipped.status = Status::skipped;
    skipped.reason = "no NVIDIA driver (no /dev/nvidia*, libcuda not found)";
    one[0].report.results.push_back(skipped);
    one[0].report.results.front().warnings.push_back("clocks were throttled");
    storage = {test::make_report("sweep.json", "io-node", storage_sweep())};
    storage[0].report.host["cpu"] = Json{{"model", "EPYC"}, {"sockets", 1}, {"cores", 2}, {"threads", 2}};
    compare_html = to_html_page(HtmlPage{"two runs",
                                         &runs,
                                         {compare_reports(runs[0], runs[1], test::own_spread_only())},
                                         std::nullopt,
                                         0.05,
                                         std::nullopt});
    fleet_html = to_html_page(HtmlPage{"fleet", &fleet, {}, analyze_fleet(fleet, {}), 0.05, std::nullopt});
    export_html = to_html_page(HtmlPage{"report", &one, {}, std::nullopt, 0.05, std::nullopt});
    check_html = to_html_page(HtmlPage{"check", &one, {}, std::nullopt, 0.05, sample_check()});
    storage_html = to_html_page(HtmlPage{"storage", &storage, {}, std::nullopt, 0.05, std::nullopt});
    // Burn-ins: two GPUs (one warns, one fails on XID 79 and falls off the bus), and a node without GPUs.
    burnin = load_reports({test::reports_data("burnin-gpu.json").string()});
    burnin_host = load_reports({test::reports_data("burnin-host.json").string()});
    burnin_html = to_html_page(HtmlPage{"burn-in", &burnin, {}, std::nullopt, 0.05, std::nullopt});
    burnin_host_html = to_html_page(HtmlPage{"burn-in", &burnin_host, {}, std::nullopt, 0.05, std::nullopt});
  }
  std::vector<const std::string*> all() const {
    return {&compare_html, &fleet_html,  &export_html,     &check_html,
            &storage_html, &burnin_html, &burnin_host_html};
  }
};

const Pages& pages() {
  static const Pages p;
  return p;
}

// Every <svg ...> opening tag of a page.
std::vector<std::string> svg_tags(const std::string& html) {
  std::vector<std::string> out;
  for (auto pos = html.find("<svg"); pos != std::string::npos; pos = html.find("<svg", pos + 1))
    out.push_back(html.substr(pos, html.find('>', pos) - pos + 1));
  return out;
}

// The text of each <text> element of a chart (its tspans joined by spaces), in order.
std::vector<std::string> chart_texts(const std::string& svg) {
  std::vector<std::string> out;
  static const std::regex kText(R"(<text[^>]*>(.*?)</text>)");
  static const std::regex kTag(R"(</tspan><tspan[^>]*>)");
  static const std::regex kAnyTag(R"(<[^>]*>)");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), kText); it != std::sregex_iterator(); ++it) {
    std::string inner = std::regex_replace(it->str(1), kTag, " ");
    out.push_back(std::regex_replace(inner, kAnyTag, ""));
  }
  return out;
}

TEST(Html, SelfContainedWithoutScriptsOrNetwork) {
  for (const auto* html : pages().all()) {
    EXPECT_EQ(html->rfind("<!DOCTYPE html>", 0), 0u);
    for (const char* banned :
         {"<script", "http:", "https:", "<link", "@import", "url(", "<img", "@font-face", "src="}) {
      EXPECT_EQ(html->find(banned), std::string::npos) << banned;
    }
    EXPECT_EQ(count(*html, "<svg"), count(*html, "</svg>"));
    EXPECT_EQ(count(*html, "<table>"), count(*html, "</table>"));
    EXPECT_FALSE(std::regex_search(*html, std::regex(R"(\b-?(nan|inf)\b)")))
        << "a non-finite number was drawn";
    EXPECT_EQ(html->find("height=\"-"), std::string::npos);
    EXPECT_EQ(html->find("width=\"-"), std::string::npos);
    // Tables come after every chart.
    EXPECT_GT(html->find("<h2>Tables</h2>"), html->rfind("</svg>"));
    EXPECT_NE(html->find("</html>"), std::string::npos);
  }
}

TEST(Html, ComparePageHasEveryChartOfTheRunsAndTheTables) {
  const std::string& html = pages().compare_html;
  for (const char* title : {"GEMM throughput per precision", "GPU memory (HBM) bandwidth",
                            "Host-device and peer copy", "NCCL bus bandwidth against message size",
                            "Storage IOPS per job", "Storage bandwidth per job", "% of peak"}) {
    EXPECT_NE(html.find(std::string("<title>") + title), std::string::npos) << title;
  }
  EXPECT_EQ(count(html, "<svg"), 8u);  // the seven above and host memory bandwidth
  EXPECT_NE(html.find("message size (bytes) (log scale)"), std::string::npos);
  for (const char* tick : {">1K<", ">1M<", ">1G<"}) EXPECT_NE(html.find(tick), std::string::npos) << tick;
  // Both machines are series (the same host name, told apart by file).
  EXPECT_NE(html.find("gpu-node-17 (run_b)"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"bad\">regression</td>"), std::string::npos);
  EXPECT_NE(html.find("<caption>status changes</caption>"), std::string::npos);
}

// What happened comes first: each comparison's regressions and status changes are listed in the summary,
// under its verdict line and before the charts and the full table.
TEST(Html, ComparePageListsTheRegressionsAndStatusChangesBeforeTheFullTable) {
  const std::string& html = pages().compare_html;
  const auto c = compare_reports(pages().runs[0], pages().runs[1], test::own_spread_only());
  ASSERT_GT(c.count(Verdict::regression), 0u);
  ASSERT_FALSE(c.status_changes.empty());
  const std::string summary = html.substr(0, html.find("</section>"));
  const std::string caption = fmt::format("<caption>{} against {}: {} regression(s)</caption>", c.other_file,
                                          c.base_file, c.count(Verdict::regression));
  ASSERT_NE(summary.find(caption), std::string::npos) << summary;
  EXPECT_LT(summary.find("<p class=\"verdict "), summary.find(caption));
  EXPECT_LT(summary.find(caption), summary.find("<caption>host inventory"));
  EXPECT_EQ(count(summary, "<td class=\"bad\">regression</td>"), c.count(Verdict::regression));
  for (const auto& m : c.changes) {
    if (m.verdict != Verdict::regression) continue;
    EXPECT_NE(summary.find("<td>" + m.metric + "</td>"), std::string::npos) << m.metric;
  }
  EXPECT_EQ(count(summary, "<td class=\"good\">improvement</td>"), 0u);  // only what went wrong
  EXPECT_NE(summary.find(
                fmt::format("<caption>{} against {}: status changes</caption>", c.other_file, c.base_file)),
            std::string::npos);
  // The verdict line names the counts it rests on: every metric compared.
  EXPECT_NE(summary.find(fmt::format("of {} metrics;", c.changes.size())), std::string::npos) << summary;
  // The full tables stay under Tables.
  EXPECT_GT(html.find("<caption>status changes</caption>"), html.find("<h2>Tables</h2>"));
}

TEST(Html, FleetPageCollapsesMachinesAndMarksTheOutlier) {
  const std::string& html = pages().fleet_html;
  EXPECT_NE(html.find("<title>Fleet outliers"), std::string::npos);
  EXPECT_NE(html.find(">node07 gpu1</text>"), std::string::npos);
  EXPECT_NE(html.find(">fleet median</text>"), std::string::npos);
  EXPECT_EQ(html.find(">node01</text>"), std::string::npos);  // 12 machines: no per-machine series
  EXPECT_NE(html.find("<caption>fleet outliers (12 reports)</caption>"), std::string::npos);
}

TEST(Html, EachPageOpensWithItsVerdictAndTheHostInventory) {
  for (const auto* html : pages().all()) {
    auto summary = html->find("<section id=\"summary\">");
    auto verdict = html->find("<p class=\"verdict ");
    auto inventory = html->find("<caption>host inventory");
    ASSERT_NE(summary, std::string::npos);
    ASSERT_NE(inventory, std::string::npos);
    // The h1, then the verdict, then the inventory, before every chart and every other table.
    EXPECT_LT(html->find("</h1>"), summary);
    EXPECT_LT(summary, verdict);
    EXPECT_LT(verdict, inventory);
    EXPECT_LT(inventory, html->find("<svg"));
    EXPECT_LT(inventory, html->find("<table>", html->find("</section>")));
  }
  const std::string& page = pages().export_html;
  for (const char* fact : {"AMD EPYC 9454 48-Core Processor", "2 sockets, 96 cores, 192 threads", "1.58 TiB",
                           "2 × NVIDIA H100 80GB HBM3, 74.51 GiB", "2026-11-28T09:14:03Z",
                           ">profile</td><td>default<", "30.7 min", ">drives</td>", ">NICs</td>"}) {
    EXPECT_NE(page.find(fact), std::string::npos) << fact;
  }
  EXPECT_NE(pages().storage_html.find("EPYC\n1 socket, 2 cores, 2 threads"), std::string::npos);
  // The report alone: its results' statuses.
  EXPECT_NE(page.find("<p class=\"verdict warn\">43 results: 42 ok, 1 skipped, 0 failed, 0 incorrect, 0 "
                      "interrupted, 1 warning(s)"),
            std::string::npos);
  // check: pass/fail is the first thing under the title.
  const std::string& check = pages().check_html;
  EXPECT_EQ(
      check.find(
          "</h1>\n<section id=\"summary\">\n<p class=\"verdict bad\">check: fail — 1 of 3 checks failed, 1 "
          "warned, 1 passed; 2 rules from h100.yaml"),
      check.find("</h1>"));
  // compare: the regression count.
  const std::string& compare = pages().compare_html;
  auto c = compare_reports(pages().runs[0], pages().runs[1], test::own_spread_only());
  ASSERT_GT(c.count(Verdict::regression), 0u);
  EXPECT_NE(compare.find(fmt::format("<p class=\"verdict bad\">{} against {}: {}", c.other_file, c.base_file,
                                     compare_verdict(c))),
            std::string::npos);
  // fleet: the verdict with the counts it rests on, then the outliers, worse and better.
  EXPECT_NE(pages().fleet_html.find("<p class=\"verdict bad\">fleet verdict: fail — "), std::string::npos);
  EXPECT_NE(pages().fleet_html.find("12 reports, "), std::string::npos);
  EXPECT_NE(pages().fleet_html.find("worse than the fleet median"), std::string::npos);
  // Twelve machines: one inventory row each.
  EXPECT_NE(pages().fleet_html.find("<th>machine</th><th>report</th>"), std::string::npos);
  EXPECT_NE(pages().fleet_html.find("<td>node12</td>"), std::string::npos);
}

// The host inventory is read through HostView: a report edited by hand whose blocks have the wrong kind (a
// text where a mapping or a list belongs) shows them as empty, the page as it is with those blocks absent.
TEST(Html, AMistypedInventoryBlockReadsAsEmpty) {
  std::vector<NamedReport> absent = {test::make_report("edited.json", "node1", {})};
  std::vector<NamedReport> mistyped = absent;
  for (const char* block : {"cpu", "memory", "gpus", "block_devices", "raid", "nics"}) {
    absent[0].report.host.erase(block);
    mistyped[0].report.host[block] = "n/a";
  }
  auto page = [](const std::vector<NamedReport>& reports) {
    const std::string html = to_html_page(HtmlPage{"report", &reports, {}, std::nullopt, 0.05, std::nullopt});
    const auto from = html.find("<caption>host inventory");
    return html.substr(from, html.find("</table>", from) - from);
  };
  const std::string expected = page(absent);
  EXPECT_NE(expected.find("none found"), std::string::npos) << expected;
  EXPECT_EQ(page(mistyped), expected);
}

TEST(Html, ASkippedRowHoldsItsReasonAndARowItsWarnings) {
  const std::string& page = pages().export_html;
  std::smatch row;
  ASSERT_TRUE(std::regex_search(page, row, std::regex(R"(<tr><td>gpu.gemm</td>.*?skipped</td>.*?</tr>)")));
  EXPECT_NE(row.str().find("no NVIDIA driver (no /dev/nvidia*, libcuda not found)"), std::string::npos)
      << row.str();
  EXPECT_NE(page.find("warning: clocks were throttled"), std::string::npos);
}

TEST(Html, ValueCellsDoNotWrap) {
  static const std::regex kNoWrap(R"(td\.num\{[^}]*white-space:nowrap)");
  for (const auto* html : pages().all()) EXPECT_TRUE(std::regex_search(*html, kNoWrap));
  Document d;
  d.title = "sheet";
  EXPECT_TRUE(std::regex_search(render(d, Format::html), kNoWrap));
  // Every cell showing a measured value is a value cell: "812.3 TFLOP/s", "+12.5 %", "3.2 GB/s".
  static const std::regex kCell(
      R"x(<td( class="([^"]*)")?>((±|[-+])?[0-9.]+ [kMGTP]?(FLOP/s|B/s|/s|%|s|ms|us))</td>)x");
  std::size_t values = 0;
  for (const auto* html : pages().all()) {
    for (auto it = std::sregex_iterator(html->begin(), html->end(), kCell); it != std::sregex_iterator();
         ++it) {
      ++values;
      EXPECT_NE(it->str(2).find("num"), std::string::npos) << it->str();
    }
  }
  EXPECT_GT(values, 20u);
}

TEST(Svg, ChartsSpanThePageWidth) {
  EXPECT_NE(pages().compare_html.find(fmt::format("max-width:{:g}px", kChartWidth)), std::string::npos);
  for (const auto* html : pages().all()) {
    for (const auto& tag : svg_tags(*html)) {
      EXPECT_NE(tag.find(" width=\"100%\""), std::string::npos) << tag;
      EXPECT_NE(tag.find(fmt::format("viewBox=\"0 0 {:g} ", kChartWidth)), std::string::npos) << tag;
      EXPECT_EQ(tag.find(" height="), std::string::npos) << tag;  // the height follows the width
    }
  }
}

// Two labels side by side do not overlap: on one line or wrapped, each line fits its slot; turned, the
// parallel lines are at least a line of text apart.
void expect_no_overlap(const std::vector<std::string>& labels, double slot) {
  BarLabelLayout l = layout_bar_labels(labels, slot);
  ASSERT_EQ(l.lines.size(), labels.size());
  if (l.angle == 0) {
    for (const auto& lines : l.lines) {
      EXPECT_LE(lines.size(), kMaxLabelLines);
      for (const auto& line : lines) EXPECT_LE(text_width(line), slot) << line << " in " << slot;
    }
  } else {
    EXPECT_GE(slot * std::sin(l.angle * std::numbers::pi / 180), kLineHeight * l.font_size / kFontSize - 1e-9)
        << slot;
    for (std::size_t i = 0; i < labels.size(); ++i)
      EXPECT_EQ(l.lines[i], std::vector<std::string>{labels[i]});
  }
}

TEST(Svg, BarLabelsTurnOrWrapInsteadOfOverlapping) {
  std::vector<std::string> storage;
  for (const auto& r : storage_sweep()) {
    std::string label = "randread 4K qd" + r.params["iodepth"].dump() + " x1";
    storage.push_back(
        label + (r.params["scope"] == "aggregate" ? " all" : " " + r.params["target"].get<std::string>()));
  }
  const std::vector<std::string> precisions{"fp64", "fp32", "tf32", "fp16", "bf16", "fp8"};
  // Few short labels: one line each.
  EXPECT_EQ(layout_bar_labels(precisions, 170).angle, 0);
  EXPECT_EQ(layout_bar_labels(precisions, 170).lines[0], std::vector<std::string>{"fp64"});
  // Wide enough for the words, not the label: wrapped.
  auto wrapped = layout_bar_labels({"randread 4K qd1 x1", "randwrite 4K qd32 x4"}, 90);
  EXPECT_EQ(wrapped.angle, 0);
  EXPECT_EQ(wrapped.lines[1], (std::vector<std::string>{"randwrite 4K", "qd32 x4"}));
  // 24 jobs across the chart: turned.
  EXPECT_GT(layout_bar_labels(storage, (kChartWidth - 90) / 24).angle, 0);
  for (double slot : {8.0, 12.0, 20.0, 30.0, 42.0, 60.0, 90.0, 140.0, 400.0}) {
    expect_no_overlap(storage, slot);
    expect_no_overlap(precisions, slot);
  }
  // The rendered chart: turned labels, each inside the chart (the leftmost reaches no further than x = 0),
  // and the chart tall enough for the longest.
  const std::string& page = pages().storage_html;
  auto start = page.find("<svg");
  std::string svg = page.substr(start, page.find("</svg>", start) - start);
  static const std::regex kTurned(
      R"x(<text class="turned" x="([0-9.]+)" y="([0-9.]+)" text-anchor="end" font-size="[0-9.]+" transform="rotate\(-([0-9.]+) [^"]*">([^<]*)</text>)x");
  std::smatch box;
  ASSERT_TRUE(std::regex_search(svg, box, std::regex(R"x(viewBox="0 0 [0-9.]+ ([0-9.]+)")x")));
  const double height = std::stod(box.str(1));
  std::size_t turned = 0;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), kTurned); it != std::sregex_iterator(); ++it) {
    ++turned;
    double x = std::stod(it->str(1)), y = std::stod(it->str(2));
    double angle = std::stod(it->str(3)) * std::numbers::pi / 180;
    double w = text_width(it->str(4));
    EXPECT_GE(x - w * std::cos(angle), 0) << it->str(4);
    EXPECT_LE(y + w * std::sin(angle), height) << it->str(4);
  }
  EXPECT_EQ(turned, 24u);
  // The aggregate and each target are bars of their own.
  for (const char* label : {"randread 4K qd128 x1 all", "randread 4K qd128 x1 /dev/nvme1n1"})
    EXPECT_NE(svg.find(std::string(">") + label + "</text>"), std::string::npos) << label;
}

TEST(Svg, RowLabelsAreWrappedWholeNeverCut) {
  const std::string label =
      "storage.io bs=1048576 iodepth=16 jobs=1 rw=read target=[\"/mnt/a/very/long/path/to/the/target\"] "
      "lat_p99";
  std::vector<DotRow> rows{
      {label, {{-20, true, true, "node07 /mnt/a/very/long/path/to/the/target"}, {0, false, false, "x"}}}};
  std::string svg = svg_dot_rows("outliers", rows, 5);
  auto texts = chart_texts(svg);
  EXPECT_NE(std::find(texts.begin(), texts.end(), html_escape(label)), texts.end());
  EXPECT_EQ(svg.find("..."), std::string::npos);
  std::string bars = svg_percent_bars("peak", {HBar{label, 80}}, {70});
  texts = chart_texts(bars);
  EXPECT_NE(std::find(texts.begin(), texts.end(), html_escape(label)), texts.end());
  // Each line of a wrapped label fits the label column (at most kMaxLabelColumn of the chart), and the
  // text of the lines is the label's.
  auto lines = wrap_text(label, kMaxLabelColumn * kChartWidth);
  EXPECT_GT(lines.size(), 1u);
  std::string joined;
  for (const auto& l : lines) {
    EXPECT_LE(text_width(l), kMaxLabelColumn * kChartWidth);
    joined += (joined.empty() ? "" : " ") + l;
  }
  EXPECT_EQ(joined, label);
  // A word wider than the line is broken, not dropped.
  auto broken = wrap_text("abcdefghij", text_width("abcd"));
  EXPECT_EQ(broken, (std::vector<std::string>{"abcd", "efgh", "ij"}));
  // The fleet page's rows carry their whole labels.
  EXPECT_EQ(pages().fleet_html.find("...<"), std::string::npos);
}

TEST(Svg, NiceTicksAndAxisUnits) {
  auto near = [](const std::vector<double>& got, const std::vector<double>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12);
  };
  near(nice_ticks(0, 10, 5), {0, 2, 4, 6, 8, 10});
  near(nice_ticks(0, 0.9, 4), {0, 0.2, 0.4, 0.6, 0.8});
  near(nice_ticks(-23, 7, 6), {-20, -15, -10, -5, 0, 5});
  EXPECT_EQ(axis_unit(7.6e14, "FLOP/s").label, "TFLOP/s");
  EXPECT_EQ(axis_unit(7.6e14, "FLOP/s").factor, 1e12);
  EXPECT_EQ(axis_unit(2e-4, "s").label, "us");
}

// The SVG of the chart titled `title` on a page ("" when there is none).
std::string chart_titled(const std::string& html, const std::string& title) {
  auto at = html.find("<title>" + title);
  if (at == std::string::npos) return "";
  auto start = html.rfind("<svg", at);
  return html.substr(start, html.find("</svg>", at) - start);
}

// The numbers of an SVG attribute over every element that has it, in order.
std::vector<double> attribute_values(const std::string& svg, const std::string& element,
                                     const std::string& attr) {
  std::vector<double> out;
  const std::regex re("<" + element + "[^>]* " + attr + "=\"([-0-9.]+)\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator(); ++it)
    out.push_back(std::stod(it->str(1)));
  return out;
}

TEST(HtmlBurnin, FixturesLoadAsReports) {
  const Report& gpu = pages().burnin[0].report;
  ASSERT_EQ(gpu.results.size(), 13u);  // 9 phase results, 2 GPUs, the host, the node
  EXPECT_EQ(gpu.host["gpus"].size(), 2u);
  const Report& host = pages().burnin_host[0].report;
  EXPECT_TRUE(host.host["gpus"].empty());
  for (const auto* r : {&gpu, &host}) {
    const auto node = std::find_if(r->results.begin(), r->results.end(),
                                   [](const Result& x) { return x.probe == burnin_report::kNodeProbe; });
    ASSERT_NE(node, r->results.end());
    EXPECT_FALSE(node->info["phases"].empty());
  }
}

TEST(HtmlBurnin, TheVerdictAndItsReasonsComeFirstThenTheGpuTableThenTheCharts) {
  const std::string& html = pages().burnin_html;
  const auto verdict = html.find(
      "<p class=\"verdict bad\">burn-in FAIL (4 of 5 phases passed, 1 failed; 2 GPUs: 0 pass, 1 warn, 1 "
      "fail) "
      "— gemm passed (gpu0 41200, gpu1 43300 verified passes); hbm passed (gpu0 96, gpu1 97 verified "
      "passes); "
      "hostmem passed (14 verified passes); storage passed (74 verified passes); all failed on gpu1</p>");
  const auto reason = html.find(
      "<li>gpu1: XID 79 at 1620 s: NVRM: Xid (PCI:0000:1b:00): 79, GPU has fallen off the bus.</li>");
  const auto table = html.find("<caption>burn-in verdict per GPU</caption>");
  ASSERT_NE(verdict, std::string::npos);
  ASSERT_NE(reason, std::string::npos);
  ASSERT_NE(table, std::string::npos);
  EXPECT_EQ(html.find("</h1>\n<section id=\"summary\">\n<p class=\"verdict"), html.find("</h1>"));
  EXPECT_LT(verdict, reason);
  EXPECT_LT(reason, table);
  EXPECT_LT(table, html.find("<caption>host inventory"));
  EXPECT_LT(table, html.find("<svg"));
  // A column per rate the GPUs measured, named by its rate key.
  EXPECT_NE(
      html.find("<th>reasons</th><th>gemm_tflops</th><th>hbm_bandwidth</th><th>SM clock median / max</th>"),
      std::string::npos);
  // Each GPU's row: its UUID, verdict and reasons, rates, clock/power/temperature median and max from its
  // summary, and the seconds of each throttle reason that was set.
  std::smatch row;
  ASSERT_TRUE(std::regex_search(html, row, std::regex(R"(<tr><td>gpu0</td>[\s\S]*?</tr>)")));
  for (const char* cell :
       {"<td>GPU-2100a1f3-7c2e-4b8d-9e51-000000000000</td>", "<td class=\"warn\">warn</td>",
        "6.3 % below the baseline fleet median", "<td class=\"num\">702 TFLOP/s</td>",
        "<td class=\"num\">2.91 TB/s</td>", "<td class=\"num\">1.98 / 1.98 GHz</td>",
        "<td class=\"num\">534 / 703 W</td>", "<td>sw_power_cap 311 s</td>"}) {
    EXPECT_NE(row.str().find(cell), std::string::npos) << cell << " in " << row.str();
  }
  ASSERT_TRUE(std::regex_search(html, row, std::regex(R"(<tr><td>gpu1</td>[\s\S]*?</tr>)")));
  for (const char* cell :
       {"<td class=\"bad\">fail</td>", "gpu1: stopped answering during the burn-in (lost)",
        "<td>hw_slowdown 42 s\nsw_power_cap 288 s</td>", "<td class=\"num\">38 / 90.2 °C</td>"}) {
    EXPECT_NE(row.str().find(cell), std::string::npos) << cell << " in " << row.str();
  }
  // The burn-in results are in their own tables, not again in the generic results table.
  EXPECT_EQ(html.find("<caption>gpu-node-21: "), std::string::npos);
}

TEST(HtmlBurnin, WithoutASummaryTheGpuTableReadsTheTimeline) {
  auto reports = pages().burnin;
  for (auto& r : reports[0].report.results) r.info.erase("summary");
  const std::string html = to_html_page(HtmlPage{"burn-in", &reports, {}, std::nullopt, 0.05, std::nullopt});
  std::smatch row;
  ASSERT_TRUE(std::regex_search(html, row, std::regex(R"(<tr><td>gpu0</td>[\s\S]*?</tr>)")));
  // gpu0's SM clock over the timeline's 30 points: the median is the mean of the middle two (1.784 and
  // 1.98 GHz), where the summary said 1.98 GHz.
  EXPECT_NE(row.str().find("<td class=\"num\">1.88 / 1.98 GHz</td>"), std::string::npos) << row.str();
}

TEST(HtmlBurnin, TimelinesDrawEachGpuThePhasesAndTheEvents) {
  const std::string& html = pages().burnin_html;
  EXPECT_EQ(count(html, "<svg"), 4u);
  const auto& spans = pages().burnin[0].report.results.back().info["phases"];
  ASSERT_EQ(spans.size(), 9u);
  for (const char* title : {"SM clock per GPU", "Power per GPU",
                            "Temperature per GPU (solid: GPU, dashed: HBM)", "Host: CPU, memory and disks"}) {
    const std::string svg = chart_titled(html, title);
    ASSERT_FALSE(svg.empty()) << title;
    const bool gpu_chart = std::string(title).find("GPU") != std::string::npos;
    for (const char* gpu : {"gpu0", "gpu1"})
      EXPECT_EQ(svg.find(std::string("<title>") + gpu + "</title>") != std::string::npos, gpu_chart) << title;
    // Every phase a shaded band under its label, the label centred over the band; cooldowns paler.
    static const std::regex kBand(
        R"x(<rect x="([0-9.]+)" y="[0-9.]+" width="([0-9.]+)" height="[0-9.]+" fill="(#[0-9a-f]+)"><title>([a-z-]+) [0-9]+-[0-9]+ s</title></rect><text class="band" x="([0-9.]+)"[^>]*>([a-z-]+)</text>)x");
    std::size_t bands = 0;
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), kBand); it != std::sregex_iterator(); ++it) {
      const auto& m = *it;
      EXPECT_EQ(m.str(4), spans[bands]["phase"].get<std::string>());
      EXPECT_EQ(m.str(6), m.str(4));
      EXPECT_EQ(m.str(3), m.str(4) == "cooldown" ? "#f4f4f4" : "#dfe7f1");
      const double centre = std::stod(m.str(1)) + std::stod(m.str(2)) / 2;
      EXPECT_NEAR(std::stod(m.str(5)) + text_width(m.str(6)) / 2, centre, 0.2) << m.str(6);
      ++bands;
    }
    EXPECT_EQ(bands, 9u) << title;
    // The XID, the throttle and the lost GPU: a marker line and its label each.
    for (const char* label : {"XID 79 gpu1", "throttle gpu1", "lost gpu1"})
      EXPECT_NE(svg.find(std::string(">") + label + "</text>"), std::string::npos) << title << ": " << label;
    EXPECT_EQ(count(svg, "<line class=\"marker\""), 3u);
    EXPECT_NE(
        svg.find("<title>XID 79 gpu1: NVRM: Xid (PCI:0000:1b:00): 79, GPU has fallen off the bus.</title>"),
        std::string::npos);
  }
  // gpu1 stopped answering at the XID: its SM clock line ends before the marker, not drawn through the gap.
  const std::string clock = chart_titled(html, "SM clock per GPU");
  const auto markers = attribute_values(clock, "line class=\"marker\"", "x1");
  std::smatch line;
  ASSERT_TRUE(
      std::regex_search(clock, line, std::regex(R"x(stroke="#f28e2b"[^>]*points="([^"]*)"><title>gpu1<)x")));
  const std::string points = line.str(1);
  const double last_x = std::stod(points.substr(points.rfind(' ') + 1));
  EXPECT_LT(last_x, *std::max_element(markers.begin(), markers.end()));
  // HBM temperatures dashed, in their GPU's colour.
  EXPECT_NE(
      chart_titled(html, "Temperature per GPU")
          .find("stroke=\"#f28e2b\" stroke-width=\"1.5\" stroke-linecap=\"round\" stroke-dasharray=\"5 3\""),
      std::string::npos);
  // The host chart: CPU busy in percent, memory, disk read and write.
  const std::string host = chart_titled(html, "Host: CPU, memory and disks");
  for (const char* axis : {">CPU busy (%)<", ">memory (GB)<", ">disks (GB/s)<"})
    EXPECT_NE(host.find(axis), std::string::npos) << axis;
  for (const char* name : {"CPU busy", "memory in use", "disk read", "disk write"})
    EXPECT_NE(host.find(std::string("<title>") + name + "</title>"), std::string::npos) << name;
  // Phases and events as tables too.
  EXPECT_NE(
      html.find("<tr><td>gemm</td><td>gpu0</td><td class=\"num\">702 TFLOP/s</td><td class=\"num\">0</td>"),
      std::string::npos);
  EXPECT_NE(
      html.find("<td class=\"bad\">failed</td><td class=\"bad\">gpu1 stopped answering (XID 79) 180 s into "
                "the phase</td>"),
      std::string::npos);
  EXPECT_NE(html.find("<tr><td class=\"num\">1620 s</td><td>gpu1</td><td>xid</td><td class=\"num\">79</td>"),
            std::string::npos);
}

TEST(HtmlBurnin, WithoutGpusOnlyTheHostChartAndThePhases) {
  const std::string& html = pages().burnin_host_html;
  EXPECT_NE(
      html.find("<p class=\"verdict good\">burn-in PASS (3 of 3 phases passed; no GPU) — hostmem passed "
                "(15 verified passes); storage passed (81 verified passes); all passed (host 14, "
                "/var/tmp/mlbench-burnin.scratch 66 verified passes)</p>"),
      std::string::npos);
  EXPECT_EQ(count(html, "<svg"), 1u);
  EXPECT_EQ(html.find("per GPU"), std::string::npos);
  const std::string host = chart_titled(html, "Host: CPU, memory and disks");
  ASSERT_FALSE(host.empty());
  for (const char* phase : {"hostmem", "storage", "all"})
    EXPECT_EQ(count(host, std::string(">") + phase + "</text>"), 1u) << phase;
  EXPECT_EQ(count(host, ">cooldown</text>"), 2u);
  EXPECT_EQ(host.find("class=\"marker\""), std::string::npos);
  EXPECT_EQ(html.find("<caption>burn-in events"), std::string::npos);
  EXPECT_NE(
      html.find(
          "<tr><td>storage</td><td>/var/tmp/mlbench-burnin.scratch</td><td class=\"num\">2.71 GB/s</td>"),
      std::string::npos);
}

TEST(HtmlBurnin, AnInterruptedBurninSaysSo) {
  auto reports = pages().burnin_host;
  reports[0].report.run["interrupted"] = true;
  const std::string html = to_html_page(HtmlPage{"burn-in", &reports, {}, std::nullopt, 0.05, std::nullopt});
  EXPECT_NE(
      html.find(
          "<p class=\"verdict good\">burn-in PASS (3 of 3 phases passed; no GPU) — hostmem passed (15 "
          "verified passes); storage passed (81 verified passes); all passed (host 14, "
          "/var/tmp/mlbench-burnin.scratch 66 verified passes); interrupted: the report holds the phases "
          "that ran</p>"),
      std::string::npos);
  EXPECT_EQ(pages().burnin_host_html.find("interrupted"), std::string::npos);
}

// A burn-in whose phase stopped before one full verified pass is not a pass: the banner says INCOMPLETE in
// the colour of a fail, and which phase and how far it got.
TEST(HtmlBurnin, AnIncompleteBurninIsNeverShownAsAPass) {
  auto reports = pages().burnin_host;
  for (auto& r : reports[0].report.results) {
    if (r.probe == "burnin.node") {
      r.info["verdict"] = "incomplete";
      r.status = Status::failed;
    }
    if (r.probe == "burnin.storage") {
      r.status = Status::skipped;
      r.reason = "stopped after 40 % of one verified pass over the 1.00 GiB scratch file (3.0 s)";
      r.metrics.erase(r.metrics.begin());
      r.info["iterations"] = 0;
    }
  }
  const std::string html = to_html_page(HtmlPage{"burn-in", &reports, {}, std::nullopt, 0.05, std::nullopt});
  EXPECT_NE(
      html.find("<p class=\"verdict bad\">burn-in INCOMPLETE (2 of 3 phases passed, 1 incomplete; no GPU) "
                "— hostmem passed (15 verified passes); storage incomplete: stopped after 40 % of one "
                "verified pass over the 1.00 GiB scratch file (3.0 s); all passed"),
      std::string::npos);
  EXPECT_EQ(html.find("burn-in PASS"), std::string::npos);
}

TEST(HtmlBurnin, AFleetOfBurninsIsOneLineWithoutPerNodeTablesOrTimelines) {
  std::vector<NamedReport> fleet;
  for (std::size_t i = 0; i <= kMaxChartMachines; ++i) {
    fleet.push_back(i % 3 == 0 ? pages().burnin_host[0] : pages().burnin[0]);
    fleet.back().file = fmt::format("node{:02}.json", i);
  }
  const std::string html = to_html_page(HtmlPage{"fleet", &fleet, {}, std::nullopt, 0.05, std::nullopt});
  EXPECT_NE(
      html.find("<p class=\"verdict bad\">burn-in of 9 nodes: 3 pass, 0 warn, 0 incomplete, 6 fail</p>"),
      std::string::npos);
  EXPECT_EQ(html.find("burn-in verdict per GPU"), std::string::npos);
  EXPECT_EQ(html.find("<svg"), std::string::npos);
}

TEST(HtmlBurnin, ABadTimelineIsBadInputNamingTheFileAndTheResult) {
  auto reports = pages().burnin;
  for (auto& r : reports[0].report.results) {
    if (r.probe == burnin_report::kGpuProbe) r.info["timeline"]["power_w"].erase(0);
  }
  try {
    to_html_page(HtmlPage{"burn-in", &reports, {}, std::nullopt, 0.05, std::nullopt});
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(
        std::string(e.what()).find("burnin-gpu.json: burnin.gpu gpu0: burn-in timeline: 'power_w' has 29 "
                                   "points and 't' has 30"),
        std::string::npos)
        << e.what();
  }
}

// The y tick labels of a chart (at the plot's left edge), in order.
std::vector<double> y_ticks(const std::string& svg) {
  std::vector<double> out;
  static const std::regex kTick(R"x(<text x="64.0" y="[0-9.]+" text-anchor="end">([-0-9.]+)</text>)x");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), kTick); it != std::sregex_iterator(); ++it)
    out.push_back(std::stod(it->str(1)));
  return out;
}

TEST(Svg, TimeChartAxesStartAtZeroUnlessAPanelSaysOtherwise) {
  TimeChart c{
      "busy", {TimePanel{"CPU busy", "%", {TimeSeries{"cpu", {0, 1, 2}, {61, 99, 100}, 0, false}}}}, {}, {}};
  auto ticks = y_ticks(svg_time_chart(c));
  ASSERT_FALSE(ticks.empty());
  EXPECT_EQ(*std::min_element(ticks.begin(), ticks.end()), 0);
  c.panels[0].from_zero = false;
  ticks = y_ticks(svg_time_chart(c));
  EXPECT_EQ(*std::min_element(ticks.begin(), ticks.end()), 60);
  EXPECT_EQ(*std::max_element(ticks.begin(), ticks.end()), 100);
  // On the burn-in page: clocks and temperatures from below their lowest value, power and the host from zero.
  const std::string& html = pages().burnin_html;
  for (const char* title : {"SM clock per GPU", "Temperature per GPU", "Power per GPU", "Host: CPU"}) {
    ticks = y_ticks(chart_titled(html, title));
    ASSERT_FALSE(ticks.empty()) << title;
    const bool zero = std::string(title).find("SM clock") == std::string::npos &&
                      std::string(title).find("Temperature") == std::string::npos;
    EXPECT_EQ(*std::min_element(ticks.begin(), ticks.end()) == 0, zero) << title;
  }
}

TEST(Svg, TimeChartLabelsDoNotOverlapAndCrowdedMarkersAreCounted) {
  TimeChart c{"t", {TimePanel{"x", "W", {TimeSeries{"a", {0, 10, 20}, {1, NAN, 3}, 0, false}}}}, {}, {}};
  // Forty events in one second: four rows of labels, the rest counted.
  for (int i = 0; i < 40; ++i)
    c.markers.push_back(TimeMarker{5 + i * 0.025, fmt::format("XID 79 gpu{}", i), ""});
  c.bands = {{"host-memory", 0, 10, false}, {"cooldown", 10, 10.2, true}, {"storage", 10.2, 11, false}};
  const std::string svg = svg_time_chart(c);
  EXPECT_EQ(count(svg, "<line class=\"marker\""), 40u);
  EXPECT_EQ(count(svg, "<text class=\"marker\""), kMaxMarkerRows);
  EXPECT_NE(svg.find(">36 more event(s) marked without a label"), std::string::npos);
  // The NaN is a gap: two lone points, no line through it.
  EXPECT_EQ(count(svg, "<polyline"), 2u);
  // No two labels of one row overlap.
  static const std::regex kLabel(
      R"x(<text class="(band|marker)" x="([0-9.]+)" y="([0-9.]+)"( text-anchor="(start|end)")?[^>]*>([^<]*)</text>)x");
  std::map<std::string, std::vector<std::pair<double, double>>> rows;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), kLabel); it != std::sregex_iterator(); ++it) {
    const double x = std::stod(it->str(2)), w = text_width(it->str(6));
    const double x0 = it->str(5) == "end" ? x - w : x;
    EXPECT_GE(x0, 0) << it->str(6);
    EXPECT_LE(x0 + w, kChartWidth) << it->str(6);
    rows[it->str(3)].emplace_back(x0, x0 + w);
  }
  EXPECT_EQ(rows.size(), 2 + kMaxMarkerRows);  // bands need two rows: "cooldown" overlaps its neighbours
  for (auto& [y, spans] : rows) {
    std::sort(spans.begin(), spans.end());
    for (std::size_t i = 1; i < spans.size(); ++i)
      EXPECT_LE(spans[i - 1].second, spans[i].first) << "row " << y;
  }
}

std::string chromium() {
  if (test::have_tool("chromium")) return "chromium";
  return test::have_tool("chromium-browser") ? "chromium-browser" : "";
}

// Headless Chromium on `html` with `args` (--screenshot=..., --dump-dom); its stdout in `out`.
void run_chromium(const test::TempDir& dir, const std::string& html, const std::string& args,
                  const std::filesystem::path& out) {
  auto page = dir.path() / "page.html";
  std::ofstream(page) << html;
  std::string cmd = "timeout 120 " + chromium() +
                    " --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking"
                    " --disable-component-update --disable-sync --hide-scrollbars --user-data-dir='" +
                    (dir.path() / "profile").string() + "' " + args + " 'file://" + page.string() + "' > '" +
                    out.string() + "' 2> '" + (dir.path() / "log").string() + "'";
  ASSERT_EQ(test::run_shell(cmd), 0) << test::slurp(dir.path() / "log");
}

// The charts' layout rests on text_width: in the browser that renders them, no text of a chart (label, tick,
// legend; not the bold titles, set against nothing but the chart's width) is wider than text_width says. A
// script in a copy of the pages (the pages have none) measures each line; the test compares.
TEST(Html, ChromiumMeasuresNoChartTextWiderThanTextWidth) {
  if (chromium().empty()) GTEST_SKIP() << "chromium not installed (Debian package 'chromium')";
  test::TempDir dir("mlbench-reports");
  const std::string script = R"js(<script>
const lines = [];
for (const t of document.querySelectorAll('svg.chart text:not([font-weight])')) {
  const size = parseFloat(getComputedStyle(t).fontSize);
  const parts = t.querySelector('tspan') ? [...t.querySelectorAll('tspan')] : [t];
  for (const p of parts) lines.push([p.textContent, size, p.getComputedTextLength()]);
}
const pre = document.createElement('pre');
pre.id = 'widths';
pre.textContent = JSON.stringify(lines);
document.body.appendChild(pre);
</script>)js";
  std::string pages_html;
  for (const auto* html : pages().all()) pages_html += *html;
  auto dom = dir.path() / "dom.html";
  run_chromium(dir, pages_html + script, "--dump-dom", dom);
  // Found by hand: std::regex recurses per character and overflows the stack on a text this long.
  std::string text = test::slurp(dom);
  const std::string tag = "<pre id=\"widths\">";
  auto start = text.find(tag);
  ASSERT_NE(start, std::string::npos) << text.substr(0, 2000);
  start += tag.size();
  std::string json = text.substr(start, text.find("</pre>", start) - start);
  static const std::pair<std::string, std::string> kEntities[] = {
      {"&quot;", "\""}, {"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"}};
  for (const auto& e : kEntities) {
    for (auto pos = json.find(e.first); pos != std::string::npos; pos = json.find(e.first, pos + 1))
      json.replace(pos, e.first.size(), e.second);
  }
  Json lines = Json::parse(json);
  ASSERT_GT(lines.size(), 500u);
  for (const auto& l : lines) {
    auto content = l[0].get<std::string>();
    EXPECT_LE(l[2].get<double>(), text_width(content, l[1].get<double>()) + 0.01)
        << "'" << content << "' at " << l[1] << " px";
  }
}

// A screenshot of `html` at 1100 x `height` px: the PNG's bytes.
std::string screenshot(const std::string& html, int height) {
  test::TempDir dir("mlbench-reports");
  auto png = dir.path() / "page.png";
  run_chromium(dir, html, fmt::format("--window-size=1100,{} --screenshot='{}'", height, png.string()),
               dir.path() / "out");
  return test::slurp(png);
}

TEST(Html, RendersInHeadlessChromium) {
  if (chromium().empty()) GTEST_SKIP() << "chromium not installed (Debian package 'chromium')";
  std::string data = screenshot(pages().compare_html, 2400);
  ASSERT_GT(data.size(), 24u);
  EXPECT_EQ(data.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  // IHDR: width and height, big-endian, at bytes 16..23.
  auto be32 = [&](std::size_t off) {
    return (static_cast<unsigned>(static_cast<unsigned char>(data[off])) << 24) |
           (static_cast<unsigned>(static_cast<unsigned char>(data[off + 1])) << 16) |
           (static_cast<unsigned>(static_cast<unsigned char>(data[off + 2])) << 8) |
           static_cast<unsigned>(static_cast<unsigned char>(data[off + 3]));
  };
  EXPECT_EQ(be32(16), 1100u);
  EXPECT_EQ(be32(20), 2400u);
  // A blank page compresses to a few KiB; charts and tables do not.
  EXPECT_GT(data.size(), 60u * 1024) << "the screenshot looks empty";
  if (const char* keep = std::getenv("MLBENCH_KEEP_PNG"); keep != nullptr && *keep != '\0')
    std::ofstream(keep) << data;
}

TEST(HtmlBurnin, RendersInHeadlessChromium) {
  if (chromium().empty()) GTEST_SKIP() << "chromium not installed (Debian package 'chromium')";
  for (const auto* html : {&pages().burnin_html, &pages().burnin_host_html}) {
    std::string data = screenshot(*html, 3000);
    ASSERT_GT(data.size(), 24u);
    EXPECT_EQ(data.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
    // A blank page compresses to a few KiB; timelines and tables do not.
    EXPECT_GT(data.size(), 60u * 1024) << "the screenshot looks empty";
  }
}

}  // namespace
}  // namespace mlbench
