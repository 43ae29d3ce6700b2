#include "model/types.h"

#include <algorithm>
#include <array>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "model/spec.h"

namespace opgen::model {
namespace {

constexpr uint64_t v2_10 = 0x020a000000000000ULL;
constexpr uint64_t v2_13 = 0x020d000000000000ULL;
constexpr uint64_t never = 0;

// clang-format off
constexpr std::array kTypes = {
  // schema        stable param                                        stable value                                      since   unstable param                                  unstable value                  python
  TypeMapping{"Tensor",        "const torch::stable::Tensor&",                     "torch::stable::Tensor",                          v2_10,  "const at::Tensor&",                            "at::Tensor",                   "torch.Tensor"},
  TypeMapping{"Tensor?",       "const std::optional<torch::stable::Tensor>&",      "std::optional<torch::stable::Tensor>",           v2_10,  "const std::optional<at::Tensor>&",             "std::optional<at::Tensor>",    "Optional[torch.Tensor]"},
  TypeMapping{"Tensor[]",      "const std::vector<torch::stable::Tensor>&",        "std::vector<torch::stable::Tensor>",             v2_10,  "at::TensorList",                               "std::vector<at::Tensor>",      "Sequence[torch.Tensor]"},
  TypeMapping{"Tensor?[]",     "const std::vector<std::optional<torch::stable::Tensor>>&", "std::vector<std::optional<torch::stable::Tensor>>", v2_10,  "const c10::List<std::optional<at::Tensor>>&",  "",                             "Sequence[Optional[torch.Tensor]]"},
  TypeMapping{"Tensor[][]",    "const std::vector<std::vector<torch::stable::Tensor>>&", "std::vector<std::vector<torch::stable::Tensor>>", v2_10,  "const std::vector<std::vector<at::Tensor>>&",  "",                             "Sequence[Sequence[torch.Tensor]]"},
  TypeMapping{"Tensor[]?",     "const std::optional<std::vector<torch::stable::Tensor>>&", "std::optional<std::vector<torch::stable::Tensor>>", v2_10,  "const std::optional<std::vector<at::Tensor>>&", "",                             "Optional[Sequence[torch.Tensor]]"},
  TypeMapping{"int",           "int64_t",                                          "int64_t",                                        v2_10,  "int64_t",                                      "int64_t",                      "int"},
  TypeMapping{"int?",          "std::optional<int64_t>",                           "std::optional<int64_t>",                         v2_10,  "std::optional<int64_t>",                       "",                             "Optional[int]"},
  TypeMapping{"SymInt",        "int64_t",                                          "int64_t",                                        v2_10,  "int64_t",                                      "c10::SymInt",                  "int"},
  TypeMapping{"SymInt?",       "std::optional<int64_t>",                           "std::optional<int64_t>",                         v2_10,  "std::optional<int64_t>",                       "",                             "Optional[int]"},
  TypeMapping{"int[]",         "const std::vector<int64_t>&",                      "std::vector<int64_t>",                           v2_10,  "at::IntArrayRef",                              "std::vector<int64_t>",         "Sequence[int]"},
  TypeMapping{"SymInt[]",      "const std::vector<int64_t>&",                      "std::vector<int64_t>",                           v2_10,  "at::IntArrayRef",                              "",                             "Sequence[int]"},
  TypeMapping{"SymInt[]?",     "const std::optional<std::vector<int64_t>>&",       "std::optional<std::vector<int64_t>>",            v2_10,  "at::OptionalIntArrayRef",                      "",                             "Optional[Sequence[int]]"},
  TypeMapping{"int[][]",       "const std::vector<std::vector<int64_t>>&",         "std::vector<std::vector<int64_t>>",              v2_10,  "const c10::List<c10::List<int64_t>>&",         "",                             "Sequence[Sequence[int]]"},
  TypeMapping{"int[]?",        "const std::optional<std::vector<int64_t>>&",       "std::optional<std::vector<int64_t>>",            v2_10,  "at::OptionalIntArrayRef",                      "",                             "Optional[Sequence[int]]"},
  TypeMapping{"float",         "double",                                           "double",                                         v2_10,  "double",                                       "double",                       "float"},
  TypeMapping{"float?",        "std::optional<double>",                            "std::optional<double>",                          v2_10,  "std::optional<double>",                        "",                             "Optional[float]"},
  TypeMapping{"float[]",       "const std::vector<double>&",                       "std::vector<double>",                            v2_10,  "at::ArrayRef<double>",                         "",                             "Sequence[float]"},
  TypeMapping{"float[]?",      "const std::optional<std::vector<double>>&",        "std::optional<std::vector<double>>",             v2_10,  "const std::optional<std::vector<double>>&",    "",                             "Optional[Sequence[float]]"},
  TypeMapping{"bool",          "bool",                                             "bool",                                           v2_10,  "bool",                                         "bool",                         "bool"},
  TypeMapping{"bool?",         "std::optional<bool>",                              "std::optional<bool>",                            v2_10,  "std::optional<bool>",                          "",                             "Optional[bool]"},
  TypeMapping{"bool[]",        "const std::vector<bool>&",                         "std::vector<bool>",                              v2_10,  "const c10::List<bool>&",                       "",                             "Sequence[bool]"},
  TypeMapping{"bool[]?",       "",                                                 "",                                               never,  "const std::optional<c10::List<bool>>&",        "",                             "Optional[Sequence[bool]]"},
  TypeMapping{"str",           "const std::string&",                               "std::string",                                    v2_10,  "std::string_view",                             "std::string",                  "str"},
  TypeMapping{"str?",          "const std::optional<std::string>&",                "std::optional<std::string>",                     v2_10,  "std::optional<std::string_view>",              "",                             "Optional[str]"},
  TypeMapping{"str[]",         "const std::vector<std::string>&",                  "std::vector<std::string>",                       v2_10,  "const std::vector<std::string>&",              "std::vector<std::string>",     "Sequence[str]"},
  TypeMapping{"str[][]",       "",                                                 "",                                               never,  "const std::vector<std::vector<std::string>>&", "",                             "Sequence[Sequence[str]]"},
  TypeMapping{"ScalarType",    "torch::headeronly::ScalarType",                    "torch::headeronly::ScalarType",                  v2_10,  "at::ScalarType",                               "",                             "torch.dtype"},
  TypeMapping{"ScalarType?",   "std::optional<torch::headeronly::ScalarType>",     "std::optional<torch::headeronly::ScalarType>",   v2_10,  "std::optional<at::ScalarType>",                "",                             "Optional[torch.dtype]"},
  TypeMapping{"ScalarType[]",  "const std::vector<torch::headeronly::ScalarType>&", "std::vector<torch::headeronly::ScalarType>", v2_10, "const std::vector<at::ScalarType>&", "", "Sequence[torch.dtype]"},
  TypeMapping{"ScalarType[]?", "const std::optional<std::vector<torch::headeronly::ScalarType>>&", "std::optional<std::vector<torch::headeronly::ScalarType>>", v2_10, "const std::optional<std::vector<at::ScalarType>>&", "", "Optional[Sequence[torch.dtype]]"},
  TypeMapping{"Device",        "torch::stable::Device",                            "torch::stable::Device",                          v2_10,  "at::Device",                                   "",                             "torch.device"},
  TypeMapping{"Device?",       "std::optional<torch::stable::Device>",             "std::optional<torch::stable::Device>",           v2_10,  "std::optional<at::Device>",                    "",                             "Optional[torch.device]"},
  TypeMapping{"Layout",        "torch::headeronly::Layout",                        "torch::headeronly::Layout",                      v2_10,  "at::Layout",                                   "",                             "torch.layout"},
  TypeMapping{"Layout?",       "std::optional<torch::headeronly::Layout>",         "std::optional<torch::headeronly::Layout>",       v2_10,  "std::optional<at::Layout>",                    "",                             "Optional[torch.layout]"},
  TypeMapping{"MemoryFormat",  "torch::headeronly::MemoryFormat",                  "torch::headeronly::MemoryFormat",                v2_10,  "at::MemoryFormat",                             "",                             "torch.memory_format"},
  TypeMapping{"MemoryFormat?", "std::optional<torch::headeronly::MemoryFormat>",   "std::optional<torch::headeronly::MemoryFormat>", v2_10,  "std::optional<at::MemoryFormat>",              "",                             "Optional[torch.memory_format]"},
  TypeMapping{"Generator?",    "const std::optional<torch::stable::Generator>&",   "std::optional<torch::stable::Generator>",        v2_13,  "const std::optional<at::Generator>&",          "",                             "Optional[torch.Generator]"},
  TypeMapping{"(int, int)",    "",                                                 "",                                               never,  "std::tuple<int64_t, int64_t>",                 "",                             "tuple[int, int]"},
  TypeMapping{"(int, int)?",   "",                                                 "",                                               never,  "const std::optional<std::tuple<int64_t, int64_t>>&", "",                       "Optional[tuple[int, int]]"},
  // pyg-lib's heterogeneous samplers (per node and edge type); c10::Dict is unstable-only.
  TypeMapping{"Dict(str, Tensor)",  "",                                            "",                                               never,  "const c10::Dict<std::string, at::Tensor>&",    "c10::Dict<std::string, at::Tensor>", "dict[str, torch.Tensor]"},
  TypeMapping{"Dict(str, Tensor)?", "",                                            "",                                               never,  "const std::optional<c10::Dict<std::string, at::Tensor>>&", "std::optional<c10::Dict<std::string, at::Tensor>>", "Optional[dict[str, torch.Tensor]]"},
  TypeMapping{"Dict(str, int)",     "",                                            "",                                               never,  "const c10::Dict<std::string, int64_t>&",       "c10::Dict<std::string, int64_t>", "dict[str, int]"},
  TypeMapping{"Dict(str, int[])",   "",                                            "",                                               never,  "const c10::Dict<std::string, std::vector<int64_t>>&", "c10::Dict<std::string, std::vector<int64_t>>", "dict[str, list[int]]"},
  TypeMapping{"Dict(str, int[][])", "",                                            "",                                               never,  "const c10::Dict<std::string, std::vector<std::vector<int64_t>>>&", "", "dict[str, list[list[int]]]"},
  TypeMapping{"(str, str, str)[]",  "",                                            "",                                               never,  "const std::vector<std::tuple<std::string, std::string, std::string>>&", "", "Sequence[tuple[str, str, str]]"},
  TypeMapping{"Any",           "",                                                 "",                                               never,  "const c10::IValue&",                           "",                             "object"},
  TypeMapping{"Scalar",        "",                                                 "",                                               never,  "const at::Scalar&",                            "",                             "Union[int, float, bool]"},
  TypeMapping{"Scalar?",       "",                                                 "",                                               never,  "const std::optional<at::Scalar>&",             "",                             "Optional[Union[int, float, bool]]"},
};

constexpr std::array kDTypes = {
  DTypeInfo{"float32", "torch.float32", "Float"},
  DTypeInfo{"float64", "torch.float64", "Double"},
  DTypeInfo{"float16", "torch.float16", "Half"},
  DTypeInfo{"bfloat16", "torch.bfloat16", "BFloat16"},
  DTypeInfo{"float8_e4m3fn", "torch.float8_e4m3fn", "Float8_e4m3fn"},
  DTypeInfo{"float8_e5m2", "torch.float8_e5m2", "Float8_e5m2"},
  DTypeInfo{"int8", "torch.int8", "Char"},
  DTypeInfo{"uint8", "torch.uint8", "Byte"},
  DTypeInfo{"int16", "torch.int16", "Short"},
  DTypeInfo{"int32", "torch.int32", "Int"},
  DTypeInfo{"int64", "torch.int64", "Long"},
  DTypeInfo{"bool", "torch.bool", "Bool"},
  DTypeInfo{"complex64", "torch.complex64", "ComplexFloat"},
  DTypeInfo{"complex128", "torch.complex128", "ComplexDouble"},
};
// clang-format on

}  // namespace

std::span<const TypeMapping> all_type_mappings() { return kTypes; }

std::string types_markdown() {
  std::string out = R"md(# Types

What each schema type becomes on each ABI: the kernel's C++ parameter type,
the type a kernel returns it as, and the `.pyi` annotation. Printed by
`opgen types` from the table the tool itself uses
(`codegen/src/model/types.cpp`), so it cannot drift; a test fails when this
page is stale (`build/codegen/opgen types > docs/types.md`).

A stable-ABI op may use a type from the version in "stable since" on: the
library's target (`--torch-target-version`, 2.10 by default) must be that
version or newer, or opgen reports E0311. "no" means the stable ABI does not
carry the type at all (E0310: use `abi: unstable`); an empty unstable cell
means opgen carries the type on the stable ABI only (E0308: use
`abi: stable`). A return column left empty means the type cannot be
returned on that ABI (E0309). `Tensor(a!)` arguments become non-const
references. `Tensor[][]` (the tensor lists of multi-tensor optimizers, as
apex writes them) is an argument only (E0309: fake rules describe tensors
and tensor lists, not nested lists), never written to in place: PyTorch
keeps no alias set inside a nested list (`Tensor(a!)[][]` registers as
`Tensor[](!)[]`, which its own parser refuses), so a list updated in place
is a `Tensor(a!)[]` argument; and PyTorch picks a backend's kernel by
`Tensor`, `Tensor?` and `Tensor[]` arguments only, so an op with a CPU or
CUDA kernel also takes one of those (E0813). Types PyTorch's parser accepts
that this table lacks are E0308: among them `Dict(...)` but those of
`str` keys below (the commonest in the corpus of real schemas), tuples as
arguments but `(int, int)` and `(str, str, str)[]`, `str[]?`, `int?[]`, `Scalar[]`, `complex`,
`QScheme`, `Storage`, `Stream`, and lists of `Device`, `Layout`,
`MemoryFormat` or `Generator`.

| schema type | stable since | stable parameter | stable return | unstable parameter | unstable return | Python |
|---|---|---|---|---|---|---|
)md";
  auto code = [](std::string_view text) { return text.empty() ? std::string() : fmt::format("`{}`", text); };
  for (const TypeMapping& m : kTypes) {
    const bool stable = m.stable_since != never;
    out += fmt::format("| `{}` | {} | {} | {} | {} | {} | `{}` |\n", m.schema,
                       stable ? format_torch_version(m.stable_since) : "no", code(m.stable_param),
                       code(m.stable_value), code(m.unstable_param), code(m.unstable_value), m.python);
  }
  return out;
}

std::string type_key(const Type& type) {
  switch (type.kind) {
    case Type::Kind::Named: return type.name;
    case Type::Kind::Optional: return type_key(type.element()) + "?";
    case Type::Kind::List: return type_key(type.element()) + "[]";
    case Type::Kind::Tuple:
    case Type::Kind::Generic: break;
  }
  // Tuples and generic containers have no row in the table; their full text
  // keeps diagnostics readable.
  return type.to_string();
}

const TypeMapping* find_type_mapping(const Type& type) {
  const std::string key = type_key(type);
  for (const TypeMapping& mapping : kTypes)
    if (mapping.schema == key) return &mapping;
  return nullptr;
}

bool has_write_annotation(const Argument& arg) {
  const Type* t = arg.type.get();
  while (t) {
    if (t->alias && t->alias->is_write) return true;
    t = t->elements.empty() ? nullptr : t->elements.front().get();
  }
  return false;
}

bool takes_dispatch_tensor(const FunctionSchema& schema) {
  return std::any_of(schema.arguments.begin(), schema.arguments.end(), [](const Argument& a) {
    const std::string key = a.type ? type_key(*a.type) : "";
    return key.find("Tensor") != std::string::npos && key != "Tensor[][]";
  });
}

bool is_mutable(const Argument& arg) { return arg.type && arg.type->is_tensor_like() && has_write_annotation(arg); }

std::string kernel_param_type(const Argument& arg, bool stable) {
  const TypeMapping* mapping = find_type_mapping(*arg.type);
  if (!mapping) return "";
  if (is_mutable(arg) && type_key(*arg.type) == "Tensor")
    return stable ? "torch::stable::Tensor&" : "at::Tensor&";
  return std::string(stable ? mapping->stable_param : mapping->unstable_param);
}

const Argument* aliased_argument(const FunctionSchema& schema, const Return& ret) {
  // `Tensor(c!)?` too: the optional argument when given, else None (FBGEMM's permute_2D_sparse_preallocated_out).
  const Type& type = ret.type->kind == Type::Kind::Optional ? ret.type->element() : *ret.type;
  if (!type.alias || !type.alias->is_write || !type.is_named("Tensor")) return nullptr;
  const std::set<std::string> sets(type.alias->before_sets.begin(), type.alias->before_sets.end());
  for (const Argument& arg : schema.arguments) {
    const Type& t = arg.type->kind == Type::Kind::Optional ? arg.type->element() : *arg.type;
    if (!t.is_named("Tensor") || !t.alias || !t.alias->is_write) continue;
    if (std::set<std::string>(t.alias->before_sets.begin(), t.alias->before_sets.end()) == sets) return &arg;
  }
  return nullptr;
}

const Argument* viewed_argument(const FunctionSchema& schema, const Return& ret) {
  const Type& type = *ret.type;
  if (!type.alias || type.alias->is_write || !type.is_named("Tensor")) return nullptr;
  const std::set<std::string> sets(type.alias->before_sets.begin(), type.alias->before_sets.end());
  for (const Argument& arg : schema.arguments) {
    const Type& t = *arg.type;
    if (!t.is_named("Tensor") || !t.alias || t.alias->is_write) continue;
    if (std::set<std::string>(t.alias->before_sets.begin(), t.alias->before_sets.end()) == sets) return &arg;
  }
  return nullptr;
}

const Argument* bound_argument(const FunctionSchema& schema, const Return& ret) {
  const Argument* arg = aliased_argument(schema, ret);
  return arg && arg->type->kind != Type::Kind::Optional ? arg : nullptr;
}

std::string kernel_return_type(const FunctionSchema& schema, bool stable, bool all) {
  std::vector<std::string> types;
  for (const Return& ret : schema.returns) {
    if (!all && bound_argument(schema, ret)) continue;
    const TypeMapping* mapping = find_type_mapping(*ret.type);
    types.emplace_back(mapping ? (stable ? mapping->stable_value : mapping->unstable_value) : "");
  }
  if (types.empty()) return "void";
  if (types.size() == 1) return types.front();
  return fmt::format("std::tuple<{}>", fmt::join(types, ", "));
}

const DTypeInfo* find_dtype(std::string_view name) {
  for (const DTypeInfo& info : kDTypes)
    if (info.name == name) return &info;
  return nullptr;
}

std::vector<std::string> dtype_names() {
  std::vector<std::string> names;
  for (const DTypeInfo& info : kDTypes) names.emplace_back(info.name);
  return names;
}

}  // namespace opgen::model
