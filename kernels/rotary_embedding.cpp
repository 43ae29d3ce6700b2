// CPU kernels for opgen::rotary_embedding and opgen::rotary_embedding_backward
// (stable ABI). GPT-NeoX rotate-half layout; x: [(B,) S, H, D], cos/sin: [S, R/2]:
//
//   out[i]       = x[i] * cos[s, i] - x[i + R/2] * sin[s, i]      (i < R/2)
//   out[i + R/2] = x[i + R/2] * cos[s, i] + x[i] * sin[s, i]
//   out[R..D)    = x[R..D)
//
// The backward is the inverse rotation (sin negated). Math in float (double
// for float64); cos/sin may be float32 for float16/bfloat16 inputs.
// Non-contiguous inputs are made contiguous; outputs have torch.empty_like's
// layout (the `like(...)` fakes).

#include "opgen/kernels/rotary_embedding.h"
#include "opgen/kernels/rotary_embedding_backward.h"

#include "common/cpu_utils.h"
#include "common/stable_utils.h"

#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>

#include <cstdint>
#include <tuple>

namespace {

namespace common = opgen::kernels::common;
using opgen::kernels::cpu::acc_t;
using opgen::kernels::cpu::to_acc;
using torch::stable::Tensor;

// The layout checks of the spec again (the kernels index by them), and what
// its rules do not cover.
void check_layout(const Tensor& q, const Tensor& k, const Tensor& cos, const Tensor& sin, const char* op) {
  STD_TORCH_CHECK(q.dim() == 3 || q.dim() == 4, op, ": expected q of shape [S, H, D] or [B, S, H, D]");
  STD_TORCH_CHECK(k.dim() == q.dim(), op, ": k must have q's number of dimensions");
  for (int64_t d = 0; d + 2 < q.dim(); ++d) {
    STD_TORCH_CHECK(k.size(d) == q.size(d), op, ": k and q must agree in every dimension but the heads");
  }
  STD_TORCH_CHECK(k.size(-1) == q.size(-1), op, ": k and q must have the same head dimension");
  STD_TORCH_CHECK(cos.dim() == 2 && common::same_sizes(cos, sin), op, ": cos and sin must be [S, R/2]");
  STD_TORCH_CHECK(cos.size(0) == q.size(-3), op, ": cos must have one row per position");
  STD_TORCH_CHECK(2 * cos.size(1) <= q.size(-1), op, ": the rotary dimension 2 * cos.size(1) exceeds the head dimension");
}

// x viewed as [tokens, heads, D]; token t has position t % positions.
template <class T, class C>
void rotate(const T* x, T* out, const C* cos, const C* sin, int64_t tokens, int64_t heads, int64_t dim,
            int64_t positions, int64_t half, bool inverse) {
  using A = acc_t<T>;
  const int64_t per_token = heads * dim;
  const int64_t grain = std::max<int64_t>(1, opgen::kernels::cpu::kElementwiseGrain / std::max<int64_t>(per_token, 1));
  torch::stable::parallel_for(0, tokens, grain, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t s = t % positions;
      const C* cr = cos + s * half;
      const C* sr = sin + s * half;
      for (int64_t h = 0; h < heads; ++h) {
        const T* xr = x + (t * heads + h) * dim;
        T* yr = out + (t * heads + h) * dim;
        for (int64_t i = 0; i < half; ++i) {
          const A c = to_acc(cr[i]);
          const A sn = inverse ? -to_acc(sr[i]) : to_acc(sr[i]);
          const A x1 = to_acc(xr[i]);
          const A x2 = to_acc(xr[i + half]);
          yr[i] = static_cast<T>(x1 * c - x2 * sn);
          yr[i + half] = static_cast<T>(x2 * c + x1 * sn);
        }
        for (int64_t i = 2 * half; i < dim; ++i) {
          yr[i] = xr[i];
        }
      }
    }
  });
}

std::tuple<Tensor, Tensor> rotary_cpu(const Tensor& q, const Tensor& k, const Tensor& cos, const Tensor& sin,
                                      bool inverse, const char* op) {
  STD_TORCH_CHECK(q.is_cpu() && k.is_cpu() && cos.is_cpu() && sin.is_cpu(), op,
                  ": CPU kernel called with non-CPU tensors");
  check_layout(q, k, cos, sin, op);
  common::OutputBuffer q_out(q);
  common::OutputBuffer k_out(k);
  const int64_t positions = q.size(-3);
  const int64_t dim = q.size(-1);
  const int64_t half = cos.size(1);
  const Tensor qc = common::contiguous_or_self(q);
  const Tensor kc = common::contiguous_or_self(k);
  const Tensor cc = common::contiguous_or_self(cos);
  const Tensor sc = common::contiguous_or_self(sin);
  common::dispatch_norm_types<opgen::kernels::cpu::CpuTypes>(
      q.scalar_type(), cos.scalar_type(), op, [&](auto t_tag, auto c_tag) {
        using T = typename decltype(t_tag)::type;
        using C = typename decltype(c_tag)::type;
        const C* cp = cc.const_data_ptr<C>();
        const C* sp = sc.const_data_ptr<C>();
        if (q.numel() > 0) {
          rotate<T, C>(qc.const_data_ptr<T>(), q_out.work().mutable_data_ptr<T>(), cp, sp,
                       q.numel() / (q.size(-2) * dim), q.size(-2), dim, positions, half, inverse);
        }
        if (k.numel() > 0) {
          rotate<T, C>(kc.const_data_ptr<T>(), k_out.work().mutable_data_ptr<T>(), cp, sp,
                       k.numel() / (k.size(-2) * dim), k.size(-2), dim, positions, half, inverse);
        }
      });
  return {q_out.finish(), k_out.finish()};
}

}  // namespace

std::tuple<torch::stable::Tensor, torch::stable::Tensor> opgen::kernels::rotary_embedding_cpu(
    const torch::stable::Tensor& q, const torch::stable::Tensor& k, const torch::stable::Tensor& cos,
    const torch::stable::Tensor& sin) {
  return rotary_cpu(q, k, cos, sin, /*inverse=*/false, "opgen::rotary_embedding");
}

std::tuple<torch::stable::Tensor, torch::stable::Tensor> opgen::kernels::rotary_embedding_backward_cpu(
    const torch::stable::Tensor& grad_0, const torch::stable::Tensor& grad_1, const torch::stable::Tensor& cos,
    const torch::stable::Tensor& sin) {
  return rotary_cpu(grad_0, grad_1, cos, sin, /*inverse=*/true, "opgen::rotary_embedding_backward");
}
