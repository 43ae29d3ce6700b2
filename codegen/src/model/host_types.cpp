#include "model/host_types.h"

#include <array>

#include "model/types.h"

namespace opgen::model {
namespace {

// clang-format off
constexpr std::array kFieldTypes = {
  // schema        stable member                                   unstable member                 unstable wrapper parameter -> member
  HostFieldType{"int",         "int64_t",                                      "int64_t",                      "{}"},
  HostFieldType{"float",       "double",                                       "double",                       "{}"},
  HostFieldType{"bool",        "bool",                                         "bool",                         "{}"},
  HostFieldType{"str",         "std::string",                                  "std::string",                  "std::string({})"},
  HostFieldType{"ScalarType",  "torch::headeronly::ScalarType",                "at::ScalarType",               "{}"},
  HostFieldType{"Tensor",      "torch::stable::Tensor",                        "at::Tensor",                   "{}"},
  HostFieldType{"int?",        "std::optional<int64_t>",                       "std::optional<int64_t>",       "{}"},
  HostFieldType{"float?",      "std::optional<double>",                        "std::optional<double>",        "{}"},
  HostFieldType{"bool?",       "std::optional<bool>",                          "std::optional<bool>",          "{}"},
  HostFieldType{"str?",        "std::optional<std::string>",                   "std::optional<std::string>",   "{0} ? std::optional<std::string>(*{0}) : std::nullopt"},
  HostFieldType{"ScalarType?", "std::optional<torch::headeronly::ScalarType>", "std::optional<at::ScalarType>", "{}"},
  HostFieldType{"Tensor?",     "std::optional<torch::stable::Tensor>",         "std::optional<at::Tensor>",    "{}"},
};

// torch.distributed.ProcessGroup: its name resolves the group in C++
// (c10d::resolve_process_group on the unstable ABI); size and rank are what
// kernels and fakes most often need.
constexpr std::array kProcessGroupFields = {
  BuiltinHostField{"group_name", "str", ".group_name"},
  BuiltinHostField{"size", "int", ".size()"},
  BuiltinHostField{"rank", "int", ".rank()"},
};

constexpr std::array kBuiltins = {
  BuiltinHostClass{"process_group", "torch.distributed.ProcessGroup",
                   "A torch.distributed process group: its name, size and this process's rank.",
                   kProcessGroupFields},
};
// clang-format on

}  // namespace

std::span<const HostFieldType> host_field_types() { return kFieldTypes; }

const HostFieldType* find_host_field_type(const Type& type) {
  const std::string key = type_key(type);
  if (type.alias) return nullptr;  // a field is read, never written
  for (const auto& row : kFieldTypes)
    if (row.schema == key) return &row;
  return nullptr;
}

std::span<const BuiltinHostClass> builtin_host_classes() { return kBuiltins; }

const BuiltinHostClass* find_builtin_host_class(std::string_view builtin) {
  for (const auto& row : kBuiltins)
    if (row.builtin == builtin) return &row;
  return nullptr;
}

}  // namespace opgen::model
