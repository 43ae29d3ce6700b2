// @generated from schemas/scaled_masked_softmax.yaml - DO NOT EDIT
//
// opgen::scaled_masked_softmax on the LibTorch stable ABI (target: PyTorch 2.10).
#include "opgen/kernels/scaled_masked_softmax.h"

#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/stableivalue_conversions.h>
#include <torch/headeronly/util/Exception.h>

namespace {

using Kernel = torch::stable::Tensor (*)(const torch::stable::Tensor&, const std::optional<torch::stable::Tensor>&, double);

// Unboxes the arguments in schema order, checks them, runs `kernel` and
// boxes its results.
void call_boxed(Kernel kernel, StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  STD_TORCH_CHECK(num_args == 3 && num_outputs == 1,
                  "opgen::scaled_masked_softmax: expected 3 arguments and 1 outputs, got ", num_args, " and ",
                  num_outputs);
  auto input = torch::stable::detail::to<torch::stable::Tensor>(stack[0]);
  auto mask = torch::stable::detail::to<std::optional<torch::stable::Tensor>>(stack[1]);
  auto scale = torch::stable::detail::to<double>(stack[2]);
  STD_TORCH_CHECK(input.scalar_type() == torch::headeronly::ScalarType::Float || input.scalar_type() == torch::headeronly::ScalarType::Half || input.scalar_type() == torch::headeronly::ScalarType::BFloat16 || input.scalar_type() == torch::headeronly::ScalarType::Double, "opgen::scaled_masked_softmax: expected 'input' to have dtype float32, float16, bfloat16 or float64, but got ", input.scalar_type());
  STD_TORCH_CHECK(!mask.has_value() || ((*mask).scalar_type() == torch::headeronly::ScalarType::Bool || (*mask).scalar_type() == torch::headeronly::ScalarType::Byte), "opgen::scaled_masked_softmax: expected 'mask' to have dtype bool or uint8, but got ", (*mask).scalar_type());
  STD_TORCH_CHECK(!mask.has_value() || ((*mask).device() == input.device()), "opgen::scaled_masked_softmax: expected 'mask' to be on the same device as 'input'");
  STD_TORCH_CHECK(!mask.has_value() || ((*mask).dim() == 4), "opgen::scaled_masked_softmax: expected 'mask' to have 4 dimensions, but got ", (*mask).dim());
  STD_TORCH_CHECK(input.dim() >= 1, "opgen::scaled_masked_softmax: requires input.dim() >= 1", ": ", input.dim(), " vs ", 1);
  STD_TORCH_CHECK(!mask.has_value() || input.dim() == 4, "opgen::scaled_masked_softmax: requires mask is None or input.dim() == 4");
  STD_TORCH_CHECK(!mask.has_value() || (mask->size(0) == 1 || mask->size(0) == input.size(0)), "opgen::scaled_masked_softmax: requires mask is None or (mask.size(0) == 1 or mask.size(0) == input.size(0))");
  STD_TORCH_CHECK(!mask.has_value() || (mask->size(1) == 1 || mask->size(1) == input.size(1)), "opgen::scaled_masked_softmax: requires mask is None or (mask.size(1) == 1 or mask.size(1) == input.size(1))");
  STD_TORCH_CHECK(!mask.has_value() || (mask->size(2) == input.size(2) && mask->size(3) == input.size(3)), "opgen::scaled_masked_softmax: requires mask is None or (mask.size(2) == input.size(2) and mask.size(3) == input.size(3))");
  stack[0] = torch::stable::detail::from(kernel(input, mask, scale));
}

void scaled_masked_softmax_cpu_boxed(StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  call_boxed(&opgen::kernels::scaled_masked_softmax_cpu, stack, num_args, num_outputs);
}

void scaled_masked_softmax_cuda_boxed(StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  call_boxed(&opgen::kernels::scaled_masked_softmax_cuda, stack, num_args, num_outputs);
}

}  // namespace

STABLE_TORCH_LIBRARY_FRAGMENT(opgen, m) {
  m.def("scaled_masked_softmax(Tensor input, Tensor? mask, float scale) -> Tensor output");
}

STABLE_TORCH_LIBRARY_IMPL(opgen, CPU, m) {
  m.impl("scaled_masked_softmax", &scaled_masked_softmax_cpu_boxed);
}

STABLE_TORCH_LIBRARY_IMPL(opgen, CUDA, m) {
  m.impl("scaled_masked_softmax", &scaled_masked_softmax_cuda_boxed);
}
