// Function-schema parser and printer, mirroring PyTorch 2.14's
// torch/csrc/jit/frontend/{lexer.h,schema_type_parser.cpp,function_schema_parser.cpp}
// and the printers in ATen/core/{function_schema.cpp,alias_info.h,ivalue.cpp}.
//
// The goal is byte-for-byte parity with `str(torch._C.parse_schema(s))`, so
// several rules below reproduce PyTorch quirks on purpose; their comments say
// so. Known, deliberate differences: complex default values are rejected,
// custom classes (`__torch__.torch.classes.*`) are not checked for
// registration, and Union(...) is only normalised for Union(T, None).
// The input is untrusted: every path either succeeds or throws a
// ParseFailure that parse_schema() turns into a SchemaError.
#include "model/schema.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <set>
#include <utility>

namespace opgen::model {
namespace {

// ---------------------------------------------------------------------------
// Tables
// ---------------------------------------------------------------------------

// How an argument of a base type takes a default value (PyTorch's
// parseDefaultValue switches on the "fake" type kind).
enum class DefaultRule {
  NoneOnly,     // Tensor, Generator, Quantizer: only `=None`
  Constant,     // a single constant: number, True/False/None, string, known identifier
  Float,        // like Constant, but numbers always parse as float
  Complex,      // like Constant, but numbers parse as complex (not supported by opgen)
  Device,       // a device string: "cpu", "cuda:0"
  Unsupported,  // no default at all
};

// What a list of this element type may hold as a default (convertToList).
enum class ListElem { Int, Float, Bool, Complex, Unsupported };

struct BaseTypeInfo {
  std::string_view spelling;  // as written
  std::string_view name;      // as PyTorch prints it
  DefaultRule rule;
  ListElem list_elem;
  bool fake_int;  // parsed as `int` inside Dict/Tuple/Future/... (PyTorch's fake type)
};

// PyTorch's SchemaTypeParser::parseBaseType type_map, plus Tensor.
constexpr std::array kBaseTypes = {
    BaseTypeInfo{"Tensor", "Tensor", DefaultRule::NoneOnly, ListElem::Unsupported, false},
    BaseTypeInfo{"Generator", "Generator", DefaultRule::NoneOnly, ListElem::Unsupported, false},
    BaseTypeInfo{"Quantizer", "Quantizer", DefaultRule::NoneOnly, ListElem::Unsupported, false},
    BaseTypeInfo{"int", "int", DefaultRule::Constant, ListElem::Int, false},
    BaseTypeInfo{"ConstQuantizerPtr", "int", DefaultRule::Constant, ListElem::Int, false},
    BaseTypeInfo{"DeviceIndex", "int", DefaultRule::Constant, ListElem::Int, false},
    BaseTypeInfo{"SymInt", "SymInt", DefaultRule::Constant, ListElem::Int, true},
    BaseTypeInfo{"ScalarType", "ScalarType", DefaultRule::Constant, ListElem::Int, true},
    BaseTypeInfo{"Layout", "Layout", DefaultRule::Constant, ListElem::Int, true},
    BaseTypeInfo{"MemoryFormat", "MemoryFormat", DefaultRule::Constant, ListElem::Int, true},
    BaseTypeInfo{"bool", "bool", DefaultRule::Constant, ListElem::Bool, false},
    BaseTypeInfo{"float", "float", DefaultRule::Float, ListElem::Float, false},
    BaseTypeInfo{"complex", "complex", DefaultRule::Complex, ListElem::Complex, false},
    BaseTypeInfo{"str", "str", DefaultRule::Constant, ListElem::Unsupported, false},
    BaseTypeInfo{"Scalar", "Scalar", DefaultRule::Constant, ListElem::Unsupported, false},
    BaseTypeInfo{"Device", "Device", DefaultRule::Device, ListElem::Unsupported, false},
    BaseTypeInfo{"Storage", "Storage", DefaultRule::Unsupported, ListElem::Unsupported, false},
    BaseTypeInfo{"QScheme", "QScheme", DefaultRule::Unsupported, ListElem::Unsupported, false},
    BaseTypeInfo{"Stream", "Stream", DefaultRule::Unsupported, ListElem::Unsupported, false},
    BaseTypeInfo{"SymBool", "SymBool", DefaultRule::Unsupported, ListElem::Unsupported, false},
    BaseTypeInfo{"None", "NoneType", DefaultRule::Unsupported, ListElem::Unsupported, false},
    BaseTypeInfo{"NoneType", "NoneType", DefaultRule::Unsupported, ListElem::Unsupported, false},
    BaseTypeInfo{"Capsule", "Capsule", DefaultRule::Unsupported, ListElem::Unsupported, false},
    BaseTypeInfo{"Any", "Any", DefaultRule::Unsupported, ListElem::Unsupported, false},
    BaseTypeInfo{"AnyClassType", "AnyClassType", DefaultRule::Unsupported, ListElem::Unsupported, false},
    BaseTypeInfo{"AnyEnumType", "AnyEnumType", DefaultRule::Unsupported, ListElem::Unsupported, false},
};

// Looked up by printed name, which is what Type::name holds.
const BaseTypeInfo* find_base_type(std::string_view spelling) {
  for (const auto& info : kBaseTypes)
    if (info.spelling == spelling) return &info;
  return nullptr;
}

// Identifiers allowed as default values. PyTorch stores them as the integer
// value of the enum they name, and prints that integer.
struct NamedDefault {
  std::string_view name;
  int64_t value;
  std::string_view python;
};

// Accepted for any int-like argument (PyTorch keeps these for BC).
constexpr std::array kAnyTypeNamedDefaults = {
    NamedDefault{"float", 6, "torch.float32"},
    NamedDefault{"complex", 9, "torch.complex64"},
    NamedDefault{"long", 4, "torch.int64"},
    NamedDefault{"strided", 0, "torch.strided"},
    NamedDefault{"Mean", 1, "1"},  // at::Reduction::Mean; reductions are plain ints in Python
    NamedDefault{"contiguous_format", 0, "torch.contiguous_format"},
};

// Accepted only for ScalarType / ScalarType? arguments (c10::getStringToDtypeMap).
constexpr std::array kDtypeNamedDefaults = {
    NamedDefault{"uint8", 0, "torch.uint8"},
    NamedDefault{"int8", 1, "torch.int8"},
    NamedDefault{"int16", 2, "torch.int16"},
    NamedDefault{"short", 2, "torch.int16"},
    NamedDefault{"int32", 3, "torch.int32"},
    NamedDefault{"int", 3, "torch.int32"},
    NamedDefault{"int64", 4, "torch.int64"},
    NamedDefault{"float16", 5, "torch.float16"},
    NamedDefault{"half", 5, "torch.float16"},
    NamedDefault{"float32", 6, "torch.float32"},
    NamedDefault{"float64", 7, "torch.float64"},
    NamedDefault{"double", 7, "torch.float64"},
    NamedDefault{"complex32", 8, "torch.complex32"},
    NamedDefault{"chalf", 8, "torch.complex32"},
    NamedDefault{"complex64", 9, "torch.complex64"},
    NamedDefault{"cfloat", 9, "torch.complex64"},
    NamedDefault{"complex128", 10, "torch.complex128"},
    NamedDefault{"cdouble", 10, "torch.complex128"},
    NamedDefault{"bool", 11, "torch.bool"},
    NamedDefault{"qint8", 12, "torch.qint8"},
    NamedDefault{"quint8", 13, "torch.quint8"},
    NamedDefault{"qint32", 14, "torch.qint32"},
    NamedDefault{"bfloat16", 15, "torch.bfloat16"},
    NamedDefault{"quint4x2", 16, "torch.quint4x2"},
    NamedDefault{"quint2x4", 17, "torch.quint2x4"},
    NamedDefault{"bits1x8", 18, "torch.bits1x8"},
    NamedDefault{"bits2x4", 19, "torch.bits2x4"},
    NamedDefault{"bits4x2", 20, "torch.bits4x2"},
    NamedDefault{"bits8", 21, "torch.bits8"},
    NamedDefault{"bits16", 22, "torch.bits16"},
    NamedDefault{"float8_e5m2", 23, "torch.float8_e5m2"},
    NamedDefault{"float8_e4m3fn", 24, "torch.float8_e4m3fn"},
    NamedDefault{"float8_e5m2fnuz", 25, "torch.float8_e5m2fnuz"},
    NamedDefault{"float8_e4m3fnuz", 26, "torch.float8_e4m3fnuz"},
    NamedDefault{"uint16", 27, "torch.uint16"},
    NamedDefault{"uint32", 28, "torch.uint32"},
    NamedDefault{"uint64", 29, "torch.uint64"},
    NamedDefault{"uint1", 30, "torch.uint1"},
    NamedDefault{"bit", 30, "torch.uint1"},
    NamedDefault{"uint2", 31, "torch.uint2"},
    NamedDefault{"uint3", 32, "torch.uint3"},
    NamedDefault{"uint4", 33, "torch.uint4"},
    NamedDefault{"uint5", 34, "torch.uint5"},
    NamedDefault{"uint6", 35, "torch.uint6"},
    NamedDefault{"uint7", 36, "torch.uint7"},
    NamedDefault{"int1", 37, "torch.int1"},
    NamedDefault{"int2", 38, "torch.int2"},
    NamedDefault{"int3", 39, "torch.int3"},
    NamedDefault{"int4", 40, "torch.int4"},
    NamedDefault{"int5", 41, "torch.int5"},
    NamedDefault{"int6", 42, "torch.int6"},
    NamedDefault{"int7", 43, "torch.int7"},
    NamedDefault{"float8_e8m0fnu", 44, "torch.float8_e8m0fnu"},
    NamedDefault{"float4_e2m1fn_x2", 45, "torch.float4_e2m1fn_x2"},
    NamedDefault{"bcomplex32", 46, "torch.bcomplex32"},
};

template <size_t N>
const NamedDefault* find_named(const std::array<NamedDefault, N>& table, std::string_view name) {
  for (const auto& entry : table)
    if (entry.name == name) return &entry;
  return nullptr;
}

// Device types c10::Device accepts in a string, as they print.
constexpr std::array<std::string_view, 20> kDeviceTypes = {
    "cpu", "cuda", "ipu", "xpu",  "mkldnn", "opengl", "opencl", "ideep", "hip",  "ve",
    "fpga", "maia", "xla", "lazy", "vulkan", "mps",    "meta",   "hpu",   "mtia", "privateuseone"};

// Words the TorchScript lexer turns into keyword tokens: they can never be
// names (an argument called `in` is a syntax error in PyTorch too).
constexpr std::array<std::string_view, 28> kKeywords = {
    "def",   "if",     "else",  "elif",   "while",   "return", "is",    "True",     "False",   "None",
    "and",   "or",     "not",   "global", "for",     "in",     "raise", "assert",   "break",   "continue",
    "del",   "pass",   "class", "import", "with",    "as",     "Ellipsis", "NoneType"};

// Multi-character operator tokens; the longest match wins, as in PyTorch's
// token trie. Most never appear in a schema, but lexing them keeps e.g. `**`
// from being read as two `*`.
constexpr std::array<std::string_view, 22> kOperators = {
    "<=>", "**=", "<<=", ">>=", "...", "->", "**", "!=", "==", "<=", ">=",
    "//",  "<<",  ">>",  "+=",  "-=",  "*=", "/=", "%=", "|=", "&=", "^="};
constexpr std::string_view kSingleCharTokens = "+-*/%@()[]:,={}><.?!&^|~";

// Guards against stack exhaustion on hostile input such as `((((...` or
// `int[][][]...`; real schemas nest a handful of levels.
constexpr int kMaxTypeDepth = 64;
// `int[N] x=1` repeats the value N times; refuse absurd N instead of
// allocating it (PyTorch would try).
constexpr int64_t kMaxRepeatedDefault = 1024;

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

struct ParseFailure {
  SchemaError error;
};

[[noreturn]] void fail(size_t column, std::string message, Code code = Code::SchemaSyntax) {
  throw ParseFailure{SchemaError{std::move(message), column, code}};
}

// ---------------------------------------------------------------------------
// Lexer (torch/csrc/jit/frontend/lexer.h, restricted to what schemas use)
// ---------------------------------------------------------------------------

struct Token {
  enum class Kind { End, Newline, Ident, Keyword, Number, String, Op };
  Kind kind = Kind::End;
  std::string_view text;
  size_t pos = 0;

  bool is(Kind k, std::string_view t) const { return kind == k && text == t; }
  bool is_op(std::string_view t) const { return is(Kind::Op, t); }
  bool is_keyword(std::string_view t) const { return is(Kind::Keyword, t); }
};

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex_digit(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool is_ident_char(char c) { return is_alpha(c) || is_digit(c) || c == '_'; }
// C isspace() minus '\n', which the lexer handles separately.
bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r'; }

// User text quoted in an error message: on one line (the CLI prints one
// diagnostic per line), printable, and not too long.
std::string shown(std::string_view text) {
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
std::string describe(const Token& t) {
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

// ---------------------------------------------------------------------------
// Value formatting
// ---------------------------------------------------------------------------

// PyTorch's operator<<(ostream, IValue) for doubles: integral values as "1.",
// everything else with max_digits10 (17) significant digits.
std::string format_double(double d) {
  int c = std::fpclassify(d);
  // The range check stands in for PyTorch's int64_t(d), which is undefined
  // outside it (in practice it yields INT64_MIN, which never compares equal).
  constexpr double kTwo63 = 9223372036854775808.0;
  if ((c == FP_NORMAL || c == FP_ZERO) && d >= -kTwo63 && d < kTwo63) {
    auto i = static_cast<int64_t>(d);
    if (static_cast<double>(i) == d) return std::to_string(i) + ".";
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", d);
  return buf;
}

// Python's repr() of a float: the shortest round-tripping digits, in fixed
// notation for exponents in [-4, 16), else in scientific notation.
std::string python_float(double d) {
  if (std::isnan(d)) return "float('nan')";
  if (std::isinf(d)) return d > 0 ? "float('inf')" : "-float('inf')";
  char buf[64];
  for (int precision = 0; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*e", precision, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  // buf: [-]D[.DDD]e(+|-)XX
  std::string s = buf;
  size_t e = s.find('e');
  int exp = std::atoi(s.c_str() + e + 1);
  std::string sign = s[0] == '-' ? "-" : "";
  std::string digits;
  for (size_t i = sign.size(); i < e; ++i)
    if (s[i] != '.') digits += s[i];
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();

  if (exp >= -4 && exp < 16) {
    std::string out;
    if (exp < 0) {
      out = "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
    } else if (static_cast<size_t>(exp) + 1 >= digits.size()) {
      out = digits + std::string(static_cast<size_t>(exp) + 1 - digits.size(), '0') + ".0";
    } else {
      out = digits.substr(0, static_cast<size_t>(exp) + 1) + "." + digits.substr(static_cast<size_t>(exp) + 1);
    }
    return sign + out;
  }
  std::string mantissa = digits.size() == 1 ? digits : digits.substr(0, 1) + "." + digits.substr(1);
  char exp_buf[16];
  std::snprintf(exp_buf, sizeof exp_buf, "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
  return sign + mantissa + exp_buf;
}

// A string default, quoted. Printed: c10::printQuotedString, including its
// treatment of bytes >= 0x80, which go through its octal branch as negative
// chars and yield odd characters such as "\0)+" for 0xC3 (reproduced for
// parity), and \r, an escape PyTorch's parser does not know. Registration:
// the same but those two, as octal escapes the parser reads back.
std::string quote_string(std::string_view s, SchemaForm form = SchemaForm::Printed) {
  std::string out = "\"";
  for (char ch : s) {
    const auto byte = static_cast<unsigned char>(ch);
    switch (ch) {
      case '\\': out += "\\\\"; break;
      case '\'': out += "\\'"; break;
      case '"': out += "\\\""; break;
      case '\a': out += "\\a"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += form == SchemaForm::Printed ? "\\r" : "\\015"; break;
      case '\t': out += "\\t"; break;
      case '\v': out += "\\v"; break;
      default:
        if (byte >= 0x20 && byte < 0x7f) {
          out += ch;
        } else if (form == SchemaForm::Registration) {
          char octal[5];
          std::snprintf(octal, sizeof octal, "\\%03o", byte);
          out += octal;
        } else {
          int v = static_cast<signed char>(ch);
          char buf[4] = "000";
          buf[2] = static_cast<char>(buf[2] + v % 8);
          v /= 8;
          buf[1] = static_cast<char>(buf[1] + v % 8);
          v /= 8;
          buf[0] = static_cast<char>(buf[0] + v);
          out += '\\';
          out += buf;
        }
    }
  }
  return out + "\"";
}

bool is_valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
    if (len == 0 || len > s.size() - i) return false;
    for (size_t k = 1; k < len; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return false;
    i += len;
  }
  return true;
}

// A Python string literal with repr()'s quoting rules.
std::string python_string(std::string_view s) {
  const bool has_single = s.find('\'') != std::string_view::npos;
  const bool has_double = s.find('"') != std::string_view::npos;
  const char quote = has_single && !has_double ? '"' : '\'';
  const bool utf8 = is_valid_utf8(s);
  std::string out(1, quote);
  for (char ch : s) {
    auto u = static_cast<unsigned char>(ch);
    if (ch == quote || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (ch == '\n') {
      out += "\\n";
    } else if (ch == '\r') {
      out += "\\r";
    } else if (ch == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u == 0x7f || (u >= 0x80 && !utf8)) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out + quote;
}

// ---------------------------------------------------------------------------
// Type construction and printing
// ---------------------------------------------------------------------------

TypePtr named_type(std::string name, std::optional<AliasInfo> alias = std::nullopt) {
  auto t = std::make_shared<Type>();
  t->kind = Type::Kind::Named;
  t->name = std::move(name);
  t->alias = std::move(alias);
  return t;
}

TypePtr optional_type(TypePtr element) {
  if (element->kind == Type::Kind::Optional) return element;  // PyTorch: `T??` is `T?`
  auto t = std::make_shared<Type>();
  t->kind = Type::Kind::Optional;
  t->elements = {std::move(element)};
  return t;
}

TypePtr list_type(TypePtr element, std::optional<int64_t> size, std::optional<AliasInfo> alias) {
  auto t = std::make_shared<Type>();
  t->kind = Type::Kind::List;
  t->elements = {std::move(element)};
  t->fixed_size = size;
  t->alias = std::move(alias);
  return t;
}

TypePtr compound_type(Type::Kind kind, std::string name, std::vector<TypePtr> elements,
                      std::optional<AliasInfo> alias = std::nullopt) {
  auto t = std::make_shared<Type>();
  t->kind = kind;
  t->name = std::move(name);
  t->elements = std::move(elements);
  t->alias = std::move(alias);
  return t;
}

// PyTorch parses the types inside Dict(...), Future(...), tuples etc. as
// "fake" types, in which SymInt/ScalarType/Layout/MemoryFormat are plain int.
TypePtr to_fake(const TypePtr& type) {
  switch (type->kind) {
    case Type::Kind::Named: {
      const BaseTypeInfo* info = find_base_type(type->name);
      return info && info->fake_int ? named_type("int", type->alias) : type;
    }
    case Type::Kind::Optional:
      return optional_type(to_fake(type->elements[0]));
    case Type::Kind::List:
      return list_type(to_fake(type->elements[0]), type->fixed_size, type->alias);
    case Type::Kind::Tuple:
    case Type::Kind::Generic:
      break;  // their contents were made fake when parsed
  }
  return type;
}

// PyTorch's Type::str(): the type without alias annotations.
std::string plain_str(const Type& t) {
  switch (t.kind) {
    case Type::Kind::Named: return t.name;
    case Type::Kind::Optional: return plain_str(*t.elements[0]) + "?";
    case Type::Kind::List: return plain_str(*t.elements[0]) + "[]";
    case Type::Kind::Tuple:
    case Type::Kind::Generic: {
      std::string out = t.name + "(";
      for (size_t i = 0; i < t.elements.size(); ++i) out += (i ? ", " : "") + plain_str(*t.elements[i]);
      return out + ")";
    }
  }
  return {};
}

// PyTorch keeps one AliasInfo per argument: the annotation of the outermost
// list (or of the type itself), with the element's annotation nested inside
// it as a "contained type". A list written without an annotation of its own
// gets an empty one, `()` or `(!)`, whenever its element has one. This is
// that effective annotation of `t`, as printed. Optional is transparent.
struct EffectiveAlias {
  std::string text;
  bool is_write;
};

std::optional<EffectiveAlias> effective_alias(const Type& t) {
  if (t.kind == Type::Kind::Optional) return effective_alias(*t.elements[0]);
  if (!t.alias && t.kind == Type::Kind::List) {
    auto inner = effective_alias(*t.elements[0]);
    if (!inner) return std::nullopt;
    return EffectiveAlias{inner->is_write ? "(!)" : "()", inner->is_write};
  }
  if (!t.alias) return std::nullopt;
  return EffectiveAlias{t.alias->to_string(), t.alias->is_write};
}

// A type as it is written, each annotation after the node it belongs to
// (`Tensor(a!)?[]`, `Tensor(a!)[][]`), which PyTorch's printer moves or
// drops. Inside tuples and generics PyTorch drops annotations when parsing.
std::string registration_type_str(const Type& t) {
  std::string out;
  switch (t.kind) {
    case Type::Kind::Named: out = t.name; break;
    case Type::Kind::Optional: out = registration_type_str(*t.elements[0]) + "?"; break;
    case Type::Kind::List:
      out = registration_type_str(*t.elements[0]) + "[" + (t.fixed_size ? std::to_string(*t.fixed_size) : "") + "]";
      break;
    case Type::Kind::Tuple:
    case Type::Kind::Generic: out = plain_str(t); break;
  }
  if (t.alias) out += t.alias->to_string(SchemaForm::Registration);
  return out;
}

// operator<<(ostream, Argument) without the name and default: how a type is
// printed at the top level of an argument or return.
std::string argument_type_str(const Type& type, SchemaForm form = SchemaForm::Printed) {
  if (form == SchemaForm::Registration) return registration_type_str(type);
  const bool is_opt = type.kind == Type::Kind::Optional;
  const Type& unopt = is_opt ? *type.elements[0] : type;
  std::string out;
  if (unopt.kind == Type::Kind::List) {
    const Type& element = *unopt.elements[0];
    out = plain_str(element);
    if (auto alias = effective_alias(element)) out += alias->text;
    out += "[";
    if (unopt.fixed_size) out += std::to_string(*unopt.fixed_size);
    out += "]";
  } else {
    out = plain_str(unopt);
  }
  if (unopt.alias) out += unopt.alias->to_string();
  if (is_opt) out += "?";
  return out;
}

// ---------------------------------------------------------------------------
// Default-value helpers
// ---------------------------------------------------------------------------

// A constant as PyTorch's parseSingleConstant produces it.
struct Constant {
  enum class Tag { None, Bool, Int, Double, String };
  Tag tag = Tag::None;
  bool b = false;
  int64_t i = 0;
  double d = 0;
  std::string s;                           // String: unescaped bytes
  const NamedDefault* named = nullptr;     // Int that was written as a name
  size_t column = 0;
};

// Converts a constant to the model; `quote` says whether PyTorch prints a
// string value quoted (only for `str` arguments) or raw.
DefaultValue to_default(const Constant& c, bool quote) {
  DefaultValue v;
  switch (c.tag) {
    case Constant::Tag::None:
      v.kind = DefaultValue::Kind::None;
      v.text = "None";
      break;
    case Constant::Tag::Bool:
      v.kind = DefaultValue::Kind::Bool;
      v.text = c.b ? "True" : "False";
      break;
    case Constant::Tag::Int:
      v.kind = c.named ? DefaultValue::Kind::Identifier : DefaultValue::Kind::Int;
      v.text = std::to_string(c.i);
      v.value = c.named ? std::string(c.named->name) : v.text;
      break;
    case Constant::Tag::Double:
      v.kind = DefaultValue::Kind::Float;
      v.text = format_double(c.d);
      v.value = python_float(c.d);
      break;
    case Constant::Tag::String:
      v.kind = DefaultValue::Kind::String;
      v.text = quote ? quote_string(c.s) : c.s;
      v.value = c.s;
      break;
  }
  return v;
}

bool is_possibly_optional_scalar_type(const Type& t) {
  if (t.kind == Type::Kind::Optional) return is_possibly_optional_scalar_type(*t.elements[0]);
  return t.is_named("ScalarType");
}

bool is_string_type(const Type& t) {
  return t.is_named("str") || (t.kind == Type::Kind::Optional && t.elements[0]->is_named("str"));
}

// c10::Device(std::string) followed by operator<<(ostream, Device).
std::string canonical_device(const std::string& s, size_t column) {
  if (s.empty()) fail(column, "device string must not be empty");
  size_t i = 0;
  while (i < s.size() && (is_alpha(s[i]) || s[i] == '_')) ++i;
  std::string name = s.substr(0, i);
  std::string index;
  bool ok = !name.empty();
  if (ok && i < s.size()) {
    ok = s[i] == ':' && i + 1 < s.size();
    index = s.substr(i + 1);
    ok = ok && std::all_of(index.begin(), index.end(), is_digit) && (index.size() == 1 || index[0] != '0');
  }
  if (!ok) fail(column, "invalid device string " + shown(s) + ": expected a device type and an optional index, like \"cuda:0\"");
  if (std::find(kDeviceTypes.begin(), kDeviceTypes.end(), name) == kDeviceTypes.end())
    fail(column, "unknown device type '" + name + "' in device string " + shown(s));
  if (index.empty()) return name;
  if (index.size() > 10 || std::stoll(index) > std::numeric_limits<int>::max())
    fail(column, "device index '" + index + "' is out of range");
  // PyTorch: c10::DeviceIndex is int8_t, so the index wraps; -1 means "none".
  auto wrapped = static_cast<int8_t>(std::stoi(index));
  return wrapped == -1 ? name : name + ":" + std::to_string(wrapped);
}

// ---------------------------------------------------------------------------
// Parser (recursive descent over the token stream)
// ---------------------------------------------------------------------------

class Parser {
 public:
  Parser(std::string_view text, const ParseOptions& options) : lex_(text), host_classes_(options.host_classes) {
    // PyTorch allows type variables in aten:: and prim:: for BC.
    allow_type_variables_ =
        options.allow_type_variables || text.substr(0, 6) == "aten::" || text.substr(0, 6) == "prim::";
  }

  FunctionSchema parse() {
    FunctionSchema schema;
    // opgen also takes name-less schemas, `(Tensor x) -> Tensor`, as
    // torch.library.custom_op does.
    if (!lex_.peek().is_op("(")) schema.name = parse_name();
    if (!lex_.peek().is_op("(")) {
      fail(lex_.peek().pos,
           "expected '(' to start the argument list but found " + describe(lex_.peek()));
    }
    parse_arguments(schema);
    expect_op("->");
    parse_returns(schema);
    if (lex_.peek().kind == Token::Kind::Newline) lex_.next();
    if (lex_.peek().kind != Token::Kind::End)
      fail(lex_.peek().pos, "expected end of schema but found " + describe(lex_.peek()));
    return schema;
  }

 private:
  // --- token helpers ---

  Token expect_op(std::string_view op) {
    if (!lex_.peek().is_op(op))
      fail(lex_.peek().pos, "expected '" + std::string(op) + "' but found " + describe(lex_.peek()));
    return lex_.next();
  }

  Token expect_ident(std::string_view what) {
    if (lex_.peek().kind != Token::Kind::Ident) {
      std::string found = describe(lex_.peek());
      if (lex_.peek().kind == Token::Kind::Keyword) found += " (a reserved word)";
      fail(lex_.peek().pos, "expected " + std::string(what) + " but found " + found);
    }
    return lex_.next();
  }

  // PyTorch's parseList: `begin [item (sep item)*] end`, where an empty list
  // is recognised by seeing `end` right away.
  template <typename F>
  void parse_list(std::string_view begin, std::string_view sep, std::string_view end, F&& item) {
    expect_op(begin);
    if (!lex_.peek().is_op(end)) {
      do {
        item();
      } while (lex_.next_if_op(sep));
    }
    expect_op(end);
  }

  // --- names ---

  OperatorName parse_name() {
    OperatorName name;
    name.name = std::string(expect_ident("an operator name").text);
    if (lex_.next_if_op(":")) {
      expect_op(":");
      name.ns = std::move(name.name);
      name.name = std::string(expect_ident("an operator name after '::'").text);
    }
    if (lex_.next_if_op(".")) {
      Token overload = expect_ident("an overload name");
      name.overload = std::string(overload.text);
      // PyTorch: `default` names the overload-less op in torch.ops, and
      // dunder names would clash with Python attributes.
      if (name.overload == "default" || name.overload.rfind("__", 0) == 0)
        fail(overload.pos, "'" + name.overload + "' is not a legal overload name");
    }
    return name;
  }

  // --- argument and return lists ---

  void parse_arguments(FunctionSchema& schema) {
    bool kwarg_only = false;
    std::vector<size_t> default_columns;
    parse_list("(", ",", ")", [&] {
      if (schema.is_vararg)
        fail(lex_.peek().pos, "'...' must be the last element of the argument list");
      if (lex_.next_if_op("*")) {
        kwarg_only = true;
      } else if (lex_.next_if_op("...")) {
        schema.is_vararg = true;
      } else {
        size_t default_column = 0;
        schema.arguments.push_back(parse_argument(kwarg_only, &default_column));
        if (schema.arguments.back().default_value) default_columns.push_back(default_column);
      }
    });
    if (schema.is_vararg && !default_columns.empty())
      fail(default_columns.front(), "schemas with varargs ('...') cannot have default values");
  }

  void parse_returns(FunctionSchema& schema) {
    if (lex_.next_if_op("...")) {
      schema.is_varret = true;
    } else if (lex_.peek().is_op("(")) {
      parse_list("(", ",", ")", [&] {
        if (schema.is_varret) fail(lex_.peek().pos, "'...' must be the last element of the return list");
        if (lex_.next_if_op("...")) {
          schema.is_varret = true;
        } else {
          schema.returns.push_back(parse_return());
        }
      });
    } else {
      schema.returns.push_back(parse_return());
    }
  }

  // `[N]` after a type: only allowed at the top level of an argument or
  // return, and only once.
  TypePtr parse_fixed_size_suffix(TypePtr type) {
    if (!lex_.next_if_op("[")) return type;
    Token number = lex_.peek();
    if (number.kind != Token::Kind::Number)
      fail(number.pos, "expected a list size but found " + describe(number));
    lex_.next();
    // PyTorch: std::stoll reads the leading digits ("2.5" is 2) and the size
    // is stored as int32_t, so it wraps.
    auto size = static_cast<int32_t>(parse_integer_prefix(number.text, number.pos));
    expect_op("]");
    auto alias = parse_alias_annotation();
    type = list_type(std::move(type), size, std::move(alias));
    if (lex_.next_if_op("?")) type = optional_type(std::move(type));
    return type;
  }

  Argument parse_argument(bool kwarg_only, size_t* default_column) {
    Argument arg;
    arg.column = lex_.peek().pos;
    arg.type = parse_fixed_size_suffix(parse_type(0));
    arg.name = std::string(expect_ident("an argument name").text);
    arg.kwarg_only = kwarg_only;
    if (lex_.next_if_op("=")) {
      *default_column = lex_.peek().pos;
      try {
        arg.default_value = parse_default(*arg.type);
      } catch (ParseFailure& failure) {
        failure.error.code = Code::SchemaBadDefault;  // whatever went wrong inside the default
        throw;
      }
    }
    return arg;
  }

  Return parse_return() {
    Return ret;
    ret.column = lex_.peek().pos;
    ret.type = parse_fixed_size_suffix(parse_type(0));
    if (lex_.peek().kind == Token::Kind::Ident) ret.name = std::string(lex_.next().text);
    return ret;
  }

  // --- types ---

  // A nested type, as inside Dict(...) or a tuple: PyTorch's "fake" type.
  TypePtr parse_inner_type(int depth) { return to_fake(parse_type(depth + 1)); }

  TypePtr parse_type(int depth) {
    if (depth > kMaxTypeDepth) fail(lex_.peek().pos, "type is nested too deeply");
    TypePtr type = parse_type_head(depth);
    // Suffixes: `[]` (with an optional alias on the list) and `?`.
    int lists = 0;
    for (;;) {
      if (lex_.peek().is_op("[") && lex_.peek(1).is_op("]")) {
        if (depth + ++lists > kMaxTypeDepth) fail(lex_.peek().pos, "type is nested too deeply");
        lex_.next();
        lex_.next();
        type = list_type(std::move(type), std::nullopt, parse_alias_annotation());
      } else if (lex_.peek().is_op("?")) {
        if (type->is_named("NoneType")) fail(lex_.peek().pos, "NoneType cannot be optional");
        lex_.next();
        type = optional_type(std::move(type));
      } else {
        return type;
      }
    }
  }

  TypePtr parse_type_head(int depth) {
    const Token& tok = lex_.peek();
    if (tok.is_op("(")) {
      std::vector<TypePtr> elements;
      parse_list("(", ",", ")", [&] { elements.push_back(parse_inner_type(depth)); });
      return compound_type(Type::Kind::Tuple, "", std::move(elements));  // no alias on tuples
    }
    if (tok.kind == Token::Kind::Ident) {
      std::string_view word = tok.text;
      if (word == "Future" || word == "Await" || word == "RRef") {
        lex_.next();
        expect_op("(");
        TypePtr inner = parse_inner_type(depth);
        expect_op(")");
        return compound_type(Type::Kind::Generic, std::string(word), {std::move(inner)});
      }
      if (word == "Dict") {
        lex_.next();
        expect_op("(");
        TypePtr key = parse_inner_type(depth);
        expect_op(",");
        TypePtr value = parse_inner_type(depth);
        expect_op(")");
        return compound_type(Type::Kind::Generic, "Dict", {std::move(key), std::move(value)},
                             parse_alias_annotation());
      }
      if (word == "Union") return parse_union(depth);
      if (word == "__torch__") return parse_custom_class();
      if (word == "Tensor") {
        lex_.next();
        return named_type("Tensor", parse_alias_annotation());
      }
    }
    return parse_base_type();
  }

  TypePtr parse_union(int depth) {
    lex_.next();  // Union
    expect_op("(");
    std::vector<TypePtr> members{parse_inner_type(depth)};
    while (!lex_.peek().is_op(")")) {
      expect_op(",");
      members.push_back(parse_inner_type(depth));
    }
    expect_op(")");
    auto alias = parse_alias_annotation();
    // PyTorch normalises unions; opgen only does its commonest case,
    // Union(T, None) == T?, and otherwise keeps the members as written.
    if (members.size() == 2 && (members[0]->is_named("NoneType") != members[1]->is_named("NoneType"))) {
      auto inner = std::make_shared<Type>(*members[members[0]->is_named("NoneType") ? 1 : 0]);
      inner->alias = std::move(alias);
      return optional_type(std::move(inner));
    }
    return compound_type(Type::Kind::Generic, "Union", std::move(members), std::move(alias));
  }

  // `__torch__.torch.classes.<ns>.<Class>`. PyTorch also checks that the
  // class is registered, which opgen cannot know.
  TypePtr parse_custom_class() {
    lex_.next();  // __torch__
    std::string name = "__torch__";
    for (std::string_view part : {"torch", "classes", "", ""}) {
      expect_op(".");
      Token tok = expect_ident(part.empty() ? "a custom class name" : "'" + std::string(part) + "'");
      if (!part.empty() && tok.text != part)
        fail(tok.pos, "expected '" + std::string(part) + "' in a custom class type __torch__.torch.classes.ns.Name");
      name += "." + std::string(tok.text);
    }
    return named_type(std::move(name));
  }

  TypePtr parse_base_type() {
    Token tok = lex_.peek();
    if (!(tok.is_keyword("None") || tok.is_keyword("NoneType") || tok.kind == Token::Kind::Ident))
      fail(tok.pos, "expected a type but found " + describe(tok));
    lex_.next();
    std::string text(tok.text);
    // Dotted names (`foo.Bar`) are only ever type variables or unknown.
    while (lex_.peek().is_op(".") && lex_.peek(1).kind == Token::Kind::Ident) {
      lex_.next();
      text += "." + std::string(lex_.next().text);
    }
    std::string name;
    if (const BaseTypeInfo* info = find_base_type(text)) {
      name = std::string(info->name);
    } else if (allow_type_variables_ && text[0] >= 'a' && text[0] <= 'z') {
      name = std::move(text);  // a type variable such as `t`
    } else if (std::find(host_classes_.begin(), host_classes_.end(), text) != host_classes_.end()) {
      name = std::move(text);
    } else if (text == "double") {
      fail(tok.pos, "unknown type 'double': use 'float', which is a C++ double", Code::SchemaUnknownType);
    } else if (text == "int64_t") {
      fail(tok.pos, "unknown type 'int64_t': use 'int' (int64_t in C++) or 'SymInt'", Code::SchemaUnknownType);
    } else {
      fail(tok.pos,
           "unknown type '" + text + "': expected a schema type such as Tensor, int, SymInt, float, bool, str, Scalar",
           Code::SchemaUnknownType);
    }
    return named_type(std::move(name), parse_alias_annotation());
  }

  // `(a)`, `(a!)`, `(a|b)`, `(*)`, `(a -> *)`, or the `!` shorthand for a
  // fresh write set, which PyTorch names `$0`, `$1`, ... in order.
  std::optional<AliasInfo> parse_alias_annotation() {
    if (lex_.next_if_op("!")) {
      AliasInfo fresh;
      fresh.before_sets = {"$" + std::to_string(next_fresh_set_++)};
      fresh.is_write = true;
      return fresh;
    }
    if (!lex_.next_if_op("(")) return std::nullopt;
    AliasInfo info;
    parse_alias_sets(info.before_sets);
    info.is_write = lex_.next_if_op("!");
    if (lex_.next_if_op("->")) parse_alias_sets(info.after_sets);
    expect_op(")");
    return info;
  }

  // `a|b|*`. PyTorch: once a wildcard is seen, later names are not even
  // consumed (so `(*|a)` is an error); sets are sets (duplicates dropped).
  void parse_alias_sets(std::vector<std::string>& sets) {
    std::set<std::string, std::less<>> seen;
    bool wildcard = false;
    do {
      std::string set;
      if (lex_.next_if_op("*")) {
        wildcard = true;
        set = "*";
      } else if (!wildcard) {
        set = std::string(expect_ident("an alias set name").text);
      } else {
        continue;
      }
      if (seen.insert(set).second) sets.push_back(std::move(set));
    } while (lex_.next_if_op("|"));
  }

  // --- default values ---

  enum class ConstKind { Any, Float, Complex };

  DefaultValue parse_default(const Type& type) {
    const size_t column = lex_.peek().pos;
    if (type.kind == Type::Kind::Optional)
      return to_default(parse_constant(ConstKind::Any, is_possibly_optional_scalar_type(type)), is_string_type(type));
    if (type.kind == Type::Kind::List) return parse_list_default(type);
    const BaseTypeInfo* info = type.kind == Type::Kind::Named ? find_base_type(type.name) : nullptr;
    switch (info ? info->rule : DefaultRule::Unsupported) {
      case DefaultRule::NoneOnly:
        if (!lex_.peek().is_keyword("None"))
          fail(column, "the only default allowed for a " + type.name + " argument is None, not " + describe(lex_.peek()));
        lex_.next();
        return to_default(Constant{}, false);
      case DefaultRule::Constant:
        return to_default(parse_constant(ConstKind::Any, type.is_named("ScalarType")), is_string_type(type));
      case DefaultRule::Float:
        return to_default(parse_constant(ConstKind::Float, false), false);
      case DefaultRule::Complex:
        return to_default(parse_constant(ConstKind::Complex, false), false);
      case DefaultRule::Device: {
        Token tok = lex_.peek();
        if (tok.kind != Token::Kind::String)
          fail(column, "expected a device string such as \"cpu\" or \"cuda:0\" but found " + describe(tok));
        lex_.next();
        Constant c;
        c.tag = Constant::Tag::String;
        c.s = canonical_device(unescape_string(tok), tok.pos);
        return to_default(c, false);
      }
      case DefaultRule::Unsupported:
        break;
    }
    fail(column, "arguments of type '" + argument_type_str(type) + "' cannot have a default value");
  }

  DefaultValue parse_list_default(const Type& list) {
    const Type& element = *list.elements[0];
    const BaseTypeInfo* info = element.kind == Type::Kind::Named ? find_base_type(element.name) : nullptr;
    const ListElem elem = info ? info->list_elem : ListElem::Unsupported;
    const ConstKind kind = elem == ListElem::Float ? ConstKind::Float
                           : elem == ListElem::Complex ? ConstKind::Complex
                                                       : ConstKind::Any;
    const bool dtype_names = is_possibly_optional_scalar_type(element);
    const size_t column = lex_.peek().pos;

    std::vector<Constant> values;
    if (lex_.peek().kind == Token::Kind::Ident) {
      fail(column, "expected a list such as [1, 2] but found " + describe(lex_.peek()));
    } else if (list.fixed_size && !lex_.peek().is_op("[")) {
      // `int[2] stride=1` means [1, 1].
      Constant value = parse_constant(kind, dtype_names);
      if (*list.fixed_size < 0 || *list.fixed_size > kMaxRepeatedDefault)
        fail(column, "cannot repeat a default " + std::to_string(*list.fixed_size) + " times");
      values.assign(static_cast<size_t>(*list.fixed_size), value);
    } else {
      parse_list("[", ",", "]", [&] { values.push_back(parse_constant(kind, dtype_names)); });
    }

    // PyTorch's convertToList: every item must already have the element type.
    Constant::Tag want = Constant::Tag::None;
    switch (elem) {
      case ListElem::Int: want = Constant::Tag::Int; break;
      case ListElem::Float: want = Constant::Tag::Double; break;
      case ListElem::Bool: want = Constant::Tag::Bool; break;
      case ListElem::Complex:  // any item would have failed in parse_constant
        break;
      case ListElem::Unsupported:
        fail(column, "list defaults are only supported for int, float and bool lists, not " +
                         argument_type_str(list));
    }
    DefaultValue v;
    v.kind = DefaultValue::Kind::List;
    for (const Constant& c : values) {
      if (c.tag != want)
        fail(c.column, "a default for " + argument_type_str(list) + " must hold only " + plain_str(element) +
                           " values");
      v.items.push_back(to_default(c, false));
    }
    // PyTorch prints `int[2] x=[1, 1]` as `int[2] x=1` (only for plain int).
    bool same = v.items.size() > 1 && element.is_named("int") &&
                std::all_of(v.items.begin(), v.items.end(), [&](auto& i) { return i.text == v.items[0].text; });
    if (same) {
      v.text = v.items[0].text;
    } else {
      v.text = "[";
      for (size_t i = 0; i < v.items.size(); ++i) v.text += (i ? ", " : "") + v.items[i].text;
      v.text += "]";
    }
    return v;
  }

  // PyTorch's parseSingleConstant.
  Constant parse_constant(ConstKind kind, bool dtype_names) {
    Constant c;
    Token tok = lex_.peek();
    c.column = tok.pos;
    if (tok.is_keyword("True") || tok.is_keyword("False")) {
      lex_.next();
      c.tag = Constant::Tag::Bool;
      c.b = tok.text == "True";
      return c;
    }
    if (tok.is_keyword("None")) {
      lex_.next();
      return c;
    }
    if (tok.kind == Token::Kind::String) {
      lex_.next();
      c.tag = Constant::Tag::String;
      c.s = unescape_string(tok);
      return c;
    }
    if (tok.kind == Token::Kind::Ident) {
      lex_.next();
      c.named = find_named(kAnyTypeNamedDefaults, tok.text);
      if (!c.named && dtype_names) c.named = find_named(kDtypeNamedDefaults, tok.text);
      if (!c.named) {
        std::string names;
        for (const auto& entry : kAnyTypeNamedDefaults) names += (names.empty() ? "" : ", ") + std::string(entry.name);
        fail(tok.pos, "invalid default value '" + std::string(tok.text) +
                          "': expected a number, True, False, None, a string, " +
                          (dtype_names ? "a dtype name such as float32, " : "") + "or one of " + names +
                          (tok.text == "inf" || tok.text == "nan" ? " (schemas cannot spell inf or nan)" : ""));
      }
      c.tag = Constant::Tag::Int;
      c.i = c.named->value;
      return c;
    }
    const bool negative = lex_.next_if_op("-");
    Token number = lex_.peek();
    if (number.kind != Token::Kind::Number) {
      fail(number.pos, std::string(negative ? "expected a number after '-'" : "expected a default value") +
                           " but found " + describe(number));
    }
    lex_.next();
    std::string n = (negative ? "-" : "") + std::string(number.text);
    if (kind == ConstKind::Complex || n.find('j') != std::string::npos)
      fail(c.column, "complex default values are not supported");
    if (kind == ConstKind::Float || n.find('.') != std::string::npos || n.find('e') != std::string::npos) {
      // PyTorch uses std::stod, which also reads hex floats and fails on
      // overflow and on subnormal results (ERANGE).
      errno = 0;
      c.d = std::strtod(n.c_str(), nullptr);
      if (errno == ERANGE) fail(c.column, "default value " + n + " is out of the range of a float");
      c.tag = Constant::Tag::Double;
    } else {
      c.i = parse_integer_prefix(n, c.column);
      c.tag = Constant::Tag::Int;
    }
    return c;
  }

  // std::stoll semantics: an optional '-', then the leading decimal digits
  // (so "0x10" is 0 and "1E5" is 1, as in PyTorch).
  static int64_t parse_integer_prefix(std::string_view text, size_t column) {
    size_t i = 0;
    bool negative = !text.empty() && text[0] == '-';
    if (negative) ++i;
    if (i >= text.size() || !is_digit(text[i])) fail(column, "expected an integer");
    // Accumulate negatively so that INT64_MIN fits.
    int64_t value = 0;
    constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
    for (; i < text.size() && is_digit(text[i]); ++i) {
      int digit = text[i] - '0';
      if (value < (kMin + digit) / 10) fail(column, "integer " + std::string(text) + " is out of range");
      value = value * 10 - digit;
    }
    if (!negative) {
      if (value == kMin) fail(column, "integer " + std::string(text) + " is out of range");
      value = -value;
    }
    return value;
  }

  // PyTorch's parseStringLiteral: strips the quotes and resolves the escapes
  // \\ \' \" \<newline> \a \b \f \n \v \t and \ooo (octal, < 256).
  std::string unescape_string(const Token& tok) {
    std::string_view raw = tok.text;
    const size_t quote_len = raw.size() >= 6 && raw[1] == raw[0] && raw[2] == raw[0] ? 3 : 1;
    std::string_view body = raw.substr(quote_len, raw.size() - 2 * quote_len);
    std::string out;
    for (size_t i = 0; i < body.size(); ++i) {
      if (body[i] != '\\') {
        out += body[i];
        continue;
      }
      const size_t column = tok.pos + quote_len + i;
      if (i + 1 >= body.size()) fail(column, "unfinished escape sequence");
      char e = body[i + 1];
      switch (e) {
        case '\\': case '\'': case '"': case '\n': out += e; break;
        case 'a': out += '\a'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'v': out += '\v'; break;
        case 't': out += '\t'; break;
        case 'x': fail(column, "hex escapes (\\x) are not supported in schema strings");
        case 'u':
        case 'U': fail(column, "unicode escapes (\\u, \\U) are not supported in schema strings");
        default: {
          // \ooo: exactly three octal digits (so \0 alone is an error).
          int value = 0;
          bool ok = i + 3 < body.size();
          for (size_t k = 1; ok && k <= 3; ++k) {
            char d = body[i + k];
            ok = d >= '0' && d <= '7';
            value = value * 8 + (d - '0');
          }
          if (!ok || value >= 256)
            fail(column, "invalid escape sequence: expected one of \\\\ \\' \\\" \\a \\b \\f \\n \\v \\t or \\ooo (octal)");
          out += static_cast<char>(value);
          i += 2;  // plus the 2 below
        }
      }
      ++i;
    }
    return out;
  }

  Lexer lex_;
  bool allow_type_variables_ = false;
  std::vector<std::string> host_classes_;
  size_t next_fresh_set_ = 0;
};

}  // namespace

// ---------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------

bool AliasInfo::is_fresh() const {
  return before_sets.size() == 1 && !before_sets[0].empty() && before_sets[0][0] == '$';
}

std::string AliasInfo::to_string(SchemaForm form) const {
  if (form == SchemaForm::Registration) {
    // `$N` is no name the parser reads: the shorthand is the only spelling.
    if (is_fresh() && after_sets.empty()) return "!";
    // Sets in written order, where a wildcard can only come last.
    auto join = [](const std::vector<std::string>& sets) {
      std::string out;
      for (size_t i = 0; i < sets.size(); ++i) out += (i ? "|" : "") + sets[i];
      return out;
    };
    return "(" + join(before_sets) + (is_write ? "!" : "") + (after_sets.empty() ? "" : " -> " + join(after_sets)) +
           ")";
  }
  // PyTorch keeps alias sets in an unordered_set. For the one- and two-set
  // annotations that occur in practice (`Tensor(b|a)`) its iteration order
  // is the reverse of insertion order, which is what we print; for three or
  // more sets PyTorch's order depends on symbol hashes and may differ.
  auto join = [](const std::vector<std::string>& sets) {
    std::string out;
    for (auto it = sets.rbegin(); it != sets.rend(); ++it) out += (it == sets.rbegin() ? "" : "|") + *it;
    return out;
  };
  std::string out = "(" + join(before_sets);
  if (is_write) out += '!';
  // Without `->` the after sets equal the before sets, except for the `!`
  // shorthand's fresh `$N` set, which PyTorch leaves without after sets and
  // so prints as `($0! -> )`.
  const bool fresh = is_fresh();
  auto as_set = [](const std::vector<std::string>& sets) { return std::set<std::string>(sets.begin(), sets.end()); };
  bool differs = after_sets.empty() ? fresh : as_set(before_sets) != as_set(after_sets);
  if (differs) out += " -> " + join(after_sets);
  return out + ")";
}

std::string Type::to_string(SchemaForm form) const { return argument_type_str(*this, form); }

bool Type::is_tensor_like() const {
  const Type* t = this;
  if (t->kind == Kind::Optional) t = t->elements[0].get();
  if (t->kind == Kind::List) t = t->elements[0].get();
  if (t->kind == Kind::Optional) t = t->elements[0].get();
  return t->is_named("Tensor");
}

std::string DefaultValue::to_string(SchemaForm form) const {
  if (form == SchemaForm::Printed) return text;
  switch (kind) {
    case Kind::String: return quote_string(value, form);
    // The name as written (`float f=long`): its value would read back as
    // another kind in a float argument (`=4` reads as 4.).
    case Kind::Identifier: return value.empty() ? text : value;
    case Kind::List: {
      std::string out = "[";
      for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i].to_string(form);
      return out + "]";
    }
    default: return text;
  }
}

std::string DefaultValue::to_python() const {
  switch (kind) {
    case Kind::None: return "None";
    case Kind::Bool:
    case Kind::Int: return text;
    // Hand-built values may leave `value` empty; the text then decides.
    case Kind::Float: return value.empty() ? python_float(std::strtod(text.c_str(), nullptr)) : value;
    case Kind::String: return python_string(value);
    case Kind::Identifier: {
      const NamedDefault* named = find_named(kAnyTypeNamedDefaults, value);
      if (!named) named = find_named(kDtypeNamedDefaults, value);
      return named ? std::string(named->python) : text;
    }
    case Kind::List: {
      std::string out = "[";
      for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i].to_python();
      return out + "]";
    }
  }
  return text;
}

// A device whose index PyTorch wrapped into int8 (`cuda:200` reads as
// `cuda:-56`, a string its parser refuses): the index that wraps to it.
static std::string readable_device(const std::string& device) {
  const size_t colon = device.find(':');
  if (colon == std::string::npos || colon + 1 >= device.size() || device[colon + 1] != '-') return device;
  return device.substr(0, colon + 1) + std::to_string(256 + std::stoi(device.substr(colon + 1)));
}

std::string Argument::to_string(SchemaForm form) const {
  std::string out = argument_type_str(*type, form);
  if (!name.empty()) out += " " + name;
  if (!default_value) return out;
  const Type& plain = type->kind == Type::Kind::Optional ? type->element() : *type;
  if (form == SchemaForm::Registration && plain.is_named("Device") &&
      default_value->kind == DefaultValue::Kind::String) {
    DefaultValue device = *default_value;
    device.value = readable_device(device.value);
    return out + "=" + device.to_string(form);
  }
  return out + "=" + default_value->to_string(form);
}

std::string Return::to_string(SchemaForm form) const {
  std::string out = argument_type_str(*type, form);
  if (!name.empty()) out += " " + name;
  return out;
}

std::string OperatorName::qualified() const { return ns.empty() ? name : ns + "::" + name; }

std::string OperatorName::to_string() const {
  return overload.empty() ? qualified() : qualified() + "." + overload;
}

// operator<<(ostream, FunctionSchema) in ATen/core/function_schema.cpp.
std::string FunctionSchema::to_string(SchemaForm form) const {
  std::string out = name.to_string() + "(";
  bool seen_kwarg_only = false;
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (i > 0) out += ", ";
    if (arguments[i].kwarg_only && !seen_kwarg_only) {
      out += "*, ";
      seen_kwarg_only = true;
    }
    out += arguments[i].to_string(form);
  }
  if (is_vararg) out += arguments.empty() ? "..." : ", ...";
  out += ") -> ";

  // One return prints bare unless its text starts with '(' (a tuple type),
  // which would read back as a return list; `...` alone prints bare too.
  bool need_paren = !((returns.size() == 1 && !is_varret) || (returns.empty() && is_varret));
  if (returns.size() == 1 && !need_paren && returns[0].to_string(form).front() == '(') need_paren = true;
  if (need_paren) out += "(";
  for (size_t i = 0; i < returns.size(); ++i) out += (i ? ", " : "") + returns[i].to_string(form);
  if (is_varret) out += returns.empty() ? "..." : ", ...";
  if (need_paren) out += ")";
  return out;
}

bool is_identifier(std::string_view s) {
  auto start = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; };
  auto rest = [&](char c) { return start(c) || std::isdigit(static_cast<unsigned char>(c)); };
  return !s.empty() && start(s[0]) && std::all_of(s.begin() + 1, s.end(), rest);
}

bool is_op_name(std::string_view s) {
  const size_t dot = s.find('.');
  return is_identifier(s.substr(0, dot)) && (dot == std::string_view::npos || is_identifier(s.substr(dot + 1)));
}

std::variant<FunctionSchema, SchemaError> parse_schema(std::string_view text, const ParseOptions& options) {
  try {
    return Parser(text, options).parse();
  } catch (const ParseFailure& failure) {
    return failure.error;
  }
}

}  // namespace opgen::model
