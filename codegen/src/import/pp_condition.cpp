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

  Evaluator(std::vector<PpToken> tokens, const std::map<std::string, std::string>& defines,
            const std::set<std::string>& unknown, int depth, Limits& limits)
      : t_(std::move(tokens)), defines_(defines), unknown_(unknown), depth_(depth), limits_(limits) {}

  // nullopt: not decided, for want of a value (a name of `unknown`) or because the
  // condition is more than this evaluator reads.
  std::optional<int64_t> whole() {
    if (t_.size() > limits_.budget) return std::nullopt;
    limits_.budget -= t_.size();
    auto v = binary(0);
    if (failed_ || t_[i_].kind != PpToken::Kind::End) return std::nullopt;
    return v;
  }

 private:
  using Value = std::optional<int64_t>;  // nullopt: a value not known

  bool at(std::string_view op) const { return t_[i_].kind == PpToken::Kind::Op && t_[i_].text == op; }

  Value fail() {
    failed_ = true;
    return std::nullopt;
  }

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

  // Reads the whole expression even where a value is not known: `X || 1`
  // is 1 whatever X is, `X && 0` is 0.
  Value binary(int min_precedence) {
    const Nested nested(limits_.nesting);
    if (limits_.nesting > kMaxNesting) return fail();
    auto left = unary();
    while (!failed_ && t_[i_].kind == PpToken::Kind::Op) {
      const std::string op = t_[i_].text;
      const int p = precedence(op);
      if (p == 0 || p < min_precedence) break;
      ++i_;
      auto right = binary(p + 1);
      if (failed_) return std::nullopt;
      left = combine(op, left, right);
    }
    return left;
  }

  static Value combine(const std::string& op, Value a, Value b) {
    if (op == "||") {
      if ((a && *a) || (b && *b)) return 1;
      return a && b ? Value(0) : std::nullopt;
    }
    if (op == "&&") {
      if ((a && !*a) || (b && !*b)) return 0;
      return a && b ? Value(1) : std::nullopt;
    }
    if (!a || !b) return std::nullopt;
    return apply(op, *a, *b);
  }

  static Value apply(const std::string& op, int64_t a, int64_t b) {
    int64_t r = 0;
    if (op == "==") return a == b;
    if (op == "!=") return a != b;
    if (op == "<") return a < b;
    if (op == ">") return a > b;
    if (op == "<=") return a <= b;
    if (op == ">=") return a >= b;
    if (op == "+") return __builtin_add_overflow(a, b, &r) ? std::nullopt : Value(r);
    if (op == "-") return __builtin_sub_overflow(a, b, &r) ? std::nullopt : Value(r);
    if (op == "*") return __builtin_mul_overflow(a, b, &r) ? std::nullopt : Value(r);
    if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
    return op == "/" ? a / b : a % b;
  }

  Value unary() {
    const Nested nested(limits_.nesting);
    if (limits_.nesting > kMaxNesting) return fail();
    if (at("!")) {
      ++i_;
      auto v = unary();
      return v ? Value(!*v) : std::nullopt;
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

  Value primary() {
    const PpToken& t = t_[i_];
    if (t.kind == PpToken::Kind::Number) {
      ++i_;
      return t.value;
    }
    if (at("(")) {
      ++i_;
      auto v = binary(0);
      if (failed_ || !at(")")) return fail();
      ++i_;
      return v;
    }
    if (t.kind != PpToken::Kind::Name) return fail();
    ++i_;
    if (t.text == "defined") {
      const bool paren = at("(");
      if (paren) ++i_;
      if (t_[i_].kind != PpToken::Kind::Name) return fail();
      const std::string& name = t_[i_].text;
      const bool defined = defines_.count(name) > 0;
      const bool known = defined || !unknown_.count(name);
      ++i_;
      if (paren) {
        if (!at(")")) return fail();
        ++i_;
      }
      return known ? Value(defined ? 1 : 0) : std::nullopt;
    }
    if (at("(")) return fail();  // a function-like macro, __has_include(...)
    if (t.text == "true") return 1;
    if (t.text == "false") return 0;
    auto it = defines_.find(t.text);
    if (it == defines_.end()) return unknown_.count(t.text) ? std::nullopt : Value(0);
    // A macro's value is a condition of its own; a bounded depth ends a macro that names itself.
    if (depth_ >= 16) return fail();
    auto tokens = tokenize(it->second);
    if (!tokens || tokens->size() == 1) return fail();  // `#define X` alone: #if X is an error
    Evaluator expansion(std::move(*tokens), defines_, unknown_, depth_ + 1, limits_);
    auto v = expansion.whole();
    if (expansion.failed_) return fail();
    return v;
  }

  std::vector<PpToken> t_;
  const std::map<std::string, std::string>& defines_;
  const std::set<std::string>& unknown_;
  int depth_;
  Limits& limits_;
  size_t i_ = 0;
  bool failed_ = false;  // read no further: the condition is not decided
};

}  // namespace

std::optional<bool> evaluate_condition(std::string_view condition, const std::map<std::string, std::string>& defines,
                                       const std::set<std::string>& unknown) {
  auto tokens = tokenize(condition);
  if (!tokens || tokens->size() == 1) return std::nullopt;
  Evaluator::Limits limits;
  auto value = Evaluator(std::move(*tokens), defines, unknown, 0, limits).whole();
  if (!value) return std::nullopt;
  return *value != 0;
}

bool predefined_by_compiler(std::string_view name) {
  // The instruction-set families whose every macro the target flags set (-mavx512bf16, -march=armv8.2-a+bf16...).
  static constexpr std::string_view families[] = {"__AVX", "__AMX", "__SSE", "__FMA", "__F16C", "__BMI",
                                                  "__ARM_FEATURE_", "__ARM_NEON", "__riscv", "__POWER"};
  // The target's architecture and system (MSVC's macro among them: Windows'), and what only a device pass defines.
  static constexpr std::string_view names[] = {
      "__x86_64__", "__i386__", "__aarch64__", "__arm__", "__powerpc64__", "__PPC64__", "__VSX__", "__ALTIVEC__",
      "__s390x__", "__linux__", "__APPLE__", "_WIN32", "_WIN64", "_MSC_VER", "__CUDA_ARCH__",
      "__HIP_DEVICE_COMPILE__"};
  return names_the_compiler(name) ||
         std::any_of(std::begin(families), std::end(families),
                     [&](std::string_view family) { return name.starts_with(family); }) ||
         std::find(std::begin(names), std::end(names), name) != std::end(names);
}

std::span<const std::string_view> compiler_macros() {
  static constexpr std::string_view names[] = {
      "__cplusplus", "__GNUC__", "__GNUC_MINOR__", "__GNUC_PATCHLEVEL__", "__clang__", "__clang_major__",
      "__clang_minor__", "__clang_patchlevel__", "__NVCC__", "__CUDACC__", "__CUDACC_VER_MAJOR__",
      "__CUDACC_VER_MINOR__", "__CUDACC_VER_BUILD__", "__HIPCC__", "__HIP__", "__INTEL_LLVM_COMPILER"};
  return names;
}

bool names_the_compiler(std::string_view name) {
  const auto names = compiler_macros();
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace opgen::import
