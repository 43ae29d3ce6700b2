// @generated from schemas/runner_apply.yaml - DO NOT EDIT
//
// The kernels of opgen::runner_apply must have exactly these signatures. Define each
// with its qualified name, e.g. `at::Tensor opgen::kernels::runner_apply_cpu(...) { ... }`,
// so that a mismatch is a compile error at the kernel.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include <ATen/core/Tensor.h>

namespace opgen::kernels {

// runner_apply(Tensor x, int runner) -> Tensor
// Runs the runner with id `runner` (from runner_create) on x: x * scale + shift,
// math in float32 (float64 for float64), a new contiguous tensor. An unknown or
// destroyed id is an error.
at::Tensor runner_apply_cpu(const at::Tensor& x, int64_t runner);
at::Tensor runner_apply_cuda(const at::Tensor& x, int64_t runner);

}  // namespace opgen::kernels
