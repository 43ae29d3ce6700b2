#include "emit/host_objects.h"

#include <algorithm>

#include <fmt/format.h>

#include "emit/common.h"
#include "model/host_types.h"
#include "model/types.h"

namespace opgen::emit {
namespace {

const model::HostArgument* host_argument(const model::OpSpec& op, size_t declared_index) {
  for (const auto& host : op.host_args)
    if (host.declared_index == declared_index) return &host;
  return nullptr;
}

// `prefix`: "" inside the kernels' namespace, "<ns>::kernels::" elsewhere.
std::string host_param_type(const model::HostArgument& host, const std::string& prefix) {
  return host.optional ? fmt::format("const std::optional<{}{}>&", prefix, host.cls)
                       : fmt::format("const {}{}&", prefix, host.cls);
}

// The struct member of `field`, from the wrapper's flat variable.
std::string member_value(const model::HostArgument& host, const model::HostField& field, bool stable) {
  const std::string name = host.field_name(field);
  // An optional host object's required field comes as `T?`.
  const bool unwrap = host.optional && field.type->kind != model::Type::Kind::Optional;
  if (stable) return unwrap ? fmt::format("*std::move({})", name) : fmt::format("std::move({})", name);
  const model::HostFieldType* row = model::find_host_field_type(*field.type);
  return fmt::format(fmt::runtime(row->unstable_from), unwrap ? "*" + name : name);
}

}  // namespace

const model::FunctionSchema& declared_schema(const model::OpSpec& op) {
  return op.declared_schema ? *op.declared_schema : op.schema;
}

std::vector<std::string> kernel_params(const model::Library&, const model::OpSpec& op, bool stable) {
  std::vector<std::string> params;
  const auto& args = declared_schema(op).arguments;
  for (size_t i = 0; i < args.size(); ++i) {
    const model::HostArgument* host = host_argument(op, i);
    params.push_back((host ? host_param_type(*host, "") : model::kernel_param_type(args[i], stable)) + " " +
                     args[i].name);
  }
  return params;
}

std::vector<std::string> kernel_param_types(const model::Library& lib, const model::OpSpec& op, bool stable) {
  std::vector<std::string> types;
  const auto& args = declared_schema(op).arguments;
  for (size_t i = 0; i < args.size(); ++i) {
    const model::HostArgument* host = host_argument(op, i);
    types.push_back(host ? host_param_type(*host, lib.cpp_ns() + "::kernels::") : model::kernel_param_type(args[i], stable));
  }
  return types;
}

std::vector<std::string> kernel_call_args(const model::Library& lib, const model::OpSpec& op, bool stable) {
  std::vector<std::string> out;
  const auto& args = declared_schema(op).arguments;
  for (size_t i = 0; i < args.size(); ++i) {
    const model::HostArgument* host = host_argument(op, i);
    if (!host) {
      out.push_back(args[i].name);
      continue;
    }
    std::vector<std::string> members;
    for (const auto& field : lib.host_class(host->cls)->fields) members.push_back(member_value(*host, field, stable));
    const std::string type = fmt::format("{}::kernels::{}", lib.cpp_ns(), host->cls);
    const std::string value = fmt::format("{}{{{}}}", type, fmt::join(members, ", "));
    out.push_back(host->optional
                      ? fmt::format("{} ? std::optional<{}>({}) : std::nullopt", host->given_name(), type, value)
                      : value);
  }
  return out;
}

std::vector<std::string> host_argument_checks(const model::Library& lib, const model::OpSpec& op, const char* macro) {
  std::vector<std::string> lines;
  for (const auto& host : op.host_args) {
    if (!host.optional) continue;
    std::vector<std::string> present, names;
    for (const auto& field : lib.host_class(host.cls)->fields) {
      if (field.type->kind == model::Type::Kind::Optional) continue;
      present.push_back(host.field_name(field) + ".has_value()");
      names.push_back(host.field_name(field));
    }
    if (present.empty()) continue;
    lines.push_back(fmt::format("{}(!{} || ({}), \"{}: {} is true, so {} must be given\");", macro, host.given_name(),
                                fmt::join(present, " && "), qualified_name(lib, op), host.given_name(),
                                fmt::join(names, ", ")));
  }
  return lines;
}

std::string host_struct_definitions(const model::Library& lib, const model::OpSpec& op, bool stable) {
  std::vector<std::string> classes;
  for (const auto& host : op.host_args)
    if (std::find(classes.begin(), classes.end(), host.cls) == classes.end()) classes.push_back(host.cls);
  std::string out;
  const char* abi = stable ? "stable" : "unstable";
  for (const auto& name : classes) {
    const model::HostClass& cls = *lib.host_class(name);
    const std::string guard = fmt::format("OPGEN_{}_HOST_CLASS_{}_{}", lib.cpp_ns(), name, stable ? "STABLE" : "UNSTABLE");
    out += fmt::format("#ifndef {0}\n#define {0}\ninline namespace {1}_abi {{\n\n", guard, abi);
    out += fmt::format("// {}: what kernels read of a {} ({}).\n", name, cls.python_class.value,
                       lib.types_path.empty() ? "built in" : lib.types_path);
    for (size_t start = 0; !cls.doc.empty() && start <= cls.doc.size();) {
      const size_t end = std::min(cls.doc.find('\n', start), cls.doc.size());
      const std::string line = cls.doc.substr(start, end - start);
      out += line.empty() ? "//\n" : "// " + line + "\n";
      start = end + 1;
    }
    // Hidden, as torch::stable::Tensor is: the stable ABI's types are each
    // library's own (GCC warns of a visible struct holding one).
    out += fmt::format("struct {}{} {{\n", stable ? "[[gnu::visibility(\"hidden\")]] " : "", name);
    for (const auto& field : cls.fields) {
      const model::HostFieldType* row = model::find_host_field_type(*field.type);
      out += fmt::format("  {} {};\n", stable ? row->stable_member : row->unstable_member, field.name.value);
    }
    out += fmt::format("}};\n\n}}  // inline namespace {}_abi\n#endif  // {}\n\n", abi, guard);
  }
  return out;
}

}  // namespace opgen::emit
