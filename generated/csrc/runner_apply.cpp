// @generated from schemas/runner_apply.yaml - DO NOT EDIT
//
// opgen::runner_apply through torch/library.h (unstable ABI).
#include "opgen/kernels/runner_apply.h"

#include <torch/library.h>

namespace {

void check_inputs(const at::Tensor& x, int64_t runner) {
  TORCH_CHECK(x.scalar_type() == at::ScalarType::Float || x.scalar_type() == at::ScalarType::Half || x.scalar_type() == at::ScalarType::BFloat16 || x.scalar_type() == at::ScalarType::Double, "opgen::runner_apply: expected 'x' to have dtype float32, float16, bfloat16 or float64, but got ", x.scalar_type());
  TORCH_CHECK(runner >= 1, "opgen::runner_apply: requires runner >= 1", ": ", runner, " vs ", 1);
}

at::Tensor runner_apply_cpu_checked(const at::Tensor& x, int64_t runner) {
  check_inputs(x, runner);
  return opgen::kernels::runner_apply_cpu(x, runner);
}

at::Tensor runner_apply_cuda_checked(const at::Tensor& x, int64_t runner) {
  check_inputs(x, runner);
  return opgen::kernels::runner_apply_cuda(x, runner);
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(opgen, m) {
  m.def("runner_apply(Tensor x, int runner) -> Tensor", {at::Tag::pt2_compliant_tag});
}

TORCH_LIBRARY_IMPL(opgen, CPU, m) {
  m.impl("runner_apply", TORCH_FN(runner_apply_cpu_checked));
}

TORCH_LIBRARY_IMPL(opgen, CUDA, m) {
  m.impl("runner_apply", TORCH_FN(runner_apply_cuda_checked));
}
