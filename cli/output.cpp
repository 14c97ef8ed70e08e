#include "cli/output.hpp"

#include <unistd.h>

#include <iostream>

#include "cli/progress.hpp"

namespace mlbench::cli {

TextStyle text_style(const std::string& output) {
  const bool terminal = output.empty() && ::isatty(STDOUT_FILENO) == 1;
  return TextStyle{output.empty() && stdout_wants_colour(), terminal ? terminal_width(STDOUT_FILENO) : 0};
}

void emit_rendered(const std::string& output, const Rendered& r) {
  for (const auto& line : r.aside) std::cerr << "mlbench: " << line << "\n";
  emit(output, r.text);
}

}  // namespace mlbench::cli
