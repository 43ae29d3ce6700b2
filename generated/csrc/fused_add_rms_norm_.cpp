// @generated from schemas/fused_add_rms_norm_.yaml - DO NOT EDIT
//
// opgen::fused_add_rms_norm_ on the LibTorch stable ABI (target: PyTorch 2.10).
#include "opgen/kernels/fused_add_rms_norm_.h"

#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/stableivalue_conversions.h>
#include <torch/headeronly/util/Exception.h>

namespace {

using Kernel = void (*)(torch::stable::Tensor&, torch::stable::Tensor&, const torch::stable::Tensor&, double);

// Unboxes the arguments in schema order, checks them, runs `kernel` and
// boxes its results.
void call_boxed(Kernel kernel, StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  STD_TORCH_CHECK(num_args == 4 && num_outputs == 0,
                  "opgen::fused_add_rms_norm_: expected 4 arguments and 0 outputs, got ", num_args, " and ",
                  num_outputs);
  auto input = torch::stable::detail::to<torch::stable::Tensor>(stack[0]);
  auto residual = torch::stable::detail::to<torch::stable::Tensor>(stack[1]);
  auto weight = torch::stable::detail::to<torch::stable::Tensor>(stack[2]);
  auto eps = torch::stable::detail::to<double>(stack[3]);
  STD_TORCH_CHECK(input.scalar_type() == torch::headeronly::ScalarType::Float || input.scalar_type() == torch::headeronly::ScalarType::Half || input.scalar_type() == torch::headeronly::ScalarType::BFloat16 || input.scalar_type() == torch::headeronly::ScalarType::Double, "opgen::fused_add_rms_norm_: expected 'input' to have dtype float32, float16, bfloat16 or float64, but got ", input.scalar_type());
  STD_TORCH_CHECK(input.is_contiguous(), "opgen::fused_add_rms_norm_: expected 'input' to be contiguous");
  STD_TORCH_CHECK(residual.scalar_type() == input.scalar_type(), "opgen::fused_add_rms_norm_: expected 'residual' to have the same dtype as 'input', but got ", residual.scalar_type(), " and ", input.scalar_type());
  STD_TORCH_CHECK(residual.device() == input.device(), "opgen::fused_add_rms_norm_: expected 'residual' to be on the same device as 'input'");
  STD_TORCH_CHECK(residual.is_contiguous(), "opgen::fused_add_rms_norm_: expected 'residual' to be contiguous");
  STD_TORCH_CHECK(weight.scalar_type() == input.scalar_type(), "opgen::fused_add_rms_norm_: expected 'weight' to have the same dtype as 'input', but got ", weight.scalar_type(), " and ", input.scalar_type());
  STD_TORCH_CHECK(weight.device() == input.device(), "opgen::fused_add_rms_norm_: expected 'weight' to be on the same device as 'input'");
  STD_TORCH_CHECK(weight.dim() == 1, "opgen::fused_add_rms_norm_: expected 'weight' to have 1 dimension, but got ", weight.dim());
  STD_TORCH_CHECK(residual.dim() == input.dim(), "opgen::fused_add_rms_norm_: requires residual.dim() == input.dim()", ": ", residual.dim(), " vs ", input.dim());
  STD_TORCH_CHECK(residual.numel() == input.numel(), "opgen::fused_add_rms_norm_: requires residual.numel() == input.numel()", ": ", residual.numel(), " vs ", input.numel());
  STD_TORCH_CHECK(weight.size(0) == input.size(-1), "opgen::fused_add_rms_norm_: requires weight.size(0) == input.size(-1)", ": ", weight.size(0), " vs ", input.size(-1));
  kernel(input, residual, weight, eps);
}

void fused_add_rms_norm__cpu_boxed(StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  call_boxed(&opgen::kernels::fused_add_rms_norm__cpu, stack, num_args, num_outputs);
}

void fused_add_rms_norm__cuda_boxed(StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  call_boxed(&opgen::kernels::fused_add_rms_norm__cuda, stack, num_args, num_outputs);
}

}  // namespace

STABLE_TORCH_LIBRARY_FRAGMENT(opgen, m) {
  m.def("fused_add_rms_norm_(Tensor! input, Tensor! residual, Tensor weight, float eps=9.9999999999999995e-07) -> ()");
}

STABLE_TORCH_LIBRARY_IMPL(opgen, CPU, m) {
  m.impl("fused_add_rms_norm_", &fused_add_rms_norm__cpu_boxed);
}

STABLE_TORCH_LIBRARY_IMPL(opgen, CUDA, m) {
  m.impl("fused_add_rms_norm_", &fused_add_rms_norm__cuda_boxed);
}
