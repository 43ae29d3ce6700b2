// CUDA kernels for opgen::layer_norm and opgen::layer_norm_backward (stable ABI).
//
//   y    = (x - mean) * rstd * w + b,  rstd = 1 / sqrt(var + eps)  (biased var)
//   xhat = (x - mean) * rstd
//   dx   = rstd * (g*w - mean(g*w) - xhat * mean(g*w * xhat))
//   dw   = sum over rows of g * xhat,  db = sum over rows of g
//
// Forward: one block per row. The row is read from global memory once: it is
// staged in shared memory (when it fits) during the first, 128-bit vectorized
// pass, so the two-pass statistics (mean of the row shifted by its first
// element, then sum((x - mean)^2)) and the output pass run out of shared
// memory. Rows too long for shared memory
// re-read global memory (mostly L2 hits). Warp-shuffle + shared-memory block
// reductions, float accumulation (double for float64), statistics stored in
// that accumulation type.
// Backward: dx one block per row (two vectorized passes); dw/db a
// deterministic two-stage column reduction (per (column tile, row chunk)
// partials, then a sum over chunks). No atomics.
// Non-contiguous inputs are made contiguous; outputs have torch.empty_like's
// layout (the `like(...)` fakes), the statistics are contiguous.

#include "opgen/kernels/layer_norm.h"
#include "opgen/kernels/layer_norm_backward.h"

#include "common/cuda_utils.cuh"
#include "common/kernel_switch.h"
#include "common/norm_backward.cuh"
#include "common/norm_forward_regs.cuh"
#include "common/stable_cuda_utils.h"
#include "common/stable_utils.h"

#include <torch/csrc/stable/accelerator.h>
#include <torch/csrc/stable/macros.h>
#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>

#include <climits>
#include <cstdint>
#include <optional>
#include <tuple>

namespace {

namespace oc = opgen::kernels::cuda;
using oc::acc_t;
using oc::AlignedVector;
using oc::to_acc;
using torch::stable::Tensor;

// Dynamic shared memory for the staged row; with the kernel's static shared
// memory this stays under the 48 KiB a launch gets without an opt-in.
constexpr int kMaxCachedBytes = 46 * 1024;

__device__ __forceinline__ bool congruent(const void* a, const void* b) {
  return (reinterpret_cast<uintptr_t>(a) - reinterpret_cast<uintptr_t>(b)) % oc::kVecBytes == 0;
}

template <int N, class W>
__device__ __forceinline__ AlignedVector<W, N> load_param(const W* p) {
  return oc::load_vec_or_scalar<N>(p, oc::is_aligned<sizeof(AlignedVector<W, N>)>(p));
}

// ---------------------------------------------------------------------------
// Forward
// ---------------------------------------------------------------------------
// kCached: the row lives in shared memory after the first pass, at offset
// `cache_offset` so that the vector accesses there are 16-byte aligned too.
template <class T, bool kCached>
__global__ void layer_norm_fwd_kernel(T* __restrict__ out, acc_t<T>* __restrict__ mean_out,
                                      acc_t<T>* __restrict__ rstd_out, const T* __restrict__ in,
                                      const T* __restrict__ weight, const T* __restrict__ bias, int64_t row_offset,
                                      int hidden, acc_t<T> eps) {
  using A = acc_t<T>;
  constexpr int N = oc::kVecSize<T>;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const int64_t row = row_offset + blockIdx.x;
  const T* x = in + row * hidden;
  T* y = out + row * hidden;
  const int prefix = oc::aligned_prefix<N>(x, hidden);
  const int cache_offset = (N - prefix % N) % N;
  T* cache = reinterpret_cast<T*>(smem_raw) + cache_offset;

  // Pass 1: sum of the row shifted by its first element (a large common
  // offset then costs no precision), staging the row.
  const A shift = hidden > 0 ? to_acc(x[0]) : A(0);
  A sum = 0;
  oc::for_each_in_row<N>(
      x, hidden, true,
      [&](int i) {
        const T v = x[i];
        if constexpr (kCached) cache[i] = v;
        sum += to_acc(v) - shift;
      },
      [&](int i) {
        const auto v = oc::load_vec<N>(x + i);
        if constexpr (kCached) oc::store_vec<N>(cache + i, v);
#pragma unroll
        for (int k = 0; k < N; ++k) sum += to_acc(v.val[k]) - shift;
      });
  const A inv_h = hidden > 0 ? A(1) / static_cast<A>(hidden) : A(0);
  const A mean = shift + oc::block_reduce_sum(sum) * inv_h;  // its __syncthreads also publishes the cache

  const T* src = kCached ? cache : x;
  // Pass 2: sum of squared deviations (exact two-pass variance).
  A m2 = 0;
  oc::for_each_in_row<N>(
      x, hidden, true,
      [&](int i) {
        const A d = to_acc(src[i]) - mean;
        m2 += d * d;
      },
      [&](int i) {
        const auto v = oc::load_vec<N>(src + i);
#pragma unroll
        for (int k = 0; k < N; ++k) {
          const A d = to_acc(v.val[k]) - mean;
          m2 += d * d;
        }
      });
  const A rstd = oc::inv_sqrt(oc::block_reduce_sum(m2) * inv_h + eps);
  if (threadIdx.x == 0) {
    mean_out[row] = mean;
    rstd_out[row] = rstd;
  }

  // Pass 3: output.
  oc::for_each_in_row<N>(
      x, hidden, congruent(x, y),
      [&](int i) {
        A v = (to_acc(src[i]) - mean) * rstd * to_acc(weight[i]);
        if (bias != nullptr) v += to_acc(bias[i]);
        y[i] = oc::from_acc<T>(v);
      },
      [&](int i) {
        const auto xv = oc::load_vec<N>(src + i);
        const auto wv = load_param<N>(weight + i);
        AlignedVector<T, N> bv;
        if (bias != nullptr) bv = load_param<N>(bias + i);
        AlignedVector<T, N> yv;
#pragma unroll
        for (int k = 0; k < N; ++k) {
          A v = (to_acc(xv.val[k]) - mean) * rstd * to_acc(wv.val[k]);
          if (bias != nullptr) v += to_acc(bv.val[k]);
          yv.val[k] = oc::from_acc<T>(v);
        }
        oc::store_vec<N>(y + i, yv);
      });
}

// ---------------------------------------------------------------------------
// Forward, the row in registers (issue 36: behind OPGEN_REGISTER_LAYER_NORM,
// off until a GPU run shows it correct and faster). The block kernel above
// stages the row in shared memory and runs two block reductions per row: at
// hidden 1K-16K in bfloat16 it reaches 50-64 % of the copy bandwidth, where
// Liger's Triton kernel, its row in registers, reaches 80-84 %. Here x is read
// once, into registers (common/norm_forward_regs.cuh), and both statistics
// are row reductions.
// ---------------------------------------------------------------------------
namespace regs = oc::regs;

bool register_forward_enabled() { return opgen::kernels::kernel_switch("OPGEN_REGISTER_LAYER_NORM", false); }

template <class T, int kVecs>
__global__ void __launch_bounds__(regs::kBlockThreads)
    layer_norm_fwd_regs_kernel(T* __restrict__ out, acc_t<T>* __restrict__ mean_out, acc_t<T>* __restrict__ rstd_out,
                               const T* __restrict__ in, const T* __restrict__ weight, const T* __restrict__ bias,
                               int64_t row_offset, int64_t rows, int hidden, acc_t<T> eps) {
  using A = acc_t<T>;
  constexpr int N = oc::kVecSize<T>;
  __shared__ A scratch[regs::kBlockThreads / oc::kWarpSize];
  A* row_scratch = scratch + threadIdx.y * (blockDim.x / oc::kWarpSize);
  const int64_t row = row_offset + static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
  // A thread past the last row still takes part in the reductions' barriers, with nothing to add.
  const bool live = row < rows;
  const T* x = in + (live ? row : 0) * hidden;

  // The row, and its sum shifted by its first element (a large common offset then costs no precision).
  const A shift = to_acc(x[0]);
  AlignedVector<T, N> v[kVecs];
  A sum = 0;
  regs::load_row(v, x, hidden, live, [&](A e) { sum += e - shift; });
  const A inv_h = A(1) / static_cast<A>(hidden);
  const A mean = shift + regs::row_sum(sum, row_scratch) * inv_h;
  A m2 = 0;  // exact two-pass variance, the second pass over registers
  regs::for_each_loaded(v, hidden, live, [&](A e) {
    const A d = e - mean;
    m2 += d * d;
  });
  const A rstd = oc::inv_sqrt(regs::row_sum(m2, row_scratch) * inv_h + eps);
  if (!live) return;
  if (threadIdx.x == 0) {
    mean_out[row] = mean;
    rstd_out[row] = rstd;
  }
  T* y = out + row * hidden;
#pragma unroll
  for (int k = 0; k < kVecs; ++k) {
    const int i = regs::vec_offset(k, N);
    if (i < hidden) {
      const auto wv = oc::load_vec<N>(weight + i);
      AlignedVector<T, N> bv;
      if (bias != nullptr) bv = oc::load_vec<N>(bias + i);
      AlignedVector<T, N> yv;
#pragma unroll
      for (int n = 0; n < N; ++n) {
        A r = (to_acc(v[k].val[n]) - mean) * rstd * to_acc(wv.val[n]);
        if (bias != nullptr) r += to_acc(bv.val[n]);
        yv.val[n] = oc::from_acc<T>(r);
      }
      oc::store_vec<N>(y + i, yv);
    }
  }
}

// ---------------------------------------------------------------------------
// Backward: dx
// ---------------------------------------------------------------------------
template <class T>
__global__ void layer_norm_bwd_dx_kernel(T* __restrict__ dx, const T* __restrict__ grad, const T* __restrict__ in,
                                         const acc_t<T>* __restrict__ mean, const acc_t<T>* __restrict__ rstd,
                                         const T* __restrict__ weight, int64_t row_offset, int hidden) {
  using A = acc_t<T>;
  constexpr int N = oc::kVecSize<T>;
  const int64_t row = row_offset + blockIdx.x;
  const T* x = in + row * hidden;
  const T* g = grad + row * hidden;
  T* d = dx + row * hidden;
  const A mu = mean[row];
  const A rs = rstd[row];
  const A inv_h = A(1) / static_cast<A>(hidden);

  A sum_gw = 0;
  A sum_gw_xhat = 0;
  oc::for_each_in_row<N>(
      x, hidden, congruent(x, g),
      [&](int i) {
        const A gw = to_acc(g[i]) * to_acc(weight[i]);
        sum_gw += gw;
        sum_gw_xhat += gw * (to_acc(x[i]) - mu) * rs;
      },
      [&](int i) {
        const auto xv = oc::load_vec<N>(x + i);
        const auto gv = oc::load_vec<N>(g + i);
        const auto wv = load_param<N>(weight + i);
#pragma unroll
        for (int k = 0; k < N; ++k) {
          const A gw = to_acc(gv.val[k]) * to_acc(wv.val[k]);
          sum_gw += gw;
          sum_gw_xhat += gw * (to_acc(xv.val[k]) - mu) * rs;
        }
      });
  const A c1 = oc::block_reduce_sum(sum_gw) * inv_h;
  const A c2 = oc::block_reduce_sum(sum_gw_xhat) * inv_h;

  oc::for_each_in_row<N>(
      x, hidden, congruent(x, g) && congruent(x, d),
      [&](int i) {
        const A xhat = (to_acc(x[i]) - mu) * rs;
        d[i] = oc::from_acc<T>(rs * (to_acc(g[i]) * to_acc(weight[i]) - c1 - xhat * c2));
      },
      [&](int i) {
        const auto xv = oc::load_vec<N>(x + i);
        const auto gv = oc::load_vec<N>(g + i);
        const auto wv = load_param<N>(weight + i);
        AlignedVector<T, N> dv;
#pragma unroll
        for (int k = 0; k < N; ++k) {
          const A xhat = (to_acc(xv.val[k]) - mu) * rs;
          dv.val[k] = oc::from_acc<T>(rs * (to_acc(gv.val[k]) * to_acc(wv.val[k]) - c1 - xhat * c2));
        }
        oc::store_vec<N>(d + i, dv);
      });
}

// ---------------------------------------------------------------------------
// Backward: dw = sum_rows(g * xhat), db = sum_rows(g)
// ---------------------------------------------------------------------------
constexpr int kDwCols = 32;       // columns per block (threadIdx.x), coalesced along the row
constexpr int kDwRowThreads = 8;  // threadIdx.y strides over the rows of the chunk

// Block (x, y) sums rows [y * rows_per_chunk, ...) of columns [x * kDwCols, ...).
// With one chunk it writes dw/db directly, else partials ([chunks, 2, hidden]).
template <class T>
__global__ void layer_norm_bwd_dwdb_partial_kernel(acc_t<T>* __restrict__ partial, T* __restrict__ dw,
                                                   T* __restrict__ db, const T* __restrict__ grad,
                                                   const T* __restrict__ in, const acc_t<T>* __restrict__ mean,
                                                   const acc_t<T>* __restrict__ rstd, int64_t rows, int hidden,
                                                   int64_t rows_per_chunk) {
  using A = acc_t<T>;
  __shared__ A tile_w[kDwRowThreads][kDwCols + 1];
  __shared__ A tile_b[kDwRowThreads][kDwCols + 1];
  const int col = blockIdx.x * kDwCols + threadIdx.x;
  const int64_t r_begin = static_cast<int64_t>(blockIdx.y) * rows_per_chunk;
  const int64_t r_end = r_begin + rows_per_chunk < rows ? r_begin + rows_per_chunk : rows;

  A acc_w = 0;
  A acc_b = 0;
  if (col < hidden) {
    constexpr int kUnroll = 4;
    int64_t r = r_begin + threadIdx.y;
    for (; r + (kUnroll - 1) * kDwRowThreads < r_end; r += kUnroll * kDwRowThreads) {
      A gv[kUnroll], xv[kUnroll], mv[kUnroll], sv[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const int64_t rr = r + u * kDwRowThreads;
        gv[u] = to_acc(grad[rr * hidden + col]);
        xv[u] = to_acc(in[rr * hidden + col]);
        mv[u] = mean[rr];
        sv[u] = rstd[rr];
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        acc_w += gv[u] * (xv[u] - mv[u]) * sv[u];
        acc_b += gv[u];
      }
    }
    for (; r < r_end; r += kDwRowThreads) {
      const A gv = to_acc(grad[r * hidden + col]);
      acc_w += gv * (to_acc(in[r * hidden + col]) - mean[r]) * rstd[r];
      acc_b += gv;
    }
  }
  tile_w[threadIdx.y][threadIdx.x] = acc_w;
  tile_b[threadIdx.y][threadIdx.x] = acc_b;
  __syncthreads();
  if (threadIdx.y == 0 && col < hidden) {
    A sw = 0;
    A sb = 0;
#pragma unroll
    for (int k = 0; k < kDwRowThreads; ++k) {
      sw += tile_w[k][threadIdx.x];
      sb += tile_b[k][threadIdx.x];
    }
    if (gridDim.y == 1) {
      dw[col] = oc::from_acc<T>(sw);
      db[col] = oc::from_acc<T>(sb);
    } else {
      A* p = partial + static_cast<int64_t>(blockIdx.y) * 2 * hidden;
      p[col] = sw;
      p[hidden + col] = sb;
    }
  }
}

template <class T>
__global__ void layer_norm_bwd_dwdb_finalize_kernel(T* __restrict__ dw, T* __restrict__ db,
                                                    const acc_t<T>* __restrict__ partial, int num_chunks,
                                                    int hidden) {
  using A = acc_t<T>;
  for (int col = blockIdx.x * blockDim.x + threadIdx.x; col < hidden; col += gridDim.x * blockDim.x) {
    A sw = 0;
    A sb = 0;
    for (int c = 0; c < num_chunks; ++c) {
      sw += partial[static_cast<int64_t>(c) * 2 * hidden + col];
      sb += partial[static_cast<int64_t>(c) * 2 * hidden + hidden + col];
    }
    dw[col] = oc::from_acc<T>(sw);
    db[col] = oc::from_acc<T>(sb);
  }
}

void check_hidden(int64_t hidden, const char* op) {
  STD_TORCH_CHECK(hidden <= INT_MAX, op, ": hidden size ", hidden, " exceeds the CUDA kernel limit ", INT_MAX);
}

void check_bias(const Tensor& input, const std::optional<Tensor>& bias, int64_t hidden, const char* op) {
  if (!bias.has_value()) return;
  STD_TORCH_CHECK(bias->dim() == 1 && bias->size(0) == hidden, op, ": expected bias of shape [", hidden, "]");
  STD_TORCH_CHECK(bias->scalar_type() == input.scalar_type(), op, ": bias must have the input's dtype");
  STD_TORCH_CHECK(bias->is_cuda() && bias->get_device_index() == input.get_device_index(), op,
                  ": bias must be on the same device as input");
}

}  // namespace

std::tuple<torch::stable::Tensor, torch::stable::Tensor, torch::stable::Tensor> opgen::kernels::layer_norm_cuda(
    const torch::stable::Tensor& input, const torch::stable::Tensor& weight,
    const std::optional<torch::stable::Tensor>& bias, double eps) {
  constexpr const char* kOp = "opgen::layer_norm";
  STD_TORCH_CHECK(input.is_cuda() && weight.is_cuda(), kOp, ": CUDA kernel called with non-CUDA tensors");
  const auto shape = common::row_shape(input, kOp);
  common::check_norm_weight(input, weight, shape.hidden, kOp);
  STD_TORCH_CHECK(weight.scalar_type() == input.scalar_type(), kOp, ": weight must have the input's dtype");
  check_bias(input, bias, shape.hidden, kOp);
  check_hidden(shape.hidden, kOp);

  const int32_t device = input.get_device_index();
  torch::stable::accelerator::DeviceGuard guard(device);
  const auto acc_type = common::acc_scalar_type(input.scalar_type());
  common::OutputBuffer y(input);
  Tensor mean = torch::stable::new_empty(input, common::leading_sizes(input), acc_type);
  Tensor rstd = torch::stable::new_empty(input, common::leading_sizes(input), acc_type);
  if (shape.rows == 0) {
    return {y.finish(), mean, rstd};
  }
  const Tensor x = common::contiguous_or_self(input);
  const Tensor w = common::contiguous_or_self(weight);
  // The bias, contiguous, when given. Held in a Tensor rather than a
  // std::optional<Tensor>, on which GCC 12 warns falsely (maybe-uninitialized).
  const bool has_bias = bias.has_value();
  const Tensor b = has_bias ? common::contiguous_or_self(*bias) : w;
  const cudaStream_t stream = cuda::current_stream(device);
  common::dispatch_floating<cuda::CudaTypes>(x.scalar_type(), kOp, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = acc_t<T>;
    constexpr int N = oc::kVecSize<T>;
    const int threads = oc::row_block_threads(shape.rows, shape.hidden, N);
    const int64_t cache_bytes = (shape.hidden + N) * static_cast<int64_t>(sizeof(T));
    const bool cached = cache_bytes <= kMaxCachedBytes;
    const auto* bp = has_bias ? static_cast<const T*>(b.const_data_ptr()) : nullptr;
    // The register kernel: rows of whole vectors, every pointer 16-byte aligned, at most regs::kMaxVecs per thread.
    const regs::Launch reg =
        shape.hidden % N == 0 ? regs::launch_for(shape.hidden / N, shape.hidden) : regs::Launch{};
    const bool aligned = oc::is_aligned<oc::kVecBytes>(x.const_data_ptr()) &&
                         oc::is_aligned<oc::kVecBytes>(y.work().const_data_ptr()) &&
                         oc::is_aligned<oc::kVecBytes>(w.const_data_ptr()) &&
                         (!has_bias || oc::is_aligned<oc::kVecBytes>(b.const_data_ptr()));
    if (reg.vecs_per_thread > 0 && aligned && register_forward_enabled()) {
      regs::launch_rows(shape.rows, reg, [&](unsigned int grid, dim3 block, int64_t row_offset) {
        auto launch = [&](auto kernel) {
          kernel<<<grid, block, 0, stream>>>(
              static_cast<T*>(y.work().mutable_data_ptr()), static_cast<A*>(mean.mutable_data_ptr()),
              static_cast<A*>(rstd.mutable_data_ptr()), static_cast<const T*>(x.const_data_ptr()),
              static_cast<const T*>(w.const_data_ptr()), bp, row_offset, shape.rows, static_cast<int>(shape.hidden),
              static_cast<A>(eps));
        };
        switch (reg.vecs_per_thread) {
          case 1: launch(layer_norm_fwd_regs_kernel<T, 1>); break;
          case 2: launch(layer_norm_fwd_regs_kernel<T, 2>); break;
          case 4: launch(layer_norm_fwd_regs_kernel<T, 4>); break;
          default: launch(layer_norm_fwd_regs_kernel<T, 8>); break;
        }
        STD_CUDA_KERNEL_LAUNCH_CHECK();
      });
      return;
    }
    oc::launch_rows(shape.rows, [&](unsigned int grid, int64_t row_offset) {
      auto args = [&](auto kernel, size_t smem) {
        kernel<<<grid, threads, smem, stream>>>(
            static_cast<T*>(y.work().mutable_data_ptr()), static_cast<A*>(mean.mutable_data_ptr()),
            static_cast<A*>(rstd.mutable_data_ptr()), static_cast<const T*>(x.const_data_ptr()),
            static_cast<const T*>(w.const_data_ptr()), bp, row_offset, static_cast<int>(shape.hidden),
            static_cast<A>(eps));
      };
      if (cached) {
        args(layer_norm_fwd_kernel<T, true>, static_cast<size_t>(cache_bytes));
      } else {
        args(layer_norm_fwd_kernel<T, false>, 0);
      }
      STD_CUDA_KERNEL_LAUNCH_CHECK();
    });
  });
  return {y.finish(), mean, rstd};
}

std::tuple<torch::stable::Tensor, torch::stable::Tensor, torch::stable::Tensor>
opgen::kernels::layer_norm_backward_cuda(const torch::stable::Tensor& grad_output, const torch::stable::Tensor& input,
                                         const torch::stable::Tensor& mean, const torch::stable::Tensor& rstd,
                                         const torch::stable::Tensor& weight) {
  constexpr const char* kOp = "opgen::layer_norm_backward";
  STD_TORCH_CHECK(grad_output.is_cuda() && input.is_cuda() && mean.is_cuda() && rstd.is_cuda() && weight.is_cuda(),
                  kOp, ": CUDA kernel called with non-CUDA tensors");
  const auto shape = common::row_shape(input, kOp);
  common::check_norm_weight(input, weight, shape.hidden, kOp);
  check_hidden(shape.hidden, kOp);
  STD_TORCH_CHECK(common::same_sizes(grad_output, input), kOp, ": grad_output must have the input's shape");
  STD_TORCH_CHECK(grad_output.scalar_type() == input.scalar_type() && weight.scalar_type() == input.scalar_type(),
                  kOp, ": grad_output and weight must have the input's dtype");
  const auto acc_type = common::acc_scalar_type(input.scalar_type());
  STD_TORCH_CHECK(mean.scalar_type() == acc_type && rstd.scalar_type() == acc_type, kOp,
                  ": mean and rstd must be ", torch::headeronly::toString(acc_type));
  STD_TORCH_CHECK(mean.numel() == shape.rows && rstd.numel() == shape.rows, kOp, ": mean and rstd must have ",
                  shape.rows, " elements (one per row)");
  const int32_t device = input.get_device_index();
  STD_TORCH_CHECK(grad_output.get_device_index() == device && mean.get_device_index() == device &&
                      rstd.get_device_index() == device,
                  kOp, ": all tensors must be on the same device");

  torch::stable::accelerator::DeviceGuard guard(device);
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
  const cudaStream_t stream = cuda::current_stream(device);
  const int hidden = static_cast<int>(shape.hidden);

  common::dispatch_floating<cuda::CudaTypes>(x.scalar_type(), kOp, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = acc_t<T>;
    const auto* mp = static_cast<const A*>(mu.const_data_ptr());
    const auto* sp = static_cast<const A*>(rs.const_data_ptr());

    T* dw_ptr = static_cast<T*>(dw.work().mutable_data_ptr());
    T* db_ptr = static_cast<T*>(db.work().mutable_data_ptr());
    namespace nb = oc::norm_backward;
    if (nb::enabled(shape.rows)) {
      const nb::Plan plan = nb::plan<T>(hidden, x.const_data_ptr(), g.const_data_ptr(), dx.work().const_data_ptr());
      const unsigned int grid = plan.vecs_per_thread == 0
                                    ? 0
                                    : nb::grid_size<nb::Norm::kLayer, T, T>(plan, shape.rows, cuda::sm_count(device));
      if (grid > 0) {
        Tensor partial = torch::stable::new_empty(x, {2, grid, shape.hidden}, acc_type);
        STD_CUDA_CHECK((nb::launch<nb::Norm::kLayer, T, T>(
            plan, grid, stream, static_cast<T*>(dx.work().mutable_data_ptr()), static_cast<A*>(partial.mutable_data_ptr()),
            static_cast<const T*>(g.const_data_ptr()), static_cast<const T*>(x.const_data_ptr()),
            static_cast<const T*>(w.const_data_ptr()), mp, sp, dw_ptr, db_ptr, shape.rows, hidden, A(0))));
        return;
      }
    }

    const int threads = oc::row_block_threads(shape.rows, shape.hidden, oc::kVecSize<T>);
    oc::launch_rows(shape.rows, [&](unsigned int grid, int64_t row_offset) {
      layer_norm_bwd_dx_kernel<T><<<grid, threads, 0, stream>>>(
          static_cast<T*>(dx.work().mutable_data_ptr()), static_cast<const T*>(g.const_data_ptr()),
          static_cast<const T*>(x.const_data_ptr()), mp, sp, static_cast<const T*>(w.const_data_ptr()), row_offset,
          hidden);
      STD_CUDA_KERNEL_LAUNCH_CHECK();
    });

    // dw/db: enough (column tile, row chunk) blocks to fill the GPU (~8
    // blocks of 256 threads per SM), at least 32 rows per chunk.
    const int64_t col_blocks = oc::ceil_div<int64_t>(hidden, kDwCols);
    const int64_t target_blocks = 8 * static_cast<int64_t>(cuda::sm_count(device));
    int64_t chunks = oc::ceil_div<int64_t>(target_blocks, col_blocks);
    chunks = std::min<int64_t>(chunks, oc::ceil_div<int64_t>(shape.rows, 4 * kDwRowThreads));
    chunks = std::max<int64_t>(1, std::min<int64_t>(chunks, 65535));
    const int64_t rows_per_chunk = oc::ceil_div<int64_t>(shape.rows, chunks);
    chunks = oc::ceil_div<int64_t>(shape.rows, rows_per_chunk);

    Tensor partial;
    A* partial_ptr = nullptr;
    if (chunks > 1) {
      partial = torch::stable::new_empty(x, {chunks, 2, shape.hidden}, acc_type);
      partial_ptr = static_cast<A*>(partial.mutable_data_ptr());
    }
    const dim3 grid(static_cast<unsigned int>(col_blocks), static_cast<unsigned int>(chunks));
    const dim3 block(kDwCols, kDwRowThreads);
    layer_norm_bwd_dwdb_partial_kernel<T><<<grid, block, 0, stream>>>(
        partial_ptr, dw_ptr, db_ptr, static_cast<const T*>(g.const_data_ptr()),
        static_cast<const T*>(x.const_data_ptr()), mp, sp, shape.rows, hidden, rows_per_chunk);
    STD_CUDA_KERNEL_LAUNCH_CHECK();
    if (chunks > 1) {
      constexpr int kThreads = 256;
      const auto blocks = static_cast<unsigned int>(std::min<int64_t>(oc::ceil_div<int64_t>(hidden, kThreads), 4096));
      layer_norm_bwd_dwdb_finalize_kernel<T><<<blocks, kThreads, 0, stream>>>(dw_ptr, db_ptr, partial_ptr,
                                                                             static_cast<int>(chunks), hidden);
      STD_CUDA_KERNEL_LAUNCH_CHECK();
    }
  });
  return {dx.finish(), dw.finish(), db.finish()};
}
