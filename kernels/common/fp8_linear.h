// opgen::fp8_linear and its backward in ATen ops, one implementation for
// every device (kernels/fp8_linear.{cpp,cu} differ only in the device
// check). The GEMMs are emulated: float8 operands dequantized to float32.
// The float8 operands travel as their bits, uint8, as TE's Float8Tensor._data
// (the forward returns them, the backward takes them, as Float8Tensors).
#pragma once

#include "cast_to_fp8.h"
#include "opgen/kernels/fp8_linear.h"
#include "opgen/kernels/fp8_linear_backward.h"

#include <ATen/core/Tensor.h>
#include <ATen/ops/matmul.h>

namespace opgen::kernels::detail {

inline std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor> fp8_linear(
    const at::Tensor& input, const at::Tensor& weight, const Float8Quantizer& input_quantizer,
    const Float8Quantizer& weight_quantizer, const std::optional<ProcessGroup>& tp_group) {
  auto [input_fp8, input_scale_inv] = cast_to_fp8(input, input_quantizer, std::nullopt);
  auto [weight_fp8, weight_scale_inv] = cast_to_fp8(weight, weight_quantizer, std::nullopt);
  at::Tensor output = at::matmul(input_fp8.to(at::kFloat) * input_scale_inv,
                                 (weight_fp8.to(at::kFloat) * weight_scale_inv).t());
  if (tp_group) all_reduce(output, tp_group->group_name, /*max=*/false, "opgen::fp8_linear");
  return {output.to(input.scalar_type()), input_fp8.view(at::kByte), input_scale_inv, weight_fp8.view(at::kByte),
          weight_scale_inv};
}

inline std::tuple<at::Tensor, at::Tensor> fp8_linear_backward(const at::Tensor& grad_output,
                                                              const Float8Tensor& input_fp8,
                                                              const Float8Tensor& weight_fp8) {
  const at::Tensor grad = grad_output.to(at::kFloat);
  const at::Tensor input =
      input_fp8._data.contiguous().view(input_fp8.fp8_dtype).to(at::kFloat) * input_fp8._scale_inv.reshape({});
  const at::Tensor weight =
      weight_fp8._data.contiguous().view(weight_fp8.fp8_dtype).to(at::kFloat) * weight_fp8._scale_inv.reshape({});
  at::Tensor grad_input = at::matmul(grad, weight);
  at::Tensor grad_weight =
      at::matmul(grad.reshape({-1, grad.size(-1)}).t(), input.reshape({-1, input.size(-1)}));
  return {grad_input.to(grad_output.scalar_type()), grad_weight.to(grad_output.scalar_type())};
}

}  // namespace opgen::kernels::detail
