// @generated from schemas/runner_destroy.yaml - DO NOT EDIT
//
// opgen::runner_destroy through torch/library.h (unstable ABI).
#include "opgen/kernels/runner_destroy.h"

#include <torch/library.h>

namespace {

void runner_destroy_compositeexplicitautograd_checked(int64_t runner) {
  opgen::kernels::runner_destroy_compositeexplicitautograd(runner);
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(opgen, m) {
  m.def("runner_destroy(int runner) -> ()");
}

TORCH_LIBRARY_IMPL(opgen, CompositeExplicitAutograd, m) {
  m.impl("runner_destroy", TORCH_FN(runner_destroy_compositeexplicitautograd_checked));
}
