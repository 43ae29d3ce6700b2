// CPU kernels for opgen::rms_norm and opgen::rms_norm_backward (stable ABI).
//
//   y = x * rstd * w,  rstd = 1 / sqrt(mean(x^2, -1) + eps)
//   dx = rstd * w * dy - x * rstd^3 / H * sum(dy * w * x, -1)
//   dw = sum over rows of dy * x * rstd
//
// Accumulation in float (double for float64 inputs); outputs in the input's
// dtype (dx) / the weight's dtype (dw). Non-contiguous inputs are made
// contiguous; outputs have torch.empty_like's layout (the `like(...)` fakes).

#include "opgen/kernels/rms_norm.h"
#include "opgen/kernels/rms_norm_backward.h"

#include "common/cpu_utils.h"
#include "common/stable_utils.h"

#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>

#include <cmath>
#include <cstdint>
#include <tuple>
#include <vector>

namespace {

using opgen::kernels::common::TypeTag;
using opgen::kernels::cpu::acc_t;
using opgen::kernels::cpu::to_acc;
using torch::stable::Tensor;

template <class T, class W>
void rms_norm_rows(const T* x, const W* w, T* y, int64_t rows, int64_t hidden, double eps) {
  using A = acc_t<T>;
  const A inv_h = A(1) / static_cast<A>(hidden);
  const A eps_a = static_cast<A>(eps);
  torch::stable::parallel_for(0, rows, opgen::kernels::cpu::row_grain(hidden), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const T* xr = x + r * hidden;
      T* yr = y + r * hidden;
      const A rstd = A(1) / std::sqrt(opgen::kernels::cpu::sum_squares(xr, hidden) * inv_h + eps_a);
      for (int64_t j = 0; j < hidden; ++j) {
        yr[j] = static_cast<T>(to_acc(xr[j]) * rstd * static_cast<A>(w[j]));
      }
    }
  });
}

template <class T, class W>
void rms_norm_backward_rows(const T* g, const T* x, const W* w, T* dx, W* dw, int64_t rows, int64_t hidden,
                            double eps) {
  using A = acc_t<T>;
  const A inv_h = A(1) / static_cast<A>(hidden);
  const A eps_a = static_cast<A>(eps);

  // Rows are split into `num_chunks` contiguous ranges; each range accumulates
  // its own dw partial (deterministic for a given thread count), reduced below.
  const int64_t grain = opgen::kernels::cpu::row_grain(hidden);
  const int64_t max_chunks = (rows + grain - 1) / grain;
  const int64_t num_chunks =
      std::max<int64_t>(1, std::min<int64_t>(static_cast<int64_t>(torch::stable::get_num_threads()), max_chunks));
  std::vector<A> partial(static_cast<size_t>(num_chunks * hidden), A(0));

  torch::stable::parallel_for(0, num_chunks, 1, [&](int64_t cbegin, int64_t cend) {
    for (int64_t c = cbegin; c < cend; ++c) {
      const int64_t rbegin = rows * c / num_chunks;
      const int64_t rend = rows * (c + 1) / num_chunks;
      A* pw = partial.data() + c * hidden;
      for (int64_t r = rbegin; r < rend; ++r) {
        const T* xr = x + r * hidden;
        const T* gr = g + r * hidden;
        T* dxr = dx + r * hidden;
        A ss = 0;
        A dot = 0;
        for (int64_t j = 0; j < hidden; ++j) {
          const A xv = to_acc(xr[j]);
          ss += xv * xv;
          dot += to_acc(gr[j]) * static_cast<A>(w[j]) * xv;
        }
        const A rstd = A(1) / std::sqrt(ss * inv_h + eps_a);
        const A coef = dot * rstd * rstd * rstd * inv_h;
        for (int64_t j = 0; j < hidden; ++j) {
          const A xv = to_acc(xr[j]);
          const A gv = to_acc(gr[j]);
          dxr[j] = static_cast<T>(rstd * static_cast<A>(w[j]) * gv - coef * xv);
          pw[j] += gv * xv * rstd;
        }
      }
    }
  });

  torch::stable::parallel_for(0, hidden, 4096, [&](int64_t begin, int64_t end) {
    for (int64_t j = begin; j < end; ++j) {
      A s = 0;
      for (int64_t c = 0; c < num_chunks; ++c) {
        s += partial[static_cast<size_t>(c * hidden + j)];
      }
      dw[j] = static_cast<W>(s);
    }
  });
}

}  // namespace

torch::stable::Tensor opgen::kernels::rms_norm_cpu(const torch::stable::Tensor& input,
                                                   const torch::stable::Tensor& weight, double eps) {
  constexpr const char* kOp = "opgen::rms_norm";
  STD_TORCH_CHECK(input.is_cpu() && weight.is_cpu(), kOp, ": CPU kernel called with non-CPU tensors");
  const auto shape = common::row_shape(input, kOp);
  common::check_norm_weight(input, weight, shape.hidden, kOp);

  common::OutputBuffer y(input);
  if (input.numel() == 0) {
    return y.finish();
  }
  const Tensor x = common::contiguous_or_self(input);
  const Tensor w = common::contiguous_or_self(weight);
  common::dispatch_norm_types<cpu::CpuTypes>(x.scalar_type(), w.scalar_type(), kOp, [&](auto t_tag, auto w_tag) {
    using T = typename decltype(t_tag)::type;
    using W = typename decltype(w_tag)::type;
    rms_norm_rows<T, W>(x.const_data_ptr<T>(), w.const_data_ptr<W>(), y.work().mutable_data_ptr<T>(), shape.rows,
                        shape.hidden, eps);
  });
  return y.finish();
}

std::tuple<torch::stable::Tensor, torch::stable::Tensor> opgen::kernels::rms_norm_backward_cpu(
    const torch::stable::Tensor& grad, const torch::stable::Tensor& input, const torch::stable::Tensor& weight,
    double eps) {
  constexpr const char* kOp = "opgen::rms_norm_backward";
  STD_TORCH_CHECK(grad.is_cpu() && input.is_cpu() && weight.is_cpu(), kOp,
                  ": CPU kernel called with non-CPU tensors");
  const auto shape = common::row_shape(input, kOp);
  common::check_norm_weight(input, weight, shape.hidden, kOp);
  STD_TORCH_CHECK(grad.scalar_type() == input.scalar_type(), kOp, ": grad dtype ",
                  torch::headeronly::toString(grad.scalar_type()), " differs from input dtype ",
                  torch::headeronly::toString(input.scalar_type()));
  STD_TORCH_CHECK(common::same_sizes(grad, input), kOp, ": grad must have the input's shape");

  common::OutputBuffer dx(input);
  common::OutputBuffer dw(weight);
  if (shape.hidden == 0) {
    return {dx.finish(), dw.finish()};
  }
  if (shape.rows == 0) {
    torch::stable::zero_(dw.work());
    return {dx.finish(), dw.finish()};
  }
  const Tensor x = common::contiguous_or_self(input);
  const Tensor g = common::contiguous_or_self(grad);
  const Tensor w = common::contiguous_or_self(weight);
  common::dispatch_norm_types<cpu::CpuTypes>(x.scalar_type(), w.scalar_type(), kOp, [&](auto t_tag, auto w_tag) {
    using T = typename decltype(t_tag)::type;
    using W = typename decltype(w_tag)::type;
    rms_norm_backward_rows<T, W>(g.const_data_ptr<T>(), x.const_data_ptr<T>(), w.const_data_ptr<W>(),
                                 dx.work().mutable_data_ptr<T>(), dw.work().mutable_data_ptr<W>(), shape.rows,
                                 shape.hidden, eps);
  });
  return {dx.finish(), dw.finish()};
}
