// Tests of the totality check of `flops` formulas (model/expr_bounds.h): what
// the op's checks guarantee, and what a formula may then divide by, index
// and count.
#include "model/expr_bounds.h"

#include <string>
#include <variant>
#include <vector>

#include <gtest/gtest.h>

namespace opgen::model {
namespace {

class ExprBoundsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto parsed = parse_schema("f(Tensor x, Tensor q, Tensor k, Tensor[] xs, int[] sizes, int n, float eps) -> Tensor");
    ASSERT_TRUE(std::holds_alternative<FunctionSchema>(parsed));
    schema_ = std::get<FunctionSchema>(std::move(parsed));
    env_.schema = &schema_;
  }

  ExprPtr parse(std::string_view text) {
    auto parsed = parse_expr(text);
    EXPECT_TRUE(std::holds_alternative<ExprPtr>(parsed)) << text;
    return std::holds_alternative<ExprPtr>(parsed) ? std::get<ExprPtr>(parsed) : nullptr;
  }

  void require(std::string_view relation) { facts_.add_relation(*parse(relation)); }

  // The codes of the formula's problems, in order.
  std::vector<std::string> problems(std::string_view formula) {
    std::vector<std::string> codes;
    for (const auto& d : check_total_count(*parse(formula), env_, facts_))
      codes.push_back(d.code == Code::FlopsMayRaise ? "raise" : d.code == Code::FlopsMayBeNegative ? "negative" : "?");
    return codes;
  }

  FunctionSchema schema_;
  ExprEnv env_;
  ShapeFacts facts_;
};

using Codes = std::vector<std::string>;

TEST_F(ExprBoundsTest, SizesAndCountsFromThemAreTotal) {
  EXPECT_EQ(problems("4 * x.numel() + sum_numel(xs) + len(xs) + x.dim()"), Codes{});
  EXPECT_EQ(problems("x.numel() // max(x.numel(), 1) + ceil_div(x.numel(), 8) + round_up(x.numel(), 4)"), Codes{});
  EXPECT_EQ(problems("(5 if eps > 0.0 else 4) * x.numel()"), Codes{});
  EXPECT_EQ(problems("x.numel() % 7"), Codes{});
}

TEST_F(ExprBoundsTest, ADivisorThatCanBeZeroRaises) {
  EXPECT_EQ(problems("x.numel() // len(xs)"), Codes{"raise"});
  EXPECT_EQ(problems("x.numel() % n"), Codes{"raise"});
  EXPECT_EQ(problems("ceil_div(x.numel(), n)"), Codes{"raise"});
  EXPECT_EQ(problems("x.numel() // (x.numel() - 1)"), Codes{"raise"});  // once: bounded as if fixed
  require("n >= 1");
  EXPECT_EQ(problems("x.numel() // n + x.numel() % n"), Codes{});
}

TEST_F(ExprBoundsTest, IndexesNeedTheRankOrLengthTheChecksGuarantee) {
  EXPECT_EQ(problems("x.size(0)"), Codes{"raise"});
  EXPECT_EQ(problems("x.shape[-1]"), Codes{"raise"});
  EXPECT_EQ(problems("xs[0].numel()"), Codes{"raise"});
  EXPECT_EQ(problems("sizes[0] * 0"), Codes{"raise"});
  EXPECT_EQ(problems("x.size(n)"), Codes{"raise"});  // not a literal
  facts_.min_rank["x"] = 2;                           // checks: x: {dim: 2}
  require("len(xs) > 0");
  EXPECT_EQ(problems("x.size(0) * x.size(1) * x.shape[-2] + xs[0].numel() + xs[-1].numel()"), Codes{});
  EXPECT_EQ(problems("x.size(2)"), Codes{"raise"});
  EXPECT_EQ(problems("x.size(-3)"), Codes{"raise"});
  EXPECT_EQ(problems("xs[1].numel()"), Codes{"raise"});
  EXPECT_EQ(problems("[x.numel(), 3][1]"), Codes{});
}

TEST_F(ExprBoundsTest, RequireRulesGiveRanksThroughOrAndEqualities) {
  require("q.dim() == 3 or q.dim() == 4");  // at least 3, not 4
  require("k.dim() == q.dim()");            // k: what q has
  EXPECT_EQ(problems("q.size(-3) * k.size(2)"), Codes{});
  EXPECT_EQ(problems("q.size(3)"), Codes{"raise"});
  require("x.dim() >= 1 and len(sizes) == 2");
  EXPECT_EQ(problems("x.size(-1) + sizes[1] * 0"), Codes{});
  require("x.dim() > 9223372036854775807 and 9223372036854775807 < len(xs)");  // saturates, no overflow
  EXPECT_EQ(problems("x.size(9223372036854775806) + xs[9223372036854775806].numel()"), Codes{});
  require("q.dim() == 5 or x.dim() == 5");  // neither side for sure
  EXPECT_EQ(problems("q.size(4)"), Codes{"raise"});
}

TEST_F(ExprBoundsTest, ACountThatCanGoNegativeLies) {
  EXPECT_EQ(problems("x.numel() * (2 * x.numel() - 1)"), Codes{"negative"});
  EXPECT_EQ(problems("n * x.numel()"), Codes{"negative"});
  EXPECT_EQ(problems("-x.numel()"), Codes{"negative"});
  EXPECT_EQ(problems("max(0, 2 * x.numel() - 1) + max(n, 0) * x.numel()"), Codes{});
  require("n > 0");
  EXPECT_EQ(problems("n * x.numel() + (n - 1) * 0"), Codes{});
}

TEST_F(ExprBoundsTest, WhatAGuardTestsHoldsWhereItGuards) {
  // `c and e` evaluates e only where c holds; `a if c else b` evaluates a only there.
  EXPECT_EQ(problems("x.size(2) if x.dim() > 2 else 0"), Codes{});
  EXPECT_EQ(problems("x.size(2) if x.dim() > 1 else 0"), Codes{"raise"});
  EXPECT_EQ(problems("0 if x.dim() > 2 else x.size(2)"), Codes{"raise"});  // the other branch: not guarded
  EXPECT_EQ(problems("x.numel() // n if n >= 1 else 0"), Codes{});
  EXPECT_EQ(problems("x.numel() // len(xs) if len(xs) > 0 and n > 0 else 0"), Codes{});
}

TEST_F(ExprBoundsTest, AConditionIsCheckedForWhatItRaisesAlone) {
  auto codes = [&](std::string_view condition) {
    std::vector<std::string> out;
    for (const auto& d : check_cannot_raise(*parse(condition), env_, facts_, "torch.compile",
                                            Code::CompileConditionMayRaise)) {
      EXPECT_EQ(d.message.rfind("torch.compile would raise ", 0), 0u) << d.message;
      out.push_back(d.code == Code::CompileConditionMayRaise ? "raise" : "?");
    }
    return out;
  };
  EXPECT_EQ(codes("x.size(1) > 4096"), Codes{"raise"});
  EXPECT_EQ(codes("x.dim() > 1 and x.size(1) > 4096"), Codes{});
  EXPECT_EQ(codes("x.dim() > 1 or x.size(1) > 4096"), Codes{"raise"});  // the right side runs where the left fails
  EXPECT_EQ(codes("x.dim() < 2 or x.size(1) > 4096"), Codes{});            // ... where x.dim() >= 2
  EXPECT_EQ(codes("x.numel() // n > 2"), Codes{"raise"});
  EXPECT_EQ(codes("x.numel() - 5 < 0"), Codes{});  // a sign is no problem here
  require("x.dim() >= 2");
  EXPECT_EQ(codes("x.size(1) > 4096 and x.shape[-2] > 2"), Codes{});
}

}  // namespace
}  // namespace opgen::model
