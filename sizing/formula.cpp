#include "sizing/formula.hpp"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

namespace mlbench::sizing {

Formula Formula::term(std::string symbol, double value, std::string shown) {
  Formula f;
  f.value_ = value;
  f.symbolic_ = symbol;
  f.shown_ = std::move(shown);
  f.terms_.push_back({std::move(symbol), value});
  return f;
}

Formula Formula::number(double value) {
  Formula f;
  f.value_ = value;
  f.symbolic_ = f.shown_ = fmt::format("{}", value);
  return f;
}

// a op b, with parentheses where precedence needs them: an operand binding less tightly than the operator,
// or the right operand of - and / at the same precedence (a - (b + c), a / (b x c)).
Formula Formula::combine(const Formula& a, const char* op, const Formula& b, double value, Precedence p,
                         bool wrap_b_at_same) {
  auto wrap = [](const std::string& s, bool paren) { return paren ? "(" + s + ")" : s; };
  bool wa = a.precedence_ < p;
  bool wb = b.precedence_ < p || (wrap_b_at_same && b.precedence_ == p);
  Formula f;
  f.value_ = value;
  f.precedence_ = p;
  f.symbolic_ = fmt::format("{} {} {}", wrap(a.symbolic_, wa), op, wrap(b.symbolic_, wb));
  f.shown_ = fmt::format("{} {} {}", wrap(a.shown_, wa), op, wrap(b.shown_, wb));
  f.terms_ = a.terms_;
  f.terms_.insert(f.terms_.end(), b.terms_.begin(), b.terms_.end());
  return f;
}

Formula operator+(const Formula& a, const Formula& b) {
  return Formula::combine(a, "+", b, a.value_ + b.value_, Formula::sum, false);
}
Formula operator-(const Formula& a, const Formula& b) {
  return Formula::combine(a, "-", b, a.value_ - b.value_, Formula::sum, true);
}
Formula operator*(const Formula& a, const Formula& b) {
  return Formula::combine(a, "x", b, a.value_ * b.value_, Formula::product, false);
}
Formula operator/(const Formula& a, const Formula& b) {
  return Formula::combine(a, "/", b, a.value_ / b.value_, Formula::product, true);
}

// max(a, b) and min(a, b): a function of two operands, printed as called.
Formula Formula::call(const char* name, const Formula& a, const Formula& b, double value) {
  Formula f;
  f.value_ = value;
  f.symbolic_ = fmt::format("{}({}, {})", name, a.symbolic_, b.symbolic_);
  f.shown_ = fmt::format("{}({}, {})", name, a.shown_, b.shown_);
  f.terms_ = a.terms_;
  f.terms_.insert(f.terms_.end(), b.terms_.begin(), b.terms_.end());
  return f;
}

Formula maximum(const Formula& a, const Formula& b) {
  return Formula::call("max", a, b, std::max(a.value_, b.value_));
}
Formula minimum(const Formula& a, const Formula& b) {
  return Formula::call("min", a, b, std::min(a.value_, b.value_));
}

}  // namespace mlbench::sizing
