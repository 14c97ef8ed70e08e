#include "sizing/fabric.hpp"

#include <algorithm>

namespace mlbench::sizing {
namespace {

int ceil_div(int a, int b) { return (a + b - 1) / b; }

}  // namespace

Fabric compute_fabric(int nodes, int rails, int radix) {
  Fabric f;
  f.rails = rails;
  f.node_ports = nodes * rails;
  if (nodes <= 1) return f;
  if (rails == 1 && nodes <= radix) {  // one switch holds the whole fabric
    f.leaves = 1;
    f.cables = f.node_ports;
    return f;
  }
  f.leaves = rails * ceil_div(nodes, std::max(1, radix / 2));
  f.uplinks = f.node_ports;  // non-blocking: each leaf has as many uplinks as nodes below it
  f.spines = ceil_div(f.uplinks, radix);
  f.cables = f.node_ports + f.uplinks;
  return f;
}

FrontEnd front_end_network(int nodes, int radix) { return {nodes, ceil_div(nodes, radix / 2), nodes}; }

}  // namespace mlbench::sizing
