// The library's types file, schemas/_types.yaml: the host classes and
// tensor subclasses ops take (docs/host-objects.md). Strict as the spec loader is: unknown and
// duplicate keys, wrong value types and unparsable field types are errors
// with their place; whether a declaration makes sense is the checker's
// (check/host_objects.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/spec.h"
#include "support/diagnostics.h"

namespace opgen::load {

// The file name that holds a library's types: `_types.yaml`, beside the
// specs (model::kTypesFileStem: no op can be named `_types`).
inline constexpr std::string_view kTypesFileName = "_types.yaml";
static_assert(kTypesFileName.substr(0, kTypesFileName.size() - 5) == model::kTypesFileStem);
bool is_types_file(std::string_view path);

// The classes `text` declares, host classes then tensor subclasses, each in
// file order; what loaded cleanly only.
std::vector<model::HostClass> load_host_types(const std::string& text, const std::string& display_path,
                                              Diagnostics& diags);

// Top-level keys, and a host class's keys (codegen/types.schema.json lists the same).
const std::vector<std::string>& types_file_keys();
const std::vector<std::string>& host_class_keys();
const std::vector<std::string>& tensor_subclass_keys();

}  // namespace opgen::load
