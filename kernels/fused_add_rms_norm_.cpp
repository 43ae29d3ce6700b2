// CPU kernel for opgen::fused_add_rms_norm_ (stable ABI), vLLM semantics:
//
//   residual <- input + residual            (rounded to the tensors' dtype)
//   input    <- rms_norm(residual, weight, eps)
//
// Both updates are in place. The norm is computed from the rounded residual,
// so the result equals rms_norm(input + residual) evaluated in two steps.
// Non-contiguous input/residual are handled through contiguous copies that are
// copied back.

#include "opgen/kernels/fused_add_rms_norm_.h"

#include "common/cpu_utils.h"
#include "common/stable_utils.h"

#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>

#include <cmath>
#include <cstdint>

namespace {

using opgen::kernels::cpu::acc_t;
using opgen::kernels::cpu::to_acc;

template <class T, class W>
void fused_add_rms_norm_rows(T* x, T* res, const W* w, int64_t rows, int64_t hidden, double eps) {
  using A = acc_t<T>;
  const A inv_h = A(1) / static_cast<A>(hidden);
  const A eps_a = static_cast<A>(eps);
  torch::stable::parallel_for(0, rows, opgen::kernels::cpu::row_grain(hidden), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      T* xr = x + r * hidden;
      T* rr = res + r * hidden;
      A ss = 0;
      for (int64_t j = 0; j < hidden; ++j) {
        const T z = static_cast<T>(to_acc(xr[j]) + to_acc(rr[j]));
        rr[j] = z;
        const A zv = to_acc(z);
        ss += zv * zv;
      }
      const A rstd = A(1) / std::sqrt(ss * inv_h + eps_a);
      for (int64_t j = 0; j < hidden; ++j) {
        xr[j] = static_cast<T>(to_acc(rr[j]) * rstd * static_cast<A>(w[j]));
      }
    }
  });
}

}  // namespace

void opgen::kernels::fused_add_rms_norm__cpu(torch::stable::Tensor& input, torch::stable::Tensor& residual,
                                             const torch::stable::Tensor& weight, double eps) {
  constexpr const char* kOp = "opgen::fused_add_rms_norm_";
  STD_TORCH_CHECK(input.is_cpu() && residual.is_cpu() && weight.is_cpu(), kOp,
                  ": CPU kernel called with non-CPU tensors");
  const auto shape = common::row_shape(input, kOp);
  common::check_norm_weight(input, weight, shape.hidden, kOp);
  STD_TORCH_CHECK(common::same_sizes(input, residual), kOp, ": residual must have the input's shape");
  STD_TORCH_CHECK(residual.scalar_type() == input.scalar_type(), kOp, ": residual dtype ",
                  torch::headeronly::toString(residual.scalar_type()), " differs from input dtype ",
                  torch::headeronly::toString(input.scalar_type()));
  if (input.numel() == 0) {
    return;
  }

  common::InplaceBuffer x(input, input.is_contiguous());
  common::InplaceBuffer res(residual, residual.is_contiguous());
  const torch::stable::Tensor w = common::contiguous_or_self(weight);
  common::dispatch_norm_types<cpu::CpuTypes>(input.scalar_type(), w.scalar_type(), kOp, [&](auto t_tag, auto w_tag) {
    using T = typename decltype(t_tag)::type;
    using W = typename decltype(w_tag)::type;
    fused_add_rms_norm_rows<T, W>(x.work().mutable_data_ptr<T>(), res.work().mutable_data_ptr<T>(),
                                  w.const_data_ptr<W>(), shape.rows, shape.hidden, eps);
  });
  res.commit();
  x.commit();
}
