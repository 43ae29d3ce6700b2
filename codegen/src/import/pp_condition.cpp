#include "import/pp_condition.h"

#include <algorithm>

#include <cctype>
#include <cstdint>
#include <vector>

namespace opgen::import {

namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

struct PpToken {
  enum class Kind { Name, Number, Op, End } kind = Kind::End;
  std::string text;
  int64_t value = 0;
};

// nullopt: a character no condition holds ('"', '\'', '#'...).
std::optional<std::vector<PpToken>> tokenize(std::string_view s) {
  std::vector<PpToken> out;
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (s.substr(i).starts_with("/*")) {
      const size_t end = s.find("*/", i + 2);
      i = end == std::string_view::npos ? s.size() : end + 2;
    } else if (s.substr(i).starts_with("//")) {
      break;
    } else if (ident_start(c)) {
      const size_t start = i;
      while (i < s.size() && ident_char(s[i])) ++i;
      out.push_back({PpToken::Kind::Name, std::string(s.substr(start, i - start))});
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      const size_t start = i;
      while (i < s.size() && (ident_char(s[i]) || s[i] == '\'')) ++i;
      std::string digits;
      for (char d : s.substr(start, i - start))
        if (d != '\'') digits += d;
      while (!digits.empty() && (digits.back() == 'u' || digits.back() == 'U' || digits.back() == 'l' || digits.back() == 'L'))
        digits.pop_back();
      int base = 10;
      size_t k = 0;
      if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
        base = 16;
        k = 2;
      } else if (digits.size() > 1 && digits[0] == '0') {
        base = 8;
        k = 1;
      }
      if (k == digits.size()) return std::nullopt;
      uint64_t v = 0;
      for (; k < digits.size(); ++k) {
        const char d = static_cast<char>(std::tolower(static_cast<unsigned char>(digits[k])));
        const int digit = std::isdigit(static_cast<unsigned char>(d)) ? d - '0' : (d >= 'a' && d <= 'f') ? d - 'a' + 10 : 99;
        if (digit >= base || v > (UINT64_MAX - digit) / base) return std::nullopt;
        v = v * base + digit;
      }
      if (v > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
      out.push_back({PpToken::Kind::Number, std::string(s.substr(start, i - start)), static_cast<int64_t>(v)});
    } else {
      static constexpr std::string_view two[] = {"&&", "||", "==", "!=", "<=", ">="};
      std::string op(1, c);
      for (std::string_view t : two)
        if (s.substr(i).starts_with(t)) op = std::string(t);
      if (op.size() == 1 && std::string_view("()!<>+-*/%").find(c) == std::string_view::npos) return std::nullopt;
      out.push_back({PpToken::Kind::Op, op});
      i += op.size();
    }
  }
  out.push_back({});
  return out;
}

// What one condition may cost, macro expansions included: past either
// limit it is not decided (nullopt: its text stays a guard). The recursion
// limit bounds the evaluator's stack (`!!!...`, `(((...`); each level of
// parentheses takes two calls, so it allows the 256 levels the C++ standard
// asks of a compiler (Annex B). The budget bounds the work of macros whose
// expansion multiplies at each level.
constexpr int kMaxNesting = 2 * 256 + 16;
constexpr size_t kTokenBudget = 100'000;

class Evaluator {
 public:
  // The limits of one condition, shared with the evaluators of its macros' expansions.
  struct Limits {
    size_t budget = kTokenBudget;  // tokens left to evaluate
    int nesting = 0;               // recursive calls open
  };

  Evaluator(std::vector<PpToken> tokens, const std::map<std::string, std::string>& defines, int depth, Limits& limits)
      : t_(std::move(tokens)), defines_(defines), depth_(depth), limits_(limits) {}

  std::optional<int64_t> whole() {
    if (t_.size() > limits_.budget) return std::nullopt;
    limits_.budget -= t_.size();
    auto v = binary(0);
    if (!v || t_[i_].kind != PpToken::Kind::End) return std::nullopt;
    return v;
  }

 private:
  bool at(std::string_view op) const { return t_[i_].kind == PpToken::Kind::Op && t_[i_].text == op; }

  static int precedence(const std::string& op) {
    if (op == "||") return 1;
    if (op == "&&") return 2;
    if (op == "==" || op == "!=") return 3;
    if (op == "<" || op == ">" || op == "<=" || op == ">=") return 4;
    if (op == "+" || op == "-") return 5;
    if (op == "*" || op == "/" || op == "%") return 6;
    return 0;
  }

  // Counts one level of nesting for the lifetime of a recursive call.
  struct Nested {
    explicit Nested(int& n) : n_(++n) {}
    ~Nested() { --n_; }
    int& n_;
  };

  std::optional<int64_t> binary(int min_precedence) {
    const Nested nested(limits_.nesting);
    if (limits_.nesting > kMaxNesting) return std::nullopt;
    auto left = unary();
    while (left && t_[i_].kind == PpToken::Kind::Op) {
      const std::string op = t_[i_].text;
      const int p = precedence(op);
      if (p == 0 || p < min_precedence) break;
      ++i_;
      auto right = binary(p + 1);
      if (!right) return std::nullopt;
      left = apply(op, *left, *right);
    }
    return left;
  }

  static std::optional<int64_t> apply(const std::string& op, int64_t a, int64_t b) {
    int64_t r = 0;
    if (op == "||") return (a || b) ? 1 : 0;
    if (op == "&&") return (a && b) ? 1 : 0;
    if (op == "==") return a == b;
    if (op == "!=") return a != b;
    if (op == "<") return a < b;
    if (op == ">") return a > b;
    if (op == "<=") return a <= b;
    if (op == ">=") return a >= b;
    if (op == "+") return __builtin_add_overflow(a, b, &r) ? std::nullopt : std::optional<int64_t>(r);
    if (op == "-") return __builtin_sub_overflow(a, b, &r) ? std::nullopt : std::optional<int64_t>(r);
    if (op == "*") return __builtin_mul_overflow(a, b, &r) ? std::nullopt : std::optional<int64_t>(r);
    if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
    return op == "/" ? a / b : a % b;
  }

  std::optional<int64_t> unary() {
    const Nested nested(limits_.nesting);
    if (limits_.nesting > kMaxNesting) return std::nullopt;
    if (at("!")) {
      ++i_;
      auto v = unary();
      return v ? std::optional<int64_t>(!*v) : std::nullopt;
    }
    if (at("-")) {
      ++i_;
      auto v = unary();
      if (!v || *v == INT64_MIN) return std::nullopt;
      return -*v;
    }
    if (at("+")) {
      ++i_;
      return unary();
    }
    return primary();
  }

  std::optional<int64_t> primary() {
    const PpToken& t = t_[i_];
    if (t.kind == PpToken::Kind::Number) {
      ++i_;
      return t.value;
    }
    if (at("(")) {
      ++i_;
      auto v = binary(0);
      if (!v || !at(")")) return std::nullopt;
      ++i_;
      return v;
    }
    if (t.kind != PpToken::Kind::Name) return std::nullopt;
    ++i_;
    if (t.text == "defined") {
      const bool paren = at("(");
      if (paren) ++i_;
      if (t_[i_].kind != PpToken::Kind::Name) return std::nullopt;
      const bool defined = defines_.count(t_[i_].text) > 0;
      ++i_;
      if (paren) {
        if (!at(")")) return std::nullopt;
        ++i_;
      }
      return defined ? 1 : 0;
    }
    if (at("(")) return std::nullopt;  // a function-like macro, __has_include(...)
    if (t.text == "true") return 1;
    if (t.text == "false") return 0;
    auto it = defines_.find(t.text);
    if (it == defines_.end()) return 0;
    // A macro's value is a condition of its own; a bounded depth ends a macro that names itself.
    if (depth_ >= 16) return std::nullopt;
    auto tokens = tokenize(it->second);
    if (!tokens || tokens->size() == 1) return std::nullopt;  // `#define X` alone: #if X is an error
    return Evaluator(std::move(*tokens), defines_, depth_ + 1, limits_).whole();
  }

  std::vector<PpToken> t_;
  const std::map<std::string, std::string>& defines_;
  int depth_;
  Limits& limits_;
  size_t i_ = 0;
};

}  // namespace

std::optional<bool> evaluate_condition(std::string_view condition, const std::map<std::string, std::string>& defines) {
  auto tokens = tokenize(condition);
  if (!tokens || tokens->size() == 1) return std::nullopt;
  Evaluator::Limits limits;
  auto value = Evaluator(std::move(*tokens), defines, 0, limits).whole();
  if (!value) return std::nullopt;
  return *value != 0;
}

bool predefined_by_compiler(std::string_view name) {
  // The instruction-set families whose every macro the target flags set (-mavx512bf16, -march=armv8.2-a+bf16...).
  static constexpr std::string_view families[] = {"__AVX", "__AMX", "__SSE", "__FMA", "__F16C", "__BMI",
                                                  "__ARM_FEATURE_", "__ARM_NEON", "__riscv", "__POWER"};
  // The target's architecture and system, and the compilers themselves.
  static constexpr std::string_view names[] = {
      "__x86_64__", "__i386__", "__aarch64__", "__arm__", "__powerpc64__", "__PPC64__", "__VSX__", "__ALTIVEC__",
      "__s390x__", "__linux__", "__APPLE__", "_WIN32", "_WIN64", "__GNUC__", "__clang__", "_MSC_VER", "__NVCC__",
      "__CUDACC__", "__CUDA_ARCH__", "__HIPCC__", "__HIP__", "__HIP_DEVICE_COMPILE__"};
  return std::any_of(std::begin(families), std::end(families),
                     [&](std::string_view family) { return name.starts_with(family); }) ||
         std::find(std::begin(names), std::end(names), name) != std::end(names);
}

}  // namespace opgen::import
