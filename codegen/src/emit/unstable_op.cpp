// csrc/<op>.cpp for an unstable-ABI op: the schema in a per-op
// TORCH_LIBRARY_FRAGMENT (a one-op edit recompiles one TU) and one checked
// kernel per dispatch key in TORCH_LIBRARY_IMPL.
#include <algorithm>

#include <fmt/format.h>

#include "emit/common.h"
#include "emit/emit.h"
#include "emit/host_objects.h"
#include "model/dispatch_keys.h"
#include "model/types.h"
#include "support/printer.h"

namespace opgen::emit {

namespace {

// The includes and, in an anonymous namespace, the kernels' checked entry points.
void emit_checked_kernels(Printer& p, const model::Library& lib, const model::OpSpec& op) {
  const auto& s = op.schema;
  const std::string ret = model::kernel_return_type(s, false);
  std::vector<std::string> params;
  for (const auto& a : s.arguments) params.push_back(model::kernel_param_type(a, false) + " " + a.name);
  const std::vector<std::string> call_args = kernel_call_args(lib, op, false);
  const std::vector<std::string> host_checks = host_argument_checks(lib, op, "TORCH_CHECK");
  // Only kernels that compute the results run the checks (not those that
  // redispatch: Autograd, Autocast...); with none, nothing calls them.
  const bool checked = std::any_of(op.dispatch.begin(), op.dispatch.end(), [](const auto& key) {
    return model::computes_results(model::find_dispatch_key(key.value)->kind);
  });
  const auto checks = checked ? cpp_checks(lib, op, false) : std::vector<RenderedCheck>{};

  p.emit(R"cc(//
// $qualified$ through torch/library.h (unstable ABI).
#include "$header$"

#include <torch/library.h>

namespace {

// Every name here carries the op's: a unity build puts many ops' TUs in one.
)cc",
         {{"qualified", qualified_name(lib, op)},
          {"header", kernel_header_path(lib, op).substr(std::string("include/").size())}});
  if (!checks.empty()) {
    std::vector<std::string> check_params;
    for (const auto& name : checked_args(op))
      for (const auto& a : s.arguments)
        if (a.name == name) check_params.push_back(model::kernel_param_type(a, false) + " " + a.name);
    p.line(fmt::format("void {}_check_inputs({}) {{", op_identifier(op), fmt::join(check_params, ", ")));
    {
      auto indent = p.indent();
      for (const auto& check : checks)
        for (const auto& line : cpp_check_lines(check, "TORCH_CHECK")) p.line(line);
    }
    p.line("}");
  }
  for (const auto& key : op.dispatch)
    if (const model::ExistingKernel* existing = op.existing_kernel(key.value))
      p.emit(existing_kernel_adapter(lib, op, *existing));
  // Results bound to an argument are that argument: the kernel wrote into it
  // and does not return it; the registered function returns every result.
  const std::string all_ret = model::kernel_return_type(s, false, /*all=*/true);
  const auto [results, outs] = result_sources(s);
  const bool assemble = all_ret != ret;
  for (const auto& key : op.dispatch) {
    p.line();
    p.line(fmt::format("{} {}_checked({}) {{", all_ret, kernel_name(op, key.value), fmt::join(params, ", ")));
    {
      auto indent = p.indent();
      for (const auto& line : host_checks) p.line(line);
      if (!checks.empty()) {
        if (model::computes_results(model::find_dispatch_key(key.value)->kind))
          p.line(fmt::format("{}_check_inputs({});", op_identifier(op), fmt::join(checked_args(op), ", ")));
        else
          p.line(fmt::format("// {} redispatches: the kernel it reaches checks the inputs it gets.", key.value));
      }
      const std::string call = fmt::format("{}({})", kernel_callee(lib, op, key.value), fmt::join(call_args, ", "));
      if (!assemble) {
        p.line(fmt::format("{}{};", ret == "void" ? "" : "return ", call));
      } else {
        if (outs.size() == 1) p.line(fmt::format("auto {} = {};", outs[0], call));
        if (outs.size() > 1) p.line(fmt::format("auto [{}] = {};", fmt::join(outs, ", "), call));
        if (outs.empty()) p.line(call + ";");
        p.line(results.size() == 1 ? fmt::format("return {};", results[0])
                                   : fmt::format("return {}{{{}}};", all_ret, fmt::join(results, ", ")));
      }
    }
    p.line("}");
  }
  p.line();
  p.line("}  // namespace");
  p.line();
}

}  // namespace

std::string unstable_op_source(const model::Library& lib, const model::OpSpec& op) {
  Printer p;
  p.emit(generated_header("//", op.display_path));
  if (op.dispatch.empty()) {
    // `dispatch: []`: the schema alone, its kernels registered elsewhere.
    p.emit(R"cc(//
// $qualified$ through torch/library.h (unstable ABI): the schema alone
// ('dispatch: []'); its kernels are registered elsewhere.
#include <torch/library.h>

)cc",
           {{"qualified", qualified_name(lib, op)}});
  } else {
    emit_checked_kernels(p, lib, op);
  }
  std::vector<std::string> tags;
  for (const auto& tag : op.tags) tags.push_back("at::Tag::" + tag.value);
  p.emit(R"cc(TORCH_LIBRARY_FRAGMENT($ns$, m) {
$python_module$  m.def($schema$$tags$);
}
)cc",
         {{"ns", lib.ns},
          {"python_module", set_python_module_line(lib, op)},
          {"schema", cpp_string_literal(cpp_def_schema(op))},
          {"tags", tags.empty() ? "" : fmt::format(", {{{}}}", fmt::join(tags, ", "))}});
  for (const auto& key : op.dispatch) {
    p.line();
    p.emit(R"cc(TORCH_LIBRARY_IMPL($ns$, $key$, m) {
  m.impl($name$, TORCH_FN($kernel$_checked));
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
