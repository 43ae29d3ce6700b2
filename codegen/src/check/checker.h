// All validation, before anything is written: each op on its own (names,
// types against the chosen ABI, mutation, aliasing, symm_mem, tags, checks,
// fake rules) and the library as a whole (duplicate ops, autograd pairs).
// Fills in what the schema leaves implicit (missing `(a!)` annotations).
#pragma once

#include "check/names.h"  // check_library_names
#include "model/spec.h"
#include "support/diagnostics.h"

namespace opgen::check {

// torch.Tag names a spec may name (dispatch keys: model/dispatch_keys.h).
const std::vector<std::string>& known_tags();

void check_library(model::Library& library, Diagnostics& diags);

}  // namespace opgen::check
