// `tags:` and `cudagraph:`: the tags an op's def carries, and how Inductor
// learns that an op must run outside CUDA graphs.
#pragma once

#include "model/spec.h"
#include "support/diagnostics.h"

namespace opgen::check {

// Known, distinct tags, at most one layout tag, a stable target that can
// carry them; `cudagraph:` is `safe` or `unsafe` and agrees with `tags`.
// `cudagraph: unsafe` adds the cudagraph_unsafe tag where the op's ABI can
// register it (unstable, or a stable target of 2.12 on); elsewhere the
// Python module puts the op on Inductor's partition list (emit/python.cpp).
void check_tags(const model::Library& lib, model::OpSpec& op, Diagnostics& diags);

}  // namespace opgen::check
