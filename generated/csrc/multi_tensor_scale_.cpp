// @generated from schemas/multi_tensor_scale_.yaml - DO NOT EDIT
//
// opgen::multi_tensor_scale_ on the LibTorch stable ABI (target: PyTorch 2.10).
#include "opgen/kernels/multi_tensor_scale_.h"

#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/stableivalue_conversions.h>
#include <torch/headeronly/util/Exception.h>

namespace {

using Kernel = void (*)(const std::vector<torch::stable::Tensor>&, double);

// Unboxes the arguments in schema order, checks them, runs `kernel` and
// boxes its results.
void call_boxed(Kernel kernel, StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  STD_TORCH_CHECK(num_args == 2 && num_outputs == 0,
                  "opgen::multi_tensor_scale_: expected 2 arguments and 0 outputs, got ", num_args, " and ",
                  num_outputs);
  auto tensors = torch::stable::detail::to<std::vector<torch::stable::Tensor>>(stack[0]);
  auto scale = torch::stable::detail::to<double>(stack[1]);
  for (size_t opgen_i = 0; opgen_i < tensors.size(); ++opgen_i) {
    const auto& opgen_t = tensors[opgen_i];
    STD_TORCH_CHECK(opgen_t.scalar_type() == torch::headeronly::ScalarType::Float || opgen_t.scalar_type() == torch::headeronly::ScalarType::Half || opgen_t.scalar_type() == torch::headeronly::ScalarType::BFloat16 || opgen_t.scalar_type() == torch::headeronly::ScalarType::Double, "opgen::multi_tensor_scale_: expected 'tensors[", opgen_i, "]' to have dtype float32, float16, bfloat16 or float64, but got ", opgen_t.scalar_type());
  }
  for (size_t opgen_i = 0; opgen_i < tensors.size(); ++opgen_i) {
    const auto& opgen_t = tensors[opgen_i];
    STD_TORCH_CHECK(opgen_t.device() == tensors[0].device(), "opgen::multi_tensor_scale_: expected 'tensors[", opgen_i, "]' to be on the same device as 'tensors[0]'");
  }
  kernel(tensors, scale);
}

void multi_tensor_scale__cpu_boxed(StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  call_boxed(&opgen::kernels::multi_tensor_scale__cpu, stack, num_args, num_outputs);
}

void multi_tensor_scale__cuda_boxed(StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  call_boxed(&opgen::kernels::multi_tensor_scale__cuda, stack, num_args, num_outputs);
}

}  // namespace

STABLE_TORCH_LIBRARY_FRAGMENT(opgen, m) {
  m.def("multi_tensor_scale_(Tensor(a!)[] tensors, float scale) -> ()");
}

STABLE_TORCH_LIBRARY_IMPL(opgen, CPU, m) {
  m.impl("multi_tensor_scale_", &multi_tensor_scale__cpu_boxed);
}

STABLE_TORCH_LIBRARY_IMPL(opgen, CUDA, m) {
  m.impl("multi_tensor_scale_", &multi_tensor_scale__cuda_boxed);
}
