// @generated from schemas/softmax_cross_entropy_backward.yaml - DO NOT EDIT
//
// opgen::softmax_cross_entropy_backward on the LibTorch stable ABI (target: PyTorch 2.10).
#include "opgen/kernels/softmax_cross_entropy_backward.h"

#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/stableivalue_conversions.h>
#include <torch/headeronly/util/Exception.h>

namespace {

using Kernel = torch::stable::Tensor (*)(const torch::stable::Tensor&, const torch::stable::Tensor&, const torch::stable::Tensor&, const torch::stable::Tensor&, double, int64_t);

// Unboxes the arguments in schema order, checks them, runs `kernel` and
// boxes its results.
void call_boxed(Kernel kernel, StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  STD_TORCH_CHECK(num_args == 6 && num_outputs == 1,
                  "opgen::softmax_cross_entropy_backward: expected 6 arguments and 1 outputs, got ", num_args, " and ",
                  num_outputs);
  auto grad_losses = torch::stable::detail::to<torch::stable::Tensor>(stack[0]);
  auto logits = torch::stable::detail::to<torch::stable::Tensor>(stack[1]);
  auto max_log_sum_exp = torch::stable::detail::to<torch::stable::Tensor>(stack[2]);
  auto labels = torch::stable::detail::to<torch::stable::Tensor>(stack[3]);
  auto smoothing = torch::stable::detail::to<double>(stack[4]);
  auto ignore_index = torch::stable::detail::to<int64_t>(stack[5]);
  STD_TORCH_CHECK(grad_losses.scalar_type() == logits.scalar_type(), "opgen::softmax_cross_entropy_backward: expected 'grad_losses' to have the same dtype as 'logits', but got ", grad_losses.scalar_type(), " and ", logits.scalar_type());
  STD_TORCH_CHECK(grad_losses.device() == logits.device(), "opgen::softmax_cross_entropy_backward: expected 'grad_losses' to be on the same device as 'logits'");
  STD_TORCH_CHECK(grad_losses.dim() == 1, "opgen::softmax_cross_entropy_backward: expected 'grad_losses' to have 1 dimension, but got ", grad_losses.dim());
  STD_TORCH_CHECK(logits.scalar_type() == torch::headeronly::ScalarType::Float || logits.scalar_type() == torch::headeronly::ScalarType::Half || logits.scalar_type() == torch::headeronly::ScalarType::BFloat16 || logits.scalar_type() == torch::headeronly::ScalarType::Double, "opgen::softmax_cross_entropy_backward: expected 'logits' to have dtype float32, float16, bfloat16 or float64, but got ", logits.scalar_type());
  STD_TORCH_CHECK(logits.dim() == 2, "opgen::softmax_cross_entropy_backward: expected 'logits' to have 2 dimensions, but got ", logits.dim());
  STD_TORCH_CHECK(max_log_sum_exp.device() == logits.device(), "opgen::softmax_cross_entropy_backward: expected 'max_log_sum_exp' to be on the same device as 'logits'");
  STD_TORCH_CHECK(max_log_sum_exp.dim() == 1, "opgen::softmax_cross_entropy_backward: expected 'max_log_sum_exp' to have 1 dimension, but got ", max_log_sum_exp.dim());
  STD_TORCH_CHECK(labels.scalar_type() == torch::headeronly::ScalarType::Long, "opgen::softmax_cross_entropy_backward: expected 'labels' to have dtype int64, but got ", labels.scalar_type());
  STD_TORCH_CHECK(labels.device() == logits.device(), "opgen::softmax_cross_entropy_backward: expected 'labels' to be on the same device as 'logits'");
  STD_TORCH_CHECK(labels.dim() == 1, "opgen::softmax_cross_entropy_backward: expected 'labels' to have 1 dimension, but got ", labels.dim());
  STD_TORCH_CHECK(grad_losses.size(0) == logits.size(0), "opgen::softmax_cross_entropy_backward: requires grad_losses.size(0) == logits.size(0)", ": ", grad_losses.size(0), " vs ", logits.size(0));
  STD_TORCH_CHECK(max_log_sum_exp.size(0) == logits.size(0), "opgen::softmax_cross_entropy_backward: requires max_log_sum_exp.size(0) == logits.size(0)", ": ", max_log_sum_exp.size(0), " vs ", logits.size(0));
  STD_TORCH_CHECK(labels.size(0) == logits.size(0), "opgen::softmax_cross_entropy_backward: requires labels.size(0) == logits.size(0)", ": ", labels.size(0), " vs ", logits.size(0));
  STD_TORCH_CHECK(max_log_sum_exp.scalar_type() == (logits.scalar_type() == torch::headeronly::ScalarType::Double ? torch::headeronly::ScalarType::Double : torch::headeronly::ScalarType::Float), "opgen::softmax_cross_entropy_backward: requires max_log_sum_exp.dtype == (float64 if logits.dtype == float64 else float32)");
  stack[0] = torch::stable::detail::from(kernel(grad_losses, logits, max_log_sum_exp, labels, smoothing, ignore_index));
}

void softmax_cross_entropy_backward_cpu_boxed(StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  call_boxed(&opgen::kernels::softmax_cross_entropy_backward_cpu, stack, num_args, num_outputs);
}

void softmax_cross_entropy_backward_cuda_boxed(StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  call_boxed(&opgen::kernels::softmax_cross_entropy_backward_cuda, stack, num_args, num_outputs);
}

}  // namespace

STABLE_TORCH_LIBRARY_FRAGMENT(opgen, m) {
  m.def("softmax_cross_entropy_backward(Tensor grad_losses, Tensor logits, Tensor max_log_sum_exp, Tensor labels, float smoothing, int ignore_index) -> Tensor");
}

STABLE_TORCH_LIBRARY_IMPL(opgen, CPU, m) {
  m.impl("softmax_cross_entropy_backward", &softmax_cross_entropy_backward_cpu_boxed);
}

STABLE_TORCH_LIBRARY_IMPL(opgen, CUDA, m) {
  m.impl("softmax_cross_entropy_backward", &softmax_cross_entropy_backward_cuda_boxed);
}
