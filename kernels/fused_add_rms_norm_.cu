// CUDA kernel for opgen::fused_add_rms_norm_ (stable ABI), vLLM semantics:
//
//   residual <- input + residual            (rounded to the tensors' dtype)
//   input    <- rms_norm(residual, weight, eps)
//
// One block per row: pass 1 adds, stores the residual and accumulates the sum
// of squares of the rounded residual; pass 2 re-reads the residual (the
// thread's own writes, L1/L2 hot) and writes the normalized row into input.
// 128-bit vectorized on the aligned middle of each row, scalar head/tail.
// Non-contiguous input/residual go through contiguous copies that are copied
// back (stream-ordered).

#include "opgen/kernels/fused_add_rms_norm_.h"

#include "common/cuda_utils.cuh"
#include "common/stable_cuda_utils.h"
#include "common/stable_utils.h"

#include <torch/csrc/stable/accelerator.h>
#include <torch/csrc/stable/macros.h>
#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>

#include <climits>
#include <cstdint>

namespace {

namespace oc = opgen::kernels::cuda;
using oc::acc_t;
using oc::AlignedVector;
using oc::to_acc;

template <class T, class W>
__global__ void fused_add_rms_norm_kernel(T* __restrict__ input, T* __restrict__ residual,
                                          const W* __restrict__ weight, int64_t row_offset, int hidden,
                                          acc_t<T> eps) {
  using A = acc_t<T>;
  constexpr int N = oc::kVecSize<T>;
  const A inv_h = A(1) / static_cast<A>(hidden);
  const int64_t row = row_offset + blockIdx.x;
  T* x = input + row * hidden;
  T* res = residual + row * hidden;
  const bool vec_ok =
      (reinterpret_cast<uintptr_t>(x) - reinterpret_cast<uintptr_t>(res)) % oc::kVecBytes == 0;

  A ss = 0;
  oc::for_each_in_row<N>(
      x, hidden, vec_ok,
      [&](int i) {
        const T z = oc::from_acc<T>(to_acc(x[i]) + to_acc(res[i]));
        res[i] = z;
        const A zv = to_acc(z);
        ss += zv * zv;
      },
      [&](int i) {
        const auto xv = oc::load_vec<N>(x + i);
        auto rv = oc::load_vec<N>(res + i);
#pragma unroll
        for (int k = 0; k < N; ++k) {
          rv.val[k] = oc::from_acc<T>(to_acc(xv.val[k]) + to_acc(rv.val[k]));
          const A zv = to_acc(rv.val[k]);
          ss += zv * zv;
        }
        oc::store_vec<N>(res + i, rv);
      });
  const A rstd = oc::inv_sqrt(oc::block_reduce_sum(ss) * inv_h + eps);

  oc::for_each_in_row<N>(
      x, hidden, vec_ok,
      [&](int i) { x[i] = oc::from_acc<T>(to_acc(res[i]) * rstd * static_cast<A>(to_acc(weight[i]))); },
      [&](int i) {
        const auto rv = oc::load_vec<N>(res + i);
        const auto wv =
            oc::load_vec_or_scalar<N>(weight + i, oc::is_aligned<sizeof(AlignedVector<W, N>)>(weight + i));
        AlignedVector<T, N> yv;
#pragma unroll
        for (int k = 0; k < N; ++k) {
          yv.val[k] = oc::from_acc<T>(to_acc(rv.val[k]) * rstd * static_cast<A>(to_acc(wv.val[k])));
        }
        oc::store_vec<N>(x + i, yv);
      });
}

}  // namespace

void opgen::kernels::fused_add_rms_norm__cuda(torch::stable::Tensor& input, torch::stable::Tensor& residual,
                                              const torch::stable::Tensor& weight, double eps) {
  constexpr const char* kOp = "opgen::fused_add_rms_norm_";
  STD_TORCH_CHECK(input.is_cuda() && residual.is_cuda() && weight.is_cuda(), kOp,
                  ": CUDA kernel called with non-CUDA tensors");
  const auto shape = common::row_shape(input, kOp);
  common::check_norm_weight(input, weight, shape.hidden, kOp);
  STD_TORCH_CHECK(shape.hidden <= INT_MAX, kOp, ": hidden size ", shape.hidden, " exceeds the CUDA kernel limit ",
                  INT_MAX);
  STD_TORCH_CHECK(common::same_sizes(input, residual), kOp, ": residual must have the input's shape");
  STD_TORCH_CHECK(residual.scalar_type() == input.scalar_type(), kOp, ": residual dtype ",
                  torch::headeronly::toString(residual.scalar_type()), " differs from input dtype ",
                  torch::headeronly::toString(input.scalar_type()));
  STD_TORCH_CHECK(residual.get_device_index() == input.get_device_index(), kOp,
                  ": residual must be on the same device as input");
  if (input.numel() == 0) {
    return;
  }

  const int32_t device = input.get_device_index();
  torch::stable::accelerator::DeviceGuard guard(device);
  common::InplaceBuffer x(input, input.is_contiguous());
  common::InplaceBuffer res(residual, residual.is_contiguous());
  const torch::stable::Tensor w = common::contiguous_or_self(weight);
  const cudaStream_t stream = cuda::current_stream(device);
  common::dispatch_norm_types<cuda::CudaTypes>(
      input.scalar_type(), w.scalar_type(), kOp, [&](auto t_tag, auto w_tag) {
        using T = typename decltype(t_tag)::type;
        using W = typename decltype(w_tag)::type;
        const int threads = oc::row_block_threads(shape.rows, shape.hidden, oc::kVecSize<T>);
        oc::launch_rows(shape.rows, [&](unsigned int grid, int64_t row_offset) {
          fused_add_rms_norm_kernel<T, W><<<grid, threads, 0, stream>>>(
              static_cast<T*>(x.work().mutable_data_ptr()), static_cast<T*>(res.work().mutable_data_ptr()),
              static_cast<const W*>(w.const_data_ptr()), row_offset, static_cast<int>(shape.hidden),
              static_cast<acc_t<T>>(eps));
          STD_CUDA_KERNEL_LAUNCH_CHECK();
        });
      });
  res.commit();
  x.commit();
}
