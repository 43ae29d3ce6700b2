#include "model/spec.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "model/dispatch_keys.h"

namespace opgen::model {

std::string flat_field_name(const std::string& object, const std::string& field) {
  const size_t start = std::min(field.find_first_not_of('_'), field.size());
  return object + "_" + field.substr(start);
}

FunctionSchema OpSpec::registered_schema() const {
  FunctionSchema out = schema;
  for (auto host = host_args.rbegin(); host != host_args.rend(); ++host) {  // from the back: indexes stay valid
    if (!host->carry) continue;
    const size_t end = host->first_flat + host->flat_count;
    Argument object = out.arguments[host->first_flat];
    object.name = host->name;
    auto named = std::make_shared<Type>();
    named->name = host->carried_type;
    if (host->optional) {
      auto optional = std::make_shared<Type>();
      optional->kind = Type::Kind::Optional;
      optional->elements.push_back(named);
      object.type = optional;
    } else {
      object.type = named;
    }
    // An optional object keeps the default None its flag's False stood for.
    if (object.default_value) object.default_value = DefaultValue{DefaultValue::Kind::None, "None", "", {}};
    out.arguments.erase(out.arguments.begin() + static_cast<std::ptrdiff_t>(host->first_flat),
                        out.arguments.begin() + static_cast<std::ptrdiff_t>(end));
    out.arguments.insert(out.arguments.begin() + static_cast<std::ptrdiff_t>(host->first_flat), std::move(object));
  }
  return out;
}

bool OpSpec::wraps_flat_op() const {
  return !defined_in_python() && std::any_of(host_args.begin(), host_args.end(), [](const HostArgument& h) { return h.carry; });
}

FunctionSchema OpSpec::cpp_schema() const {
  FunctionSchema out = schema;
  if (wraps_flat_op()) out.name.name += "_flat";
  return out;
}

std::string OpSpec::cpp_op_name() const {
  const OperatorName name = cpp_schema().name;
  return name.overload.empty() ? name.name : name.name + "." + name.overload;
}

std::string OpSpec::op_name() const {
  return schema.name.overload.empty() ? schema.name.name : schema.name.name + "." + schema.name.overload;
}

const ExistingKernel* OpSpec::existing_kernel(const std::string& dispatch_key) const {
  for (const ExistingKernel& kernel : existing_kernels)
    if (kernel.dispatch_key.value == dispatch_key) return &kernel;
  return nullptr;
}

const OpSpec* Library::find(const std::string& op_name) const {
  for (const OpSpec& op : ops)
    if (op.op_name() == op_name) return &op;
  return nullptr;
}

bool OpSpec::defined_in_python() const {
  if (schema_defined_by_package) return true;
  if (python_kernels.empty()) return false;
  for (const auto& key : dispatch) {
    bool python = false;
    for (const auto& kernel : python_kernels) python |= kernel.dispatch_key.value == key.value;
    if (!python) return false;
  }
  return true;
}

bool OpSpec::decomposes() const {
  auto decomposing = [](const std::string& key) {
    const DispatchKey* known = find_dispatch_key(key);
    return known && known->kind == DispatchKeyKind::Decomposing;
  };
  return fake_decomposes.has_value() ||
         std::any_of(dispatch.begin(), dispatch.end(), [&](const auto& key) { return decomposing(key.value); }) ||
         std::any_of(python_kernels.begin(), python_kernels.end(),
                     [&](const auto& kernel) { return decomposing(kernel.dispatch_key.value); });
}

bool OpSpec::has_meta_kernel() const {
  return fake_meta.has_value() ||
         std::any_of(dispatch.begin(), dispatch.end(), [](const auto& key) { return key.value == "Meta"; }) ||
         std::any_of(python_kernels.begin(), python_kernels.end(),
                     [](const auto& kernel) { return kernel.dispatch_key.value == "Meta"; });
}

std::optional<std::string> include_problem(const std::string& path) {
  if (path.empty()) return "it is empty";
  for (char c : path) {
    if (c == '"' || c == '\\') return fmt::format("it holds '{}'", c);
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return "it holds a control character";
  }
  return std::nullopt;
}

const HostClass* Library::host_class(const std::string& name) const {
  for (const HostClass& cls : host_classes)
    if (cls.name.value == name) return &cls;
  return nullptr;
}

std::string default_python_package(const std::string& ns) { return ns == "opgen" ? "opgen_ops" : ns; }

namespace {

// Generated from clang's AST of the headers the generated code includes: scripts/name_tables.py.
constexpr std::array kGlobalNames = std::to_array<std::string_view>({
#include "model/global_names.inc"
});

}  // namespace

std::string cpp_namespace(std::string_view ns) {
  const bool declared_globally = std::binary_search(kGlobalNames.begin(), kGlobalNames.end(), ns);
  if (!ns.starts_with('_') && ns.find("__") == std::string_view::npos && !declared_globally)
    return std::string(ns);
  std::string name;
  for (char c : ns)
    if (c != '_' || (!name.empty() && name.back() != '_')) name.push_back(c);
  if (!name.empty() && name.back() == '_') name.pop_back();
  return (name.empty() ? std::string("opgen") : name) + "_ns";
}

std::string Library::cpp_ns() const {
  const std::string name = cpp_namespace(ns);
  // A kernel the specs bind that is a function at global scope spelled as the namespace (kernels-community's relu
  // binds `void relu(at::Tensor&, const at::Tensor&)` in namespace relu): C++ holds one of the two there.
  for (const OpSpec& op : ops)
    for (const ExistingKernel& kernel : op.existing_kernels) {
      std::string_view function = kernel.function.value;
      if (function.starts_with("::")) function.remove_prefix(2);
      if (function.substr(0, function.find('<')) == name) return name + "_ns";
    }
  return name;
}

std::string format_torch_version(uint64_t version) {
  return fmt::format("{}.{}", version >> 56, (version >> 48) & 0xff);
}

}  // namespace opgen::model
