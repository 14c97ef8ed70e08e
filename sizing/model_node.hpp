// What every planner's model shares (sizing/model_node.cpp; METHODS.md "Power, energy and cost"): the node
// facts the models read, the time to train, and a node's nameplate power and a run's energy.
//
// The formulas are written once as templates over the number type (sizing/formula.hpp): Num = double computes
// the value the search and the planner use, Num = Formula the same value with the sheet's text. Instantiated
// for double and Formula.
#pragma once

#include "sizing/catalog.hpp"
#include "sizing/formula.hpp"

namespace mlbench::sizing {

// The node facts the models need.
struct NodeFacts {
  const GpuSpec* gpu = nullptr;
  int gpus = 8, domain = 8;
  double nic_bytes_per_s = 0;  // all compute-fabric NICs of one node
};

// work / rate / goodput: the time to train, for `work` tokens or images at `rate` per second (the cluster's).
template <typename Num>
Num time_to_train(const char* work, double amount, const char* rate, double per_s, double goodput);

// Node nameplate with `cooling`: GPUs x TDP x its GPU power factor + CPUs + DRAM (0.375 W/GB) + NICs +
// drives + other, in W.
template <typename Num>
Num node_nameplate(const NodeTemplate& n, const HardwareCatalog& c, const CoolingSpec& cooling);
double node_nameplate_w(const NodeTemplate& n, const HardwareCatalog& c, const CoolingSpec& cooling);

// The energy of a run: (nodes x nameplate x average share + switches) / 1000 x hours x PUE, in kWh.
struct EnergyUse {
  double nodes = 0, node_w = 0, average_share = 0, switch_w = 0, hours = 0, pue = 1;
};
template <typename Num>
Num energy_kwh(const EnergyUse& e);

}  // namespace mlbench::sizing
