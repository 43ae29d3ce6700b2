// Lookups over a schema's arguments that several checks share.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "model/schema.h"
#include "model/spec.h"
#include "model/types.h"
#include "support/diagnostics.h"

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

// A name the spec gives (`context`: "a sample", "'mutates'") that is not one
// of the op's arguments, with a did-you-mean.
inline void report_unknown_argument(Diagnostics& diags, const model::OpSpec& op,
                                    const model::Located<std::string>& name, const std::string& context) {
  auto& d = diags.error(Code::UnknownArgument, name.loc,
                        fmt::format("{} names '{}', which is not an argument of {}", context, name.value, op.op_name()));
  if (auto guess = closest_match(name.value, arg_names(op.schema)); !guess.empty())
    d.notes.push_back({fmt::format("did you mean '{}'?", guess)});
}

// A spec key that lists arguments (`mutates`, `symm_mem`, `carry`) names each
// once: a second mention is a mistake the generated code would hide (E0316).
template <typename LocatedName>
void check_listed_once(const std::vector<LocatedName>& names, std::string_view key, Diagnostics& diags) {
  std::set<std::string> seen;
  for (const auto& name : names)
    if (!seen.insert(name.value).second)
      diags.error(Code::ArgumentListedTwice, name.loc, fmt::format("'{}' names '{}' twice", key, name.value))
          .notes.push_back({"list each argument once"});
}

}  // namespace opgen::check
