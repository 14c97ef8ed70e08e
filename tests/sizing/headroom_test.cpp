// The planning headroom as one term: a need planned with it, the deadline test and its text, the latency
// target, the default, and the sheet lines that carry it.
#include <algorithm>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "sizing/headroom.hpp"
#include "tests/sizing/test_util.hpp"

namespace mlbench::sizing::test {
namespace {

std::string hours(double s) { return fmt::format("{:.2f} h", s / 3600); }

TEST(Headroom, NeedIsPlannedWithTheHeadroomTerm) {
  EXPECT_DOUBLE_EQ(with_headroom(8.0, 0.25), 10.0);
  auto f = with_headroom(Formula::term("need", 8, "need 8"), 0.25);
  EXPECT_DOUBLE_EQ(f.value(), 10.0);
  EXPECT_EQ(f.symbolic(), "need x (1 + headroom)");
  EXPECT_EQ(f.shown(), "need 8 x (1 + headroom 0.25)");
  ASSERT_EQ(f.terms().size(), 2U);
  EXPECT_EQ(f.terms()[1].symbol, "headroom");
  EXPECT_DOUBLE_EQ(f.terms()[1].value, 0.25);
  // The same arithmetic for a number and a formula: the search and the sheet agree to the bit.
  EXPECT_EQ(with_headroom(Formula::term("x", 0.1, "x"), 0.3).value(), with_headroom(0.1, 0.3));
  EXPECT_EQ(headroom_shown(0.25), "+25 % (x1.25)");
}

TEST(Headroom, DeadlineIsMetByTheTimeWithTheHeadroom) {
  EXPECT_TRUE(meets_deadline(80, 100, 0.25));  // 80 x 1.25 = 100
  EXPECT_FALSE(meets_deadline(81, 100, 0.25));
  EXPECT_TRUE(meets_deadline(100, 100, 0));
  EXPECT_EQ(deadline_rule("T", 0.25, 3600 * 4, 3600 * 8, hours),
            "T x (1 + 0.25) = 5.00 h <= deadline 8.00 h");
  EXPECT_EQ(deadline_rule("time", 0.25, std::nullopt, 3600 * 8, hours),
            "time x (1 + 0.25) <= deadline 8.00 h");
}

TEST(Headroom, LatencyTargetIsMetWithinTheHeadroom) {
  EXPECT_DOUBLE_EQ(within_headroom(0.1, 0.25), 0.075);
  EXPECT_DOUBLE_EQ(within_headroom(2, 0), 2);
}

// One default: the request, the sheet and the range check read the same constant.
// The sheet's text of a need planned with the headroom and of a target met within it, written in one place.
TEST(Headroom, NeedAndTargetTextsShowTheHeadroom) {
  EXPECT_EQ(with_headroom_shown("demand 500 tokens/s", 0.25), "demand 500 tokens/s x (1 + 0.25)");
  EXPECT_EQ(within_headroom_shown("0.050 s target", 0.2), "(1 - 0.20) x 0.050 s target");
}

TEST(Headroom, OneDefault) {
  EXPECT_EQ(PlanRequest{}.headroom, kDefaultHeadroom);
  EXPECT_EQ(Sheet{}.headroom, kDefaultHeadroom);
  EXPECT_EQ(check_headroom(kDefaultHeadroom), "");
}

// A line planned with the headroom carries it as a term of its formula: need x (1 + headroom), the headroom
// the request's, so the sheet's quantity is the need with the headroom and nothing else.
TEST(Headroom, PlannedLinesCarryTheHeadroomTerm) {
  struct Case {
    const char* workload;
    std::vector<const char*> items;
  };
  const Case cases[] = {
      {"llm-70b-pretraining",
       {"Shared write bandwidth", "Shared capacity", "Shared read bandwidth", "CPU cores per node",
        "Host RAM per node"}},
      {"resnet50-imagenet", {"Shared write bandwidth", "Shared capacity", "Shared read bandwidth"}},
      {"llm-70b-serving", {"Shared capacity", "CPU cores per node", "Host RAM per node"}},
  };
  for (double h : {0.25, 0.4}) {
    for (const auto& c : cases) {
      SCOPED_TRACE(fmt::format("{} at headroom {}", c.workload, h));
      auto s = plan_file(source_dir() / "configs" / "workloads" / (std::string(c.workload) + ".yaml"), h);
      for (const char* item : c.items) {
        auto l =
            std::find_if(s.lines.begin(), s.lines.end(), [&](const SheetLine& x) { return x.item == item; });
        ASSERT_NE(l, s.lines.end()) << item;
        EXPECT_TRUE(l->formula.ends_with(" x (1 + headroom)")) << item << ": " << l->formula;
        auto term = std::find_if(l->terms.begin(), l->terms.end(),
                                 [](const Term& t) { return t.symbol == "headroom"; });
        ASSERT_NE(term, l->terms.end()) << item;
        EXPECT_EQ(term->value, h) << item;
        EXPECT_EQ(l->headroom, headroom_shown(h)) << item;
      }
    }
  }
}

}  // namespace
}  // namespace mlbench::sizing::test
