// Adam / AdamW shared by the CPU and CUDA kernels of opgen::multi_tensor_adam_:
// the per-element update (host and device), the list checks and the buffers
// an in-place update works on. Stable-ABI headers only.
#pragma once

#include "stable_utils.h"

#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>
#include <torch/headeronly/core/ScalarType.h>
#include <torch/headeronly/util/Exception.h>

#include <cmath>
#include <cstdint>
#include <vector>

#ifdef __CUDACC__
#define OPGEN_HOST_DEVICE __host__ __device__
#else
#define OPGEN_HOST_DEVICE
#endif

HIDDEN_NAMESPACE_BEGIN(opgen, kernels, common)

struct AdamParams {
  double lr, beta1, beta2, eps, weight_decay;
  int64_t step;
  bool adamw;
};

// The step's constants, computed once on the host in double, and the update
// of one element in the accumulation type A (as torch.optim.Adam(W):
// m.lerp_(g, 1 - beta1), v = beta2 * v + (1 - beta2) * g^2,
// p -= step_size * m / (sqrt(v) / sqrt(bias_correction2) + eps)).
template <class A>
struct AdamCoefficients {
  A beta1, beta2, one_minus_beta1, one_minus_beta2, eps, step_size, inv_bc2_sqrt, decay, l2;
  bool adamw;

  AdamCoefficients() = default;
  explicit AdamCoefficients(const AdamParams& hp) {
    const double bc1 = 1.0 - std::pow(hp.beta1, static_cast<double>(hp.step));
    const double bc2 = 1.0 - std::pow(hp.beta2, static_cast<double>(hp.step));
    beta1 = static_cast<A>(hp.beta1);
    beta2 = static_cast<A>(hp.beta2);
    one_minus_beta1 = static_cast<A>(1.0 - hp.beta1);
    one_minus_beta2 = static_cast<A>(1.0 - hp.beta2);
    eps = static_cast<A>(hp.eps);
    step_size = static_cast<A>(hp.lr / bc1);
    inv_bc2_sqrt = static_cast<A>(1.0 / std::sqrt(bc2));
    adamw = hp.adamw;
    decay = static_cast<A>(hp.adamw ? 1.0 - hp.lr * hp.weight_decay : 1.0);
    l2 = static_cast<A>(hp.adamw ? 0.0 : hp.weight_decay);
  }

  OPGEN_HOST_DEVICE inline void update(A& p, A g, A& m, A& v) const {
    using std::sqrt;
    if (adamw) {
      p *= decay;
    } else {
      g += l2 * p;
    }
    m += one_minus_beta1 * (g - m);
    v = beta2 * v + one_minus_beta2 * g * g;
    const A denom = sqrt(v) * inv_bc2_sqrt + eps;
    p -= step_size * m / denom;
  }
};

inline bool is_adam_dtype(ScalarType st) {
  return st == ScalarType::Float || st == ScalarType::Double || st == ScalarType::Half ||
         st == ScalarType::BFloat16;
}

// Everything the kernels rely on, per index, with errors that name the list
// and the index.
inline void check_adam_lists(const std::vector<torch::stable::Tensor>& params,
                             const std::vector<torch::stable::Tensor>& grads,
                             const std::vector<torch::stable::Tensor>& exp_avgs,
                             const std::vector<torch::stable::Tensor>& exp_avg_sqs, int64_t step, const char* op) {
  STD_TORCH_CHECK(grads.size() == params.size() && exp_avgs.size() == params.size() &&
                      exp_avg_sqs.size() == params.size(),
                  op, ": 'params', 'grads', 'exp_avgs' and 'exp_avg_sqs' must have the same length, got ",
                  params.size(), ", ", grads.size(), ", ", exp_avgs.size(), " and ", exp_avg_sqs.size());
  STD_TORCH_CHECK(step >= 1, op, ": 'step' must be >= 1, got ", step);
  for (size_t i = 0; i < params.size(); ++i) {
    const auto& p = params[i];
    const ScalarType st = p.scalar_type();
    STD_TORCH_CHECK(is_adam_dtype(st), op, ": 'params'[", i, "] has dtype ", torch::headeronly::toString(st),
                    " (expected float32, float64, float16 or bfloat16)");
    STD_TORCH_CHECK(grads[i].scalar_type() == st, op, ": 'grads'[", i, "] must have the dtype of 'params'[", i,
                    "] (", torch::headeronly::toString(st), "), got ",
                    torch::headeronly::toString(grads[i].scalar_type()));
    const ScalarType mt = exp_avgs[i].scalar_type();
    const bool moments_ok = mt == st || (mt == ScalarType::Float && st != ScalarType::Double);
    STD_TORCH_CHECK(moments_ok && exp_avg_sqs[i].scalar_type() == mt, op, ": 'exp_avgs'[", i, "] and 'exp_avg_sqs'[",
                    i, "] must both have the dtype of 'params'[", i, "] or float32, got ",
                    torch::headeronly::toString(mt), " and ",
                    torch::headeronly::toString(exp_avg_sqs[i].scalar_type()));
    const bool shapes_ok =
        same_sizes(grads[i], p) && same_sizes(exp_avgs[i], p) && same_sizes(exp_avg_sqs[i], p);
    STD_TORCH_CHECK(shapes_ok, op, ": 'grads'[", i, "], 'exp_avgs'[", i, "] and 'exp_avg_sqs'[", i,
                    "] must have the shape of 'params'[", i, "]");
    const auto& first = params[0];
    for (const auto* t : {&p, &grads[i], &exp_avgs[i], &exp_avg_sqs[i]}) {
      STD_TORCH_CHECK(t->is_cpu() == first.is_cpu() && t->is_cuda() == first.is_cuda() &&
                          t->get_device_index() == first.get_device_index(),
                      op, ": all tensors must be on the device of 'params'[0]; index ", i, " is not");
    }
  }
}

inline bool same_strides(const torch::stable::Tensor& a, const torch::stable::Tensor& b) {
  const auto sa = a.strides();
  const auto sb = b.strides();
  return sa.size() == sb.size() && std::equal(sa.begin(), sa.end(), sb.begin());
}

// The four tensors of one index as flat buffers walked by the same index:
// their own storage when they share one dense layout, else contiguous
// buffers (param and moments copied back by commit()).
class AdamTensorBuffers {
 public:
  AdamTensorBuffers(const torch::stable::Tensor& p, const torch::stable::Tensor& g, const torch::stable::Tensor& m,
                    const torch::stable::Tensor& v)
      : shared_(is_non_overlapping_and_dense(p) && same_strides(p, g) && same_strides(p, m) && same_strides(p, v)),
        p_(p, shared_ || p.is_contiguous()),
        m_(m, shared_ || m.is_contiguous()),
        v_(v, shared_ || v.is_contiguous()),
        g_(shared_ ? g : contiguous_or_self(g)) {}

  torch::stable::Tensor& param() { return p_.work(); }
  const torch::stable::Tensor& grad() const { return g_; }
  torch::stable::Tensor& exp_avg() { return m_.work(); }
  torch::stable::Tensor& exp_avg_sq() { return v_.work(); }

  void commit() {
    p_.commit();
    m_.commit();
    v_.commit();
  }

 private:
  bool shared_;
  InplaceBuffer p_, m_, v_;
  torch::stable::Tensor g_;
};

HIDDEN_NAMESPACE_END(opgen, kernels, common)
