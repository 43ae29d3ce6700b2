// @generated from schemas/softmax_cross_entropy.yaml - DO NOT EDIT
//
// opgen::softmax_cross_entropy on the LibTorch stable ABI (target: PyTorch 2.10).
#include "opgen/kernels/softmax_cross_entropy.h"

#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/stableivalue_conversions.h>
#include <torch/headeronly/util/Exception.h>

namespace {

using Kernel = std::tuple<torch::stable::Tensor, torch::stable::Tensor> (*)(const torch::stable::Tensor&, const torch::stable::Tensor&, double, int64_t);

// Unboxes the arguments in schema order, checks them, runs `kernel` and
// boxes its results.
void call_boxed(Kernel kernel, StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  STD_TORCH_CHECK(num_args == 4 && num_outputs == 2,
                  "opgen::softmax_cross_entropy: expected 4 arguments and 2 outputs, got ", num_args, " and ",
                  num_outputs);
  auto logits = torch::stable::detail::to<torch::stable::Tensor>(stack[0]);
  auto labels = torch::stable::detail::to<torch::stable::Tensor>(stack[1]);
  auto smoothing = torch::stable::detail::to<double>(stack[2]);
  auto ignore_index = torch::stable::detail::to<int64_t>(stack[3]);
  STD_TORCH_CHECK(logits.scalar_type() == torch::headeronly::ScalarType::Float || logits.scalar_type() == torch::headeronly::ScalarType::Half || logits.scalar_type() == torch::headeronly::ScalarType::BFloat16 || logits.scalar_type() == torch::headeronly::ScalarType::Double, "opgen::softmax_cross_entropy: expected 'logits' to have dtype float32, float16, bfloat16 or float64, but got ", logits.scalar_type());
  STD_TORCH_CHECK(logits.dim() == 2, "opgen::softmax_cross_entropy: expected 'logits' to have 2 dimensions, but got ", logits.dim());
  STD_TORCH_CHECK(labels.scalar_type() == torch::headeronly::ScalarType::Long, "opgen::softmax_cross_entropy: expected 'labels' to have dtype int64, but got ", labels.scalar_type());
  STD_TORCH_CHECK(labels.device() == logits.device(), "opgen::softmax_cross_entropy: expected 'labels' to be on the same device as 'logits'");
  STD_TORCH_CHECK(labels.dim() == 1, "opgen::softmax_cross_entropy: expected 'labels' to have 1 dimension, but got ", labels.dim());
  STD_TORCH_CHECK(labels.size(0) == logits.size(0), "opgen::softmax_cross_entropy: requires labels.size(0) == logits.size(0)", ": ", labels.size(0), " vs ", logits.size(0));
  STD_TORCH_CHECK(logits.size(1) >= 1, "opgen::softmax_cross_entropy: requires logits.size(1) >= 1", ": ", logits.size(1), " vs ", 1);
  STD_TORCH_CHECK(smoothing >= 0.0 && smoothing <= 1.0, "opgen::softmax_cross_entropy: requires smoothing >= 0.0 and smoothing <= 1.0");
  auto [opgen_out0, opgen_out1] = kernel(logits, labels, smoothing, ignore_index);
  stack[0] = torch::stable::detail::from(opgen_out0);
  stack[1] = torch::stable::detail::from(opgen_out1);
}

void softmax_cross_entropy_cpu_boxed(StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  call_boxed(&opgen::kernels::softmax_cross_entropy_cpu, stack, num_args, num_outputs);
}

void softmax_cross_entropy_cuda_boxed(StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  call_boxed(&opgen::kernels::softmax_cross_entropy_cuda, stack, num_args, num_outputs);
}

}  // namespace

STABLE_TORCH_LIBRARY_FRAGMENT(opgen, m) {
  m.def("softmax_cross_entropy(Tensor logits, Tensor labels, float smoothing=0., int ignore_index=-100) -> (Tensor losses, Tensor max_log_sum_exp)");
}

STABLE_TORCH_LIBRARY_IMPL(opgen, CPU, m) {
  m.impl("softmax_cross_entropy", &softmax_cross_entropy_cpu_boxed);
}

STABLE_TORCH_LIBRARY_IMPL(opgen, CUDA, m) {
  m.impl("softmax_cross_entropy", &softmax_cross_entropy_cuda_boxed);
}
