// How each schema type crosses into C++ and Python: one table, consulted by
// the checker (is the type carried by this ABI, from which version) and by
// every emitter (parameter and value types, Python annotations).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "model/schema.h"

namespace opgen::model {

struct TypeMapping {
  std::string_view schema;       // type text without alias annotations: "Tensor?", "int[]"
  std::string_view stable_param; // kernel parameter type in the stable ABI ("" if not carried)
  std::string_view stable_value; // type the boxed wrapper unboxes into / boxes from
  uint64_t stable_since;         // first TORCH_TARGET_VERSION that carries it; 0: never
  std::string_view unstable_param;  // kernel parameter type with torch/library.h ("" if not carried)
  std::string_view unstable_value;  // kernel return type with torch/library.h ("" if not returnable)
  std::string_view python;       // annotation in the .pyi stub
};

// Every row of the table, in its order (docs/types.md is printed from it).
std::span<const TypeMapping> all_type_mappings();

// docs/types.md: the table as Markdown, per ABI and version (`opgen types`).
std::string types_markdown();

// The type text used as the table key: aliases dropped, `int[2]` -> `int[]`.
std::string type_key(const Type& type);

// nullptr when opgen does not support the type at all.
const TypeMapping* find_type_mapping(const Type& type);

// Kernel parameter type for an argument, taking mutability into account
// (`Tensor(a!)` becomes a non-const reference).
std::string kernel_param_type(const Argument& arg, bool stable);

// The mutable argument a result aliases (`Tensor(a!) out` for a result
// `Tensor(a!)`), or nullptr. Optional arguments count (FlashAttention's
// `Tensor(out!)? out=None`), and optional results (`Tensor(c!)?`, None
// where the argument is not given).
const Argument* aliased_argument(const FunctionSchema& schema, const Return& ret);
// The argument a result is a view of: `Tensor(a) x` for a result
// `Tensor(a)`, neither written (DeepSpeed's `wait_allgather(Tensor(a) a,
// ...) -> Tensor(a)`), or nullptr. The kernel returns the view.
const Argument* viewed_argument(const FunctionSchema& schema, const Return& ret);
// The argument a result is bound to: an aliased argument that is always
// given (not optional). The kernel writes into it and does not return that
// result; the generated wrapper and fake return the argument itself.
const Argument* bound_argument(const FunctionSchema& schema, const Return& ret);

// Kernel return type for a schema's returns: void, T, or std::tuple<T...>,
// without the results bound to an argument; with `all`, every result (what
// the op returns to the dispatcher).
std::string kernel_return_type(const FunctionSchema& schema, bool stable, bool all = false);

// Whether PyTorch reads a dispatch key from the arguments: it reads Tensor,
// Tensor? and tensor lists, not a nested list nor an `Any`. An op without
// one never reaches a kernel picked by a device (model/dispatch_keys.h).
bool takes_dispatch_tensor(const FunctionSchema& schema);

// True for `Tensor(a!)`, `Tensor(a!)[]` and `Tensor(a!)?`: what the op
// writes. A write annotation on a value (`int(a!)?`, which PyTorch accepts)
// writes nothing: has_write_annotation only.
bool is_mutable(const Argument& arg);
bool has_write_annotation(const Argument& arg);

// "float32" for dtype names the rule language and the checks accept, with
// their torch and C++ spellings.
struct DTypeInfo {
  std::string_view name;     // float32
  std::string_view python;   // torch.float32
  std::string_view cpp;      // Float (ScalarType enumerator)
};
const DTypeInfo* find_dtype(std::string_view name);
std::vector<std::string> dtype_names();

}  // namespace opgen::model
