// (f) The floor: plain pybind11 functions, no dispatcher at all. torch's own
// caster turns the Python tensor into an at::Tensor.
#include <ATen/ops/empty_like.h>
#include <ATen/ops/empty_strided.h>
#include <pybind11/pybind11.h>
#include <torch/csrc/utils/pybind.h>

PYBIND11_MODULE(bench_pybind, m) {
  m.def("empty_like", [](const at::Tensor& x) { return at::empty_like(x); });
  m.def("empty_strided", [](const at::Tensor& x) { return at::empty_strided(x.sizes(), x.strides(), x.options()); });
  m.def("noop", [](const at::Tensor&) {});
}
