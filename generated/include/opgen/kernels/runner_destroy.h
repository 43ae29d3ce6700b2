// @generated from schemas/runner_destroy.yaml - DO NOT EDIT
//
// The kernels of opgen::runner_destroy must have exactly these signatures. Define each
// with its qualified name, e.g. `void opgen::kernels::runner_destroy_compositeexplicitautograd(...) { ... }`,
// so that a mismatch is a compile error at the kernel.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include <ATen/core/Tensor.h>

namespace opgen::kernels {

// runner_destroy(int runner) -> ()
// Removes runner `runner` from the registry (calls already queued keep their
// copy of its state). An unknown id is an error.
void runner_destroy_compositeexplicitautograd(int64_t runner);

}  // namespace opgen::kernels
