#include <torch/library.h>
#include "ops.h"
namespace p {
namespace {
at::Tensor k(const at::Tensor& x) { return x; }
const bool probe = declared(at::Tensor()).defined();
}  // namespace
static at::Tensor s(const at::Tensor& x) { return x; }
at::Tensor local(const at::Tensor& x) { return x; }
TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def(TORCH_SELECTIVE_SCHEMA("_C::anon(Tensor x) -> Tensor"));
  ops.def("stat(Tensor x) -> Tensor", &s);
  ops.def("local(Tensor x) -> Tensor");
}
TORCH_LIBRARY_EXPAND(CONCAT(TORCH_EXTENSION_NAME, _cache_ops), cache_ops) {
  cache_ops.def("copy(Tensor x) -> Tensor");
  cache_ops.impl("copy", torch::kCPU, &local);
}
TORCH_LIBRARY_IMPL(_C, CPU, m) {
  m.impl(TORCH_SELECTIVE_NAME("_C::anon"), TORCH_FN(k));
  m.impl("local", &local);
}
TORCH_LIBRARY_IMPL(_C, Autograd, m) { m.impl("anon", &k); }
}  // namespace p
REGISTER_EXTENSION(TORCH_EXTENSION_NAME)
