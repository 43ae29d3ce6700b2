// Tests of the rule-expression language (model/expr.h): parsing, type
// checking with column-precise diagnostics, and the Python and C++ renderings,
// compared as exact strings. The PatternNN tests follow the 20 patterns of
// shared/corpus/fake_shape_patterns.md, in the order of docs/fake-rules.md.
#include "model/expr.h"

#include <random>
#include <string>
#include <variant>
#include <vector>

#include <gtest/gtest.h>

namespace opgen::model {
namespace {

class ExprTest : public ::testing::Test {
 protected:
  void use_schema(std::string_view text) {
    auto parsed = parse_schema(text);
    ASSERT_TRUE(std::holds_alternative<FunctionSchema>(parsed))
        << text << ": " << std::get<SchemaError>(parsed).message;
    schema_ = std::get<FunctionSchema>(std::move(parsed));
    env_.schema = &schema_;
  }

  // Parses, or fails the test.
  ExprPtr parse(std::string_view text) {
    auto parsed = parse_expr(text);
    if (auto* diag = std::get_if<ExprDiagnostic>(&parsed)) {
      ADD_FAILURE() << "'" << text << "': column " << diag->column << ": " << diag->message;
      return nullptr;
    }
    return std::get<ExprPtr>(parsed);
  }

  // Parses and checks, or fails the test; returns the kind.
  std::optional<ValueKind> kind(std::string_view text) {
    ExprPtr e = parse(text);
    if (!e) return std::nullopt;
    auto checked = check_expr(*e, env_);
    if (auto* diags = std::get_if<std::vector<ExprDiagnostic>>(&checked)) {
      for (const auto& d : *diags)
        ADD_FAILURE() << "'" << text << "': column " << d.column << ": " << d.message << " (" << d.note << ")";
      return std::nullopt;
    }
    return std::get<ValueKind>(checked);
  }

  // Parses, checks and renders as Python.
  std::string python(std::string_view text, const std::string& device = "") {
    if (!kind(text)) return "<error>";
    return render_python(*parse(text), env_, device);
  }

  // Parses, checks for C++ and renders as C++.
  std::string cpp(std::string_view text, CppAbi abi = CppAbi::Stable) {
    ExprPtr e = parse(text);
    if (!e) return "<error>";
    auto checked = check_cpp_expr(*e, env_);
    if (auto* diags = std::get_if<std::vector<ExprDiagnostic>>(&checked)) {
      for (const auto& d : *diags) ADD_FAILURE() << "'" << text << "': column " << d.column << ": " << d.message;
      return "<error>";
    }
    return render_cpp(*e, env_, abi);
  }

  // The diagnostics of parsing, then checking (C++ subset when `for_cpp`).
  std::vector<ExprDiagnostic> errors(std::string_view text, bool for_cpp = false) {
    auto parsed = parse_expr(text);
    if (auto* diag = std::get_if<ExprDiagnostic>(&parsed)) return {*diag};
    const Expr& e = *std::get<ExprPtr>(parsed);
    auto checked = for_cpp ? check_cpp_expr(e, env_) : check_expr(e, env_);
    if (auto* diags = std::get_if<std::vector<ExprDiagnostic>>(&checked)) return *diags;
    ADD_FAILURE() << "'" << text << "' was accepted";
    return {};
  }

  // The only diagnostic for `text`.
  ExprDiagnostic error(std::string_view text, bool for_cpp = false) {
    std::vector<ExprDiagnostic> diags = errors(text, for_cpp);
    EXPECT_EQ(diags.size(), 1u) << text;
    return diags.empty() ? ExprDiagnostic{} : diags.front();
  }

  // Renders without checking: for grammar and precedence tests.
  static std::string roundtrip(std::string_view text) {
    auto parsed = parse_expr(text);
    if (auto* diag = std::get_if<ExprDiagnostic>(&parsed)) return "error: " + diag->message;
    return render_python(*std::get<ExprPtr>(parsed), ExprEnv{}, "");
  }

  FunctionSchema schema_;
  ExprEnv env_;
};

#define EXPECT_DIAG(diag, col, msg)      \
  do {                                   \
    const ExprDiagnostic d_ = (diag);    \
    EXPECT_EQ(d_.column, (col));         \
    EXPECT_EQ(d_.message, (msg));        \
  } while (0)

// ---------------------------------------------------------------------------
// Grammar
// ---------------------------------------------------------------------------

TEST_F(ExprTest, ParenthesesFollowPrecedence) {
  EXPECT_EQ(roundtrip("(a + b) * c"), "(a + b) * c");
  EXPECT_EQ(roundtrip("(a * b) + c"), "a * b + c");
  EXPECT_EQ(roundtrip("a - (b - c)"), "a - (b - c)");
  EXPECT_EQ(roundtrip("(a - b) - c"), "a - b - c");
  EXPECT_EQ(roundtrip("a // b * c"), "a // b * c");
  EXPECT_EQ(roundtrip("a // (b * c)"), "a // (b * c)");
  EXPECT_EQ(roundtrip("-a * b"), "-a * b");
  EXPECT_EQ(roundtrip("-(a * b)"), "-(a * b)");
  EXPECT_EQ(roundtrip("- -a"), "-(-a)");
  EXPECT_EQ(roundtrip("a - -1"), "a - -1");
  EXPECT_EQ(roundtrip("not (a and b)"), "not (a and b)");
  EXPECT_EQ(roundtrip("not a == b"), "not a == b");
  EXPECT_EQ(roundtrip("(not a) == b"), "(not a) == b");
  EXPECT_EQ(roundtrip("(a == b) == c"), "(a == b) == c");
  EXPECT_EQ(roundtrip("a or b and c"), "a or b and c");
  EXPECT_EQ(roundtrip("(a or b) and c"), "(a or b) and c");
  EXPECT_EQ(roundtrip("a if b else c if d else e"), "a if b else c if d else e");
  EXPECT_EQ(roundtrip("(a if b else c) if d else e"), "(a if b else c) if d else e");
  EXPECT_EQ(roundtrip("(a if b else c) + 1"), "(a if b else c) + 1");
  EXPECT_EQ(roundtrip("x is not None and x.size(0) == 1"), "x is not None and x.size(0) == 1");
}

TEST_F(ExprTest, ListsRenderAsTuples) {
  EXPECT_EQ(roundtrip("[]"), "()");
  EXPECT_EQ(roundtrip("[n]"), "(n,)");
  EXPECT_EQ(roundtrip("[*s]"), "(*s,)");
  EXPECT_EQ(roundtrip("[a, b,]"), "(a, b)");
  EXPECT_EQ(roundtrip("[*x.shape[:-1], n]"), "(*x.shape[:-1], n)");
  EXPECT_EQ(roundtrip("x.shape[1:]"), "x.shape[1:]");
  EXPECT_EQ(roundtrip("x.shape[a:b]"), "x.shape[a:b]");
  EXPECT_EQ(roundtrip("x.shape[:]"), "x.shape[:]");
}

TEST_F(ExprTest, Literals) {
  EXPECT_EQ(roundtrip("9223372036854775807"), "9223372036854775807");
  EXPECT_EQ(roundtrip("0"), "0");
  EXPECT_EQ(roundtrip("1.5 + .5 + 1. + 1e-6 + 2E+3"), "1.5 + .5 + 1. + 1e-6 + 2E+3");
  EXPECT_EQ(roundtrip("True or False"), "True or False");
  EXPECT_DIAG(error("9223372036854775808"), 0u, "integer literal too large");
  EXPECT_DIAG(error("x + 007"), 4u, "leading zeros are not allowed in integer literals");
  EXPECT_DIAG(error("1e999"), 0u, "float literal out of range");
  EXPECT_DIAG(error("2.size"), 0u, "invalid number literal '2.s'");
  EXPECT_DIAG(error("1e+"), 0u, "malformed exponent in number");
  EXPECT_DIAG(error("12abc"), 0u, "invalid number literal '12a'");
}

TEST_F(ExprTest, SyntaxErrorsPointAtTheProblem) {
  EXPECT_DIAG(error(""), 0u, "expected an expression");
  EXPECT_DIAG(error("x +"), 3u, "expected an expression, found the end of the expression");
  EXPECT_DIAG(error("a < b < c"), 6u, "comparisons cannot be chained");
  EXPECT_DIAG(error("a / b"), 2u, "'/' is not supported");
  EXPECT_EQ(error("a / b").note, "use '//' for floor division, or ceil_div(a, b)");
  EXPECT_DIAG(error("a ** 2"), 2u, "'**' (power) is not supported");
  EXPECT_DIAG(error("a && b"), 2u, "'&&' is not supported");
  EXPECT_DIAG(error("!a"), 0u, "'!' is not supported");
  EXPECT_DIAG(error("x.size(0) = 3"), 10u, "unexpected '=' after the end of the expression");
  EXPECT_EQ(error("x.size(0) = 3").note, "use '==' to compare");
  EXPECT_DIAG(error("(a, b)"), 0u, "tuples are not supported");
  EXPECT_DIAG(error("()"), 0u, "tuples are not supported");
  EXPECT_DIAG(error("x.shape[::2]"), 9u, "slice steps are not supported");
  EXPECT_DIAG(error("x.shape[]"), 8u, "expected an index or a slice");
  EXPECT_DIAG(error("f(a=1, 2)"), 7u, "positional argument follows keyword argument");
  EXPECT_DIAG(error("f(a=1, a=2)"), 7u, "keyword argument 'a' repeated");
  EXPECT_DIAG(error("f(*xs)"), 2u, "unpacking arguments with '*' is not supported");
  EXPECT_DIAG(error("lambda: 1"), 0u, "'lambda' is not supported in rule expressions");
  EXPECT_DIAG(error("d in x"), 2u, "'in' is not supported");
  EXPECT_DIAG(error("d not in x"), 2u, "'in' is not supported");
  EXPECT_DIAG(error("a and"), 5u, "expected an expression, found the end of the expression");
  EXPECT_DIAG(error("a if b"), 6u, "expected 'else', found the end of the expression");
  EXPECT_DIAG(error("'mean'"), 0u, "string literals are not supported");
  EXPECT_DIAG(error("x @ w"), 2u, "'@' is not supported");
  EXPECT_DIAG(error("+x"), 0u, "unary '+' is not supported");
  EXPECT_DIAG(error("x.1"), 1u, "unexpected '.1' after the end of the expression");
  EXPECT_DIAG(error("x.(y)"), 2u, "expected an attribute name after '.', found '('");
  EXPECT_DIAG(error("f(a"), 3u, "expected ')' to close the argument list, found the end of the expression");
  EXPECT_DIAG(error("[a b]"), 3u, "expected ']' to close the list, found 'b'");
  EXPECT_DIAG(error("x $ y"), 2u, "unexpected character '$'");
  EXPECT_DIAG(error("x \xc3\xa9"), 2u, "unexpected byte 0xc3");
  EXPECT_DIAG(error(std::string_view("x\0", 2)), 1u, "unexpected byte 0x00");
}

TEST_F(ExprTest, NestingIsBounded) {
  const std::string deep_parens = std::string(200, '(') + "x" + std::string(200, ')');
  EXPECT_EQ(error(deep_parens).message, "expression nested too deeply");
  EXPECT_EQ(error(std::string(300, '-') + "x").message, "expression nested too deeply");
  std::string nots;
  for (int i = 0; i < 300; ++i) nots += "not ";
  EXPECT_EQ(error(nots + "True").message, "expression nested too deeply");
  // A long operator chain parses in a loop but builds a deep tree.
  std::string chain = "x";
  for (int i = 0; i < 5000; ++i) chain += " + x";
  EXPECT_EQ(error(chain).message, "expression nested too deeply");
  std::string calls = "x";
  for (int i = 0; i < 5000; ++i) calls += ".a";
  EXPECT_EQ(error(calls).message, "expression nested too deeply");
  // Wide is fine; only depth is limited.
  std::string wide = "[1";
  for (int i = 0; i < 10000; ++i) wide += ", 1";
  EXPECT_EQ(kind(wide + "]"), ValueKind::Shape);
  std::string moderate = "1";
  for (int i = 0; i < 60; ++i) moderate += " + 1";
  EXPECT_EQ(kind(moderate), ValueKind::Int);
}

// ---------------------------------------------------------------------------
// Type checking
// ---------------------------------------------------------------------------

TEST_F(ExprTest, SchemaTypesMapToKinds) {
  use_schema(
      "f(Tensor t, Tensor? o, Tensor[] l, int i, SymInt s, float f, bool b, str st, ScalarType d, "
      "ScalarType? od, int[] sh, SymInt[] ssh, MemoryFormat mf, Tensor(a!) m, int[2] fixed) -> ()");
  EXPECT_EQ(kind("t"), ValueKind::Tensor);
  EXPECT_EQ(kind("o"), ValueKind::OptionalTensor);
  EXPECT_EQ(kind("l"), ValueKind::TensorList);
  EXPECT_EQ(kind("i"), ValueKind::Int);
  EXPECT_EQ(kind("s"), ValueKind::Int);
  EXPECT_EQ(kind("f"), ValueKind::Float);
  EXPECT_EQ(kind("b"), ValueKind::Bool);
  EXPECT_EQ(kind("st"), ValueKind::String);
  EXPECT_EQ(kind("d"), ValueKind::DType);
  EXPECT_EQ(kind("od"), ValueKind::OptionalDType);
  EXPECT_EQ(kind("sh"), ValueKind::Shape);
  EXPECT_EQ(kind("ssh"), ValueKind::Shape);
  EXPECT_EQ(kind("mf"), ValueKind::MemoryFormat);
  EXPECT_EQ(kind("m"), ValueKind::Tensor);
  EXPECT_EQ(kind("fixed"), ValueKind::Shape);
  EXPECT_EQ(kind("float32"), ValueKind::DType);
  EXPECT_EQ(kind("channels_last"), ValueKind::MemoryFormat);
}

TEST_F(ExprTest, UnusableArgumentTypesAreNamed) {
  use_schema("f(Tensor x, int? k, Tensor?[] maybe) -> Tensor");
  const ExprDiagnostic d = error("x.size(0) + k");
  EXPECT_DIAG(d, 12u, "argument 'k' has type 'int?', which rules cannot use");
  EXPECT_NE(d.note.find("ScalarType?"), std::string::npos);
  EXPECT_DIAG(error("len(maybe)"), 4u, "argument 'maybe' has type 'Tensor?[]', which rules cannot use");
}

TEST_F(ExprTest, UnknownNamesSuggestTheNearest) {
  use_schema("f(Tensor input, Tensor weight, int group_size) -> Tensor");
  ExprDiagnostic d = error("inpt.size(0)");
  EXPECT_DIAG(d, 0u, "unknown name 'inpt'");
  EXPECT_EQ(d.note, "did you mean 'input'?");
  d = error("like(input, dtype=flaot16)");
  EXPECT_DIAG(d, 18u, "unknown name 'flaot16'");
  EXPECT_EQ(d.note, "did you mean 'float16'?");
  d = error("empty([1], memory_format=channel_last)");
  EXPECT_EQ(d.note, "did you mean 'channels_last'?");
  EXPECT_EQ(errors("x.size(0) // group_sise").size(), 2u);
  d = error("input.size(0) // group_sise");
  EXPECT_EQ(d.note, "did you mean 'group_size'?");
  d = error("like(input, dtype=half)");
  EXPECT_DIAG(d, 18u, "unknown name 'half'");
  EXPECT_EQ(d.note, "dtypes go by their torch names: did you mean 'float16'?");
  d = error("like(input, dtype=torch.float32)");
  EXPECT_DIAG(d, 18u, "unknown name 'torch'");
  EXPECT_EQ(d.note, "rules name dtypes and memory formats without 'torch.': float32, channels_last");
  d = error("true");
  EXPECT_EQ(d.note, "booleans are spelled True and False");
  d = error("zzzzzz");
  EXPECT_EQ(d.note, "");
  EXPECT_DIAG(error("len"), 0u, "'len' is a function; call it: len(...)");
}

TEST_F(ExprTest, UnknownFunctionsAndMethods) {
  use_schema("f(Tensor x, Tensor w, int n) -> Tensor");
  ExprDiagnostic d = error("ceil_dvi(n, 2)");
  EXPECT_DIAG(d, 0u, "unknown function 'ceil_dvi'");
  EXPECT_EQ(d.note, "did you mean 'ceil_div'?");
  d = error("x.sizes(0)");
  EXPECT_DIAG(d, 2u, "unknown tensor attribute or method 'sizes'");
  EXPECT_EQ(d.note, "did you mean 'size'?");
  d = error("x.shap");
  EXPECT_DIAG(d, 2u, "unknown tensor attribute or method 'shap'");
  EXPECT_EQ(d.note, "did you mean 'shape'?");
  EXPECT_DIAG(error("n(1)"), 0u, "'n' is not a function");
  EXPECT_DIAG(error("x.shape(0)"), 7u, "'shape' is an attribute, not a method");
  EXPECT_DIAG(error("x.size"), 2u, "'size' is a method; call it: x.size(i)");
  EXPECT_DIAG(error("x.numel + 1"), 2u, "'numel' is a method; call it: x.numel()");
  EXPECT_DIAG(error("x.shape[0](1)"), 10u, "only builtin functions and tensor methods can be called");
  // Errors inside the arguments of a bad call are still reported.
  EXPECT_EQ(errors("nope(foo, bar=baz)").size(), 3u);
}

TEST_F(ExprTest, ArityAndKeywords) {
  use_schema("f(Tensor x, int n) -> Tensor");
  EXPECT_DIAG(error("x.size()"), 6u, "size() takes 1 argument but 0 were given");
  EXPECT_DIAG(error("x.size(0, 1)"), 10u, "size() takes 1 argument but 2 were given");
  EXPECT_DIAG(error("x.dim(0)"), 6u, "dim() takes 0 arguments but 1 was given");
  EXPECT_DIAG(error("x.size(dim=0)"), 7u, "size() takes no keyword arguments");
  EXPECT_DIAG(error("ceil_div(n)"), 8u, "ceil_div(a, b) takes 2 positional arguments but 1 was given");
  EXPECT_DIAG(error("ceil_div(n, 2, 3)"), 15u, "ceil_div(a, b) takes 2 positional arguments but 3 were given");
  ExprDiagnostic d = error("empty([n], float32)");
  EXPECT_DIAG(d, 11u, "empty(shape) takes 1 positional argument but 2 were given");
  EXPECT_EQ(d.note, "pass dtype=, device=, memory_format= by name");
  d = error("dynamic(0, 10)");
  EXPECT_EQ(d.note, "pass min=, max= by name");
  d = error("empty([n], dtyp=float32)");
  EXPECT_DIAG(d, 11u, "empty() has no keyword argument 'dtyp'");
  EXPECT_EQ(d.note, "did you mean 'dtype'?");
  d = error("like(x, shape=[1])");
  EXPECT_EQ(d.note, "its keyword arguments are: dtype, device, memory_format");
  d = error("min(n, 1, key=2)");
  EXPECT_EQ(errors("min(n, 1, key=2)").size(), 1u);
  EXPECT_DIAG(d, 10u, "min() has no keyword argument 'key'");
}

TEST_F(ExprTest, TypeErrors) {
  use_schema("f(Tensor x, Tensor w, Tensor[] xs, int n, float eps, ScalarType? out_dtype=None) -> Tensor");
  ExprDiagnostic d = error("n.size(0)");
  EXPECT_DIAG(d, 0u, "'.size' needs a Tensor, but 'n' is Int");
  d = error("empty([x, n])");
  EXPECT_DIAG(d, 7u, "a shape element must be Int, not Tensor");
  EXPECT_EQ(d.note, "a Tensor is not a number: use x.size(i), x.dim() or x.numel()");
  d = error("empty([*n])");
  EXPECT_DIAG(d, 8u, "a '*' splat in a shape list must be Shape, not Int");
  d = error("empty(x)");
  EXPECT_DIAG(d, 6u, "argument 'shape' of empty() must be Shape, not Tensor");
  EXPECT_EQ(d.note, "use the tensor's shape: x.shape");
  d = error("x == w");
  EXPECT_DIAG(d, 2u, "cannot compare Tensor with Tensor using '=='");
  EXPECT_EQ(d.note, "compare sizes, shapes or dtypes: x.size(0), x.shape, x.dtype");
  EXPECT_DIAG(error("x.dtype < w.dtype"), 8u, "cannot compare DType with DType using '<'");
  EXPECT_DIAG(error("n == True"), 2u, "cannot compare Int with Bool using '=='");
  d = error("x.shape + w.shape");
  EXPECT_DIAG(d, 8u, "'+' does not work on shapes");
  EXPECT_EQ(d.note, "concatenate shapes with splat: [*a, *b]");
  EXPECT_DIAG(error("x.size(0) // eps"), 13u, "an operand of '//' must be Int, not Float");
  EXPECT_DIAG(error("x.size(0) % 0"), 12u, "'%' by zero");
  EXPECT_DIAG(error("x.size(0) + x"), 12u, "an operand of '+' must be Int or Float, not Tensor");
  EXPECT_DIAG(error("x.size(0) and True"), 0u, "an operand of 'and' must be Bool, not Int");
  EXPECT_DIAG(error("not n"), 4u, "the operand of 'not' must be Bool, not Int");
  EXPECT_DIAG(error("-x"), 1u, "the operand of unary '-' must be Int or Float, not Tensor");
  EXPECT_DIAG(error("x[0]"), 1u, "a Tensor cannot be indexed");
  EXPECT_DIAG(error("xs[1:]"), 2u, "slicing a Tensor[] is not supported");
  EXPECT_DIAG(error("n[0]"), 1u, "Int cannot be indexed");
  EXPECT_DIAG(error("x.shape[eps]"), 8u, "the index must be Int, not Float");
  EXPECT_DIAG(error("x.shape[:eps]"), 9u, "a slice bound must be Int, not Float");
  EXPECT_DIAG(error("xs.size(0)"), 0u, "'.size' needs a Tensor, but 'xs' is a Tensor[]");
  EXPECT_DIAG(error("like(xs)"), 5u, "argument 'x' of like() must be Tensor, not Tensor[]");
  EXPECT_DIAG(error("n if eps > 0 else x.shape"), 2u, "the branches of 'if' differ: Int and Shape");
  EXPECT_DIAG(error("n if n else 1"), 5u, "the condition of 'if' must be Bool, not Int");
  EXPECT_DIAG(error("x.shape[0] + x.size(0) * eps // 2"), 13u, "an operand of '//' must be Int, not Float");
  EXPECT_DIAG(error("empty([n], device=n)"), 18u, "device= of empty() must be Tensor, not Int");
  d = error("empty([n], dtype=out_dtype)");
  EXPECT_DIAG(d, 17u,
              "dtype= of empty() must be a DType, but 'out_dtype' is an optional dtype (ScalarType?) and may be None");
  EXPECT_EQ(d.note, "give a fallback: 'out_dtype or x.dtype'");
  EXPECT_DIAG(error("empty([like(x)])"), 7u, "a shape element must be Int, not Output");
  EXPECT_DIAG(error("like(like(x))"), 5u, "argument 'x' of like() must be Tensor, not Output");
  EXPECT_DIAG(error("[*x.shape] * 2"), 0u, "an operand of '*' must be Int or Float, not Shape");
  // Two independent mistakes: both reported; a mistake is reported once.
  EXPECT_EQ(errors("foo + bar").size(), 2u);
  EXPECT_EQ(errors("foo.size(0) + 1 == n").size(), 1u);
}

TEST_F(ExprTest, OptionalTensorsNeedAGuard) {
  use_schema("f(Tensor x, Tensor? scale=None, ScalarType? out_dtype=None, int n=0) -> Tensor");
  ExprDiagnostic d = error("scale.size(0)");
  EXPECT_DIAG(d, 0u, "'scale' is an optional tensor (Tensor?) and may be None here");
  EXPECT_EQ(d.note,
            "guard it: 'scale.size(0) if scale is not None else 0', or in a check 'scale is None or "
            "scale.size(0) == n'");
  EXPECT_DIAG(error("like(scale)"), 5u,
              "argument 'x' of like() must be a Tensor, but 'scale' is an optional tensor (Tensor?) and may "
              "be None here");
  // Guards narrow the optional for the rest of the expression.
  EXPECT_EQ(kind("scale is None or scale.numel() == 1"), ValueKind::Bool);
  EXPECT_EQ(kind("scale is not None and scale.dim() == 1"), ValueKind::Bool);
  EXPECT_EQ(kind("not (scale is None) and scale.dim() == 1"), ValueKind::Bool);
  EXPECT_EQ(kind("scale.size(0) if scale is not None else 0"), ValueKind::Int);
  EXPECT_EQ(kind("0 if scale is None else scale.size(0)"), ValueKind::Int);
  EXPECT_EQ(kind("like(scale if scale is not None else x)"), ValueKind::Output);
  EXPECT_EQ(kind("scale is not None and n > 0 and scale.size(0) == n"), ValueKind::Bool);
  EXPECT_EQ(kind("out_dtype is not None and out_dtype == float32"), ValueKind::Bool);
  // ... but only where the guard holds.
  EXPECT_DIAG(error("scale.numel() == 1 or scale is None"), 0u,
              "'scale' is an optional tensor (Tensor?) and may be None here");
  EXPECT_DIAG(error("scale is not None or scale.dim() == 1"), 21u,
              "'scale' is an optional tensor (Tensor?) and may be None here");
  EXPECT_DIAG(error("(scale is not None) == True and scale.dim() == 1"), 32u,
              "'scale' is an optional tensor (Tensor?) and may be None here");
  EXPECT_DIAG(error("x is None"), 0u, "'x' is Tensor and is never None here");
  EXPECT_DIAG(error("scale is not None and scale is None"), 22u, "'scale' is Tensor and is never None here");
  EXPECT_DIAG(error("n is 3"), 2u, "'is' only tests for None: 'x is None', 'x is not None'");
  EXPECT_DIAG(error("scale == None"), 9u, "compare with None using 'is None' or 'is not None'");
  EXPECT_DIAG(error("None"), 0u, "None can only be tested with 'is': 'x is None', 'x is not None'");
  d = error("scale or x");
  EXPECT_DIAG(d, 6u, "'or' does not choose between tensors");
  EXPECT_EQ(d.note, "write 'a if a is not None else b'");
}

TEST_F(ExprTest, OptionalDTypeFallbacks) {
  use_schema("f(Tensor x, ScalarType? out_dtype=None, ScalarType? acc_dtype=None) -> Tensor");
  EXPECT_EQ(kind("out_dtype or x.dtype"), ValueKind::DType);
  EXPECT_EQ(kind("out_dtype or acc_dtype"), ValueKind::OptionalDType);
  EXPECT_EQ(kind("out_dtype or acc_dtype or float32"), ValueKind::DType);
  EXPECT_EQ(kind("out_dtype == float32"), ValueKind::Bool);
  EXPECT_EQ(kind("out_dtype if out_dtype is not None else x.dtype"), ValueKind::DType);
  EXPECT_EQ(kind("out_dtype if x.dim() == 2 else x.dtype"), ValueKind::OptionalDType);
  EXPECT_DIAG(error("out_dtype or 1"), 13u, "the fallback of 'or' must be DType or DType?, not Int");
}

TEST_F(ExprTest, OutputConstructorsNeedATensorForDefaults) {
  use_schema("arange_like(int n) -> Tensor");
  ExprDiagnostic d = error("empty([n], dtype=float32)");
  EXPECT_DIAG(d, 0u,
              "empty() takes its default dtype and device from the first Tensor or Tensor[] argument, and "
              "this schema has none");
  // The note names what works (it once advised device=, which takes a tensor, and this op has none).
  EXPECT_EQ(d.note, "rules take an output's device from a tensor argument (device=t), and this op has no Tensor or "
                    "Tensor[] one: write its fake in Python (fake: {python: module:function})");
  EXPECT_EQ(kind("dynamic(min=0, max=16)"), ValueKind::Int);
}

TEST_F(ExprTest, TensorListElements) {
  use_schema("opgen::multi_tensor_l2norm(Tensor[] tensors, int n) -> (Tensor, Tensor)");
  EXPECT_EQ(kind("tensors[0]"), ValueKind::Tensor);
  EXPECT_EQ(python("tensors[-1].size(0) == n"), "tensors[-1].size(0) == n");
  EXPECT_EQ(python("like(tensors[n])"), "torch.empty_like(tensors[n])");
  // Without a Tensor argument, element 0 of the first Tensor[] gives the defaults.
  EXPECT_EQ(python("empty([])"), "torch.empty((), dtype=tensors[0].dtype, device=tensors[0].device)");
  EXPECT_EQ(python("empty([len(tensors)], dtype=float32, device=tensors[0])"),
            "torch.empty((len(tensors),), dtype=torch.float32, device=tensors[0].device)");
  EXPECT_EQ(referenced_names(*parse("empty([n])"), env_), (std::vector<std::string>{"n", "tensors"}));
  EXPECT_EQ(cpp("tensors[0].dim() == 1 and tensors[1].size(0) == n"),
            "tensors.at(0).dim() == 1 && tensors.at(1).size(0) == n");
  ExprDiagnostic d = error("tensors[-1].dim() == 1", true);
  EXPECT_DIAG(d, 8u, "a Tensor[] index in a C++ check must be an integer literal");
  EXPECT_EQ(d.note, "a negative index counts from the end only in Python");
  d = error("tensors.dim()");
  EXPECT_DIAG(d, 0u, "'.dim' needs a Tensor, but 'tensors' is a Tensor[]");
  EXPECT_EQ(d.note, "index one element, e.g. xs[0]; len(xs) counts them");
}

TEST_F(ExprTest, LetsAreVisibleAndShadowArguments) {
  use_schema("f(Tensor x, int n) -> Tensor");
  env_.lets["m"] = ValueKind::Int;
  env_.lets["n"] = ValueKind::Shape;
  EXPECT_EQ(kind("m + 1"), ValueKind::Int);
  EXPECT_EQ(kind("n"), ValueKind::Shape);
  EXPECT_EQ(error("mm + 1").note, "did you mean 'm'?");
}

// ---------------------------------------------------------------------------
// C++ rendering of input checks
// ---------------------------------------------------------------------------

TEST_F(ExprTest, CppRelations) {
  use_schema(
      "f(Tensor input, Tensor weight, Tensor[] xs, Tensor? scale, int n, int g, bool flag, bool strict, "
      "int[] sizes, ScalarType? out_dtype=None, ScalarType dt=float32, float eps=1e-6) -> Tensor");
  EXPECT_EQ(cpp("weight.size(0) == input.size(-1)"), "weight.size(0) == input.size(-1)");
  EXPECT_EQ(cpp("input.dim() >= 1 and input.numel() > 0"), "input.dim() >= 1 && input.numel() > 0");
  EXPECT_EQ(cpp("input.dtype == float32"), "input.scalar_type() == torch::headeronly::ScalarType::Float");
  EXPECT_EQ(cpp("input.dtype == bfloat16", CppAbi::Unstable), "input.scalar_type() == at::ScalarType::BFloat16");
  EXPECT_EQ(cpp("input.dtype == dt"), "input.scalar_type() == dt");
  EXPECT_EQ(cpp("len(xs) == 2"), "static_cast<int64_t>(xs.size()) == 2");
  EXPECT_EQ(cpp("len(sizes) == input.ndim"), "static_cast<int64_t>(sizes.size()) == input.dim()");
  EXPECT_EQ(cpp("input.shape[0] == input.stride(1)"), "input.size(0) == input.stride(1)");
  EXPECT_EQ(cpp("not (input.dim() == 2)"), "!(input.dim() == 2)");
  EXPECT_EQ(cpp("not flag"), "!flag");
  EXPECT_EQ(cpp("flag and strict or n > 0"), "(flag && strict) || n > 0");
  EXPECT_EQ(cpp("flag or strict and n > 0"), "flag || (strict && n > 0)");
  EXPECT_EQ(cpp("(flag or strict) and n > 0"), "(flag || strict) && n > 0");
  EXPECT_EQ(cpp("flag and strict and n > 0"), "flag && strict && n > 0");
  EXPECT_EQ(cpp("(n == g) == flag"), "(n == g) == flag");
  EXPECT_EQ(cpp("(n < g) == (g < n)"), "(n < g) == (g < n)");
  EXPECT_EQ(cpp("(not flag) == strict"), "(!flag) == strict");
  EXPECT_EQ(cpp("-(-n) == n"), "-(-n) == n");
  EXPECT_EQ(cpp("n - -1 > 0"), "n - -1 > 0");
  EXPECT_EQ(cpp("(n + 1) * 2 == g"), "(n + 1) * 2 == g");
  EXPECT_EQ(cpp("2 * 3 == n"), "static_cast<int64_t>(2) * 3 == n");
  EXPECT_EQ(cpp("65536 * 65536 * 2 == n"), "static_cast<int64_t>(65536) * 65536 * 2 == n");
  EXPECT_EQ(cpp("n == 2 * (65536 * -65536)"), "n == static_cast<int64_t>(2) * (static_cast<int64_t>(65536) * -65536)");
  EXPECT_EQ(cpp("eps > 0.0"), "eps > 0.0");
  EXPECT_EQ(cpp("True"), "true");
  EXPECT_EQ(cpp("min(input.size(0), n) > 0"), "std::min<int64_t>(input.size(0), n) > 0");
  EXPECT_EQ(cpp("max(n, g) > 0"), "std::max<int64_t>(n, g) > 0");
  EXPECT_EQ(cpp("(input.size(0) if flag else 1) == n"), "(flag ? input.size(0) : 1) == n");
  EXPECT_EQ(cpp("(out_dtype or input.dtype) == float16"),
            "out_dtype.value_or(input.scalar_type()) == torch::headeronly::ScalarType::Half");
  EXPECT_EQ(cpp("out_dtype == float16"), "out_dtype == torch::headeronly::ScalarType::Half");
}

TEST_F(ExprTest, CppGuardsOnOptionals) {
  use_schema("f(Tensor x, Tensor? scale=None, ScalarType? out_dtype=None, int n=0) -> Tensor");
  EXPECT_EQ(cpp("scale is None or scale.numel() == 1"), "!scale.has_value() || scale->numel() == 1");
  EXPECT_EQ(cpp("scale is not None and scale.dtype == float32"),
            "scale.has_value() && scale->scalar_type() == torch::headeronly::ScalarType::Float");
  EXPECT_EQ(cpp("scale is None or scale.shape[0] == x.shape[-1]"),
            "!scale.has_value() || scale->size(0) == x.size(-1)");
  EXPECT_EQ(cpp("out_dtype is not None and out_dtype == float32"),
            "out_dtype.has_value() && *out_dtype == torch::headeronly::ScalarType::Float");
  EXPECT_EQ(cpp("(scale.size(0) if scale is not None else 0) == n"),
            "(scale.has_value() ? scale->size(0) : 0) == n");
  EXPECT_EQ(cpp("(scale is None) == (n == 0)"), "(!scale.has_value()) == (n == 0)");
}

TEST_F(ExprTest, CppDivisionKeepsPythonSemantics) {
  use_schema("f(Tensor x, int n, int g) -> Tensor");
  // Non-negative dividend, positive divisor: C++ truncation equals floor.
  EXPECT_EQ(cpp("x.size(1) % 32 == 0"), "x.size(1) % 32 == 0");
  EXPECT_EQ(cpp("x.size(-1) // 2 == x.numel() // 4"), "x.size(-1) / 2 == x.numel() / 4");
  EXPECT_EQ(cpp("ceil_div(x.size(1), 32) == 4"), "(x.size(1) + 32 - 1) / 32 == 4");
  EXPECT_EQ(cpp("round_up(x.size(0), 128) >= 128"), "(x.size(0) + 128 - 1) / 128 * 128 >= 128");
  EXPECT_EQ(cpp("(x.size(0) - 1) // 2 > 0"),
            "[](int64_t a, int64_t b) { if (b == 0) throw std::runtime_error(\"integer division by zero\"); "
            "return a / b - (a % b != 0 && (a < 0) != (b < 0)); }(x.size(0) - 1, 2) > 0");
  // Unknown signs: a lambda with Python's floor semantics.
  EXPECT_EQ(cpp("n % g == 0", CppAbi::Unstable),
            "[](int64_t a, int64_t b) { if (b == 0) throw std::runtime_error(\"integer modulo by zero\"); "
            "const int64_t r = a % b; return r != 0 && (r < 0) != (b < 0) ? r + b : r; }(n, g) == 0");
  EXPECT_EQ(cpp("x.size(0) // x.size(1) > 0"),
            "[](int64_t a, int64_t b) { if (b == 0) throw std::runtime_error(\"integer division by zero\"); "
            "return a / b - (a % b != 0 && (a < 0) != (b < 0)); }(x.size(0), x.size(1)) > 0");
}

TEST_F(ExprTest, CppSubsetIsChecked) {
  use_schema("f(Tensor x, Tensor w, int[] sizes, ScalarType? a=None, ScalarType? b=None) -> Tensor");
  env_.lets["n"] = ValueKind::Int;
  EXPECT_DIAG(error("n > 0", true), 0u, "'n' is bound by 'let:', which C++ checks cannot see");
  EXPECT_EQ(errors("x.shape == w.shape", true).size(), 2u);  // one per side
  EXPECT_DIAG(errors("x.shape == w.shape", true).at(0), 0u, "shape values are not available in C++ checks");
  EXPECT_DIAG(error("len(x.shape) == 2", true), 4u, "shape values are not available in C++ checks");
  EXPECT_DIAG(error("sizes[0] == 2", true), 0u, "shape values are not available in C++ checks");
  EXPECT_DIAG(error("len(x.shape[1:]) == 2", true), 4u, "shape values are not available in C++ checks");
  EXPECT_DIAG(error("like(x) == 1", true), 0u, "like() is not available in C++ checks");
  EXPECT_DIAG(error("dynamic() == 1", true), 0u, "dynamic() is not available in C++ checks");
  EXPECT_DIAG(error("(a or b) == float32", true), 6u,
              "the fallback of 'or' must be a DType, but 'b' is an optional dtype (ScalarType?) and may be None");
  // ... all of which Python accepts.
  EXPECT_EQ(kind("x.shape == w.shape"), ValueKind::Bool);
  EXPECT_EQ(python("x.shape == [w.size(0), n]"), "x.shape == (w.size(0), n)");
  EXPECT_EQ(kind("(a or b) == float32"), ValueKind::Bool);
}

// ---------------------------------------------------------------------------
// Python rendering details
// ---------------------------------------------------------------------------

TEST_F(ExprTest, PythonNamesAndDefaults) {
  use_schema("f(Tensor a, Tensor b, int n) -> Tensor");
  EXPECT_EQ(python("empty([n])"), "torch.empty((n,), dtype=a.dtype, device=a.device)");
  EXPECT_EQ(python("empty([n])", "b"), "torch.empty((n,), dtype=a.dtype, device=b.device)");
  EXPECT_EQ(python("empty([n], device=b, dtype=int64)"), "torch.empty((n,), dtype=torch.int64, device=b.device)");
  EXPECT_EQ(python("like(a, device=b)"), "torch.empty_like(a, device=b.device)");
  EXPECT_EQ(python("min(n, a.size(0))"), "torch.sym_min(n, a.size(0))");
  EXPECT_EQ(python("max(n, 1)"), "torch.sym_max(n, 1)");
  EXPECT_EQ(python("ceil_div(n + 1, a.size(0) - 1)"), "(n + 1 + (a.size(0) - 1) - 1) // (a.size(0) - 1)");
  EXPECT_EQ(python("dynamic()"), "torch.library.get_ctx().new_dynamic_size()");
  EXPECT_EQ(python("dynamic(max=64, min=1)"), "torch.library.get_ctx().new_dynamic_size(min=1, max=64)");
  EXPECT_EQ(python("a.dtype == float8_e5m2"), "a.dtype == torch.float8_e5m2");
}

TEST_F(ExprTest, ArgumentsShadowDtypeNames) {
  use_schema("f(Tensor x, int half, ScalarType float32) -> Tensor");
  EXPECT_EQ(kind("half"), ValueKind::Int);
  EXPECT_EQ(python("like(x, dtype=float32)"), "torch.empty_like(x, dtype=float32)");
  EXPECT_EQ(python("like(x, dtype=float16)"), "torch.empty_like(x, dtype=torch.float16)");
}

TEST_F(ExprTest, ArgumentsMustNotShadowWhatRenderingsCall) {
  use_schema("f(Tensor x, Tensor[] xs, int len) -> Tensor");
  EXPECT_DIAG(error("len(xs) == 2"), 0u,
              "len() cannot be used here: 'len' is an argument of this op, which would shadow Python's 'len' in "
              "the generated fake");
  EXPECT_EQ(kind("len + 1"), ValueKind::Int);
}

TEST_F(ExprTest, RenderingIsDeterministic) {
  use_schema("f(Tensor x, Tensor[] xs, ScalarType? out_dtype=None) -> Tensor");
  const std::string text = "empty([*x.shape[:-1], len(xs), ceil_div(x.size(-1), 32)], dtype=out_dtype or x.dtype)";
  const std::string first = python(text);
  EXPECT_EQ(first,
            "torch.empty((*x.shape[:-1], len(xs), (x.size(-1) + 32 - 1) // 32), dtype=out_dtype or x.dtype, "
            "device=x.device)");
  for (int i = 0; i < 3; ++i) EXPECT_EQ(python(text), first);
}

TEST_F(ExprTest, ReferencedNames) {
  use_schema("f(Tensor a, Tensor b, Tensor c, int n, ScalarType? out_dtype=None) -> Tensor");
  env_.lets["m"] = ValueKind::Int;
  auto names = [&](std::string_view text) { return referenced_names(*parse(text), env_); };
  using V = std::vector<std::string>;
  EXPECT_EQ(names("b.size(0) == n and b.dim() == 2"), (V{"b", "n"}));
  // empty() without dtype=/device= reads the first Tensor argument.
  EXPECT_EQ(names("empty([c.size(0), m])"), (V{"c", "m", "a"}));
  EXPECT_EQ(names("empty([c.size(0)], dtype=float32, device=b)"), (V{"c", "b"}));
  EXPECT_EQ(names("like(b, dtype=out_dtype or float32)"), (V{"b", "out_dtype"}));
  // Source order, also for conditionals.
  EXPECT_EQ(names("c.size(0) if n > 0 else b.size(0)"), (V{"c", "n", "b"}));
  EXPECT_EQ(names("min(n, n)"), (V{"n"}));
  EXPECT_EQ(names("unknown + len(a)"), (V{"a"}));
}

// Each renderer visits a node once: a deep chain renders in linear time.
TEST_F(ExprTest, DeepChainsRenderQuickly) {
  use_schema("f(Tensor x, int n) -> Tensor");
  std::string chain = "1";
  for (int i = 0; i < 90; ++i) chain += i % 2 ? " - 1" : " * 1";
  EXPECT_EQ(kind(chain + " == n"), ValueKind::Bool);
  EXPECT_EQ(cpp(chain + " == n").substr(0, 64), "static_cast<int64_t>(1) * 1 - static_cast<int64_t>(1) * 1 - stat");
  EXPECT_EQ(python(chain + " == n").substr(0, 20), "1 * 1 - 1 * 1 - 1 * ");
}

// Random token soup must never crash or hang any stage.
TEST_F(ExprTest, TokenSoupNeverCrashes) {
  use_schema("f(Tensor x, Tensor? s, Tensor[] xs, int n, int[] sz, ScalarType? d=None, bool b=False) -> Tensor");
  env_.lets["k"] = ValueKind::Int;
  const std::vector<std::string> pieces = {
      "x", "s", "xs", "n", "sz", "d", "b", "k", "float32", "channels_last", "0", "1", "-1", "2.5",
      "+", "-", "*", "//", "%", "==", "<", ">=", "and", "or", "not", "is", "None", "if", "else",
      "(", ")", "[", "]", ",", ":", ".", "=", "size", "shape", "dtype", "dim", "numel", "like",
      "empty", "ceil_div", "round_up", "min", "max", "len", "like_each", "dynamic", "dtype=",
      "device=", "True", "*x.shape", "empty_strided", "memory_format=", "max="};
  std::mt19937 rng(1234);
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    const int n = std::uniform_int_distribution<int>(1, 14)(rng);
    for (int j = 0; j < n; ++j)
      text += pieces[std::uniform_int_distribution<size_t>(0, pieces.size() - 1)(rng)] + " ";
    auto parsed = parse_expr(text);
    if (!std::holds_alternative<ExprPtr>(parsed)) continue;
    const Expr& e = *std::get<ExprPtr>(parsed);
    (void)referenced_names(e, env_);
    if (std::holds_alternative<ValueKind>(check_expr(e, env_))) (void)render_python(e, env_, "");
    if (std::holds_alternative<ValueKind>(check_cpp_expr(e, env_))) (void)render_cpp(e, env_, CppAbi::Stable);
  }
}

// ---------------------------------------------------------------------------
// The 20 patterns of shared/corpus/fake_shape_patterns.md
// ---------------------------------------------------------------------------

// 1. Output dtype is a fixed literal.
TEST_F(ExprTest, Pattern01FixedDtype) {
  use_schema("opgen::offsets(Tensor tokens) -> Tensor");
  EXPECT_EQ(python("empty([tokens.size(0) + 1], dtype=int32)"),
            "torch.empty((tokens.size(0) + 1,), dtype=torch.int32, device=tokens.device)");
}

// 2. Same shape as an input.
TEST_F(ExprTest, Pattern02SameShapeAsInput) {
  use_schema("opgen::rms_norm(Tensor input, Tensor weight, float eps) -> Tensor");
  EXPECT_EQ(python("like(input)"), "torch.empty_like(input)");
}

// 3. Dtype copied from an input, shape computed.
TEST_F(ExprTest, Pattern03DtypeFromInput) {
  use_schema("opgen::attention(Tensor q, Tensor k, Tensor v) -> Tensor");
  EXPECT_EQ(python("empty([q.size(0), q.size(1), q.size(2), v.size(-1)], dtype=v.dtype, device=q)"),
            "torch.empty((q.size(0), q.size(1), q.size(2), v.size(-1)), dtype=v.dtype, device=q.device)");
}

// 4. Tuple of outputs: one rule per return.
TEST_F(ExprTest, Pattern04TupleOfOutputs) {
  use_schema("opgen::merge_state(Tensor v_a, Tensor s_a, Tensor v_b, Tensor s_b) -> (Tensor, Tensor)");
  EXPECT_EQ(kind("like(v_a)"), ValueKind::Output);
  EXPECT_EQ(python("like(v_a)"), "torch.empty_like(v_a)");
  EXPECT_EQ(python("like(s_a, dtype=float32)"), "torch.empty_like(s_a, dtype=torch.float32)");
}

// 5. Quantized output dtype.
TEST_F(ExprTest, Pattern05QuantizedDtype) {
  use_schema("opgen::quantize_fp8(Tensor input, Tensor? scale=None) -> (Tensor, Tensor)");
  EXPECT_EQ(python("like(input, dtype=float8_e4m3fn)"), "torch.empty_like(input, dtype=torch.float8_e4m3fn)");
  EXPECT_EQ(python("empty([], dtype=float32)"), "torch.empty((), dtype=torch.float32, device=input.device)");
}

// 6. GEMM (M, N) with the activation's leading dims and an optional out_dtype.
TEST_F(ExprTest, Pattern06Gemm) {
  use_schema("opgen::scaled_mm(Tensor a, Tensor b, Tensor scale_a, Tensor scale_b, ScalarType? out_dtype=None) -> Tensor");
  EXPECT_EQ(python("empty([*a.shape[:-1], b.size(0)], dtype=out_dtype or a.dtype)"),
            "torch.empty((*a.shape[:-1], b.size(0)), dtype=out_dtype or a.dtype, device=a.device)");
}

// 7. Named dims unpacked and rebuilt (BSHD -> BHSD), inline or through lets.
TEST_F(ExprTest, Pattern07NamedDims) {
  use_schema("opgen::to_bhsd(Tensor q) -> Tensor");
  EXPECT_EQ(python("empty([q.size(0), q.size(2), q.size(1), q.size(3)])"),
            "torch.empty((q.size(0), q.size(2), q.size(1), q.size(3)), dtype=q.dtype, device=q.device)");
  EXPECT_EQ(python("q.shape[1]"), "q.shape[1]");  // let: {S: "q.shape[1]", ...}
  for (const char* dim : {"B", "S", "H", "D"}) env_.lets[dim] = ValueKind::Int;
  EXPECT_EQ(python("empty([B, H, S, D])"), "torch.empty((B, H, S, D), dtype=q.dtype, device=q.device)");
}

// 8. Mutating op: no fake rule; its input checks render to both languages.
TEST_F(ExprTest, Pattern08MutatingOpChecks) {
  use_schema("opgen::apply_rope(Tensor(a!) q, Tensor(b!) k, Tensor cos_sin) -> ()");
  EXPECT_EQ(python("q.size(-1) == cos_sin.size(-1) and k.shape[:-1] == q.shape[:-1]"),
            "q.size(-1) == cos_sin.size(-1) and k.shape[:-1] == q.shape[:-1]");
  EXPECT_EQ(cpp("q.size(-1) == cos_sin.size(-1) and k.size(0) == q.size(0)"),
            "q.size(-1) == cos_sin.size(-1) && k.size(0) == q.size(0)");
}

// 9. Shape from a shared helper: the usual conv output-size formula, written
// inline; a helper that needs real code goes through `fake: {python: ...}`.
TEST_F(ExprTest, Pattern09HelperFormulaInline) {
  use_schema("opgen::qconv2d(Tensor input, Tensor weight, int[] stride, int[] padding, int[] dilation) -> Tensor");
  EXPECT_EQ(python("empty([input.size(0), weight.size(0), "
                   "(input.size(2) + 2 * padding[0] - dilation[0] * (weight.size(2) - 1) - 1) // stride[0] + 1, "
                   "(input.size(3) + 2 * padding[1] - dilation[1] * (weight.size(3) - 1) - 1) // stride[1] + 1])"),
            "torch.empty((input.size(0), weight.size(0), "
            "(input.size(2) + 2 * padding[0] - dilation[0] * (weight.size(2) - 1) - 1) // stride[0] + 1, "
            "(input.size(3) + 2 * padding[1] - dilation[1] * (weight.size(3) - 1) - 1) // stride[1] + 1), "
            "dtype=input.dtype, device=input.device)");
}

// 10. Auxiliary float32 output (logsumexp).
TEST_F(ExprTest, Pattern10AuxiliaryFloat32) {
  use_schema("opgen::flash_fwd(Tensor q, Tensor k, Tensor v) -> (Tensor, Tensor)");
  EXPECT_EQ(python("empty([q.size(0), q.size(2), q.size(1)], dtype=float32)"),
            "torch.empty((q.size(0), q.size(2), q.size(1)), dtype=torch.float32, device=q.device)");
}

// 11. Dtype from a ScalarType argument with a fallback, or chosen by a condition.
TEST_F(ExprTest, Pattern11DtypeArgumentWithFallback) {
  use_schema("opgen::w4a8_mm(Tensor a, Tensor b, Tensor scales, ScalarType? out_dtype=None) -> Tensor");
  EXPECT_EQ(python("empty([a.size(0), b.size(1)], dtype=out_dtype or bfloat16)"),
            "torch.empty((a.size(0), b.size(1)), dtype=out_dtype or torch.bfloat16, device=a.device)");
  EXPECT_EQ(python("empty([a.size(0), b.size(1)], "
                   "dtype=a.dtype if a.dtype == float16 or a.dtype == bfloat16 else scales.dtype)"),
            "torch.empty((a.size(0), b.size(1)), "
            "dtype=a.dtype if a.dtype == torch.float16 or a.dtype == torch.bfloat16 else scales.dtype, "
            "device=a.device)");
}

// 12. Packing factor on the last dim.
TEST_F(ExprTest, Pattern12PackingFactor) {
  use_schema("opgen::fp4_quantize(Tensor x, Tensor qweight, Tensor scales) -> (Tensor, Tensor)");
  EXPECT_EQ(python("empty([*x.shape[:-1], x.size(-1) // 2], dtype=uint8)"),
            "torch.empty((*x.shape[:-1], x.size(-1) // 2), dtype=torch.uint8, device=x.device)");
  EXPECT_EQ(python("empty([qweight.size(0), qweight.size(1) * 8], dtype=scales.dtype)"),
            "torch.empty((qweight.size(0), qweight.size(1) * 8), dtype=scales.dtype, device=x.device)");
}

// 13. Leading dims kept, last dim replaced.
TEST_F(ExprTest, Pattern13LeadingDimsKept) {
  use_schema("opgen::linear(Tensor x, Tensor weight) -> Tensor");
  EXPECT_EQ(python("empty([*x.shape[:-1], weight.size(0)])"),
            "torch.empty((*x.shape[:-1], weight.size(0)), dtype=x.dtype, device=x.device)");
}

// 14. Size divided by a group or block size, ceil-div and round-up to a tile.
TEST_F(ExprTest, Pattern14GroupAndBlockSizes) {
  use_schema("opgen::mxfp8_quantize(Tensor x, SymInt group_size) -> (Tensor, Tensor)");
  EXPECT_EQ(python("empty([x.size(0), ceil_div(x.size(1), group_size)], dtype=float32)"),
            "torch.empty((x.size(0), (x.size(1) + group_size - 1) // group_size), dtype=torch.float32, "
            "device=x.device)");
  EXPECT_EQ(python("empty([round_up(x.size(0), 128), round_up(ceil_div(x.size(1), 32), 4)], dtype=uint8)"),
            "torch.empty(((x.size(0) + 128 - 1) // 128 * 128, ((x.size(1) + 32 - 1) // 32 + 4 - 1) // 4 * 4), "
            "dtype=torch.uint8, device=x.device)");
}

// 15. Shape from int/SymInt arguments.
TEST_F(ExprTest, Pattern15ShapeFromSymInts) {
  use_schema("opgen::marlin_gemm(Tensor a, Tensor b, SymInt size_m, SymInt size_n, SymInt size_k) -> Tensor");
  EXPECT_EQ(python("empty([size_m, size_n])"), "torch.empty((size_m, size_n), dtype=a.dtype, device=a.device)");
}

// 16. Data-dependent size through a let-bound dynamic().
TEST_F(ExprTest, Pattern16DataDependentSize) {
  use_schema("opgen::masked_select_jagged(Tensor values, Tensor mask) -> (Tensor, Tensor)");
  EXPECT_EQ(kind("dynamic(min=0)"), ValueKind::Int);
  EXPECT_EQ(python("dynamic(min=0)"), "torch.library.get_ctx().new_dynamic_size(min=0)");
  EXPECT_EQ(python("dynamic(min=1, max=4096)"), "torch.library.get_ctx().new_dynamic_size(min=1, max=4096)");
  env_.lets["n"] = ValueKind::Int;
  EXPECT_EQ(python("empty([n], dtype=values.dtype)"), "torch.empty((n,), dtype=values.dtype, device=values.device)");
  EXPECT_EQ(python("empty([n, values.size(1)], dtype=int64)"),
            "torch.empty((n, values.size(1)), dtype=torch.int64, device=values.device)");
  // torch takes only statically known bounds.
  ExprDiagnostic d = error("dynamic(min=0, max=values.numel())");
  EXPECT_DIAG(d, 19u, "max= of dynamic() must be an integer literal");
  EXPECT_EQ(d.note,
            "torch's new_dynamic_size() needs statically known bounds, and sizes such as x.size(0) are "
            "symbolic under dynamic shapes");
  EXPECT_DIAG(error("dynamic(min=-1)"), 12u, "min= of dynamic() must be an integer literal");
  EXPECT_DIAG(error("dynamic(min=8, max=4)"), 19u, "max= of dynamic() is below its min=");
}

// 17. Scalar or 0-element placeholder outputs.
TEST_F(ExprTest, Pattern17Placeholders) {
  use_schema("opgen::flash_attn(Tensor q, Tensor k, Tensor v) -> (Tensor, Tensor, Tensor)");
  EXPECT_EQ(python("empty([0], dtype=float32)"), "torch.empty((0,), dtype=torch.float32, device=q.device)");
  EXPECT_EQ(python("empty([])"), "torch.empty((), dtype=q.dtype, device=q.device)");
}

// 18. Explicit strides or memory format.
TEST_F(ExprTest, Pattern18StridesAndMemoryFormat) {
  use_schema("opgen::mxfp8_quantize_cm(Tensor x) -> (Tensor, Tensor)");
  EXPECT_EQ(python("like(x, memory_format=contiguous_format)"),
            "torch.empty_like(x, memory_format=torch.contiguous_format)");
  EXPECT_EQ(python("empty(x.shape, memory_format=channels_last)"),
            "torch.empty(x.shape, dtype=x.dtype, device=x.device, memory_format=torch.channels_last)");
  EXPECT_EQ(python("empty_strided([x.size(0), x.size(1) // 32], [1, x.size(0)], dtype=uint8)"),
            "torch.empty_strided((x.size(0), x.size(1) // 32), (1, x.size(0)), dtype=torch.uint8, "
            "device=x.device)");
}

// 19. List-of-tensors output, one per input of a Tensor[].
TEST_F(ExprTest, Pattern19ListOutputs) {
  use_schema("opgen::batch_quantize(Tensor[] xs, Tensor t) -> Tensor[]");
  EXPECT_EQ(kind("like_each(xs)"), ValueKind::OutputList);
  EXPECT_EQ(python("like_each(xs)"), "[torch.empty_like(t) for t in xs]");
  EXPECT_EQ(python("like_each(xs, dtype=float8_e4m3fn)"),
            "[torch.empty_like(t, dtype=torch.float8_e4m3fn) for t in xs]");
  // The loop variable steps aside for an argument the rule reads.
  EXPECT_EQ(python("like_each(xs, dtype=t.dtype)"), "[torch.empty_like(t_, dtype=t.dtype) for t_ in xs]");
}

// sum_numel: the elements of a whole list, for multi-tensor FLOP counts.
TEST_F(ExprTest, SumNumelCountsTheElementsOfAList) {
  use_schema("opgen::adam_(Tensor(a!)[] params, Tensor t, int step) -> ()");
  EXPECT_EQ(kind("15 * sum_numel(params)"), ValueKind::Int);
  EXPECT_EQ(python("15 * sum_numel(params)"), "15 * sum(t.numel() for t in params)");
  // The comprehension's `t` is its own (Python 3 scoping): the `t` outside is the argument.
  EXPECT_EQ(python("sum_numel(params) + t.numel()"), "sum(t.numel() for t in params) + t.numel()");
  EXPECT_DIAG(error("sum_numel(t)"), 10u, "argument 'xs' of sum_numel() must be Tensor[], not Tensor");
}

// 20. Real torch ops on the fake inputs: not expressible; the error says where to go.
TEST_F(ExprTest, Pattern20RealOpsNeedAPythonFake) {
  use_schema("opgen::channels_last_conv(Tensor x, Tensor w) -> Tensor");
  ExprDiagnostic d = error("conv2d(x, w)");
  EXPECT_DIAG(d, 0u, "unknown function 'conv2d'");
  EXPECT_EQ(d.note,
            "rules call only the builtins in docs/fake-rules.md; a fake that needs real torch ops is written in "
            "Python (fake: {python: module:function})");
  EXPECT_DIAG(error("x @ w"), 2u, "'@' is not supported");
}

}  // namespace
}  // namespace opgen::model
