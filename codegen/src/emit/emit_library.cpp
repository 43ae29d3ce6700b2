#include <fmt/format.h>

#include "emit/emit.h"

namespace opgen::emit {

std::string op_source_path(const model::OpSpec& op) { return fmt::format("csrc/{}.cpp", op.op_name()); }

OutputTree emit_library(const model::Library& lib) {
  OutputTree tree;
  for (const auto& op : lib.ops) {
    tree.add(kernel_header_path(lib, op), kernel_header(lib, op));
    tree.add(op_source_path(op),
             op.abi.value == model::Abi::Stable ? stable_op_source(lib, op) : unstable_op_source(lib, op));
  }
  tree.add(library_source_path(lib), library_source(lib));
  tree.add(adapt_header_path(lib), adapt_header(lib));
  for (auto& [path, text] : shard_sources(lib)) tree.add(path, std::move(text));
  tree.add(fmt::format("python/{}/_ops.py", lib.python_package), python_module(lib));
  tree.add(fmt::format("python/{}/_ops.pyi", lib.python_package), python_stub(lib));
  tree.add(fmt::format("python/{}/py.typed", lib.python_package), typed_marker(lib));
  tree.add(python_tests_path(lib), python_tests(lib));
  return tree;
}

}  // namespace opgen::emit
