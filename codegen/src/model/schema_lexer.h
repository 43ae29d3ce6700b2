// The schema parser's lexer (model/schema.cpp): PyTorch's TorchScript lexer
// (torch/csrc/jit/frontend/lexer.h), restricted to what schemas use, and the
// failure every parsing step throws. Internal to the schema model.
#pragma once

#include <array>
#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/schema.h"

namespace opgen::model::detail {

// Words the TorchScript lexer turns into keyword tokens: they can never be
// names (an argument called `in` is a syntax error in PyTorch too).
inline constexpr std::array<std::string_view, 28> kKeywords = {
    "def",   "if",     "else",  "elif",   "while",   "return", "is",    "True",     "False",   "None",
    "and",   "or",     "not",   "global", "for",     "in",     "raise", "assert",   "break",   "continue",
    "del",   "pass",   "class", "import", "with",    "as",     "Ellipsis", "NoneType"};

// Multi-character operator tokens; the longest match wins, as in PyTorch's
// token trie. Most never appear in a schema, but lexing them keeps e.g. `**`
// from being read as two `*`.
inline constexpr std::array<std::string_view, 22> kOperators = {
    "<=>", "**=", "<<=", ">>=", "...", "->", "**", "!=", "==", "<=", ">=",
    "//",  "<<",  ">>",  "+=",  "-=",  "*=", "/=", "%=", "|=", "&=", "^="};
inline constexpr std::string_view kSingleCharTokens = "+-*/%@()[]:,={}><.?!&^|~";

struct ParseFailure {
  SchemaError error;
};

[[noreturn]] inline void fail(size_t column, std::string message, Code code = Code::SchemaSyntax) {
  throw ParseFailure{SchemaError{std::move(message), column, code}};
}

struct Token {
  enum class Kind { End, Newline, Ident, Keyword, Number, String, Op };
  Kind kind = Kind::End;
  std::string_view text;
  size_t pos = 0;

  bool is(Kind k, std::string_view t) const { return kind == k && text == t; }
  bool is_op(std::string_view t) const { return is(Kind::Op, t); }
  bool is_keyword(std::string_view t) const { return is(Kind::Keyword, t); }
};

inline bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline bool is_hex_digit(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
inline bool is_ident_char(char c) { return is_alpha(c) || is_digit(c) || c == '_'; }
// C isspace() minus '\n', which the lexer handles separately.
inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r'; }

// User text quoted in an error message: on one line (the CLI prints one
// diagnostic per line), printable, and not too long.
inline std::string shown(std::string_view text) {
  constexpr size_t kMaxShown = 40;
  std::string out = "'";
  for (char c : text.substr(0, kMaxShown)) {
    auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) {
      out += c;
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    }
  }
  return out + (text.size() > kMaxShown ? "...'" : "'");
}

// Describes a token for "expected X but found Y" messages.
inline std::string describe(const Token& t) {
  using K = Token::Kind;
  switch (t.kind) {
    case K::End: return "end of input";
    case K::Newline: return "a line break";
    case K::String: return "a string literal";
    default: break;
  }
  return shown(t.text);
}

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  // The token `ahead` positions from the current one (0 or 1).
  const Token& peek(size_t ahead = 0) {
    while (buffer_.size() <= ahead) buffer_.push_back(lex());
    return buffer_[ahead];
  }

  Token next() {
    Token t = peek();
    buffer_.erase(buffer_.begin());
    return t;
  }

  bool next_if_op(std::string_view op) {
    if (!peek().is_op(op)) return false;
    next();
    return true;
  }

 private:
  char at(size_t i) const { return i < text_.size() ? text_[i] : '\0'; }

  // Skips blanks, `\`-newline continuations and `#` comments.
  void skip_blanks() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (is_blank(c)) {
        ++pos_;
      } else if (c == '\\' && at(pos_ + 1) == '\n') {
        pos_ += 2;
      } else if (c == '#' && text_.substr(pos_, 7) != "# type:") {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else {
        return;
      }
    }
  }

  Token make(Token::Kind kind, size_t start, size_t len) {
    pos_ = start + len;
    return Token{kind, text_.substr(start, len), start};
  }

  Token lex() {
    for (;;) {
      skip_blanks();
      if (pos_ >= text_.size()) return Token{Token::Kind::End, {}, text_.size()};
      if (text_[pos_] != '\n') break;
      // Inside brackets, and before the first token, a newline is just
      // whitespace. Elsewhere it is a token (which the parser rejects)
      // unless only whitespace follows.
      size_t newline = pos_++;
      if (depth_ > 0 || !started_) continue;
      skip_blanks();
      while (pos_ < text_.size() && text_[pos_] == '\n') {
        ++pos_;
        skip_blanks();
      }
      if (pos_ >= text_.size()) return Token{Token::Kind::End, {}, text_.size()};
      return Token{Token::Kind::Newline, text_.substr(newline, 1), newline};
    }

    started_ = true;
    const size_t start = pos_;
    const char c = text_[start];
    if (is_digit(c) || (c == '.' && is_digit(at(start + 1)))) return make(Token::Kind::Number, start, number_length(start));
    if (c == '"' || c == '\'') return make(Token::Kind::String, start, string_length(start));
    if (is_alpha(c) || c == '_') {
      size_t end = start + 1;
      while (end < text_.size() && is_ident_char(text_[end])) ++end;
      auto word = text_.substr(start, end - start);
      bool keyword = std::find(kKeywords.begin(), kKeywords.end(), word) != kKeywords.end();
      return make(keyword ? Token::Kind::Keyword : Token::Kind::Ident, start, end - start);
    }
    for (auto op : kOperators)
      if (text_.substr(start, op.size()) == op) return make(Token::Kind::Op, start, op.size());
    if (kSingleCharTokens.find(c) != std::string_view::npos) {
      if (c == '(' || c == '[' || c == '{') ++depth_;
      if (c == ')' || c == ']' || c == '}') --depth_;
      return make(Token::Kind::Op, start, 1);
    }
    fail(start, "unexpected character " + shown(text_.substr(start, 1)));
  }

  // The length strtod() would consume (decimal or hexadecimal float syntax),
  // plus a trailing `j` for complex literals, as PyTorch's lexer does.
  size_t number_length(size_t start) const {
    size_t i = start;
    auto digits = [&](auto pred) {
      size_t n = 0;
      while (pred(at(i))) ++i, ++n;
      return n;
    };
    auto exponent = [&](char lower, char upper) {
      if (at(i) != lower && at(i) != upper) return;
      size_t j = i + 1;
      if (at(j) == '+' || at(j) == '-') ++j;
      if (!is_digit(at(j))) return;
      i = j;
      digits(is_digit);
    };
    bool hex = false;
    if (at(i) == '0' && (at(i + 1) == 'x' || at(i + 1) == 'X')) {
      size_t save = i;
      i += 2;
      size_t n = digits(is_hex_digit);
      if (at(i) == '.') ++i, n += digits(is_hex_digit);
      if (n > 0) {
        hex = true;
        exponent('p', 'P');
      } else {
        i = save + 1;  // strtod reads "0x" as just "0"
      }
    }
    if (!hex && i == start) {
      digits(is_digit);
      if (at(i) == '.') ++i, digits(is_digit);
      exponent('e', 'E');
    }
    if (at(i) == 'j') ++i;
    return i - start;
  }

  // Python-style '...', "...", '''...''' or """...""" with backslash
  // escapes; single-quoted strings may not contain a raw newline.
  size_t string_length(size_t start) const {
    const char quote = text_[start];
    const size_t quote_len = (at(start + 1) == quote && at(start + 2) == quote) ? 3 : 1;
    auto closes_at = [&](size_t i) {
      if (i + quote_len > text_.size()) return false;
      for (size_t k = 0; k < quote_len; ++k)
        if (text_[i + k] != quote) return false;
      return true;
    };
    size_t end = start + quote_len;
    while (end < text_.size() && !closes_at(end)) {
      if (text_[end] == '\n' && quote_len != 3) break;
      if (text_[end] == '\\') ++end;
      ++end;
    }
    if (end >= text_.size() || !closes_at(end)) fail(start, "unterminated string literal");
    return end + quote_len - start;
  }

  std::string_view text_;
  size_t pos_ = 0;
  int depth_ = 0;  // open ( [ { : newlines inside them are whitespace
  bool started_ = false;
  std::vector<Token> buffer_;
};

}  // namespace opgen::model::detail
