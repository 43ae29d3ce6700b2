// Function-schema parser, mirroring PyTorch 2.14's
// torch/csrc/jit/frontend/{lexer.h,schema_type_parser.cpp,function_schema_parser.cpp}
// (the printer, model/schema_print.cpp, mirrors ATen/core's; the lexer is
// model/schema_lexer.h and the tables model/schema_tables.h).
//
// The goal is byte-for-byte parity with `str(torch._C.parse_schema(s))`, so
// several rules below reproduce PyTorch quirks on purpose; their comments say
// so. Known, deliberate differences: complex default values are rejected,
// custom classes (`__torch__.torch.classes.*`) are not checked for
// registration, and Union(...) is only normalised for Union(T, None).
// The input is untrusted: every path either succeeds or throws a
// ParseFailure that parse_schema() turns into a SchemaError.
#include "model/schema.h"
#include "support/diagnostics.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "model/schema_lexer.h"
#include "model/schema_tables.h"
#include "model/schema_text.h"

namespace opgen::model {
namespace {

using namespace detail;

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
    } else if (std::isupper(static_cast<unsigned char>(text[0]))) {
      // A misspelt host class or type, or an undeclared Python class.
      std::vector<std::string> types;
      for (const auto& info : kBaseTypes) types.emplace_back(info.spelling);
      std::string why;
      if (std::string guess = closest_match(text, host_classes_); !guess.empty())
        why = "did you mean the host class '" + guess + "'?";
      else if (guess = closest_match(text, types); !guess.empty())
        why = "did you mean '" + guess + "'?";
      else
        why = "a Python class an op takes is declared in _types.yaml (host_objects: or tensor_subclasses:)";
      fail(tok.pos, "unknown type '" + text + "': " + why, Code::SchemaUnknownType);
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
  } catch (const detail::ParseFailure& failure) {
    return failure.error;
  }
}

}  // namespace opgen::model
