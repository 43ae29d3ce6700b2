// CPU kernel for opgen::multi_tensor_adam_ (stable ABI): one Adam / AdamW step
// over lists of tensors, in place (torch.optim.Adam(W) semantics, apex
// FusedAdam's math):
//
//   adamw:      p = p - lr * weight_decay * p        else  g = g + weight_decay * p
//   m = beta1 * m + (1 - beta1) * g
//   v = beta2 * v + (1 - beta2) * g * g
//   p = p - (lr / (1 - beta1^step)) * m / (sqrt(v) / sqrt(1 - beta2^step) + eps)
//
// params[i], grads[i]: one dtype T (float32/float64/float16/bfloat16), one
// shape; exp_avgs[i], exp_avg_sqs[i]: T or float32. Math in float (double for
// float64). Tensors that share one dense layout are updated in their own
// buffers; otherwise through contiguous copies that are copied back.

#include "opgen/kernels/multi_tensor_adam_.h"

#include "common/adam.h"
#include "common/cpu_utils.h"
#include "common/stable_utils.h"

#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace {

using opgen::kernels::cpu::acc_t;
using opgen::kernels::cpu::to_acc;

template <class T, class M>
void adam_buffer(T* p, const T* g, M* m, M* v, int64_t n, const opgen::kernels::common::AdamParams& hp) {
  using A = acc_t<T>;
  const auto c = opgen::kernels::common::AdamCoefficients<A>(hp);
  torch::stable::parallel_for(0, n, opgen::kernels::cpu::kElementwiseGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      A pv = to_acc(p[i]);
      A mv = static_cast<A>(m[i]);
      A vv = static_cast<A>(v[i]);
      c.update(pv, to_acc(g[i]), mv, vv);
      p[i] = static_cast<T>(pv);
      m[i] = static_cast<M>(mv);
      v[i] = static_cast<M>(vv);
    }
  });
}

}  // namespace

void opgen::kernels::multi_tensor_adam__cpu(const std::vector<torch::stable::Tensor>& params,
                                            const std::vector<torch::stable::Tensor>& grads,
                                            const std::vector<torch::stable::Tensor>& exp_avgs,
                                            const std::vector<torch::stable::Tensor>& exp_avg_sqs, double lr,
                                            double beta1, double beta2, double eps, double weight_decay,
                                            int64_t step, bool adamw) {
  constexpr const char* kOp = "opgen::multi_tensor_adam_";
  common::check_adam_lists(params, grads, exp_avgs, exp_avg_sqs, step, kOp);
  for (size_t i = 0; i < params.size(); ++i) {
    STD_TORCH_CHECK(params[i].is_cpu(), kOp, ": CPU kernel called with a non-CPU tensor at index ", i);
  }
  const common::AdamParams hp{lr, beta1, beta2, eps, weight_decay, step, adamw};
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i].numel() == 0) continue;
    common::AdamTensorBuffers buf(params[i], grads[i], exp_avgs[i], exp_avg_sqs[i]);
    common::dispatch_norm_types<cpu::CpuTypes>(params[i].scalar_type(), exp_avgs[i].scalar_type(), kOp,
                                               [&](auto t_tag, auto m_tag) {
                                                 using T = typename decltype(t_tag)::type;
                                                 using M = typename decltype(m_tag)::type;
                                                 adam_buffer<T, M>(buf.param().mutable_data_ptr<T>(),
                                                                   buf.grad().const_data_ptr<T>(),
                                                                   buf.exp_avg().mutable_data_ptr<M>(),
                                                                   buf.exp_avg_sq().mutable_data_ptr<M>(),
                                                                   params[i].numel(), hp);
                                               });
    buf.commit();
  }
}
