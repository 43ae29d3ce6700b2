// (d_s) The stable-ABI baseline: the stable kernels registered by hand with
// STABLE_TORCH_LIBRARY and TORCH_BOX (PyTorch's own boxing of an unboxed
// function), as a kernel author writes them without opgen.
#define TORCH_TARGET_VERSION 0x020a000000000000ULL  // the stable ABI of PyTorch 2.10, as the opgen ops

#include <torch/csrc/stable/library.h>

#include "kernels/stable_bodies.h"

STABLE_TORCH_LIBRARY(bench_manual_stable, m) {
  m.def("empty_like(Tensor x) -> Tensor");
  m.def("empty_strided(Tensor x) -> Tensor");
  m.def("noop(Tensor x) -> ()");
}

STABLE_TORCH_LIBRARY_IMPL(bench_manual_stable, CPU, m) {
  m.impl("empty_like", TORCH_BOX(&bench_stable::empty_like));
  m.impl("empty_strided", TORCH_BOX(&bench_stable::empty_strided));
  m.impl("noop", TORCH_BOX(&bench_stable::noop));
}
