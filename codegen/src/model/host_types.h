// Host objects as data: which field types a host class may declare and how
// each becomes a member of the kernel's C++ struct on either ABI, and the
// classes opgen knows without a declaration (`builtin:`).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "model/schema.h"

namespace opgen::model {

struct HostFieldType {
  std::string_view schema;           // "int", "Tensor?", ...
  std::string_view stable_member;    // the struct member's type on the stable ABI
  std::string_view unstable_member;  // ... and with torch/library.h
  // How the unstable wrapper's parameter of this schema type (a view for
  // str) becomes the member: a fmt pattern over the parameter's name. The
  // stable wrapper's values are the members' types already.
  std::string_view unstable_from;
};

// Every field type, in documentation order.
std::span<const HostFieldType> host_field_types();
// nullptr when a field cannot have this type.
const HostFieldType* find_host_field_type(const Type& type);

struct BuiltinHostField {
  std::string_view name;
  std::string_view type;  // schema type text
  std::string_view read;  // Python suffix on the object
};

struct BuiltinHostClass {
  std::string_view builtin;       // what `builtin:` names: process_group
  std::string_view python_class;  // torch.distributed.ProcessGroup
  std::string_view doc;
  std::span<const BuiltinHostField> fields;
};

std::span<const BuiltinHostClass> builtin_host_classes();
const BuiltinHostClass* find_builtin_host_class(std::string_view builtin);

}  // namespace opgen::model
