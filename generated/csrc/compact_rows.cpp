// @generated from schemas/compact_rows.yaml - DO NOT EDIT
//
// opgen::compact_rows on the LibTorch stable ABI (target: PyTorch 2.10).
#include "opgen/kernels/compact_rows.h"

#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/stableivalue_conversions.h>
#include <torch/headeronly/util/Exception.h>

namespace {

using Kernel = torch::stable::Tensor (*)(const torch::stable::Tensor&, const torch::stable::Tensor&);

// Unboxes the arguments in schema order, checks them, runs `kernel` and
// boxes its results.
void call_boxed(Kernel kernel, StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  STD_TORCH_CHECK(num_args == 2 && num_outputs == 1,
                  "opgen::compact_rows: expected 2 arguments and 1 outputs, got ", num_args, " and ",
                  num_outputs);
  auto input = torch::stable::detail::to<torch::stable::Tensor>(stack[0]);
  auto mask = torch::stable::detail::to<torch::stable::Tensor>(stack[1]);
  STD_TORCH_CHECK(mask.scalar_type() == torch::headeronly::ScalarType::Bool, "opgen::compact_rows: expected 'mask' to have dtype bool, but got ", mask.scalar_type());
  STD_TORCH_CHECK(mask.device() == input.device(), "opgen::compact_rows: expected 'mask' to be on the same device as 'input'");
  STD_TORCH_CHECK(mask.dim() == 1, "opgen::compact_rows: expected 'mask' to have 1 dimension, but got ", mask.dim());
  STD_TORCH_CHECK(input.dim() >= 1, "opgen::compact_rows: requires input.dim() >= 1", ": ", input.dim(), " vs ", 1);
  STD_TORCH_CHECK(mask.size(0) == input.size(0), "opgen::compact_rows: requires mask.size(0) == input.size(0)", ": ", mask.size(0), " vs ", input.size(0));
  stack[0] = torch::stable::detail::from(kernel(input, mask));
}

void compact_rows_cpu_boxed(StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  call_boxed(&opgen::kernels::compact_rows_cpu, stack, num_args, num_outputs);
}

void compact_rows_cuda_boxed(StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  call_boxed(&opgen::kernels::compact_rows_cuda, stack, num_args, num_outputs);
}

}  // namespace

STABLE_TORCH_LIBRARY_FRAGMENT(opgen, m) {
  m.def("compact_rows(Tensor input, Tensor mask) -> Tensor");
}

STABLE_TORCH_LIBRARY_IMPL(opgen, CPU, m) {
  m.impl("compact_rows", &compact_rows_cpu_boxed);
}

STABLE_TORCH_LIBRARY_IMPL(opgen, CUDA, m) {
  m.impl("compact_rows", &compact_rows_cuda_boxed);
}
