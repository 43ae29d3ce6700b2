// @generated from schemas/rotary_embedding_backward.yaml - DO NOT EDIT
//
// opgen::rotary_embedding_backward on the LibTorch stable ABI (target: PyTorch 2.10).
#include "opgen/kernels/rotary_embedding_backward.h"

#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/stableivalue_conversions.h>
#include <torch/headeronly/util/Exception.h>

namespace {

using Kernel = std::tuple<torch::stable::Tensor, torch::stable::Tensor> (*)(const torch::stable::Tensor&, const torch::stable::Tensor&, const torch::stable::Tensor&, const torch::stable::Tensor&);

// Unboxes the arguments in schema order, checks them, runs `kernel` and
// boxes its results.
void call_boxed(Kernel kernel, StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  STD_TORCH_CHECK(num_args == 4 && num_outputs == 2,
                  "opgen::rotary_embedding_backward: expected 4 arguments and 2 outputs, got ", num_args, " and ",
                  num_outputs);
  auto grad_0 = torch::stable::detail::to<torch::stable::Tensor>(stack[0]);
  auto grad_1 = torch::stable::detail::to<torch::stable::Tensor>(stack[1]);
  auto cos = torch::stable::detail::to<torch::stable::Tensor>(stack[2]);
  auto sin = torch::stable::detail::to<torch::stable::Tensor>(stack[3]);
  STD_TORCH_CHECK(grad_0.scalar_type() == torch::headeronly::ScalarType::Float || grad_0.scalar_type() == torch::headeronly::ScalarType::Half || grad_0.scalar_type() == torch::headeronly::ScalarType::BFloat16 || grad_0.scalar_type() == torch::headeronly::ScalarType::Double, "opgen::rotary_embedding_backward: expected 'grad_0' to have dtype float32, float16, bfloat16 or float64, but got ", grad_0.scalar_type());
  STD_TORCH_CHECK(grad_1.scalar_type() == grad_0.scalar_type(), "opgen::rotary_embedding_backward: expected 'grad_1' to have the same dtype as 'grad_0', but got ", grad_1.scalar_type(), " and ", grad_0.scalar_type());
  STD_TORCH_CHECK(grad_1.device() == grad_0.device(), "opgen::rotary_embedding_backward: expected 'grad_1' to be on the same device as 'grad_0'");
  STD_TORCH_CHECK(cos.device() == grad_0.device(), "opgen::rotary_embedding_backward: expected 'cos' to be on the same device as 'grad_0'");
  STD_TORCH_CHECK(cos.dim() == 2, "opgen::rotary_embedding_backward: expected 'cos' to have 2 dimensions, but got ", cos.dim());
  STD_TORCH_CHECK(sin.scalar_type() == cos.scalar_type(), "opgen::rotary_embedding_backward: expected 'sin' to have the same dtype as 'cos', but got ", sin.scalar_type(), " and ", cos.scalar_type());
  STD_TORCH_CHECK(sin.device() == grad_0.device(), "opgen::rotary_embedding_backward: expected 'sin' to be on the same device as 'grad_0'");
  STD_TORCH_CHECK(sin.dim() == 2, "opgen::rotary_embedding_backward: expected 'sin' to have 2 dimensions, but got ", sin.dim());
  STD_TORCH_CHECK(grad_0.dim() == 3 || grad_0.dim() == 4, "opgen::rotary_embedding_backward: requires grad_0.dim() == 3 or grad_0.dim() == 4");
  STD_TORCH_CHECK(grad_1.dim() == grad_0.dim(), "opgen::rotary_embedding_backward: requires grad_1.dim() == grad_0.dim()", ": ", grad_1.dim(), " vs ", grad_0.dim());
  STD_TORCH_CHECK(grad_0.dim() == 3 || grad_1.size(0) == grad_0.size(0), "opgen::rotary_embedding_backward: requires grad_0.dim() == 3 or grad_1.size(0) == grad_0.size(0)");
  STD_TORCH_CHECK(grad_1.size(-3) == grad_0.size(-3), "opgen::rotary_embedding_backward: requires grad_1.size(-3) == grad_0.size(-3)", ": ", grad_1.size(-3), " vs ", grad_0.size(-3));
  STD_TORCH_CHECK(grad_1.size(-1) == grad_0.size(-1), "opgen::rotary_embedding_backward: requires grad_1.size(-1) == grad_0.size(-1)", ": ", grad_1.size(-1), " vs ", grad_0.size(-1));
  STD_TORCH_CHECK(cos.size(0) == grad_0.size(-3), "opgen::rotary_embedding_backward: requires cos.size(0) == grad_0.size(-3)", ": ", cos.size(0), " vs ", grad_0.size(-3));
  STD_TORCH_CHECK(sin.size(0) == cos.size(0) && sin.size(1) == cos.size(1), "opgen::rotary_embedding_backward: requires sin.size(0) == cos.size(0) and sin.size(1) == cos.size(1)");
  STD_TORCH_CHECK(2 * cos.size(1) <= grad_0.size(-1), "opgen::rotary_embedding_backward: requires 2 * cos.size(1) <= grad_0.size(-1)", ": ", 2 * cos.size(1), " vs ", grad_0.size(-1));
  STD_TORCH_CHECK(cos.scalar_type() == grad_0.scalar_type() || (cos.scalar_type() == torch::headeronly::ScalarType::Float && grad_0.scalar_type() != torch::headeronly::ScalarType::Double), "opgen::rotary_embedding_backward: requires cos.dtype == grad_0.dtype or (cos.dtype == float32 and grad_0.dtype != float64)");
  auto [opgen_out0, opgen_out1] = kernel(grad_0, grad_1, cos, sin);
  stack[0] = torch::stable::detail::from(opgen_out0);
  stack[1] = torch::stable::detail::from(opgen_out1);
}

void rotary_embedding_backward_cpu_boxed(StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  call_boxed(&opgen::kernels::rotary_embedding_backward_cpu, stack, num_args, num_outputs);
}

void rotary_embedding_backward_cuda_boxed(StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  call_boxed(&opgen::kernels::rotary_embedding_backward_cuda, stack, num_args, num_outputs);
}

}  // namespace

STABLE_TORCH_LIBRARY_FRAGMENT(opgen, m) {
  m.def("rotary_embedding_backward(Tensor grad_0, Tensor grad_1, Tensor cos, Tensor sin) -> (Tensor, Tensor)");
}

STABLE_TORCH_LIBRARY_IMPL(opgen, CPU, m) {
  m.impl("rotary_embedding_backward", &rotary_embedding_backward_cpu_boxed);
}

STABLE_TORCH_LIBRARY_IMPL(opgen, CUDA, m) {
  m.impl("rotary_embedding_backward", &rotary_embedding_backward_cuda_boxed);
}
