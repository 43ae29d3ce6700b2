// CPU kernels of the opgen unstable-ABI ops: at::empty_like, as in the
// handwritten TORCH_LIBRARY and pybind11 variants.
#include "opgen_bench/kernels/empty_like_unstable.h"
#include "opgen_bench/kernels/noop_unstable.h"

#include <ATen/ops/empty_like.h>

at::Tensor opgen_bench::kernels::empty_like_unstable_cpu(const at::Tensor& x) { return at::empty_like(x); }

void opgen_bench::kernels::noop_unstable_cpu(const at::Tensor&) {}
