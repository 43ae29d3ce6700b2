// CPU kernels for opgen::softmax_cross_entropy and its backward (stable ABI),
// apex xentropy semantics with PyTorch's label smoothing and ignore_index:
//
//   lse    = log(sum(exp(x)))  (computed as max + log(sum(exp(x - max))))
//   loss   = lse - (1 - eps) * x[label] - eps * mean(x)     (0 if label == ignore_index)
//   dx     = g * (exp(x - lse) - (1 - eps) * onehot(label) - eps / C)  (0 if ignored)
//
// losses have the logits' dtype; lse is stored in float (double for float64).
// A label outside [0, C) that is not ignore_index is an error.

#include "opgen/kernels/softmax_cross_entropy.h"
#include "opgen/kernels/softmax_cross_entropy_backward.h"

#include "common/cpu_utils.h"
#include "common/stable_utils.h"

#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <tuple>

namespace {

using opgen::kernels::cpu::acc_t;
using opgen::kernels::cpu::to_acc;
using torch::stable::Tensor;

void check_shapes(const Tensor& logits, const Tensor& labels, const char* op) {
  STD_TORCH_CHECK(logits.dim() == 2, op, ": expected 2-D logits [N, C]");
  STD_TORCH_CHECK(labels.dim() == 1 && labels.size(0) == logits.size(0), op, ": expected labels of shape [",
                  logits.size(0), "]");
  STD_TORCH_CHECK(labels.scalar_type() == torch::headeronly::ScalarType::Long, op, ": labels must be int64");
}

// First label that is neither ignore_index nor in [0, classes); -1 if none.
int64_t find_bad_label(const int64_t* labels, int64_t rows, int64_t classes, int64_t ignore_index) {
  std::atomic<int64_t> bad{-1};
  torch::stable::parallel_for(0, rows, opgen::kernels::cpu::kElementwiseGrain, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t l = labels[r];
      if (l != ignore_index && (l < 0 || l >= classes)) {
        int64_t expected = -1;
        bad.compare_exchange_strong(expected, r);
        return;
      }
    }
  });
  return bad.load();
}

template <class T>
void xent_forward_rows(const T* x, const int64_t* labels, T* losses, acc_t<T>* lse_out, int64_t rows,
                       int64_t classes, double smoothing, int64_t ignore_index) {
  using A = acc_t<T>;
  const A eps = static_cast<A>(smoothing);
  torch::stable::parallel_for(0, rows, opgen::kernels::cpu::row_grain(classes), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const T* xr = x + r * classes;
      A mx = -std::numeric_limits<A>::infinity();
      A sum_x = 0;
      for (int64_t j = 0; j < classes; ++j) {
        const A v = to_acc(xr[j]);
        mx = std::max(mx, v);
        sum_x += v;
      }
      A sum_exp = 0;
      for (int64_t j = 0; j < classes; ++j) sum_exp += std::exp(to_acc(xr[j]) - mx);
      const A lse = mx + std::log(sum_exp);
      lse_out[r] = lse;
      const int64_t label = labels[r];
      if (label == ignore_index) {
        losses[r] = static_cast<T>(A(0));
      } else {
        const A nll = lse - to_acc(xr[label]);
        // Without smoothing the smoothing term is left out, not multiplied by
        // 0: with a -inf logit (a padded vocabulary) it is inf, and 0 * inf is
        // NaN. PyTorch leaves it out too.
        const A smooth = eps == A(0) ? A(0) : eps * (lse - sum_x / static_cast<A>(classes));
        losses[r] = static_cast<T>((A(1) - eps) * nll + smooth);
      }
    }
  });
}

template <class T>
void xent_backward_rows(const T* g, const T* x, const acc_t<T>* lse, const int64_t* labels, T* dx, int64_t rows,
                        int64_t classes, double smoothing, int64_t ignore_index) {
  using A = acc_t<T>;
  const A eps = static_cast<A>(smoothing);
  const A eps_per_class = eps / static_cast<A>(classes);
  torch::stable::parallel_for(0, rows, opgen::kernels::cpu::row_grain(classes), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const T* xr = x + r * classes;
      T* dr = dx + r * classes;
      const int64_t label = labels[r];
      if (label == ignore_index) {
        std::fill(dr, dr + classes, static_cast<T>(A(0)));
        continue;
      }
      const A gr = to_acc(g[r]);
      const A l = lse[r];
      for (int64_t j = 0; j < classes; ++j) {
        const A p = std::exp(to_acc(xr[j]) - l);
        const A target = (j == label ? A(1) - eps : A(0)) + eps_per_class;
        dr[j] = static_cast<T>(gr * (p - target));
      }
    }
  });
}

}  // namespace

std::tuple<torch::stable::Tensor, torch::stable::Tensor> opgen::kernels::softmax_cross_entropy_cpu(
    const torch::stable::Tensor& logits, const torch::stable::Tensor& labels, double smoothing,
    int64_t ignore_index) {
  constexpr const char* kOp = "opgen::softmax_cross_entropy";
  STD_TORCH_CHECK(logits.is_cpu() && labels.is_cpu(), kOp, ": CPU kernel called with non-CPU tensors");
  check_shapes(logits, labels, kOp);
  const int64_t rows = logits.size(0);
  const int64_t classes = logits.size(1);
  Tensor losses = torch::stable::new_empty(logits, {rows});
  Tensor lse = torch::stable::new_empty(logits, {rows}, common::acc_scalar_type(logits.scalar_type()));
  if (rows == 0) return {losses, lse};
  STD_TORCH_CHECK(classes >= 1, kOp, ": logits must have at least one class");
  const Tensor x = common::contiguous_or_self(logits);
  const Tensor lab = common::contiguous_or_self(labels);
  const int64_t* lp = lab.const_data_ptr<int64_t>();
  const int64_t bad = find_bad_label(lp, rows, classes, ignore_index);
  STD_TORCH_CHECK(bad < 0, kOp, ": 'labels' has ", bad < 0 ? 0 : lp[bad], " at row ", bad,
                  ", outside [0, ", classes, ") and not ignore_index (", ignore_index, ")");
  common::dispatch_floating<cpu::CpuTypes>(x.scalar_type(), kOp, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = acc_t<T>;
    xent_forward_rows<T>(x.const_data_ptr<T>(), lp, losses.mutable_data_ptr<T>(), lse.mutable_data_ptr<A>(), rows,
                         classes, smoothing, ignore_index);
  });
  return {losses, lse};
}

torch::stable::Tensor opgen::kernels::softmax_cross_entropy_backward_cpu(
    const torch::stable::Tensor& grad_losses, const torch::stable::Tensor& logits,
    const torch::stable::Tensor& max_log_sum_exp, const torch::stable::Tensor& labels, double smoothing,
    int64_t ignore_index) {
  constexpr const char* kOp = "opgen::softmax_cross_entropy_backward";
  STD_TORCH_CHECK(grad_losses.is_cpu() && logits.is_cpu() && max_log_sum_exp.is_cpu() && labels.is_cpu(), kOp,
                  ": CPU kernel called with non-CPU tensors");
  check_shapes(logits, labels, kOp);
  const int64_t rows = logits.size(0);
  const int64_t classes = logits.size(1);
  STD_TORCH_CHECK(grad_losses.dim() == 1 && grad_losses.size(0) == rows && max_log_sum_exp.dim() == 1 &&
                      max_log_sum_exp.size(0) == rows,
                  kOp, ": grad_losses and max_log_sum_exp must have shape [", rows, "]");
  STD_TORCH_CHECK(max_log_sum_exp.scalar_type() == common::acc_scalar_type(logits.scalar_type()), kOp,
                  ": max_log_sum_exp has the wrong dtype");
  common::OutputBuffer dx(logits);
  if (logits.numel() == 0) return dx.finish();
  const Tensor x = common::contiguous_or_self(logits);
  const Tensor g = common::contiguous_or_self(grad_losses);
  const Tensor l = common::contiguous_or_self(max_log_sum_exp);
  const Tensor lab = common::contiguous_or_self(labels);
  // The labels the forward accepts, and only those.
  const int64_t bad = find_bad_label(lab.const_data_ptr<int64_t>(), rows, classes, ignore_index);
  STD_TORCH_CHECK(bad < 0, kOp, ": 'labels' has ", bad < 0 ? 0 : lab.const_data_ptr<int64_t>()[bad], " at row ", bad,
                  ", outside [0, ", classes, ") and not ignore_index (", ignore_index, ")");
  common::dispatch_floating<cpu::CpuTypes>(x.scalar_type(), kOp, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = acc_t<T>;
    xent_backward_rows<T>(g.const_data_ptr<T>(), x.const_data_ptr<T>(), l.const_data_ptr<A>(),
                          lab.const_data_ptr<int64_t>(), dx.work().mutable_data_ptr<T>(), rows, classes, smoothing,
                          ignore_index);
  });
  return dx.finish();
}
