// CPU kernels of the opgen stable-ABI ops: the same work as every other
// variant of the benchmark, through the stable ABI's own calls.
#include "opgen_bench/kernels/empty_like_stable.h"  // first: sets TORCH_TARGET_VERSION
#include "opgen_bench/kernels/empty_strided_stable.h"
#include "opgen_bench/kernels/noop_stable.h"

#include "stable_bodies.h"

torch::stable::Tensor opgen_bench::kernels::empty_like_stable_cpu(const torch::stable::Tensor& x) {
  return bench_stable::empty_like(x);
}

torch::stable::Tensor opgen_bench::kernels::empty_strided_stable_cpu(const torch::stable::Tensor& x) {
  return bench_stable::empty_strided(x);
}

void opgen_bench::kernels::noop_stable_cpu(const torch::stable::Tensor& x) { bench_stable::noop(x); }
