// @generated from schemas/one_shot_all_reduce.yaml - DO NOT EDIT
//
// opgen::one_shot_all_reduce through torch/library.h (unstable ABI).
#include "opgen/kernels/one_shot_all_reduce.h"

#include <torch/library.h>

namespace {

void check_inputs(const at::Tensor& input) {
  TORCH_CHECK(input.scalar_type() == at::ScalarType::Float || input.scalar_type() == at::ScalarType::Half || input.scalar_type() == at::ScalarType::BFloat16, "opgen::one_shot_all_reduce: expected 'input' to have dtype float32, float16 or bfloat16, but got ", input.scalar_type());
  TORCH_CHECK(input.is_contiguous(), "opgen::one_shot_all_reduce: expected 'input' to be contiguous");
}

at::Tensor one_shot_all_reduce_cpu_checked(const at::Tensor& input, std::string_view reduce_op, std::string_view group_name) {
  check_inputs(input);
  return opgen::kernels::one_shot_all_reduce_cpu(input, reduce_op, group_name);
}

at::Tensor one_shot_all_reduce_cuda_checked(const at::Tensor& input, std::string_view reduce_op, std::string_view group_name) {
  check_inputs(input);
  return opgen::kernels::one_shot_all_reduce_cuda(input, reduce_op, group_name);
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(opgen, m) {
  m.def("one_shot_all_reduce(Tensor input, str reduce_op, str group_name) -> Tensor", {at::Tag::pt2_compliant_tag});
}

TORCH_LIBRARY_IMPL(opgen, CPU, m) {
  m.impl("one_shot_all_reduce", TORCH_FN(one_shot_all_reduce_cpu_checked));
}

TORCH_LIBRARY_IMPL(opgen, CUDA, m) {
  m.impl("one_shot_all_reduce", TORCH_FN(one_shot_all_reduce_cuda_checked));
}
