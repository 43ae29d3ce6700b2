// @generated from schemas/scaled_masked_softmax_backward.yaml - DO NOT EDIT
//
// opgen::scaled_masked_softmax_backward on the LibTorch stable ABI (target: PyTorch 2.10).
#include "opgen/kernels/scaled_masked_softmax_backward.h"

#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/stableivalue_conversions.h>
#include <torch/headeronly/util/Exception.h>

namespace {

using Kernel = torch::stable::Tensor (*)(const torch::stable::Tensor&, const torch::stable::Tensor&, const std::optional<torch::stable::Tensor>&, double);

// Unboxes the arguments in schema order, checks them, runs `kernel` and
// boxes its results.
void call_boxed(Kernel kernel, StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  STD_TORCH_CHECK(num_args == 4 && num_outputs == 1,
                  "opgen::scaled_masked_softmax_backward: expected 4 arguments and 1 outputs, got ", num_args, " and ",
                  num_outputs);
  auto grad = torch::stable::detail::to<torch::stable::Tensor>(stack[0]);
  auto output = torch::stable::detail::to<torch::stable::Tensor>(stack[1]);
  auto mask = torch::stable::detail::to<std::optional<torch::stable::Tensor>>(stack[2]);
  auto scale = torch::stable::detail::to<double>(stack[3]);
  STD_TORCH_CHECK(grad.scalar_type() == output.scalar_type(), "opgen::scaled_masked_softmax_backward: expected 'grad' to have the same dtype as 'output', but got ", grad.scalar_type(), " and ", output.scalar_type());
  STD_TORCH_CHECK(grad.device() == output.device(), "opgen::scaled_masked_softmax_backward: expected 'grad' to be on the same device as 'output'");
  STD_TORCH_CHECK(output.scalar_type() == torch::headeronly::ScalarType::Float || output.scalar_type() == torch::headeronly::ScalarType::Half || output.scalar_type() == torch::headeronly::ScalarType::BFloat16 || output.scalar_type() == torch::headeronly::ScalarType::Double, "opgen::scaled_masked_softmax_backward: expected 'output' to have dtype float32, float16, bfloat16 or float64, but got ", output.scalar_type());
  STD_TORCH_CHECK(!mask.has_value() || ((*mask).scalar_type() == torch::headeronly::ScalarType::Bool || (*mask).scalar_type() == torch::headeronly::ScalarType::Byte), "opgen::scaled_masked_softmax_backward: expected 'mask' to have dtype bool or uint8, but got ", (*mask).scalar_type());
  STD_TORCH_CHECK(!mask.has_value() || ((*mask).device() == output.device()), "opgen::scaled_masked_softmax_backward: expected 'mask' to be on the same device as 'output'");
  STD_TORCH_CHECK(!mask.has_value() || ((*mask).dim() == 4), "opgen::scaled_masked_softmax_backward: expected 'mask' to have 4 dimensions, but got ", (*mask).dim());
  STD_TORCH_CHECK(output.dim() >= 1, "opgen::scaled_masked_softmax_backward: requires output.dim() >= 1", ": ", output.dim(), " vs ", 1);
  STD_TORCH_CHECK(grad.dim() == output.dim(), "opgen::scaled_masked_softmax_backward: requires grad.dim() == output.dim()", ": ", grad.dim(), " vs ", output.dim());
  STD_TORCH_CHECK(!mask.has_value() || output.dim() == 4, "opgen::scaled_masked_softmax_backward: requires mask is None or output.dim() == 4");
  STD_TORCH_CHECK(!mask.has_value() || (mask->size(0) == 1 || mask->size(0) == output.size(0)), "opgen::scaled_masked_softmax_backward: requires mask is None or (mask.size(0) == 1 or mask.size(0) == output.size(0))");
  STD_TORCH_CHECK(!mask.has_value() || (mask->size(1) == 1 || mask->size(1) == output.size(1)), "opgen::scaled_masked_softmax_backward: requires mask is None or (mask.size(1) == 1 or mask.size(1) == output.size(1))");
  STD_TORCH_CHECK(!mask.has_value() || (mask->size(2) == output.size(2) && mask->size(3) == output.size(3)), "opgen::scaled_masked_softmax_backward: requires mask is None or (mask.size(2) == output.size(2) and mask.size(3) == output.size(3))");
  stack[0] = torch::stable::detail::from(kernel(grad, output, mask, scale));
}

void scaled_masked_softmax_backward_cpu_boxed(StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  call_boxed(&opgen::kernels::scaled_masked_softmax_backward_cpu, stack, num_args, num_outputs);
}

void scaled_masked_softmax_backward_cuda_boxed(StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  call_boxed(&opgen::kernels::scaled_masked_softmax_backward_cuda, stack, num_args, num_outputs);
}

}  // namespace

STABLE_TORCH_LIBRARY_FRAGMENT(opgen, m) {
  m.def("scaled_masked_softmax_backward(Tensor grad, Tensor output, Tensor? mask, float scale) -> Tensor");
}

STABLE_TORCH_LIBRARY_IMPL(opgen, CPU, m) {
  m.impl("scaled_masked_softmax_backward", &scaled_masked_softmax_backward_cpu_boxed);
}

STABLE_TORCH_LIBRARY_IMPL(opgen, CUDA, m) {
  m.impl("scaled_masked_softmax_backward", &scaled_masked_softmax_backward_cuda_boxed);
}
