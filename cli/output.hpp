// What the commands that write a --format (compare, check, export) share: the text layout for where the
// output goes, and writing what reports/ rendered.
#pragma once

#include <string>

#include "reports/writers.hpp"

namespace mlbench::cli {

// Text tables on a terminal are coloured (unless NO_COLOR) and fit its width ($COLUMNS, else the terminal's:
// cli/progress.hpp); in a file (-o, a redirect, a pipe) every cell stays whole, for the reader and the tools
// that search it.
TextStyle text_style(const std::string& output);

// The lines a data-only format left out on stderr ("mlbench: note: ..."), then the output to stdout or, with
// -o, the file (atomically).
void emit_rendered(const std::string& output, const Rendered& r);

}  // namespace mlbench::cli
