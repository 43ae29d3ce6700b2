// @generated from schemas/runner_create.yaml - DO NOT EDIT
//
// opgen::runner_create through torch/library.h (unstable ABI).
#include "opgen/kernels/runner_create.h"

#include <torch/library.h>

namespace {

int64_t runner_create_compositeexplicitautograd_checked(double scale, double shift) {
  return opgen::kernels::runner_create_compositeexplicitautograd(scale, shift);
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(opgen, m) {
  m.def("runner_create(float scale, float shift=0.) -> int");
}

TORCH_LIBRARY_IMPL(opgen, CompositeExplicitAutograd, m) {
  m.impl("runner_create", TORCH_FN(runner_create_compositeexplicitautograd_checked));
}
