// The rule-expression language: lexer, parser, type checker, and the Python
// and C++ renderers. docs/fake-rules.md is the user-facing reference; each
// table below has a section there, so a change here is a change there.
//
// Rule text comes from YAML files and is fuzzed, so nothing here may crash on
// any input: the parser bounds its recursion and the height of the tree it
// builds (kMaxExprDepth), which bounds every later recursive pass too.
#include "model/expr.h"

#include <algorithm>
#include <limits>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <initializer_list>
#include <set>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "model/types.h"
#include "support/diagnostics.h"

namespace opgen::model {
namespace {

using Kind = Expr::Kind;

// ---------------------------------------------------------------------------
// Tables: value kinds, schema types, names, members, operators
// ---------------------------------------------------------------------------

constexpr std::array<std::pair<ValueKind, std::string_view>, 13> kKindNames = {{
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
constexpr std::array<std::pair<std::string_view, ValueKind>, 13> kSchemaKinds = {{
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

constexpr std::string_view kUsableTypesNote =
    "rules can use arguments of type Tensor, Tensor?, Tensor[], int, SymInt, float, bool, str, "
    "ScalarType, ScalarType?, int[], SymInt[] and MemoryFormat";

// Dtype names come from model/types.h (one table for rules and `checks:`);
// memory formats are only meaningful to rules, so they live here.
struct MemoryFormatInfo {
  std::string_view name;
  std::string_view python;
};
constexpr std::array<MemoryFormatInfo, 4> kMemoryFormats = {{
    {"contiguous_format", "torch.contiguous_format"},
    {"channels_last", "torch.channels_last"},
    {"channels_last_3d", "torch.channels_last_3d"},
    {"preserve_format", "torch.preserve_format"},
}};

const MemoryFormatInfo* find_memory_format(std::string_view name) {
  for (const MemoryFormatInfo& info : kMemoryFormats)
    if (info.name == name) return &info;
  return nullptr;
}

// torch's dtype aliases are not accepted (`int` and `float` read too much like
// Python types); an unknown-name error for one names the canonical spelling.
constexpr std::array<std::pair<std::string_view, std::string_view>, 8> kDTypeAliases = {{
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
constexpr std::array<std::pair<std::string_view, std::string_view>, 3> kNameHints = {{
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
constexpr std::array<TensorMember, 7> kTensorMembers = {{
    {"size", true, 1, ValueKind::Int, "size"},
    {"stride", true, 1, ValueKind::Int, "stride"},
    {"dim", true, 0, ValueKind::Int, "dim"},
    {"numel", true, 0, ValueKind::Int, "numel"},
    {"shape", false, 0, ValueKind::Shape, ""},  // C++ only as x.shape[i] -> x.size(i)
    {"dtype", false, 0, ValueKind::DType, "scalar_type()"},
    {"ndim", false, 0, ValueKind::Int, "dim()"},
}};

const TensorMember* find_member(std::string_view name) {
  for (const TensorMember& m : kTensorMembers)
    if (m.name == name) return &m;
  return nullptr;
}

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
constexpr std::array<BinaryOp, 15> kBinaryOps = {{
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

const BinaryOp* find_binary_op(std::string_view text) {
  for (const BinaryOp& op : kBinaryOps)
    if (op.text == text) return &op;
  return nullptr;
}

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

Resolved resolve(const ExprEnv& env, const std::string& name) {
  using What = Resolved::What;
  if (auto it = env.lets.find(name); it != env.lets.end()) return {What::Let, it->second};
  if (env.schema) {
    for (const Argument& arg : env.schema->arguments) {
      if (arg.name != name) continue;
      return {What::Argument, arg.type ? value_kind_of(*arg.type) : std::nullopt, &arg};
    }
  }
  if (const DTypeInfo* dtype = find_dtype(name)) return {What::DType, ValueKind::DType, nullptr, dtype};
  if (const MemoryFormatInfo* format = find_memory_format(name))
    return {What::MemoryFormat, ValueKind::MemoryFormat, nullptr, nullptr, format};
  return {};
}

// Names of optional values that `cond` evaluating to `when` proves non-None:
// `x is not None` (true), `x is None` (false), through and/or/not. The
// checker types the right side of `and`/`or` and the branches of `if` under
// these, which is what makes `s is None or s.size(0) == n` well-typed.
void collect_narrowed(const Expr& cond, bool when, std::vector<std::string>& out) {
  if (cond.kind == Kind::Unary && cond.text == "not" && !cond.operands.empty()) {
    collect_narrowed(*cond.operands[0], !when, out);
    return;
  }
  if (cond.kind != Kind::Binary || cond.operands.size() != 2) return;
  const Expr& left = *cond.operands[0];
  const Expr& right = *cond.operands[1];
  if ((cond.text == "is" || cond.text == "is not") && left.kind == Kind::Name &&
      right.kind == Kind::NoneLiteral) {
    if ((cond.text == "is not") == when) out.push_back(left.text);
  } else if ((cond.text == "and" && when) || (cond.text == "or" && !when)) {
    collect_narrowed(left, when, out);
    collect_narrowed(right, when, out);
  }
}

// ---------------------------------------------------------------------------
// Lexer
// ---------------------------------------------------------------------------

struct Token {
  enum class Type { Identifier, Integer, Float, Punct, End };
  Type type = Type::End;
  std::string_view text;
  size_t column = 0;
  int64_t int_value = 0;
};

struct SyntaxError {
  ExprDiagnostic diag;
};

[[noreturn]] void syntax_error(size_t column, std::string message, std::string note = {}) {
  throw SyntaxError{{column, std::move(message), std::move(note), Code::RuleSyntax}};
}

// Punctuation, longest first so `//` wins over `/`. Rejected entries are
// operators people will try; they get an error with the spelling to use.
struct PunctSpec {
  std::string_view text;
  bool accepted;
  std::string_view message;  // rejected: the error
  std::string_view note;
};
constexpr std::array<PunctSpec, 35> kPuncts = {{
    {"//", true, "", ""},
    {"==", true, "", ""},
    {"!=", true, "", ""},
    {"<=", true, "", ""},
    {">=", true, "", ""},
    {"**", false, "'**' (power) is not supported", ""},
    {"&&", false, "'&&' is not supported", "use 'and'"},
    {"||", false, "'||' is not supported", "use 'or'"},
    {"<<", false, "'<<' is not supported", ""},
    {">>", false, "'>>' is not supported", ""},
    {"(", true, "", ""},
    {")", true, "", ""},
    {"[", true, "", ""},
    {"]", true, "", ""},
    {",", true, "", ""},
    {":", true, "", ""},
    {".", true, "", ""},
    {"+", true, "", ""},
    {"-", true, "", ""},
    {"*", true, "", ""},
    {"%", true, "", ""},
    {"<", true, "", ""},
    {">", true, "", ""},
    {"=", true, "", ""},
    {"/", false, "'/' is not supported", "use '//' for floor division, or ceil_div(a, b)"},
    {"&", false, "'&' is not supported", "use 'and'"},
    {"|", false, "'|' is not supported", "use 'or'"},
    {"!", false, "'!' is not supported", "use 'not', or '!=' for inequality"},
    {"~", false, "'~' is not supported", ""},
    {"^", false, "'^' is not supported", ""},
    {"@", false, "'@' is not supported", ""},
    {"\"", false, "string literals are not supported", ""},
    {"'", false, "string literals are not supported", ""},
    {"{", false, "'{' is not supported", "shapes are lists: [a, b]"},
    {"#", false, "comments are not supported in rule expressions", ""},
}};

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Integers are decimal without leading zeros (which C++ would read as octal);
// floats are Python's: `1.5`, `1.`, `.5`, `1e-6`.
Token lex_number(std::string_view s, size_t start) {
  size_t i = start;
  while (i < s.size() && is_digit(s[i])) ++i;
  bool is_float = false;
  if (i < s.size() && s[i] == '.') {
    is_float = true;
    ++i;
    while (i < s.size() && is_digit(s[i])) ++i;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    is_float = true;
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (i >= s.size() || !is_digit(s[i])) syntax_error(start, "malformed exponent in number");
    while (i < s.size() && is_digit(s[i])) ++i;
  }
  if (i < s.size() && is_ident_char(s[i]))
    syntax_error(start, fmt::format("invalid number literal '{}'", s.substr(start, i + 1 - start)));
  Token token{is_float ? Token::Type::Float : Token::Type::Integer, s.substr(start, i - start), start};
  const char* first = token.text.data();
  const char* last = first + token.text.size();
  if (is_float) {
    double value = 0;
    auto [end, ec] = std::from_chars(first, last, value);
    if (ec != std::errc() || end != last)
      syntax_error(start, "float literal out of range");
    return token;
  }
  if (token.text.size() > 1 && token.text[0] == '0')
    syntax_error(start, "leading zeros are not allowed in integer literals");
  auto [end, ec] = std::from_chars(first, last, token.int_value);
  if (ec != std::errc() || end != last)
    syntax_error(start, "integer literal too large", "the largest is 9223372036854775807");
  return token;
}

std::vector<Token> lex(std::string_view s) {
  std::vector<Token> tokens;
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++i;
    } else if (is_ident_start(c)) {
      size_t start = i;
      while (i < s.size() && is_ident_char(s[i])) ++i;
      tokens.push_back({Token::Type::Identifier, s.substr(start, i - start), start});
    } else if (is_digit(c) || (c == '.' && i + 1 < s.size() && is_digit(s[i + 1]))) {
      tokens.push_back(lex_number(s, i));
      i += tokens.back().text.size();
    } else {
      const PunctSpec* match = nullptr;
      for (const PunctSpec& p : kPuncts) {
        if (s.substr(i, p.text.size()) == p.text) {
          match = &p;
          break;
        }
      }
      if (!match) {
        const auto byte = static_cast<unsigned char>(c);
        if (std::isprint(byte)) syntax_error(i, fmt::format("unexpected character '{}'", c));
        syntax_error(i, fmt::format("unexpected byte 0x{:02x}", byte),
                     "rule expressions are plain ASCII");
      }
      if (!match->accepted) syntax_error(i, std::string(match->message), std::string(match->note));
      tokens.push_back({Token::Type::Punct, match->text, i});
      i += match->text.size();
    }
  }
  tokens.push_back({Token::Type::End, "", s.size()});
  return tokens;
}

// ---------------------------------------------------------------------------
// Parser: recursive descent, one function per Python precedence level
// ---------------------------------------------------------------------------

// Python keywords that are operators or literals in rules; the rest of
// Python's keywords are reserved so that `lambda` or `for` get a clear error.
constexpr std::array<std::string_view, 9> kOperatorKeywords = {
    "and", "or", "not", "if", "else", "is", "in", "True", "False"};
constexpr std::array<std::string_view, 25> kReservedKeywords = {
    "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
    "elif", "except", "finally", "for", "from", "global", "import", "lambda", "nonlocal",
    "pass", "raise", "return", "try", "while", "with", "yield"};

template <size_t N>
bool contains(const std::array<std::string_view, N>& list, std::string_view word) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  ExprPtr parse() {
    if (peek().type == Token::Type::End) syntax_error(peek().column, "expected an expression");
    ExprPtr e = expression();
    if (peek().type != Token::Type::End) {
      const Token& t = peek();
      syntax_error(t.column, fmt::format("unexpected {} after the end of the expression", describe(t)),
                   t.text == "=" ? "use '==' to compare" : "");
    }
    return e;
  }

 private:
  // Bounds the parser's own recursion; the tree height is bounded after
  // parsing (check_height), since loops build deep left spines too.
  class DepthGuard {
   public:
    DepthGuard(Parser& parser, size_t column) : parser_(parser) {
      if (++parser_.depth_ > kMaxExprDepth)
        syntax_error(column, "expression nested too deeply",
                     fmt::format("the limit is {} levels", kMaxExprDepth));
    }
    ~DepthGuard() { --parser_.depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;

   private:
    Parser& parser_;
  };

  const Token& peek(size_t ahead = 0) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
  }
  const Token& advance() {
    const Token& t = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  bool at_punct(std::string_view p, size_t ahead = 0) const {
    return peek(ahead).type == Token::Type::Punct && peek(ahead).text == p;
  }
  bool at_keyword(std::string_view k, size_t ahead = 0) const {
    return peek(ahead).type == Token::Type::Identifier && peek(ahead).text == k;
  }
  static std::string describe(const Token& t) {
    return t.type == Token::Type::End ? "the end of the expression" : fmt::format("'{}'", t.text);
  }
  const Token& expect_punct(std::string_view p, std::string_view context) {
    if (!at_punct(p))
      syntax_error(peek().column, fmt::format("expected '{}' {}, found {}", p, context, describe(peek())));
    return advance();
  }

  static std::shared_ptr<Expr> make(Kind kind, size_t column, size_t op_column) {
    auto e = std::make_shared<Expr>();
    e->kind = kind;
    e->column = column;
    e->op_column = op_column;
    return e;
  }

  // expression := disjunction ['if' disjunction 'else' expression]
  ExprPtr expression() {
    DepthGuard guard(*this, peek().column);
    ExprPtr then = disjunction();
    if (!at_keyword("if")) return then;
    const Token& if_token = advance();
    ExprPtr cond = disjunction();
    if (!at_keyword("else"))
      syntax_error(peek().column, fmt::format("expected 'else', found {}", describe(peek())),
                   "a conditional is written 'a if condition else b'");
    advance();
    ExprPtr otherwise = expression();
    auto e = make(Kind::Conditional, then->column, if_token.column);
    e->text = "if";
    e->operands = {cond, then, otherwise};
    return e;
  }

  // Left-associative binary operators of one level (from kBinaryOps).
  ExprPtr left_assoc(int level, ExprPtr (Parser::*next)()) {
    ExprPtr left = (this->*next)();
    while (const BinaryOp* op = binary_op_here(level)) {
      const Token& token = advance();
      ExprPtr right = (this->*next)();
      auto e = make(Kind::Binary, left->column, token.column);
      e->text = op->text;
      e->operands = {left, right};
      left = e;
    }
    return left;
  }
  const BinaryOp* binary_op_here(int level) const {
    const Token& t = peek();
    if (t.type != Token::Type::Identifier && t.type != Token::Type::Punct) return nullptr;
    const BinaryOp* op = find_binary_op(t.text);
    return op && op->py_prec == level ? op : nullptr;
  }

  ExprPtr disjunction() { return left_assoc(kPyOr, &Parser::conjunction); }
  ExprPtr conjunction() { return left_assoc(kPyAnd, &Parser::inversion); }

  ExprPtr inversion() {
    if (!at_keyword("not")) return comparison();
    DepthGuard guard(*this, peek().column);
    const Token& token = advance();
    auto e = make(Kind::Unary, token.column, token.column);
    e->text = "not";
    e->operands = {inversion()};
    return e;
  }

  // comparison := sum [compare_op sum]; chains like `a < b < c` are errors
  // (Python would read them as `a < b and b < c`, C++ as `(a < b) < c`).
  ExprPtr comparison() {
    ExprPtr left = sum();
    const size_t op_column = peek().column;
    std::optional<std::string_view> op = comparison_op();
    if (!op) return left;
    ExprPtr right = sum();
    auto e = make(Kind::Binary, left->column, op_column);
    e->text = *op;
    e->operands = {left, right};
    if (comparison_op_ahead())
      syntax_error(peek().column, "comparisons cannot be chained", "write 'a < b and b < c'");
    return e;
  }
  bool comparison_op_ahead() const {
    const Token& t = peek();
    if (t.type == Token::Type::Punct) {
      const BinaryOp* op = find_binary_op(t.text);
      return op && op->cls == OpClass::Compare;
    }
    return at_keyword("is") || at_keyword("in") || (at_keyword("not") && at_keyword("in", 1));
  }
  std::optional<std::string_view> comparison_op() {
    if (at_keyword("in") || (at_keyword("not") && at_keyword("in", 1)))
      syntax_error(peek().column, "'in' is not supported",
                   "compare with '==' and combine with 'or': d == float16 or d == bfloat16");
    if (at_keyword("is")) {
      advance();
      if (at_keyword("not")) {
        advance();
        return "is not";
      }
      return "is";
    }
    if (!comparison_op_ahead()) return std::nullopt;
    return find_binary_op(advance().text)->text;
  }

  ExprPtr sum() { return left_assoc(kPySum, &Parser::term); }
  ExprPtr term() { return left_assoc(kPyTerm, &Parser::factor); }

  ExprPtr factor() {
    if (at_punct("+")) syntax_error(peek().column, "unary '+' is not supported");
    if (!at_punct("-")) return postfix();
    DepthGuard guard(*this, peek().column);
    const Token& token = advance();
    auto e = make(Kind::Unary, token.column, token.column);
    e->text = "-";
    e->operands = {factor()};
    return e;
  }

  ExprPtr postfix() {
    ExprPtr e = atom();
    for (;;) {
      if (at_punct(".")) {
        advance();
        const Token& name = peek();
        if (name.type != Token::Type::Identifier)
          syntax_error(name.column, fmt::format("expected an attribute name after '.', found {}", describe(name)));
        advance();
        auto attr = make(Kind::Attribute, e->column, name.column);
        attr->text = name.text;
        attr->operands = {e};
        e = attr;
      } else if (at_punct("(")) {
        e = call(e);
      } else if (at_punct("[")) {
        e = subscript(e);
      } else {
        return e;
      }
    }
  }

  // call := callee '(' [arg (',' arg)* [',']] ')'; arg := NAME '=' expression | expression
  ExprPtr call(ExprPtr callee) {
    const Token& open = advance();
    auto e = make(Kind::Call, callee->column, open.column);
    e->operands = {callee};
    while (!at_punct(")")) {
      if (at_punct("*")) syntax_error(peek().column, "unpacking arguments with '*' is not supported");
      if (peek().type == Token::Type::Identifier && at_punct("=", 1)) {
        const Token& name = advance();
        advance();
        for (const Expr::Keyword& kw : e->keywords)
          if (kw.name == name.text)
            syntax_error(name.column, fmt::format("keyword argument '{}' repeated", name.text));
        e->keywords.push_back({std::string(name.text), name.column, expression()});
      } else {
        if (!e->keywords.empty())
          syntax_error(peek().column, "positional argument follows keyword argument");
        e->operands.push_back(expression());
      }
      if (!at_punct(",")) break;
      advance();
    }
    expect_punct(")", "to close the argument list");
    return e;
  }

  // subscript := object '[' (expression | [expression] ':' [expression]) ']'
  ExprPtr subscript(ExprPtr object) {
    const Token& open = advance();
    auto e = make(Kind::Subscript, object->column, open.column);
    e->operands = {object};
    if (at_punct("]")) syntax_error(peek().column, "expected an index or a slice");
    ExprPtr lower = at_punct(":") ? nullptr : expression();
    if (at_punct(":")) {
      advance();
      e->is_slice = true;
      e->slice_lower = lower;
      if (!at_punct("]") && !at_punct(":")) e->slice_upper = expression();
      if (at_punct(":")) syntax_error(peek().column, "slice steps are not supported");
    } else {
      e->index = lower;
    }
    expect_punct("]", "to close the subscript");
    return e;
  }

  ExprPtr atom() {
    const Token& t = peek();
    switch (t.type) {
      case Token::Type::Integer: {
        advance();
        auto e = make(Kind::IntLiteral, t.column, t.column);
        e->text = t.text;
        e->int_value = t.int_value;
        return e;
      }
      case Token::Type::Float: {
        advance();
        auto e = make(Kind::FloatLiteral, t.column, t.column);
        e->text = t.text;
        return e;
      }
      case Token::Type::Identifier:
        return identifier();
      case Token::Type::Punct:
        if (t.text == "(") return parenthesized();
        if (t.text == "[") return list();
        break;
      case Token::Type::End:
        break;
    }
    syntax_error(t.column, fmt::format("expected an expression, found {}", describe(t)));
  }

  ExprPtr identifier() {
    const Token& t = advance();
    if (t.text == "True" || t.text == "False") {
      auto e = make(Kind::BoolLiteral, t.column, t.column);
      e->text = t.text;
      return e;
    }
    if (t.text == "None") {
      auto e = make(Kind::NoneLiteral, t.column, t.column);
      e->text = t.text;
      return e;
    }
    if (contains(kOperatorKeywords, t.text))
      syntax_error(t.column, fmt::format("expected an expression, found '{}'", t.text));
    if (contains(kReservedKeywords, t.text))
      syntax_error(t.column, fmt::format("'{}' is not supported in rule expressions", t.text));
    auto e = make(Kind::Name, t.column, t.column);
    e->text = t.text;
    return e;
  }

  ExprPtr parenthesized() {
    const Token& open = advance();
    if (at_punct(")"))
      syntax_error(open.column, "tuples are not supported", "write shapes as lists: [a, b]");
    ExprPtr e = expression();
    if (at_punct(","))
      syntax_error(open.column, "tuples are not supported", "write shapes as lists: [a, b]");
    expect_punct(")", "to close the parenthesis");
    return e;
  }

  // list := '[' [item (',' item)* [',']] ']'; item := '*' sum | expression
  ExprPtr list() {
    const Token& open = advance();
    auto e = make(Kind::List, open.column, open.column);
    while (!at_punct("]")) {
      if (at_punct("*")) {
        const Token& star = advance();
        auto item = make(Kind::Star, star.column, star.column);
        item->operands = {sum()};
        e->operands.push_back(item);
      } else {
        e->operands.push_back(expression());
      }
      if (!at_punct(",")) break;
      advance();
    }
    expect_punct("]", "to close the list");
    return e;
  }

  std::vector<Token> tokens_;
  size_t pos_ = 0;
  size_t depth_ = 0;
};

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

// The tree's height, iteratively (the point is to not trust recursion yet):
// `a + a + ... + a` parses in a loop but builds a left spine as deep as it is
// long.
void check_height(const Expr& root) {
  std::vector<std::pair<const Expr*, size_t>> stack{{&root, 1}};
  while (!stack.empty()) {
    const auto [e, depth] = stack.back();
    stack.pop_back();
    if (depth > kMaxExprDepth)
      syntax_error(e->column, "expression nested too deeply",
                   fmt::format("the limit is {} levels", kMaxExprDepth));
    const size_t child_depth = depth + 1;  // (clang 14 cannot capture a structured binding)
    for_each_child(*e, [&](const Expr& child) { stack.emplace_back(&child, child_depth); });
  }
}

// ---------------------------------------------------------------------------
// Builtin functions (the table rows need the renderers, defined below)
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

const Expr* keyword_arg(const Expr& call, std::string_view name) {
  for (const Expr::Keyword& kw : call.keywords)
    if (kw.name == name) return kw.value.get();
  return nullptr;
}

std::string suggestion_note(const std::string& word, const std::vector<std::string>& candidates) {
  // Edit distance is quadratic; a name this long is no typo of a short one.
  if (word.size() > 64) return "";
  std::string best = closest_match(word, candidates);
  return best.empty() ? "" : fmt::format("did you mean '{}'?", best);
}

// ---------------------------------------------------------------------------
// Type checker
// ---------------------------------------------------------------------------

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

class Checker {
 public:
  using Result = std::optional<ValueKind>;  // nullopt: an error was reported

  // `kinds`, when given, receives each checked node's kind (render_cpp reads
  // optional-ness and narrowing from it).
  Checker(const ExprEnv& env, bool cpp, std::unordered_map<const Expr*, ValueKind>* kinds = nullptr)
      : env_(env), cpp_(cpp), kinds_(kinds) {}

  Result check(const Expr& e) {
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

  std::vector<ExprDiagnostic> take_diagnostics() { return std::move(diags_); }

 private:
  void error(Code code, size_t column, std::string message, std::string_view note = {}) {
    diags_.push_back({column, std::move(message), std::string(note), code});
  }

  Result check_node(const Expr& e) {
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
  Result expect(const Expr& e, KindSet want, std::string_view what) {
    Result kind = check(e);
    if (!kind) return std::nullopt;
    if (want.contains(*kind)) return kind;
    type_error(e, want, *kind, what);
    return std::nullopt;
  }

  // For an operand already checked: reports and returns false unless `found` is wanted.
  bool require_kind(const Expr& e, ValueKind found, KindSet want, std::string_view what) {
    if (want.contains(found)) return true;
    type_error(e, want, found, what);
    return false;
  }

  void type_error(const Expr& e, KindSet want, ValueKind found, std::string_view what) {
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
  ValueKind narrowed(const std::string& name, ValueKind kind) const {
    if (!narrowed_.count(name)) return kind;
    if (kind == ValueKind::OptionalTensor) return ValueKind::Tensor;
    if (kind == ValueKind::OptionalDType) return ValueKind::DType;
    return kind;
  }

  Result with_narrowing(const Expr& cond, bool when, const Expr& e) {
    std::vector<std::string> names;
    collect_narrowed(cond, when, names);
    std::set<std::string> saved = narrowed_;
    narrowed_.insert(names.begin(), names.end());
    Result result = check(e);
    narrowed_ = std::move(saved);
    return result;
  }

  Result check_name(const Expr& e) {
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

  std::string unknown_name_note(const std::string& name) const {
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
  bool require_tensor(const Expr& object, ValueKind kind, std::string_view member) {
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
  const TensorMember* member_of(const Expr& attr, Result object_kind) {
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

  Result check_attribute(const Expr& e) {
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
  void check_arguments(const Expr& call) {
    for (size_t i = 1; i < call.operands.size(); ++i) check(*call.operands[i]);
    for (const Expr::Keyword& kw : call.keywords) check(*kw.value);
  }

  Result check_call(const Expr& call) {
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

  Result check_method(const Expr& call) {
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

  Result check_builtin(const Expr& call, const Builtin& fn) {
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
            "pass dtype= and device= explicitly");
      ok = false;
    }
    if (!ok) return std::nullopt;
    return fn.result;
  }

  Result check_subscript(const Expr& e) {
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

  Result check_unary(const Expr& e) {
    if (e.text == "not") return expect(*e.operands[0], {ValueKind::Bool}, "the operand of 'not'");
    return expect(*e.operands[0], {ValueKind::Int, ValueKind::Float}, "the operand of unary '-'");
  }

  Result check_binary(const Expr& e) {
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
  static std::optional<int64_t> constant_int(const Expr& e) {
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

  Result check_arith(const Expr& e) {
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

  static bool is_optional(ValueKind k) {
    return k == ValueKind::OptionalTensor || k == ValueKind::OptionalDType;
  }
  static bool is_numeric(ValueKind k) { return k == ValueKind::Int || k == ValueKind::Float; }
  static bool is_dtype(ValueKind k) { return k == ValueKind::DType || k == ValueKind::OptionalDType; }
  static bool is_tensorish(ValueKind k) {
    return k == ValueKind::Tensor || k == ValueKind::OptionalTensor || k == ValueKind::TensorList;
  }

  Result check_compare(const Expr& e) {
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

  Result check_logic(const Expr& e) {
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

  Result check_conditional(const Expr& e) {
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

  Result check_list(const Expr& e) {
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

  const ExprEnv& env_;
  const bool cpp_;
  std::unordered_map<const Expr*, ValueKind>* kinds_;
  std::set<std::string> narrowed_;
  const Expr* shape_ok_ = nullptr;  // the one child allowed a Shape in C++ mode
  std::vector<ExprDiagnostic> diags_;
};

std::variant<ValueKind, std::vector<ExprDiagnostic>> run_checker(const Expr& expr, const ExprEnv& env,
                                                                 bool cpp) {
  Checker checker(env, cpp);
  auto kind = checker.check(expr);
  std::vector<ExprDiagnostic> diags = checker.take_diagnostics();
  if (kind && diags.empty()) return *kind;
  if (diags.empty()) diags.push_back({expr.column, "invalid expression", "", Code::RuleKindMismatch});  // not expected
  return diags;
}

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

// Python's floor division and modulo for operands of unknown sign. `{0}` is
// the ABI's check macro, so a zero divisor is an error, not a crash.
constexpr std::string_view kCppFloorDiv =
    "[](int64_t a, int64_t b) {{ {0}(b != 0, \"integer division by zero\"); "
    "return a / b - (a % b != 0 && (a < 0) != (b < 0)); }}";
constexpr std::string_view kCppFloorMod =
    "[](int64_t a, int64_t b) {{ {0}(b != 0, \"integer modulo by zero\"); "
    "const int64_t r = a % b; return r != 0 && (r < 0) != (b < 0) ? r + b : r; }}";

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
        const std::string_view macro = abi_ == CppAbi::Stable ? "STD_TORCH_CHECK" : "TORCH_CHECK";
        return {fmt::format(fmt::runtime(e.text == "//" ? kCppFloorDiv : kCppFloorMod), macro) +
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

Rendered python_like_each(PythonRenderer& r, const Builtin& fn, const Expr& call) {
  // The loop variable must not capture a name the rule reads.
  const std::set<std::string> used = identifiers_in(call);
  std::string var = "t";
  while (used.count(var)) var += "_";
  return {fmt::format("[torch.empty_like({}{}) for {} in {}]", var, r.keywords(call, fn, false), var,
                      call.operands.size() > 1 ? r.at(*call.operands[1], kPyOr) : ""),
          kPyAtom};
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

}  // namespace

// ---------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------

std::string_view to_string(ValueKind kind) {
  for (const auto& [k, name] : kKindNames)
    if (k == kind) return name;
  return "?";
}

std::optional<ValueKind> value_kind_of(const Type& type) {
  const std::string key = type_key(type);
  for (const auto& [schema_type, kind] : kSchemaKinds)
    if (schema_type == key) return kind;
  return std::nullopt;
}

const Argument* ExprEnv::default_tensor_arg() const {
  if (!schema) return nullptr;
  for (ValueKind wanted : {ValueKind::Tensor, ValueKind::TensorList})
    for (const Argument& arg : schema->arguments)
      if (arg.type && value_kind_of(*arg.type) == wanted) return &arg;
  return nullptr;
}

std::string ExprEnv::default_tensor() const {
  const Argument* arg = default_tensor_arg();
  if (!arg) return "";
  return value_kind_of(*arg->type) == ValueKind::TensorList ? arg->name + "[0]" : arg->name;
}

std::variant<ExprPtr, ExprDiagnostic> parse_expr(std::string_view text) {
  try {
    Parser parser(lex(text));
    ExprPtr expr = parser.parse();
    check_height(*expr);
    return expr;
  } catch (const SyntaxError& e) {
    return e.diag;
  }
}

std::variant<ValueKind, std::vector<ExprDiagnostic>> check_expr(const Expr& expr, const ExprEnv& env) {
  return run_checker(expr, env, /*cpp=*/false);
}

std::variant<ValueKind, std::vector<ExprDiagnostic>> check_cpp_expr(const Expr& expr, const ExprEnv& env) {
  return run_checker(expr, env, /*cpp=*/true);
}

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

}  // namespace opgen::model
