// @generated from specs/scale_rows.yaml - DO NOT EDIT
//
// testns::scale_rows on the LibTorch stable ABI (target: PyTorch 2.10).
#include "testns/kernels/scale_rows.h"

#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/stableivalue_conversions.h>
#include <torch/headeronly/util/Exception.h>

namespace {

using Kernel = std::tuple<torch::stable::Tensor, torch::stable::Tensor> (*)(const torch::stable::Tensor&, const std::optional<torch::stable::Tensor>&, const std::vector<torch::stable::Tensor>&, double, std::optional<torch::headeronly::ScalarType>);

// Unboxes the arguments in schema order, checks them, runs `kernel` and
// boxes its results.
void call_boxed(Kernel kernel, StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  STD_TORCH_CHECK(num_args == 5 && num_outputs == 2,
                  "testns::scale_rows: expected 5 arguments and 2 outputs, got ", num_args, " and ",
                  num_outputs);
  auto x = torch::stable::detail::to<torch::stable::Tensor>(stack[0]);
  auto row_scale = torch::stable::detail::to<std::optional<torch::stable::Tensor>>(stack[1]);
  auto extras = torch::stable::detail::to<std::vector<torch::stable::Tensor>>(stack[2]);
  auto alpha = torch::stable::detail::to<double>(stack[3]);
  auto out_dtype = torch::stable::detail::to<std::optional<torch::headeronly::ScalarType>>(stack[4]);
  STD_TORCH_CHECK(x.scalar_type() == torch::headeronly::ScalarType::Float || x.scalar_type() == torch::headeronly::ScalarType::BFloat16, "testns::scale_rows: expected 'x' to have dtype float32 or bfloat16, but got ", x.scalar_type());
  STD_TORCH_CHECK(x.is_contiguous(), "testns::scale_rows: expected 'x' to be contiguous");
  STD_TORCH_CHECK(!row_scale.has_value() || ((*row_scale).device() == x.device()), "testns::scale_rows: expected 'row_scale' to be on the same device as 'x'");
  STD_TORCH_CHECK(!row_scale.has_value() || ((*row_scale).dim() == 1), "testns::scale_rows: expected 'row_scale' to have 1 dimension, but got ", (*row_scale).dim());
  for (size_t opgen_i = 0; opgen_i < extras.size(); ++opgen_i) {
    const auto& opgen_t = extras[opgen_i];
    STD_TORCH_CHECK(opgen_t.scalar_type() == x.scalar_type(), "testns::scale_rows: expected 'extras[", opgen_i, "]' to have the same dtype as 'x', but got ", opgen_t.scalar_type(), " and ", x.scalar_type());
  }
  for (size_t opgen_i = 0; opgen_i < extras.size(); ++opgen_i) {
    const auto& opgen_t = extras[opgen_i];
    STD_TORCH_CHECK(opgen_t.device() == extras[0].device(), "testns::scale_rows: expected 'extras[", opgen_i, "]' to be on the same device as 'extras[0]'");
  }
  for (size_t opgen_i = 0; opgen_i < extras.size(); ++opgen_i) {
    const auto& opgen_t = extras[opgen_i];
    STD_TORCH_CHECK(opgen_t.is_contiguous(), "testns::scale_rows: expected 'extras[", opgen_i, "]' to be contiguous");
  }
  STD_TORCH_CHECK(x.dim() == 2, "testns::scale_rows: requires x.dim() == 2", ": ", x.dim(), " vs ", 2);
  auto [opgen_out0, opgen_out1] = kernel(x, row_scale, extras, alpha, out_dtype);
  stack[0] = torch::stable::detail::from(opgen_out0);
  stack[1] = torch::stable::detail::from(opgen_out1);
}

void scale_rows_cpu_boxed(StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  call_boxed(&testns::kernels::scale_rows_cpu, stack, num_args, num_outputs);
}

void scale_rows_cuda_boxed(StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  call_boxed(&testns::kernels::scale_rows_cuda, stack, num_args, num_outputs);
}

}  // namespace

STABLE_TORCH_LIBRARY_FRAGMENT(testns, m) {
  m.def("scale_rows(Tensor x, Tensor? row_scale, Tensor[] extras, float alpha=1., ScalarType? out_dtype=None) -> (Tensor, Tensor)");
}

STABLE_TORCH_LIBRARY_IMPL(testns, CPU, m) {
  m.impl("scale_rows", &scale_rows_cpu_boxed);
}

STABLE_TORCH_LIBRARY_IMPL(testns, CUDA, m) {
  m.impl("scale_rows", &scale_rows_cuda_boxed);
}
