// Loads one spec file: YAML with source marks -> model::OpSpec. Strict:
// unknown keys (with a did-you-mean), duplicate keys, wrong value types and
// unparsable schema strings or rules are all reported; loading goes on past
// an error so one run reports everything.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/spec.h"
#include "support/diagnostics.h"

namespace opgen::load {

// `text` is the file's contents; `display_path` names the file in
// diagnostics and in the generated headers; `host_classes` are the types
// file's classes, which the schema may name. Returns nothing when the file
// could not be used at all.
std::optional<model::OpSpec> load_spec_text(const std::string& text, const std::string& display_path,
                                            Diagnostics& diags, const std::vector<std::string>& host_classes = {});

// The keys the loader accepts, in documentation order: at the top level, in
// one argument's `checks`, and in `autograd` (codegen/spec.schema.json must
// list the same; a unit test holds them together).
const std::vector<std::string>& spec_keys();
const std::vector<std::string>& check_keys();
const std::vector<std::string>& autograd_keys();

}  // namespace opgen::load
