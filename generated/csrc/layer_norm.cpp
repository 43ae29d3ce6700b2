// @generated from schemas/layer_norm.yaml - DO NOT EDIT
//
// opgen::layer_norm on the LibTorch stable ABI (target: PyTorch 2.10).
#include "opgen/kernels/layer_norm.h"

#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/stableivalue_conversions.h>
#include <torch/headeronly/util/Exception.h>

namespace {

using Kernel = std::tuple<torch::stable::Tensor, torch::stable::Tensor, torch::stable::Tensor> (*)(const torch::stable::Tensor&, const torch::stable::Tensor&, const std::optional<torch::stable::Tensor>&, double);

// Unboxes the arguments in schema order, checks them, runs `kernel` and
// boxes its results.
void call_boxed(Kernel kernel, StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  STD_TORCH_CHECK(num_args == 4 && num_outputs == 3,
                  "opgen::layer_norm: expected 4 arguments and 3 outputs, got ", num_args, " and ",
                  num_outputs);
  auto input = torch::stable::detail::to<torch::stable::Tensor>(stack[0]);
  auto weight = torch::stable::detail::to<torch::stable::Tensor>(stack[1]);
  auto bias = torch::stable::detail::to<std::optional<torch::stable::Tensor>>(stack[2]);
  auto eps = torch::stable::detail::to<double>(stack[3]);
  STD_TORCH_CHECK(input.scalar_type() == torch::headeronly::ScalarType::Float || input.scalar_type() == torch::headeronly::ScalarType::Half || input.scalar_type() == torch::headeronly::ScalarType::BFloat16 || input.scalar_type() == torch::headeronly::ScalarType::Double, "opgen::layer_norm: expected 'input' to have dtype float32, float16, bfloat16 or float64, but got ", input.scalar_type());
  STD_TORCH_CHECK(weight.scalar_type() == input.scalar_type(), "opgen::layer_norm: expected 'weight' to have the same dtype as 'input', but got ", weight.scalar_type(), " and ", input.scalar_type());
  STD_TORCH_CHECK(weight.device() == input.device(), "opgen::layer_norm: expected 'weight' to be on the same device as 'input'");
  STD_TORCH_CHECK(weight.dim() == 1, "opgen::layer_norm: expected 'weight' to have 1 dimension, but got ", weight.dim());
  STD_TORCH_CHECK(!bias.has_value() || ((*bias).scalar_type() == input.scalar_type()), "opgen::layer_norm: expected 'bias' to have the same dtype as 'input', but got ", (*bias).scalar_type(), " and ", input.scalar_type());
  STD_TORCH_CHECK(!bias.has_value() || ((*bias).device() == input.device()), "opgen::layer_norm: expected 'bias' to be on the same device as 'input'");
  STD_TORCH_CHECK(!bias.has_value() || ((*bias).dim() == 1), "opgen::layer_norm: expected 'bias' to have 1 dimension, but got ", (*bias).dim());
  STD_TORCH_CHECK(input.dim() >= 1, "opgen::layer_norm: requires input.dim() >= 1", ": ", input.dim(), " vs ", 1);
  STD_TORCH_CHECK(weight.size(0) == input.size(-1), "opgen::layer_norm: requires weight.size(0) == input.size(-1)", ": ", weight.size(0), " vs ", input.size(-1));
  STD_TORCH_CHECK(!bias.has_value() || bias->size(0) == input.size(-1), "opgen::layer_norm: requires bias is None or bias.size(0) == input.size(-1)");
  auto [opgen_out0, opgen_out1, opgen_out2] = kernel(input, weight, bias, eps);
  stack[0] = torch::stable::detail::from(opgen_out0);
  stack[1] = torch::stable::detail::from(opgen_out1);
  stack[2] = torch::stable::detail::from(opgen_out2);
}

void layer_norm_cpu_boxed(StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  call_boxed(&opgen::kernels::layer_norm_cpu, stack, num_args, num_outputs);
}

void layer_norm_cuda_boxed(StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  call_boxed(&opgen::kernels::layer_norm_cuda, stack, num_args, num_outputs);
}

}  // namespace

STABLE_TORCH_LIBRARY_FRAGMENT(opgen, m) {
  m.def("layer_norm(Tensor input, Tensor weight, Tensor? bias=None, float eps=1.0000000000000001e-05) -> (Tensor output, Tensor mean, Tensor rstd)");
}

STABLE_TORCH_LIBRARY_IMPL(opgen, CPU, m) {
  m.impl("layer_norm", &layer_norm_cpu_boxed);
}

STABLE_TORCH_LIBRARY_IMPL(opgen, CUDA, m) {
  m.impl("layer_norm", &layer_norm_cuda_boxed);
}
