// `kernels:`: the checks of an op's existing-function kernels.
#pragma once

#include "model/spec.h"
#include "support/diagnostics.h"

namespace opgen::check {

// Each entry names a key of `dispatch` and a C++ function name (or a Python
// one, `module:function`); the headers are #include-able; there are headers
// exactly when there are C++ functions.
void check_existing_kernels(const model::OpSpec& op, Diagnostics& diags);

}  // namespace opgen::check
