#include "import/python_values.h"

#include <algorithm>
#include <cstdlib>
#include <set>

#include <fmt/format.h>

#include "model/schema_tables.h"

namespace opgen::import {

namespace {

// PyTorch's Python enums a default may convert with int(): their members'
// values, as torch/nn/functional.py binds them (torch._C._nn._ScalingType and
// _SwizzleType). tests/python/test_import_custom_op.py checks each against torch.
const std::map<std::string, long long, std::less<>>& torch_enum_values() {
  static const std::map<std::string, long long, std::less<>> table = {
      {"torch.nn.functional.ScalingType.TensorWise", 0},
      {"torch.nn.functional.ScalingType.RowWise", 1},
      {"torch.nn.functional.ScalingType.BlockWise1x16", 2},
      {"torch.nn.functional.ScalingType.BlockWise1x32", 3},
      {"torch.nn.functional.ScalingType.BlockWise1x128", 4},
      {"torch.nn.functional.ScalingType.BlockWise128x128", 5},
      {"torch.nn.functional.SwizzleType.NO_SWIZZLE", 0},
      {"torch.nn.functional.SwizzleType.SWIZZLE_32_4_4", 1},
  };
  return table;
}

// How deep names and brackets are followed, and how long an expression is
// read: a hostile module's chains of names and brackets stop there (each
// constant is evaluated once, so a module costs at most kMaxDepth passes over it).
constexpr int kMaxDepth = 16;
constexpr size_t kMaxTokens = 4096;

// A literal as infer_schema writes it: None, True, False, a number (which the
// scanner may split at a sign: `-2`, `1e-6` as `1e`, `-`, `6`), a string quoted.
std::optional<std::string> literal(const Tokens& tokens, TokenRange range) {
  auto [begin, end] = range;
  if (end - begin == 1) {
    const Token& t = tokens[begin];
    if (is(t, "None") || is(t, "True") || is(t, "False")) return t.text;
    if (t.kind == Token::Kind::String && !t.formatted) return fmt::format("\"{}\"", t.text);
  }
  std::string number;
  for (size_t i = begin; i < end; ++i) {
    if (!(tokens[i].kind == Token::Kind::Number || is(tokens[i], "-") || is(tokens[i], "+"))) return std::nullopt;
    number += tokens[i].text;
  }
  if (number.empty() || number.find_first_of("xXnNjJ_") != std::string::npos) return std::nullopt;
  char* stop = nullptr;
  std::strtod(number.c_str(), &stop);
  if (stop != number.c_str() + number.size()) return std::nullopt;
  return number;
}

// `a.b.c` -> "a.b.c"; nullopt for anything else.
std::optional<std::string> dotted_name(const Tokens& tokens, TokenRange range) {
  auto [begin, end] = range;
  std::string out;
  for (size_t i = begin; i < end; ++i) {
    const bool name = (i - begin) % 2 == 0;
    if (name ? tokens[i].kind != Token::Kind::Identifier : !is(tokens[i], ".")) return std::nullopt;
    out += tokens[i].text;
  }
  if (out.empty() || out.back() == '.') return std::nullopt;
  return out;
}

// Whether the bracket at `range.first` closes at the range's last token
// (read within the range alone, so an unclosed one costs the range, not the file).
bool encloses(const Tokens& tokens, TokenRange range) {
  auto [begin, end] = range;
  int depth = 0;
  for (size_t i = begin; i < end; ++i) {
    if (is(tokens[i], "(") || is(tokens[i], "[") || is(tokens[i], "{")) ++depth;
    if ((is(tokens[i], ")") || is(tokens[i], "]") || is(tokens[i], "}")) && --depth == 0) return i + 1 == end;
  }
  return false;
}

bool integral(const std::string& number) {
  return !number.empty() && number.find_first_of(".eE") == std::string::npos &&
         number.find_first_not_of("+-0123456789") == std::string::npos;
}

// An assignment whose value is the run's: inside a block, augmented (`+=`),
// or rebound by a function's `global`.
constexpr TokenRange kRunTime{0, 0};

}  // namespace

ModuleValues::ModuleValues(const Tokens& tokens, const std::vector<std::string_view>& lines) : tokens_(tokens) {
  // A statement at token i: to the next line that starts no deeper than
  // `indent` outside brackets.
  auto statement_end = [&](size_t i) {
    int depth = 0;
    size_t j = i;
    for (; j < tokens.size(); ++j) {
      if (j > i && depth <= 0 && starts_line(tokens, j) &&
          indent_of(lines, tokens[j].line) <= indent_of(lines, tokens[i].line))
        break;
      if (is(tokens[j], "(") || is(tokens[j], "[") || is(tokens[j], "{")) ++depth;
      if (is(tokens[j], ")") || is(tokens[j], "]") || is(tokens[j], "}")) --depth;
    }
    return j;
  };
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (!starts_line(tokens, i)) continue;
    const bool top = indent_of(lines, tokens[i].line) == 0;
    if (is(tokens[i], "import") || is(tokens[i], "from")) {
      // `import a.b as x`, `import a.b` (binds a), `from a.b import c as x, d`.
      const size_t end = statement_end(i);
      std::string from;
      size_t k = i + 1;
      if (is(tokens[i], "from")) {
        for (; k < end && !is(tokens[k], "import"); ++k) from += tokens[k].text;
        ++k;
        if (from.starts_with(".")) from.clear();  // relative: nothing of PyTorch's
      }
      while (k < end) {
        size_t stop = k;
        while (stop < end && !is(tokens[stop], ",")) ++stop;
        std::vector<std::string> words;
        for (size_t w = k; w < stop; ++w)
          if (!is(tokens[w], "(") && !is(tokens[w], ")")) words.push_back(tokens[w].text);
        std::string target, local;
        for (size_t w = 0; w < words.size() && words[w] != "as"; ++w) target += words[w];
        const size_t as = std::find(words.begin(), words.end(), "as") - words.begin();
        local = as + 1 < words.size() ? words[as + 1] : target.substr(0, target.find('.'));
        if (!target.empty() && !local.empty()) {
          if (is(tokens[i], "from"))
            imported_[local] = from.empty() ? "" : from + "." + target;
          else
            imported_[local] = as + 1 < words.size() ? target : local;
        }
        k = stop + 1;
      }
      i = end - 1;
      continue;
    }
    if (tokens[i].kind != Token::Kind::Identifier || i + 1 >= tokens.size()) continue;
    if (is(tokens[i], "global") && i + 1 < tokens.size()) {
      assigned_[tokens[i + 1].text].push_back(kRunTime);
      continue;
    }
    // `NAME = value`, `NAME: hint = value`; `NAME += ...` and any indented
    // assignment make the name's value the run's.
    size_t equals = i + 1;
    const bool block_keyword = is(tokens[i], "else") || is(tokens[i], "try") || is(tokens[i], "finally");
    if (is(tokens[equals], ":") && top && !block_keyword) {
      const size_t end = statement_end(i);
      while (equals < end && !plain_equals(tokens, equals)) ++equals;
      if (equals == end) {
        i = end - 1;  // an annotation alone: nothing bound
        continue;
      }
    }
    const Token& op = tokens[equals];
    const bool augmented = equals + 1 < tokens.size() && op.kind == Token::Kind::Punct && op.text.size() == 1 &&
                           std::string_view("+-*/%&|^@").find(op.text[0]) != std::string_view::npos &&
                           is(tokens[equals + 1], "=") && tokens[equals + 1].line == op.line;
    if (augmented) {
      assigned_[tokens[i].text].push_back(kRunTime);
    } else if (plain_equals(tokens, equals) && top) {
      const size_t end = statement_end(i);
      assigned_[tokens[i].text].push_back({equals + 1, end});
      i = end - 1;
    } else if (plain_equals(tokens, equals)) {
      assigned_[tokens[i].text].push_back(kRunTime);
    }
  }
}

PythonValue ModuleValues::value(TokenRange range) const { return as_default(evaluate(range, 0)); }

PythonValue ModuleValues::constant(const std::string& name) const { return as_default(this->name(name, 0)); }

PythonValue ModuleValues::as_default(const Evaluated& e) {
  if (e.enum_value)
    return {"", fmt::format("{} is an enum member, which custom_op writes as no default: int({}) is one", e.text, e.text)};
  return {e.text, e.reason};
}

ModuleValues::Evaluated ModuleValues::evaluate(TokenRange range, int depth) const {
  auto [begin, end] = range;
  if (begin >= end) return {"", {}, "it is empty"};
  if (depth > kMaxDepth) return {"", {}, "it nests too deep to follow"};
  if (end - begin > kMaxTokens) return {"", {}, "it is too long to read"};
  // (expr)
  if (is(tokens_[begin], "(") && encloses(tokens_, range)) return evaluate({begin + 1, end - 1}, depth + 1);
  // `a if condition else b`: known when both branches give the same value.
  int brackets = 0;
  size_t when = 0;
  for (size_t i = begin; i < end; ++i) {
    if (is(tokens_[i], "(") || is(tokens_[i], "[") || is(tokens_[i], "{")) ++brackets;
    if (is(tokens_[i], ")") || is(tokens_[i], "]") || is(tokens_[i], "}")) --brackets;
    if (brackets != 0 || is(tokens_[i], "lambda")) continue;
    if (is(tokens_[i], "if") && i > begin && when == 0) when = i;
    if (is(tokens_[i], "else") && when != 0) {
      Evaluated yes = evaluate({begin, when}, depth + 1);
      Evaluated no = evaluate({i + 1, end}, depth + 1);
      if (yes.text.empty()) return yes;
      if (no.text.empty()) return no;
      if (yes.text == no.text && yes.enum_value == no.enum_value) return yes;
      return {"", {}, fmt::format("it is {} or {}, as `{}` decides when the module runs", yes.text, no.text,
                                  text_of(tokens_, {when + 1, i}))};
    }
  }
  // int(x): an enum member's value, or an integer itself.
  if (end - begin >= 3 && is(tokens_[begin], "int") && is(tokens_[begin + 1], "(") &&
      encloses(tokens_, {begin + 1, end})) {
    Evaluated inner = evaluate({begin + 2, end - 1}, depth + 1);
    if (inner.enum_value) return {std::to_string(*inner.enum_value), {}, ""};
    if (!inner.text.empty() && integral(inner.text)) return inner;
    if (!inner.text.empty()) return {"", {}, fmt::format("int({}) is not read", inner.text)};
    return inner;
  }
  if (auto text = literal(tokens_, range)) return {*text, {}, ""};
  if (auto dotted = dotted_name(tokens_, range)) return name(*dotted, depth);
  return {"", {}, fmt::format("`{}` is computed when the module runs", text_of(tokens_, range))};
}

ModuleValues::Evaluated ModuleValues::name(const std::string& dotted, int depth) const {
  const size_t dot = dotted.find('.');
  const std::string head = dotted.substr(0, dot);
  const std::string rest = dot == std::string::npos ? "" : dotted.substr(dot);
  auto it = imported_.find(head);
  const bool bare_torch = it == imported_.end() && head == "torch" && !assigned_.count(head);  // no import line read
  if (it != imported_.end() || bare_torch) {
    const std::string module = bare_torch ? "torch" : it->second;
    const std::string full = module + rest;
    if (auto e = torch_enum_values().find(full); e != torch_enum_values().end()) return {dotted, e->second, ""};
    for (const auto& dtype : model::detail::kDtypeNamedDefaults)
      if (full == dtype.python) return {full.substr(6), {}, ""};  // torch.float32 -> float32, as infer_schema writes it
    if (module != "torch" && !module.starts_with("torch."))
      return {"", {}, module.empty() ? fmt::format("{} is imported from a module import does not run", dotted)
                                     : fmt::format("{} is {}, from a module import does not run", dotted, full)};
    return {"", {}, fmt::format("{} ({}) is none of the constants import knows", dotted, full)};
  }
  if (auto known = constants_.find(dotted); known != constants_.end()) return known->second;
  if (!evaluating_.insert(dotted).second) return {"", {}, fmt::format("{} refers back to itself", dotted)};
  Evaluated e = assigned(dotted, depth);
  evaluating_.erase(dotted);
  constants_.emplace(dotted, e);
  return e;
}

ModuleValues::Evaluated ModuleValues::assigned(const std::string& dotted, int depth) const {
  const size_t dot = dotted.find('.');
  const std::string head = dotted.substr(0, dot);
  const std::string rest = dot == std::string::npos ? "" : dotted.substr(dot);
  auto at = assigned_.find(head);
  if (at == assigned_.end()) return {"", {}, fmt::format("{} is not assigned in its module", head)};
  if (at->second.size() != 1 || at->second[0] == kRunTime)
    return {"", {}, fmt::format("{} is assigned more than once, or inside a block, in its module", head)};
  if (!rest.empty()) return {"", {}, fmt::format("{} is an attribute, computed when the module runs", dotted)};
  Evaluated e = evaluate(at->second[0], depth + 1);
  if (e.text.empty() && !e.reason.starts_with(head + " "))
    e.reason = fmt::format("{} (line {}): {}", head, tokens_[at->second[0].first].line, e.reason);
  return e;
}

}  // namespace opgen::import
