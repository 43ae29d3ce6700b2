// CUDA kernels for opgen::softmax_cross_entropy and its backward (stable ABI),
// apex xentropy semantics with PyTorch's label smoothing and ignore_index:
//
//   lse  = log(sum(exp(x)))
//   loss = lse - (1 - eps) * x[label] - eps * mean(x)            (0 if ignored)
//   dx   = g * (exp(x - lse) - (1 - eps) * onehot(label) - eps / C)  (0 if ignored)
//
// Forward: one block per row and a single 128-bit vectorized read of the row:
// an online log-sum-exp (running max with a rescaled running sum) and the sum
// of the logits in the same pass, merged across the block with warp-shuffle +
// shared-memory reductions. Backward: one block per row, one read of the row
// and one write. Math in float (double for float64); lse is stored in that
// type. A label outside [0, C) that is not ignore_index gives a NaN loss (no
// out-of-bounds read, no device assert).

#include "opgen/kernels/softmax_cross_entropy.h"
#include "opgen/kernels/softmax_cross_entropy_backward.h"

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

namespace oc = opgen::kernels::cuda;
using oc::acc_t;
using oc::AlignedVector;
using oc::to_acc;
using torch::stable::Tensor;

__device__ __forceinline__ float exp_acc(float v) { return expf(v); }
__device__ __forceinline__ double exp_acc(double v) { return exp(v); }
__device__ __forceinline__ float log_acc(float v) { return logf(v); }
__device__ __forceinline__ double log_acc(double v) { return log(v); }

__device__ __forceinline__ bool congruent(const void* a, const void* b) {
  return (reinterpret_cast<uintptr_t>(a) - reinterpret_cast<uintptr_t>(b)) % oc::kVecBytes == 0;
}

// Running (max, sum of exp(x - max)) of one thread.
template <class A>
struct OnlineLse {
  A max = static_cast<A>(-INFINITY);
  A sum = 0;

  __device__ __forceinline__ void add(A v) {
    if (v > max) {
      sum = sum * exp_acc(max - v) + A(1);
      max = v;
    } else if (!(v == max && v == static_cast<A>(-INFINITY))) {
      sum += exp_acc(v - max);  // NaN propagates
    }
  }
};

template <class T>
__global__ void xent_fwd_kernel(T* __restrict__ losses, acc_t<T>* __restrict__ lse_out, const T* __restrict__ logits,
                                const int64_t* __restrict__ labels, int64_t row_offset, int classes,
                                acc_t<T> smoothing, int64_t ignore_index) {
  using A = acc_t<T>;
  constexpr int N = oc::kVecSize<T>;
  const int64_t row = row_offset + blockIdx.x;
  const T* x = logits + row * classes;

  OnlineLse<A> lse;
  A sum_x = 0;
  oc::for_each_in_row<N>(
      x, classes, true,
      [&](int i) {
        const A v = to_acc(x[i]);
        lse.add(v);
        sum_x += v;
      },
      [&](int i) {
        const auto xv = oc::load_vec<N>(x + i);
#pragma unroll
        for (int k = 0; k < N; ++k) {
          const A v = to_acc(xv.val[k]);
          lse.add(v);
          sum_x += v;
        }
      });
  const A row_max = oc::block_reduce(lse.max, oc::NanMaxOp{}, static_cast<A>(-INFINITY));
  const A scaled = lse.sum == A(0) ? A(0) : lse.sum * exp_acc(lse.max - row_max);
  const A sum_exp = oc::block_reduce_sum(scaled);
  sum_x = oc::block_reduce_sum(sum_x);
  if (threadIdx.x == 0) {
    const A l = row_max + log_acc(sum_exp);
    lse_out[row] = l;
    const int64_t label = labels[row];
    A loss;
    if (label == ignore_index) {
      loss = 0;
    } else if (label < 0 || label >= classes) {
      loss = static_cast<A>(NAN);
    } else {
      const A nll = l - to_acc(x[label]);
      // Left out without smoothing: with a -inf logit it is inf, and 0 * inf is NaN.
      const A smooth = smoothing == A(0) ? A(0) : smoothing * (l - sum_x / static_cast<A>(classes));
      loss = (A(1) - smoothing) * nll + smooth;
    }
    losses[row] = oc::from_acc<T>(loss);
  }
}

template <class T>
__global__ void xent_bwd_kernel(T* __restrict__ dx, const T* __restrict__ grad, const T* __restrict__ logits,
                                const acc_t<T>* __restrict__ lse, const int64_t* __restrict__ labels,
                                int64_t row_offset, int classes, acc_t<T> smoothing, int64_t ignore_index) {
  using A = acc_t<T>;
  constexpr int N = oc::kVecSize<T>;
  const int64_t row = row_offset + blockIdx.x;
  const T* x = logits + row * classes;
  T* d = dx + row * classes;
  const int64_t label = labels[row];
  const bool ignored = label == ignore_index;
  const A g = ignored ? A(0) : to_acc(grad[row]);
  const A l = lse[row];
  const A eps_per_class = smoothing / static_cast<A>(classes);
  const A on_label = A(1) - smoothing;
  // A label the forward rejects (its loss is NaN there) gives a NaN gradient
  // row, as the forward does, not a silently wrong one.
  const bool bad = !ignored && (label < 0 || label >= classes);
  auto one = [&](A v, int64_t j) {
    if (ignored) return A(0);
    if (bad) return static_cast<A>(NAN);
    return g * (exp_acc(v - l) - eps_per_class - (j == label ? on_label : A(0)));
  };
  oc::for_each_in_row<N>(
      x, classes, congruent(x, d), [&](int i) { d[i] = oc::from_acc<T>(one(to_acc(x[i]), i)); },
      [&](int i) {
        const auto xv = oc::load_vec<N>(x + i);
        AlignedVector<T, N> dv;
#pragma unroll
        for (int k = 0; k < N; ++k) dv.val[k] = oc::from_acc<T>(one(to_acc(xv.val[k]), i + k));
        oc::store_vec<N>(d + i, dv);
      });
}

void check_shapes(const Tensor& logits, const Tensor& labels, const char* op) {
  STD_TORCH_CHECK(logits.dim() == 2, op, ": expected 2-D logits [N, C]");
  STD_TORCH_CHECK(labels.dim() == 1 && labels.size(0) == logits.size(0), op, ": expected labels of shape [",
                  logits.size(0), "]");
  STD_TORCH_CHECK(labels.scalar_type() == torch::headeronly::ScalarType::Long, op, ": labels must be int64");
  STD_TORCH_CHECK(labels.is_cuda() && labels.get_device_index() == logits.get_device_index(), op,
                  ": labels must be on the logits' device");
  STD_TORCH_CHECK(logits.size(1) <= INT_MAX, op, ": ", logits.size(1), " classes exceed the CUDA kernel limit ",
                  INT_MAX);
}

}  // namespace

std::tuple<torch::stable::Tensor, torch::stable::Tensor> opgen::kernels::softmax_cross_entropy_cuda(
    const torch::stable::Tensor& logits, const torch::stable::Tensor& labels, double smoothing,
    int64_t ignore_index) {
  constexpr const char* kOp = "opgen::softmax_cross_entropy";
  STD_TORCH_CHECK(logits.is_cuda(), kOp, ": CUDA kernel called with non-CUDA tensors");
  check_shapes(logits, labels, kOp);
  const int32_t device = logits.get_device_index();
  torch::stable::accelerator::DeviceGuard guard(device);
  const int64_t rows = logits.size(0);
  const int64_t classes = logits.size(1);
  Tensor losses = torch::stable::new_empty(logits, {rows});
  Tensor lse = torch::stable::new_empty(logits, {rows}, common::acc_scalar_type(logits.scalar_type()));
  if (rows == 0) return {losses, lse};
  STD_TORCH_CHECK(classes >= 1, kOp, ": logits must have at least one class");
  const Tensor x = common::contiguous_or_self(logits);
  const Tensor lab = common::contiguous_or_self(labels);
  const cudaStream_t stream = cuda::current_stream(device);
  common::dispatch_floating<cuda::CudaTypes>(x.scalar_type(), kOp, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = acc_t<T>;
    const int threads = oc::row_block_threads(rows, classes, oc::kVecSize<T>);
    oc::launch_rows(rows, [&](unsigned int grid, int64_t row_offset) {
      xent_fwd_kernel<T><<<grid, threads, 0, stream>>>(
          static_cast<T*>(losses.mutable_data_ptr()), static_cast<A*>(lse.mutable_data_ptr()),
          static_cast<const T*>(x.const_data_ptr()), static_cast<const int64_t*>(lab.const_data_ptr()), row_offset,
          static_cast<int>(classes), static_cast<A>(smoothing), ignore_index);
      STD_CUDA_KERNEL_LAUNCH_CHECK();
    });
  });
  return {losses, lse};
}

torch::stable::Tensor opgen::kernels::softmax_cross_entropy_backward_cuda(
    const torch::stable::Tensor& grad_losses, const torch::stable::Tensor& logits,
    const torch::stable::Tensor& max_log_sum_exp, const torch::stable::Tensor& labels, double smoothing,
    int64_t ignore_index) {
  constexpr const char* kOp = "opgen::softmax_cross_entropy_backward";
  STD_TORCH_CHECK(logits.is_cuda(), kOp, ": CUDA kernel called with non-CUDA tensors");
  check_shapes(logits, labels, kOp);
  const int64_t rows = logits.size(0);
  const int64_t classes = logits.size(1);
  STD_TORCH_CHECK(grad_losses.dim() == 1 && grad_losses.size(0) == rows && max_log_sum_exp.dim() == 1 &&
                      max_log_sum_exp.size(0) == rows,
                  kOp, ": grad_losses and max_log_sum_exp must have shape [", rows, "]");
  STD_TORCH_CHECK(max_log_sum_exp.scalar_type() == common::acc_scalar_type(logits.scalar_type()), kOp,
                  ": max_log_sum_exp has the wrong dtype");
  const int32_t device = logits.get_device_index();
  STD_TORCH_CHECK(grad_losses.is_cuda() && grad_losses.get_device_index() == device && max_log_sum_exp.is_cuda() &&
                      max_log_sum_exp.get_device_index() == device,
                  kOp, ": all tensors must be on the logits' device");
  torch::stable::accelerator::DeviceGuard guard(device);
  common::OutputBuffer dx(logits);
  if (logits.numel() == 0) return dx.finish();
  const Tensor x = common::contiguous_or_self(logits);
  const Tensor g = common::contiguous_or_self(grad_losses);
  const Tensor l = common::contiguous_or_self(max_log_sum_exp);
  const Tensor lab = common::contiguous_or_self(labels);
  const cudaStream_t stream = cuda::current_stream(device);
  common::dispatch_floating<cuda::CudaTypes>(x.scalar_type(), kOp, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = acc_t<T>;
    const int threads = oc::row_block_threads(rows, classes, oc::kVecSize<T>);
    oc::launch_rows(rows, [&](unsigned int grid, int64_t row_offset) {
      xent_bwd_kernel<T><<<grid, threads, 0, stream>>>(
          static_cast<T*>(dx.work().mutable_data_ptr()), static_cast<const T*>(g.const_data_ptr()),
          static_cast<const T*>(x.const_data_ptr()), static_cast<const A*>(l.const_data_ptr()),
          static_cast<const int64_t*>(lab.const_data_ptr()), row_offset, static_cast<int>(classes),
          static_cast<A>(smoothing), ignore_index);
      STD_CUDA_KERNEL_LAUNCH_CHECK();
    });
  });
  return dx.finish();
}
