#include "model/generated_names.h"

#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>

#include "support/printer.h"

namespace opgen::model {

std::string op_identifier(const model::OpSpec& op) {
  std::string id = op.op_name();
  std::replace(id.begin(), id.end(), '.', '_');
  return id;
}

std::string python_all_assignment(const model::Library& lib) {
  std::vector<std::string> names;
  for (const auto& op : lib.ops) {
    names.push_back(python_string_literal(op_identifier(op)));
    if (op.compile) names.push_back(python_string_literal(compile_reason_function(op)));
  }
  return fmt::format("__all__ = [{}]", fmt::join(names, ", "));
}

std::string kernel_name(const model::OpSpec& op, const std::string& dispatch_key) {
  std::string key = dispatch_key;
  std::transform(key.begin(), key.end(), key.begin(), [](unsigned char c) { return std::tolower(c); });
  return op_identifier(op) + "_" + key;
}

std::string fake_function(const model::OpSpec& op) { return fmt::format("_{}_fake", op_identifier(op)); }
std::string flat_fake_function(const model::OpSpec& op) { return fmt::format("_{}_flat_fake", op_identifier(op)); }
std::string flat_op_wrapper_function(const model::OpSpec& op) {
  return fmt::format("_{}_wrapper", op_identifier(op));
}
std::string setup_context_function(const model::OpSpec& op) {
  return fmt::format("_{}_setup_context", op_identifier(op));
}
std::string backward_function(const model::OpSpec& op) { return fmt::format("_{}_backward", op_identifier(op)); }
std::string backward_bindings_function(const model::OpSpec& op) {
  return fmt::format("_{}_backward_bindings", op_identifier(op));
}
std::string python_kernel_function(const model::OpSpec& op, const std::string& dispatch_key) {
  return fmt::format("_{}_kernel", kernel_name(op, dispatch_key));
}
std::string flops_function(const model::OpSpec& op) { return fmt::format("_{}_flops", op_identifier(op)); }

std::string compile_reason_function(const model::OpSpec& op) {
  return fmt::format("{}_compile_unsupported_reason", op_identifier(op));
}
std::string compile_fallback_function(const model::OpSpec& op) {
  return fmt::format("_{}_compile_fallback", op_identifier(op));
}
std::string result_meta_function(const model::OpSpec& op) { return fmt::format("_{}_result_meta", op_identifier(op)); }
std::string compile_islands(const model::OpSpec& op) { return fmt::format("_{}_compile_islands", op_identifier(op)); }
std::string compile_replacement(const model::OpSpec& op) {
  return fmt::format("_{}_compile_replacement", op_identifier(op));
}
std::string ctx_attribute(const std::string& argument) { return "opgen_" + argument; }

const std::vector<std::string>& fixed_module_names() {
  static const std::vector<std::string> names = {
      // _ops.py: imports (warnings for an eager compile fallback) and opgen's runtime (_opgen_runtime.py),
      // which loads the library and registers what the specs add (autocast, symm_mem, CUDA-graph partitions)
      "annotations", "warnings", "torch", "_opgen", "__all__",
      // _ops.py: the host classes' fields, read through the runtime's host_fields
      "_HOST_CLASSES",
      // _ops.py: the host classes ops take whole ('carry:'), registered through the runtime
      "_CARRIED_CLASSES",
      // _ops.py: the library the Python kernels and the ops defined in Python are registered with
      "_PYTHON_LIBRARY",
      // _ops.py: each op the specs define through custom_op in turn (`define: custom_op`)
      "_custom_op",
      // _ops.pyi: typing imports
      "List", "Optional", "Sequence", "Tuple", "Union"};
  return names;
}

std::vector<std::string> host_class_modules(const model::Library& lib) {
  std::set<std::string> modules;
  auto add = [&](const std::string& cls) {
    const std::string& path = lib.host_class(cls)->python_class.value;
    modules.insert(path.substr(0, path.rfind('.')));
  };
  for (const auto& op : lib.ops) {
    for (const auto& host : op.host_args) add(host.cls);
    for (const auto& result : op.subclass_results) add(result.cls);
  }
  modules.erase("torch");  // imported anyway
  return {modules.begin(), modules.end()};
}

std::vector<BoundName> names_bound_by(const model::OpSpec& op) {
  std::vector<BoundName> names = {{op_identifier(op), "its Python binding"}, {fake_function(op), "its fake"}};
  if (op.autograd) {
    names.push_back({setup_context_function(op), "its autograd setup_context"});
    names.push_back({backward_function(op), "its autograd backward"});
    if (!op.autograd->bind.empty()) names.push_back({backward_bindings_function(op), "its autograd bindings"});
  }
  if (op.flops) names.push_back({flops_function(op), "its FLOP formula"});
  if (!op.subclass_results.empty() || !op.result_meta.empty())
    names.push_back({result_meta_function(op), "its tensor-subclass results' metadata"});
  if (op.compile) {
    names.push_back({compile_reason_function(op), "its compile_unsupported_reason"});
    if (op.compile->fallback_python) {
      names.push_back({compile_replacement(op), "its compile replacement"});
    } else {
      names.push_back({compile_fallback_function(op), "its compile fallback"});
      names.push_back({compile_islands(op), "its compile fallback islands"});
    }
  }
  if (op.wraps_flat_op()) {
    names.push_back({flat_fake_function(op), "its flat C++ op's fake"});
    names.push_back({flat_op_wrapper_function(op), "the kernel that calls its flat C++ op"});
  }
  for (const auto& key : op.dispatch) names.push_back({"kernels::" + kernel_name(op, key.value), "a kernel function"});
  for (const auto& kernel : op.python_kernels)
    names.push_back({python_kernel_function(op, kernel.dispatch_key.value), "a Python kernel's wrapper"});
  return names;
}

}  // namespace opgen::model
