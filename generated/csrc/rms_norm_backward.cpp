// @generated from schemas/rms_norm_backward.yaml - DO NOT EDIT
//
// opgen::rms_norm_backward on the LibTorch stable ABI (target: PyTorch 2.10).
#include "opgen/kernels/rms_norm_backward.h"

#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/stableivalue_conversions.h>
#include <torch/headeronly/util/Exception.h>

namespace {

using Kernel = std::tuple<torch::stable::Tensor, torch::stable::Tensor> (*)(const torch::stable::Tensor&, const torch::stable::Tensor&, const torch::stable::Tensor&, double);

// Unboxes the arguments in schema order, checks them, runs `kernel` and
// boxes its results.
void call_boxed(Kernel kernel, StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  STD_TORCH_CHECK(num_args == 4 && num_outputs == 2,
                  "opgen::rms_norm_backward: expected 4 arguments and 2 outputs, got ", num_args, " and ",
                  num_outputs);
  auto grad = torch::stable::detail::to<torch::stable::Tensor>(stack[0]);
  auto input = torch::stable::detail::to<torch::stable::Tensor>(stack[1]);
  auto weight = torch::stable::detail::to<torch::stable::Tensor>(stack[2]);
  auto eps = torch::stable::detail::to<double>(stack[3]);
  STD_TORCH_CHECK(grad.scalar_type() == input.scalar_type(), "opgen::rms_norm_backward: expected 'grad' to have the same dtype as 'input', but got ", grad.scalar_type(), " and ", input.scalar_type());
  STD_TORCH_CHECK(grad.device() == input.device(), "opgen::rms_norm_backward: expected 'grad' to be on the same device as 'input'");
  STD_TORCH_CHECK(input.scalar_type() == torch::headeronly::ScalarType::Float || input.scalar_type() == torch::headeronly::ScalarType::Half || input.scalar_type() == torch::headeronly::ScalarType::BFloat16 || input.scalar_type() == torch::headeronly::ScalarType::Double, "opgen::rms_norm_backward: expected 'input' to have dtype float32, float16, bfloat16 or float64, but got ", input.scalar_type());
  STD_TORCH_CHECK(weight.scalar_type() == input.scalar_type(), "opgen::rms_norm_backward: expected 'weight' to have the same dtype as 'input', but got ", weight.scalar_type(), " and ", input.scalar_type());
  STD_TORCH_CHECK(weight.device() == input.device(), "opgen::rms_norm_backward: expected 'weight' to be on the same device as 'input'");
  STD_TORCH_CHECK(weight.dim() == 1, "opgen::rms_norm_backward: expected 'weight' to have 1 dimension, but got ", weight.dim());
  STD_TORCH_CHECK(grad.dim() == input.dim(), "opgen::rms_norm_backward: requires grad.dim() == input.dim()", ": ", grad.dim(), " vs ", input.dim());
  STD_TORCH_CHECK(weight.size(0) == input.size(-1), "opgen::rms_norm_backward: requires weight.size(0) == input.size(-1)", ": ", weight.size(0), " vs ", input.size(-1));
  auto [opgen_out0, opgen_out1] = kernel(grad, input, weight, eps);
  stack[0] = torch::stable::detail::from(opgen_out0);
  stack[1] = torch::stable::detail::from(opgen_out1);
}

void rms_norm_backward_cpu_boxed(StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  call_boxed(&opgen::kernels::rms_norm_backward_cpu, stack, num_args, num_outputs);
}

void rms_norm_backward_cuda_boxed(StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  call_boxed(&opgen::kernels::rms_norm_backward_cuda, stack, num_args, num_outputs);
}

}  // namespace

STABLE_TORCH_LIBRARY_FRAGMENT(opgen, m) {
  m.def("rms_norm_backward(Tensor grad, Tensor input, Tensor weight, float eps) -> (Tensor, Tensor)");
}

STABLE_TORCH_LIBRARY_IMPL(opgen, CPU, m) {
  m.impl("rms_norm_backward", &rms_norm_backward_cpu_boxed);
}

STABLE_TORCH_LIBRARY_IMPL(opgen, CUDA, m) {
  m.impl("rms_norm_backward", &rms_norm_backward_cuda_boxed);
}
