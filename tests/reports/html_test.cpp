#include "reports/html.hpp"

#include <fstream>
#include <regex>

#include <gtest/gtest.h>

#include "reports/svg.hpp"
#include "tests/reports/report_fixtures.hpp"

namespace mlbench {
namespace {

std::size_t count(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = hay.find(needle); pos != std::string::npos; pos = hay.find(needle, pos + 1)) ++n;
  return n;
}

// A comparison page of the two runs plus a fleet page: between them every chart kind appears.
struct Pages {
  std::vector<NamedReport> runs, fleet;
  std::string compare_html, fleet_html;
  Pages() {
    runs =
        load_reports({test::reports_data("run_a.json").string(), test::reports_data("run_b.json").string()});
    fleet = load_reports({test::reports_data("fleet").string()});
    compare_html = to_html_page(HtmlPage{
        "two runs", &runs, {compare_reports(runs[0], runs[1], {})}, std::nullopt, 0.05, std::nullopt});
    fleet_html = to_html_page(HtmlPage{"fleet", &fleet, {}, analyze_fleet(fleet, {}), 0.05, std::nullopt});
  }
};

const Pages& pages() {
  static const Pages p;
  return p;
}

TEST(Html, SelfContainedWithoutScriptsOrNetwork) {
  for (const auto* html : {&pages().compare_html, &pages().fleet_html}) {
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

TEST(Html, FleetPageCollapsesMachinesAndMarksTheOutlier) {
  const std::string& html = pages().fleet_html;
  EXPECT_NE(html.find("<title>Fleet outliers"), std::string::npos);
  EXPECT_NE(html.find(">node07 gpu1</text>"), std::string::npos);
  EXPECT_NE(html.find(">fleet median</text>"), std::string::npos);
  EXPECT_EQ(html.find(">node01</text>"), std::string::npos);  // 12 machines: no per-machine series
  EXPECT_NE(html.find("<caption>fleet outliers (12 reports)</caption>"), std::string::npos);
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

TEST(Html, RendersInHeadlessChromium) {
  std::string chromium = test::have_tool("chromium")
                             ? "chromium"
                             : (test::have_tool("chromium-browser") ? "chromium-browser" : "");
  if (chromium.empty()) GTEST_SKIP() << "chromium not installed (Debian package 'chromium')";
  test::TempDir dir("mlbench-reports");
  auto html = dir.path() / "page.html";
  auto png = dir.path() / "page.png";
  std::ofstream(html) << pages().compare_html;
  std::string cmd = "timeout 120 " + chromium +
                    " --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking"
                    " --disable-component-update --disable-sync --hide-scrollbars --user-data-dir='" +
                    (dir.path() / "profile").string() + "' --window-size=1100,2400 --screenshot='" +
                    png.string() + "' 'file://" + html.string() + "' > '" + (dir.path() / "log").string() +
                    "' 2>&1";
  int rc = test::run_shell(cmd);
  ASSERT_EQ(rc, 0) << test::slurp(dir.path() / "log");
  std::string data = test::slurp(png);
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
  if (const char* keep = std::getenv("MLBENCH_KEEP_PNG"); keep != nullptr && *keep != '\0') {
    std::filesystem::copy_file(png, keep, std::filesystem::copy_options::overwrite_existing);
  }
}

}  // namespace
}  // namespace mlbench
