// CUDA kernels for opgen::rms_norm and opgen::rms_norm_backward (stable ABI).
//
//   y  = x * rstd * w,  rstd = 1 / sqrt(mean(x^2, -1) + eps)
//   dx = rstd * w * dy - x * rstd^3 / H * sum(dy * w * x, -1)
//   dw = sum over rows of dy * x * rstd
//
// Forward / dx: one block per row, 128-bit vectorized
// accesses on the aligned middle of each row with scalar head/tail (any hidden
// size, any alignment), warp-shuffle + shared-memory block reductions, float
// accumulation (double for float64).
// dw: deterministic two-stage column reduction (apex style): per-(column tile,
// row chunk) partial sums, then a sum over chunks. No atomics.
// Non-contiguous inputs are made contiguous; outputs have torch.empty_like's
// layout (the `like(...)` fakes).

#include "opgen/kernels/rms_norm.h"
#include "opgen/kernels/rms_norm_backward.h"

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
#include <tuple>
#include <type_traits>

namespace {

namespace oc = opgen::kernels::cuda;
using oc::acc_t;
using oc::AlignedVector;
using oc::to_acc;

__device__ __forceinline__ bool congruent(const void* a, const void* b) {
  return (reinterpret_cast<uintptr_t>(a) - reinterpret_cast<uintptr_t>(b)) % oc::kVecBytes == 0;
}

template <int N, class W>
__device__ __forceinline__ AlignedVector<W, N> load_weight(const W* w) {
  return oc::load_vec_or_scalar<N>(w, oc::is_aligned<sizeof(AlignedVector<W, N>)>(w));
}

// ---------------------------------------------------------------------------
// Forward
// ---------------------------------------------------------------------------
template <class T, class W>
__global__ void rms_norm_fwd_kernel(T* __restrict__ out, const T* __restrict__ in, const W* __restrict__ weight,
                                    int64_t row_offset, int hidden, acc_t<T> eps) {
  using A = acc_t<T>;
  constexpr int N = oc::kVecSize<T>;
  const A inv_h = A(1) / static_cast<A>(hidden);
  const int64_t row = row_offset + blockIdx.x;
  const T* x = in + row * hidden;
  T* y = out + row * hidden;

  A ss = 0;
  oc::for_each_in_row<N>(
      x, hidden, true,
      [&](int i) {
        const A v = to_acc(x[i]);
        ss += v * v;
      },
      [&](int i) {
        const auto xv = oc::load_vec<N>(x + i);
#pragma unroll
        for (int k = 0; k < N; ++k) {
          const A v = to_acc(xv.val[k]);
          ss += v * v;
        }
      });
  const A rstd = oc::inv_sqrt(oc::block_reduce_sum(ss) * inv_h + eps);

  oc::for_each_in_row<N>(
      x, hidden, congruent(x, y),
      [&](int i) { y[i] = oc::from_acc<T>(to_acc(x[i]) * rstd * static_cast<A>(to_acc(weight[i]))); },
      [&](int i) {
        const auto xv = oc::load_vec<N>(x + i);
        const auto wv = load_weight<N>(weight + i);
        AlignedVector<T, N> yv;
#pragma unroll
        for (int k = 0; k < N; ++k) {
          yv.val[k] = oc::from_acc<T>(to_acc(xv.val[k]) * rstd * static_cast<A>(to_acc(wv.val[k])));
        }
        oc::store_vec<N>(y + i, yv);
      });
}

// ---------------------------------------------------------------------------
// Forward, the row in registers (issue 36: behind OPGEN_REGISTER_RMS_NORM, off
// until a GPU run shows it correct and faster). The block kernel above reads
// the row twice (the second time mostly from L2) and reduces over the block:
// 74-79 % of the copy bandwidth in bfloat16 at hidden 1K-8K. Here x is read
// once, into registers (common/norm_forward_regs.cuh).
// ---------------------------------------------------------------------------
namespace regs = oc::regs;

bool register_forward_enabled() { return opgen::kernels::kernel_switch("OPGEN_REGISTER_RMS_NORM", false); }

template <class T, class W, int kVecs>
__global__ void __launch_bounds__(regs::kBlockThreads)
    rms_norm_fwd_regs_kernel(T* __restrict__ out, const T* __restrict__ in, const W* __restrict__ weight,
                             int64_t row_offset, int64_t rows, int hidden, acc_t<T> eps) {
  using A = acc_t<T>;
  constexpr int N = oc::kVecSize<T>;
  __shared__ A scratch[regs::kBlockThreads / oc::kWarpSize];
  const int64_t row = row_offset + static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
  const bool live = row < rows;  // a thread past the last row still takes part in the reduction's barriers
  const T* x = in + (live ? row : 0) * hidden;
  AlignedVector<T, N> v[kVecs];
  A ss = 0;
  regs::load_row(v, x, hidden, live, [&](A e) { ss += e * e; });
  const A total = regs::row_sum(ss, scratch + threadIdx.y * (blockDim.x / oc::kWarpSize));
  if (!live) return;
  const A rstd = oc::inv_sqrt(total / static_cast<A>(hidden) + eps);
  T* y = out + row * hidden;
#pragma unroll
  for (int k = 0; k < kVecs; ++k) {
    const int i = regs::vec_offset(k, N);
    if (i < hidden) {
      const auto wv = oc::load_vec<N>(weight + i);
      AlignedVector<T, N> yv;
#pragma unroll
      for (int n = 0; n < N; ++n) {
        yv.val[n] = oc::from_acc<T>(to_acc(v[k].val[n]) * rstd * static_cast<A>(to_acc(wv.val[n])));
      }
      oc::store_vec<N>(y + i, yv);
    }
  }
}

// ---------------------------------------------------------------------------
// Backward: dx (+ per-row rstd for dw)
// ---------------------------------------------------------------------------
template <class T, class W>
__global__ void rms_norm_bwd_dx_kernel(T* __restrict__ dx, acc_t<T>* __restrict__ rstd_out,
                                       const T* __restrict__ grad, const T* __restrict__ in,
                                       const W* __restrict__ weight, int64_t row_offset, int hidden,
                                       acc_t<T> eps) {
  using A = acc_t<T>;
  constexpr int N = oc::kVecSize<T>;
  const A inv_h = A(1) / static_cast<A>(hidden);
  const int64_t row = row_offset + blockIdx.x;
  const T* x = in + row * hidden;
  const T* g = grad + row * hidden;
  T* d = dx + row * hidden;

  A ss = 0;
  A dot = 0;  // sum(g * w * x)
  oc::for_each_in_row<N>(
      x, hidden, congruent(x, g),
      [&](int i) {
        const A xv = to_acc(x[i]);
        ss += xv * xv;
        dot += to_acc(g[i]) * static_cast<A>(to_acc(weight[i])) * xv;
      },
      [&](int i) {
        const auto xv = oc::load_vec<N>(x + i);
        const auto gv = oc::load_vec<N>(g + i);
        const auto wv = load_weight<N>(weight + i);
#pragma unroll
        for (int k = 0; k < N; ++k) {
          const A xa = to_acc(xv.val[k]);
          ss += xa * xa;
          dot += to_acc(gv.val[k]) * static_cast<A>(to_acc(wv.val[k])) * xa;
        }
      });
  ss = oc::block_reduce_sum(ss);
  dot = oc::block_reduce_sum(dot);
  const A rstd = oc::inv_sqrt(ss * inv_h + eps);
  const A coef = dot * rstd * rstd * rstd * inv_h;
  if (threadIdx.x == 0) {
    rstd_out[row] = rstd;
  }

  oc::for_each_in_row<N>(
      x, hidden, congruent(x, g) && congruent(x, d),
      [&](int i) {
        d[i] = oc::from_acc<T>(rstd * static_cast<A>(to_acc(weight[i])) * to_acc(g[i]) - coef * to_acc(x[i]));
      },
      [&](int i) {
        const auto xv = oc::load_vec<N>(x + i);
        const auto gv = oc::load_vec<N>(g + i);
        const auto wv = load_weight<N>(weight + i);
        AlignedVector<T, N> dv;
#pragma unroll
        for (int k = 0; k < N; ++k) {
          dv.val[k] = oc::from_acc<T>(rstd * static_cast<A>(to_acc(wv.val[k])) * to_acc(gv.val[k]) -
                                      coef * to_acc(xv.val[k]));
        }
        oc::store_vec<N>(d + i, dv);
      });
}

// ---------------------------------------------------------------------------
// Backward: dw = sum_rows(g * x * rstd)
// ---------------------------------------------------------------------------
constexpr int kDwCols = 32;     // columns per block (threadIdx.x), coalesced along the row
constexpr int kDwRowThreads = 8;  // threadIdx.y strides over the rows of the chunk

// Block (x, y) sums rows [y * rows_per_chunk, ...) of columns
// [x * kDwCols, ...). With one chunk it writes dw directly, else a partial.
template <class T, class W>
__global__ void rms_norm_bwd_dw_partial_kernel(acc_t<T>* __restrict__ partial, W* __restrict__ dw,
                                               const T* __restrict__ grad, const T* __restrict__ in,
                                               const acc_t<T>* __restrict__ rstd, int64_t rows, int hidden,
                                               int64_t rows_per_chunk) {
  using A = acc_t<T>;
  __shared__ A tile[kDwRowThreads][kDwCols + 1];
  const int col = blockIdx.x * kDwCols + threadIdx.x;
  const int64_t r_begin = static_cast<int64_t>(blockIdx.y) * rows_per_chunk;
  const int64_t r_end = r_begin + rows_per_chunk < rows ? r_begin + rows_per_chunk : rows;

  A acc = 0;
  if (col < hidden) {
    constexpr int kUnroll = 4;
    int64_t r = r_begin + threadIdx.y;
    // Independent loads in flight per thread.
    for (; r + (kUnroll - 1) * kDwRowThreads < r_end; r += kUnroll * kDwRowThreads) {
      A gv[kUnroll], xv[kUnroll], sv[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const int64_t rr = r + u * kDwRowThreads;
        gv[u] = to_acc(grad[rr * hidden + col]);
        xv[u] = to_acc(in[rr * hidden + col]);
        sv[u] = rstd[rr];
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        acc += gv[u] * xv[u] * sv[u];
      }
    }
    for (; r < r_end; r += kDwRowThreads) {
      acc += to_acc(grad[r * hidden + col]) * to_acc(in[r * hidden + col]) * rstd[r];
    }
  }
  tile[threadIdx.y][threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.y == 0 && col < hidden) {
    A s = 0;
#pragma unroll
    for (int k = 0; k < kDwRowThreads; ++k) {
      s += tile[k][threadIdx.x];
    }
    if (gridDim.y == 1) {
      dw[col] = oc::from_acc<W>(s);
    } else {
      partial[static_cast<int64_t>(blockIdx.y) * hidden + col] = s;
    }
  }
}

template <class A, class W>
__global__ void rms_norm_bwd_dw_finalize_kernel(W* __restrict__ dw, const A* __restrict__ partial, int num_chunks,
                                                int hidden) {
  for (int col = blockIdx.x * blockDim.x + threadIdx.x; col < hidden; col += gridDim.x * blockDim.x) {
    A s = 0;
    for (int c = 0; c < num_chunks; ++c) {
      s += partial[static_cast<int64_t>(c) * hidden + col];
    }
    dw[col] = oc::from_acc<W>(s);
  }
}

template <class A>
constexpr torch::headeronly::ScalarType acc_scalar_type() {
  return std::is_same_v<A, double> ? torch::headeronly::ScalarType::Double : torch::headeronly::ScalarType::Float;
}

void check_hidden(int64_t hidden, const char* op) {
  STD_TORCH_CHECK(hidden <= INT_MAX, op, ": hidden size ", hidden, " exceeds the CUDA kernel limit ", INT_MAX);
}

}  // namespace

torch::stable::Tensor opgen::kernels::rms_norm_cuda(const torch::stable::Tensor& input,
                                                    const torch::stable::Tensor& weight, double eps) {
  constexpr const char* kOp = "opgen::rms_norm";
  STD_TORCH_CHECK(input.is_cuda() && weight.is_cuda(), kOp, ": CUDA kernel called with non-CUDA tensors");
  const auto shape = common::row_shape(input, kOp);
  common::check_norm_weight(input, weight, shape.hidden, kOp);
  check_hidden(shape.hidden, kOp);

  const int32_t device = input.get_device_index();
  torch::stable::accelerator::DeviceGuard guard(device);
  common::OutputBuffer y(input);
  if (input.numel() == 0) {
    return y.finish();
  }
  const torch::stable::Tensor x = common::contiguous_or_self(input);
  const torch::stable::Tensor w = common::contiguous_or_self(weight);
  const cudaStream_t stream = cuda::current_stream(device);
  common::dispatch_norm_types<cuda::CudaTypes>(x.scalar_type(), w.scalar_type(), kOp, [&](auto t_tag, auto w_tag) {
    using T = typename decltype(t_tag)::type;
    using W = typename decltype(w_tag)::type;
    using A = acc_t<T>;
    constexpr int N = oc::kVecSize<T>;
    // The register kernel: rows of whole vectors, every pointer 16-byte aligned, at most regs::kMaxVecs per thread.
    const regs::Launch reg =
        shape.hidden % N == 0 ? regs::launch_for(shape.hidden / N, shape.hidden) : regs::Launch{};
    const bool aligned = oc::is_aligned<oc::kVecBytes>(x.const_data_ptr()) &&
                         oc::is_aligned<oc::kVecBytes>(y.work().const_data_ptr()) &&
                         oc::is_aligned<oc::kVecBytes>(w.const_data_ptr());
    if (reg.vecs_per_thread > 0 && aligned && register_forward_enabled()) {
      regs::launch_rows(shape.rows, reg, [&](unsigned int grid, dim3 block, int64_t row_offset) {
        auto launch = [&](auto kernel) {
          kernel<<<grid, block, 0, stream>>>(static_cast<T*>(y.work().mutable_data_ptr()),
                                             static_cast<const T*>(x.const_data_ptr()),
                                             static_cast<const W*>(w.const_data_ptr()), row_offset, shape.rows,
                                             static_cast<int>(shape.hidden), static_cast<A>(eps));
        };
        switch (reg.vecs_per_thread) {
          case 1: launch(rms_norm_fwd_regs_kernel<T, W, 1>); break;
          case 2: launch(rms_norm_fwd_regs_kernel<T, W, 2>); break;
          case 4: launch(rms_norm_fwd_regs_kernel<T, W, 4>); break;
          default: launch(rms_norm_fwd_regs_kernel<T, W, 8>); break;
        }
        STD_CUDA_KERNEL_LAUNCH_CHECK();
      });
      return;
    }
    const int threads = oc::row_block_threads(shape.rows, shape.hidden, N);
    oc::launch_rows(shape.rows, [&](unsigned int grid, int64_t row_offset) {
      rms_norm_fwd_kernel<T, W><<<grid, threads, 0, stream>>>(
          static_cast<T*>(y.work().mutable_data_ptr()), static_cast<const T*>(x.const_data_ptr()),
          static_cast<const W*>(w.const_data_ptr()), row_offset, static_cast<int>(shape.hidden), static_cast<A>(eps));
      STD_CUDA_KERNEL_LAUNCH_CHECK();
    });
  });
  return y.finish();
}

std::tuple<torch::stable::Tensor, torch::stable::Tensor> opgen::kernels::rms_norm_backward_cuda(
    const torch::stable::Tensor& grad, const torch::stable::Tensor& input, const torch::stable::Tensor& weight,
    double eps) {
  constexpr const char* kOp = "opgen::rms_norm_backward";
  STD_TORCH_CHECK(grad.is_cuda() && input.is_cuda() && weight.is_cuda(), kOp,
                  ": CUDA kernel called with non-CUDA tensors");
  const auto shape = common::row_shape(input, kOp);
  common::check_norm_weight(input, weight, shape.hidden, kOp);
  check_hidden(shape.hidden, kOp);
  STD_TORCH_CHECK(grad.scalar_type() == input.scalar_type(), kOp, ": grad dtype ",
                  torch::headeronly::toString(grad.scalar_type()), " differs from input dtype ",
                  torch::headeronly::toString(input.scalar_type()));
  STD_TORCH_CHECK(common::same_sizes(grad, input), kOp, ": grad must have the input's shape");
  STD_TORCH_CHECK(grad.get_device_index() == input.get_device_index(), kOp,
                  ": grad must be on the same device as input");

  const int32_t device = input.get_device_index();
  torch::stable::accelerator::DeviceGuard guard(device);
  common::OutputBuffer dx(input);
  common::OutputBuffer dw(weight);
  if (shape.hidden == 0) {
    return {dx.finish(), dw.finish()};
  }
  if (shape.rows == 0) {
    torch::stable::zero_(dw.work());
    return {dx.finish(), dw.finish()};
  }
  const torch::stable::Tensor x = common::contiguous_or_self(input);
  const torch::stable::Tensor g = common::contiguous_or_self(grad);
  const torch::stable::Tensor w = common::contiguous_or_self(weight);
  const cudaStream_t stream = cuda::current_stream(device);
  const int hidden = static_cast<int>(shape.hidden);

  common::dispatch_norm_types<cuda::CudaTypes>(x.scalar_type(), w.scalar_type(), kOp, [&](auto t_tag, auto w_tag) {
    using T = typename decltype(t_tag)::type;
    using W = typename decltype(w_tag)::type;
    using A = acc_t<T>;
    constexpr auto kAccType = acc_scalar_type<A>();

    namespace nb = oc::norm_backward;
    if (nb::enabled(shape.rows)) {
      const nb::Plan plan = nb::plan<T>(hidden, x.const_data_ptr(), g.const_data_ptr(), dx.work().const_data_ptr());
      const unsigned int grid =
          plan.vecs_per_thread == 0 ? 0 : nb::grid_size<nb::Norm::kRms, T, W>(plan, shape.rows, cuda::sm_count(device));
      if (grid > 0) {
        torch::stable::Tensor partial = torch::stable::new_empty(x, {grid, shape.hidden}, kAccType);
        STD_CUDA_CHECK((nb::launch<nb::Norm::kRms, T, W>(
            plan, grid, stream, static_cast<T*>(dx.work().mutable_data_ptr()), static_cast<A*>(partial.mutable_data_ptr()),
            static_cast<const T*>(g.const_data_ptr()), static_cast<const T*>(x.const_data_ptr()),
            static_cast<const W*>(w.const_data_ptr()), nullptr, nullptr, static_cast<W*>(dw.work().mutable_data_ptr()),
            nullptr, shape.rows, hidden, static_cast<A>(eps))));
        return;
      }
    }

    // dx and per-row rstd.
    torch::stable::Tensor rstd = torch::stable::new_empty(x, {shape.rows}, kAccType);
    const int threads = oc::row_block_threads(shape.rows, shape.hidden, oc::kVecSize<T>);
    oc::launch_rows(shape.rows, [&](unsigned int grid, int64_t row_offset) {
      rms_norm_bwd_dx_kernel<T, W><<<grid, threads, 0, stream>>>(
          static_cast<T*>(dx.work().mutable_data_ptr()), static_cast<A*>(rstd.mutable_data_ptr()),
          static_cast<const T*>(g.const_data_ptr()), static_cast<const T*>(x.const_data_ptr()),
          static_cast<const W*>(w.const_data_ptr()), row_offset, hidden, static_cast<A>(eps));
      STD_CUDA_KERNEL_LAUNCH_CHECK();
    });

    // dw: enough (column tile, row chunk) blocks to fill the GPU (~8 blocks of
    // 256 threads per SM), at least 32 rows per chunk.
    const int64_t col_blocks = oc::ceil_div<int64_t>(hidden, kDwCols);
    const int64_t target_blocks = 8 * static_cast<int64_t>(cuda::sm_count(device));
    int64_t chunks = oc::ceil_div<int64_t>(target_blocks, col_blocks);
    chunks = std::min<int64_t>(chunks, oc::ceil_div<int64_t>(shape.rows, 4 * kDwRowThreads));
    chunks = std::max<int64_t>(1, std::min<int64_t>(chunks, 65535));
    const int64_t rows_per_chunk = oc::ceil_div<int64_t>(shape.rows, chunks);
    chunks = oc::ceil_div<int64_t>(shape.rows, rows_per_chunk);

    torch::stable::Tensor partial;
    A* partial_ptr = nullptr;
    if (chunks > 1) {
      partial = torch::stable::new_empty(x, {chunks, shape.hidden}, kAccType);
      partial_ptr = static_cast<A*>(partial.mutable_data_ptr());
    }
    const dim3 grid(static_cast<unsigned int>(col_blocks), static_cast<unsigned int>(chunks));
    const dim3 block(kDwCols, kDwRowThreads);
    rms_norm_bwd_dw_partial_kernel<T, W><<<grid, block, 0, stream>>>(
        partial_ptr, static_cast<W*>(dw.work().mutable_data_ptr()), static_cast<const T*>(g.const_data_ptr()),
        static_cast<const T*>(x.const_data_ptr()), static_cast<const A*>(rstd.const_data_ptr()), shape.rows, hidden,
        rows_per_chunk);
    STD_CUDA_KERNEL_LAUNCH_CHECK();
    if (chunks > 1) {
      constexpr int kThreads = 256;
      const auto blocks = static_cast<unsigned int>(std::min<int64_t>(oc::ceil_div<int64_t>(hidden, kThreads), 4096));
      rms_norm_bwd_dw_finalize_kernel<A, W><<<blocks, kThreads, 0, stream>>>(
          static_cast<W*>(dw.work().mutable_data_ptr()), partial_ptr, static_cast<int>(chunks), hidden);
      STD_CUDA_KERNEL_LAUNCH_CHECK();
    }
  });
  return {dx.finish(), dw.finish()};
}
