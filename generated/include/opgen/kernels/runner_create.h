// @generated from schemas/runner_create.yaml - DO NOT EDIT
//
// The kernels of opgen::runner_create must have exactly these signatures. Define each
// with its qualified name, e.g. `int64_t opgen::kernels::runner_create_compositeexplicitautograd(...) { ... }`,
// so that a mismatch is a compile error at the kernel.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include <ATen/core/Tensor.h>

namespace opgen::kernels {

// runner_create(float scale, float shift=0.) -> int
// Creates a host-side runner object (here: y = x * scale + shift) in the
// library's runner registry and returns its id, an opaque handle for
// runner_apply and runner_destroy. Call it eagerly, outside torch.compile.
int64_t runner_create_compositeexplicitautograd(double scale, double shift);

}  // namespace opgen::kernels
