#include "load/yaml_core.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <regex>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

namespace opgen::load {
namespace {

// The core schema's patterns, verbatim from YAML 1.2.2 section 10.3.2.
bool matches(const std::string& text, const std::regex& pattern) { return std::regex_match(text, pattern); }

const std::regex kNull("null|Null|NULL|~|");
const std::regex kTrue("true|True|TRUE");
const std::regex kFalse("false|False|FALSE");
const std::regex kDecimal("[-+]?[0-9]+");
const std::regex kOctal("0o[0-7]+");
const std::regex kHex("0x[0-9a-fA-F]+");
const std::regex kFloat("[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");
const std::regex kInfinity("[-+]?(\\.inf|\\.Inf|\\.INF)");
const std::regex kNan("\\.nan|\\.NaN|\\.NAN");

constexpr std::string_view kStrTag = "tag:yaml.org,2002:str";

YamlType plain_type(const std::string& text) {
  if (matches(text, kNull)) return YamlType::Null;
  if (matches(text, kTrue) || matches(text, kFalse)) return YamlType::Bool;
  if (matches(text, kDecimal) || matches(text, kOctal) || matches(text, kHex)) return YamlType::Int;
  if (matches(text, kFloat) || matches(text, kInfinity) || matches(text, kNan)) return YamlType::Float;
  return YamlType::String;
}

// An int's value; nothing where it leaves int64.
std::optional<int64_t> int_value(const std::string& text) {
  std::string_view digits = text;
  int base = 10;
  if (digits.starts_with("0o") || digits.starts_with("0x")) {
    base = digits[1] == 'o' ? 8 : 16;
    digits.remove_prefix(2);
  }
  const bool negative = !digits.empty() && digits.front() == '-';
  if (!digits.empty() && (digits.front() == '-' || digits.front() == '+')) digits.remove_prefix(1);
  uint64_t magnitude = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude, base);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  constexpr uint64_t kMax = std::numeric_limits<int64_t>::max();
  if (magnitude > kMax + (negative ? 1 : 0)) return std::nullopt;
  return negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
}

double float_value(const std::string& text) {
  if (matches(text, kNan)) return std::numeric_limits<double>::quiet_NaN();
  if (matches(text, kInfinity))
    return text.front() == '-' ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  return std::strtod(text.c_str(), nullptr);  // the pattern is a subset of what strtod reads
}

}  // namespace

YamlType yaml_type(const YAML::Node& node) {
  if (!node || node.IsNull()) return YamlType::Null;
  if (node.IsSequence()) return YamlType::List;
  if (node.IsMap()) return YamlType::Mapping;
  if (node.Tag() == "!" || node.Tag() == kStrTag) return YamlType::String;  // quoted, or !!str
  return plain_type(node.Scalar());
}

const char* describe(YamlType type) {
  switch (type) {
    case YamlType::Null: return "null";
    case YamlType::Bool: return "a boolean";
    case YamlType::Int: return "an integer";
    case YamlType::Float: return "a number";
    case YamlType::String: return "a string";
    case YamlType::List: return "a list";
    case YamlType::Mapping: return "a mapping";
  }
  return "a value";
}

std::optional<int64_t> yaml_integer(const YAML::Node& node) {
  switch (yaml_type(node)) {
    case YamlType::Int: {
      if (auto v = int_value(node.Scalar())) return v;
      // A decimal past int64 may still be a float with an integral value; it is not within int64 either.
      return std::nullopt;
    }
    case YamlType::Float: {
      const double v = float_value(node.Scalar());
      // [-2^63, 2^63): the doubles that convert to int64 exactly.
      if (std::isfinite(v) && v == std::trunc(v) && v >= -0x1p63 && v < 0x1p63) return static_cast<int64_t>(v);
      return std::nullopt;
    }
    default: return std::nullopt;
  }
}

std::optional<double> yaml_number(const YAML::Node& node) {
  switch (yaml_type(node)) {
    case YamlType::Int:
      if (auto v = int_value(node.Scalar())) return static_cast<double>(*v);
      return std::strtod(node.Scalar().c_str(), nullptr);  // a decimal past int64
    case YamlType::Float: return float_value(node.Scalar());
    default: return std::nullopt;
  }
}

std::optional<bool> yaml_bool(const YAML::Node& node) {
  if (yaml_type(node) != YamlType::Bool) return std::nullopt;
  return matches(node.Scalar(), kTrue);
}

std::optional<std::string> quote_hint(const YAML::Node& node) {
  const YamlType type = yaml_type(node);
  if (type == YamlType::String || type == YamlType::List || type == YamlType::Mapping) return std::nullopt;
  if (type == YamlType::Null) return std::string("the value is null (nothing, `~` or `null`)");
  return fmt::format("YAML reads `{}` as {}: write \"{}\" for the string", node.Scalar(), describe(type),
                     node.Scalar());
}

}  // namespace opgen::load
