// csrc/<op>.cpp for a stable-ABI op: explicit boxed wrappers that unbox each
// argument in schema order, run the input checks, call the kernel and box
// the results, registered with STABLE_TORCH_LIBRARY_FRAGMENT / _IMPL.
#include <fmt/format.h>

#include "model/tags.h"
#include "emit/common.h"
#include "emit/emit.h"
#include "emit/host_objects.h"
#include "model/types.h"
#include "support/printer.h"

namespace opgen::emit {
namespace {

constexpr const char* kPrologue = R"cc(//
// $qualified$ on the LibTorch stable ABI (target: PyTorch $version$).
#include "$header$"

#include <torch/csrc/stable/library.h>$tag_include$
#include <torch/csrc/stable/stableivalue_conversions.h>
#include <torch/headeronly/util/Exception.h>

namespace {

// Every name here carries the op's: a unity build puts many ops' TUs in one.
using $id$_kernel_fn = $ret$ (*)($param_types$);
)cc";

// The boxed calling convention: inputs in stack[0, num_args), outputs
// written to stack[0, num_outputs). The wrapper owns (steals) its inputs.
constexpr const char* kCallBoxedHead = R"cc(
// Unboxes the arguments in schema order, checks them, runs `kernel` and
// boxes its results.
void $id$_call_boxed($id$_kernel_fn kernel, StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  STD_TORCH_CHECK(num_args == $num_args$ && num_outputs == $num_outputs$,
                  "$qualified$: expected $num_args$ arguments and $num_outputs$ outputs, got ", num_args, " and ",
                  num_outputs);
)cc";

// The includes and, in an anonymous namespace, the kernels' boxed wrappers.
void emit_boxed_kernels(Printer& p, const model::Library& lib, const model::OpSpec& op,
                        const std::vector<std::string>& tags) {
  const auto& s = op.schema;
  const std::vector<std::string> param_types = kernel_param_types(lib, op, true);
  const std::string ret = model::kernel_return_type(s, true);
  p.emit(kPrologue, {{"qualified", qualified_name(lib, op)},
                     {"version", model::format_torch_version(lib.torch_target_version)},
                     {"header", kernel_header_path(lib, op).substr(std::string("include/").size())},
                     {"tag_include", tags.empty() ? "" : "\n#include <torch/headeronly/core/enum_tag.h>"},
                     {"ret", ret},
                     {"param_types", fmt::format("{}", fmt::join(param_types, ", "))},
                     {"id", op_identifier(op)}});
  p.emit(kCallBoxedHead, {{"qualified", qualified_name(lib, op)},
                          {"num_args", std::to_string(s.arguments.size())},
                          {"num_outputs", std::to_string(s.returns.size())},
                          {"id", op_identifier(op)}});
  {
    auto indent = p.indent();
    if (s.arguments.empty() && s.returns.empty()) p.line("(void)stack;  // nothing to unbox or box");
    for (size_t i = 0; i < s.arguments.size(); ++i) {
      const auto& a = s.arguments[i];
      const model::TypeMapping* m = model::find_type_mapping(*a.type);
      p.line(fmt::format("auto {} = torch::stable::detail::to<{}>(stack[{}]);", a.name, m->stable_value, i));
    }
    for (const auto& line : host_argument_checks(lib, op, "STD_TORCH_CHECK")) p.line(line);
    for (const auto& check : cpp_checks(lib, op, true))
      for (const auto& line : cpp_check_lines(check, "STD_TORCH_CHECK")) p.line(line);
    const std::string call = fmt::format("kernel({})", fmt::join(kernel_call_args(lib, op, true), ", "));
    // What each stack slot is boxed from: a bound argument or the kernel's result.
    auto [results, outs] = result_sources(s);
    if (outs.empty()) {
      p.line(call + ";");
    } else if (s.returns.size() == 1) {
      p.line(fmt::format("stack[0] = torch::stable::detail::from({});", call));
      results.clear();
    } else if (outs.size() == 1) {
      p.line(fmt::format("auto {} = {};", outs[0], call));
    } else {
      p.line(fmt::format("auto [{}] = {};", fmt::join(outs, ", "), call));
    }
    for (size_t i = 0; i < results.size(); ++i)
      p.line(fmt::format("stack[{}] = torch::stable::detail::from({});", i, results[i]));
  }
  p.line("}");
  for (const auto& key : op.dispatch)
    if (const model::ExistingKernel* existing = op.existing_kernel(key.value))
      p.emit(existing_kernel_adapter(lib, op, *existing));
  for (const auto& key : op.dispatch) {
    p.line();
    p.emit(R"cc(void $kernel$_boxed(StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  $id$_call_boxed(&$callee$, stack, num_args, num_outputs);
}
)cc",
           {{"kernel", kernel_name(op, key.value)},
            {"callee", kernel_callee(lib, op, key.value)},
            {"id", op_identifier(op)}});
  }
  p.line();
  p.line("}  // namespace");
  p.line();
}

}  // namespace

std::string stable_op_source(const model::Library& lib, const model::OpSpec& op) {
  // The checker allows tags from the 2.12 stable ABI on; before, an op that
  // wraps its flat op has them on the op itself (Python), the flat op none.
  // Tags no stable release carries make the package define the op (all its
  // tags with it), and are never the flat op's.
  const bool defined_by_package = model::defined_from_python_for_tags(op);
  std::vector<std::string> tags;
  if (!defined_by_package && (!op.wraps_flat_op() || lib.torch_target_version >= model::kStableTagsSince))
    for (const auto& tag : op.tags)
      if (model::stable_abi_carries(tag.value)) tags.push_back("at::Tag::" + tag.value);

  Printer p;
  p.emit(generated_header("//", op.display_path));
  if (op.dispatch.empty()) {
    // `dispatch: []`: the schema alone, its kernels registered elsewhere.
    // No kernel header defines the target version here: this TU does, before
    // any torch header, as that header would (a unity shard compiles the
    // ops after it against the same surface).
    p.emit(R"cc(//
// $qualified$ on the LibTorch stable ABI (target: PyTorch $version$): the
// schema alone ('dispatch: []'); its kernels are registered elsewhere.
#ifndef TORCH_TARGET_VERSION
#define TORCH_TARGET_VERSION $target$ULL
#elif TORCH_TARGET_VERSION != $target$ULL
#error "$qualified$ targets the stable ABI of PyTorch $version$, but TORCH_TARGET_VERSION names another version"
#endif
#include <torch/csrc/stable/library.h>$tag_include$

)cc",
           {{"qualified", qualified_name(lib, op)},
            {"version", model::format_torch_version(lib.torch_target_version)},
            {"target", fmt::format("0x{:016x}", lib.torch_target_version)},
            {"tag_include", tags.empty() ? "" : "\n#include <torch/headeronly/core/enum_tag.h>"}});
  } else {
    emit_boxed_kernels(p, lib, op, tags);
  }
  if (defined_by_package) {
    std::vector<std::string> uncarried;
    for (const auto& tag : op.tags)
      if (!model::stable_abi_carries(tag.value)) uncarried.push_back("'" + tag.value + "'");
    p.emit(R"cc(// The package ($module$) defines the op, with its tags: no release of the
// stable ABI carries $tags$ on a def.
)cc",
           {{"module", lib.python_package + "._ops"}, {"tags", fmt::format("{}", fmt::join(uncarried, " or "))}});
  } else {
    p.emit(R"cc(STABLE_TORCH_LIBRARY_FRAGMENT($ns$, m) {
$python_module$  m.def($schema$$tags$);
}
)cc",
           {{"ns", lib.ns},
            {"python_module", set_python_module_line(lib, op)},
            {"schema", cpp_string_literal(cpp_def_schema(op))},
            {"tags", tags.empty() ? "" : fmt::format(", {{{}}}", fmt::join(tags, ", "))}});
  }
  for (const auto& key : op.dispatch) {
    p.line();
    p.emit(R"cc(STABLE_TORCH_LIBRARY_IMPL($ns$, $key$, m) {
  m.impl($name$, &$kernel$_boxed);
}
)cc",
           {{"ns", lib.ns},
            {"key", key.value},
            {"name", cpp_string_literal(op.cpp_op_name())},
            {"kernel", kernel_name(op, key.value)}});
  }
  return p.str();
}

}  // namespace opgen::emit
