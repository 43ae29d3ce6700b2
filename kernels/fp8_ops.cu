// CUDA kernels for opgen::cast_to_fp8, opgen::fp8_linear and
// opgen::fp8_linear_backward (unstable ABI / ATen): the CPU kernels' ATen
// ops, launched on the input's device. One TU for the three: nvcc takes
// about 90 s over ATen's headers, however little device code a file holds.
// Per-operator ATen headers (ATen/ops/<op>.h), not ATen/ATen.h: a third of the
// compile time. The macro makes an all-operators header an error here.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS

#include "common/fp8_linear.h"

std::tuple<at::Tensor, at::Tensor> opgen::kernels::cast_to_fp8_cuda(const at::Tensor& input,
                                                                    const Float8Quantizer& quantizer,
                                                                    const std::optional<ProcessGroup>& amax_group) {
  TORCH_CHECK(input.is_cuda(), "opgen::cast_to_fp8: CUDA kernel called with a non-CUDA input");
  return detail::cast_to_fp8(input, quantizer, amax_group);
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor> opgen::kernels::fp8_linear_cuda(
    const at::Tensor& input, const at::Tensor& weight, const Float8Quantizer& input_quantizer,
    const Float8Quantizer& weight_quantizer, const std::optional<ProcessGroup>& tp_group) {
  TORCH_CHECK(input.is_cuda(), "opgen::fp8_linear: CUDA kernel called with a non-CUDA input");
  return detail::fp8_linear(input, weight, input_quantizer, weight_quantizer, tp_group);
}

std::tuple<at::Tensor, at::Tensor> opgen::kernels::fp8_linear_backward_cuda(
    const at::Tensor& grad_output, const Float8Tensor& input_fp8, const Float8Tensor& weight_fp8) {
  TORCH_CHECK(grad_output.is_cuda(), "opgen::fp8_linear_backward: CUDA kernel called with a non-CUDA input");
  return detail::fp8_linear_backward(grad_output, input_fp8, weight_fp8);
}
