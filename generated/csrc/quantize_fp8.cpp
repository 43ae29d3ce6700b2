// @generated from schemas/quantize_fp8.yaml - DO NOT EDIT
//
// opgen::quantize_fp8 through torch/library.h (unstable ABI).
#include "opgen/kernels/quantize_fp8.h"

#include <torch/library.h>

namespace {

void check_inputs(const at::Tensor& input, const std::optional<at::Tensor>& scale) {
  TORCH_CHECK(input.scalar_type() == at::ScalarType::Float || input.scalar_type() == at::ScalarType::Half || input.scalar_type() == at::ScalarType::BFloat16, "opgen::quantize_fp8: expected 'input' to have dtype float32, float16 or bfloat16, but got ", input.scalar_type());
  TORCH_CHECK(!scale.has_value() || ((*scale).scalar_type() == at::ScalarType::Float), "opgen::quantize_fp8: expected 'scale' to have dtype float32, but got ", (*scale).scalar_type());
  TORCH_CHECK(!scale.has_value() || ((*scale).device() == input.device()), "opgen::quantize_fp8: expected 'scale' to be on the same device as 'input'");
  TORCH_CHECK(!scale.has_value() || scale->numel() == 1, "opgen::quantize_fp8: requires scale is None or scale.numel() == 1");
}

std::tuple<at::Tensor, at::Tensor> quantize_fp8_cpu_checked(const at::Tensor& input, const std::optional<at::Tensor>& scale) {
  check_inputs(input, scale);
  return opgen::kernels::quantize_fp8_cpu(input, scale);
}

std::tuple<at::Tensor, at::Tensor> quantize_fp8_cuda_checked(const at::Tensor& input, const std::optional<at::Tensor>& scale) {
  check_inputs(input, scale);
  return opgen::kernels::quantize_fp8_cuda(input, scale);
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(opgen, m) {
  m.def("quantize_fp8(Tensor input, Tensor? scale=None) -> (Tensor, Tensor)", {at::Tag::pt2_compliant_tag});
}

TORCH_LIBRARY_IMPL(opgen, CPU, m) {
  m.impl("quantize_fp8", TORCH_FN(quantize_fp8_cpu_checked));
}

TORCH_LIBRARY_IMPL(opgen, CUDA, m) {
  m.impl("quantize_fp8", TORCH_FN(quantize_fp8_cuda_checked));
}
