// The HTML report's acceptance check (reports/html_parts.hpp): pass, warn or fail first, the table below.
#include "reports/html_parts.hpp"
#include "reports/render.hpp"

namespace mlbench::html {

std::string check_verdict_html(const CheckResult& c) {
  return verdict_line(c.failed() ? Tone::bad : (c.count(Grade::warn) > 0 ? Tone::warn : Tone::good),
                      check_verdict(c));
}

std::string check_tables_html(const CheckResult& c) { return render({check_table(c)}, {}, Format::html); }

}  // namespace mlbench::html
