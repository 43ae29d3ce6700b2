// The spec's `samples:` against the op's schema: each value of the kind its
// argument's type takes (tensors, nested tensor lists, numbers in range),
// dtypes, devices and shapes, the sample's dims, and an argument without a
// default given a value; and which ops have no samples at all.
#pragma once

#include "model/spec.h"
#include "support/diagnostics.h"

namespace opgen::check {

void check_samples(const model::OpSpec& op, Diagnostics& diags);

// One warning for every op without samples (`samples: []` says none on purpose).
void warn_about_missing_samples(const model::Library& library, Diagnostics& diags);

}  // namespace opgen::check
