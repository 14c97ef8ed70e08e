#include "bench/paths.hpp"

#include <cstdlib>

#include "mlbench_config.hpp"

namespace mlbench {

std::filesystem::path config_dir() {
  namespace fs = std::filesystem;
  if (const char* env = std::getenv("MLBENCH_CONFIG_DIR"); env != nullptr && *env != '\0') return env;
  std::error_code ec;
  auto exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    auto installed = exe.parent_path().parent_path() / "share" / "mlbench" / "configs";
    if (fs::is_directory(installed, ec)) return installed;
  }
  return MLBENCH_SOURCE_CONFIG_DIR;
}

}  // namespace mlbench
