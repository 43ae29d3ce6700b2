// @generated from specs/scale_rows_backward.yaml - DO NOT EDIT
//
// testns::scale_rows_backward on the LibTorch stable ABI (target: PyTorch 2.10).
#include "testns/kernels/scale_rows_backward.h"

#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/stableivalue_conversions.h>
#include <torch/headeronly/util/Exception.h>

namespace {

using Kernel = torch::stable::Tensor (*)(const torch::stable::Tensor&, const torch::stable::Tensor&, const std::optional<torch::stable::Tensor>&, double);

// Unboxes the arguments in schema order, checks them, runs `kernel` and
// boxes its results.
void call_boxed(Kernel kernel, StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  STD_TORCH_CHECK(num_args == 4 && num_outputs == 1,
                  "testns::scale_rows_backward: expected 4 arguments and 1 outputs, got ", num_args, " and ",
                  num_outputs);
  auto grad_0 = torch::stable::detail::to<torch::stable::Tensor>(stack[0]);
  auto x = torch::stable::detail::to<torch::stable::Tensor>(stack[1]);
  auto row_scale = torch::stable::detail::to<std::optional<torch::stable::Tensor>>(stack[2]);
  auto alpha = torch::stable::detail::to<double>(stack[3]);
  stack[0] = torch::stable::detail::from(kernel(grad_0, x, row_scale, alpha));
}

void scale_rows_backward_cpu_boxed(StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  call_boxed(&testns::kernels::scale_rows_backward_cpu, stack, num_args, num_outputs);
}

}  // namespace

STABLE_TORCH_LIBRARY_FRAGMENT(testns, m) {
  m.def("scale_rows_backward(Tensor grad_0, Tensor x, Tensor? row_scale, float alpha) -> Tensor");
}

STABLE_TORCH_LIBRARY_IMPL(testns, CPU, m) {
  m.impl("scale_rows_backward", &scale_rows_backward_cpu_boxed);
}
