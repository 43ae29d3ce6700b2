// CPU kernel for opgen_ext::softplus (stable ABI), the external project's op.

#include "opgen_ext/kernels/softplus.h"

#include <torch/csrc/stable/ops.h>
#include <torch/headeronly/core/ScalarType.h>

#include <cmath>
#include <cstdint>

namespace {

template <class T>
void softplus(const T* x, T* y, int64_t n, double beta, double threshold) {
  for (int64_t i = 0; i < n; ++i) {
    const double bx = beta * static_cast<double>(x[i]);
    // Above the threshold log1p(exp(bx)) / beta is x to working precision
    // (and exp would overflow soon after), as in PyTorch.
    y[i] = bx > threshold ? x[i] : static_cast<T>(std::log1p(std::exp(bx)) / beta);
  }
}

}  // namespace

torch::stable::Tensor opgen_ext::kernels::softplus_cpu(const torch::stable::Tensor& x, double beta,
                                                       double threshold) {
  torch::stable::Tensor y = torch::stable::empty_like(x);
  if (x.scalar_type() == torch::headeronly::ScalarType::Double) {
    softplus(x.const_data_ptr<double>(), y.mutable_data_ptr<double>(), x.numel(), beta, threshold);
  } else {  // float32: the spec's dtype check allows nothing else
    softplus(x.const_data_ptr<float>(), y.mutable_data_ptr<float>(), x.numel(), beta, threshold);
  }
  return y;
}
