// libFuzzer target: the rule-expression language (model/expr.h): parse_expr,
// then check_expr / check_cpp_expr against a few fixed schemas, then every
// renderer on what checks.
//
// Invariants, beyond "no crash, leak or undefined behaviour":
//  - diagnostic columns lie within the text (or just past its end);
//  - the C++ subset is a subset: what check_cpp_expr accepts, check_expr
//    accepts with the same kind;
//  - renderers give non-empty text for every checked expression;
//  - the evaluator (model/expr_eval.h) gives an Int expression an int or no
//    value, a Bool one a bool or none: never a value of another kind.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "model/expr.h"
#include "model/expr_eval.h"
#include "model/schema.h"

namespace {

using namespace opgen::model;

[[noreturn]] void fail(const char* what, std::string_view text) {
  std::fprintf(stderr, "fuzz_expr: %s\n  [%.*s]\n", what, static_cast<int>(text.size()), text.data());
  std::abort();
}

struct Env {
  FunctionSchema schema;
  ExprEnv env;
};

Env make_env(const char* schema_text, std::map<std::string, ValueKind> lets) {
  auto parsed = parse_schema(schema_text);
  if (!std::holds_alternative<FunctionSchema>(parsed)) fail("a fixed schema does not parse", schema_text);
  return {std::get<FunctionSchema>(std::move(parsed)), {nullptr, std::move(lets)}};
}

// Every kind of argument rules can use (and two they cannot), a schema whose
// default tensor is a list element, and one with no tensor at all whose
// arguments shadow dtype names.
std::vector<Env>& envs() {
  static std::vector<Env> all = [] {
    std::vector<Env> out;
    out.push_back(make_env(
        "f(Tensor x, Tensor w, Tensor? s, Tensor[] xs, int n, SymInt m, float eps, bool b, str mode, int[] sz, "
        "SymInt[] ss, ScalarType dt, ScalarType? d=None, MemoryFormat mf, int? k=None, Tensor?[] maybe) -> Tensor",
        {{"u", ValueKind::Int}, {"v", ValueKind::Int}}));
    out.push_back(make_env("g(Tensor[] xs, int n, ScalarType? out_dtype=None) -> Tensor[]", {}));
    out.push_back(make_env("h(int n, int half, ScalarType float32) -> Tensor", {{"u", ValueKind::Int}}));
    for (Env& e : out) e.env.schema = &e.schema;  // after the moves
    return out;
  }();
  return all;
}

// Values for the first schema's arguments, odd sizes included (0, 1, large).
const EvalBindings& bindings() {
  static const EvalBindings values = {
      {"x", EvalTensor{{3, 0, 1 << 20}, "float32"}}, {"w", EvalTensor{{7}, "bfloat16"}}, {"s", EvalNone{}},
      {"xs", std::vector<EvalTensor>{{{2, 3}, "float32"}, {{}, "float32"}}}, {"n", int64_t{-5}},
      {"m", int64_t{INT64_MAX}}, {"eps", 1e-6}, {"b", false}, {"mode", std::string("sum")},
      {"sz", EvalShape{{4, 1}}}, {"ss", EvalShape{}}, {"dt", EvalDType{"float16"}}, {"d", EvalNone{}},
      {"u", int64_t{9}}, {"v", int64_t{0}}};
  return values;
}

void check_columns(const std::vector<ExprDiagnostic>& diags, std::string_view text) {
  for (const auto& d : diags)
    if (d.column > text.size()) fail("diagnostic column past the end of the text", text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = parse_expr(text);
  if (auto* diag = std::get_if<ExprDiagnostic>(&parsed)) {
    check_columns({*diag}, text);
    return 0;
  }
  const Expr& expr = *std::get<ExprPtr>(parsed);
  for (const Env& e : envs()) {
    auto checked = check_expr(expr, e.env);
    auto checked_cpp = check_cpp_expr(expr, e.env);
    if (auto* diags = std::get_if<std::vector<ExprDiagnostic>>(&checked)) {
      check_columns(*diags, text);
      if (std::holds_alternative<ValueKind>(checked_cpp)) fail("check_cpp_expr accepts what check_expr rejects", text);
      continue;
    }
    (void)referenced_names(expr, e.env);
    if (&e == &envs().front()) {
      const ValueKind kind = std::get<ValueKind>(checked);
      const auto value = evaluate(expr, bindings());
      if (value && kind == ValueKind::Int && !std::holds_alternative<int64_t>(*value))
        fail("evaluate gave an Int expression a value of another kind", text);
      if (value && kind == ValueKind::Bool && !std::holds_alternative<bool>(*value))
        fail("evaluate gave a Bool expression a value of another kind", text);
    }
    if (render_python(expr, e.env, "").empty() || render_python(expr, e.env, "xs[0]").empty())
      fail("render_python gave nothing", text);
    if (auto* diags = std::get_if<std::vector<ExprDiagnostic>>(&checked_cpp)) {
      check_columns(*diags, text);
      continue;
    }
    if (std::get<ValueKind>(checked_cpp) != std::get<ValueKind>(checked))
      fail("check_cpp_expr and check_expr disagree on the kind", text);
    if (render_cpp(expr, e.env, CppAbi::Stable).empty() || render_cpp(expr, e.env, CppAbi::Unstable).empty())
      fail("render_cpp gave nothing", text);
  }
  return 0;
}
