// CUDA kernels for opgen::rotary_embedding and opgen::rotary_embedding_backward
// (stable ABI). GPT-NeoX rotate-half layout; x: [(B,) S, H, D], cos/sin: [S, R/2]:
//
//   out[i]       = x[i] * cos[s, i] - x[i + R/2] * sin[s, i]      (i < R/2)
//   out[i + R/2] = x[i + R/2] * cos[s, i] + x[i] * sin[s, i]
//   out[R..D)    = x[R..D)
//
// The backward is the same kernel with sin negated (the inverse rotation).
// One block per token handles every head of q and of k for that token, so the
// token's cos/sin row is fetched once from L2 and then hits L1. Each thread
// rotates a pair of 128-bit vectors (x[i..i+N), x[i+R/2..i+R/2+N)) when
// R/2 and D are multiples of the vector width and the buffers are 16-byte
// aligned, else scalar pairs. Math in float (double for float64); cos/sin may
// be float32 for float16/bfloat16 inputs. Non-contiguous inputs are made
// contiguous; outputs have torch.empty_like's layout (the `like(...)` fakes).

#include "opgen/kernels/rotary_embedding.h"
#include "opgen/kernels/rotary_embedding_backward.h"

#include "common/cuda_utils.cuh"
#include "common/stable_cuda_utils.h"
#include "common/stable_utils.h"

#include <torch/csrc/stable/accelerator.h>
#include <torch/csrc/stable/macros.h>
#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>

#include <climits>
#include <cstdint>
#include <tuple>

namespace {

namespace common = opgen::kernels::common;
namespace oc = opgen::kernels::cuda;
using oc::acc_t;
using oc::AlignedVector;
using oc::to_acc;
using torch::stable::Tensor;

struct RotaryShape {
  int heads_q, heads_k, dim, half, positions;
};

template <class T, class C, bool kVec>
__global__ void rotary_kernel(T* __restrict__ q_out, T* __restrict__ k_out, const T* __restrict__ q,
                              const T* __restrict__ k, const C* __restrict__ cos, const C* __restrict__ sin,
                              int64_t token_offset, RotaryShape shape, acc_t<T> sign) {
  using A = acc_t<T>;
  constexpr int N = kVec ? oc::kVecSize<T> : 1;
  const int64_t token = token_offset + blockIdx.x;
  const int64_t pos = token % shape.positions;
  const C* cr = cos + pos * shape.half;
  const C* sr = sin + pos * shape.half;
  const int heads = shape.heads_q + shape.heads_k;

  // Heads of q, then heads of k: (source, destination) of head h.
  auto head_ptrs = [&](int h, const T*& src, T*& dst) {
    if (h < shape.heads_q) {
      const int64_t off = (token * shape.heads_q + h) * shape.dim;
      src = q + off;
      dst = q_out + off;
    } else {
      const int64_t off = (token * shape.heads_k + (h - shape.heads_q)) * shape.dim;
      src = k + off;
      dst = k_out + off;
    }
  };

  const int units = shape.half / N;  // rotated vector pairs per head
  for (int u = threadIdx.x; u < heads * units; u += blockDim.x) {
    const int h = u / units;
    const int i = (u - h * units) * N;
    const T* src;
    T* dst;
    head_ptrs(h, src, dst);
    const auto x1 = oc::load_vec<N>(src + i);
    const auto x2 = oc::load_vec<N>(src + shape.half + i);
    const auto c = oc::load_vec<N>(cr + i);
    const auto s = oc::load_vec<N>(sr + i);
    AlignedVector<T, N> y1, y2;
#pragma unroll
    for (int e = 0; e < N; ++e) {
      const A cv = static_cast<A>(to_acc(c.val[e]));
      const A sv = sign * static_cast<A>(to_acc(s.val[e]));
      const A a = to_acc(x1.val[e]);
      const A b = to_acc(x2.val[e]);
      y1.val[e] = oc::from_acc<T>(a * cv - b * sv);
      y2.val[e] = oc::from_acc<T>(b * cv + a * sv);
    }
    oc::store_vec<N>(dst + i, y1);
    oc::store_vec<N>(dst + shape.half + i, y2);
  }

  // Dims past the rotary part are copied (partial rotary).
  const int rest = shape.dim - 2 * shape.half;
  if (rest > 0) {
    for (int u = threadIdx.x; u < heads * rest; u += blockDim.x) {
      const int h = u / rest;
      const int e = 2 * shape.half + (u - h * rest);
      const T* src;
      T* dst;
      head_ptrs(h, src, dst);
      dst[e] = src[e];
    }
  }
}

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
  const int32_t device = q.get_device_index();
  for (const Tensor* t : {&k, &cos, &sin}) {
    STD_TORCH_CHECK(t->is_cuda() && t->get_device_index() == device, op, ": all tensors must be on q's device");
  }
  STD_TORCH_CHECK(q.size(-2) * q.size(-1) <= INT_MAX && k.size(-2) * k.size(-1) <= INT_MAX && q.size(-3) <= INT_MAX,
                  op, ": heads * head_dim and the number of positions must fit in int32");
}

std::tuple<Tensor, Tensor> rotary_cuda(const Tensor& q, const Tensor& k, const Tensor& cos, const Tensor& sin,
                                       bool inverse, const char* op) {
  STD_TORCH_CHECK(q.is_cuda(), op, ": CUDA kernel called with non-CUDA tensors");
  check_layout(q, k, cos, sin, op);
  const int32_t device = q.get_device_index();
  torch::stable::accelerator::DeviceGuard guard(device);
  common::OutputBuffer q_out(q);
  common::OutputBuffer k_out(k);
  RotaryShape shape{static_cast<int>(q.size(-2)), static_cast<int>(k.size(-2)), static_cast<int>(q.size(-1)),
                    static_cast<int>(cos.size(1)), static_cast<int>(q.size(-3))};
  const int64_t per_token = static_cast<int64_t>(shape.heads_q + shape.heads_k) * shape.dim;
  if (per_token == 0 || q.numel() + k.numel() == 0) {
    return {q_out.finish(), k_out.finish()};
  }
  // Tokens: everything but the last two dims (the same for q and k).
  const int64_t tokens = q.size(-3) * (q.dim() == 4 ? q.size(0) : 1);
  const Tensor qc = common::contiguous_or_self(q);
  const Tensor kc = common::contiguous_or_self(k);
  const Tensor cc = common::contiguous_or_self(cos);
  const Tensor sc = common::contiguous_or_self(sin);
  const cudaStream_t stream = oc::current_stream(device);

  common::dispatch_norm_types<oc::CudaTypes>(q.scalar_type(), cos.scalar_type(), op, [&](auto t_tag, auto c_tag) {
    using T = typename decltype(t_tag)::type;
    using C = typename decltype(c_tag)::type;
    using A = acc_t<T>;
    constexpr int N = oc::kVecSize<T>;
    T* qo = static_cast<T*>(q_out.work().mutable_data_ptr());
    T* ko = static_cast<T*>(k_out.work().mutable_data_ptr());
    const auto* qi = static_cast<const T*>(qc.const_data_ptr());
    const auto* ki = static_cast<const T*>(kc.const_data_ptr());
    const auto* cp = static_cast<const C*>(cc.const_data_ptr());
    const auto* sp = static_cast<const C*>(sc.const_data_ptr());
    // Vector pairs need N | R/2 and N | D (every head and half-row starts
    // aligned) and aligned base pointers.
    const bool vec = shape.half % N == 0 && shape.dim % N == 0 && oc::is_aligned<oc::kVecBytes>(qo) &&
                     oc::is_aligned<oc::kVecBytes>(ko) && oc::is_aligned<oc::kVecBytes>(qi) &&
                     oc::is_aligned<oc::kVecBytes>(ki) && oc::is_aligned<oc::kVecBytes>(cp) &&
                     oc::is_aligned<oc::kVecBytes>(sp);
    const int64_t work = static_cast<int64_t>(shape.heads_q + shape.heads_k) *
                         std::max<int64_t>(shape.half / (vec ? N : 1), shape.dim - 2 * shape.half);
    const int threads = static_cast<int>(std::clamp<int64_t>(oc::ceil_div<int64_t>(work, 32) * 32, 32, 256));
    const A sign = inverse ? A(-1) : A(1);
    oc::launch_rows(tokens, [&](unsigned int grid, int64_t token_offset) {
      if (vec) {
        rotary_kernel<T, C, true><<<grid, threads, 0, stream>>>(qo, ko, qi, ki, cp, sp, token_offset, shape, sign);
      } else {
        rotary_kernel<T, C, false><<<grid, threads, 0, stream>>>(qo, ko, qi, ki, cp, sp, token_offset, shape, sign);
      }
      STD_CUDA_KERNEL_LAUNCH_CHECK();
    });
  });
  return {q_out.finish(), k_out.finish()};
}

}  // namespace

std::tuple<torch::stable::Tensor, torch::stable::Tensor> opgen::kernels::rotary_embedding_cuda(
    const torch::stable::Tensor& q, const torch::stable::Tensor& k, const torch::stable::Tensor& cos,
    const torch::stable::Tensor& sin) {
  return rotary_cuda(q, k, cos, sin, /*inverse=*/false, "opgen::rotary_embedding");
}

std::tuple<torch::stable::Tensor, torch::stable::Tensor> opgen::kernels::rotary_embedding_backward_cuda(
    const torch::stable::Tensor& grad_0, const torch::stable::Tensor& grad_1, const torch::stable::Tensor& cos,
    const torch::stable::Tensor& sin) {
  return rotary_cuda(grad_0, grad_1, cos, sin, /*inverse=*/true, "opgen::rotary_embedding_backward");
}
