// The report decoder: one pass over the JSON text straight into Report, Result, Metric and Stats.
//
// Fleet analysis reads hundreds of megabytes of reports (a default run is ~300 kB pretty-printed, most of it
// per-iteration samples and statistics); building a generic JSON tree first and converting it costs several
// times the parse. This reader decodes the fixed part of the model directly, builds JSON values only for the
// free-form blocks (params, work, host, info, telemetry...), and can skip the samples without storing them.
// It accepts exactly RFC 8259 JSON (strict numbers, escapes, UTF-8 validated, nesting ≤ 512), with the
// value types nlohmann::json's parser gives (integers stay integers), so a report reads back identical.
#pragma once

#include <stdexcept>
#include <string_view>

#include "report/report.hpp"

namespace mlbench::detail {

// Malformed JSON text: what and where ("line 3, column 14: ...").
class JsonSyntaxError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Well-formed JSON that is not a valid report: the path of the offending value and what was expected.
class ReportShapeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A whole report. UsageError for a missing schema_version/results or a newer major schema (checked before
// the results are decoded, so an incompatible newer report gets the version message).
Report decode_report(std::string_view text, bool keep_samples);
// One result object.
Result decode_result(std::string_view text);

}  // namespace mlbench::detail
