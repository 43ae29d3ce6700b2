// @generated from schemas/multi_tensor_l2norm.yaml - DO NOT EDIT
//
// The kernels of opgen::multi_tensor_l2norm must have exactly these signatures. Define each
// with its qualified name, e.g. `std::tuple<at::Tensor, at::Tensor> opgen::kernels::multi_tensor_l2norm_cpu(...) { ... }`,
// so that a mismatch is a compile error at the kernel.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include <ATen/core/Tensor.h>

namespace opgen::kernels {

// multi_tensor_l2norm(Tensor[] tensors) -> (Tensor, Tensor)
// L2 norm over a list of tensors (apex amp_C style): the total norm and the
// norm of each tensor, both float32.
std::tuple<at::Tensor, at::Tensor> multi_tensor_l2norm_cpu(at::TensorList tensors);
std::tuple<at::Tensor, at::Tensor> multi_tensor_l2norm_cuda(at::TensorList tensors);

}  // namespace opgen::kernels
