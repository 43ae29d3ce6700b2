#include <algorithm>

#include <fmt/format.h>

#include "emit/common.h"
#include "emit/emit.h"

namespace opgen::emit {

std::string op_source_path(const model::OpSpec& op) { return fmt::format("csrc/{}.cpp", op.op_name()); }

namespace {

// An op whose kernels are all Python, or the schema alone in a library with
// no C++ kernel, has no C++; its files (which a build expects, one pair per
// spec) say where it is.
std::string defined_in_python_note(const model::Library& lib, const model::OpSpec& op) {
  return generated_header("//", op.display_path) +
         fmt::format("//\n// {} is defined by the Python package ({}._ops), {}: nothing of it is C++.\n",
                     qualified_name(lib, op), lib.python_package,
                     op.schema_defined_by_package
                         ? "the schema alone ('dispatch: []', in a library\n// with no C++ kernel); its kernels are "
                           "registered elsewhere"
                         : "whose kernels are Python\n// functions (the spec's 'kernels:')");
}

}  // namespace

OutputTree emit_library(const model::Library& lib) {
  OutputTree tree;
  for (const auto& op : lib.ops) {
    if (op.defined_in_python()) {
      tree.add(kernel_header_path(lib, op), defined_in_python_note(lib, op));
      tree.add(op_source_path(op), defined_in_python_note(lib, op));
      continue;
    }
    tree.add(kernel_header_path(lib, op), kernel_header(lib, op));
    tree.add(op_source_path(op),
             op.abi.value == model::Abi::Stable ? stable_op_source(lib, op) : unstable_op_source(lib, op));
  }
  tree.add(library_source_path(lib), library_source(lib));
  tree.add(adapt_header_path(lib), adapt_header(lib));
  for (auto& [path, text] : shard_sources(lib)) tree.add(path, std::move(text));
  tree.add(fmt::format("python/{}/_ops.py", lib.python_package), python_module(lib));
  tree.add(fmt::format("python/{}/_opgen_runtime.py", lib.python_package), runtime_module());
  tree.add(fmt::format("python/{}/_ops.pyi", lib.python_package), python_stub(lib));
  tree.add(fmt::format("python/{}/py.typed", lib.python_package), typed_marker(lib));
  // Every kernel Python: the package is the whole library, importable as
  // written, with the __init__.py opgen_add_library would otherwise add.
  if (!lib.ops.empty() && std::all_of(lib.ops.begin(), lib.ops.end(), [](const auto& op) { return op.defined_in_python(); }))
    tree.add(fmt::format("python/{}/__init__.py", lib.python_package),
             generated_header("#", lib) + "\nfrom ._ops import *  # noqa: F401,F403\n");
  tree.add(python_tests_path(lib), python_tests(lib));
  return tree;
}

}  // namespace opgen::emit
