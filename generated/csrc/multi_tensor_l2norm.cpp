// @generated from schemas/multi_tensor_l2norm.yaml - DO NOT EDIT
//
// opgen::multi_tensor_l2norm through torch/library.h (unstable ABI).
#include "opgen/kernels/multi_tensor_l2norm.h"

#include <torch/library.h>

namespace {

void check_inputs(at::TensorList tensors) {
  for (size_t opgen_i = 0; opgen_i < tensors.size(); ++opgen_i) {
    const auto& opgen_t = tensors[opgen_i];
    TORCH_CHECK(opgen_t.scalar_type() == at::ScalarType::Float || opgen_t.scalar_type() == at::ScalarType::Half || opgen_t.scalar_type() == at::ScalarType::BFloat16 || opgen_t.scalar_type() == at::ScalarType::Double, "opgen::multi_tensor_l2norm: expected 'tensors[", opgen_i, "]' to have dtype float32, float16, bfloat16 or float64, but got ", opgen_t.scalar_type());
  }
  for (size_t opgen_i = 0; opgen_i < tensors.size(); ++opgen_i) {
    const auto& opgen_t = tensors[opgen_i];
    TORCH_CHECK(opgen_t.device() == tensors[0].device(), "opgen::multi_tensor_l2norm: expected 'tensors[", opgen_i, "]' to be on the same device as 'tensors[0]'");
  }
  TORCH_CHECK(static_cast<int64_t>(tensors.size()) >= 1, "opgen::multi_tensor_l2norm: requires len(tensors) >= 1", ": ", static_cast<int64_t>(tensors.size()), " vs ", 1);
}

std::tuple<at::Tensor, at::Tensor> multi_tensor_l2norm_cpu_checked(at::TensorList tensors) {
  check_inputs(tensors);
  return opgen::kernels::multi_tensor_l2norm_cpu(tensors);
}

std::tuple<at::Tensor, at::Tensor> multi_tensor_l2norm_cuda_checked(at::TensorList tensors) {
  check_inputs(tensors);
  return opgen::kernels::multi_tensor_l2norm_cuda(tensors);
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(opgen, m) {
  m.def("multi_tensor_l2norm(Tensor[] tensors) -> (Tensor, Tensor)", {at::Tag::pt2_compliant_tag});
}

TORCH_LIBRARY_IMPL(opgen, CPU, m) {
  m.impl("multi_tensor_l2norm", TORCH_FN(multi_tensor_l2norm_cpu_checked));
}

TORCH_LIBRARY_IMPL(opgen, CUDA, m) {
  m.impl("multi_tensor_l2norm", TORCH_FN(multi_tensor_l2norm_cuda_checked));
}
