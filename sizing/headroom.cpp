#include "sizing/headroom.hpp"

#include <fmt/format.h>

#include "base/error.hpp"

namespace mlbench::sizing {

std::string check_headroom(double headroom) {
  if (!(headroom >= 0 && headroom <= kMaxHeadroom))
    throw UsageError(
        fmt::format("--headroom {} is out of range: give a fraction between 0 and {:g} ({:g} = {:g} %)",
                    headroom, kMaxHeadroom, kDefaultHeadroom, 100 * kDefaultHeadroom));
  if (headroom < kRecommendedHeadroomMin || headroom > kRecommendedHeadroomMax)
    return fmt::format("headroom {:.2f} is outside the recommended {:.2f}-{:.2f} per resource", headroom,
                       kRecommendedHeadroomMin, kRecommendedHeadroomMax);
  return "";
}

double with_headroom(double need, double headroom) { return need * (1 + headroom); }

Formula with_headroom(const Formula& need, double headroom) {
  return need * (1 + Formula::term("headroom", headroom, fmt::format("headroom {:.2f}", headroom)));
}

double within_headroom(double target, double headroom) { return target * (1 - headroom); }

std::string with_headroom_shown(std::string_view need, double headroom) {
  return fmt::format("{} x (1 + {:.2f})", need, headroom);
}

std::string within_headroom_shown(std::string_view target, double headroom) {
  return fmt::format("(1 - {:.2f}) x {}", headroom, target);
}

std::string headroom_shown(double headroom) {
  return fmt::format("+{:.0f} % (x{:.2f})", 100 * headroom, 1 + headroom);
}

std::string planned_time_shown(double time_s, double headroom, std::string (*show)(double)) {
  return fmt::format("planned {} with {}", show(with_headroom(time_s, headroom)), headroom_shown(headroom));
}

bool meets_deadline(double time_s, double deadline_s, double headroom) {
  return with_headroom(time_s, headroom) <= deadline_s;
}

std::string deadline_rule(std::string_view time, double headroom, std::optional<double> time_s,
                          double deadline_s, std::string (*show)(double)) {
  return fmt::format("{}{} <= deadline {}", with_headroom_shown(time, headroom),
                     time_s ? " = " + show(with_headroom(*time_s, headroom)) : "", show(deadline_s));
}

}  // namespace mlbench::sizing
