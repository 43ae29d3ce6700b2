// opgen_ext::scale.out (unstable ABI), ExecuTorch's out= convention: writes
// into `out`; the generated binding returns it.

#include "opgen_ext/kernels/scale.out.h"

#include <ATen/ATen.h>

void opgen_ext::kernels::scale_out_cpu(const at::Tensor& x, double alpha, at::Tensor& out) {
  at::mul_out(out, x, alpha);
}
