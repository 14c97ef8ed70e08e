#include "sizing/model_node.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/units.hpp"
#include "sizing/model_terms.hpp"

namespace mlbench::sizing {

using namespace terms;

template <typename Num>
Num time_to_train(const char* work, double amount, const char* rate, double per_s, double goodput) {
  return named<Num>("work", amount, [work](double v) { return fmt::format("{} {:.7g}", work, v); }) /
         named<Num>("rate", per_s, [rate](double v) { return fmt::format("{} {:.7g}/s", rate, v); }) /
         named<Num>("goodput", goodput, [](double v) { return fmt::format("goodput {:.6g}", v); });
}
template double time_to_train<double>(const char*, double, const char*, double, double);
template Formula time_to_train<Formula>(const char*, double, const char*, double, double);

template <typename Num>
Num node_nameplate(const NodeTemplate& n, const HardwareCatalog& c, const CoolingSpec& cool) {
  const auto& gpu = c.gpu(n.gpu);
  auto count = [](const char* label) {
    return [label](double v) { return fmt::format("{:.0f} {}", v, label); };
  };
  auto watts = [](double v) { return fmt::format("{:g} W", v); };
  return named<Num>("gpus", n.gpus, count("GPUs")) * named<Num>("gpu_w", gpu.tdp_w, watts) *
             named<Num>("gpu_factor", cool.gpu_power_factor,
                        [&](double v) { return fmt::format("{} cooling {:.4f}", cool.name, v); }) +
         named<Num>("sockets", n.sockets, count("CPUs")) * named<Num>("cpu_w", c.cpu(n.cpu).tdp_w, watts) +
         named<Num>("dram_gb", n.ram_bytes / 1e9, [](double v) { return fmt::format("DRAM {:g} GB", v); }) *
             named<Num>("dram_w_per_gb", assumption::kDramWattsPerGb.value,
                        [](double v) { return fmt::format("{:g} W/GB", v); }) +
         named<Num>("nics", n.nics, count("NICs")) * named<Num>("nic_w", c.nic(n.nic).power_w, watts) +
         named<Num>("drives", n.drives, count("drives")) *
             named<Num>("drive_w", c.drive(n.drive).power_w, watts) +
         named<Num>("other_w", n.other_w, [](double v) { return fmt::format("other {:g} W", v); });
}
template double node_nameplate<double>(const NodeTemplate&, const HardwareCatalog&, const CoolingSpec&);
template Formula node_nameplate<Formula>(const NodeTemplate&, const HardwareCatalog&, const CoolingSpec&);

double node_nameplate_w(const NodeTemplate& n, const HardwareCatalog& c, const CoolingSpec& cool) {
  return node_nameplate<double>(n, c, cool);
}

template <typename Num>
Num energy_kwh(const EnergyUse& e) {
  return (named<Num>("nodes", e.nodes, [](double v) { return fmt::format("{:.0f} nodes", v); }) *
              named<Num>("node_w", e.node_w, [](double v) { return fmt::format("{:.1f} W", v); }) *
              named<Num>("average_share", e.average_share,
                         [](double v) { return fmt::format("average / nameplate {:g}", v); }) +
          named<Num>("switch_w", e.switch_w, [](double v) { return fmt::format("switches {:.1f} W", v); })) /
         1000 * named<Num>("hours", e.hours, [](double v) { return fmt::format("{:.2f} h", v); }) *
         named<Num>("pue", e.pue, [](double v) { return fmt::format("PUE {:g}", v); });
}
template double energy_kwh<double>(const EnergyUse&);
template Formula energy_kwh<Formula>(const EnergyUse&);

}  // namespace mlbench::sizing
