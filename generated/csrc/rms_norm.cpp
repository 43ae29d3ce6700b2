// @generated from schemas/rms_norm.yaml - DO NOT EDIT
//
// opgen::rms_norm on the LibTorch stable ABI (target: PyTorch 2.10).
#include "opgen/kernels/rms_norm.h"

#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/stableivalue_conversions.h>
#include <torch/headeronly/util/Exception.h>

namespace {

using Kernel = torch::stable::Tensor (*)(const torch::stable::Tensor&, const torch::stable::Tensor&, double);

// Unboxes the arguments in schema order, checks them, runs `kernel` and
// boxes its results.
void call_boxed(Kernel kernel, StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  STD_TORCH_CHECK(num_args == 3 && num_outputs == 1,
                  "opgen::rms_norm: expected 3 arguments and 1 outputs, got ", num_args, " and ",
                  num_outputs);
  auto input = torch::stable::detail::to<torch::stable::Tensor>(stack[0]);
  auto weight = torch::stable::detail::to<torch::stable::Tensor>(stack[1]);
  auto eps = torch::stable::detail::to<double>(stack[2]);
  STD_TORCH_CHECK(input.scalar_type() == torch::headeronly::ScalarType::Float || input.scalar_type() == torch::headeronly::ScalarType::Half || input.scalar_type() == torch::headeronly::ScalarType::BFloat16 || input.scalar_type() == torch::headeronly::ScalarType::Double, "opgen::rms_norm: expected 'input' to have dtype float32, float16, bfloat16 or float64, but got ", input.scalar_type());
  STD_TORCH_CHECK(weight.scalar_type() == input.scalar_type(), "opgen::rms_norm: expected 'weight' to have the same dtype as 'input', but got ", weight.scalar_type(), " and ", input.scalar_type());
  STD_TORCH_CHECK(weight.device() == input.device(), "opgen::rms_norm: expected 'weight' to be on the same device as 'input'");
  STD_TORCH_CHECK(weight.dim() == 1, "opgen::rms_norm: expected 'weight' to have 1 dimension, but got ", weight.dim());
  STD_TORCH_CHECK(input.dim() >= 1, "opgen::rms_norm: requires input.dim() >= 1", ": ", input.dim(), " vs ", 1);
  STD_TORCH_CHECK(weight.size(0) == input.size(-1), "opgen::rms_norm: requires weight.size(0) == input.size(-1)", ": ", weight.size(0), " vs ", input.size(-1));
  stack[0] = torch::stable::detail::from(kernel(input, weight, eps));
}

void rms_norm_cpu_boxed(StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  call_boxed(&opgen::kernels::rms_norm_cpu, stack, num_args, num_outputs);
}

void rms_norm_cuda_boxed(StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  call_boxed(&opgen::kernels::rms_norm_cuda, stack, num_args, num_outputs);
}

}  // namespace

STABLE_TORCH_LIBRARY_FRAGMENT(opgen, m) {
  m.def("rms_norm(Tensor input, Tensor weight, float eps=9.9999999999999995e-07) -> Tensor");
}

STABLE_TORCH_LIBRARY_IMPL(opgen, CPU, m) {
  m.impl("rms_norm", &rms_norm_cpu_boxed);
}

STABLE_TORCH_LIBRARY_IMPL(opgen, CUDA, m) {
  m.impl("rms_norm", &rms_norm_cuda_boxed);
}
