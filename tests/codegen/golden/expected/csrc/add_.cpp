// @generated from specs/add_.yaml - DO NOT EDIT
//
// testns::add_ through torch/library.h (unstable ABI).
#include "testns/kernels/add_.h"

#include <torch/library.h>

namespace {

at::Tensor add__cpu_checked(at::Tensor& self, const at::Tensor& other) {
  testns::kernels::add__cpu(self, other);
  return self;
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(testns, m) {
  m.def("add_(Tensor(a!) self, Tensor other) -> Tensor(a!)", {at::Tag::inplace, at::Tag::pt2_compliant_tag});
}

TORCH_LIBRARY_IMPL(testns, CPU, m) {
  m.impl("add_", TORCH_FN(add__cpu_checked));
}
