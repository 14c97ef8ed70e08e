// Where mlbench finds its shipped data (configs/: hardware catalog, workloads, profiles, thresholds).
#pragma once

#include <filesystem>

namespace mlbench {

// $MLBENCH_CONFIG_DIR, else <exe>/../share/mlbench/configs when installed, else the source tree's configs/.
std::filesystem::path config_dir();

}  // namespace mlbench
