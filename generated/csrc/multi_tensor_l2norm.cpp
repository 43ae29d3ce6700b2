// @generated from schemas/multi_tensor_l2norm.yaml - DO NOT EDIT
//
// opgen::multi_tensor_l2norm through torch/library.h (unstable ABI).
#include "opgen/kernels/multi_tensor_l2norm.h"

#include <torch/library.h>

namespace {

void check_inputs(at::TensorList tensors) {
  TORCH_CHECK(static_cast<int64_t>(tensors.size()) >= 1, "opgen::multi_tensor_l2norm: requires len(tensors) >= 1");
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
