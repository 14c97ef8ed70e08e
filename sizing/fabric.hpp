// The networks a plan buys, sized from the traffic it has (METHODS.md "Network fabric").
//
// A training cluster whose replicas span nodes gets a rail-optimised compute fabric: one leaf per rail per
// radix/2 nodes, each leaf with as many uplinks as downlinks (non-blocking), spines = ceil(uplinks / radix);
// so leaves, spines and links grow with the node count (before, every leaf was charged radix/2 uplinks,
// which bought a 2-node cluster 8 leaves, 4 spines and 272 links). One rail on one switch needs no spine.
// Serving replicas that fit in a node exchange no traffic between nodes: they get a front-end network line
// (one NIC per node, top-of-rack switches with half their ports down), not a compute fabric.
#pragma once

namespace mlbench::sizing {

struct Fabric {
  int rails = 0, leaves = 0, spines = 0, node_ports = 0, uplinks = 0, cables = 0;
};
// `nodes` nodes (ports to plan for) with `rails` compute NICs each, switches of `radix` ports.
Fabric compute_fabric(int nodes, int rails, int radix);

struct FrontEnd {
  int nics = 0, switches = 0, cables = 0;
};
// One front-end NIC per node, top-of-rack switches of `radix` ports with radix/2 down (the other half goes
// to the site network, which the sheet does not buy).
FrontEnd front_end_network(int nodes, int radix);

}  // namespace mlbench::sizing
