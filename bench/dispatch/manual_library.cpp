// (d) The baseline: the same ops registered by hand with TORCH_LIBRARY, as a
// kernel author writes them without opgen.
#include <ATen/ops/empty_like.h>
#include <ATen/ops/empty_strided.h>
#include <torch/library.h>

namespace {

at::Tensor empty_like_cpu(const at::Tensor& x) { return at::empty_like(x); }

at::Tensor empty_strided_cpu(const at::Tensor& x) { return at::empty_strided(x.sizes(), x.strides(), x.options()); }

void noop_cpu(const at::Tensor&) {}

}  // namespace

TORCH_LIBRARY(bench_manual, m) {
  m.def("empty_like(Tensor x) -> Tensor");
  m.def("empty_strided(Tensor x) -> Tensor");
  m.def("noop(Tensor x) -> ()");
}

TORCH_LIBRARY_IMPL(bench_manual, CPU, m) {
  m.impl("empty_like", TORCH_FN(empty_like_cpu));
  m.impl("empty_strided", TORCH_FN(empty_strided_cpu));
  m.impl("noop", TORCH_FN(noop_cpu));
}
