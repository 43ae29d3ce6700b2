// CPU kernel for opgen::runner_apply (unstable ABI / ATen): y = x * scale + shift
// with the scale and shift of the registry's runner `runner`; math in float
// (double for float64), a new contiguous tensor.

// Per-operator ATen headers (ATen/ops/<op>.h), not ATen/ATen.h: a third of the
// compile time. The macro makes an all-operators header an error here.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS

#include "opgen/kernels/runner_apply.h"

#include "common/runner_registry.h"

#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>

#include <cstdint>
#include <type_traits>

at::Tensor opgen::kernels::runner_apply_cpu(const at::Tensor& x, int64_t runner) {
  constexpr const char* kOp = "opgen::runner_apply";
  TORCH_CHECK(x.device().is_cpu(), kOp, ": CPU kernel called with a non-CPU input");
  const auto r = runners::Registry::instance().find(runner);
  TORCH_CHECK(r != nullptr, kOp, ": 'runner' ", runner, " is not a live runner id (see opgen::runner_create)");
  const at::Tensor xc = x.contiguous();
  at::Tensor y = at::empty(x.sizes(), x.options().memory_format(at::MemoryFormat::Contiguous));
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, x.scalar_type(), "opgen::runner_apply", [&] {
    using A = std::conditional_t<std::is_same_v<scalar_t, double>, double, float>;
    const A scale = static_cast<A>(r->scale);
    const A shift = static_cast<A>(r->shift);
    const scalar_t* src = xc.const_data_ptr<scalar_t>();
    scalar_t* dst = y.mutable_data_ptr<scalar_t>();
    at::parallel_for(0, xc.numel(), 32768, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        dst[i] = static_cast<scalar_t>(static_cast<A>(src[i]) * scale + shift);
      }
    });
  });
  return y;
}
