// The sheet's formulas are the computation: a formula written once over the number type gives the same value
// as double and as Formula, the symbolic text parses back to that value with its terms' values, and each
// sheet line that carries a formula evaluates to the line's quantity.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "sizing/formula.hpp"
#include "sizing/models.hpp"
#include "tests/sizing/test_util.hpp"

namespace mlbench::sizing::test {
namespace {

// Evaluates a symbolic formula: numbers, symbols, + - x /, parentheses, max(a, b) and min(a, b), the usual
// precedence, left to right.
class Evaluator {
 public:
  Evaluator(const std::string& text, const std::vector<Term>& terms) : s_(text) {
    for (const auto& t : terms) values_[t.symbol] = t.value;
  }
  double run() {
    double v = sum();
    skip();
    if (i_ != s_.size()) throw std::runtime_error("trailing text at " + s_.substr(i_));
    return v;
  }

 private:
  void skip() {
    while (i_ < s_.size() && s_[i_] == ' ') ++i_;
  }
  bool eat(char c) {
    skip();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  // The multiplication sign is a lone 'x'.
  bool eat_times() {
    skip();
    if (i_ + 1 < s_.size() && s_[i_] == 'x' && s_[i_ + 1] == ' ') {
      ++i_;
      return true;
    }
    return false;
  }
  double sum() {
    double v = product();
    for (;;) {
      if (eat('+'))
        v += product();
      else if (eat('-'))
        v -= product();
      else
        return v;
    }
  }
  double product() {
    double v = factor();
    for (;;) {
      if (eat_times())
        v *= factor();
      else if (eat('/'))
        v /= factor();
      else
        return v;
    }
  }
  double factor() {
    skip();
    if (eat('(')) {
      double v = sum();
      if (!eat(')')) throw std::runtime_error("missing ) in " + s_);
      return v;
    }
    std::size_t start = i_;
    if (i_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_])) || s_[i_] == '.')) {
      std::size_t used = 0;
      double v = std::stod(s_.substr(i_), &used);
      i_ += used;
      return v;
    }
    while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_')) ++i_;
    std::string name = s_.substr(start, i_ - start);
    if ((name == "max" || name == "min") && eat('(')) {
      double a = sum();
      if (!eat(',')) throw std::runtime_error(name + " without , in " + s_);
      double b = sum();
      if (!eat(')')) throw std::runtime_error(name + " without ) in " + s_);
      return name == "max" ? std::max(a, b) : std::min(a, b);
    }
    auto it = values_.find(name);
    if (it == values_.end()) throw std::runtime_error("no term '" + name + "' in " + s_);
    return it->second;
  }

  std::string s_;
  std::size_t i_ = 0;
  std::map<std::string, double> values_;
};

double evaluate(const std::string& formula, const std::vector<Term>& terms) {
  return Evaluator(formula, terms).run();
}

Formula term(const char* s, double v) { return Formula::term(s, v, fmt::format("{} {}", s, v)); }

TEST(Formula, TextFollowsPrecedence) {
  auto a = term("a", 8), b = term("b", 2), c = term("c", 3);
  auto f = a - (b + c);
  EXPECT_EQ(f.symbolic(), "a - (b + c)");
  EXPECT_DOUBLE_EQ(f.value(), 3);
  auto g = a / (b * c) * (1 + b);
  EXPECT_EQ(g.symbolic(), "a / (b x c) x (1 + b)");
  EXPECT_EQ(g.shown(), "a 8 / (b 2 x c 3) x (1 + b 2)");
  EXPECT_DOUBLE_EQ(evaluate(g.symbolic(), g.terms()), g.value());
  auto h = maximum(a / b, c) + Formula::number(1) - b;
  EXPECT_EQ(h.symbolic(), "max(a / b, c) + 1 - b");
  EXPECT_DOUBLE_EQ(evaluate(h.symbolic(), h.terms()), 3);
  auto k = maximum(a, c) + b * minimum(a, c);
  EXPECT_EQ(k.symbolic(), "max(a, c) + b x min(a, c)");
  EXPECT_EQ(k.shown(), "max(a 8, c 3) + b 2 x min(a 8, c 3)");
  EXPECT_DOUBLE_EQ(k.value(), 14);
  EXPECT_DOUBLE_EQ(evaluate(k.symbolic(), k.terms()), 14);
}

const SheetLine& line_of(const Sheet& s, const std::string& item) {
  for (const auto& l : s.lines)
    if (l.item == item) return l;
  throw std::runtime_error("no line " + item);
}

// Every line with a formula: the formula, evaluated with its terms, is the quantity; its driver prints it.
void expect_formulas_evaluate(const Sheet& s, const std::vector<std::string>& required) {
  for (const auto& item : required) EXPECT_FALSE(line_of(s, item).formula.empty()) << item;
  for (const auto& l : s.lines) {
    if (l.formula.empty()) continue;
    double v = evaluate(l.formula, l.terms) / l.formula_per;
    EXPECT_NEAR(v, l.quantity, 1e-9 * std::abs(l.quantity)) << l.item << ": " << l.formula;
    for (const auto& t : l.terms) EXPECT_NE(l.formula.find(t.symbol), std::string::npos) << l.item;
  }
}

TEST(Formula, TrainingLinesEvaluateToTheirQuantities) {
  for (const char* file : {"default", "llm-7b-pretraining", "llm-70b-pretraining", "llm-405b-pretraining"}) {
    SCOPED_TRACE(file);
    auto s = plan_file(source_dir() / "configs" / "workloads" / (std::string(file) + ".yaml"));
    expect_formulas_evaluate(s, {"Step time", "Predicted MFU", "HBM per GPU (modelled)"});
    EXPECT_DOUBLE_EQ(line_of(s, "Step time").quantity, s.figures.at("step_s").get<double>());
    EXPECT_DOUBLE_EQ(line_of(s, "Predicted MFU").quantity, s.figures.at("mfu").get<double>());
    EXPECT_DOUBLE_EQ(line_of(s, "HBM per GPU (modelled)").quantity * 1024 * 1024 * 1024,
                     s.figures.at("hbm_bytes").get<double>());
  }
  // Full recomputation with tensor, pipeline and data parallelism: every step-time term is present.
  auto s = plan_file(data_dir() / "korthikanti-175b-full.yaml");
  expect_formulas_evaluate(s, {"Step time"});
  for (const char* symbol : {"t_recompute", "bubble", "t_tp", "t_pp"})
    EXPECT_NE(line_of(s, "Step time").formula.find(symbol), std::string::npos) << symbol;
}

TEST(Formula, ServingLinesEvaluateToTheirQuantities) {
  for (const char* file : {"llm-70b-serving"}) {
    auto s = plan_file(source_dir() / "configs" / "workloads" / (std::string(file) + ".yaml"));
    expect_formulas_evaluate(s, {"Decode step (TPOT)", "Time to first token", "HBM per GPU"});
    EXPECT_DOUBLE_EQ(line_of(s, "Decode step (TPOT)").quantity, s.figures.at("tpot_s").get<double>());
    EXPECT_DOUBLE_EQ(line_of(s, "Time to first token").quantity, s.figures.at("ttft_s").get<double>());
  }
  auto s = plan_file(data_dir() / "mlperf-llama2-70b-offline.yaml");
  expect_formulas_evaluate(s, {"Decode step (TPOT)", "Time to first token", "HBM per GPU"});
}

// Every declared assumption is listed on each sheet it applies to, as the table holds it: the calibration
// defaults on every sheet (the CNN's on the CV sheets), each engine assumption on the sheets of its workload
// kind (every kind when it names none) and on no other; and the kind an assumption names is one a shipped
// workload has, so a misspelt kind cannot leave it off every sheet.
TEST(Formula, EveryDeclaredAssumptionIsListedOnTheSheetsItAppliesTo) {
  std::set<std::string> kinds;
  for (const auto& entry : std::filesystem::directory_iterator(source_dir() / "configs" / "workloads")) {
    SCOPED_TRACE(entry.path().filename().string());
    const std::string kind = load_workload(entry.path()).kind;
    kinds.insert(kind);
    auto s = plan_file(entry.path());
    auto row = [&](std::string_view name) -> const SheetAssumption* {
      auto r = std::find_if(s.assumptions.begin(), s.assumptions.end(),
                            [&](const SheetAssumption& x) { return x.name == name; });
      return r == s.assumptions.end() ? nullptr : &*r;
    };
    for (const Assumption* a : engine_assumptions()) {
      const SheetAssumption* r = row(a->listed_name());
      EXPECT_EQ(r != nullptr, a->kind.empty() || a->kind == kind) << a->listed_name();
      if (!r) continue;
      EXPECT_EQ(r->value, format_quantity(a->listed())) << a->listed_name();
      EXPECT_EQ(r->quantity, a->listed()) << a->listed_name();
      EXPECT_EQ(r->basis, a->basis) << a->listed_name();
      EXPECT_EQ(r->source, "assumed") << a->listed_name();
    }
    using namespace assumption;
    for (const Assumption* a : {&kGemm16, &kHbm, &kNvlink, &kNetwork, &kHostMem})
      EXPECT_NE(row(a->name), nullptr) << a->name;
    EXPECT_EQ(row(kConvModel.name) != nullptr, kind == "cv-training");
  }
  for (const Assumption* a : engine_assumptions()) {
    if (!a->kind.empty()) {
      EXPECT_TRUE(kinds.contains(std::string(a->kind))) << a->listed_name() << ": " << a->kind;
    }
  }
}

}  // namespace
}  // namespace mlbench::sizing::test
