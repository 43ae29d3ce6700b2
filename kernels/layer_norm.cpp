// CPU kernels for opgen::layer_norm and opgen::layer_norm_backward (stable ABI).
//
//   y    = (x - mean) * rstd * w + b,  rstd = 1 / sqrt(var + eps)  (biased var)
//   xhat = (x - mean) * rstd
//   dx   = rstd * (g*w - mean(g*w) - xhat * mean(g*w * xhat))
//   dw   = sum over rows of g * xhat,  db = sum over rows of g
//
// Per row: two-pass mean (of the row shifted by its first element, so a large
// common offset does not cost precision) and variance over the cache-resident
// row (running sums in double), then the output in float (double for float64); mean
// and rstd are stored in that accumulation type. dw/db: per-chunk partial sums reduced in a
// fixed order (deterministic for a given thread count). Non-contiguous inputs
// are made contiguous; outputs have torch.empty_like's layout (the `like(...)`
// fakes), the statistics are contiguous.

#include "opgen/kernels/layer_norm.h"
#include "opgen/kernels/layer_norm_backward.h"

#include "common/cpu_utils.h"
#include "common/stable_utils.h"

#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

namespace {

using opgen::kernels::cpu::acc_t;
using opgen::kernels::cpu::to_acc;
using torch::stable::Tensor;

template <class T>
void layer_norm_rows(const T* x, const T* w, const T* b, T* y, acc_t<T>* mean_out, acc_t<T>* rstd_out, int64_t rows,
                     int64_t hidden, double eps) {
  using A = acc_t<T>;
  const A eps_a = static_cast<A>(eps);
  torch::stable::parallel_for(0, rows, opgen::kernels::cpu::row_grain(hidden), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const T* xr = x + r * hidden;
      T* yr = y + r * hidden;
      A mean = 0;
      A var = 0;
      if (hidden > 0) {
        // Shifted by the row's first element: the sum of the deviations stays
        // small when the row sits on a large offset.
        // The running sums are double: a float one over a long row drifts
        // (the mean of a 30,011-wide fp16 row was 5e-5 off, found against the
        // CUDA kernel's tree reduction).
        const double shift = static_cast<double>(to_acc(xr[0]));
        double sum = 0;
        for (int64_t j = 0; j < hidden; ++j) sum += static_cast<double>(to_acc(xr[j])) - shift;
        const double mean_d = shift + sum / static_cast<double>(hidden);
        double m2 = 0;
        for (int64_t j = 0; j < hidden; ++j) {
          const double d = static_cast<double>(to_acc(xr[j])) - mean_d;
          m2 += d * d;
        }
        mean = static_cast<A>(mean_d);
        var = static_cast<A>(m2 / static_cast<double>(hidden));
      }
      const A rstd = A(1) / std::sqrt(var + eps_a);
      mean_out[r] = mean;
      rstd_out[r] = rstd;
      for (int64_t j = 0; j < hidden; ++j) {
        A v = (to_acc(xr[j]) - mean) * rstd * to_acc(w[j]);
        if (b != nullptr) v += to_acc(b[j]);
        yr[j] = static_cast<T>(v);
      }
    }
  });
}

template <class T>
void layer_norm_backward_rows(const T* g, const T* x, const acc_t<T>* mean, const acc_t<T>* rstd, const T* w, T* dx,
                              T* dw, T* db, int64_t rows, int64_t hidden) {
  using A = acc_t<T>;
  const A inv_h = A(1) / static_cast<A>(hidden);
  const int64_t grain = opgen::kernels::cpu::row_grain(hidden);
  const int64_t max_chunks = (rows + grain - 1) / grain;
  const int64_t num_chunks =
      std::max<int64_t>(1, std::min<int64_t>(static_cast<int64_t>(torch::stable::get_num_threads()), max_chunks));
  // Per chunk: hidden partials of dw, then hidden partials of db.
  std::vector<A> partial(static_cast<size_t>(num_chunks * 2 * hidden), A(0));

  torch::stable::parallel_for(0, num_chunks, 1, [&](int64_t cbegin, int64_t cend) {
    for (int64_t c = cbegin; c < cend; ++c) {
      const int64_t rbegin = rows * c / num_chunks;
      const int64_t rend = rows * (c + 1) / num_chunks;
      A* pw = partial.data() + c * 2 * hidden;
      A* pb = pw + hidden;
      for (int64_t r = rbegin; r < rend; ++r) {
        const T* xr = x + r * hidden;
        const T* gr = g + r * hidden;
        T* dxr = dx + r * hidden;
        const A mu = mean[r];
        const A rs = rstd[r];
        A sum_gw = 0;
        A sum_gw_xhat = 0;
        for (int64_t j = 0; j < hidden; ++j) {
          const A gv = to_acc(gr[j]);
          const A xhat = (to_acc(xr[j]) - mu) * rs;
          const A gw = gv * to_acc(w[j]);
          sum_gw += gw;
          sum_gw_xhat += gw * xhat;
          pw[j] += gv * xhat;
          pb[j] += gv;
        }
        const A c1 = sum_gw * inv_h;
        const A c2 = sum_gw_xhat * inv_h;
        for (int64_t j = 0; j < hidden; ++j) {
          const A xhat = (to_acc(xr[j]) - mu) * rs;
          dxr[j] = static_cast<T>(rs * (to_acc(gr[j]) * to_acc(w[j]) - c1 - xhat * c2));
        }
      }
    }
  });

  torch::stable::parallel_for(0, hidden, 4096, [&](int64_t begin, int64_t end) {
    for (int64_t j = begin; j < end; ++j) {
      A sw = 0;
      A sb = 0;
      for (int64_t c = 0; c < num_chunks; ++c) {
        sw += partial[static_cast<size_t>(c * 2 * hidden + j)];
        sb += partial[static_cast<size_t>(c * 2 * hidden + hidden + j)];
      }
      dw[j] = static_cast<T>(sw);
      db[j] = static_cast<T>(sb);
    }
  });
}

void check_bias(const Tensor& input, const std::optional<Tensor>& bias, int64_t hidden, const char* op) {
  if (!bias.has_value()) return;
  STD_TORCH_CHECK(bias->dim() == 1 && bias->size(0) == hidden, op, ": expected bias of shape [", hidden, "]");
  STD_TORCH_CHECK(bias->scalar_type() == input.scalar_type(), op, ": bias must have the input's dtype");
  STD_TORCH_CHECK(bias->get_device_index() == input.get_device_index() && bias->is_cpu() == input.is_cpu(), op,
                  ": bias must be on the same device as input");
}

}  // namespace

std::tuple<torch::stable::Tensor, torch::stable::Tensor, torch::stable::Tensor> opgen::kernels::layer_norm_cpu(
    const torch::stable::Tensor& input, const torch::stable::Tensor& weight,
    const std::optional<torch::stable::Tensor>& bias, double eps) {
  constexpr const char* kOp = "opgen::layer_norm";
  STD_TORCH_CHECK(input.is_cpu() && weight.is_cpu() && (!bias.has_value() || bias->is_cpu()), kOp,
                  ": CPU kernel called with non-CPU tensors");
  const auto shape = common::row_shape(input, kOp);
  common::check_norm_weight(input, weight, shape.hidden, kOp);
  STD_TORCH_CHECK(weight.scalar_type() == input.scalar_type(), kOp, ": weight must have the input's dtype");
  check_bias(input, bias, shape.hidden, kOp);

  const auto acc_type = common::acc_scalar_type(input.scalar_type());
  common::OutputBuffer y(input);
  Tensor mean = torch::stable::new_empty(input, common::leading_sizes(input), acc_type);
  Tensor rstd = torch::stable::new_empty(input, common::leading_sizes(input), acc_type);
  if (shape.rows == 0) {
    return {y.finish(), mean, rstd};
  }
  const Tensor x = common::contiguous_or_self(input);
  const Tensor w = common::contiguous_or_self(weight);
  const std::optional<Tensor> b = bias.has_value() ? std::optional<Tensor>(common::contiguous_or_self(*bias))
                                                   : std::nullopt;
  common::dispatch_floating<cpu::CpuTypes>(x.scalar_type(), kOp, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = acc_t<T>;
    layer_norm_rows<T>(x.const_data_ptr<T>(), w.const_data_ptr<T>(), b ? b->const_data_ptr<T>() : nullptr,
                       y.work().mutable_data_ptr<T>(), mean.mutable_data_ptr<A>(), rstd.mutable_data_ptr<A>(),
                       shape.rows, shape.hidden, eps);
  });
  return {y.finish(), mean, rstd};
}

std::tuple<torch::stable::Tensor, torch::stable::Tensor, torch::stable::Tensor>
opgen::kernels::layer_norm_backward_cpu(const torch::stable::Tensor& grad_output, const torch::stable::Tensor& input,
                                        const torch::stable::Tensor& mean, const torch::stable::Tensor& rstd,
                                        const torch::stable::Tensor& weight) {
  constexpr const char* kOp = "opgen::layer_norm_backward";
  STD_TORCH_CHECK(grad_output.is_cpu() && input.is_cpu() && mean.is_cpu() && rstd.is_cpu() && weight.is_cpu(), kOp,
                  ": CPU kernel called with non-CPU tensors");
  const auto shape = common::row_shape(input, kOp);
  common::check_norm_weight(input, weight, shape.hidden, kOp);
  STD_TORCH_CHECK(common::same_sizes(grad_output, input), kOp, ": grad_output must have the input's shape");
  STD_TORCH_CHECK(grad_output.scalar_type() == input.scalar_type() && weight.scalar_type() == input.scalar_type(),
                  kOp, ": grad_output and weight must have the input's dtype");
  const auto acc_type = common::acc_scalar_type(input.scalar_type());
  STD_TORCH_CHECK(mean.scalar_type() == acc_type && rstd.scalar_type() == acc_type, kOp,
                  ": mean and rstd must be ", torch::headeronly::toString(acc_type));
  STD_TORCH_CHECK(mean.numel() == shape.rows && rstd.numel() == shape.rows, kOp, ": mean and rstd must have ",
                  shape.rows, " elements (one per row)");

  common::OutputBuffer dx(input);
  common::OutputBuffer dw(weight);
  common::OutputBuffer db(weight);
  if (shape.hidden == 0) {
    return {dx.finish(), dw.finish(), db.finish()};
  }
  if (shape.rows == 0) {
    torch::stable::zero_(dw.work());
    torch::stable::zero_(db.work());
    return {dx.finish(), dw.finish(), db.finish()};
  }
  const Tensor x = common::contiguous_or_self(input);
  const Tensor g = common::contiguous_or_self(grad_output);
  const Tensor w = common::contiguous_or_self(weight);
  const Tensor mu = common::contiguous_or_self(mean);
  const Tensor rs = common::contiguous_or_self(rstd);
  common::dispatch_floating<cpu::CpuTypes>(x.scalar_type(), kOp, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = acc_t<T>;
    layer_norm_backward_rows<T>(g.const_data_ptr<T>(), x.const_data_ptr<T>(), mu.const_data_ptr<A>(),
                                rs.const_data_ptr<A>(), w.const_data_ptr<T>(), dx.work().mutable_data_ptr<T>(),
                                dw.work().mutable_data_ptr<T>(), db.work().mutable_data_ptr<T>(), shape.rows,
                                shape.hidden);
  });
  return {dx.finish(), dw.finish(), db.finish()};
}
