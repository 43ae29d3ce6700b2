// @generated from specs/add_.yaml - DO NOT EDIT
//
// The kernels of testns::add_ must have exactly these signatures. Define each
// with its qualified name, e.g. `void testns::kernels::add__cpu(...) { ... }`,
// so that a mismatch is a compile error at the kernel.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include <ATen/core/Tensor.h>

namespace testns::kernels {

// add_(Tensor(a!) self, Tensor other) -> Tensor(a!)
// In place, PyTorch's convention.
void add__cpu(at::Tensor& self, const at::Tensor& other);

}  // namespace testns::kernels
