#include "sizing/plan_context.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "base/error.hpp"
#include "bench/host_view.hpp"

namespace mlbench::sizing::planning {
namespace {

// The first report that measured its own host: a serving measurement (serve.llm results only) measured a
// server behind a URL from a load client, whose inventory says nothing of the node that served.
const Report* first_node_report(const std::vector<Report>& reports) {
  for (const auto& r : reports)
    if (r.results.empty() || !std::all_of(r.results.begin(), r.results.end(),
                                          [](const Result& x) { return x.probe == "serve.llm"; }))
      return &r;
  return nullptr;
}

}  // namespace

Planner::Planner(const PlanRequest& req, const HardwareCatalog& cat)
    : req_(req), cat_(cat), h_(req.headroom) {
  prices_ = req.prices ? *req.prices : cat.prices;
  sheet_.headroom = h_;
  sheet_.workload = fmt::format("{} ({}, {})", req.workload.name, req.workload.kind, req.workload.source);
  pick_node();
  cooling_ = &cat.cooling_spec(req.cooling.empty() ? node_->cooling : req.cooling);
}

Sheet Planner::run() {
  const auto& w = req_.workload;
  if (const auto* t = std::get_if<LlmTraining>(&w.spec)) {
    plan_llm_training(*t);
  } else if (const auto* c = std::get_if<CvTraining>(&w.spec)) {
    plan_cv_training(*c);
  } else {
    plan_inference(std::get<LlmInference>(w.spec));
  }
  add_assumptions();
  return std::move(sheet_);
}

void Planner::pick_node() {
  const auto& w = req_.workload;
  std::string fallback = w.hardware.empty() ? cat_.default_node : w.hardware;
  if (!req_.hardware.empty()) {
    node_ = &cat_.node(req_.hardware);
    sheet_.hardware = fmt::format("{} (--hardware): {}", node_->name, node_->description);
    // The template named may be the node measured: its GPU and GPU count.
    if (const Report* measured = first_node_report(req_.reports)) {
      const Report& r = *measured;
      const GpuSpec* g = report_gpu(r, cat_);
      int count = static_cast<int>(HostView(r.host).gpus.size());
      node_is_measured_ = g && g->name == node_->gpu && count == node_->gpus;
      if (node_is_measured_) sheet_.hardware += fmt::format(" (the node measured: {} x {})", count, g->name);
    }
  } else if (const Report* measured = first_node_report(req_.reports)) {
    const Report& r = *measured;
    const GpuSpec* g = report_gpu(r, cat_);
    const HostView host(r.host);
    int count = static_cast<int>(host.gpus.size());
    if (g) {
      for (const auto& n : cat_.nodes)
        if (n.gpu == g->name && (!node_ || (n.gpus == count && node_->gpus != count))) node_ = &n;
    }
    if (node_) {
      node_is_measured_ = true;
      sheet_.hardware = fmt::format("{}: the node measured ({} x {}), template {}", node_->name, count,
                                    g->name, node_->description);
    } else {
      node_ = &cat_.node(fallback);
      std::string why = count == 0 ? "the measured node has no GPU"
                                   : fmt::format("no node template holds the measured GPU ({})",
                                                 host.gpus[0].value("name", "unknown"));
      sheet_.hardware =
          fmt::format("{}: {}, so the default template is sized: {}", node_->name, why, node_->description);
      sheet_.warnings.push_back(
          count == 0
              ? fmt::format("{}: sizing the {} template; no GPU was measured, so its GPU figures are "
                            "assumed (METHODS.md \"Sizing assumptions\")",
                            why, node_->name)
              : fmt::format("{}: sizing the {} template; its GPU efficiencies are transferred from the "
                            "measured GPU where the report has them, else assumed "
                            "(METHODS.md \"Sizing assumptions\")",
                            why, node_->name));
    }
  } else {
    node_ = &cat_.node(fallback);
    sheet_.hardware = fmt::format("{}: {}", node_->name, node_->description);
  }
  facts_.gpu = &cat_.gpu(node_->gpu);
  facts_.gpus = node_->gpus;
  facts_.domain = node_->gpu_domain;
  facts_.nic_bytes_per_s = node_->nics * cat_.nic(node_->nic).bytes_per_s();
}

double Planner::line(Line l) {
  Quantity q = std::move(l.quantity);
  if (l.planned) {
    q = with_headroom(
        q.formula ? *q.formula : Formula::term("need", q.value, fmt::format("need {:.6g}", q.value)), h_);
    l.headroom = headroom_shown(h_);
  }
  SheetLine& s = sheet_.lines.emplace_back();
  s.section = std::move(l.section);
  s.item = std::move(l.item);
  s.quantity = q.value / l.per;
  s.unit = std::move(l.unit);
  s.spec = std::move(l.spec);
  s.driver = std::move(l.driver);
  s.headroom = std::move(l.headroom);
  s.source = std::move(l.source);
  if (q.formula) {
    s.formula = q.formula->symbolic();
    s.terms = q.formula->terms();
    s.formula_per = l.per;
  }
  return q.value;
}

void Planner::calibrate_for(const std::string& precision, std::vector<GemmShape> shapes, bool sustained) {
  CalibrationInput in{facts_.gpu, precision, std::move(shapes), node_is_measured_, sustained};
  cal_ = calibrate(req_.reports, cat_, in);
}

double Planner::peak(const std::string& precision) const {
  auto p = facts_.gpu->peak_for(peak_precision(precision));
  if (!p)
    throw UsageError(fmt::format("{} has no {} peak in the catalog: choose another precision or --hardware",
                                 facts_.gpu->name, precision));
  return *p;
}

std::string Planner::planning_text(int nodes, double time_s, bool inverse) const {
  const auto& w = req_.workload;
  if (inverse)
    return "inverse: smallest node count with " +
           deadline_rule("time", h_, std::nullopt, *w.deadline_s, duration);
  return fmt::format("forward: {} nodes given{}", nodes,
                     w.deadline_s ? fmt::format(" (deadline {} {})", duration(*w.deadline_s),
                                                meets_deadline(time_s, *w.deadline_s, h_) ? "met" : "NOT met")
                                  : "");
}

}  // namespace mlbench::sizing::planning

namespace mlbench::sizing {

Sheet plan(const PlanRequest& req, const HardwareCatalog& catalog) {
  std::string warning = check_headroom(req.headroom);
  if (req.nodes && *req.nodes <= 0) throw UsageError("--nodes must be a positive whole number");
  Sheet s = planning::Planner(req, catalog).run();
  if (!warning.empty()) s.warnings.insert(s.warnings.begin(), warning);
  // Each warning once (several reports can give the same one), in the order first given.
  std::vector<std::string> once;
  for (auto& w : s.warnings)
    if (std::find(once.begin(), once.end(), w) == once.end()) once.push_back(std::move(w));
  s.warnings = std::move(once);
  group_sections(s);
  use_readable_units(s);
  return s;
}

std::vector<Sheet> plan_each_cooling(const PlanRequest& req, const HardwareCatalog& catalog) {
  std::vector<Sheet> sheets;
  for (const auto& cool : catalog.cooling) {
    PlanRequest one = req;
    one.cooling = cool.name;
    sheets.push_back(plan(one, catalog));
  }
  return sheets;
}

Document cooling_comparison(const std::vector<Sheet>& sheets) {
  Document d;
  if (sheets.empty()) return d;
  d.title = fmt::format("Cooling options compared: {}", sheets.front().workload);
  d.facts = {"Hardware: " + sheets.front().hardware,
             "Each option planned as its own sheet (mlbench size --cooling NAME shows one whole)"};
  Table t{"",
          {"Cooling", "GPU power", "PUE", "Training stability", "Goodput", "Nodes", "Time", "Energy",
           "Capital", "Energy cost", "Cost"},
          {}};
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& s : sheets) {
    const auto& f = s.figures;
    const auto& c = f.at("cooling");
    auto number = [](double v, std::string text) { return Cell{std::move(text), Tone::plain, true, v}; };
    double time_s = f.value("time_s", 0.0);
    double mwh = f.at("power").at("mwh").get<double>();
    const auto cost = f.value("cost", nlohmann::json::object());
    std::string currency = cost.value("currency", "");
    auto money = [&](const char* key) {
      double v = cost.value(key, 0.0);
      return cost.contains(key) ? number(v, with_separators(v) + " " + currency) : Cell{"-"};
    };
    t.rows.push_back(
        {Cell{c.at("name").get<std::string>()},
         number(c.at("gpu_w").get<double>(),
                fmt::format("{:.0f} W per A100 ({})", c.at("gpu_w").get<double>(),
                            c.at("figures_source").get<std::string>())),
         number(c.at("pue").get<double>(),
                fmt::format("{:.2f} ({})", c.at("pue").get<double>(), c.at("pue_source").get<std::string>())),
         number(c.at("stability").get<double>(),
                fmt::format("{:.1f} %", 100 * c.at("stability").get<double>())),
         number(c.at("goodput").get<double>(), fmt::format("{:.4f}", c.at("goodput").get<double>())),
         number(f.at("nodes").get<double>(), with_separators(f.at("nodes").get<double>())),
         time_s > 0 ? number(time_s, planning::duration(time_s)) : Cell{"per year of service"},
         number(mwh, mwh < 1 ? fmt::format("{:.0f} kWh", mwh * 1000) : with_separators(mwh) + " MWh"),
         money("capital"), money("energy_cost"), money("cost")});
    rows.push_back(
        {{"cooling", c}, {"nodes", f.at("nodes")}, {"time_s", time_s}, {"mwh", mwh}, {"cost", cost}});
  }
  d.tables = {std::move(t)};
  d.json = {{"workload", sheets.front().workload}, {"options", std::move(rows)}};
  // A warning every option has once; one that only some have, under their names.
  for (const auto& s : sheets)
    for (const auto& w : s.warnings) {
      bool everywhere = std::all_of(sheets.begin(), sheets.end(), [&](const Sheet& o) {
        return std::find(o.warnings.begin(), o.warnings.end(), w) != o.warnings.end();
      });
      auto text = everywhere ? w : s.figures.at("cooling").at("name").get<std::string>() + ": " + w;
      if (std::find(d.list.begin(), d.list.end(), text) == d.list.end()) d.list.push_back(text);
    }
  d.list_title = "Warnings";
  return d;
}

}  // namespace mlbench::sizing
