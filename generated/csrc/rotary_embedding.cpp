// @generated from schemas/rotary_embedding.yaml - DO NOT EDIT
//
// opgen::rotary_embedding on the LibTorch stable ABI (target: PyTorch 2.10).
#include "opgen/kernels/rotary_embedding.h"

#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/stableivalue_conversions.h>
#include <torch/headeronly/util/Exception.h>

namespace {

using Kernel = std::tuple<torch::stable::Tensor, torch::stable::Tensor> (*)(const torch::stable::Tensor&, const torch::stable::Tensor&, const torch::stable::Tensor&, const torch::stable::Tensor&);

// Unboxes the arguments in schema order, checks them, runs `kernel` and
// boxes its results.
void call_boxed(Kernel kernel, StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  STD_TORCH_CHECK(num_args == 4 && num_outputs == 2,
                  "opgen::rotary_embedding: expected 4 arguments and 2 outputs, got ", num_args, " and ",
                  num_outputs);
  auto q = torch::stable::detail::to<torch::stable::Tensor>(stack[0]);
  auto k = torch::stable::detail::to<torch::stable::Tensor>(stack[1]);
  auto cos = torch::stable::detail::to<torch::stable::Tensor>(stack[2]);
  auto sin = torch::stable::detail::to<torch::stable::Tensor>(stack[3]);
  STD_TORCH_CHECK(q.scalar_type() == torch::headeronly::ScalarType::Float || q.scalar_type() == torch::headeronly::ScalarType::Half || q.scalar_type() == torch::headeronly::ScalarType::BFloat16 || q.scalar_type() == torch::headeronly::ScalarType::Double, "opgen::rotary_embedding: expected 'q' to have dtype float32, float16, bfloat16 or float64, but got ", q.scalar_type());
  STD_TORCH_CHECK(k.scalar_type() == q.scalar_type(), "opgen::rotary_embedding: expected 'k' to have the same dtype as 'q', but got ", k.scalar_type(), " and ", q.scalar_type());
  STD_TORCH_CHECK(k.device() == q.device(), "opgen::rotary_embedding: expected 'k' to be on the same device as 'q'");
  STD_TORCH_CHECK(cos.device() == q.device(), "opgen::rotary_embedding: expected 'cos' to be on the same device as 'q'");
  STD_TORCH_CHECK(cos.dim() == 2, "opgen::rotary_embedding: expected 'cos' to have 2 dimensions, but got ", cos.dim());
  STD_TORCH_CHECK(sin.scalar_type() == cos.scalar_type(), "opgen::rotary_embedding: expected 'sin' to have the same dtype as 'cos', but got ", sin.scalar_type(), " and ", cos.scalar_type());
  STD_TORCH_CHECK(sin.device() == q.device(), "opgen::rotary_embedding: expected 'sin' to be on the same device as 'q'");
  STD_TORCH_CHECK(sin.dim() == 2, "opgen::rotary_embedding: expected 'sin' to have 2 dimensions, but got ", sin.dim());
  STD_TORCH_CHECK(q.dim() == 3 || q.dim() == 4, "opgen::rotary_embedding: requires q.dim() == 3 or q.dim() == 4");
  STD_TORCH_CHECK(k.dim() == q.dim(), "opgen::rotary_embedding: requires k.dim() == q.dim()", ": ", k.dim(), " vs ", q.dim());
  STD_TORCH_CHECK(q.dim() == 3 || k.size(0) == q.size(0), "opgen::rotary_embedding: requires q.dim() == 3 or k.size(0) == q.size(0)");
  STD_TORCH_CHECK(k.size(-3) == q.size(-3), "opgen::rotary_embedding: requires k.size(-3) == q.size(-3)", ": ", k.size(-3), " vs ", q.size(-3));
  STD_TORCH_CHECK(k.size(-1) == q.size(-1), "opgen::rotary_embedding: requires k.size(-1) == q.size(-1)", ": ", k.size(-1), " vs ", q.size(-1));
  STD_TORCH_CHECK(cos.size(0) == q.size(-3), "opgen::rotary_embedding: requires cos.size(0) == q.size(-3)", ": ", cos.size(0), " vs ", q.size(-3));
  STD_TORCH_CHECK(sin.size(0) == cos.size(0) && sin.size(1) == cos.size(1), "opgen::rotary_embedding: requires sin.size(0) == cos.size(0) and sin.size(1) == cos.size(1)");
  STD_TORCH_CHECK(2 * cos.size(1) <= q.size(-1), "opgen::rotary_embedding: requires 2 * cos.size(1) <= q.size(-1)", ": ", 2 * cos.size(1), " vs ", q.size(-1));
  STD_TORCH_CHECK(cos.scalar_type() == q.scalar_type() || (cos.scalar_type() == torch::headeronly::ScalarType::Float && q.scalar_type() != torch::headeronly::ScalarType::Double), "opgen::rotary_embedding: requires cos.dtype == q.dtype or (cos.dtype == float32 and q.dtype != float64)");
  auto [opgen_out0, opgen_out1] = kernel(q, k, cos, sin);
  stack[0] = torch::stable::detail::from(opgen_out0);
  stack[1] = torch::stable::detail::from(opgen_out1);
}

void rotary_embedding_cpu_boxed(StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  call_boxed(&opgen::kernels::rotary_embedding_cpu, stack, num_args, num_outputs);
}

void rotary_embedding_cuda_boxed(StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  call_boxed(&opgen::kernels::rotary_embedding_cuda, stack, num_args, num_outputs);
}

}  // namespace

STABLE_TORCH_LIBRARY_FRAGMENT(opgen, m) {
  m.def("rotary_embedding(Tensor q, Tensor k, Tensor cos, Tensor sin) -> (Tensor, Tensor)");
}

STABLE_TORCH_LIBRARY_IMPL(opgen, CPU, m) {
  m.impl("rotary_embedding", &rotary_embedding_cpu_boxed);
}

STABLE_TORCH_LIBRARY_IMPL(opgen, CUDA, m) {
  m.impl("rotary_embedding", &rotary_embedding_cuda_boxed);
}
