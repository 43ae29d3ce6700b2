// The rule-expression language's type checker: check_expr and check_cpp_expr
// (model/expr.h). The Checker class is declared in expr_internal.h, since
// render_cpp runs it too (for each node's kind); the tables it reads are
// there as well, each with a section in docs/fake-rules.md.
//
// Rule text comes from YAML files and is fuzzed, so nothing here may crash on
// any input; the checker's recursion is bounded by the height of the tree,
// which parse_expr bounds (kMaxExprDepth).
#include "model/expr.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
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
#include "support/diagnostics.h"

namespace opgen::model::detail {

// ---------------------------------------------------------------------------
// Type checker
// ---------------------------------------------------------------------------

namespace {

std::string suggestion_note(const std::string& word, const std::vector<std::string>& candidates) {
  // Edit distance is quadratic; a name this long is no typo of a short one.
  if (word.size() > 64) return "";
  std::string best = closest_match(word, candidates);
  return best.empty() ? "" : fmt::format("did you mean '{}'?", best);
}

// Notes for common kind mismatches: (found, wanted, note).
struct MismatchHint {
  ValueKind found;
  ValueKind wanted;
  std::string_view note;
};
constexpr std::array<MismatchHint, 8> kMismatchHints = {{
    {ValueKind::Tensor, ValueKind::Int, "a Tensor is not a number: use x.size(i), x.dim() or x.numel()"},
    {ValueKind::Tensor, ValueKind::Shape, "use the tensor's shape: x.shape"},
    {ValueKind::Shape, ValueKind::Int, "pick one size with s[i], or count them with len(s)"},
    {ValueKind::Int, ValueKind::Shape, "a shape is a list: [n], or splat one into a list: [*s, n]"},
    {ValueKind::TensorList, ValueKind::Tensor, "index one element: xs[0]; like_each(xs) makes one output per element"},
    {ValueKind::Float, ValueKind::Int, "sizes are integers: divide with //"},
    {ValueKind::Int, ValueKind::Bool, "compare explicitly: n != 0"},
    {ValueKind::Output, ValueKind::Tensor, "outputs are made by a rule; they are not inputs to another"},
}};

// How to use an optional tensor, spelled with its name when it has one.
std::string guard_note(const Expr& optional) {
  const std::string x = optional.kind == Kind::Name ? optional.text : "x";
  return fmt::format("guard it: '{0}.size(0) if {0} is not None else 0', or in a check '{0} is None or {0}.size(0) == n'",
                     x);
}

std::string subject(const Expr& e) {
  return e.kind == Kind::Name ? fmt::format("'{}'", e.text) : "this expression";
}

}  // namespace

Checker::Result Checker::check(const Expr& e) {
  const bool shape_allowed = &e == shape_ok_;
  shape_ok_ = nullptr;
  Result kind = check_node(e);
  if (cpp_ && kind == ValueKind::Shape && !shape_allowed) {
    error(Code::NotInCppCheck, e.column, "shape values are not available in C++ checks",
          "compare one size at a time: x.size(i), x.shape[i], len(sizes)");
    return std::nullopt;
  }
  if (kind && kinds_) (*kinds_)[&e] = *kind;
  return kind;
}

void Checker::error(Code code, size_t column, std::string message, std::string_view note) {
  diags_.push_back({column, std::move(message), std::string(note), code});
}

Checker::Result Checker::check_node(const Expr& e) {
  switch (e.kind) {
    case Kind::IntLiteral: return ValueKind::Int;
    case Kind::FloatLiteral: return ValueKind::Float;
    case Kind::BoolLiteral: return ValueKind::Bool;
    case Kind::NoneLiteral:
      error(Code::RuleKindMismatch, e.column, "None can only be tested with 'is': 'x is None', 'x is not None'");
      return std::nullopt;
    case Kind::Name: return check_name(e);
    case Kind::Attribute: return check_attribute(e);
    case Kind::Call: return check_call(e);
    case Kind::Subscript: return check_subscript(e);
    case Kind::Unary: return check_unary(e);
    case Kind::Binary: return check_binary(e);
    case Kind::Conditional: return check_conditional(e);
    case Kind::List: return check_list(e);
    case Kind::Star:
      error(Code::RuleKindMismatch, e.column, "'*' splat is only allowed inside a shape list: [*x.shape, n]");
      return std::nullopt;
  }
  return std::nullopt;
}

// Checks `e` and requires its kind to be one of `want`.
Checker::Result Checker::expect(const Expr& e, KindSet want, std::string_view what) {
  Result kind = check(e);
  if (!kind) return std::nullopt;
  if (want.contains(*kind)) return kind;
  type_error(e, want, *kind, what);
  return std::nullopt;
}

// For an operand already checked: reports and returns false unless `found` is wanted.
bool Checker::require_kind(const Expr& e, ValueKind found, KindSet want, std::string_view what) {
  if (want.contains(found)) return true;
  type_error(e, want, found, what);
  return false;
}

void Checker::type_error(const Expr& e, KindSet want, ValueKind found, std::string_view what) {
  if (found == ValueKind::OptionalTensor && want.contains(ValueKind::Tensor)) {
    error(Code::OptionalMayBeNone, e.column,
          fmt::format("{} must be a Tensor, but {} is an optional tensor (Tensor?) and may be None here",
                      what, subject(e)),
          guard_note(e));
    return;
  }
  if (found == ValueKind::OptionalDType && want.contains(ValueKind::DType)) {
    error(Code::OptionalMayBeNone, e.column,
          fmt::format("{} must be a DType, but {} is an optional dtype (ScalarType?) and may be None",
                      what, subject(e)),
          fmt::format("give a fallback: '{} or x.dtype'", e.kind == Kind::Name ? e.text : "out_dtype"));
    return;
  }
  std::string_view note;
  for (const MismatchHint& hint : kMismatchHints)
    if (hint.found == found && want.contains(hint.wanted)) note = hint.note;
  error(Code::RuleKindMismatch, e.column, fmt::format("{} must be {}, not {}", what, want.to_string(), to_string(found)),
        note);
}

// Optional names are non-optional where a guard proved them non-None.
ValueKind Checker::narrowed(const std::string& name, ValueKind kind) const {
  if (!narrowed_.count(name)) return kind;
  if (kind == ValueKind::OptionalTensor) return ValueKind::Tensor;
  if (kind == ValueKind::OptionalDType) return ValueKind::DType;
  return kind;
}

Checker::Result Checker::with_narrowing(const Expr& cond, bool when, const Expr& e) {
  std::vector<std::string> names;
  collect_narrowed(cond, when, names);
  std::set<std::string> saved = narrowed_;
  narrowed_.insert(names.begin(), names.end());
  Result result = check(e);
  narrowed_ = std::move(saved);
  return result;
}

Checker::Result Checker::check_name(const Expr& e) {
  using What = Resolved::What;
  const Resolved r = resolve(env_, e.text);
  switch (r.what) {
    case What::Let:
      if (cpp_) {
        error(Code::NotInCppCheck, e.column,
              fmt::format("'{}' is bound by 'let:', which C++ checks cannot see", e.text),
              "C++ checks read the op's arguments only");
        return std::nullopt;
      }
      return narrowed(e.text, *r.kind);
    case What::Argument:
      if (!r.kind) {
        error(Code::UnusableArgumentType, e.column,
              fmt::format("argument '{}' has type '{}', which rules cannot use", e.text,
                          r.arg->type ? r.arg->type->to_string() : "?"),
              kUsableTypesNote);
        return std::nullopt;
      }
      return narrowed(e.text, *r.kind);
    case What::DType:
      return ValueKind::DType;
    case What::MemoryFormat:
      if (cpp_) {
        error(Code::NotInCppCheck, e.column, "memory formats are not available in C++ checks");
        return std::nullopt;
      }
      return ValueKind::MemoryFormat;
    case What::Unknown:
      break;
  }
  if (find_builtin(e.text)) {
    error(Code::UnknownFunction, e.column, fmt::format("'{}' is a function; call it: {}(...)", e.text, e.text));
    return std::nullopt;
  }
  error(Code::UnknownName, e.column, fmt::format("unknown name '{}'", e.text), unknown_name_note(e.text));
  return std::nullopt;
}

std::string Checker::unknown_name_note(const std::string& name) const {
  for (const auto& [word, note] : kNameHints)
    if (word == name) return std::string(note);
  for (const auto& [alias, canonical] : kDTypeAliases)
    if (alias == name && find_dtype(canonical))
      return fmt::format("dtypes go by their torch names: did you mean '{}'?", canonical);
  std::vector<std::string> candidates;
  for (const auto& [let, kind] : env_.lets) candidates.push_back(let);
  if (env_.schema)
    for (const Argument& arg : env_.schema->arguments) candidates.push_back(arg.name);
  for (const std::string& dtype : dtype_names()) candidates.push_back(dtype);
  for (const MemoryFormatInfo& format : kMemoryFormats) candidates.emplace_back(format.name);
  return suggestion_note(name, candidates);
}

// Reports why `object` (of kind `kind`) has no member `member`, if so.
bool Checker::require_tensor(const Expr& object, ValueKind kind, std::string_view member) {
  switch (kind) {
    case ValueKind::Tensor:
      return true;
    case ValueKind::OptionalTensor:
      error(Code::OptionalMayBeNone, object.column,
            fmt::format("{} is an optional tensor (Tensor?) and may be None here", subject(object)),
            guard_note(object));
      return false;
    case ValueKind::TensorList:
      error(Code::RuleKindMismatch, object.column,
            fmt::format("'.{}' needs a Tensor, but {} is a Tensor[]", member, subject(object)),
            "index one element, e.g. xs[0]; len(xs) counts them");
      return false;
    default:
      error(Code::RuleKindMismatch, object.column,
            fmt::format("'.{}' needs a Tensor, but {} is {}", member, subject(object), to_string(kind)));
      return false;
  }
}

// Looks up `attr.text` on a checked object; nullptr after reporting.
const TensorMember* Checker::member_of(const Expr& attr, Result object_kind) {
  if (!object_kind) return nullptr;
  const TensorMember* m = find_member(attr.text);
  if (!m) {
    std::vector<std::string> names;
    for (const TensorMember& candidate : kTensorMembers) names.emplace_back(candidate.name);
    error(Code::UnknownFunction, attr.op_column, fmt::format("unknown tensor attribute or method '{}'", attr.text),
          suggestion_note(attr.text, names));
    return nullptr;
  }
  return require_tensor(*attr.operands[0], *object_kind, attr.text) ? m : nullptr;
}

Checker::Result Checker::check_attribute(const Expr& e) {
  const TensorMember* m = member_of(e, check(*e.operands[0]));
  if (!m) return std::nullopt;
  if (m->is_method) {
    const Expr& object = *e.operands[0];
    error(Code::UnknownFunction, e.op_column, fmt::format("'{}' is a method; call it: {}.{}({})", e.text,
                                   object.kind == Kind::Name ? object.text : "x", e.text, m->arity ? "i" : ""));
    return std::nullopt;
  }
  return m->result;
}

// Checks arguments only for the errors inside them (the call itself failed).
void Checker::check_arguments(const Expr& call) {
  for (size_t i = 1; i < call.operands.size(); ++i) check(*call.operands[i]);
  for (const Expr::Keyword& kw : call.keywords) check(*kw.value);
}

Checker::Result Checker::check_call(const Expr& call) {
  const Expr& callee = *call.operands[0];
  if (callee.kind == Kind::Attribute) return check_method(call);
  if (callee.kind != Kind::Name) {
    error(Code::UnknownFunction, call.op_column, "only builtin functions and tensor methods can be called");
    check(callee);
    check_arguments(call);
    return std::nullopt;
  }
  if (const Builtin* fn = find_builtin(callee.text)) return check_builtin(call, *fn);
  if (resolve(env_, callee.text).what != Resolved::What::Unknown) {
    error(Code::UnknownFunction, callee.column, fmt::format("'{}' is not a function", callee.text));
  } else {
    std::string note = suggestion_note(callee.text, builtin_names());
    if (note.empty())
      note = "rules call only the builtins in docs/fake-rules.md; a fake that needs real torch ops "
             "is written in Python (fake: {python: module:function})";
    error(Code::UnknownFunction, callee.column, fmt::format("unknown function '{}'", callee.text), note);
  }
  check_arguments(call);
  return std::nullopt;
}

Checker::Result Checker::check_method(const Expr& call) {
  const Expr& attr = *call.operands[0];
  const TensorMember* m = member_of(attr, check(*attr.operands[0]));
  if (!m) {
    check_arguments(call);
    return std::nullopt;
  }
  if (!m->is_method) {
    error(Code::UnknownFunction, call.op_column, fmt::format("'{}' is an attribute, not a method", attr.text),
          fmt::format("write x.{}", attr.text));
    check_arguments(call);
    return std::nullopt;
  }
  bool ok = true;
  if (!call.keywords.empty()) {
    error(Code::BadCallArguments, call.keywords[0].column, fmt::format("{}() takes no keyword arguments", m->name));
    ok = false;
  }
  const size_t given = call.operands.size() - 1;
  if (given != m->arity && call.keywords.empty()) {
    error(Code::BadCallArguments, given > m->arity ? call.operands[m->arity + 1]->column : call.op_column,
          fmt::format("{}() takes {} argument{} but {} {} given", m->name, m->arity,
                      m->arity == 1 ? "" : "s", given, given == 1 ? "was" : "were"));
    ok = false;
  }
  for (size_t i = 1; i < call.operands.size(); ++i)
    if (!expect(*call.operands[i], {ValueKind::Int}, fmt::format("the dimension of {}()", m->name)))
      ok = false;
  if (!ok) return std::nullopt;
  return m->result;
}

Checker::Result Checker::check_builtin(const Expr& call, const Builtin& fn) {
  if (cpp_ && !fn.cpp) {
    error(Code::NotInCppCheck, call.column, fmt::format("{}() is not available in C++ checks", fn.name),
          "C++ checks compare sizes and dtypes of the op's arguments");
    check_arguments(call);
    return std::nullopt;
  }
  bool ok = true;
  if (const Resolved r = resolve(env_, std::string(fn.python_global));
      !fn.python_global.empty() && (r.what == Resolved::What::Argument || r.what == Resolved::What::Let)) {
    error(Code::ShadowedBuiltin, call.column,
          fmt::format("{}() cannot be used here: '{}' is {} of this op, which would shadow "
                      "Python's '{}' in the generated fake",
                      fn.name, fn.python_global, r.what == Resolved::What::Let ? "a let binding" : "an argument",
                      fn.python_global));
    ok = false;
  }
  const size_t given = call.operands.size() - 1;
  if (given != fn.positional.size()) {
    std::string params;
    for (const Param& p : fn.positional) params += fmt::format("{}{}", params.empty() ? "" : ", ", p.name);
    std::string keywords;
    for (const Param& p : fn.keywords) keywords += fmt::format("{}{}=", keywords.empty() ? "" : ", ", p.name);
    error(Code::BadCallArguments,
          given > fn.positional.size() ? call.operands[fn.positional.size() + 1]->column : call.op_column,
          fmt::format("{}({}) takes {} positional argument{} but {} {} given", fn.name, params,
                      fn.positional.size(), fn.positional.size() == 1 ? "" : "s", given,
                      given == 1 ? "was" : "were"),
          keywords.empty() ? "" : fmt::format("pass {} by name", keywords));
    ok = false;
  }
  for (size_t i = 0; i < given; ++i) {
    const Expr& arg = *call.operands[i + 1];
    if (i >= fn.positional.size()) {
      check(arg);
      continue;
    }
    if (cpp_ && fn.shape_name_in_cpp && arg.kind == Kind::Name) shape_ok_ = &arg;
    if (!expect(arg, fn.positional[i].kinds,
                fmt::format("argument '{}' of {}()", fn.positional[i].name, fn.name)))
      ok = false;
  }
  for (const Expr::Keyword& kw : call.keywords) {
    auto param = std::find_if(fn.keywords.begin(), fn.keywords.end(),
                              [&](const Param& p) { return p.name == kw.name; });
    if (param == fn.keywords.end()) {
      std::vector<std::string> names;
      for (const Param& p : fn.keywords) names.emplace_back(p.name);
      std::string note = suggestion_note(kw.name, names);
      if (note.empty() && !names.empty()) {
        std::string list;
        for (const std::string& n : names) list += fmt::format("{}{}", list.empty() ? "" : ", ", n);
        note = fmt::format("its keyword arguments are: {}", list);
      }
      error(Code::BadCallArguments, kw.column, fmt::format("{}() has no keyword argument '{}'", fn.name, kw.name),
            note);
      check(*kw.value);
      ok = false;
      continue;
    }
    if (!expect(*kw.value, param->kinds, fmt::format("{}= of {}()", kw.name, fn.name))) {
      ok = false;
    } else if (param->literal && kw.value->kind != Kind::IntLiteral) {
      error(Code::DynamicBounds, kw.value->column,
            fmt::format("{}= of {}() must be an integer literal", kw.name, fn.name),
            "torch's new_dynamic_size() needs statically known bounds, and sizes such as x.size(0) "
            "are symbolic under dynamic shapes");
      ok = false;
    }
  }
  const Expr* min = keyword_arg(call, "min");
  const Expr* max = keyword_arg(call, "max");
  if (ok && min && max && min->kind == Kind::IntLiteral && max->kind == Kind::IntLiteral &&
      max->int_value < min->int_value) {
    error(Code::DynamicBounds, max->column, fmt::format("max= of {}() is below its min=", fn.name));
    ok = false;
  }
  if (fn.tensor_defaults && (!keyword_arg(call, "dtype") || !keyword_arg(call, "device")) &&
      !env_.default_tensor_arg()) {
    error(Code::BadCallArguments, call.column,
          fmt::format("{}() takes its default dtype and device from the first Tensor or Tensor[] "
                      "argument, and this schema has none",
                      fn.name),
          "rules take an output's device from a tensor argument (device=t), and this op has no Tensor or "
          "Tensor[] one: write its fake in Python (fake: {python: module:function})");
    ok = false;
  }
  if (!ok) return std::nullopt;
  return fn.result;
}

Checker::Result Checker::check_subscript(const Expr& e) {
  const Expr& object = *e.operands[0];
  // In C++, x.shape[i] is x.size(i); no other shape value exists there.
  if (cpp_ && !e.is_slice && object.kind == Kind::Attribute && object.text == "shape") shape_ok_ = &object;
  Result kind = check(object);
  // `report`: require Int; otherwise only look for errors inside the parts.
  auto check_parts = [&](bool report) {
    bool ok = true;
    for (const auto& [part, what] : {std::pair{e.index.get(), "the index"},
                                     std::pair{e.slice_lower.get(), "a slice bound"},
                                     std::pair{e.slice_upper.get(), "a slice bound"}}) {
      if (part && !(report ? expect(*part, {ValueKind::Int}, what) : check(*part))) ok = false;
    }
    return ok;
  };
  if (!kind) {
    check_parts(false);
    return std::nullopt;
  }
  switch (*kind) {
    case ValueKind::Shape:
      if (!check_parts(true)) return std::nullopt;
      return e.is_slice ? ValueKind::Shape : ValueKind::Int;
    case ValueKind::Tensor:
    case ValueKind::OptionalTensor:
      error(Code::RuleKindMismatch, e.op_column, "a Tensor cannot be indexed", "use x.size(i) or x.shape[i]");
      break;
    case ValueKind::TensorList:
      if (e.is_slice) {
        error(Code::RuleKindMismatch, e.op_column, "slicing a Tensor[] is not supported");
        break;
      }
      if (!check_parts(true)) return std::nullopt;
      // C++ would read a negative index out of bounds; `at()` checks the rest.
      if (cpp_ && e.index->kind != Kind::IntLiteral) {
        error(Code::NotInCppCheck, e.index->column, "a Tensor[] index in a C++ check must be an integer literal",
              "a negative index counts from the end only in Python");
        return std::nullopt;
      }
      return ValueKind::Tensor;
    default:
      error(Code::RuleKindMismatch, e.op_column, fmt::format("{} cannot be indexed", to_string(*kind)));
      break;
  }
  check_parts(false);
  return std::nullopt;
}

Checker::Result Checker::check_unary(const Expr& e) {
  if (e.text == "not") return expect(*e.operands[0], {ValueKind::Bool}, "the operand of 'not'");
  return expect(*e.operands[0], {ValueKind::Int, ValueKind::Float}, "the operand of unary '-'");
}

Checker::Result Checker::check_binary(const Expr& e) {
  const BinaryOp* op = find_binary_op(e.text);
  if (!op) return std::nullopt;  // the parser makes only table operators
  switch (op->cls) {
    case OpClass::Arith: return check_arith(e);
    case OpClass::Compare: return check_compare(e);
    case OpClass::Logic: return check_logic(e);
  }
  return std::nullopt;
}

// The value of an Int expression of literals alone (`2 * 3 + 1`), as C++'s
// int64_t arithmetic and Python's floor division agree on it; nullopt when
// it reads anything else, or when some step leaves int64.
std::optional<int64_t> Checker::constant_int(const Expr& e) {
  if (e.kind == Kind::IntLiteral) return e.int_value;
  if (e.kind == Kind::Unary && e.text == "-") {
    auto v = constant_int(*e.operands[0]);
    if (!v || *v == std::numeric_limits<int64_t>::min()) return std::nullopt;
    return -*v;
  }
  if (e.kind != Kind::Binary) return std::nullopt;
  auto a = constant_int(*e.operands[0]);
  auto b = constant_int(*e.operands[1]);
  if (!a || !b) return std::nullopt;
  int64_t out = 0;
  if (e.text == "+") return __builtin_add_overflow(*a, *b, &out) ? std::nullopt : std::optional(out);
  if (e.text == "-") return __builtin_sub_overflow(*a, *b, &out) ? std::nullopt : std::optional(out);
  if (e.text == "*") return __builtin_mul_overflow(*a, *b, &out) ? std::nullopt : std::optional(out);
  if ((e.text == "//" || e.text == "%") && *b != 0 && !(*a == std::numeric_limits<int64_t>::min() && *b == -1)) {
    // Python's floor division and modulo.
    int64_t q = *a / *b, r = *a % *b;
    if (r != 0 && ((r < 0) != (*b < 0))) {
      --q;
      r += *b;
    }
    return e.text == "//" ? q : r;
  }
  return std::nullopt;
}

Checker::Result Checker::check_arith(const Expr& e) {
  const Expr& left = *e.operands[0];
  const Expr& right = *e.operands[1];
  Result l = check(left);
  Result r = check(right);
  if (!l || !r) return std::nullopt;
  if (*l == ValueKind::Shape && *r == ValueKind::Shape) {
    error(Code::RuleKindMismatch, e.op_column, fmt::format("'{}' does not work on shapes", e.text),
          e.text == "+" ? "concatenate shapes with splat: [*a, *b]" : "");
    return std::nullopt;
  }
  const bool int_only = e.text == "//" || e.text == "%";
  const KindSet want = int_only ? KindSet{ValueKind::Int} : KindSet{ValueKind::Int, ValueKind::Float};
  const std::string what = fmt::format("an operand of '{}'", e.text);
  const bool left_ok = require_kind(left, *l, want, what);  // report both sides
  if (!require_kind(right, *r, want, what) || !left_ok) return std::nullopt;
  if (int_only && right.kind == Kind::IntLiteral && right.int_value == 0) {
    error(Code::DivisionByZero, right.column, fmt::format("'{}' by zero", e.text));
    return std::nullopt;
  }
  if (*l == ValueKind::Int && *r == ValueKind::Int && !constant_int(e) && constant_int(left) && constant_int(right)) {
    error(Code::ConstantOverflow, e.op_column,
          fmt::format("{} {} {} leaves the range of int64", *constant_int(left), e.text, *constant_int(right)));
    return std::nullopt;
  }
  return *l == ValueKind::Float || *r == ValueKind::Float ? ValueKind::Float : ValueKind::Int;
}

bool Checker::is_optional(ValueKind k) {
  return k == ValueKind::OptionalTensor || k == ValueKind::OptionalDType;
}
bool Checker::is_numeric(ValueKind k) { return k == ValueKind::Int || k == ValueKind::Float; }
bool Checker::is_dtype(ValueKind k) { return k == ValueKind::DType || k == ValueKind::OptionalDType; }
bool Checker::is_tensorish(ValueKind k) {
  return k == ValueKind::Tensor || k == ValueKind::OptionalTensor || k == ValueKind::TensorList;
}

Checker::Result Checker::check_compare(const Expr& e) {
  const Expr& left = *e.operands[0];
  const Expr& right = *e.operands[1];
  if (e.text == "is" || e.text == "is not") {
    if (right.kind != Kind::NoneLiteral) {
      error(Code::RuleKindMismatch, e.op_column, "'is' only tests for None: 'x is None', 'x is not None'",
            "compare values with '==' and '!='");
      check(left);
      check(right);
      return std::nullopt;
    }
    Result l = check(left);
    if (!l) return std::nullopt;
    if (!is_optional(*l)) {
      error(Code::RuleKindMismatch, left.column,
            fmt::format("{} is {} and is never None here", subject(left), to_string(*l)));
      return std::nullopt;
    }
    return ValueKind::Bool;
  }
  for (const Expr* side : {&left, &right}) {
    if (side->kind == Kind::NoneLiteral) {
      error(Code::RuleKindMismatch, side->column, "compare with None using 'is None' or 'is not None'");
      check(side == &left ? right : left);
      return std::nullopt;
    }
  }
  Result l = check(left);
  Result r = check(right);
  if (!l || !r) return std::nullopt;
  const bool equality = e.text == "==" || e.text == "!=";
  const bool comparable =
      (is_numeric(*l) && is_numeric(*r)) ||
      (equality && ((*l == *r && (*l == ValueKind::Bool || *l == ValueKind::String ||
                                  *l == ValueKind::Shape || *l == ValueKind::MemoryFormat)) ||
                    (is_dtype(*l) && is_dtype(*r))));
  if (comparable) return ValueKind::Bool;
  std::string_view note;
  if (is_tensorish(*l) || is_tensorish(*r))
    note = "compare sizes, shapes or dtypes: x.size(0), x.shape, x.dtype";
  else if (!equality)
    note = "only numbers are ordered";
  error(Code::RuleKindMismatch, e.op_column,
        fmt::format("cannot compare {} with {} using '{}'", to_string(*l), to_string(*r), e.text), note);
  return std::nullopt;
}

Checker::Result Checker::check_logic(const Expr& e) {
  const Expr& left = *e.operands[0];
  const Expr& right = *e.operands[1];
  const bool is_and = e.text == "and";
  Result l = check(left);
  // `d or fallback` picks an optional dtype's value, else the fallback:
  // Python's own reading, since every torch.dtype is truthy.
  if (!is_and && l == ValueKind::OptionalDType) {
    const KindSet want = cpp_ ? KindSet{ValueKind::DType} : KindSet{ValueKind::DType, ValueKind::OptionalDType};
    Result r = expect(right, want, "the fallback of 'or'");
    if (!r) return std::nullopt;
    return *r == ValueKind::DType ? ValueKind::DType : ValueKind::OptionalDType;
  }
  Result r = with_narrowing(left, is_and, right);
  if (!l || !r) return std::nullopt;
  if (!is_and && *l == ValueKind::OptionalTensor) {
    error(Code::RuleKindMismatch, e.op_column, "'or' does not choose between tensors",
          "write 'a if a is not None else b'");
    return std::nullopt;
  }
  const std::string what = fmt::format("an operand of '{}'", e.text);
  const KindSet want{ValueKind::Bool};
  const bool left_ok = require_kind(left, *l, want, what);  // report both sides
  if (!require_kind(right, *r, want, what) || !left_ok) return std::nullopt;
  return ValueKind::Bool;
}

Checker::Result Checker::check_conditional(const Expr& e) {
  const Expr& cond = *e.operands[0];
  Result c = expect(cond, {ValueKind::Bool}, "the condition of 'if'");
  Result then = with_narrowing(cond, true, *e.operands[1]);
  Result otherwise = with_narrowing(cond, false, *e.operands[2]);
  if (!c || !then || !otherwise) return std::nullopt;
  if (*then == *otherwise) return then;
  if (is_dtype(*then) && is_dtype(*otherwise)) return ValueKind::OptionalDType;
  if (is_numeric(*then) && is_numeric(*otherwise)) return ValueKind::Float;
  error(Code::RuleKindMismatch, e.op_column, fmt::format("the branches of 'if' differ: {} and {}", to_string(*then),
                                 to_string(*otherwise)));
  return std::nullopt;
}

Checker::Result Checker::check_list(const Expr& e) {
  bool ok = true;
  for (const ExprPtr& item : e.operands) {
    if (item->kind == Kind::Star) {
      if (!expect(*item->operands[0], {ValueKind::Shape}, "a '*' splat in a shape list")) ok = false;
    } else if (!expect(*item, {ValueKind::Int}, "a shape element")) {
      ok = false;
    }
  }
  if (!ok) return std::nullopt;
  return ValueKind::Shape;
}

namespace {

std::variant<ValueKind, std::vector<ExprDiagnostic>> run_checker(const Expr& expr, const ExprEnv& env,
                                                                 bool cpp) {
  Checker checker(env, cpp);
  auto kind = checker.check(expr);
  std::vector<ExprDiagnostic> diags = checker.take_diagnostics();
  if (kind && diags.empty()) return *kind;
  if (diags.empty()) diags.push_back({expr.column, "invalid expression", "", Code::RuleKindMismatch});  // not expected
  return diags;
}

}  // namespace
}  // namespace opgen::model::detail

namespace opgen::model {

using namespace detail;

// ---------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------

std::variant<ValueKind, std::vector<ExprDiagnostic>> check_expr(const Expr& expr, const ExprEnv& env) {
  return run_checker(expr, env, /*cpp=*/false);
}

std::variant<ValueKind, std::vector<ExprDiagnostic>> check_cpp_expr(const Expr& expr, const ExprEnv& env) {
  return run_checker(expr, env, /*cpp=*/true);
}

}  // namespace opgen::model
