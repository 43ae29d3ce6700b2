// CPU kernel for opgen::multi_tensor_scale_ (stable ABI): t *= scale for every
// tensor of the list, in place. Tensors may differ in shape and dtype
// (float32, float64, float16, bfloat16). The product is computed in float
// (double for float64 tensors) and rounded once, like torch's mul_.
// Dense tensors (any dim order) are scaled in their own buffer; others through
// a contiguous copy that is copied back.

#include "opgen/kernels/multi_tensor_scale_.h"

#include "common/cpu_utils.h"
#include "common/stable_utils.h"

#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>

#include <cstdint>
#include <vector>

namespace {

using opgen::kernels::cpu::acc_t;
using opgen::kernels::cpu::to_acc;

template <class T>
void scale_buffer(T* p, int64_t n, double scale) {
  using A = acc_t<T>;
  const A s = static_cast<A>(scale);
  torch::stable::parallel_for(0, n, opgen::kernels::cpu::kElementwiseGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      p[i] = static_cast<T>(to_acc(p[i]) * s);
    }
  });
}

}  // namespace

void opgen::kernels::multi_tensor_scale__cpu(const std::vector<torch::stable::Tensor>& tensors, double scale) {
  constexpr const char* kOp = "opgen::multi_tensor_scale_";
  for (size_t i = 0; i < tensors.size(); ++i) {
    STD_TORCH_CHECK(tensors[i].is_cpu(), kOp, ": CPU kernel called with a non-CPU tensor at index ", i);
  }
  for (const auto& t : tensors) {
    if (t.numel() == 0) {
      continue;
    }
    common::InplaceBuffer buf(t, common::is_non_overlapping_and_dense(t));
    common::dispatch_floating<cpu::CpuTypes>(t.scalar_type(), kOp, [&](auto tag) {
      using T = typename decltype(tag)::type;
      scale_buffer<T>(buf.work().mutable_data_ptr<T>(), buf.work().numel(), scale);
    });
    buf.commit();
  }
}
