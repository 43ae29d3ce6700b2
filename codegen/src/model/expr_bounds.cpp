#include "model/expr_bounds.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "model/expr_internal.h"
#include "model/spec.h"

namespace opgen::model {
namespace {

using Kind = Expr::Kind;
constexpr double kInf = std::numeric_limits<double>::infinity();

// An interval of Int values; unbounded by default.
struct Bounds {
  double lo = -kInf, hi = kInf;
};
constexpr Bounds kAnything{};
constexpr Bounds kNonNegative{0, kInf};

// 0 * inf is 0 here: every bound stands for finite values.
double times(double a, double b) { return a == 0 || b == 0 ? 0 : a * b; }

Bounds product(Bounds a, Bounds b) {
  const double c[] = {times(a.lo, b.lo), times(a.lo, b.hi), times(a.hi, b.lo), times(a.hi, b.hi)};
  return {*std::min_element(std::begin(c), std::end(c)), *std::max_element(std::begin(c), std::end(c))};
}

std::optional<int64_t> int_literal(const Expr& e) {
  if (e.kind == Kind::IntLiteral) return e.int_value;
  if (e.kind == Kind::Unary && e.text == "-" && e.operands[0]->kind == Kind::IntLiteral)
    return -e.operands[0]->int_value;
  return std::nullopt;
}

// n + 1 without overflow: literals reach INT64_MAX.
int64_t plus_one(int64_t n) { return n == INT64_MAX ? n : n + 1; }

// `x` of a method call or attribute on the tensor argument x; "" otherwise.
std::string tensor_name(const Expr& object) { return object.kind == Kind::Name ? object.text : ""; }

// One side of a relation the facts can use: x.dim(), x.ndim, len(xs), k.
struct Measure {
  enum What { Rank, Length, Value } what;
  std::string name;
  ShapeFacts::Table table() const {
    return what == Rank ? &ShapeFacts::min_rank : what == Length ? &ShapeFacts::min_length : &ShapeFacts::min_value;
  }
};

std::optional<Measure> measure(const Expr& e) {
  if (e.kind == Kind::Name) return Measure{Measure::Value, e.text};
  if (e.kind == Kind::Attribute && e.text == "ndim" && e.operands[0]->kind == Kind::Name)
    return Measure{Measure::Rank, e.operands[0]->text};
  if (e.kind != Kind::Call || e.operands.size() < 1) return std::nullopt;
  const Expr& callee = *e.operands[0];
  if (callee.kind == Kind::Attribute && callee.text == "dim" && e.operands.size() == 1 &&
      callee.operands[0]->kind == Kind::Name)
    return Measure{Measure::Rank, callee.operands[0]->text};
  if (callee.kind == Kind::Name && callee.text == "len" && e.operands.size() == 2) {
    const Expr& arg = *e.operands[1];
    if (arg.kind == Kind::Name) return Measure{Measure::Length, arg.text};
    if (arg.kind == Kind::Attribute && arg.text == "shape" && arg.operands[0]->kind == Kind::Name)
      return Measure{Measure::Rank, arg.operands[0]->text};
  }
  return std::nullopt;
}

void raise_to(std::map<std::string, int64_t>& table, const std::string& name, int64_t at_least) {
  auto [it, inserted] = table.try_emplace(name, at_least);
  if (!inserted) it->second = std::max(it->second, at_least);
}

// What holds on both sides of an `or`: the smaller bound of a name both bound.
void keep_common(std::map<std::string, int64_t>& mine, const std::map<std::string, int64_t>& other) {
  for (auto it = mine.begin(); it != mine.end();) {
    auto found = other.find(it->first);
    if (found == other.end()) {
      it = mine.erase(it);
    } else {
      it->second = std::min(it->second, found->second);
      ++it;
    }
  }
}

// Who evaluates the expression, for the message ("FlopCounterMode would raise
// ..."), and the code of that position's diagnostic.
struct Raiser {
  std::string who;
  Code code;
  bool always_only = false;  // report only what raises on every accepted input (check_always_raises)
};

class Analysis {
 public:
  Analysis(const ExprEnv& env, const ShapeFacts& facts, const Raiser& raiser)
      : env_(env), facts_(facts), raiser_(raiser) {}

  Bounds visit(const Expr& e) {
    switch (e.kind) {
      case Kind::IntLiteral: return {static_cast<double>(e.int_value), static_cast<double>(e.int_value)};
      case Kind::Name: return name(e.text);
      case Kind::Attribute:
        if (e.text == "ndim") return {static_cast<double>(rank(*e.operands[0])), kInf};
        visit(*e.operands[0]);
        return kAnything;
      case Kind::Call: return call(e);
      case Kind::Subscript: return subscript(e);
      case Kind::Unary: {
        const Bounds b = visit(*e.operands[0]);
        return e.text == "-" ? Bounds{-b.hi, -b.lo} : kAnything;
      }
      case Kind::Binary: return binary(e);
      case Kind::Conditional: {  // a if c else b: a is evaluated only where c holds
        visit(*e.operands[0]);
        const Bounds a = visit_where(*e.operands[1], *e.operands[0]), b = visit(*e.operands[2]);
        return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
      }
      default:
        for (const auto& child : e.operands) visit(*child);
        return kAnything;
    }
  }

  std::vector<ExprDiagnostic> problems;

 private:
  Bounds name(const std::string& n) const {
    const detail::Resolved r = detail::resolve(env_, n);
    if (r.what != detail::Resolved::What::Argument || r.kind != ValueKind::Int) return kAnything;
    auto it = facts_.min_value.find(n);
    return {it == facts_.min_value.end() ? -kInf : static_cast<double>(it->second), kInf};
  }

  int64_t rank(const Expr& tensor) const {
    auto it = facts_.min_rank.find(tensor_name(tensor));
    return it == facts_.min_rank.end() ? 0 : it->second;
  }

  // The tensor's exact rank, where the facts give one and nothing known
  // contradicts it (a guard `x.dim() > 3` on a 2-D x: that code never runs).
  std::optional<int64_t> exact_rank(const Expr& tensor) const {
    const std::string name = tensor_name(tensor);
    auto it = facts_.exact_rank.find(name);
    if (it == facts_.exact_rank.end() || it->second < 0 || rank(tensor) > it->second) return std::nullopt;
    return it->second;
  }

  void may_raise(const Expr& at, std::string message, std::string note) {
    problems.push_back({at.op_column, raiser_.who + " would raise " + message, std::move(note), raiser_.code});
  }

  // `e`, evaluated only where `guard` holds (`guard and e`, `e if guard else
  // ...`): under what the guard adds to the facts.
  Bounds visit_where(const Expr& e, const Expr& guard) {
    ShapeFacts narrowed = facts_;
    narrowed.add_relation(guard);
    narrowed.close();
    Analysis inner(env_, narrowed, raiser_);
    const Bounds b = inner.visit(e);
    problems.insert(problems.end(), inner.problems.begin(), inner.problems.end());
    return b;
  }

  // Index `index` into something with at least `length` elements: in range
  // for every input only as a literal within it.
  void check_index(const Expr& at, const Expr& index, int64_t length, const std::string& what,
                   const std::string& fix, std::optional<int64_t> exact = std::nullopt) {
    const std::optional<int64_t> i = int_literal(index);
    if (raiser_.always_only) {
      if (i && exact && !(*i >= 0 ? *i < *exact : -*i <= *exact))
        may_raise(at, fmt::format("IndexError on every input: {} has exactly {} dimension{} (its checks), so index {} "
                                  "is out of range", what, *exact, *exact == 1 ? "" : "s", *i),
                  fmt::format("index within its {} dimensions, or change its `dim:` check", *exact));
      return;
    }
    if (i && (*i >= 0 ? *i < length : -*i <= length)) return;
    const int64_t needed = i ? (*i >= 0 ? plus_one(*i) : -*i) : 0;
    if (!i)
      may_raise(at, fmt::format("IndexError: this index of {} is not a literal, so it is not known to be in range", what),
                "index with a literal the op's checks guarantee, e.g. 0 or -1");
    else
      may_raise(at,
                needed == 1 ? fmt::format("IndexError: {} may have {} here", what,
                                          fix == "dim" ? "no dimensions (a 0-d tensor)" : "no elements")
                            : fmt::format("IndexError: {} may have fewer than {} {} here", what, needed,
                                          fix == "dim" ? "dimensions" : "elements"),
                fix == "dim" ? fmt::format("the op's checks must guarantee it: `dim: {}` in its checks, or "
                                           "`require: - {}.dim() >= {}`", needed, what, needed)
                             : fmt::format("the op's checks must guarantee it: `require: - len({}) >= {}`", what, needed));
  }

  Bounds call(const Expr& e) {
    const Expr& callee = *e.operands[0];
    std::vector<Bounds> args;
    for (size_t i = 1; i < e.operands.size(); ++i) args.push_back(visit(*e.operands[i]));
    if (callee.kind == Kind::Attribute) {  // a tensor method
      const Expr& object = *callee.operands[0];
      visit(object);
      if ((callee.text == "size" || callee.text == "stride") && e.operands.size() == 2)
        check_index(e, *e.operands[1], rank(object), tensor_name(object).empty() ? "this tensor" : tensor_name(object),
                    "dim", exact_rank(object));
      if (callee.text == "dim") return {static_cast<double>(rank(object)), kInf};
      return kNonNegative;  // size, stride, numel
    }
    if (callee.kind != Kind::Name) return kAnything;
    const std::string& fn = callee.text;
    if (fn == "len" || fn == "sum_numel") {
      if (auto m = measure(e)) {
        const auto& table = facts_.*(m->table());
        auto it = table.find(m->name);
        return {it == table.end() ? 0.0 : static_cast<double>(it->second), kInf};
      }
      return kNonNegative;
    }
    if (args.size() != 2) return kAnything;
    const Bounds a = args[0], b = args[1];
    if (fn == "min") return {std::min(a.lo, b.lo), std::min(a.hi, b.hi)};
    if (fn == "max") return {std::max(a.lo, b.lo), std::max(a.hi, b.hi)};
    if (fn == "ceil_div" || fn == "round_up") {
      check_divisor(e, b);
      return a.lo >= 0 && b.hi >= 1 ? kNonNegative : kAnything;
    }
    return kAnything;
  }

  Bounds subscript(const Expr& e) {
    const Expr& object = *e.operands[0];
    if (e.is_slice) {
      visit(object);
      for (const Expr* bound : {e.slice_lower.get(), e.slice_upper.get()})
        if (bound) visit(*bound);
      return kAnything;
    }
    visit(*e.index);
    if (object.kind == Kind::Attribute && object.text == "shape") {  // x.shape[i]: a size
      check_index(e, *e.index, rank(*object.operands[0]),
                  tensor_name(*object.operands[0]).empty() ? "this tensor" : tensor_name(*object.operands[0]), "dim",
                  exact_rank(*object.operands[0]));
      return kNonNegative;
    }
    if (object.kind != Kind::List) visit(object);  // a list's items: below
    int64_t length = 0;
    std::string what = "this list";
    if (object.kind == Kind::Name) {
      auto it = facts_.min_length.find(object.text);
      length = it == facts_.min_length.end() ? 0 : it->second;
      what = object.text;
    } else if (object.kind == Kind::List &&
               std::none_of(object.operands.begin(), object.operands.end(),
                            [](const ExprPtr& item) { return item->kind == Kind::Star; })) {
      length = static_cast<int64_t>(object.operands.size());
    }
    check_index(e, *e.index, length, what, "len");
    if (object.kind == Kind::List && !object.operands.empty()) {  // [a, b][i]: one of the items
      Bounds any{kInf, -kInf};
      for (const auto& item : object.operands) {
        const Bounds b = visit(*item);
        any = {std::min(any.lo, b.lo), std::max(any.hi, b.hi)};
      }
      return any;
    }
    return kAnything;
  }

  void check_divisor(const Expr& at, Bounds divisor) {
    if (divisor.lo >= 1 || divisor.hi <= -1 || raiser_.always_only) return;
    may_raise(at, "ZeroDivisionError: this divisor can be 0 (any size, numel or length is 0 for an empty input, "
                  "and an int argument is unbounded unless a `require:` rule bounds it)",
              "divide by max(d, 1), or bound it in `require:` (e.g. `- d >= 1`) so that the op rejects a 0 first");
  }

  // `a < b` -> `a >= b` and the like: where a comparison fails. nullopt for
  // any other condition (no fact is read from it).
  static std::optional<Expr> negated(const Expr& condition) {
    static const std::map<std::string, std::string> kFlipped = {
        {"<", ">="}, {"<=", ">"}, {">", "<="}, {">=", "<"}, {"!=", "=="}};
    if (condition.kind != Kind::Binary) return std::nullopt;
    auto flipped = kFlipped.find(condition.text);
    if (flipped == kFlipped.end()) return std::nullopt;
    Expr out = condition;
    out.text = flipped->second;
    return out;
  }

  Bounds binary(const Expr& e) {
    if (e.text == "and") {  // the right side runs only where the left holds
      visit(*e.operands[0]);
      visit_where(*e.operands[1], *e.operands[0]);
      return kAnything;
    }
    if (e.text == "or") {  // the right side runs only where the left fails
      visit(*e.operands[0]);
      if (const auto fails = negated(*e.operands[0]))
        visit_where(*e.operands[1], *fails);
      else if (!raiser_.always_only)  // nothing known of where it runs: the strict proof reads it as is
        visit(*e.operands[1]);
      return kAnything;
    }
    const Bounds a = visit(*e.operands[0]), b = visit(*e.operands[1]);
    const std::string& op = e.text;
    if (op == "+") return {a.lo + b.lo, a.hi + b.hi};
    if (op == "-") return {a.lo - b.hi, a.hi - b.lo};
    if (op == "*") return product(a, b);
    if (op == "//" || op == "%") {
      // A divisor that can be 0 is reported once; the rest is bounded as if
      // it were at least 1, as its fix makes it.
      check_divisor(e, b);
      if (b.hi < 1) return kAnything;  // a negative divisor: no useful bound
      if (op == "%") return {0, b.hi - 1};
      return a.lo >= 0 ? Bounds{0, a.hi} : kAnything;
    }
    return kAnything;  // comparisons and logic: Bool
  }

  const ExprEnv& env_;
  const ShapeFacts& facts_;
  const Raiser& raiser_;
};

}  // namespace

void ShapeFacts::add_relation(const Expr& relation) {
  if (relation.kind != Kind::Binary || relation.operands.size() != 2) return;
  const Expr& left = *relation.operands[0];
  const Expr& right = *relation.operands[1];
  const std::string& op = relation.text;
  if (op == "and") {
    add_relation(left);
    add_relation(right);
    return;
  }
  if (op == "or") {
    ShapeFacts a, b;
    a.add_relation(left);
    b.add_relation(right);
    keep_common(a.min_rank, b.min_rank);
    keep_common(a.min_length, b.min_length);
    keep_common(a.min_value, b.min_value);
    for (auto [table, from] : {std::pair{&min_rank, &a.min_rank}, std::pair{&min_length, &a.min_length},
                               std::pair{&min_value, &a.min_value}})
      for (const auto& [name, at_least] : *from) raise_to(*table, name, at_least);
    return;
  }
  const auto lm = measure(left), rm = measure(right);
  const auto lv = int_literal(left), rv = int_literal(right);
  if (lm && rm && op == "==" && lm->what == rm->what) {  // a.dim() == b.dim(): each at least the other's
    same.push_back({lm->table(), lm->name, rm->name});
    return;
  }
  // measure >= v, measure > v, measure == v, and the mirror images.
  std::optional<Measure> m;
  std::optional<int64_t> at_least;
  if (lm && rv && (op == "==" || op == ">=" || op == ">")) {
    m = lm;
    at_least = op == ">" ? plus_one(*rv) : *rv;
  } else if (rm && lv && (op == "==" || op == "<=" || op == "<")) {
    m = rm;
    at_least = op == "<" ? plus_one(*lv) : *lv;
  }
  if (m) raise_to(this->*(m->table()), m->name, *at_least);
  // x.dim() == n: exactly n (two different exact ranks: code that never runs, -1).
  if (m && op == "==" && m->what == Measure::Rank) {
    auto [it, inserted] = exact_rank.try_emplace(m->name, *at_least);
    if (!inserted && it->second != *at_least) it->second = -1;
  }
}

void ShapeFacts::close() {
  // Each pass raises at least one bound to another's, so |same| + 1 passes reach the fixpoint.
  for (size_t pass = 0; pass <= same.size(); ++pass) {
    bool changed = false;
    for (const auto& [table_member, a, b] : same) {
      auto& table = this->*table_member;
      auto ia = table.find(a), ib = table.find(b);
      if (ia == table.end() && ib == table.end()) continue;
      const int64_t both = std::max(ia == table.end() ? INT64_MIN : ia->second, ib == table.end() ? INT64_MIN : ib->second);
      for (const std::string* name : {&a, &b}) {
        auto [it, inserted] = table.try_emplace(*name, both);
        if (inserted || it->second < both) changed = true;
        it->second = both;
      }
    }
    if (!changed) break;
  }
}

ShapeFacts accepted_shapes(const OpSpec& op) {
  ShapeFacts facts;
  for (const auto& check : op.checks)
    if (check.dim) facts.min_rank[check.arg.value] = facts.exact_rank[check.arg.value] = check.dim->value;
  for (const auto& relation : op.require)
    if (relation.expr) facts.add_relation(*relation.expr);
  return facts;
}

std::vector<ExprDiagnostic> check_cannot_raise(const Expr& expr, const ExprEnv& env, ShapeFacts facts,
                                               const std::string& who, Code code) {
  facts.close();
  const Raiser raiser{who, code};
  Analysis analysis(env, facts, raiser);
  analysis.visit(expr);
  return std::move(analysis.problems);
}

std::vector<ExprDiagnostic> check_always_raises(const Expr& expr, const ExprEnv& env, ShapeFacts facts,
                                                const std::string& who, Code code) {
  facts.close();
  const Raiser raiser{who, code, true};
  Analysis analysis(env, facts, raiser);
  analysis.visit(expr);
  return std::move(analysis.problems);
}

std::vector<ExprDiagnostic> check_total_count(const Expr& expr, const ExprEnv& env, ShapeFacts facts) {
  facts.close();
  const Raiser raiser{"FlopCounterMode", Code::FlopsMayRaise};
  Analysis analysis(env, facts, raiser);
  const Bounds count = analysis.visit(expr);
  if (count.lo < 0)
    analysis.problems.push_back(
        {expr.column, "this count can be negative for some input the op accepts (a size or numel of 0, or an int "
                      "argument no `require:` rule bounds)",
         "FlopCounterMode would add it to the total as it is: wrap it in max(0, ...), or bound what makes it "
         "negative in `require:`",
         Code::FlopsMayBeNegative});
  return std::move(analysis.problems);
}

}  // namespace opgen::model
