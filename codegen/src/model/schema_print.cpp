// The schema model's printer: values and types as PyTorch prints them
// (ATen/core/{function_schema.cpp,alias_info.h,ivalue.cpp}), or as opgen
// registers them (SchemaForm::Registration), and the model's to_string.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "model/schema.h"
#include "model/schema_tables.h"
#include "model/schema_text.h"

namespace opgen::model {
namespace detail {

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
std::string quote_string(std::string_view s, SchemaForm form) {
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
TypePtr named_type(std::string name, std::optional<AliasInfo> alias) {
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
                      std::optional<AliasInfo> alias) {
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
std::string argument_type_str(const Type& type, SchemaForm form) {
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
}  // namespace detail

using namespace detail;

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
  if (!name.empty()) out += " " + (written_name.empty() ? name : written_name);
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

}  // namespace opgen::model
