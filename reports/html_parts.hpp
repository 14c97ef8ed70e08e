// The parts of the HTML report (reports/html.hpp), one file per kind of page it shows: a run's results
// (html_run.cpp), a comparison (html_compare.cpp), an acceptance check (html_check.cpp), a fleet
// (html_fleet.cpp) and a burn-in (html_burnin.cpp). The page shell (html.cpp) lays the page out — the
// summary with each part's verdict, the host inventory, the charts, the tables — and asks each part for its
// pieces; the helpers the parts share are defined there too.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "report/report_burnin.hpp"
#include "reports/check.hpp"
#include "reports/compare.hpp"
#include "reports/fleet.hpp"
#include "reports/inputs.hpp"
#include "reports/table.hpp"

namespace mlbench::html {

// --- Shared (html.cpp).
// The params as text, without the device and the keys in `drop`.
std::string short_params(const Json& params, std::initializer_list<const char*> drop);
// A field as text: a string as it is, anything else as JSON; "" when absent.
std::string text_of(const Json& j, const char* key);
// Items joined one a line ("none" when there are none).
std::string lines_of(const std::vector<std::string>& items);
// A verdict paragraph in the tone's colour.
std::string verdict_line(Tone tone, const std::string& text);

// --- A run's results (html_run.cpp).
// A report alone: how its results ran, by status, as the page's verdict.
std::string run_verdict(const NamedReport& report);
// The bar and line charts of the probes' results (GEMM, HBM, copies, NCCL, storage, host memory, % of peak),
// a series per machine (fleet min / median / max above kMaxChartMachines).
std::string run_charts(const std::vector<NamedReport>& reports, const std::vector<std::string>& machines);
// One row per result but a burn-in's; a result that did not run ok says why, and every result its warnings.
Table run_table(const NamedReport& report, const std::string& machine);

// --- A comparison (html_compare.cpp).
// Its verdict, then what went wrong: its regressions and status changes.
std::string compare_verdict_html(const Comparison& c);
// Its full tables and notes.
std::string compare_tables_html(const Comparison& c);

// --- An acceptance check (html_check.cpp).
std::string check_verdict_html(const CheckResult& c);
std::string check_tables_html(const CheckResult& c);

// --- A fleet (html_fleet.cpp).
// Its verdict and its outliers counted, worse and better.
std::string fleet_verdict_html(const FleetAnalysis& f);
// The outliers as dots, each a machine or GPU against the fleet median; "" when there are none.
std::string fleet_chart_html(const FleetAnalysis& f, double threshold);
std::string fleet_tables_html(const FleetAnalysis& f);

// --- A burn-in (html_burnin.cpp); the burn-in results are read by burnin_report::read_burnin().
// Each report's burn-in, nullopt for a report without one; a burn-in result of the wrong shape is a
// UsageError naming the file, the result and what is wrong.
std::vector<std::optional<burnin_report::Burnin>> read_burnins(const std::vector<NamedReport>& reports);
// Each burn-in's verdict, reasons and per-GPU table, machine by machine; above kMaxChartMachines reports, one
// line counting the nodes by verdict.
std::string burnin_verdicts_html(const std::vector<NamedReport>& reports,
                                 const std::vector<std::string>& machines,
                                 const std::vector<std::optional<burnin_report::Burnin>>& burnins);
// One chart per GPU quantity (a line per GPU) and the host's, phases shaded and events marked.
std::string burnin_charts_html(const burnin_report::Burnin& b, const std::string& prefix);
// The phase results and, when there are any, the events.
std::string burnin_tables_html(const burnin_report::Burnin& b, const std::string& prefix);

}  // namespace mlbench::html
