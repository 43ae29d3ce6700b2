// @generated from schemas/layer_norm_backward.yaml - DO NOT EDIT
//
// opgen::layer_norm_backward on the LibTorch stable ABI (target: PyTorch 2.10).
#include "opgen/kernels/layer_norm_backward.h"

#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/stableivalue_conversions.h>
#include <torch/headeronly/util/Exception.h>

namespace {

using Kernel = std::tuple<torch::stable::Tensor, torch::stable::Tensor, torch::stable::Tensor> (*)(const torch::stable::Tensor&, const torch::stable::Tensor&, const torch::stable::Tensor&, const torch::stable::Tensor&, const torch::stable::Tensor&);

// Unboxes the arguments in schema order, checks them, runs `kernel` and
// boxes its results.
void call_boxed(Kernel kernel, StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  STD_TORCH_CHECK(num_args == 5 && num_outputs == 3,
                  "opgen::layer_norm_backward: expected 5 arguments and 3 outputs, got ", num_args, " and ",
                  num_outputs);
  auto grad_output = torch::stable::detail::to<torch::stable::Tensor>(stack[0]);
  auto input = torch::stable::detail::to<torch::stable::Tensor>(stack[1]);
  auto mean = torch::stable::detail::to<torch::stable::Tensor>(stack[2]);
  auto rstd = torch::stable::detail::to<torch::stable::Tensor>(stack[3]);
  auto weight = torch::stable::detail::to<torch::stable::Tensor>(stack[4]);
  STD_TORCH_CHECK(grad_output.scalar_type() == input.scalar_type(), "opgen::layer_norm_backward: expected 'grad_output' to have the same dtype as 'input', but got ", grad_output.scalar_type(), " and ", input.scalar_type());
  STD_TORCH_CHECK(grad_output.device() == input.device(), "opgen::layer_norm_backward: expected 'grad_output' to be on the same device as 'input'");
  STD_TORCH_CHECK(input.scalar_type() == torch::headeronly::ScalarType::Float || input.scalar_type() == torch::headeronly::ScalarType::Half || input.scalar_type() == torch::headeronly::ScalarType::BFloat16 || input.scalar_type() == torch::headeronly::ScalarType::Double, "opgen::layer_norm_backward: expected 'input' to have dtype float32, float16, bfloat16 or float64, but got ", input.scalar_type());
  STD_TORCH_CHECK(mean.device() == input.device(), "opgen::layer_norm_backward: expected 'mean' to be on the same device as 'input'");
  STD_TORCH_CHECK(rstd.scalar_type() == mean.scalar_type(), "opgen::layer_norm_backward: expected 'rstd' to have the same dtype as 'mean', but got ", rstd.scalar_type(), " and ", mean.scalar_type());
  STD_TORCH_CHECK(rstd.device() == input.device(), "opgen::layer_norm_backward: expected 'rstd' to be on the same device as 'input'");
  STD_TORCH_CHECK(weight.scalar_type() == input.scalar_type(), "opgen::layer_norm_backward: expected 'weight' to have the same dtype as 'input', but got ", weight.scalar_type(), " and ", input.scalar_type());
  STD_TORCH_CHECK(weight.device() == input.device(), "opgen::layer_norm_backward: expected 'weight' to be on the same device as 'input'");
  STD_TORCH_CHECK(weight.dim() == 1, "opgen::layer_norm_backward: expected 'weight' to have 1 dimension, but got ", weight.dim());
  STD_TORCH_CHECK(input.dim() >= 1, "opgen::layer_norm_backward: requires input.dim() >= 1", ": ", input.dim(), " vs ", 1);
  STD_TORCH_CHECK(grad_output.dim() == input.dim(), "opgen::layer_norm_backward: requires grad_output.dim() == input.dim()", ": ", grad_output.dim(), " vs ", input.dim());
  STD_TORCH_CHECK(weight.size(0) == input.size(-1), "opgen::layer_norm_backward: requires weight.size(0) == input.size(-1)", ": ", weight.size(0), " vs ", input.size(-1));
  STD_TORCH_CHECK(mean.scalar_type() == (input.scalar_type() == torch::headeronly::ScalarType::Double ? torch::headeronly::ScalarType::Double : torch::headeronly::ScalarType::Float), "opgen::layer_norm_backward: requires mean.dtype == (float64 if input.dtype == float64 else float32)");
  STD_TORCH_CHECK(mean.numel() * input.size(-1) == input.numel(), "opgen::layer_norm_backward: requires mean.numel() * input.size(-1) == input.numel()", ": ", mean.numel() * input.size(-1), " vs ", input.numel());
  STD_TORCH_CHECK(rstd.numel() == mean.numel(), "opgen::layer_norm_backward: requires rstd.numel() == mean.numel()", ": ", rstd.numel(), " vs ", mean.numel());
  auto [opgen_out0, opgen_out1, opgen_out2] = kernel(grad_output, input, mean, rstd, weight);
  stack[0] = torch::stable::detail::from(opgen_out0);
  stack[1] = torch::stable::detail::from(opgen_out1);
  stack[2] = torch::stable::detail::from(opgen_out2);
}

void layer_norm_backward_cpu_boxed(StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  call_boxed(&opgen::kernels::layer_norm_backward_cpu, stack, num_args, num_outputs);
}

void layer_norm_backward_cuda_boxed(StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  call_boxed(&opgen::kernels::layer_norm_backward_cuda, stack, num_args, num_outputs);
}

}  // namespace

STABLE_TORCH_LIBRARY_FRAGMENT(opgen, m) {
  m.def("layer_norm_backward(Tensor grad_output, Tensor input, Tensor mean, Tensor rstd, Tensor weight) -> (Tensor, Tensor, Tensor)");
}

STABLE_TORCH_LIBRARY_IMPL(opgen, CPU, m) {
  m.impl("layer_norm_backward", &layer_norm_backward_cpu_boxed);
}

STABLE_TORCH_LIBRARY_IMPL(opgen, CUDA, m) {
  m.impl("layer_norm_backward", &layer_norm_backward_cuda_boxed);
}
