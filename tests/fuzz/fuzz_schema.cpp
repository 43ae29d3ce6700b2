// libFuzzer target: the schema parser (model::parse_schema) and its printer.
//
// Invariants, beyond "no crash, leak or undefined behaviour":
//  - an error's column lies within the text (or just past its end);
//  - printing settles: if `s` parses, its print parses, the print of that
//    parses into the same schema (up to the order of alias sets), and
//    printing repeats itself every other time (PyTorch keeps `(a|b)` in a
//    hash set that prints it reversed, and that as `(a|b)` again). The first
//    print may drop what the input said: it canonicalizes, as PyTorch's
//    does. Forms PyTorch prints unreadably are exempt (prints_unreadably).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "model/expr.h"
#include "model/schema.h"

namespace {

using opgen::model::FunctionSchema;
using opgen::model::ParseOptions;
using opgen::model::SchemaError;
using opgen::model::Type;

[[noreturn]] void fail(const char* what, std::string_view a, std::string_view b = {}) {
  std::fprintf(stderr, "fuzz_schema: %s\n  [%.*s]\n  [%.*s]\n", what, static_cast<int>(a.size()), a.data(),
               static_cast<int>(b.size()), b.data());
  std::abort();
}

// Types whose printed form neither PyTorch nor opgen reads back:
//  - `Tensor!`, a fresh alias set, prints as `Tensor($0! -> )`;
//  - a list of annotated optionals, `Tensor(a!)?[]`, prints as
//    `Tensor?(a!)[]` (operator<<(ostream, Argument) puts the element's
//    annotation after the element's `str()`, which already ends in `?`);
//  - a wildcard among other alias sets, `Tensor(a -> b|*)`, prints them in
//    reverse, `Tensor(a -> *|b)`, and `*` reads back only as the last set.
bool has_wildcard_among_others(const std::vector<std::string>& sets) {
  return sets.size() > 1 && std::find(sets.begin(), sets.end(), "*") != sets.end();
}

bool has_alias(const Type& type) {
  if (type.alias) return true;
  for (const auto& element : type.elements)
    if (has_alias(*element)) return true;
  return false;
}

const Type& unwrap_optional(const Type& type) {
  return type.kind == Type::Kind::Optional ? *type.elements[0] : type;
}

bool prints_unreadably(const Type& type) {
  // A list size past INT_MAX wraps, as in PyTorch's int32 `N`, and a negative
  // size does not read back: `int[2147483649]` prints `int[-2147483647]`.
  if (type.fixed_size && *type.fixed_size < 0) return true;
  // A list of annotated lists, `Tensor(a!)[][]`, prints the inner annotation
  // as an empty set: `Tensor[](!)[]`.
  if (type.kind == Type::Kind::List && unwrap_optional(*type.elements[0]).kind == Type::Kind::List &&
      has_alias(*type.elements[0]))
    return true;
  if (type.alias) {
    for (const auto& set : type.alias->before_sets)
      if (set.starts_with('$')) return true;
    if (has_wildcard_among_others(type.alias->before_sets) || has_wildcard_among_others(type.alias->after_sets))
      return true;
  }
  if (type.kind == Type::Kind::List && type.elements[0]->kind == Type::Kind::Optional &&
      type.elements[0]->elements[0]->alias)
    return true;
  for (const auto& element : type.elements)
    if (prints_unreadably(*element)) return true;
  return false;
}

// String defaults PyTorch prints in a form neither it nor opgen reads back:
// of a non-`str` argument (`Device d="cuda:1"`, a type variable's `t? d="x"`)
// raw, `Device d=cuda:1`, even when the raw value itself starts with a quote
// (`t? d="\"(x\""` prints `d="(x"`, then `d=(x`); with a byte >= 0x80, through
// c10::printQuotedString's octal branch on a negative char (0xC3 prints as
// `\0)+`); with a carriage return, as `\r`, an escape the parser does not know.
bool string_prints_unreadably(const Type& type, const opgen::model::DefaultValue& value) {
  if (value.kind != opgen::model::DefaultValue::Kind::String) return false;
  return !unwrap_optional(type).is_named("str") ||
         std::any_of(value.value.begin(), value.value.end(),
                     [](char c) { return c == '\r' || static_cast<unsigned char>(c) >= 0x80; });
}

// Also an all-equal int list default, which PyTorch prints as one value: of
// a sized list it reads back as N copies, wrong when the default has another
// length (`int[0] a=[1, 1]` prints `a=1`, read back as `a=[]`); of an unsized
// list it does not read back at all (`int[] a=[1, 1]` prints `a=1`).
bool default_prints_unreadably(const opgen::model::Argument& arg) {
  if (!arg.default_value) return false;
  const Type& type = unwrap_optional(*arg.type);
  if (type.kind == Type::Kind::List && arg.default_value->kind == opgen::model::DefaultValue::Kind::List &&
      (type.fixed_size ? static_cast<int64_t>(arg.default_value->items.size()) != *type.fixed_size
                       : !arg.default_value->text.starts_with('[')))
    return true;
  return string_prints_unreadably(*arg.type, *arg.default_value);
}

bool has_wrapped_size(const Type& type) {
  if (type.fixed_size && *type.fixed_size < 0) return true;
  return std::any_of(type.elements.begin(), type.elements.end(), [](const auto& e) { return has_wrapped_size(*e); });
}

bool has_wrapped_size(const FunctionSchema& schema) {
  return std::any_of(schema.arguments.begin(), schema.arguments.end(), [](auto& a) { return has_wrapped_size(*a.type); }) ||
         std::any_of(schema.returns.begin(), schema.returns.end(), [](auto& r) { return has_wrapped_size(*r.type); });
}

bool same_sets(std::vector<std::string> a, std::vector<std::string> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b;
}

// No `->` means the sets after are those before: `(a|b -> b|a)` prints `(b|a)`.
std::vector<std::string> after_sets(const opgen::model::AliasInfo& alias) {
  return alias.after_sets.empty() ? alias.before_sets : alias.after_sets;
}

// Equal types, up to the order of alias sets. Annotations inside tuples and
// generics (`Dict(str, Tensor(a))`) are ignored: PyTorch drops them.
bool same_type(const Type& a, const Type& b, bool in_container = false) {
  if (a.kind != b.kind || a.name != b.name || a.fixed_size != b.fixed_size || a.elements.size() != b.elements.size())
    return false;
  if (!in_container && (a.alias.has_value() != b.alias.has_value() ||
                        (a.alias && (a.alias->is_write != b.alias->is_write ||
                                     !same_sets(a.alias->before_sets, b.alias->before_sets) ||
                                     !same_sets(after_sets(*a.alias), after_sets(*b.alias))))))
    return false;
  const bool container = in_container || a.kind == Type::Kind::Tuple || a.kind == Type::Kind::Generic;
  for (size_t i = 0; i < a.elements.size(); ++i)
    if (!same_type(*a.elements[i], *b.elements[i], container)) return false;
  return true;
}

bool same_schema(const FunctionSchema& a, const FunctionSchema& b) {
  if (a.name.to_string() != b.name.to_string() || a.is_vararg != b.is_vararg || a.is_varret != b.is_varret ||
      a.arguments.size() != b.arguments.size() || a.returns.size() != b.returns.size())
    return false;
  for (size_t i = 0; i < a.arguments.size(); ++i) {
    const auto& x = a.arguments[i];
    const auto& y = b.arguments[i];
    if (x.name != y.name || x.kwarg_only != y.kwarg_only || !same_type(*x.type, *y.type) ||
        x.default_value.has_value() != y.default_value.has_value() ||
        // Text only: a named default reads back as its value (`dt=float32`, then `dt=6`: an int).
        (x.default_value && x.default_value->text != y.default_value->text))
      return false;
  }
  for (size_t i = 0; i < a.returns.size(); ++i)
    if (a.returns[i].name != b.returns[i].name || !same_type(*a.returns[i].type, *b.returns[i].type)) return false;
  return true;
}

// Walks a type the way emitters do.
void visit(const Type& type) {
  (void)type.to_string();
  (void)type.is_tensor_like();
  (void)opgen::model::value_kind_of(type);
  for (const auto& element : type.elements) visit(*element);
}

FunctionSchema parse_printed(const std::string& printed, const ParseOptions& options, const char* what) {
  auto parsed = opgen::model::parse_schema(printed, options);
  if (auto* err = std::get_if<SchemaError>(&parsed)) fail(what, printed, err->message);
  return std::move(std::get<FunctionSchema>(parsed));
}

void check(std::string_view text, const ParseOptions& options) {
  auto parsed = opgen::model::parse_schema(text, options);
  if (auto* err = std::get_if<SchemaError>(&parsed)) {
    if (err->column > text.size()) fail("error column past the end of the text", text, err->message);
    return;
  }
  const auto& schema = std::get<FunctionSchema>(parsed);
  for (const auto& arg : schema.arguments) {
    visit(*arg.type);
    (void)arg.to_string();
    if (arg.default_value) (void)arg.default_value->to_python();
  }
  for (const auto& ret : schema.returns) visit(*ret.type);
  (void)schema.name.qualified();

  // What opgen registers (m.def) must read back as this very schema, with
  // no exemption but list sizes past INT_MAX, which wrap as in PyTorch.
  if (!has_wrapped_size(schema)) {
    const std::string registered = schema.to_string(opgen::model::SchemaForm::Registration);
    const FunctionSchema back = parse_printed(registered, options, "the registration form does not parse");
    if (!same_schema(schema, back)) fail("the registration form parses into another schema", text, registered);
  }

  for (const auto& arg : schema.arguments)
    if (prints_unreadably(*arg.type) || default_prints_unreadably(arg)) return;
  for (const auto& ret : schema.returns)
    if (prints_unreadably(*ret.type)) return;

  // The first print canonicalizes and may drop what the input said
  // (`MemoryFormat m=contiguous_format` prints `=0`, `float f=long` prints
  // `=4` and that reads back as `4.`); from the second print on, printing
  // must keep the schema (up to the order of alias sets, which flips on
  // every print) and repeat itself every other print.
  const std::string printed1 = schema.to_string();
  const FunctionSchema schema2 = parse_printed(printed1, options, "the printed schema does not parse");
  const std::string printed2 = schema2.to_string();
  const FunctionSchema schema3 = parse_printed(printed2, options, "the reprinted schema does not parse");
  const std::string printed3 = schema3.to_string();
  if (!same_schema(schema2, schema3)) fail("a canonical print parses into another schema", printed2, printed3);
  const std::string printed4 = parse_printed(printed3, options, "the third print does not parse").to_string();
  if (printed4 != printed2) fail("printing is not stable: the fourth print differs from the second", printed2, printed4);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check(text, ParseOptions{.allow_type_variables = false});
  check(text, ParseOptions{.allow_type_variables = true});
  return 0;
}
