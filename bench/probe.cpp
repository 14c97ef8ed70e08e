#include "bench/probe.hpp"

#include <fmt/format.h>

namespace mlbench {

std::string_view to_string(Profile p) {
  switch (p) {
    case Profile::quick:
      return "quick";
    case Profile::standard:
      return "default";
    case Profile::full:
      return "full";
  }
  return "default";
}

Profile profile_from_string(std::string_view s) {
  for (Profile p : {Profile::quick, Profile::standard, Profile::full}) {
    if (to_string(p) == s) return p;
  }
  throw UsageError(fmt::format("unknown profile '{}': use quick, default or full", s));
}

double RunContext::seconds_left() const {
  return std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
}

Result RunContext::make_result(std::string_view probe, const Case& c) const {
  Result r;
  r.probe = std::string(probe);
  r.params = c.params;
  return r;
}

}  // namespace mlbench
