// All validation, before anything is written: each op on its own (names,
// types against the chosen ABI, mutation, aliasing, symm_mem, tags, checks,
// fake rules) and the library as a whole (duplicate ops, autograd pairs).
// Fills in what the schema leaves implicit (missing `(a!)` annotations).
#pragma once

#include "check/names.h"  // check_library_names
#include "model/spec.h"
#include "support/diagnostics.h"

namespace opgen::check {

// Tags the checker accepts (torch.Tag members) and the first stable-ABI
// version that can carry tags on `def`.
inline constexpr uint64_t kStableTagsSince = 0x020c000000000000ULL;  // 2.12
// Tags no stable-ABI release can carry on `def`: its tag conversion
// (torch/csrc/stable/stableivalue_conversions.h, 2.12-2.15) has no case for
// them and aborts the process that loads the library (E0823).
inline const std::vector<std::string> kTagsNotInStableAbi = {"inplace", "out"};

// Dispatch keys and torch.Tag names a spec may name.
const std::vector<std::string>& dispatch_keys();
const std::vector<std::string>& known_tags();

void check_library(model::Library& library, Diagnostics& diags);

}  // namespace opgen::check
