// The kernel's view of an op that takes host objects (model::HostArgument):
// one C++ struct per host class, and the wrappers' work of assembling it
// from the flat arguments the library registers. For other ops these are
// the plain parameters and arguments.
#pragma once

#include <string>
#include <vector>

#include "model/spec.h"

namespace opgen::emit {

// The kernel's parameters, "type name", as its header declares them: a host
// argument is `const Quantizer& q` (`const std::optional<Quantizer>& q`).
std::vector<std::string> kernel_params(const model::Library& lib, const model::OpSpec& op, bool stable);
// Just their types, qualified (the stable wrapper's function-pointer type).
std::vector<std::string> kernel_param_types(const model::Library& lib, const model::OpSpec& op, bool stable);

// What a wrapper passes the kernel, from its variables named after the flat
// schema's arguments: the stable wrapper's own values (moved into a struct),
// the unstable wrapper's parameters.
std::vector<std::string> kernel_call_args(const model::Library& lib, const model::OpSpec& op, bool stable);

// Checks, `macro(...)` lines, that a given optional host object came with
// each of its fields (the Python binding passes them all; a direct call of
// torch.ops may not).
std::vector<std::string> host_argument_checks(const model::Library& lib, const model::OpSpec& op, const char* macro);

// The kernel header's struct definitions, one per host class the op takes,
// each guarded so that several headers (a unity TU) define it once. The
// members' types differ per ABI, so each ABI's struct is in an inline
// namespace of its own (stable_abi, unstable_abi): one name for kernels,
// two types for the linker.
std::string host_struct_definitions(const model::Library& lib, const model::OpSpec& op, bool stable);

// The schema the kernel's header documents: as the spec wrote it.
const model::FunctionSchema& declared_schema(const model::OpSpec& op);

}  // namespace opgen::emit
