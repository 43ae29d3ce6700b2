// CPU kernels of the opgen unstable-ABI ops: at::empty_like and at::empty_strided, as in the
// handwritten TORCH_LIBRARY and pybind11 variants.
#include "opgen_bench/kernels/empty_like_unstable.h"
#include "opgen_bench/kernels/empty_strided_unstable.h"
#include "opgen_bench/kernels/noop_unstable.h"

#include <ATen/ops/empty_like.h>
#include <ATen/ops/empty_strided.h>

at::Tensor opgen_bench::kernels::empty_like_unstable_cpu(const at::Tensor& x) { return at::empty_like(x); }

at::Tensor opgen_bench::kernels::empty_strided_unstable_cpu(const at::Tensor& x) {
  return at::empty_strided(x.sizes(), x.strides(), x.options());
}

void opgen_bench::kernels::noop_unstable_cpu(const at::Tensor&) {}
