#include "import/tokens.h"

#include <cctype>

namespace opgen::import {

bool is(const Token& t, std::string_view text) {
  return (t.kind == Token::Kind::Punct || t.kind == Token::Kind::Identifier) && t.text == text;
}

size_t matching(const Tokens& tokens, size_t open) {
  const std::string o = tokens[open].text;
  const std::string c = o == "(" ? ")" : o == "[" ? "]" : "}";
  int depth = 0;
  for (size_t i = open; i < tokens.size(); ++i) {
    if (is(tokens[i], o)) ++depth;
    if (is(tokens[i], c) && --depth == 0) return i + 1;
  }
  return tokens.size();
}

std::vector<std::pair<size_t, size_t>> call_arguments(const Tokens& tokens, size_t open, size_t* end) {
  std::vector<std::pair<size_t, size_t>> args;
  *end = matching(tokens, open);
  size_t start = open + 1;
  int depth = 0;
  for (size_t i = open + 1; i + 1 < *end; ++i) {
    const Token& t = tokens[i];
    if (is(t, "(") || is(t, "[") || is(t, "{") || is(t, "<")) ++depth;
    if (is(t, ")") || is(t, "]") || is(t, "}") || is(t, ">")) --depth;
    if (depth == 0 && is(t, ",")) {
      args.emplace_back(start, i);
      start = i + 1;
    }
  }
  if (start < *end - 1) args.emplace_back(start, *end - 1);
  return args;
}

std::string text_of(const Tokens& tokens, std::pair<size_t, size_t> range) {
  std::string out;
  for (size_t i = range.first; i < range.second; ++i) {
    const Token& t = tokens[i];
    if (t.kind == Token::Kind::String) {
      out += (t.formatted ? "f\"" : "\"") + t.text + '"';
    } else {
      const bool word = t.kind == Token::Kind::Identifier || t.kind == Token::Kind::Number;
      if (word && !out.empty() && (std::isalnum(static_cast<unsigned char>(out.back())) || out.back() == '_')) out += ' ';
      out += t.text;
    }
  }
  return out;
}

std::optional<std::pair<std::string, size_t>> namespace_opened(const Tokens& tokens, size_t i) {
  if (i >= tokens.size() || !is(tokens[i], "namespace") || (i > 0 && is(tokens[i - 1], "using"))) return std::nullopt;
  std::string name;
  size_t j = i + 1;
  for (; j < tokens.size() && (tokens[j].kind == Token::Kind::Identifier || is(tokens[j], "::")); ++j)
    name += tokens[j].text;
  if (j >= tokens.size() || !is(tokens[j], "{")) return std::nullopt;
  return std::pair{name, j};
}

std::optional<std::string> string_argument(const Tokens& tokens, std::pair<size_t, size_t> range) {
  auto [begin, end] = range;
  if (end - begin >= 3 && tokens[begin].kind == Token::Kind::Identifier &&
      (tokens[begin].text == "TORCH_SELECTIVE_SCHEMA" || tokens[begin].text == "TORCH_SELECTIVE_NAME") &&
      is(tokens[begin + 1], "(") && is(tokens[end - 1], ")")) {
    begin += 2;
    end -= 1;
  }
  if (begin == end) return std::nullopt;
  std::string joined;
  for (size_t i = begin; i < end; ++i) {
    if (tokens[i].kind != Token::Kind::String || tokens[i].formatted) return std::nullopt;
    joined += tokens[i].text;
  }
  return joined;
}

std::vector<std::string_view> source_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  for (size_t at = 0; at <= text.size();) {
    const size_t nl = text.find('\n', at);
    lines.push_back(text.substr(at, (nl == std::string_view::npos ? text.size() : nl) - at));
    if (nl == std::string_view::npos) break;
    at = nl + 1;
  }
  return lines;
}

size_t indent_of(const std::vector<std::string_view>& lines, int line) {
  if (line < 1 || static_cast<size_t>(line) > lines.size()) return 0;
  const auto text = lines[line - 1];
  const size_t first = text.find_first_not_of(" \t");
  return first == std::string_view::npos ? 0 : first;
}

bool starts_line(const Tokens& tokens, size_t i) { return i == 0 || tokens[i - 1].line != tokens[i].line; }

bool plain_equals(const Tokens& tokens, size_t k) {
  if (!is(tokens[k], "=")) return false;
  if (k + 1 < tokens.size() && is(tokens[k + 1], "=") && tokens[k + 1].line == tokens[k].line) return false;
  if (k == 0) return true;
  const Token& before = tokens[k - 1];
  return !(before.kind == Token::Kind::Punct && before.text.size() == 1 &&
           std::string_view("=<>!+-*/%&|^@~").find(before.text[0]) != std::string_view::npos);
}

}  // namespace opgen::import
