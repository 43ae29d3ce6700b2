// One persistent kernel for the RMSNorm and LayerNorm backwards (dx and the
// weight/bias gradients together), behind the OPGEN_FUSED_NORM_BACKWARD switch
// until a GPU run shows it correct and faster (issue 36).
//
// The two-kernel path reads x and dy twice (once for dx, once more for the
// column sums of dw/db): 5 tensor-passes where 3 suffice. Here each CTA walks
// rows blockIdx.x, +gridDim.x, ...; every thread owns the same columns of
// every row, so
//   - the next two rows' x and dy are copied into shared memory (cp.async)
//     while the current one is computed (three stages; LayerNorm's mean and
//     rstd are loaded as far ahead): each thread copies and later reads only
//     its own 16-byte slots, so the copy needs a wait, not a barrier;
//   - dw (and db) accumulate in that thread's registers over all its rows and
//     are written once per CTA as a partial row ([grid, hidden] floats, mostly
//     L2), then one small kernel sums the partials column by column in a fixed
//     order (deterministic, no atomics);
//   - the two row sums are reduced together, with one barrier per row (two
//     shared-memory slots, alternating by row).
// Taken only where every row is whole 16-byte vectors (hidden a multiple of
// the vector width, x, dy and dx 16-byte aligned) and fits one CTA
// (kMaxVecsPerThread vectors per thread, 1024 threads); the two-kernel path
// does everything else.
#pragma once

#include "cuda_utils.cuh"
#include "kernel_switch.h"

#include <cuda_runtime.h>

#include <cstdint>

namespace opgen::kernels::cuda::norm_backward {

enum class Norm { kRms, kLayer };

inline constexpr int kMaxVecsPerThread = 4;
inline constexpr int kStages = 3;  // rows in shared memory per CTA: the current and the next two

// The switch (common/kernel_switch.h): OPGEN_FUSED_NORM_BACKWARD=0 takes the
// two-kernel path. On by default since the GPU runs of 2026-11-27 (H200, see
// docs/benchmarks.md): correct against the CPU kernels and under memcheck,
// racecheck and synccheck, and 1.2-2.1x the two-kernel path at 1K-16K
// hidden.
inline constexpr bool kEnabledByDefault = true;

// Below this many rows the two-kernel path runs: at one row the fused kernel
// is one CTA plus a second launch (0.021 ms against 0.019 for RMSNorm, 0.035
// against 0.020 for LayerNorm, bfloat16 x 4096); at 32 rows it wins (0.021
// against 0.030).
inline constexpr int64_t kMinRows = 32;

inline bool enabled(int64_t rows) {
  return rows >= kMinRows && kernel_switch("OPGEN_FUSED_NORM_BACKWARD", kEnabledByDefault);
}

// 16-byte asynchronous global->shared copy (sm_80+), else a plain copy.
__device__ __forceinline__ void copy_16_async(void* smem, const void* gmem) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const auto dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(gmem));
#else
  *static_cast<uint4*>(smem) = *static_cast<const uint4*>(gmem);
#endif
}

__device__ __forceinline__ void commit_copies() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}

// Waits until at most `Pending` committed groups of this thread are in flight.
template <int Pending>
__device__ __forceinline__ void wait_copies() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending));
#endif
}

template <class A>
struct Pair {
  A a;
  A b;
};

// Sums (a, b) over the block; every thread gets the result. One barrier: the
// slot alternates by `parity`, so a slot is rewritten only after the barrier
// of the following row, which every reader of it has passed.
template <class A>
__device__ __forceinline__ Pair<A> block_sum_pair(Pair<A> v, Pair<A> (*slots)[kMaxThreads / kWarpSize], int parity) {
  v.a = warp_reduce(v.a, SumOp{});
  v.b = warp_reduce(v.b, SumOp{});
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
  if (lane == 0) {
    slots[parity][warp] = v;
  }
  __syncthreads();
  Pair<A> s{A(0), A(0)};
  const int num_warps = blockDim.x / kWarpSize;
  for (int i = 0; i < num_warps; ++i) {
    s.a += slots[parity][i].a;
    s.b += slots[parity][i].b;
  }
  return s;
}

// One CTA: rows blockIdx.x, blockIdx.x + gridDim.x, ...; thread t owns the
// vectors t + j * blockDim.x (j < VPT) of every row.
//   kRms:   dx = rstd*w*dy - x*rstd^3/H*sum(dy*w*x),  dw += dy*x*rstd
//           (rstd recomputed from x; `mean`/`rstd_in` unused)
//   kLayer: dx = rstd*(dy*w - mean(dy*w) - xhat*mean(dy*w*xhat)),
//           dw += dy*xhat, db += dy
// partial: [P][gridDim.x][hidden] accumulation-type sums (P = 1 or 2).
// Threads per CTA at most, by vectors per thread (plan() gives 1 or 2
// vectors per thread only to rows of at most 256 threads), and the CTAs per
// SM the registers must allow: 3 x 256 threads hold three rows' copies in
// flight; 4 vectors per thread (weights and gradient sums for 32 columns in
// bfloat16) need up to 128 registers.
template <int VPT>
inline constexpr int kFusedMaxThreads = VPT >= 4 ? 512 : 256;
template <int VPT>
inline constexpr int kFusedMinBlocks = VPT >= 4 ? 1 : 3;

template <Norm K, class T, class W, int VPT>
__global__ void __launch_bounds__(kFusedMaxThreads<VPT>, kFusedMinBlocks<VPT>) fused_kernel(T* __restrict__ dx, acc_t<T>* __restrict__ partial,
                                                            const T* __restrict__ grad, const T* __restrict__ in,
                                                            const W* __restrict__ weight,
                                                            const acc_t<T>* __restrict__ mean,
                                                            const acc_t<T>* __restrict__ rstd_in, int64_t rows,
                                                            int hidden, acc_t<T> eps) {
  using A = acc_t<T>;
  constexpr int N = kVecSize<T>;
  constexpr bool kLayer = K == Norm::kLayer;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* stage_x = reinterpret_cast<T*>(smem_raw);  // [kStages][hidden]
  T* stage_g = stage_x + kStages * static_cast<int64_t>(hidden);
  __shared__ Pair<A> slots[2][kMaxThreads / kWarpSize];

  const int num_vec = hidden / N;
  const A inv_h = A(1) / static_cast<A>(hidden);

  AlignedVector<W, N> wv[VPT];
  A dw[VPT][N];
  A db[kLayer ? VPT : 1][kLayer ? N : 1];
#pragma unroll
  for (int j = 0; j < VPT; ++j) {
    const int v = threadIdx.x + j * blockDim.x;
    if (v < num_vec) {
      wv[j] = load_vec_or_scalar<N>(weight + v * N, is_aligned<sizeof(AlignedVector<W, N>)>(weight));
    }
#pragma unroll
    for (int k = 0; k < N; ++k) {
      dw[j][k] = A(0);
      if constexpr (kLayer) db[j][k] = A(0);
    }
  }

  auto prefetch = [&](int64_t row, int stage) {
    if (row < rows) {
      const int64_t base = row * hidden;
#pragma unroll
      for (int j = 0; j < VPT; ++j) {
        const int v = threadIdx.x + j * blockDim.x;
        if (v < num_vec) {
          const int64_t off = static_cast<int64_t>(stage) * hidden + v * N;
          copy_16_async(stage_x + off, in + base + v * N);
          copy_16_async(stage_g + off, grad + base + v * N);
        }
      }
    }
    commit_copies();  // possibly empty: keeps one group per row
  };

  // LayerNorm's per-row statistics, loaded two rows ahead like the rows
  // themselves (a load at the top of the row would stall every row on it).
  A mu = A(0), rs = A(0), mu_next = A(0), rs_next = A(0);
  auto load_stats = [&](int64_t row, A& m, A& r) {
    if constexpr (kLayer) {
      if (row < rows) {
        m = mean[row];
        r = rstd_in[row];
      }
    }
  };

  const int64_t first = blockIdx.x;
  const int64_t step = gridDim.x;
  int stage = 0;
  int parity = 0;
  for (int k = 0; k < kStages - 1; ++k) prefetch(first + k * step, k);
  load_stats(first, mu, rs);
  load_stats(first + step, mu_next, rs_next);
  for (int64_t row = first; row < rows; row += step) {
    prefetch(row + (kStages - 1) * step, (stage + kStages - 1) % kStages);
    A mu_after = A(0), rs_after = A(0);
    load_stats(row + 2 * step, mu_after, rs_after);
    wait_copies<kStages - 1>();  // this row's group is complete (the later ones may be in flight)
    const T* xs = stage_x + static_cast<int64_t>(stage) * hidden;
    const T* gs = stage_g + static_cast<int64_t>(stage) * hidden;

    Pair<A> sums{A(0), A(0)};
#pragma unroll
    for (int j = 0; j < VPT; ++j) {
      const int v = threadIdx.x + j * blockDim.x;
      if (v < num_vec) {
        const auto xv = load_vec<N>(xs + v * N);
        const auto gv = load_vec<N>(gs + v * N);
#pragma unroll
        for (int k = 0; k < N; ++k) {
          const A x = to_acc(xv.val[k]);
          const A gw = to_acc(gv.val[k]) * static_cast<A>(to_acc(wv[j].val[k]));
          if constexpr (kLayer) {
            sums.a += gw;
            sums.b += gw * (x - mu) * rs;
          } else {
            sums.a += x * x;
            sums.b += gw * x;
          }
        }
      }
    }
    sums = block_sum_pair(sums, slots, parity);
    parity ^= 1;

    A c1;
    A c2;
    if constexpr (kLayer) {
      c1 = sums.a * inv_h;  // mean(dy*w)
      c2 = sums.b * inv_h;  // mean(dy*w*xhat)
    } else {
      rs = inv_sqrt(sums.a * inv_h + eps);
      c1 = A(0);
      c2 = sums.b * rs * rs * rs * inv_h;
    }
    T* d = dx + row * hidden;
#pragma unroll
    for (int j = 0; j < VPT; ++j) {
      const int v = threadIdx.x + j * blockDim.x;
      if (v < num_vec) {
        const auto xv = load_vec<N>(xs + v * N);
        const auto gv = load_vec<N>(gs + v * N);
        AlignedVector<T, N> out;
#pragma unroll
        for (int k = 0; k < N; ++k) {
          const A x = to_acc(xv.val[k]);
          const A g = to_acc(gv.val[k]);
          const A w = static_cast<A>(to_acc(wv[j].val[k]));
          if constexpr (kLayer) {
            const A xhat = (x - mu) * rs;
            out.val[k] = from_acc<T>(rs * (g * w - c1 - xhat * c2));
            dw[j][k] += g * xhat;
            db[j][k] += g;
          } else {
            out.val[k] = from_acc<T>(rs * w * g - c2 * x);
            dw[j][k] += g * x * rs;
          }
        }
        store_vec<N>(d + v * N, out);
      }
    }
    stage = (stage + 1) % kStages;
    mu = mu_next;
    rs = rs_next;
    mu_next = mu_after;
    rs_next = rs_after;
  }
  wait_copies<0>();

  const int64_t part_stride = static_cast<int64_t>(gridDim.x) * hidden;
  A* pw = partial + static_cast<int64_t>(blockIdx.x) * hidden;
#pragma unroll
  for (int j = 0; j < VPT; ++j) {
    const int v = threadIdx.x + j * blockDim.x;
    if (v < num_vec) {
#pragma unroll
      for (int k = 0; k < N; ++k) {
        pw[v * N + k] = dw[j][k];
        if constexpr (kLayer) pw[part_stride + v * N + k] = db[j][k];
      }
    }
  }
}

inline constexpr int kSumCols = 32;
inline constexpr int kSumRowThreads = 16;

// out_p[col] = sum over b of partial[p][b][col], for p < P, in a fixed order.
// Block (kSumCols, kSumRowThreads); grid (ceil(hidden / kSumCols), P).
template <class A, class W>
__global__ void __launch_bounds__(kSumCols* kSumRowThreads)
    sum_partials_kernel(W* __restrict__ out0, W* __restrict__ out1, const A* __restrict__ partial, int num_partials,
                        int hidden) {
  __shared__ A tile[kSumRowThreads][kSumCols + 1];
  const int col = blockIdx.x * kSumCols + threadIdx.x;
  const A* p = partial + static_cast<int64_t>(blockIdx.y) * num_partials * hidden;
  A acc = A(0);
  if (col < hidden) {
    for (int b = threadIdx.y; b < num_partials; b += kSumRowThreads) {
      acc += p[static_cast<int64_t>(b) * hidden + col];
    }
  }
  tile[threadIdx.y][threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.y == 0 && col < hidden) {
    A s = A(0);
#pragma unroll
    for (int k = 0; k < kSumRowThreads; ++k) {
      s += tile[k][threadIdx.x];
    }
    (blockIdx.y == 0 ? out0 : out1)[col] = from_acc<W>(s);
  }
}

// The launch shape for a row of `hidden` elements of T, or vecs_per_thread 0
// when the fused kernel does not apply to it.
struct Plan {
  int vecs_per_thread = 0;
  int threads = 0;
  size_t smem_bytes = 0;
};

template <class T>
inline Plan plan(int64_t hidden, const void* x, const void* g, const void* dx) {
  constexpr int N = kVecSize<T>;
  Plan p;
  if (hidden <= 0 || hidden % N != 0 || !is_aligned<kVecBytes>(x) || !is_aligned<kVecBytes>(g) ||
      !is_aligned<kVecBytes>(dx)) {
    return p;
  }
  const int64_t num_vec = hidden / N;
  // 256 threads per row where that gives each at most kMaxVecsPerThread
  // vectors, more threads beyond.
  int vpt = 1;
  while (vpt < kMaxVecsPerThread && num_vec > 256 * vpt) vpt *= 2;
  const int64_t threads = ceil_div<int64_t>(ceil_div<int64_t>(num_vec, vpt), kWarpSize) * kWarpSize;
  if (threads > kFusedMaxThreads<kMaxVecsPerThread>) {
    return p;
  }
  p.vecs_per_thread = vpt;
  p.threads = static_cast<int>(threads);
  p.smem_bytes = static_cast<size_t>(2 * kStages * hidden) * sizeof(T);
  return p;
}

template <Norm K, class T, class W>
using FusedKernel = void (*)(T*, acc_t<T>*, const T*, const T*, const W*, const acc_t<T>*, const acc_t<T>*, int64_t,
                             int, acc_t<T>);

template <Norm K, class T, class W>
inline FusedKernel<K, T, W> kernel_for(const Plan& p) {
  switch (p.vecs_per_thread) {
    case 1:
      return fused_kernel<K, T, W, 1>;
    case 2:
      return fused_kernel<K, T, W, 2>;
    default:
      return fused_kernel<K, T, W, 4>;
  }
}

// CTAs for the persistent grid: as many as fit on the device at once, at most
// one per row; 0 when not even one fits (the shared memory of a long row).
template <Norm K, class T, class W>
inline unsigned int grid_size(const Plan& p, int64_t rows, int sm_count) {
  const auto kernel = kernel_for<K, T, W>(p);
  if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(p.smem_bytes)) !=
      cudaSuccess) {
    (void)cudaGetLastError();  // too much shared memory for this device: not an error, the other path runs
    return 0;
  }
  int per_sm = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, p.threads, p.smem_bytes) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  const int64_t resident = static_cast<int64_t>(per_sm) * sm_count;
  return static_cast<unsigned int>(rows < resident ? rows : resident);
}

// Launches the fused kernel and the partial sums on `stream`. `partial` holds
// P * grid * hidden accumulation-type elements (P = 2 for kLayer, else 1).
template <Norm K, class T, class W>
inline cudaError_t launch(const Plan& p, unsigned int grid, cudaStream_t stream, T* dx, acc_t<T>* partial,
                          const T* grad, const T* in, const W* weight, const acc_t<T>* mean, const acc_t<T>* rstd,
                          W* dw, W* db, int64_t rows, int hidden, acc_t<T> eps) {
  kernel_for<K, T, W>(p)<<<grid, p.threads, p.smem_bytes, stream>>>(dx, partial, grad, in, weight, mean, rstd, rows,
                                                                     hidden, eps);
  if (const cudaError_t err = cudaGetLastError(); err != cudaSuccess) {
    return err;
  }
  constexpr unsigned int kParts = K == Norm::kLayer ? 2 : 1;
  const dim3 sum_grid(static_cast<unsigned int>(ceil_div(hidden, kSumCols)), kParts);
  sum_partials_kernel<acc_t<T>, W><<<sum_grid, dim3(kSumCols, kSumRowThreads), 0, stream>>>(
      dw, db, partial, static_cast<int>(grid), hidden);
  return cudaGetLastError();
}

}  // namespace opgen::kernels::cuda::norm_backward
