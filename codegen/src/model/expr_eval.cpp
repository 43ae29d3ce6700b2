#include "model/expr_eval.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "model/types.h"

namespace opgen::model {
namespace {

using Kind = Expr::Kind;
using Value = EvalValue;
using Result = std::optional<Value>;

template <typename T>
const T* as(const Result& v) {
  return v ? std::get_if<T>(&*v) : nullptr;
}

// Python's index rules: -1 is the last element.
std::optional<size_t> normalize_index(int64_t i, size_t size) {
  const auto n = static_cast<int64_t>(size);
  if (i < 0) i += n;
  if (i < 0 || i >= n) return std::nullopt;
  return static_cast<size_t>(i);
}

// Python's slice bounds: clamped, negative from the end.
size_t slice_bound(std::optional<int64_t> bound, size_t size, size_t fallback) {
  if (!bound) return fallback;
  const auto n = static_cast<int64_t>(size);
  int64_t b = *bound < 0 ? *bound + n : *bound;
  return static_cast<size_t>(std::clamp<int64_t>(b, 0, n));
}

std::optional<int64_t> arith(const std::string& op, int64_t a, int64_t b) {
  int64_t out = 0;
  if (op == "+") return __builtin_add_overflow(a, b, &out) ? std::nullopt : std::optional(out);
  if (op == "-") return __builtin_sub_overflow(a, b, &out) ? std::nullopt : std::optional(out);
  if (op == "*") return __builtin_mul_overflow(a, b, &out) ? std::nullopt : std::optional(out);
  if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
  int64_t q = a / b, r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) {  // floor, as Python
    q -= 1;
    r += b;
  }
  if (op == "//") return q;
  if (op == "%") return r;
  return std::nullopt;
}

std::optional<double> as_number(const Result& v) {
  if (const auto* i = as<int64_t>(v)) return static_cast<double>(*i);
  if (const auto* d = as<double>(v)) return *d;
  return std::nullopt;
}

class Evaluator {
 public:
  explicit Evaluator(const EvalBindings& bindings) : bindings_(bindings) {}

  Result eval(const Expr& e) {
    switch (e.kind) {
      case Kind::IntLiteral: return Value{e.int_value};
      case Kind::FloatLiteral: return Value{std::strtod(e.text.c_str(), nullptr)};
      case Kind::BoolLiteral: return Value{e.text == "True"};
      case Kind::NoneLiteral: return Value{EvalNone{}};
      case Kind::Name: return name(e.text);
      case Kind::Attribute: return attribute(e);
      case Kind::Call: return call(e);
      case Kind::Subscript: return subscript(e);
      case Kind::Unary: return unary(e);
      case Kind::Binary: return binary(e);
      case Kind::Conditional: {
        const Result cond = eval(*e.operands[0]);
        if (!as<bool>(cond)) return std::nullopt;
        return eval(*e.operands[*as<bool>(cond) ? 1 : 2]);
      }
      case Kind::List: return list(e);
      case Kind::Star: return std::nullopt;  // only inside a List
    }
    return std::nullopt;
  }

 private:
  Result name(const std::string& text) {
    if (auto it = bindings_.find(text); it != bindings_.end()) return it->second;
    if (find_dtype(text)) return Value{EvalDType{text}};
    return std::nullopt;
  }

  Result attribute(const Expr& e) {
    const Result object = eval(*e.operands[0]);
    const auto* t = as<EvalTensor>(object);
    if (!t) return std::nullopt;
    if (e.text == "shape") return Value{EvalShape{t->shape}};
    if (e.text == "dtype") return Value{EvalDType{t->dtype}};
    if (e.text == "ndim") return Value{static_cast<int64_t>(t->shape.size())};
    return std::nullopt;
  }

  Result method(const Expr& call, const EvalTensor& t, const std::string& name) {
    std::vector<int64_t> ints;
    for (size_t i = 1; i < call.operands.size(); ++i) {
      const Result v = eval(*call.operands[i]);
      if (!as<int64_t>(v)) return std::nullopt;
      ints.push_back(*as<int64_t>(v));
    }
    if (name == "dim") return Value{static_cast<int64_t>(t.shape.size())};
    if (name == "numel") {
      int64_t n = 1;
      for (int64_t s : t.shape)
        if (__builtin_mul_overflow(n, s, &n)) return std::nullopt;
      return Value{n};
    }
    if (ints.size() != 1) return std::nullopt;
    const auto index = normalize_index(ints[0], t.shape.size());
    if (!index) return std::nullopt;
    if (name == "size") return Value{t.shape[*index]};
    if (name == "stride") {
      int64_t stride = 1;
      for (size_t k = t.shape.size(); k-- > *index + 1;)
        if (__builtin_mul_overflow(stride, std::max<int64_t>(t.shape[k], 1), &stride)) return std::nullopt;
      return Value{stride};
    }
    return std::nullopt;
  }

  Result call(const Expr& e) {
    const Expr& callee = *e.operands[0];
    if (callee.kind == Kind::Attribute) {
      const Result object = eval(*callee.operands[0]);
      const auto* t = as<EvalTensor>(object);
      return t ? method(e, *t, callee.text) : std::nullopt;
    }
    if (callee.kind != Kind::Name) return std::nullopt;
    const std::string& fn = callee.text;
    std::vector<Result> args;
    for (size_t i = 1; i < e.operands.size(); ++i) args.push_back(eval(*e.operands[i]));
    if (fn == "len" && args.size() == 1) {
      if (const auto* list = as<std::vector<EvalTensor>>(args[0])) return Value{static_cast<int64_t>(list->size())};
      if (const auto* shape = as<EvalShape>(args[0])) return Value{static_cast<int64_t>(shape->sizes.size())};
      return std::nullopt;
    }
    if (fn == "sum_numel" && args.size() == 1) {
      const auto* list = as<std::vector<EvalTensor>>(args[0]);
      if (!list) return std::nullopt;
      int64_t total = 0;
      for (const EvalTensor& t : *list) {
        int64_t n = 1;
        for (int64_t s : t.shape)
          if (__builtin_mul_overflow(n, s, &n)) return std::nullopt;
        if (__builtin_add_overflow(total, n, &total)) return std::nullopt;
      }
      return Value{total};
    }
    if (args.size() != 2 || !as<int64_t>(args[0]) || !as<int64_t>(args[1])) return std::nullopt;
    const int64_t a = *as<int64_t>(args[0]), b = *as<int64_t>(args[1]);
    if (fn == "min") return Value{std::min(a, b)};
    if (fn == "max") return Value{std::max(a, b)};
    // ceil_div(a, b) = (a + b - 1) // b and round_up(a, b) = that * b, as rendered.
    if (fn == "ceil_div" || fn == "round_up") {
      int64_t top = 0, product = 0;
      if (b <= 0 || __builtin_add_overflow(a, b - 1, &top)) return std::nullopt;
      const int64_t quotient = *arith("//", top, b);  // b > 0: defined
      if (fn == "ceil_div") return Value{quotient};
      if (__builtin_mul_overflow(quotient, b, &product)) return std::nullopt;
      return Value{product};
    }
    return std::nullopt;  // dynamic(), like(), empty(), ...: run-time only
  }

  Result subscript(const Expr& e) {
    const Result object = eval(*e.operands[0]);
    if (e.is_slice) {
      const auto* shape = as<EvalShape>(object);
      if (!shape) return std::nullopt;
      std::optional<int64_t> lower, upper;
      for (auto [bound, out] : {std::pair{e.slice_lower.get(), &lower}, std::pair{e.slice_upper.get(), &upper}}) {
        if (!bound) continue;
        const Result v = eval(*bound);
        if (!as<int64_t>(v)) return std::nullopt;
        *out = *as<int64_t>(v);
      }
      const size_t n = shape->sizes.size();
      const size_t from = slice_bound(lower, n, 0), to = slice_bound(upper, n, n);
      if (from >= to) return Value{EvalShape{}};
      return Value{EvalShape{{shape->sizes.begin() + from, shape->sizes.begin() + to}}};
    }
    const Result index = eval(*e.index);
    if (!as<int64_t>(index)) return std::nullopt;
    if (const auto* shape = as<EvalShape>(object)) {
      const auto i = normalize_index(*as<int64_t>(index), shape->sizes.size());
      return i ? Result(Value{shape->sizes[*i]}) : std::nullopt;
    }
    if (const auto* list = as<std::vector<EvalTensor>>(object)) {
      const auto i = normalize_index(*as<int64_t>(index), list->size());
      return i ? Result(Value{(*list)[*i]}) : std::nullopt;
    }
    return std::nullopt;
  }

  Result unary(const Expr& e) {
    const Result v = eval(*e.operands[0]);
    if (e.text == "not") return as<bool>(v) ? Result(Value{!*as<bool>(v)}) : std::nullopt;
    if (e.text == "-") {
      if (const auto* i = as<int64_t>(v)) return *i == INT64_MIN ? std::nullopt : Result(Value{-*i});
      if (const auto* d = as<double>(v)) return Value{-*d};
    }
    return std::nullopt;
  }

  Result binary(const Expr& e) {
    const std::string& op = e.text;
    const Result left = eval(*e.operands[0]);
    if (!left) return std::nullopt;
    if (op == "and" || op == "or") {
      // Python's: `a or b` is a when a is truthy (an optional dtype, or a Bool).
      const bool truthy = as<bool>(left) ? *as<bool>(left) : !as<EvalNone>(left);
      if ((op == "and") != truthy) return left;
      return eval(*e.operands[1]);
    }
    const Result right = eval(*e.operands[1]);
    if (!right) return std::nullopt;
    if (op == "is" || op == "is not") {
      const bool same = as<EvalNone>(left) && as<EvalNone>(right);
      return Value{op == "is" ? same : !same};
    }
    if (op == "==" || op == "!=") {
      std::optional<bool> equal;
      if (as<EvalDType>(left) && as<EvalDType>(right)) equal = as<EvalDType>(left)->name == as<EvalDType>(right)->name;
      else if (as<bool>(left) && as<bool>(right)) equal = *as<bool>(left) == *as<bool>(right);
      else if (as<std::string>(left) && as<std::string>(right)) equal = *as<std::string>(left) == *as<std::string>(right);
      else if (as<int64_t>(left) && as<int64_t>(right)) equal = *as<int64_t>(left) == *as<int64_t>(right);
      else if (as_number(left) && as_number(right)) equal = *as_number(left) == *as_number(right);
      if (!equal) return std::nullopt;
      return Value{op == "==" ? *equal : !*equal};
    }
    if (op == "<" || op == "<=" || op == ">" || op == ">=") {
      if (as<int64_t>(left) && as<int64_t>(right)) {
        const int64_t a = *as<int64_t>(left), b = *as<int64_t>(right);
        return Value{op == "<" ? a < b : op == "<=" ? a <= b : op == ">" ? a > b : a >= b};
      }
      const auto a = as_number(left), b = as_number(right);
      if (!a || !b) return std::nullopt;
      return Value{op == "<" ? *a < *b : op == "<=" ? *a <= *b : op == ">" ? *a > *b : *a >= *b};
    }
    if (as<int64_t>(left) && as<int64_t>(right)) {
      auto r = arith(op, *as<int64_t>(left), *as<int64_t>(right));
      return r ? Result(Value{*r}) : std::nullopt;
    }
    return std::nullopt;  // Float arithmetic: not an Int, never a count
  }

  Result list(const Expr& e) {
    EvalShape shape;
    for (const auto& item : e.operands) {
      if (item->kind == Kind::Star) {
        const Result inner = eval(*item->operands[0]);
        const auto* s = as<EvalShape>(inner);
        if (!s) return std::nullopt;
        shape.sizes.insert(shape.sizes.end(), s->sizes.begin(), s->sizes.end());
        continue;
      }
      const Result v = eval(*item);
      if (!as<int64_t>(v)) return std::nullopt;
      shape.sizes.push_back(*as<int64_t>(v));
    }
    return Value{std::move(shape)};
  }

  const EvalBindings& bindings_;
};

}  // namespace

std::optional<EvalValue> evaluate(const Expr& expr, const EvalBindings& bindings) {
  // The parser bounds the tree's height (kMaxExprDepth), so the recursion is bounded.
  return Evaluator(bindings).eval(expr);
}

std::optional<int64_t> evaluate_int(const Expr& expr, const EvalBindings& bindings) {
  const auto v = evaluate(expr, bindings);
  if (!v) return std::nullopt;
  if (const auto* i = std::get_if<int64_t>(&*v)) return *i;
  return std::nullopt;
}

}  // namespace opgen::model
