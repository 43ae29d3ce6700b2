// The emitters: one per output kind, each a pure function of the checked
// model. `emit_library` assembles the whole output tree.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "model/spec.h"
#include "support/output.h"

namespace opgen::emit {

// include/<ns>/kernels/<op>.h: the exact signatures the kernels must have.
std::string kernel_header(const model::Library& lib, const model::OpSpec& op);
// csrc/<op>.cpp for a stable-ABI op: STABLE_TORCH_LIBRARY_* and boxed wrappers.
std::string stable_op_source(const model::Library& lib, const model::OpSpec& op);
// csrc/<op>.cpp for an unstable-ABI op: TORCH_LIBRARY_FRAGMENT / _IMPL.
std::string unstable_op_source(const model::Library& lib, const model::OpSpec& op);
// csrc/<ns>-library.cpp: the namespace's owning TORCH_LIBRARY block.
std::string library_source(const model::Library& lib);
// csrc/<ns>-<abi>-shard<i>.cpp, lib.shards of each ABI: unity TUs that
// include the ops' TUs (and the library block), so that a full build parses
// torch's headers 2 * lib.shards times instead of once per op.
std::vector<std::pair<std::string, std::string>> shard_sources(const model::Library& lib);
// include/<ns>/opgen_adapt.h: the adapter through which the generated code
// calls existing functions as kernels (`kernels:`).
std::string adapt_header(const model::Library& lib);
// For an op's TU: the static_asserts that an existing function can take the
// schema's arguments and return its result, and `<op>_<key>_adapted`, which
// calls it with the kernel signature opgen would have declared.
std::string existing_kernel_adapter(const model::Library& lib, const model::OpSpec& op,
                                    const model::ExistingKernel& kernel);
// What a wrapper calls for a dispatch key: `<op>_<key>_adapted` for an
// existing function, else `<ns>::kernels::<op>_<key>`.
std::string kernel_callee(const model::Library& lib, const model::OpSpec& op, const std::string& dispatch_key);
// python/<pkg>/_ops.py: loads the library; fakes, autograd, symm_mem, shims.
std::string python_module(const model::Library& lib);
// python/<pkg>/_opgen_runtime.py: opgen's runtime (python/opgen/runtime.py),
// which _ops.py calls; the same bytes in every package, after the header.
std::string runtime_module();
// python/<pkg>/_ops.pyi: typed stubs with the docs.
std::string python_stub(const model::Library& lib);
// python/<pkg>/py.typed: PEP 561's marker, so type checkers read the stubs
// of an installed package.
std::string typed_marker(const model::Library& lib);

// tests/test_<pkg>_ops.py: the generated pytest suite, from the specs' samples.
std::string python_tests(const model::Library& lib);
std::string python_tests_path(const model::Library& lib);

OutputTree emit_library(const model::Library& lib);

// `opgen new`: the spec drafted for a new op of `schema` (named), written as
// `schema_text`: `abi` "stable", "unstable" or "" (stable when the library's
// target carries every type), `dispatch` the keys ("": CPU and CUDA, or
// CompositeExplicitAutograd for an op without tensor arguments, which no
// device key reaches), and a default fake rule per output or a Python fake.
model::OpSpec draft_new_op(const model::Library& lib, const model::FunctionSchema& schema,
                           const std::string& schema_text, const std::string& abi, std::vector<std::string> dispatch);

// `opgen new`: the spec text of a new op, and one kernel source per dispatch
// key (path under `kernels_dir`, contents) whose body throws "not implemented".
std::string scaffold_spec(const model::Library& lib, const model::OpSpec& op, const std::string& json_schema_ref);
std::vector<std::pair<std::string, std::string>> scaffold_kernels(const model::Library& lib, const model::OpSpec& op,
                                                                  const std::string& kernels_dir);

// `opgen init`: an outside project's files (path relative to its directory,
// contents) around one example op, `<ns>::scale`: CMakeLists.txt,
// pyproject.toml, the example's spec and CPU kernel, README.md, .gitignore.
std::vector<std::pair<std::string, std::string>> project_files(const model::Library& lib,
                                                               const std::string& json_schema_ref);

// Paths inside the output tree, shared with the build (cmake/Opgen.cmake
// predicts the same names).
std::string kernel_header_path(const model::Library& lib, const model::OpSpec& op);
std::string op_source_path(const model::OpSpec& op);
std::string library_source_path(const model::Library& lib);
std::string adapt_header_path(const model::Library& lib);
std::string shard_source_path(const model::Library& lib, model::Abi abi, unsigned shard);
// Which of lib.shards an op's TU goes to: by a hash of its name, so adding or
// removing an op moves no other op (and rebuilds no other shard).
unsigned shard_of(const model::Library& lib, const model::OpSpec& op);

}  // namespace opgen::emit
