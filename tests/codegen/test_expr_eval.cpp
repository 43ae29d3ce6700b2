// Tests of the rule evaluator (model/expr_eval.h), which the generated test
// suite's FLOP counts come from: Python's semantics on concrete shapes and
// values, and no value (rather than a wrong one) where it has none.
#include "model/expr_eval.h"

#include <string>
#include <variant>

#include <gtest/gtest.h>

namespace opgen::model {
namespace {

class ExprEvalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bindings_["x"] = EvalValue{EvalTensor{{3, 5, 7}, "float32"}};
    bindings_["e"] = EvalValue{EvalTensor{{0, 4}, "bfloat16"}};
    bindings_["xs"] = EvalValue{std::vector<EvalTensor>{{{2, 3}, "float32"}, {{4}, "float32"}}};
    bindings_["n"] = EvalValue{int64_t{-7}};
    bindings_["eps"] = EvalValue{1e-6};
    bindings_["flag"] = EvalValue{true};
    bindings_["none"] = EvalValue{EvalNone{}};
    bindings_["sizes"] = EvalValue{EvalShape{{4, 6}}};
  }

  std::optional<int64_t> eval(std::string_view text) {
    auto parsed = parse_expr(text);
    if (!std::holds_alternative<ExprPtr>(parsed)) {
      ADD_FAILURE() << text << ": " << std::get<ExprDiagnostic>(parsed).message;
      return std::nullopt;
    }
    return evaluate_int(*std::get<ExprPtr>(parsed), bindings_);
  }

  EvalBindings bindings_;
};

TEST_F(ExprEvalTest, TensorMembersAndNegativeIndexes) {
  EXPECT_EQ(eval("x.size(0) * x.size(-1)"), 21);
  EXPECT_EQ(eval("x.numel()"), 105);
  EXPECT_EQ(eval("x.dim() + x.ndim"), 6);
  EXPECT_EQ(eval("x.stride(0)"), 35);
  EXPECT_EQ(eval("x.stride(-1)"), 1);
  EXPECT_EQ(eval("x.shape[-2]"), 5);
  EXPECT_EQ(eval("len(x.shape[1:])"), 2);
  EXPECT_EQ(eval("len(x.shape[:-5])"), 0);
  EXPECT_EQ(eval("len([2, *x.shape, 4])"), 5);
  EXPECT_EQ(eval("e.numel()"), 0);
}

TEST_F(ExprEvalTest, FloorDivisionAndModuloAreOfPython) {
  EXPECT_EQ(eval("n // 2"), -4);
  EXPECT_EQ(eval("n % 2"), 1);
  EXPECT_EQ(eval("7 // -2"), -4);
  EXPECT_EQ(eval("7 % -2"), -1);
  EXPECT_EQ(eval("ceil_div(x.numel(), 32)"), 4);
  EXPECT_EQ(eval("round_up(x.numel(), 32)"), 128);
  EXPECT_EQ(eval("min(n, 3) + max(n, 3)"), -4);
}

TEST_F(ExprEvalTest, ListsConditionalsAndOptionals) {
  EXPECT_EQ(eval("sum_numel(xs) + len(xs)"), 12);
  EXPECT_EQ(eval("xs[-1].size(0)"), 4);
  EXPECT_EQ(eval("1 if none is None else 2"), 1);
  EXPECT_EQ(eval("1 if x is not None and flag else 2"), 1);
  EXPECT_EQ(eval("3 if eps > 0.0 else 4"), 3);
  EXPECT_EQ(eval("3 if x.dtype == bfloat16 else 4"), 4);
  EXPECT_EQ(eval("sizes[0] * sizes[1]"), 24);
}

TEST_F(ExprEvalTest, NoValueRatherThanAWrongOne) {
  EXPECT_EQ(eval("x.size(3)"), std::nullopt);        // out of range
  EXPECT_EQ(eval("xs[2].numel()"), std::nullopt);    // out of range
  EXPECT_EQ(eval("x.numel() // (n + 7)"), std::nullopt);  // division by zero
  EXPECT_EQ(eval("9223372036854775807 + x.dim()"), std::nullopt);  // overflow
  EXPECT_EQ(eval("unbound + 1"), std::nullopt);
  EXPECT_EQ(eval("dynamic(min=0)"), std::nullopt);   // only at run time
  EXPECT_EQ(eval("flag"), std::nullopt);             // a Bool is not an Int
}

}  // namespace
}  // namespace opgen::model
