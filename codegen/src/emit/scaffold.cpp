// `opgen new`: a spec and kernel sources for a new op, with the exact
// signatures the generated header declares, so the op builds at once. Each
// kernel body throws "not implemented" until it is written.
#include <fmt/format.h>

#include "emit/common.h"
#include "emit/emit.h"
#include "model/types.h"
#include "support/printer.h"

namespace opgen::emit {
namespace {

std::string kernel_source(const model::Library& lib, const model::OpSpec& op, const std::string& key,
                          const std::string& file) {
  const bool stable = op.abi.value == model::Abi::Stable;
  std::vector<std::string> params;
  for (const auto& a : op.schema.arguments)
    params.push_back(fmt::format("[[maybe_unused]] {} {}", model::kernel_param_type(a, stable), a.name));
  Printer p;
  p.emit(R"cc(// The $key$ kernel of $qualified$ (scaffolded by `opgen new`: replace the body).
#include "$header$"

#include <stdexcept>

$ret$ $ns$::kernels::$kernel$($params$) {
  throw std::runtime_error("$qualified$: the $key$ kernel is not implemented yet ($file$)");
}
)cc",
         {{"key", key},
          {"qualified", qualified_name(lib, op)},
          {"header", kernel_header_path(lib, op).substr(std::string("include/").size())},
          {"ret", model::kernel_return_type(op.schema, stable)},
          {"ns", lib.ns},
          {"kernel", kernel_name(op, key)},
          {"params", fmt::format("{}", fmt::join(params, ",\n    "))},
          {"file", file}});
  return p.str();
}

}  // namespace

std::string scaffold_spec(const model::Library& lib, const model::OpSpec& op, const std::string& json_schema_ref) {
  Printer p;
  if (!json_schema_ref.empty()) p.line("# yaml-language-server: $schema=" + json_schema_ref);
  // The schema as the user wrote it (their spacing), else as opgen registers it.
  p.line("schema: " + cpp_string_literal(op.schema_text.value.empty() ? def_schema(op) : op.schema_text.value));
  p.line(fmt::format("doc: TODO describe {}.", qualified_name(lib, op)));
  p.line(op.abi.value == model::Abi::Stable ? "abi: stable" : "abi: unstable");
  std::vector<std::string> keys;
  for (const auto& key : op.dispatch) keys.push_back(key.value);
  p.line(fmt::format("dispatch: [{}]", fmt::join(keys, ", ")));
  if (op.fake_python) {
    p.line(fmt::format("fake: {{python: \"{}\"}}", op.fake_python->value));
  } else if (!op.fake.empty()) {
    p.line("fake:");
    for (const auto& rule : op.fake) p.line("  - " + rule.text);
  }
  return p.str();
}

std::vector<std::pair<std::string, std::string>> scaffold_kernels(const model::Library& lib, const model::OpSpec& op,
                                                                  const std::string& kernels_dir) {
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& key : op.dispatch) {
    const char* ext = key.value == "CUDA" ? ".cu" : ".cpp";
    std::string path = fmt::format("{}/{}{}", kernels_dir, op.op_name(), ext);
    files.emplace_back(path, kernel_source(lib, op, key.value, path));
  }
  return files;
}

}  // namespace opgen::emit
