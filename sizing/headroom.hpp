// The planning headroom h: the margin the planner keeps on each resource it sizes, so that a plan still holds
// when a figure turns out worse than modelled (METHODS.md "Headroom"). One fraction for every resource,
// applied here and nowhere else: a need is planned at need x (1 + h) (bandwidths, capacities, serving
// throughput, switch ports, CPU cores, host RAM); a deadline is met when the planned time, time x (1 + h), is
// within it; a latency target is met within target x (1 - h). HBM takes none (a layout fits the GPU's memory
// less the runtime's reserve: the headroom is a margin on time, not on memory) and power is provisioned at
// nameplate.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "sizing/formula.hpp"

namespace mlbench::sizing {

// The headroom of `mlbench size` when --headroom is not given, of a PlanRequest and of a Sheet.
inline constexpr double kDefaultHeadroom = 0.25;
// --headroom takes [0, kMaxHeadroom]; outside [kRecommendedHeadroomMin, kRecommendedHeadroomMax] the sheet
// warns.
inline constexpr double kMaxHeadroom = 0.5;
inline constexpr double kRecommendedHeadroomMin = 0.2;
inline constexpr double kRecommendedHeadroomMax = 0.3;

// UsageError outside [0, kMaxHeadroom]; a warning line (returned) outside the recommended range, else "".
std::string check_headroom(double headroom);

// A need planned with the headroom: need x (1 + headroom). For a Formula, `headroom` is a named term of it
// (printed "headroom 0.25"), so the sheet's formula shows the margin; the value is the same double either
// way.
double with_headroom(double need, double headroom);
Formula with_headroom(const Formula& need, double headroom);
// A latency target met with the headroom: target x (1 - headroom).
double within_headroom(double target, double headroom);
// The text of those two: "demand 500 tokens/s x (1 + 0.25)" and "(1 - 0.25) x 0.050 s target".
std::string with_headroom_shown(std::string_view need, double headroom);
std::string within_headroom_shown(std::string_view target, double headroom);
// How a line planned with the headroom says so: "+25 % (x1.25)".
std::string headroom_shown(double headroom);

// "planned 4.31 days with +25 % (x1.25)": a time planned with the headroom, printed by `show`.
std::string planned_time_shown(double time_s, double headroom, std::string (*show)(double));

// The deadline test of a plan: its planned time, time_s x (1 + headroom), is within the deadline.
bool meets_deadline(double time_s, double deadline_s, double headroom);
// The test as the sheet explains it, each duration printed by `show`: with the time, "T x (1 + 0.25) = 4.31
// days <= deadline 7.00 days"; without, "time x (1 + 0.25) <= deadline 7.00 days".
std::string deadline_rule(std::string_view time, double headroom, std::optional<double> time_s,
                          double deadline_s, std::string (*show)(double));

}  // namespace mlbench::sizing
