// The rule-expression language's lexer and parser: parse_expr (model/expr.h).
// The tables and tree helpers it shares with the checker and the renderers are
// in expr_internal.h; docs/fake-rules.md documents the grammar and each table.
//
// Rule text comes from YAML files and is fuzzed, so nothing here may crash on
// any input: the parser bounds its recursion and the height of the tree it
// builds (kMaxExprDepth), which bounds every later recursive pass too.
#include "model/expr.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "model/expr_internal.h"

namespace opgen::model::detail {
namespace {

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

}  // namespace
}  // namespace opgen::model::detail

namespace opgen::model {

using namespace detail;

// ---------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------

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

}  // namespace opgen::model
