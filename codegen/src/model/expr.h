// The small expression language of fake-shape rules and input checks.
//
// One parser serves both: a fake rule is an expression whose value is an
// output (`like(x)`, `empty([x.size(0), w.size(0)], dtype=float32)`), an input
// check relation is a Bool expression (`w.size(0) == x.size(-1)`), and a `let`
// binding names a value (typically `dynamic(min=0)`) shared by several outputs.
// The grammar and every builtin are documented in docs/fake-rules.md.
//
// Pipeline: parse_expr -> check_expr (types, names, arity; every problem with
// its column) -> render_python / render_cpp. Renderers assume a checked tree.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "model/schema.h"

namespace opgen::model {

// What an expression evaluates to; the type checker assigns one to each node.
enum class ValueKind {
  Int,            // int / SymInt arg, size, dim, arithmetic, dynamic()
  Bool,           // comparisons, bool args
  Float,          // float args, float literals
  String,         // str args
  Tensor,         // Tensor arg
  OptionalTensor, // Tensor? arg
  TensorList,     // Tensor[] arg
  Shape,          // x.shape, x.shape[a:b], [e, *x.shape[:-1], ...], int[] arg
  DType,          // x.dtype, float32, ScalarType arg
  OptionalDType,  // ScalarType? arg
  MemoryFormat,   // contiguous_format, channels_last, MemoryFormat arg
  Output,         // like(...), empty(...): one fake output tensor
  OutputList,     // like_each(...): a Tensor[] output
};
// "Int", "Tensor?", "Tensor[]", "DType?", ...: the spelling diagnostics use.
std::string_view to_string(ValueKind kind);

// The kind a schema argument of this type has inside expressions, or nullopt
// when rules cannot use it (`int?`, `Tensor?[]`, `Scalar`, ...).
std::optional<ValueKind> value_kind_of(const Type& type);

// Deeper expressions are rejected by parse_expr ("expression nested too
// deeply"), which bounds the recursion of every later pass.
inline constexpr size_t kMaxExprDepth = 100;

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

struct Expr {
  enum class Kind {
    IntLiteral,    // 3            (text: canonical decimal)
    FloatLiteral,  // 1.5, 1e-6    (text: as written)
    BoolLiteral,   // True / False
    NoneLiteral,   // None (only valid in `x is None` / `x is not None`)
    Name,          // x, eps, float32, contiguous_format, a let-bound name
    Attribute,     // x.dtype, x.shape         operands: {object}
    Call,          // like(x), x.size(0)       operands: {callee, positional...}
    Subscript,     // x.shape[:-1], xs[0]      operands: {object}
    Unary,         // -e, not e                operands: {operand}
    Binary,        // + - * // % == != < <= > >= is, is not, and, or
    Conditional,   // a if c else b            operands: {c, a, b} (as Python's IfExp)
    List,          // [a, *b, c]               operands: items
    Star,          // *b (only inside a List)  operands: {b}
  };
  // A keyword argument of a Call; `column` is where its name starts.
  struct Keyword {
    std::string name;
    size_t column = 0;
    ExprPtr value;
  };

  Kind kind = Kind::Name;
  size_t column = 0;     // 0-based offset of the node's first character
  size_t op_column = 0;  // what diagnostics point at: the operator of a Unary or
                         // Binary, the name of an Attribute, the '(' of a Call,
                         // the '[' of a Subscript, `if` of a Conditional;
                         // `column` for the other kinds
  std::string text;      // Name/Attribute: identifier; Binary/Unary: operator; literal text
  int64_t int_value = 0; // IntLiteral (0 .. INT64_MAX; `-1` is Unary minus)
  std::vector<ExprPtr> operands;
  std::vector<Keyword> keywords;  // Call keyword args, in source order
  // Subscript: `index` for s[i] and xs[i]; a slice sets is_slice and either bound.
  ExprPtr index, slice_lower, slice_upper;
  bool is_slice = false;
};

struct ExprDiagnostic {
  size_t column = 0;  // 0-based offset in the expression text
  std::string message;
  std::string note;   // optional: "did you mean 'input'?" etc.
  Code code;          // RuleSyntax for parse errors; the checker's by kind
};

// Parses one expression. Returns the first syntax error otherwise, including
// integer literals beyond int64 and nesting deeper than kMaxExprDepth.
std::variant<ExprPtr, ExprDiagnostic> parse_expr(std::string_view text);

// Names visible to an expression: the schema's arguments (by their schema
// types) and `let` bindings. Lookup order, innermost first: lets, schema
// arguments, then dtype and memory-format names, so an argument called
// `half` or `float32` shadows the dtype, as a Python parameter would. The
// caller keeps let names distinct from argument names.
struct ExprEnv {
  const FunctionSchema* schema = nullptr;
  std::map<std::string, ValueKind> lets;

  // The tensor whose dtype and device empty() and empty_strided() take when
  // the rule names none: the first Tensor argument (not Tensor?), else element
  // 0 of the first Tensor[] argument. nullptr if the schema has neither.
  const Argument* default_tensor_arg() const;
  // That tensor as Python spells it: "x" or "xs[0]"; "" when there is none.
  std::string default_tensor() const;
};

// Type-checks `expr` and returns its kind, or every problem found.
std::variant<ValueKind, std::vector<ExprDiagnostic>> check_expr(const Expr& expr,
                                                                const ExprEnv& env);

// check_expr, plus the restrictions of the C++ subset that render_cpp needs:
// no let names, no shape values other than `x.shape[i]` and `len(arg)`,
// Tensor[] indexes only as integer literals, no output constructors or
// dynamic(), no memory formats, and `a or b` on an optional dtype needs a
// non-optional `b`. Use it for `require:` relations.
std::variant<ValueKind, std::vector<ExprDiagnostic>> check_cpp_expr(const Expr& expr,
                                                                    const ExprEnv& env);

// Renders a checked expression as Python inside a fake/check function whose
// parameters carry the schema's argument names (and whose body has assigned
// the lets). `default_device_arg` is the tensor whose device new outputs get
// when the rule names none ("x" or "xs[0]"); empty means env.default_tensor().
std::string render_python(const Expr& expr, const ExprEnv& env,
                          const std::string& default_device_arg);

// Renders an expression that passed check_cpp_expr as one C++ expression, in
// a wrapper whose variables carry the argument names with the types of
// model/types.h. Both ABIs' tensor types spell size()/stride()/dim()/numel()/
// scalar_type() alike; dtypes differ. min/max use std::min/std::max
// (<algorithm>); a floor division or modulo whose operands are not known to
// be non-negative and positive renders as a lambda with Python semantics,
// which reports division by zero through STD_TORCH_CHECK (Stable) or
// TORCH_CHECK (Unstable).
enum class CppAbi { Stable, Unstable };
std::string render_cpp(const Expr& expr, const ExprEnv& env, CppAbi abi);

// The schema arguments and let names an expression reads, in source order
// (each once), so a fake or check only binds what it needs. An output
// constructor that relies on the default dtype or device also reads
// env.default_tensor_arg(); a `default_device_arg` passed to render_python is
// the caller's to add.
std::vector<std::string> referenced_names(const Expr& expr, const ExprEnv& env);

// The first call of the builtin `function` in `expr` (`dynamic()`), or nullptr.
const Expr* find_call(const Expr& expr, std::string_view function);

}  // namespace opgen::model
