// `opgen new`: a spec and kernel sources for a new op, with the exact
// signatures the generated header declares, so the op builds at once. Each
// kernel body throws "not implemented" until it is written.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "emit/common.h"
#include "emit/emit.h"
#include "emit/host_objects.h"
#include "model/dispatch_keys.h"
#include "model/types.h"
#include "support/printer.h"
#include "support/yaml_writer.h"

namespace opgen::emit {
namespace {

std::string kernel_source(const model::Library& lib, const model::OpSpec& op, const std::string& key,
                          const std::string& file) {
  const bool stable = op.abi.value == model::Abi::Stable;
  std::vector<std::string> params;
  for (const auto& param : kernel_params(lib, op, stable)) params.push_back("[[maybe_unused]] " + param);
  Printer p;
  p.emit(R"cc(// The $key$ kernel of $qualified$ (scaffolded by `opgen new`: replace the body).
#include "$header$"

#include <stdexcept>

$ret$ $cpp_ns$::kernels::$kernel$($params$) {
  throw std::runtime_error("$qualified$: the $key$ kernel is not implemented yet ($file$)");
}
)cc",
         {{"key", key},
          {"qualified", qualified_name(lib, op)},
          {"header", kernel_header_path(lib, op).substr(std::string("include/").size())},
          {"ret", model::kernel_return_type(op.schema, stable)},
          {"cpp_ns", lib.cpp_ns()},
          {"kernel", kernel_name(op, key)},
          {"params", fmt::format("{}", fmt::join(params, ",\n    "))},
          {"file", file}});
  return p.str();
}

// The default fake rule for each output, to be refined by the author: a
// tensor shaped like the first tensor argument (or list), `dynamic()` for an
// int only the kernel knows. Nothing where some output has no honest default
// (a bool, a str, an int[]; a tensor with no tensor argument to place it):
// the scaffold names a Python fake then.
std::optional<std::vector<std::string>> default_fake_rules(const model::FunctionSchema& s) {
  auto first = [&](const char* key) -> std::string {
    for (const auto& a : s.arguments)
      if (model::type_key(*a.type) == key) return a.name;
    return "";
  };
  std::vector<std::string> rules;
  for (const auto& r : s.returns) {
    if (r.type->alias) continue;
    const auto key = model::type_key(*r.type);
    if (key == "Tensor" && !first("Tensor").empty())
      rules.push_back("like(" + first("Tensor") + ")");
    else if (key == "Tensor" && !first("Tensor[]").empty())
      rules.push_back("like(" + first("Tensor[]") + "[0])");
    else if (key == "Tensor[]" && !first("Tensor[]").empty())
      rules.push_back("like_each(" + first("Tensor[]") + ")");
    else if (key == "int" || key == "SymInt")
      rules.push_back("dynamic()");
    else
      return std::nullopt;
  }
  return rules;
}

}  // namespace

model::OpSpec draft_new_op(const model::Library& lib, const model::FunctionSchema& schema,
                           const std::string& schema_text, const std::string& abi, std::vector<std::string> dispatch) {
  bool stable = abi != "unstable";
  if (abi.empty()) {
    for (const auto& a : schema.arguments) {
      const auto* m = model::find_type_mapping(*a.type);
      if (m && (m->stable_since == 0 || m->stable_since > lib.torch_target_version)) stable = false;
    }
  }
  model::OpSpec draft;
  draft.schema = schema;
  // As written: a nameless schema takes the op's name in front, spacing kept.
  draft.schema_text.value = schema_text;
  if (const size_t start = schema_text.find_first_not_of(" \t"); start != std::string::npos && schema_text[start] == '(')
    draft.schema_text.value = draft.op_name() + schema_text.substr(start);
  draft.abi.value = stable ? model::Abi::Stable : model::Abi::Unstable;
  // PyTorch reaches a CPU or CUDA kernel only through a tensor argument (E0813).
  if (dispatch.empty())
    dispatch = model::takes_dispatch_tensor(schema) ? std::vector<std::string>{"CPU", "CUDA"}
                                                    : std::vector<std::string>{"CompositeExplicitAutograd"};
  for (const auto& key : dispatch) draft.dispatch.push_back({key, {}});
  if (draft.decomposes() || draft.has_meta_kernel()) {
    // No fake: fake tensors run its CompositeImplicitAutograd kernel (E0827), or its Meta kernel (E0828).
  } else if (auto rules = default_fake_rules(schema)) {
    for (const auto& rule : *rules) draft.fake.push_back({rule, {}, nullptr});
  } else {
    draft.fake_python = {fmt::format("{}._fakes:{}", lib.python_package, schema.name.name), {}};
  }
  return draft;
}

std::string scaffold_spec(const model::Library& lib, const model::OpSpec& op, const std::string& json_schema_ref) {
  Printer p;
  if (!json_schema_ref.empty()) p.line("# yaml-language-server: $schema=" + yaml_comment(json_schema_ref));
  // The schema as the user wrote it (their spacing), else as opgen registers it.
  p.line("schema: " + yaml_double_quoted(op.schema_text.value.empty() ? def_schema(op) : op.schema_text.value));
  p.line(fmt::format("doc: TODO describe {}.", qualified_name(lib, op)));
  p.line(op.abi.value == model::Abi::Stable ? "abi: stable" : "abi: unstable");
  std::vector<std::string> keys;
  for (const auto& key : op.dispatch) keys.push_back(yaml_scalar(key.value));
  p.line(fmt::format("dispatch: [{}]", fmt::join(keys, ", ")));
  if (op.fake_python) {
    p.line(fmt::format("fake: {{python: {}}}", yaml_double_quoted(op.fake_python->value)));
  } else if (!op.fake.empty()) {
    p.line("fake:");
    for (const auto& rule : op.fake) p.line("  - " + rule.text);
  }
  return p.str();
}

std::vector<std::pair<std::string, std::string>> scaffold_kernels(const model::Library& lib, const model::OpSpec& op,
                                                                  const std::string& kernels_dir) {
  // A kernel that computes on CUDA tensors is CUDA code (.cu); the rest, C++.
  auto extension = [](const std::string& key) { return model::is_cuda_code(key) ? ".cu" : ".cpp"; };
  std::map<std::string, int> per_extension;
  for (const auto& key : op.dispatch) ++per_extension[extension(key.value)];
  // <op>.cpp and <op>.cu; <op>_<key>.cpp for each where two keys would share one.
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& key : op.dispatch) {
    const char* ext = extension(key.value);
    std::string path = per_extension[ext] == 1 ? fmt::format("{}/{}{}", kernels_dir, op.op_name(), ext)
                                               : fmt::format("{}/{}_{}{}", kernels_dir, op.op_name(), key.value, ext);
    files.emplace_back(path, kernel_source(lib, op, key.value, path));
  }
  return files;
}

}  // namespace opgen::emit
