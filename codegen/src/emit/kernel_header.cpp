// include/<ns>/kernels/<op>.h: the contract between the generated wrappers
// and the handwritten kernels.
#include <algorithm>

#include <fmt/format.h>

#include "emit/common.h"
#include "emit/emit.h"
#include "emit/host_objects.h"
#include "model/types.h"
#include "support/printer.h"

namespace opgen::emit {
namespace {

constexpr const char* kStableHeader = R"cc(#pragma once

// $qualified$ uses the LibTorch stable ABI of PyTorch $version$: everything
// that includes this header is compiled against that version's stable
// surface, so it must come before any torch header.
#ifndef TORCH_TARGET_VERSION
#ifdef TORCH_FEATURE_VERSION
#error "$qualified$ uses the stable ABI: include \"$header$\" before any torch header"
#endif
#define TORCH_TARGET_VERSION $target$ULL
#elif TORCH_TARGET_VERSION != $target$ULL
#error "$qualified$ targets the stable ABI of PyTorch $version$, but TORCH_TARGET_VERSION names another version"
#endif

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <torch/csrc/stable/tensor.h>
)cc";

constexpr const char* kUnstableHeader = R"cc(#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include <ATen/core/Tensor.h>
)cc";

}  // namespace

std::string kernel_header_path(const model::Library& lib, const model::OpSpec& op) {
  return fmt::format("include/{}/kernels/{}.h", lib.ns, op.op_name());
}

std::string kernel_header(const model::Library& lib, const model::OpSpec& op) {
  const bool stable = op.abi.value == model::Abi::Stable;
  Printer p;
  p.emit(generated_header("//", op.display_path));
  std::string declared;  // the first kernel this header declares
  for (const auto& key : op.dispatch)
    if (declared.empty() && !op.existing_kernel(key.value)) declared = kernel_name(op, key.value);
  const bool schema_alone = op.dispatch.empty() && op.dispatch_written;
  if (op.dispatch.empty() && !schema_alone) declared = kernel_name(op, "CPU");
  if (schema_alone) {
    p.emit(R"cc(//
// $qualified$ is registered as its schema alone ('dispatch: []'): its kernels
// are registered elsewhere, against this def.
)cc",
           {{"qualified", qualified_name(lib, op)}});
  } else if (declared.empty()) {
    p.emit(R"cc(//
// The kernels of $qualified$ are existing functions (the spec's 'kernels:'),
// called through $adapt$.
)cc",
           {{"qualified", qualified_name(lib, op)}, {"adapt", adapt_header_path(lib).substr(std::string("include/").size())}});
  } else {
    p.emit(R"cc(//
// The kernels of $qualified$ must have exactly these signatures. Define each
// with its qualified name, e.g. `$ret$ $ns$::kernels::$kernel$(...) { ... }`,
// so that a mismatch is a compile error at the kernel.
)cc",
           {{"qualified", qualified_name(lib, op)},
            {"ret", model::kernel_return_type(op.schema, stable)},
            {"ns", lib.cpp_ns()},
            {"kernel", declared}});
  }
  if (stable) {
    p.emit(kStableHeader, {{"qualified", qualified_name(lib, op)},
                           {"header", kernel_header_path(lib, op).substr(std::string("include/").size())},
                           {"version", model::format_torch_version(lib.torch_target_version)},
                           {"target", fmt::format("0x{:016x}", lib.torch_target_version)}});
  } else {
    p.emit(kUnstableHeader);
  }
  // The existing functions' declarations, and the adapter that calls them,
  // when a key that is built has one (a CPU-only build leaves out the
  // headers of CUDA kernels).
  const bool calls_existing = std::any_of(op.dispatch.begin(), op.dispatch.end(),
                                          [&](const auto& key) { return op.existing_kernel(key.value) != nullptr; });
  if (calls_existing) {
    p.line();
    p.line(fmt::format("#include \"{}\"", adapt_header_path(lib).substr(std::string("include/").size())));
    for (const auto& include : op.kernel_includes) {
      // "sort.h" from here would find this library's header of op `sort`, beside this one, before the project's
      // (megablocks' csrc/sort.h): the include path's alone, then.
      const bool shadowed = std::any_of(lib.ops.begin(), lib.ops.end(), [&](const model::OpSpec& other) {
        return include.value == other.op_name() + ".h";
      });
      p.line(shadowed ? fmt::format("#include <{}>  // not \"{}\": opgen's header of that op is beside this one",
                                    include.value, include.value)
                      : fmt::format("#include \"{}\"", include.value));
    }
  }
  if (!op.host_args.empty() && !stable) p.line("\n#include <string>");
  p.line();
  p.line(fmt::format("namespace {}::kernels {{", lib.cpp_ns()));
  p.line();
  p.emit(host_struct_definitions(lib, op, stable));
  if (op.declared_schema) {
    model::FunctionSchema declared = *op.declared_schema;
    declared.name.ns.clear();
    p.line("// " + declared.to_string(model::SchemaForm::Registration));
    p.line(fmt::format("//   registered {}with each {}: {}", op.wraps_flat_op() ? "in C++ (the op wraps it in Python) " : "",
                       op.subclass_results.empty() ? "host object's fields"
                       : op.host_args.empty()      ? "tensor-subclass result's inner tensors"
                                                   : "object's fields and each subclass result's inner tensors",
                       cpp_def_schema(op)));
  } else {
    p.line("// " + def_schema(op));
  }
  if (!op.doc.empty()) {
    std::string doc = op.doc;
    while (!doc.empty() && doc.back() == '\n') doc.pop_back();
    size_t start = 0;
    while (start <= doc.size()) {
      size_t end = doc.find('\n', start);
      std::string line = doc.substr(start, end == std::string::npos ? std::string::npos : end - start);
      p.line(line.empty() ? "//" : "// " + line);
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }
  const std::vector<std::string> params = kernel_params(lib, op, stable);
  for (const auto& key : op.dispatch) {
    if (const model::ExistingKernel* existing = op.existing_kernel(key.value)) {
      p.line(fmt::format("// {}: the existing function {} (the spec's 'kernels:')", key.value, existing->function.value));
      continue;
    }
    p.line(fmt::format("{} {}({});", model::kernel_return_type(op.schema, stable), kernel_name(op, key.value),
                       fmt::join(params, ", ")));
  }
  p.line();
  p.line(fmt::format("}}  // namespace {}::kernels", lib.cpp_ns()));
  return p.str();
}

}  // namespace opgen::emit
