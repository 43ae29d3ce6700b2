// CPU kernels for opgen::fp8_linear and opgen::fp8_linear_backward (unstable ABI / ATen + c10d).
// Per-operator ATen headers (ATen/ops/<op>.h), not ATen/ATen.h: a third of the
// compile time. The macro makes an all-operators header an error here.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS

#include "common/fp8_linear.h"

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor> opgen::kernels::fp8_linear_cpu(
    const at::Tensor& input, const at::Tensor& weight, const Float8Quantizer& input_quantizer,
    const Float8Quantizer& weight_quantizer, const std::optional<ProcessGroup>& tp_group) {
  TORCH_CHECK(input.device().is_cpu(), "opgen::fp8_linear: CPU kernel called with a non-CPU input");
  return detail::fp8_linear(input, weight, input_quantizer, weight_quantizer, tp_group);
}

std::tuple<at::Tensor, at::Tensor> opgen::kernels::fp8_linear_backward_cpu(
    const at::Tensor& grad_output, const Float8Tensor& input_fp8, const Float8Tensor& weight_fp8) {
  TORCH_CHECK(grad_output.device().is_cpu(), "opgen::fp8_linear_backward: CPU kernel called with a non-CPU input");
  return detail::fp8_linear_backward(grad_output, input_fp8, weight_fp8);
}
