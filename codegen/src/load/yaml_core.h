// What a YAML scalar means under the YAML 1.2 core schema (YAML 1.2.2,
// section 10.3.2): the one rule opgen, its JSON Schema and editors share.
// yaml-cpp keeps every scalar as text and converts on request (taking `yes`,
// `on` and a quoted "3" for a bool or a number), so the loader asks here
// instead: a quoted scalar is a string; a plain one is null, a bool, an int
// or a float when it matches that type's pattern, and a string otherwise.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <yaml-cpp/node/node.h>

namespace opgen::load {

enum class YamlType { Null, Bool, Int, Float, String, List, Mapping };

// The type of `node`. An explicit `!!str` makes a string; any other tag is
// ignored (the text resolves as a plain scalar would).
YamlType yaml_type(const YAML::Node& node);

// "null", "a boolean", "an integer", "a number", "a string", "a list", "a mapping".
const char* describe(YamlType type);

// An integer: a YAML int within int64, or a float with an integral value
// within int64 (JSON's number model, which the JSON Schema's "integer"
// follows: 2.0 is the integer 2). Nothing for any other node.
std::optional<int64_t> yaml_integer(const YAML::Node& node);

// A number: an int or a float (`.inf` and `.nan` included).
std::optional<double> yaml_number(const YAML::Node& node);

// true or false: `true`, `True`, `TRUE`, `false`, `False`, `FALSE` only.
std::optional<bool> yaml_bool(const YAML::Node& node);

// A note for a value of the wrong type that a user may have meant as a
// string: "YAML reads `3` as an integer: write \"3\" for the string".
std::optional<std::string> quote_hint(const YAML::Node& node);

}  // namespace opgen::load
