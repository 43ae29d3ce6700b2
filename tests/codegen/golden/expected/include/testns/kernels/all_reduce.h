// @generated from specs/all_reduce.yaml - DO NOT EDIT
//
// The kernels of testns::all_reduce must have exactly these signatures. Define each
// with its qualified name, e.g. `at::Tensor testns::kernels::all_reduce_cuda(...) { ... }`,
// so that a mismatch is a compile error at the kernel.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include <ATen/core/Tensor.h>

namespace testns::kernels {

// all_reduce(Tensor input, str reduce_op, str group_name) -> Tensor
at::Tensor all_reduce_cuda(const at::Tensor& input, std::string_view reduce_op, std::string_view group_name);

}  // namespace testns::kernels
