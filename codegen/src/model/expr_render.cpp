// The rule-expression language's renderers: the desugaring both share, the
// Python renderer (fakes, Python checks) and the C++ renderer (input-check
// relations), and the builtin table, whose rows hold their renderings;
// render_python, render_cpp and referenced_names (model/expr.h). The builtin
// table is documented in docs/fake-rules.md (Builtins), so a change here is a
// change there; the other tables are in expr_internal.h.
//
// Rule text comes from YAML files and is fuzzed, so nothing here may crash on
// any input; the renderers' recursion is bounded by the height of the tree,
// which parse_expr bounds (kMaxExprDepth).
#include "model/expr.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "model/expr_internal.h"
#include "model/types.h"

namespace opgen::model::detail {
namespace {

// ---------------------------------------------------------------------------
// Desugaring shared by both renderers
// ---------------------------------------------------------------------------

ExprPtr make_binary(std::string_view op, ExprPtr left, ExprPtr right) {
  auto e = std::make_shared<Expr>();
  e->kind = Kind::Binary;
  e->column = left->column;
  e->text = op;
  e->operands = {std::move(left), std::move(right)};
  return e;
}

ExprPtr make_int(int64_t value) {
  auto e = std::make_shared<Expr>();
  e->kind = Kind::IntLiteral;
  e->text = std::to_string(value);
  e->int_value = value;
  return e;
}

// ceil_div(a, b) -> (a + b - 1) // b: exact for b > 0 and fine on SymInts.
ExprPtr desugar_ceil_div(const Expr& call) {
  const ExprPtr& a = call.operands[1];
  const ExprPtr& b = call.operands[2];
  return make_binary("//", make_binary("-", make_binary("+", a, b), make_int(1)), b);
}

// round_up(a, b) -> (a + b - 1) // b * b
ExprPtr desugar_round_up(const Expr& call) {
  return make_binary("*", desugar_ceil_div(call), call.operands[2]);
}

}  // namespace

// ---------------------------------------------------------------------------
// Python renderer
// ---------------------------------------------------------------------------

class PythonRenderer {
 public:
  PythonRenderer(const ExprEnv& env, const std::string& default_device_arg) : env_(env) {
    const std::string tensor = env.default_tensor();
    if (!tensor.empty()) default_dtype_ = tensor + ".dtype";
    const std::string device = default_device_arg.empty() ? tensor : default_device_arg;
    if (!device.empty()) default_device_ = device + ".device";
  }

  Rendered render(const Expr& e) {
    switch (e.kind) {
      case Kind::IntLiteral:
      case Kind::FloatLiteral:
      case Kind::BoolLiteral:
      case Kind::NoneLiteral:
        return {e.text, kPyAtom};
      case Kind::Name:
        return {name(e.text), kPyAtom};
      case Kind::Attribute:
        return {at(*e.operands[0], kPyAtom) + "." + e.text, kPyAtom};
      case Kind::Call:
        return call(e);
      case Kind::Subscript:
        return subscript(e);
      case Kind::Unary:
        return unary(e);
      case Kind::Binary:
        return binary(e);
      case Kind::Conditional:
        return {fmt::format("{} if {} else {}", at(*e.operands[1], kPyOr), at(*e.operands[0], kPyOr),
                            at(*e.operands[2], kPyCond)),
                kPyCond, "if"};
      case Kind::List:
        return {shape_tuple(e), kPyAtom};
      case Kind::Star:
        return {"*" + at(*e.operands[0], kPySum), kPyAtom};
    }
    return {"", kPyAtom};
  }

  // `e`, parenthesized when its operator binds looser than `min_prec`.
  std::string at(const Expr& e, int min_prec) {
    Rendered r = render(e);
    return r.prec < min_prec ? "(" + r.text + ")" : r.text;
  }

  std::string positional(const Expr& call, size_t i) {
    return i + 1 < call.operands.size() ? at(*call.operands[i + 1], kPyCond) : "";
  }

  // `, dtype=..., device=x.device, memory_format=...` in the builtin's
  // keyword order; `defaults` fills dtype/device the rule left out.
  std::string keywords(const Expr& call, const Builtin& fn, bool defaults) {
    std::string out;
    for (const Param& p : fn.keywords) {
      const Expr* value = keyword_arg(call, p.name);
      std::string text;
      if (value) {
        text = p.name == "device" ? at(*value, kPyAtom) + ".device" : at(*value, kPyCond);
      } else if (defaults && p.name == "dtype") {
        text = default_dtype_;
      } else if (defaults && p.name == "device") {
        text = default_device_;
      }
      if (!text.empty()) out += fmt::format(", {}={}", p.name, text);
    }
    return out;
  }

 private:
  std::string name(const std::string& n) const {
    const Resolved r = resolve(env_, n);
    if (r.dtype) return std::string(r.dtype->python);
    if (r.format) return std::string(r.format->python);
    return n;
  }

  Rendered call(const Expr& e) {
    const Expr& callee = *e.operands[0];
    if (callee.kind == Kind::Name) {
      if (const Builtin* fn = find_builtin(callee.text); fn && fn->python) return fn->python(*this, *fn, e);
    }
    std::string args;
    for (size_t i = 1; i < e.operands.size(); ++i)
      args += fmt::format("{}{}", i > 1 ? ", " : "", at(*e.operands[i], kPyCond));
    for (const Expr::Keyword& kw : e.keywords)
      args += fmt::format("{}{}={}", args.empty() ? "" : ", ", kw.name, at(*kw.value, kPyCond));
    return {fmt::format("{}({})", at(callee, kPyAtom), args), kPyAtom};
  }

  Rendered subscript(const Expr& e) {
    std::string inside;
    if (e.is_slice) {
      inside = fmt::format("{}:{}", e.slice_lower ? at(*e.slice_lower, kPyCond) : "",
                           e.slice_upper ? at(*e.slice_upper, kPyCond) : "");
    } else if (e.index) {
      inside = at(*e.index, kPyCond);
    }
    return {fmt::format("{}[{}]", at(*e.operands[0], kPyAtom), inside), kPyAtom};
  }

  Rendered unary(const Expr& e) {
    if (e.text == "not") return {"not " + at(*e.operands[0], kPyNot), kPyNot, "not"};
    Rendered inner = render(*e.operands[0]);
    // `-(-x)` rather than `--x`, which reads as a decrement.
    const bool parens = inner.prec < kPyUnary || inner.op == "-";
    return {parens ? "-(" + inner.text + ")" : "-" + inner.text, kPyUnary, "-"};
  }

  Rendered binary(const Expr& e) {
    const BinaryOp* op = find_binary_op(e.text);
    if (!op) return {"", kPyAtom};
    // Comparisons chain in Python, so a comparison operand of a comparison
    // keeps its parentheses on both sides.
    const int left_min = op->cls == OpClass::Compare ? op->py_prec + 1 : op->py_prec;
    return {fmt::format("{} {} {}", at(*e.operands[0], left_min), op->text, at(*e.operands[1], op->py_prec + 1)),
            op->py_prec, op->text};
  }

  // A shape list as a Python tuple: `()`, `(n,)`, `(*x.shape[:-1], n)`.
  std::string shape_tuple(const Expr& e) {
    std::string out = "(";
    for (size_t i = 0; i < e.operands.size(); ++i) out += (i ? ", " : "") + at(*e.operands[i], kPyCond);
    return out + (e.operands.size() == 1 ? ",)" : ")");
  }

  const ExprEnv& env_;
  std::string default_dtype_;
  std::string default_device_;
};

// ---------------------------------------------------------------------------
// C++ renderer (input-check relations)
// ---------------------------------------------------------------------------

namespace {

// A lower bound of an Int expression's value where one is evident (sizes,
// counts and lengths are >= 0). C++ `/` and `%` truncate toward zero while
// Python's `//` and `%` floor; they agree when the dividend is >= 0 and the
// divisor > 0, so only then may the C++ renderer use them plainly.
std::optional<int64_t> lower_bound(const Expr& e) {
  auto both = [&](auto combine) -> std::optional<int64_t> {
    auto l = lower_bound(*e.operands[0]);
    auto r = lower_bound(*e.operands[1]);
    if (!l || !r) return std::nullopt;
    return combine(*l, *r);
  };
  switch (e.kind) {
    case Kind::IntLiteral:
      return e.int_value;
    case Kind::Unary:
      if (e.text == "-" && e.operands[0]->kind == Kind::IntLiteral) return -e.operands[0]->int_value;
      return std::nullopt;
    case Kind::Attribute:
      return e.text == "ndim" ? std::optional<int64_t>(0) : std::nullopt;
    case Kind::Subscript:
      return e.is_slice ? std::nullopt : std::optional<int64_t>(0);  // x.shape[i]
    case Kind::Call: {
      const Expr& callee = *e.operands[0];
      static constexpr std::array<std::string_view, 4> kNonNegative = {"size", "dim", "numel", "len"};
      if (contains(kNonNegative, callee.text)) return 0;
      if (callee.kind != Kind::Name || e.operands.size() != 3) return std::nullopt;
      auto l = lower_bound(*e.operands[1]);
      auto r = lower_bound(*e.operands[2]);
      if (callee.text == "min" && l && r) return std::min(*l, *r);
      if (callee.text == "max" && (l || r)) return std::max(l.value_or(*r), r.value_or(*l));
      if ((callee.text == "ceil_div" || callee.text == "round_up") && l && r && *l >= 0 && *r >= 1) return 0;
      return std::nullopt;
    }
    case Kind::Binary: {
      int64_t out = 0;
      if (e.text == "+")
        return both([&](int64_t l, int64_t r) {
          return __builtin_add_overflow(l, r, &out) ? std::nullopt : std::optional<int64_t>(out);
        });
      if (e.text == "-") {
        // Only a literal subtrahend has a known upper bound.
        auto l = lower_bound(*e.operands[0]);
        const Expr& right = *e.operands[1];
        if (!l || right.kind != Kind::IntLiteral || __builtin_sub_overflow(*l, right.int_value, &out))
          return std::nullopt;
        return out;
      }
      if (e.text == "*")
        return both([&](int64_t l, int64_t r) {
          return l < 0 || r < 0 || __builtin_mul_overflow(l, r, &out) ? std::nullopt
                                                                      : std::optional<int64_t>(out);
        });
      if (e.text == "//" || e.text == "%")
        return both([](int64_t l, int64_t r) {
          return l >= 0 && r >= 1 ? std::optional<int64_t>(0) : std::nullopt;
        });
      return std::nullopt;
    }
    case Kind::Conditional: {
      auto t = lower_bound(*e.operands[1]);
      auto o = lower_bound(*e.operands[2]);
      if (!t || !o) return std::nullopt;
      return std::min(*t, *o);
    }
    default:
      return std::nullopt;
  }
}

// Literal-only arithmetic would be `int` arithmetic in C++ (overflowing where
// Python's would not); its leftmost literal gets a static_cast<int64_t>.
bool is_int_constant(const Expr& e) {
  if (e.kind == Kind::IntLiteral) return true;
  if (e.kind == Kind::Unary) return e.text == "-" && is_int_constant(*e.operands[0]);
  if (e.kind == Kind::Binary) {
    const BinaryOp* op = find_binary_op(e.text);
    return op && op->cls == OpClass::Arith && is_int_constant(*e.operands[0]) &&
           is_int_constant(*e.operands[1]);
  }
  return false;
}

// Python's floor division and modulo for operands of unknown sign. A zero
// divisor throws (PyTorch reports a std::exception as a RuntimeError on both
// ABIs), with no check macro: the expression is itself often the argument of
// one (a `require:`), and a macro does not expand inside its own argument.
constexpr std::string_view kCppFloorDiv =
    "[](int64_t a, int64_t b) { if (b == 0) throw std::runtime_error(\"integer division by zero\"); "
    "return a / b - (a % b != 0 && (a < 0) != (b < 0)); }";
constexpr std::string_view kCppFloorMod =
    "[](int64_t a, int64_t b) { if (b == 0) throw std::runtime_error(\"integer modulo by zero\"); "
    "const int64_t r = a % b; return r != 0 && (r < 0) != (b < 0) ? r + b : r; }";

}  // namespace

class CppRenderer {
 public:
  CppRenderer(const ExprEnv& env, CppAbi abi, const std::unordered_map<const Expr*, ValueKind>& kinds)
      : env_(env), abi_(abi), kinds_(kinds) {}

  Rendered render(const Expr& e) {
    switch (e.kind) {
      case Kind::IntLiteral:
      case Kind::FloatLiteral:
        return {e.text, kCppAtom};
      case Kind::BoolLiteral:
        return {e.text == "True" ? "true" : "false", kCppAtom};
      case Kind::Name:
        return name(e);
      case Kind::Attribute: {
        const TensorMember* m = find_member(e.text);
        return {object(*e.operands[0]) + std::string(m ? m->cpp : e.text), kCppAtom};
      }
      case Kind::Call:
        return call(e);
      case Kind::Subscript:
        // The checker admits x.shape[i] and xs[N] here.
        if (!e.index) break;
        if (kind_of(*e.operands[0]) == ValueKind::TensorList)
          return {fmt::format("{}.at({})", at(*e.operands[0], kCppAtom), at(*e.index, kCppCond)), kCppAtom};
        if (e.operands[0]->kind == Kind::Attribute)
          return {fmt::format("{}size({})", object(*e.operands[0]->operands[0]), at(*e.index, kCppCond)),
                  kCppAtom};
        break;
      case Kind::Unary:
        return unary(e);
      case Kind::Binary:
        return binary(e);
      case Kind::Conditional:
        return {fmt::format("({} ? {} : {})", at(*e.operands[0], kCppCond), at(*e.operands[1], kCppCond),
                            at(*e.operands[2], kCppCond)),
                kCppAtom};
      case Kind::NoneLiteral:
      case Kind::List:
      case Kind::Star:
        break;
    }
    return {"/* not expressible in C++ */", kCppAtom};  // excluded by check_cpp_expr
  }

  std::string at(const Expr& e, int min_prec) {
    Rendered r = render(e);
    return r.prec < min_prec ? "(" + r.text + ")" : r.text;
  }

  std::string positional(const Expr& call, size_t i) {
    return i + 1 < call.operands.size() ? at(*call.operands[i + 1], kCppCond) : "";
  }

 private:
  std::optional<ValueKind> kind_of(const Expr& e) const {
    auto it = kinds_.find(&e);
    return it == kinds_.end() ? std::nullopt : std::optional<ValueKind>(it->second);
  }

  // An optional argument that a guard narrowed: its checked kind is not optional.
  bool is_narrowed_optional(const Expr& e) const {
    if (e.kind != Kind::Name) return false;
    const Resolved r = resolve(env_, e.text);
    auto checked = kind_of(e);
    return r.kind && checked && (*r.kind == ValueKind::OptionalTensor || *r.kind == ValueKind::OptionalDType) &&
           *checked != *r.kind;
  }

  // The prefix for a member of a tensor expression: `x.` or `x->`.
  std::string object(const Expr& e) {
    if (is_narrowed_optional(e)) return e.text + "->";
    return at(e, kCppAtom) + ".";
  }

  Rendered name(const Expr& e) {
    const Resolved r = resolve(env_, e.text);
    if (r.dtype)
      return {fmt::format("{}::{}", abi_ == CppAbi::Stable ? "torch::headeronly::ScalarType" : "at::ScalarType",
                          r.dtype->cpp),
              kCppAtom};
    if (is_narrowed_optional(e)) return {"*" + e.text, kCppUnary, "*"};
    return {e.text, kCppAtom};
  }

  Rendered call(const Expr& e) {
    const Expr& callee = *e.operands[0];
    if (callee.kind == Kind::Attribute) {
      const TensorMember* m = find_member(callee.text);
      std::string args;
      for (size_t i = 1; i < e.operands.size(); ++i)
        args += fmt::format("{}{}", i > 1 ? ", " : "", at(*e.operands[i], kCppCond));
      return {fmt::format("{}{}({})", object(*callee.operands[0]), m ? m->cpp : callee.text, args), kCppAtom};
    }
    if (const Builtin* fn = find_builtin(callee.text); fn && fn->cpp) return fn->cpp(*this, *fn, e);
    return {"/* not expressible in C++ */", kCppAtom};
  }

  Rendered unary(const Expr& e) {
    Rendered inner = render(*e.operands[0]);
    const bool parens = inner.prec < kCppUnary || (e.text == "-" && inner.op == "-");
    const std::string operand = parens ? "(" + inner.text + ")" : inner.text;
    if (e.text == "not") return {"!" + operand, kCppUnary, "not"};
    return {"-" + operand, kCppUnary, "-"};
  }

  // Parenthesizes a binary operand: by precedence, and also wherever g++'s
  // -Wparentheses would warn (a comparison or `!` inside a comparison, `&&`
  // inside `||`), since generated code is compiled with -Werror.
  std::string operand(const Expr& e, int min_prec, const BinaryOp& parent) {
    Rendered r = render(e);
    bool parens = r.prec < min_prec;
    const BinaryOp* child = r.op == "not" ? nullptr : find_binary_op(r.op);
    const bool child_is_bool_op = r.op == "not" || (child && child->cls != OpClass::Arith && r.prec < kCppUnary);
    if (parent.cls == OpClass::Compare && child_is_bool_op) parens = true;
    if (parent.cls == OpClass::Logic && child && child->cls == OpClass::Logic && child != &parent) parens = true;
    return parens ? "(" + r.text + ")" : r.text;
  }

  Rendered binary(const Expr& e) {
    const BinaryOp* op = find_binary_op(e.text);
    if (!op) return {"", kCppAtom};
    const Expr& left = *e.operands[0];
    const Expr& right = *e.operands[1];
    if (e.text == "is") return {"!" + at(left, kCppAtom) + ".has_value()", kCppUnary, "not"};
    if (e.text == "is not") return {at(left, kCppAtom) + ".has_value()", kCppAtom};
    if (e.text == "or" && kind_of(left) == ValueKind::OptionalDType)
      return {fmt::format("{}.value_or({})", at(left, kCppAtom), at(right, kCppCond)), kCppAtom};
    if (e.text == "//" || e.text == "%") {
      auto l = lower_bound(left);
      auto r = lower_bound(right);
      if (!l || *l < 0 || !r || *r < 1) {
        return {std::string(e.text == "//" ? kCppFloorDiv : kCppFloorMod) +
                    fmt::format("({}, {})", at(left, kCppCond), at(right, kCppCond)),
                kCppAtom};
      }
    }
    // A constant Binary on the left has made itself int64_t already.
    const bool int_constants = op->cls == OpClass::Arith && e.text != "//" && e.text != "%" &&
                               left.kind != Kind::Binary && is_int_constant(left) && is_int_constant(right);
    const std::string l = int_constants ? "static_cast<int64_t>(" + render(left).text + ")"
                                        : operand(left, op->cpp_prec, *op);
    return {fmt::format("{} {} {}", l, op->cpp, operand(right, op->cpp_prec + 1, *op)), op->cpp_prec, op->text};
  }

  const ExprEnv& env_;
  CppAbi abi_;
  const std::unordered_map<const Expr*, ValueKind>& kinds_;
};

// ---------------------------------------------------------------------------
// The builtin table
// ---------------------------------------------------------------------------

namespace {

// Renders `fn(args)` in C++ or Python with each positional argument as is.
template <typename Renderer>
std::string plain_call(Renderer& r, std::string_view fn, const Expr& call, size_t arity) {
  std::string args;
  for (size_t i = 0; i < arity; ++i) args += fmt::format("{}{}", i ? ", " : "", r.positional(call, i));
  return fmt::format("{}({})", fn, args);
}

// Every identifier in `e` (names and attributes alike), iteratively.
std::set<std::string> identifiers_in(const Expr& e) {
  std::set<std::string> out;
  std::vector<const Expr*> stack{&e};
  while (!stack.empty()) {
    const Expr* node = stack.back();
    stack.pop_back();
    if (node->kind == Kind::Name || node->kind == Kind::Attribute) out.insert(node->text);
    for_each_child(*node, [&](const Expr& child) { stack.push_back(&child); });
  }
  return out;
}

// A comprehension's loop variable: `t`, or `t_`, `t__`... so that it does
// not capture a name the rule reads.
std::string loop_variable(const Expr& call) {
  const std::set<std::string> used = identifiers_in(call);
  std::string var = "t";
  while (used.count(var)) var += "_";
  return var;
}

Rendered python_like_each(PythonRenderer& r, const Builtin& fn, const Expr& call) {
  const std::string var = loop_variable(call);
  return {fmt::format("[torch.empty_like({}{}) for {} in {}]", var, r.keywords(call, fn, false), var,
                      call.operands.size() > 1 ? r.at(*call.operands[1], kPyOr) : ""),
          kPyAtom};
}

Rendered python_sum_numel(PythonRenderer& r, const Builtin&, const Expr& call) {
  const std::string var = loop_variable(call);
  return {fmt::format("sum({}.numel() for {} in {})", var, var, r.at(*call.operands[1], kPyOr)), kPyAtom};
}

Rendered python_dynamic(PythonRenderer& r, const Builtin& fn, const Expr& call) {
  std::string kwargs = r.keywords(call, fn, false);
  if (!kwargs.empty()) kwargs = kwargs.substr(2);  // drop the leading ", "
  return {fmt::format("torch.library.get_ctx().new_dynamic_size({})", kwargs), kPyAtom};
}

const std::vector<Builtin>& builtins() {
  using VK = ValueKind;
  using Py = PythonRenderer;
  using Cpp = CppRenderer;
  static const std::vector<Builtin> table = [] {
    const Param dtype{"dtype", {VK::DType}};
    const Param device{"device", {VK::Tensor}};
    const Param memory_format{"memory_format", {VK::MemoryFormat}};
    const std::vector<Param> two_ints = {{"a", {VK::Int}}, {"b", {VK::Int}}};
    return std::vector<Builtin>{
        {.name = "ceil_div",
         .positional = two_ints,
         .result = VK::Int,
         .python_global = "",
         .python = [](Py& r, const Builtin&, const Expr& c) { return r.render(*desugar_ceil_div(c)); },
         .cpp = [](Cpp& r, const Builtin&, const Expr& c) { return r.render(*desugar_ceil_div(c)); }},
        {.name = "round_up",
         .positional = two_ints,
         .result = VK::Int,
         .python_global = "",
         .python = [](Py& r, const Builtin&, const Expr& c) { return r.render(*desugar_round_up(c)); },
         .cpp = [](Cpp& r, const Builtin&, const Expr& c) { return r.render(*desugar_round_up(c)); }},
        // torch.sym_min/sym_max, not min/max: those would guard on a symbolic
        // comparison, and fail outright on an unbacked size from dynamic().
        {.name = "min",
         .positional = two_ints,
         .result = VK::Int,
         .python = [](Py& r, const Builtin&, const Expr& c) {
           return Rendered{plain_call(r, "torch.sym_min", c, 2), kPyAtom};
         },
         .cpp = [](Cpp& r, const Builtin&, const Expr& c) {
           return Rendered{plain_call(r, "std::min<int64_t>", c, 2), kCppAtom};
         }},
        {.name = "max",
         .positional = two_ints,
         .result = VK::Int,
         .python = [](Py& r, const Builtin&, const Expr& c) {
           return Rendered{plain_call(r, "torch.sym_max", c, 2), kPyAtom};
         },
         .cpp = [](Cpp& r, const Builtin&, const Expr& c) {
           return Rendered{plain_call(r, "std::max<int64_t>", c, 2), kCppAtom};
         }},
        {.name = "len",
         .positional = {{"xs", {VK::TensorList, VK::Shape}}},
         .result = VK::Int,
         .shape_name_in_cpp = true,
         .python_global = "len",
         .python = [](Py& r, const Builtin&, const Expr& c) {
           return Rendered{plain_call(r, "len", c, 1), kPyAtom};
         },
         .cpp = [](Cpp& r, const Builtin&, const Expr& c) {
           return Rendered{fmt::format("static_cast<int64_t>({}.size())", r.at(*c.operands[1], kCppAtom)),
                           kCppAtom};
         }},
        // The elements of a whole list (a multi-tensor op's work, for `flops`).
        {.name = "sum_numel",
         .positional = {{"xs", {VK::TensorList}}},
         .result = VK::Int,
         .python_global = "sum",
         .python = python_sum_numel},
        {.name = "like",
         .positional = {{"x", {VK::Tensor}}},
         .keywords = {dtype, device, memory_format},
         .result = VK::Output,
         .python = [](Py& r, const Builtin& fn, const Expr& c) {
           return Rendered{fmt::format("torch.empty_like({}{})", r.positional(c, 0), r.keywords(c, fn, false)),
                           kPyAtom};
         }},
        {.name = "empty",
         .positional = {{"shape", {VK::Shape}}},
         .keywords = {dtype, device, memory_format},
         .result = VK::Output,
         .tensor_defaults = true,
         .python = [](Py& r, const Builtin& fn, const Expr& c) {
           return Rendered{fmt::format("torch.empty({}{})", r.positional(c, 0), r.keywords(c, fn, true)),
                           kPyAtom};
         }},
        {.name = "empty_strided",
         .positional = {{"shape", {VK::Shape}}, {"stride", {VK::Shape}}},
         .keywords = {dtype, device},
         .result = VK::Output,
         .tensor_defaults = true,
         .python = [](Py& r, const Builtin& fn, const Expr& c) {
           return Rendered{fmt::format("torch.empty_strided({}, {}{})", r.positional(c, 0), r.positional(c, 1),
                                       r.keywords(c, fn, true)),
                           kPyAtom};
         }},
        {.name = "like_each",
         .positional = {{"xs", {VK::TensorList}}},
         .keywords = {dtype, memory_format},
         .result = VK::OutputList,
         .python = python_like_each},
        {.name = "dynamic",
         .keywords = {{"min", {VK::Int}, true}, {"max", {VK::Int}, true}},
         .result = VK::Int,
         .python = python_dynamic},
    };
  }();
  return table;
}

}  // namespace

const Builtin* find_builtin(std::string_view name) {
  for (const Builtin& fn : builtins())
    if (fn.name == name) return &fn;
  return nullptr;
}

std::vector<std::string> builtin_names() {
  std::vector<std::string> names;
  for (const Builtin& fn : builtins()) names.emplace_back(fn.name);
  return names;
}

const Expr* keyword_arg(const Expr& call, std::string_view name) {
  for (const Expr::Keyword& kw : call.keywords)
    if (kw.name == name) return kw.value.get();
  return nullptr;
}

}  // namespace opgen::model::detail

namespace opgen::model {

using namespace detail;

// ---------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------

std::string render_python(const Expr& expr, const ExprEnv& env, const std::string& default_device_arg) {
  PythonRenderer renderer(env, default_device_arg);
  return renderer.render(expr).text;
}

std::string render_cpp(const Expr& expr, const ExprEnv& env, CppAbi abi) {
  // The renderer needs each node's checked kind (optional or narrowed).
  std::unordered_map<const Expr*, ValueKind> kinds;
  Checker checker(env, /*cpp=*/true, &kinds);
  checker.check(expr);
  CppRenderer renderer(env, abi, kinds);
  return renderer.render(expr).text;
}

std::vector<std::string> referenced_names(const Expr& expr, const ExprEnv& env) {
  std::vector<std::string> names;
  auto add = [&](const std::string& name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  };
  // Recursion is bounded by the parser's depth limit.
  auto visit = [&](auto& self, const Expr& e) -> void {
    if (e.kind == Kind::Name) {
      const Resolved r = resolve(env, e.text);
      if (r.what == Resolved::What::Let || r.what == Resolved::What::Argument) add(e.text);
      return;
    }
    if (e.kind == Kind::Call && !e.operands.empty() && e.operands[0]->kind == Kind::Name) {
      // A called name is a builtin, not a value.
      for (size_t i = 1; i < e.operands.size(); ++i) self(self, *e.operands[i]);
      for (const Expr::Keyword& kw : e.keywords) self(self, *kw.value);
      const Builtin* fn = find_builtin(e.operands[0]->text);
      const Argument* first = env.default_tensor_arg();
      if (fn && fn->tensor_defaults && first && (!keyword_arg(e, "dtype") || !keyword_arg(e, "device")))
        add(first->name);
      return;
    }
    for_each_child(e, [&](const Expr& child) { self(self, child); });
  };
  visit(visit, expr);
  return names;
}

const Expr* find_call(const Expr& expr, std::string_view function) {
  if (expr.kind == Kind::Call && !expr.operands.empty() && expr.operands[0]->kind == Kind::Name &&
      expr.operands[0]->text == function)
    return &expr;
  const Expr* found = nullptr;  // recursion bounded by the parser's depth limit
  for_each_child(expr, [&](const Expr& child) {
    if (!found) found = find_call(child, function);
  });
  return found;
}

}  // namespace opgen::model
