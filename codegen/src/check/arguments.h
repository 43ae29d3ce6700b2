// Lookups over a schema's arguments that several checks share.
#pragma once

#include <string>
#include <vector>

#include "model/schema.h"
#include "model/types.h"

namespace opgen::check {

inline const model::Argument* find_arg(const model::FunctionSchema& s, const std::string& name) {
  for (const model::Argument& a : s.arguments)
    if (a.name == name) return &a;
  return nullptr;
}

inline std::vector<std::string> arg_names(const model::FunctionSchema& s) {
  std::vector<std::string> names;
  for (const model::Argument& a : s.arguments) names.push_back(a.name);
  return names;
}

inline bool is_tensor_or_optional(const model::Type& t) {
  const std::string key = model::type_key(t);
  return key == "Tensor" || key == "Tensor?";
}

}  // namespace opgen::check
