// The planner: forward (N nodes -> time to train or tokens served, energy, cost) and inverse (a deadline or a
// latency/throughput target -> the smallest N that meets it with the headroom), and the sizing sheet that
// explains the answer line by line.
//
// The headroom (sizing/headroom.hpp, kDefaultHeadroom unless the request gives one) is applied per resource
// and printed on each line it enters (METHODS.md "Headroom").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reports/report.hpp"
#include "sizing/catalog.hpp"
#include "sizing/headroom.hpp"
#include "sizing/sheet.hpp"
#include "sizing/workload.hpp"

namespace mlbench::sizing {

struct PlanRequest {
  Workload workload;
  std::vector<Report> reports;
  std::string
      hardware;  // node template name; "" = the measured node's, else the workload's, else the default
  double headroom = kDefaultHeadroom;
  std::optional<int> nodes;  // forward planning at this node count (overrides the workload's deadline)
  std::optional<Prices> prices;
  std::string cooling;  // a cooling option of the catalog; "" = the node template's
};

// UsageError when the workload cannot be sized (nothing fits, deadline unreachable), naming why.
Sheet plan(const PlanRequest& req, const HardwareCatalog& catalog);

// The same workload planned once per cooling option of the catalog (--compare-cooling), in catalog order.
std::vector<Sheet> plan_each_cooling(const PlanRequest& req, const HardwareCatalog& catalog);
// One table of the options side by side: power per GPU, PUE, stability and goodput with their sources, nodes,
// time, energy and cost — from each sheet's figures.
Document cooling_comparison(const std::vector<Sheet>& sheets);

}  // namespace mlbench::sizing
