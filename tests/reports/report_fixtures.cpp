#include "tests/reports/report_fixtures.hpp"

#include <sys/wait.h>

#include <cstdlib>

namespace mlbench::test {

Result make_result(const std::string& probe, Json params, const std::string& metric, double value,
                   const std::string& unit, double cv, Better better) {
  Result r;
  r.probe = probe;
  r.params = std::move(params);
  Metric& m = r.add_metric(metric, value, unit, better);
  Stats s;
  s.median = s.mean = value;
  s.cv = cv;
  s.n = 20;
  m.stats = s;
  return r;
}

NamedReport make_report(const std::string& file, const std::string& host, std::vector<Result> results,
                        const std::string& version) {
  NamedReport nr;
  nr.file = file;
  nr.report.tool = Json{{"name", "mlbench"}, {"version", version}};
  nr.report.host = Json{{"hostname", host}};
  nr.report.results = std::move(results);
  return nr;
}

int run_shell(const std::string& cmd) {
  int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

bool have_tool(const std::string& name) { return run_shell("command -v " + name + " > /dev/null 2>&1") == 0; }

}  // namespace mlbench::test
