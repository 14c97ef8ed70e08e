// The sheet's formulas are the computation: a formula written once over the number type gives the same value
// as double and as Formula, the symbolic text parses back to that value with its terms' values, and each
// sheet line that carries a formula evaluates to the line's quantity.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include <gtest/gtest.h>

#include "sizing/assumptions.hpp"
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
  for (const char* symbol : {"t_recompute", "imbalance", "bubble", "t_tp", "t_pp_exposed"})
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

// Every Assumption that sizing/assumptions.hpp declares has its row in declared_assumptions() (read from the
// header's text, so an entry added without its row fails here), and is listed on each sheet it applies to, as
// the table holds it: a calibration default by its name on the sheets of its kind (every kind when it names
// none), an engine assumption as assumed on the sheets of its kind and on no other, a serving engine's
// default on the sheets of that engine's workloads; and the kind an assumption names is one a shipped
// workload has, so a misspelt kind cannot leave it off every sheet.
TEST(Formula, EveryDeclaredAssumptionIsListedOnTheSheetsItAppliesTo) {
  std::ifstream in(source_dir() / "sizing" / "assumptions.hpp");
  const std::string header((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::regex declaration(R"re(inline constexpr Assumption (k\w+)\s*\{\s*"([^"]*)")re");
  std::map<std::string, std::string> declared;  // identifier -> name
  for (auto m = std::sregex_iterator(header.begin(), header.end(), declaration); m != std::sregex_iterator();
       ++m)
    declared[(*m)[1]] = (*m)[2];
  ASSERT_GT(declared.size(), 30u);
  std::set<std::string> rows;
  for (const DeclaredAssumption& d : declared_assumptions()) {
    EXPECT_TRUE(rows.insert(std::string(d.id)).second) << d.id << " has two rows";
    auto it = declared.find(std::string(d.id));
    ASSERT_NE(it, declared.end()) << d.id << " is not declared in sizing/assumptions.hpp";
    EXPECT_EQ(it->second, d.assumption->name) << d.id;
  }
  for (const auto& [id, name] : declared)
    EXPECT_TRUE(rows.contains(id)) << id << " has no row in declared_assumptions()";

  std::set<std::string> kinds;
  auto sheets = std::vector<std::filesystem::path>{};
  for (const auto& entry : std::filesystem::directory_iterator(source_dir() / "configs" / "workloads"))
    sheets.push_back(entry.path());
  sheets.push_back(data_dir() / "trtllm-llama33-70b-b200-fp4-1000-1000.yaml");  // a TensorRT-LLM sheet
  for (const auto& path : sheets) {
    SCOPED_TRACE(path.filename().string());
    const Workload w = load_workload(path);
    kinds.insert(w.kind);
    const auto* serving = std::get_if<LlmInference>(&w.spec);
    auto s = plan_file(path);
    auto row = [&](std::string_view name) -> const SheetAssumption* {
      auto r = std::find_if(s.assumptions.begin(), s.assumptions.end(),
                            [&](const SheetAssumption& x) { return x.name == name; });
      return r == s.assumptions.end() ? nullptr : &*r;
    };
    for (const DeclaredAssumption& d : declared_assumptions()) {
      const Assumption* a = d.assumption;
      const bool applies = a->kind.empty() || a->kind == w.kind;
      switch (d.listing) {
        case Listing::calibration:
          EXPECT_EQ(row(a->name) != nullptr, applies) << d.id;
          break;
        case Listing::engine: {
          const SheetAssumption* r = row(a->listed_name());
          EXPECT_EQ(r != nullptr, applies) << d.id;
          if (!r) break;
          EXPECT_EQ(r->value, format_quantity(a->listed())) << d.id;
          EXPECT_EQ(r->quantity, a->listed()) << d.id;
          EXPECT_EQ(r->basis, a->basis) << d.id;
          EXPECT_EQ(r->source, "assumed") << d.id;
          break;
        }
        case Listing::serving_engine: {
          const SheetAssumption* r = row(a->listed_name());
          EXPECT_EQ(r != nullptr, applies && serving && serving->engine == d.engine) << d.id;
          if (!r || r->source != "assumed") break;
          EXPECT_EQ(r->value, format_quantity(a->listed())) << d.id;
          EXPECT_EQ(r->basis, a->basis) << d.id;
          break;
        }
      }
    }
    // The storage tiers are a table, not one Assumption: every sheet sizes storage against them and lists
    // them.
    const SheetAssumption* tiers = row(assumption::kStorageTiersName);
    ASSERT_NE(tiers, nullptr) << "the storage tiers are not listed";
    for (const auto& t : assumption::kStorageTiers) EXPECT_NE(tiers->value.find(t.name), std::string::npos);
    EXPECT_EQ(tiers->basis, assumption::kStorageTiersBasis);
  }
  for (const DeclaredAssumption& d : declared_assumptions()) {
    if (!d.assumption->kind.empty()) {
      EXPECT_TRUE(kinds.contains(std::string(d.assumption->kind))) << d.id << ": " << d.assumption->kind;
    }
  }
}

}  // namespace
}  // namespace mlbench::sizing::test
