// The binding TU of opgen::rms_norm as it is commonly written by hand: through
// torch/extension.h, with the same checks as the generated stable-ABI wrapper
// (generated/csrc/rms_norm.cpp). bench/build/bench.py compiles both with the
// same flags and compares the time; this file is never linked.
#include <torch/extension.h>

namespace handwritten {
at::Tensor rms_norm_cpu(const at::Tensor& input, const at::Tensor& weight, double eps);  // the kernel, elsewhere
}  // namespace handwritten

namespace {

at::Tensor rms_norm_checked(const at::Tensor& input, const at::Tensor& weight, double eps) {
  TORCH_CHECK(input.scalar_type() == at::kFloat || input.scalar_type() == at::kHalf ||
                  input.scalar_type() == at::kBFloat16 || input.scalar_type() == at::kDouble,
              "rms_norm: expected 'input' to have dtype float32, float16, bfloat16 or float64, but got ",
              input.scalar_type());
  TORCH_CHECK(weight.scalar_type() == input.scalar_type(), "rms_norm: 'weight' must have the dtype of 'input'");
  TORCH_CHECK(weight.device() == input.device(), "rms_norm: 'weight' must be on the device of 'input'");
  TORCH_CHECK(weight.dim() == 1, "rms_norm: 'weight' must have 1 dimension");
  TORCH_CHECK(input.dim() >= 1, "rms_norm: requires input.dim() >= 1");
  TORCH_CHECK(weight.size(0) == input.size(-1), "rms_norm: requires weight.size(0) == input.size(-1)");
  return handwritten::rms_norm_cpu(input, weight, eps);
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(handwritten, m) { m.def("rms_norm(Tensor input, Tensor weight, float eps=1e-06) -> Tensor"); }

TORCH_LIBRARY_IMPL(handwritten, CPU, m) { m.impl("rms_norm", TORCH_FN(rms_norm_checked)); }
