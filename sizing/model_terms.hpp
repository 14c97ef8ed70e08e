// How a performance model's terms print on the sheet, shared by the model files of every planner.
#pragma once

#include <fmt/format.h>

#include "base/units.hpp"
#include "sizing/model_llm_training.hpp"
#include "sizing/model_node.hpp"

namespace mlbench::sizing::terms {

inline constexpr double kActivationBytes = 2;  // 16-bit activations

// MoE: each routed copy of a token is permuted to its expert and back (read + write, 2 B) and scaled by its
// router weight on the way back: 3 passes of 4 B over k h elements, in the tensor-parallel region.
inline constexpr double kMoePermuteBytes = 12;

// How a term prints on the sheet: its label and its value in the unit of the line.
inline auto bytes_shown(const char* label) {
  return [label](double v) { return fmt::format("{} {}", label, format_bytes(v)); };
}
inline auto seconds_shown(const char* label, int decimals = 3) {
  return [label, decimals](double v) { return fmt::format("{} {:.{}f} s", label, v, decimals); };
}
inline auto fraction_shown(const char* label) {
  return [label](double v) { return fmt::format("{} {:.3f}", label, v); };
}
inline auto count_shown(const char* label) {
  return [label](double v) { return fmt::format("{} {:.0f}", label, v); };
}
inline auto flops_shown(const char* label) {
  return [label](double v) { return fmt::format("{} {:.3g} FLOP", label, v); };
}

// Bus bandwidth a data-parallel group of layout l sees on nodes of this kind (model_llm_training.cpp).
double dp_busbw(const NodeFacts& node, const Calibration& cal, const Layout& l, int nodes);

}  // namespace mlbench::sizing::terms
