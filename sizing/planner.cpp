#include "sizing/plan_context.hpp"

#include <fmt/format.h>

#include "base/error.hpp"

namespace mlbench::sizing::planning {

Planner::Planner(const PlanRequest& req, const HardwareCatalog& cat)
    : req_(req), cat_(cat), h_(req.headroom) {
  prices_ = req.prices ? *req.prices : cat.prices;
  sheet_.headroom = h_;
  sheet_.workload = fmt::format("{} ({}, {})", req.workload.name, req.workload.kind, req.workload.source);
  pick_node();
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
  } else if (!req_.reports.empty()) {
    const Report& r = req_.reports.front();
    const GpuSpec* g = report_gpu(r, cat_);
    int count = r.host.contains("gpus") ? static_cast<int>(r.host["gpus"].size()) : 0;
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
                                                 r.host["gpus"][0].value("name", "unknown"));
      sheet_.hardware =
          fmt::format("{}: {}, so the default template is sized: {}", node_->name, why, node_->description);
      sheet_.warnings.push_back(
          fmt::format("{}: sizing the {} template; its GPU figures are transferred from "
                      "another measured GPU or assumed (METHODS defaults)",
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

void Planner::calibrate_for(const std::string& precision, std::vector<GemmShape> shapes) {
  CalibrationInput in{facts_.gpu, precision, std::move(shapes), node_is_measured_};
  cal_ = calibrate(req_.reports, cat_, in);
}

double Planner::peak(const std::string& precision) const {
  auto p = facts_.gpu->peak_for(precision);
  if (!p)
    throw UsageError(fmt::format("{} has no {} peak in the catalog: choose another precision or --hardware",
                                 facts_.gpu->name, precision));
  return *p;
}

std::string Planner::planning_text(int nodes, double time_s, bool inverse) const {
  const auto& w = req_.workload;
  if (inverse)
    return fmt::format("inverse: smallest node count with time x (1 + {:.2f}) <= deadline {}", h_,
                       days(*w.deadline_s));
  return fmt::format("forward: {} nodes given{}", nodes,
                     w.deadline_s ? fmt::format(" (deadline {} {})", days(*w.deadline_s),
                                                time_s * (1 + h_) <= *w.deadline_s ? "met" : "NOT met")
                                  : "");
}

}  // namespace mlbench::sizing::planning

namespace mlbench::sizing {

std::string check_headroom(double headroom) {
  if (!(headroom >= 0 && headroom <= 0.5))
    throw UsageError(fmt::format(
        "--headroom {} is out of range: give a fraction between 0 and 0.5 (0.25 = 25 %)", headroom));
  if (headroom < 0.2 || headroom > 0.3)
    return fmt::format("headroom {:.2f} is outside the recommended 0.20-0.30 per resource", headroom);
  return "";
}

Sheet plan(const PlanRequest& req, const HardwareCatalog& catalog) {
  std::string warning = check_headroom(req.headroom);
  if (req.nodes && *req.nodes <= 0) throw UsageError("--nodes must be a positive whole number");
  Sheet s = planning::Planner(req, catalog).run();
  if (!warning.empty()) s.warnings.insert(s.warnings.begin(), warning);
  return s;
}

}  // namespace mlbench::sizing
