// `mlbench export --format prometheus`: a report as node_exporter textfile-collector input.
//
// One gauge family per metric, named by one rule (prometheus.cpp kPromUnits): mlbench_ + the metric's words
// less those that spell its unit + the unit's one base-unit suffix (read_iops -> mlbench_read_io_per_second,
// pct_of_peak -> mlbench_peak_ratio in 0-1). Labels: probe, host, device (left out when the result has
// none) and each parameter as a label of its own (bs="4096",iodepth="32"); no label value is empty. Plus
// mlbench_result_status{...,status} (1 for the result's status) and mlbench_report_timestamp_seconds{host}
// (run start) so dashboards can tell stale hosts. Non-ok results export no metric values.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "reports/inputs.hpp"

namespace mlbench {

struct PromName {
  std::string name;
  double scale = 1;  // value multiplier into the family's base unit
};
// The family name and scale for a report metric.
PromName prometheus_name(const std::string& metric, const std::string& unit);
// Escapes a label value: backslash, double quote and newline.
std::string prometheus_escape(const std::string& s);

// The one text-format writer (this export and `mlbench monitor`): samples grouped into families, each
// family's HELP and TYPE written once, families sorted by name, samples in the order they were added.
// `labels` is the inside of the braces (`a="x",b="y"`, values through prometheus_escape), empty for none.
class PromWriter {
 public:
  enum class Type { gauge, counter };
  void add(const std::string& name, Type type, const std::string& help, const std::string& labels,
           double value);
  bool has(const std::string& name) const { return families_.count(name) > 0; }
  std::string text() const;

 private:
  struct Family {
    Type type = Type::gauge;
    std::string help;
    std::vector<std::string> samples;
  };
  std::map<std::string, Family> families_;
};

std::string to_prometheus(const NamedReport& report);

}  // namespace mlbench
