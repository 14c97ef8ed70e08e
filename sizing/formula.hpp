// A quantity that carries its formula. The models compute a sheet's quantity by combining named terms with
// + - x / and max, and the same operations build the formula in the terms' symbols and the text the sheet
// prints (each term as its label and number), so the explanation is the computation and cannot drift from
// it. A test evaluates each symbolic formula with its terms' values and compares it with the quantity.
#pragma once

#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

namespace mlbench::sizing {

struct Term {
  std::string symbol;  // the name in the symbolic formula: letters, digits and '_'
  double value = 0;
};

class Formula {
 public:
  // A named term: `shown` is how the sheet prints it ("bubble 0.021", "weights 8.03 GiB").
  static Formula term(std::string symbol, double value, std::string shown);
  // A constant of the formula itself (1 in 1 + bubble, 3 in 3 x (c - 1)), printed as written.
  static Formula number(double value);

  double value() const { return value_; }
  const std::string& symbolic() const { return symbolic_; }
  const std::string& shown() const { return shown_; }
  const std::vector<Term>& terms() const { return terms_; }

  friend Formula operator+(const Formula& a, const Formula& b);
  friend Formula operator-(const Formula& a, const Formula& b);
  friend Formula operator*(const Formula& a, const Formula& b);
  friend Formula operator/(const Formula& a, const Formula& b);
  friend Formula operator+(double a, const Formula& b) { return number(a) + b; }
  friend Formula operator-(double a, const Formula& b) { return number(a) - b; }
  friend Formula operator*(double a, const Formula& b) { return number(a) * b; }
  friend Formula operator/(const Formula& a, double b) { return a / number(b); }
  friend Formula maximum(const Formula& a, const Formula& b);
  friend Formula minimum(const Formula& a, const Formula& b);

 private:
  enum Precedence { sum = 1, product = 2, atom = 3 };
  static Formula combine(const Formula& a, const char* op, const Formula& b, double value, Precedence p,
                         bool wrap_b_at_same);
  static Formula call(const char* name, const Formula& a, const Formula& b, double value);

  double value_ = 0;
  std::string symbolic_, shown_;
  std::vector<Term> terms_;
  Precedence precedence_ = atom;
};

inline double maximum(double a, double b) { return std::max(a, b); }
inline double minimum(double a, double b) { return std::min(a, b); }

// A named term of a formula written once as a template over Num: the value itself for Num = double (the
// search), a Formula term for Num = Formula (the sheet). `show` formats the value as the sheet prints it and
// runs only for Formula.
template <typename Num, typename Show>
Num named([[maybe_unused]] const char* symbol, double value, [[maybe_unused]] Show&& show) {
  if constexpr (std::is_same_v<Num, Formula>)
    return Formula::term(symbol, value, show(value));
  else
    return value;
}

}  // namespace mlbench::sizing
