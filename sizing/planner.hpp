// The planner: forward (N nodes -> time to train or tokens served, energy, cost) and inverse (a deadline or a
// latency/throughput target -> the smallest N that meets it with the headroom), and the sizing sheet that
// explains the answer line by line.
//
// Headroom h (default 0.25) is applied per resource and printed on each line: planned time x (1 + h) within
// the deadline, HBM use <= (1 - h) x capacity (METHODS), bandwidths, capacities, serving throughput, switch
// ports, CPU cores and host RAM x (1 + h); power is provisioned at nameplate.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "report/report.hpp"
#include "sizing/catalog.hpp"
#include "sizing/sheet.hpp"
#include "sizing/workload.hpp"

namespace mlbench::sizing {

struct PlanRequest {
  Workload workload;
  std::vector<Report> reports;
  std::string
      hardware;  // node template name; "" = the measured node's, else the workload's, else the default
  double headroom = 0.25;
  std::optional<int> nodes;  // forward planning at this node count (overrides the workload's deadline)
  std::optional<Prices> prices;
  std::string cooling;  // a cooling option of the catalog; "" = the node template's
};

inline constexpr double kDefaultHeadroom = 0.25;
// UsageError outside [0, 0.5]; a warning line (returned) outside the recommended [0.2, 0.3], else "".
std::string check_headroom(double headroom);

// UsageError when the workload cannot be sized (nothing fits, deadline unreachable), naming why.
Sheet plan(const PlanRequest& req, const HardwareCatalog& catalog);

// The same workload planned once per cooling option of the catalog (--compare-cooling), in catalog order.
std::vector<Sheet> plan_each_cooling(const PlanRequest& req, const HardwareCatalog& catalog);
// One table of the options side by side: power per GPU, PUE, stability and goodput with their sources, nodes,
// time, energy and cost — from each sheet's figures.
Document cooling_comparison(const std::vector<Sheet>& sheets);

}  // namespace mlbench::sizing
