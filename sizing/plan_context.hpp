// The planner's state while it sizes one workload and builds its sheet
// (internal to sizing/). One file per workload kind fills the kind's lines:
// plan_llm_training.cpp, plan_cv_training.cpp, plan_llm_inference.cpp;
// plan_sections.cpp holds the sections every kind prints (storage, network,
// power, host, cost, assumptions) and planner.cpp the node choice, calibration
// and the node-count search they share.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sizing/calibration.hpp"
#include "sizing/formula.hpp"
#include "sizing/models.hpp"
#include "sizing/planner.hpp"

namespace mlbench::sizing::planning {

inline constexpr int kMaxNodes = 1 << 17;
inline constexpr double kSecondsPerYear = 365 * 86400.0;
// HBM is binary (an "80 GB" H100 holds 80 GiB): the memory lines are in GiB like their terms.
inline constexpr double kGiB = 1024.0 * 1024 * 1024;

inline std::string gbs(double v) { return fmt::format("{:.2f} GB/s", v / 1e9); }
// A duration as a reader takes it in: hours under a day, days from a day on.
inline std::string duration(double s) {
  return s < 86400 ? fmt::format("{:.2f} h", s / 3600) : fmt::format("{:.2f} days", s / 86400);
}

class Planner {
 public:
  Planner(const PlanRequest& req, const HardwareCatalog& cat);
  Sheet run();

 private:
  const PlanRequest& req_;
  const HardwareCatalog& cat_;
  double h_;
  Prices prices_;
  const NodeTemplate* node_ = nullptr;
  NodeFacts facts_;
  bool node_is_measured_ = false;
  Calibration cal_;
  Sheet sheet_;
  const CoolingSpec* cooling_ = nullptr;
  // What add_network buys, priced and powered by add_power_host_cost and add_cost.
  struct NetworkBuy {
    const SwitchSpec* sw = nullptr;
    int switches = 0, cables = 0;
    std::vector<std::string> switch_items;  // the sheet lines that count the switches
    std::string cable_item;
  };
  NetworkBuy net_;

  // A line's quantity: a number, or a Formula whose symbols and terms the sheet line keeps (its driver prints
  // the formula's shown text). Implicit, so that a line reads `.quantity = nodes` or `.quantity = f`.
  struct Quantity {
    Quantity(double v) : value(v) {}
    Quantity(Formula f) : value(f.value()), formula(std::move(f)) {}
    double value = 0;
    std::optional<Formula> formula;
  };
  // A line of the sheet, written with designated initialisers; its quantity in `unit` is quantity / per. With
  // `planned` the quantity is a need planned with the headroom: the line takes with_headroom(quantity), the
  // headroom a term of its formula, and its headroom column says so. Any other line's `headroom` says how the
  // headroom entered it ("-": not at all).
  struct Line {
    std::string section, item;
    Quantity quantity;
    double per = 1;
    std::string unit, spec, driver;
    bool planned = false;
    std::string headroom = "-";
    std::string source;
  };
  // Adds the line; returns its quantity as planned, before `per`.
  double line(Line l);
  void total(std::string item, double q, std::string unit, std::string driver) {
    sheet_.totals.push_back({"Total", std::move(item), q, std::move(unit), "", std::move(driver), "", ""});
  }
  std::string src(const Figure& f) const { return std::string(to_string(f.source)); }
  // Where a node count not searched for came from: --nodes, the workload's `nodes:`, else the workload's
  // layout (a training layout fixing tp, pp, dp and cp fixes the GPUs).
  std::string nodes_given() const {
    return req_.nodes ? "--nodes" : req_.workload.nodes ? "the workload's nodes" : "the workload's layout";
  }
  SheetLine* find_line(std::string_view item);  // the first line of that item, or nullptr
  // The "GPUs" line of every planner: nodes x GPUs per node of the catalog's GPU, `spec` its peak and memory.
  void gpus_line(int nodes, std::string spec) {
    line({.section = "Compute",
          .item = "GPUs",
          .quantity = static_cast<double>(nodes) * facts_.gpus,
          .unit = "GPUs",
          .spec = std::move(spec),
          .driver = fmt::format("{} nodes x {} GPUs", nodes, facts_.gpus),
          .source = "catalog"});
  }

  // planner.cpp: the node, its calibration, the search.
  void pick_node();
  // plan_sections.cpp: the goodput with this plan's cooling: the engine's goodput (measured with the
  // reference cooling) x (1 - lambda l) / (1 - lambda_ref l), lambda = -ln(stability) interruptions per day,
  // l = the share of a day one costs (a restart + half the checkpoint interval).
  double goodput(const Checkpointing& c) const;
  // The calibration for a workload's GEMMs; `sustained`: a serving planner's (assumed_gemm_asymptote).
  void calibrate_for(const std::string& precision, std::vector<GemmShape> shapes, bool sustained = false);
  double peak(const std::string& precision) const;
  std::string planning_text(int nodes, double time_s, bool inverse) const;
  // Smallest N in [1, kMaxNodes] whose evaluation meets the target: doubling,
  // then bisection.
  template <typename Meets>
  std::optional<int> smallest_nodes(Meets meets) {
    int hi = 1;
    while (hi <= kMaxNodes && !meets(hi)) hi *= 2;
    if (hi > kMaxNodes) return std::nullopt;
    int lo = hi / 2;  // fails (or 0)
    while (hi - lo > 1) {
      int mid = lo + (hi - lo) / 2;
      if (meets(mid))
        hi = mid;
      else
        lo = mid;
    }
    return hi;
  }

  // plan_llm_training.cpp
  struct TrainEval {
    LayoutChoice choice;
    TrainingStep step;
    double time_s = 0;
  };
  TrainEval eval_llm(const LlmTraining& w, int nodes);
  int find_nodes_llm(const LlmTraining& w, bool* inverse);
  void plan_llm_training(const LlmTraining& w);
  // plan_cv_training.cpp
  void plan_cv_training(const CvTraining& w);
  // plan_llm_inference.cpp
  void plan_inference(const LlmInference& w);
  void add_storage_inference(double weights, int nodes);

  // plan_sections.cpp: the sections every kind prints.
  double local_bw(bool write) const;
  std::string tier(double read, double write) const;
  void add_storage(double ckpt, const Checkpointing& c, double dataset_bytes, double read_rate, int nodes);
  // The node's local NVMe for its needs (B/s, B), each planned with the headroom.
  void add_local_raid(double write_need, double read_need, double capacity_need, bool survive_drive_loss);
  void add_cooling(const Checkpointing& c);
  // `cross_node`: the plan's replicas exchange traffic between nodes (training across nodes, a serving
  // replica larger than a node): a compute fabric; else a front-end network line.
  void add_network(int nodes, double comm_share, bool cross_node);
  void add_power_host_cost(int nodes, double run_s, double ckpt, const std::string& per, double tokens);
  void add_cost(int nodes, double run_s, double mwh, const std::string& per, double tokens);
  void add_assumptions();
};

}  // namespace mlbench::sizing::planning
