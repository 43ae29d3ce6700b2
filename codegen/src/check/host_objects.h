// Host objects (docs/host-objects.md): the types file's classes are checked,
// and each op that takes one is lowered to the flat op the library
// registers. Its schema takes the declared fields instead of the object
// (model::HostArgument), its rules read them as arguments (`q.scale` becomes
// `q_scale`, `q is None` becomes `not q_given`) and its samples give them,
// so every later check and every emitter but the kernel's view and the
// Python binding sees an ordinary op.
#pragma once

#include "model/spec.h"
#include "support/diagnostics.h"

namespace opgen::check {

// Runs before the op checks; an op with an error here is left as written
// (the caller stops at the errors).
void check_host_objects(model::Library& library, Diagnostics& diags);

}  // namespace opgen::check
