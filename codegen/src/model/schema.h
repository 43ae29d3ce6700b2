// The function-schema model: a typed, lossless mirror of PyTorch's
// FunctionSchema. `parse_schema(s)` followed by `to_string()` gives back the
// canonical text PyTorch's `str(torch._C.parse_schema(s))` prints.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "support/diagnostic_codes.h"

namespace opgen::model {

// `(a!)`, `(a|b)`, `(a -> *)`, `(*)`: PyTorch's AliasInfo as written on a type.
// The `!` shorthand (`Tensor!`) is a fresh write set that PyTorch names `$0`,
// `$1`, ... in order of appearance; it prints as `Tensor($0! -> )`.
// Which text a schema prints as. PyTorch's printed form is not always one
// its parser reads back: the `!` shorthand prints as `Tensor($0! -> )`, an
// all-equal int list default as one value (`int[] a=[1, 1]` as `a=1`), a
// carriage return in a string default as `\r`. `Registration` is the form
// opgen hands to `m.def(...)`: it parses, in PyTorch, to the same schema.
enum class SchemaForm { Printed, Registration };

struct AliasInfo {
  std::vector<std::string> before_sets;  // "a", "b", or "*" for wildcard; in written order, no duplicates
  std::vector<std::string> after_sets;   // non-empty only when written with `->`, as in `a -> *`
  bool is_write = false;                 // `!`

  std::string to_string(SchemaForm form = SchemaForm::Printed) const;  // "(a!)", "(a -> *)", ...
  bool is_fresh() const;  // the `!` shorthand's `$N` set
  bool operator==(const AliasInfo&) const = default;
};

struct Type;
using TypePtr = std::shared_ptr<const Type>;

// A schema type as a small tree.
//   Named:    Tensor, int, SymInt, str, t, __torch__.torch.classes.ns.Foo, ...
//   Optional: T?
//   List:     T[] or T[N]
//   Tuple:    (T1, T2)
//   Generic:  Dict(K, V), Future(T), RRef(T), Union(A, B), Await(T)
// An alias annotation attaches to the node it follows in the text: in
// `Tensor(a!)[]` the alias is on the element, in `Tensor[](a!)` on the list.
struct Type {
  enum class Kind { Named, Optional, List, Tuple, Generic };
  Kind kind = Kind::Named;
  std::string name;                // Named: type name; Generic: constructor name
  std::vector<TypePtr> elements;   // Optional/List: one; Tuple/Generic: all
  std::optional<int64_t> fixed_size;  // List with `[N]`
  std::optional<AliasInfo> alias;

  // As PyTorch prints it at the top level of an argument: `Tensor(a!)[]`,
  // `int[2]`, `Tensor?`. Aliases nested inside Dict(...), tuples etc. are
  // not printed (PyTorch drops them).
  std::string to_string(SchemaForm form = SchemaForm::Printed) const;

  // Helpers for emitters.
  bool is_named(std::string_view n) const { return kind == Kind::Named && name == n; }
  const Type& element() const { return *elements.at(0); }
  // Tensor, Tensor?, Tensor[], Tensor?[] and their aliased forms.
  bool is_tensor_like() const;
};

// A default value, kept as the canonical text PyTorch prints plus its kind,
// so emitters can render it in Python or C++.
struct DefaultValue {
  enum class Kind { None, Bool, Int, Float, String, List, Identifier };
  Kind kind = Kind::None;
  std::string text;  // canonical schema text, e.g. "1e-06", "[1, 2]", "\"x\""
  // String: the unescaped value. Identifier: the name (e.g. contiguous_format;
  // `text` holds the enum value PyTorch stores and prints, e.g. "0").
  // Float: the shortest round-tripping decimal, as Python's repr() ("1e-06"
  // where `text` is "9.9999999999999995e-07"). Int: same as `text`.
  std::string value;
  std::vector<DefaultValue> items;  // List

  std::string to_string(SchemaForm form = SchemaForm::Printed) const;
  std::string to_python() const;  // "1e-06", "None", "True", "'x'", "[1, 2]", ...
};

struct Argument {
  std::string name;
  // The name the schema writes, where it writes one twice (DeepSpeed's
  // `offload_tensor(Tensor a, int id, int id)`): the checker names the second
  // `id_2` for the generated code, and the registered schema keeps `id`.
  std::string written_name;
  TypePtr type;
  std::optional<DefaultValue> default_value;
  bool kwarg_only = false;
  size_t column = 0;  // 0-based column of the argument's type in the schema text

  std::string to_string(SchemaForm form = SchemaForm::Printed) const;
};

struct Return {
  std::string name;  // empty when unnamed
  TypePtr type;
  size_t column = 0;

  std::string to_string(SchemaForm form = SchemaForm::Printed) const;
};

struct OperatorName {
  std::string ns;        // empty when the schema had no namespace
  std::string name;      // e.g. "add_"
  std::string overload;  // empty when none

  std::string qualified() const;  // "ns::name" or "name"
  std::string to_string() const;  // "ns::name.overload"
};

struct FunctionSchema {
  OperatorName name;
  std::vector<Argument> arguments;
  std::vector<Return> returns;
  bool is_vararg = false;  // `...` in arguments
  bool is_varret = false;  // `...` as returns
  // As in PyTorch, `-> (Tensor)` and `-> (Tensor x)` print without the
  // parentheses; only a single return whose type is a tuple keeps them.

  // The canonical text, as PyTorch prints it; or, as `SchemaForm::Registration`,
  // the text to register, which PyTorch reads back as this schema.
  std::string to_string(SchemaForm form = SchemaForm::Printed) const;
};

struct SchemaError {
  std::string message;
  size_t column = 0;  // 0-based column within the parsed text
  // SchemaSyntax, or SchemaUnknownType / SchemaBadDefault for those problems.
  Code code = Code::SchemaSyntax;
};

struct ParseOptions {
  // PyTorch's `allow_typevars`: read unknown lower-case type names (`t`,
  // `tVal`) as type variables, as TorchScript's builtin registry needs.
  // Custom-op registration (torch.library, TORCH_LIBRARY) turns it off,
  // except for schemas starting with `aten::` or `prim::`; so does opgen.
  bool allow_type_variables = false;
  // Names read as types of their own: the library's host classes
  // (_types.yaml), which opgen registers flattened (model/spec.h).
  std::vector<std::string> host_classes;
};

// Parses one schema. Namespaces are optional (`foo(Tensor x) -> Tensor`), and
// so is the whole name, as in torch.library.custom_op (`(Tensor x) -> Tensor`).
// Returns the error with the column of the first problem on failure.
std::variant<FunctionSchema, SchemaError> parse_schema(std::string_view text,
                                                       const ParseOptions& options = {});

// `[A-Za-z_][A-Za-z0-9_]*`: an argument's, a dim's or a namespace's name.
bool is_identifier(std::string_view s);
// `name` or `name.overload`, each an identifier: an op's name, which becomes
// a file name (schemas/<op>.yaml).
bool is_op_name(std::string_view s);

}  // namespace opgen::model
