// @generated from specs/all_reduce.yaml - DO NOT EDIT
//
// testns::all_reduce through torch/library.h (unstable ABI).
#include "testns/kernels/all_reduce.h"

#include <torch/library.h>

namespace {

at::Tensor all_reduce_cuda_checked(const at::Tensor& input, std::string_view reduce_op, std::string_view group_name) {
  return testns::kernels::all_reduce_cuda(input, reduce_op, group_name);
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(testns, m) {
  m.def("all_reduce(Tensor input, str reduce_op, str group_name) -> Tensor");
}

TORCH_LIBRARY_IMPL(testns, CUDA, m) {
  m.impl("all_reduce", TORCH_FN(all_reduce_cuda_checked));
}
