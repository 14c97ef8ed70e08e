#include "reports/stated_spread.hpp"

#include <algorithm>

#include "base/stats.hpp"

namespace mlbench {

const StatedSpread* stated_spread(std::span<const StatedSpread> table, std::string_view probe,
                                  std::string_view metric) {
  // storage.io's mixed jobs name each direction's metrics read_<metric> and write_<metric>.
  for (std::string_view direction : {"read_", "write_"}) {
    if (metric.starts_with(direction)) {
      metric.remove_prefix(direction.size());
      break;
    }
  }
  for (const auto& row : table) {
    if (row.probe == probe && std::find(row.metrics.begin(), row.metrics.end(), metric) != row.metrics.end())
      return &row;
  }
  return nullptr;
}

double between_run_spread(double sd, std::size_t runs) { return sd * student_t95(runs - 1) / kConfidenceZ; }

}  // namespace mlbench
