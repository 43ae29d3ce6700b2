#include "import/python_schema.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace opgen::import {

namespace {

// A base type hint and its schema type, with the containers infer_schema
// derives from it (get_supported_param_types): T[], T?[], T[]?.
struct BaseType {
  std::string schema;
  bool list = false;           // Sequence[T] -> T[]
  bool optional_list = false;  // Sequence[Optional[T]] -> T?[]
  bool list_optional = false;  // Optional[Sequence[T]] -> T[]?
};

const std::map<std::string, BaseType>& base_types() {
  static const std::map<std::string, BaseType> table = {
      {"Tensor", {"Tensor", true, true, false}},
      {"int", {"SymInt", true, false, true}},
      {"float", {"float", true, false, true}},
      {"bool", {"bool", true, false, true}},
      {"str", {"str", false, false, false}},
      {"Number", {"Scalar", true, false, false}},
      {"dtype", {"ScalarType", false, false, false}},
      {"device", {"Device", false, false, false}},
      {"GroupName", {"str", false, false, false}},
  };
  return table;
}

// What a result may be (SUPPORTED_RETURN_TYPES).
const std::map<std::string, std::string>& return_types() {
  static const std::map<std::string, std::string> table = {
      {"Tensor", "Tensor"}, {"list[Tensor]", "Tensor[]"}, {"int", "SymInt"},
      {"float", "float"},   {"bool", "bool"},             {"Number", "Scalar"}};
  return table;
}

// The hint as one string without spaces, its module prefixes dropped
// (`torch.Tensor`, `typing.Optional`, `collections.abc.Sequence`,
// `torch.types.Number`) and its spellings of the same type made one
// (`List`/`Sequence`/`list` -> `list`, `Tuple` -> `tuple`).
std::optional<std::string> hint_text(const Tokens& tokens, TokenRange range) {
  static const std::map<std::string, std::string> spelled = {
      {"List", "list"}, {"Sequence", "list"}, {"Tuple", "tuple"}};
  std::string out;
  for (size_t i = range.first; i < range.second; ++i) {
    const Token& t = tokens[i];
    if (t.kind == Token::Kind::String) return std::nullopt;  // a string annotation: its text is not read
    if (t.kind == Token::Kind::Identifier && i + 1 < range.second && is(tokens[i + 1], ".")) {
      ++i;  // a module prefix
      continue;
    }
    if (t.kind == Token::Kind::Identifier) {
      auto it = spelled.find(t.text);
      out += it == spelled.end() ? t.text : it->second;
    } else if (is(t, "[") || is(t, "]") || is(t, ",") || is(t, "|")) {
      out += t.text;
    } else {
      return std::nullopt;
    }
  }
  return out;
}

// Splits `a,b[c,d],e` at top-level commas.
std::vector<std::string> split_top(const std::string& text) {
  std::vector<std::string> parts;
  int depth = 0;
  std::string part;
  for (char c : text) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(part);
      part.clear();
      continue;
    }
    part += c;
  }
  parts.push_back(part);
  return parts;
}

// `X|None`, `None|X`, `Optional[X]`, `Union[X,None]` -> X; nullopt otherwise.
std::optional<std::string> optional_of(const std::string& hint) {
  if (hint.starts_with("Optional[") && hint.ends_with("]")) return hint.substr(9, hint.size() - 10);
  if (hint.starts_with("Union[") && hint.ends_with("]")) {
    auto parts = split_top(hint.substr(6, hint.size() - 7));
    if (parts.size() == 2 && (parts[0] == "None" || parts[1] == "None")) return parts[0] == "None" ? parts[1] : parts[0];
    return std::nullopt;
  }
  if (hint.ends_with("|None")) return hint.substr(0, hint.size() - 5);
  if (hint.starts_with("None|")) return hint.substr(5);
  return std::nullopt;
}

std::optional<std::string> list_of(const std::string& hint) {
  if (hint.starts_with("list[") && hint.ends_with("]")) return hint.substr(5, hint.size() - 6);
  return std::nullopt;
}

// A parameter's hint -> its schema type, as get_supported_param_types maps it.
std::optional<std::string> parameter_type(const std::string& hint) {
  const auto& bases = base_types();
  auto base = [&](const std::string& name) -> const BaseType* {
    auto it = bases.find(name);
    return it == bases.end() ? nullptr : &it->second;
  };
  if (const BaseType* b = base(hint)) return b->schema;
  if (auto inner = optional_of(hint)) {
    if (const BaseType* b = base(*inner)) return b->schema + "?";
    if (auto element = list_of(*inner); element && base(*element) && base(*element)->list_optional)
      return base(*element)->schema + "[]?";
    return std::nullopt;
  }
  if (auto element = list_of(hint)) {
    if (const BaseType* b = base(*element); b && b->list) return b->schema + "[]";
    if (auto inner = optional_of(*element); inner && base(*inner) && base(*inner)->optional_list)
      return base(*inner)->schema + "?[]";
  }
  return std::nullopt;
}

// The result hint -> the schema's returns (parse_return).
std::optional<std::string> return_type(const std::string& hint) {
  if (hint == "None") return "()";
  const auto& returns = return_types();
  if (auto it = returns.find(hint); it != returns.end()) return it->second;
  if (hint.starts_with("tuple[") && hint.ends_with("]")) {
    std::vector<std::string> types;
    for (const std::string& part : split_top(hint.substr(6, hint.size() - 7))) {
      auto it = returns.find(part);
      if (it == returns.end()) return std::nullopt;
      types.push_back(it->second);
    }
    // infer_schema writes a one-element tuple as ((T)).
    return types.size() == 1 ? fmt::format("(({}))", types[0]) : fmt::format("({})", fmt::join(types, ", "));
  }
  return std::nullopt;
}

}  // namespace

InferredPythonSchema infer_python_schema(const Tokens& tokens, size_t def,
                                         const std::optional<std::vector<std::string>>& mutates,
                                         const ModuleValues& values) {
  InferredPythonSchema out;
  if (def + 2 >= tokens.size() || !is(tokens[def + 2], "(")) {
    out.problem = "its def could not be read";
    return out;
  }
  const std::string function = tokens[def + 1].text;
  size_t close = 0;
  const auto params = call_arguments(tokens, def + 2, &close);
  std::vector<std::string> written;
  std::vector<std::string> seen;
  size_t index = 0;  // the parameter's index, as infer_schema names its alias (a<index>)
  for (const TokenRange& param : params) {
    auto [begin, end] = param;
    if (end - begin == 1 && is(tokens[begin], "*")) {
      written.push_back("*");
      continue;
    }
    if (is(tokens[begin], "/") || is(tokens[begin], "*") || is(tokens[begin], "**")) {
      out.problem = fmt::format("{} takes positional-only or variadic arguments, which custom_op refuses", function);
      return out;
    }
    const std::string name = tokens[begin].text;
    if (tokens[begin].kind != Token::Kind::Identifier || end - begin < 3 || !is(tokens[begin + 1], ":")) {
      out.problem = fmt::format("argument '{}' of {} has no type hint", name, function);
      return out;
    }
    size_t equals = begin + 2;
    int depth = 0;
    while (equals < end && !(depth == 0 && is(tokens[equals], "="))) {
      if (is(tokens[equals], "[")) ++depth;
      if (is(tokens[equals], "]")) --depth;
      ++equals;
    }
    const auto hint = hint_text(tokens, {begin + 2, equals});
    auto type = hint ? parameter_type(*hint) : std::nullopt;
    if (!type) {
      out.problem = fmt::format("argument '{}' of {} has a type hint custom_op maps to no schema type ({})", name,
                                function, text_of(tokens, {begin + 2, equals}));
      return out;
    }
    const bool mutated = mutates ? std::find(mutates->begin(), mutates->end(), name) != mutates->end()
                                 : type->starts_with("Tensor");
    if (mutated) {
      if (!type->starts_with("Tensor")) {
        out.problem = fmt::format("mutates_args names '{}', which is not a tensor", name);
        return out;
      }
      *type = fmt::format("Tensor(a{}!){}", index, type->substr(6));
    }
    std::string entry = fmt::format("{} {}", *type, name);
    if (equals < end) {
      const PythonValue value = values.value({equals + 1, end});
      if (value.text.empty()) {
        out.problem = fmt::format("argument '{}' of {} has a default known only when its module runs ({})", name,
                                  function, value.reason);
        return out;
      }
      entry += "=" + value.text;
    }
    written.push_back(entry);
    seen.push_back(name);
    ++index;
  }
  if (mutates)
    for (const std::string& name : *mutates)
      if (std::find(seen.begin(), seen.end(), name) == seen.end()) {
        out.problem = fmt::format("mutates_args names '{}', which {} does not take", name, function);
        return out;
      }
  // `-> hint:` after the parameters.
  if (close >= tokens.size() || !is(tokens[close], "->")) {
    out.problem = fmt::format("{} has no return type hint", function);
    return out;
  }
  size_t colon = close + 1;
  int depth = 0;
  while (colon < tokens.size() && !(depth == 0 && is(tokens[colon], ":"))) {
    if (is(tokens[colon], "[")) ++depth;
    if (is(tokens[colon], "]")) --depth;
    ++colon;
  }
  const auto hint = hint_text(tokens, {close + 1, colon});
  const auto returns = hint ? return_type(*hint) : std::nullopt;
  if (!returns) {
    out.problem = fmt::format("the return type hint of {} maps to no schema type ({})", function,
                              text_of(tokens, {close + 1, colon}));
    return out;
  }
  out.schema = fmt::format("({}) -> {}", fmt::join(written, ", "), *returns);
  return out;
}

}  // namespace opgen::import
