// The load stage for a whole library: the types file first (op schemas name
// its host classes), then every op spec, each as read from disk.
#pragma once

#include <vector>

#include "load/spec_sources.h"
#include "model/spec.h"
#include "support/diagnostics.h"

namespace opgen::load {

// Fills lib.host_classes, lib.types_path and lib.ops (in source order) with
// what loaded; every problem goes to `diags`. A library has at most one
// types file.
void load_library(model::Library& lib, const std::vector<SpecSource>& sources, Diagnostics& diags);

}  // namespace opgen::load
