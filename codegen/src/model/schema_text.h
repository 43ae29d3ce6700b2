// What the schema parser and printer share (model/schema.cpp,
// model/schema_print.cpp): values formatted as PyTorch prints them, and type
// trees built and printed. Internal to the schema model.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/schema.h"

namespace opgen::model::detail {

// PyTorch's operator<<(ostream, IValue) for doubles: integral values as "1.",
// everything else with max_digits10 (17) significant digits.
std::string format_double(double d);

// Python's repr() of a float: the shortest round-tripping digits, in fixed
// notation for exponents in [-4, 16), else in scientific notation.
std::string python_float(double d);

// A string default, quoted. Printed: c10::printQuotedString, including its
// treatment of bytes >= 0x80, which go through its octal branch as negative
// chars and yield odd characters such as "\0)+" for 0xC3 (reproduced for
// parity), and \r, an escape PyTorch's parser does not know. Registration:
// the same but those two, as octal escapes the parser reads back.
std::string quote_string(std::string_view s, SchemaForm form = SchemaForm::Printed);

bool is_valid_utf8(std::string_view s);

// A Python string literal with repr()'s quoting rules.
std::string python_string(std::string_view s);

// PyTorch keeps one AliasInfo per argument: the annotation of the outermost
// list (or of the type itself), with the element's annotation nested inside
// it as a "contained type". A list written without an annotation of its own
// gets an empty one, `()` or `(!)`, whenever its element has one. This is
// that effective annotation of `t`, as printed. Optional is transparent.
struct EffectiveAlias {
  std::string text;
  bool is_write;
};

TypePtr named_type(std::string name, std::optional<AliasInfo> alias = std::nullopt);

TypePtr optional_type(TypePtr element);

TypePtr list_type(TypePtr element, std::optional<int64_t> size, std::optional<AliasInfo> alias);

TypePtr compound_type(Type::Kind kind, std::string name, std::vector<TypePtr> elements,
                      std::optional<AliasInfo> alias = std::nullopt);

// PyTorch parses the types inside Dict(...), Future(...), tuples etc. as
// "fake" types, in which SymInt/ScalarType/Layout/MemoryFormat are plain int.
TypePtr to_fake(const TypePtr& type);

// PyTorch's Type::str(): the type without alias annotations.
std::string plain_str(const Type& t);

std::optional<EffectiveAlias> effective_alias(const Type& t);

// A type as it is written, each annotation after the node it belongs to
// (`Tensor(a!)?[]`, `Tensor(a!)[][]`), which PyTorch's printer moves or
// drops. Inside tuples and generics PyTorch drops annotations when parsing.
std::string registration_type_str(const Type& t);

// operator<<(ostream, Argument) without the name and default: how a type is
// printed at the top level of an argument or return.
std::string argument_type_str(const Type& type, SchemaForm form = SchemaForm::Printed);

}  // namespace opgen::model::detail
