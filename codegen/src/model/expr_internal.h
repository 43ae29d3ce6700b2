// Internal declarations of the rule-expression language, shared by the files
// it is split into (model/expr.h is its public interface; only those files
// include this header):
//   expr_tables.cpp  table lookups, name resolution, to_string / value_kind_of,
//                    ExprEnv
//   expr_parse.cpp   lexer and parser: parse_expr
//   expr_check.cpp   type checker: check_expr, check_cpp_expr
//   expr_render.cpp  desugaring, the Python and C++ renderers and the builtin
//                    table: render_python, render_cpp, referenced_names
// docs/fake-rules.md is the user-facing reference; each table here (and the
// builtin table in expr_render.cpp) has a section there, so a change here is
// a change there.
//
// Rule text comes from YAML files and is fuzzed, so nothing here may crash on
// any input: the parser bounds its recursion and the height of the tree it
// builds (kMaxExprDepth), which bounds every later recursive pass too.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/expr.h"
#include "model/types.h"

namespace opgen::model::detail {

using Kind = Expr::Kind;

// ---------------------------------------------------------------------------
// Tables: value kinds, schema types, names, members, operators
// ---------------------------------------------------------------------------

inline constexpr std::array<std::pair<ValueKind, std::string_view>, 13> kKindNames = {{
    {ValueKind::Int, "Int"},
    {ValueKind::Bool, "Bool"},
    {ValueKind::Float, "Float"},
    {ValueKind::String, "String"},
    {ValueKind::Tensor, "Tensor"},
    {ValueKind::OptionalTensor, "Tensor?"},
    {ValueKind::TensorList, "Tensor[]"},
    {ValueKind::Shape, "Shape"},
    {ValueKind::DType, "DType"},
    {ValueKind::OptionalDType, "DType?"},
    {ValueKind::MemoryFormat, "MemoryFormat"},
    {ValueKind::Output, "Output"},
    {ValueKind::OutputList, "Output[]"},
}};

// A set of kinds: what a parameter or an operand accepts.
class KindSet {
 public:
  constexpr KindSet(std::initializer_list<ValueKind> kinds) {
    for (ValueKind k : kinds) bits_ |= bit(k);
  }
  constexpr bool contains(ValueKind k) const { return (bits_ & bit(k)) != 0; }
  // "Int", "Int or Float", "Tensor[] or Shape": in kKindNames order.
  std::string to_string() const {
    std::vector<std::string_view> names;
    for (const auto& [kind, name] : kKindNames)
      if (contains(kind)) names.push_back(name);
    std::string out;
    for (size_t i = 0; i < names.size(); ++i) {
      if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
      out += names[i];
    }
    return out;
  }

 private:
  static constexpr uint32_t bit(ValueKind k) { return uint32_t{1} << static_cast<unsigned>(k); }
  uint32_t bits_ = 0;
};

// Schema argument types rules can read, keyed by model/types.h's type_key
// (aliases dropped, `int[2]` -> `int[]`). Anything else is an error naming
// the type when a rule mentions the argument.
inline constexpr std::array<std::pair<std::string_view, ValueKind>, 13> kSchemaKinds = {{
    {"Tensor", ValueKind::Tensor},
    {"Tensor?", ValueKind::OptionalTensor},
    {"Tensor[]", ValueKind::TensorList},
    {"int", ValueKind::Int},
    {"SymInt", ValueKind::Int},
    {"float", ValueKind::Float},
    {"bool", ValueKind::Bool},
    {"str", ValueKind::String},
    {"ScalarType", ValueKind::DType},
    {"ScalarType?", ValueKind::OptionalDType},
    {"int[]", ValueKind::Shape},
    {"SymInt[]", ValueKind::Shape},
    {"MemoryFormat", ValueKind::MemoryFormat},
}};

inline constexpr std::string_view kUsableTypesNote =
    "rules can use arguments of type Tensor, Tensor?, Tensor[], int, SymInt, float, bool, str, "
    "ScalarType, ScalarType?, int[], SymInt[] and MemoryFormat";

// Dtype names come from model/types.h (one table for rules and `checks:`);
// memory formats are only meaningful to rules, so they live here.
struct MemoryFormatInfo {
  std::string_view name;
  std::string_view python;
};
inline constexpr std::array<MemoryFormatInfo, 4> kMemoryFormats = {{
    {"contiguous_format", "torch.contiguous_format"},
    {"channels_last", "torch.channels_last"},
    {"channels_last_3d", "torch.channels_last_3d"},
    {"preserve_format", "torch.preserve_format"},
}};

const MemoryFormatInfo* find_memory_format(std::string_view name);

// torch's dtype aliases are not accepted (`int` and `float` read too much like
// Python types); an unknown-name error for one names the canonical spelling.
inline constexpr std::array<std::pair<std::string_view, std::string_view>, 8> kDTypeAliases = {{
    {"float", "float32"},
    {"double", "float64"},
    {"half", "float16"},
    {"long", "int64"},
    {"int", "int32"},
    {"short", "int16"},
    {"cfloat", "complex64"},
    {"cdouble", "complex128"},
}};

// Other unknown names with a known cause.
inline constexpr std::array<std::pair<std::string_view, std::string_view>, 3> kNameHints = {{
    {"torch", "rules name dtypes and memory formats without 'torch.': float32, channels_last"},
    {"true", "booleans are spelled True and False"},
    {"false", "booleans are spelled True and False"},
}};

// Members of a Tensor value. Methods take Int positional arguments only.
struct TensorMember {
  std::string_view name;
  bool is_method;
  size_t arity;           // methods: number of Int arguments
  ValueKind result;
  std::string_view cpp;   // spelling after `x.` in C++; "" when C++ has no form
};
inline constexpr std::array<TensorMember, 7> kTensorMembers = {{
    {"size", true, 1, ValueKind::Int, "size"},
    {"stride", true, 1, ValueKind::Int, "stride"},
    {"dim", true, 0, ValueKind::Int, "dim"},
    {"numel", true, 0, ValueKind::Int, "numel"},
    {"shape", false, 0, ValueKind::Shape, ""},  // C++ only as x.shape[i] -> x.size(i)
    {"dtype", false, 0, ValueKind::DType, "scalar_type()"},
    {"ndim", false, 0, ValueKind::Int, "dim()"},
}};

const TensorMember* find_member(std::string_view name);

// Precedence levels, loosest first. The Python levels are also the parser's:
// one parsing function per level, as in Python's grammar.
enum PyPrec : int {
  kPyCond = 1,  // a if c else b
  kPyOr,
  kPyAnd,
  kPyNot,
  kPyCompare,   // == != < <= > >= is; never chained
  kPySum,       // + -
  kPyTerm,      // * // %
  kPyUnary,     // -x
  kPyAtom,      // names, literals, calls, x.a, x[i], (...), [...]
};
enum CppPrec : int {
  kCppCond = 1,  // rendered self-parenthesized
  kCppOr,
  kCppAnd,
  kCppEquality,
  kCppRelational,
  kCppSum,
  kCppTerm,
  kCppUnary,     // -x !x *x
  kCppAtom,
};

enum class OpClass { Arith, Compare, Logic };
struct BinaryOp {
  std::string_view text;  // as written in rules, and in Python
  OpClass cls;
  int py_prec;
  int cpp_prec;
  std::string_view cpp;   // "" where the C++ renderer spells it specially
};
inline constexpr std::array<BinaryOp, 15> kBinaryOps = {{
    {"or", OpClass::Logic, kPyOr, kCppOr, "||"},
    {"and", OpClass::Logic, kPyAnd, kCppAnd, "&&"},
    {"==", OpClass::Compare, kPyCompare, kCppEquality, "=="},
    {"!=", OpClass::Compare, kPyCompare, kCppEquality, "!="},
    {"<", OpClass::Compare, kPyCompare, kCppRelational, "<"},
    {"<=", OpClass::Compare, kPyCompare, kCppRelational, "<="},
    {">", OpClass::Compare, kPyCompare, kCppRelational, ">"},
    {">=", OpClass::Compare, kPyCompare, kCppRelational, ">="},
    {"is", OpClass::Compare, kPyCompare, kCppUnary, ""},      // x is None -> !x.has_value()
    {"is not", OpClass::Compare, kPyCompare, kCppAtom, ""},   // x.has_value()
    {"+", OpClass::Arith, kPySum, kCppSum, "+"},
    {"-", OpClass::Arith, kPySum, kCppSum, "-"},
    {"*", OpClass::Arith, kPyTerm, kCppTerm, "*"},
    {"//", OpClass::Arith, kPyTerm, kCppTerm, "/"},  // "/" only where truncation == floor
    {"%", OpClass::Arith, kPyTerm, kCppTerm, "%"},   // likewise
}};

const BinaryOp* find_binary_op(std::string_view text);

// ---------------------------------------------------------------------------
// Name resolution, shared by the checker, the renderers and referenced_names
// ---------------------------------------------------------------------------

struct Resolved {
  enum class What { Unknown, Let, Argument, DType, MemoryFormat };
  What what = What::Unknown;
  std::optional<ValueKind> kind;  // nullopt: an argument whose type rules cannot use
  const Argument* arg = nullptr;
  const DTypeInfo* dtype = nullptr;
  const MemoryFormatInfo* format = nullptr;
};

Resolved resolve(const ExprEnv& env, const std::string& name);

// Names of optional values that `cond` evaluating to `when` proves non-None:
// `x is not None` (true), `x is None` (false), through and/or/not. The
// checker types the right side of `and`/`or` and the branches of `if` under
// these, which is what makes `s is None or s.size(0) == n` well-typed.
void collect_narrowed(const Expr& cond, bool when, std::vector<std::string>& out);

// ---------------------------------------------------------------------------
// Helpers shared by the parser, the checker and the renderers
// ---------------------------------------------------------------------------

template <size_t N>
bool contains(const std::array<std::string_view, N>& list, std::string_view word) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

// Calls `fn` on each child of `e` in source order.
template <typename Fn>
void for_each_child(const Expr& e, Fn&& fn) {
  if (e.kind == Kind::Conditional && e.operands.size() == 3) {
    fn(*e.operands[1]);
    fn(*e.operands[0]);
    fn(*e.operands[2]);
    return;
  }
  for (const ExprPtr& op : e.operands)
    if (op) fn(*op);
  for (const Expr::Keyword& kw : e.keywords)
    if (kw.value) fn(*kw.value);
  for (const ExprPtr& part : {e.index, e.slice_lower, e.slice_upper})
    if (part) fn(*part);
}

// ---------------------------------------------------------------------------
// Builtin functions (the table rows need the renderers: expr_render.cpp)
// ---------------------------------------------------------------------------

struct Rendered {
  std::string text;
  int prec;                    // PyPrec or CppPrec of the outermost operator
  std::string_view op = {};    // that operator as written in rules; "" for atoms
};

class PythonRenderer;
class CppRenderer;

struct Param {
  std::string_view name;
  KindSet kinds;
  // Must be an integer literal: torch's new_dynamic_size() rejects symbolic
  // bounds, and a size like x.size(0) is symbolic under dynamic shapes.
  bool literal = false;
};
struct Builtin {
  std::string_view name;
  std::vector<Param> positional = {};  // positional-only, all required
  std::vector<Param> keywords = {};    // keyword-only, all optional; rendered in this order
  ValueKind result = ValueKind::Int;
  // dtype= and device= default to ExprEnv::default_tensor().
  bool tensor_defaults = false;
  // In C++ checks, its Shape argument may be an int[] argument's name (len).
  bool shape_name_in_cpp = false;
  // The Python global its rendering calls; an argument or let of that name
  // would shadow it inside the generated fake.
  std::string_view python_global = "torch";
  Rendered (*python)(PythonRenderer&, const Builtin&, const Expr& call) = nullptr;
  Rendered (*cpp)(CppRenderer&, const Builtin&, const Expr& call) = nullptr;  // nullptr: Python only
};
const Builtin* find_builtin(std::string_view name);
std::vector<std::string> builtin_names();
const Expr* keyword_arg(const Expr& call, std::string_view name);

// ---------------------------------------------------------------------------
// Type checker (expr_check.cpp; render_cpp runs it for each node's kind)
// ---------------------------------------------------------------------------

class Checker {
 public:
  using Result = std::optional<ValueKind>;  // nullopt: an error was reported

  // `kinds`, when given, receives each checked node's kind (render_cpp reads
  // optional-ness and narrowing from it).
  Checker(const ExprEnv& env, bool cpp, std::unordered_map<const Expr*, ValueKind>* kinds = nullptr)
      : env_(env), cpp_(cpp), kinds_(kinds) {}

  Result check(const Expr& e);

  std::vector<ExprDiagnostic> take_diagnostics() { return std::move(diags_); }

 private:
  void error(Code code, size_t column, std::string message, std::string_view note = {});
  Result check_node(const Expr& e);
  Result expect(const Expr& e, KindSet want, std::string_view what);
  bool require_kind(const Expr& e, ValueKind found, KindSet want, std::string_view what);
  void type_error(const Expr& e, KindSet want, ValueKind found, std::string_view what);
  ValueKind narrowed(const std::string& name, ValueKind kind) const;
  Result with_narrowing(const Expr& cond, bool when, const Expr& e);
  Result check_name(const Expr& e);
  std::string unknown_name_note(const std::string& name) const;
  bool require_tensor(const Expr& object, ValueKind kind, std::string_view member);
  const TensorMember* member_of(const Expr& attr, Result object_kind);
  Result check_attribute(const Expr& e);
  void check_arguments(const Expr& call);
  Result check_call(const Expr& call);
  Result check_method(const Expr& call);
  Result check_builtin(const Expr& call, const Builtin& fn);
  Result check_subscript(const Expr& e);
  Result check_unary(const Expr& e);
  Result check_binary(const Expr& e);
  static std::optional<int64_t> constant_int(const Expr& e);
  Result check_arith(const Expr& e);
  static bool is_optional(ValueKind k);
  static bool is_numeric(ValueKind k);
  static bool is_dtype(ValueKind k);
  static bool is_tensorish(ValueKind k);
  Result check_compare(const Expr& e);
  Result check_logic(const Expr& e);
  Result check_conditional(const Expr& e);
  Result check_list(const Expr& e);

  const ExprEnv& env_;
  const bool cpp_;
  std::unordered_map<const Expr*, ValueKind>* kinds_;
  std::set<std::string> narrowed_;
  const Expr* shape_ok_ = nullptr;  // the one child allowed a Shape in C++ mode
  std::vector<ExprDiagnostic> diags_;
};

}  // namespace opgen::model::detail
