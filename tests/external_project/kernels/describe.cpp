// opgen_ext::describe (unstable ABI): int[], str and SymInt results.

#include "opgen_ext/kernels/describe.h"

#include <ATen/ATen.h>

std::tuple<std::vector<int64_t>, std::string, c10::SymInt> opgen_ext::kernels::describe_cpu(const at::Tensor& x) {
  return {x.sizes().vec(), std::string(c10::toString(x.scalar_type())), c10::SymInt(x.numel())};
}
