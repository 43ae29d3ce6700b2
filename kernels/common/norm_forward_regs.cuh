// What the register-row forward norms share (issue 36; kernels/layer_norm.cu
// and kernels/rms_norm.cu, each behind its switch until a GPU run shows it
// correct and faster). The block kernels stage a row in shared memory (or
// read it twice) and reduce over the whole block; these hold the row in
// registers: each thread kVecs 16-byte vectors of it, blockDim.x threads (whole
// warps) per row, blockDim.y rows per block, so short rows fill a CTA. Rows of
// whole, 16-byte aligned vectors only: the callers check.
#pragma once

#include "cuda_utils.cuh"
#include "kernel_switch.h"

#include <cuda_runtime.h>

#include <cstdint>

namespace opgen::kernels::cuda::regs {

inline constexpr int kBlockThreads = 256;
inline constexpr int kMaxVecs = 8;  // vectors per thread: 16-bit rows up to 16K elements, float32 up to 8K

// The sum of v over the threads of this thread's row (blockDim.x of them, whole warps), in every one of them.
// `scratch` holds one value per warp of the row; every thread of the block calls it (it synchronizes).
template <class A>
__device__ __forceinline__ A row_sum(A v, A* scratch) {
  v = warp_reduce(v, SumOp{});
  const int warps = blockDim.x / kWarpSize;
  if (warps == 1) return v;  // uniform: blockDim.x is the block's
  __syncthreads();           // the previous call's readers of scratch are done
  if (threadIdx.x % kWarpSize == 0) scratch[threadIdx.x / kWarpSize] = v;
  __syncthreads();
  A total = 0;
  for (int w = 0; w < warps; ++w) total += scratch[w];  // one order in every thread: one result
  return total;
}

// The element offset of this thread's k-th vector in its row.
__device__ __forceinline__ int vec_offset(int k, int n) {
  return (k * static_cast<int>(blockDim.x) + static_cast<int>(threadIdx.x)) * n;
}

// Loads this thread's vectors of its row into v (those past the row's end, or of a thread past the last row,
// stay unloaded), then calls each(element) on every element it loaded, in accumulation precision.
template <int kVecs, int N, class T, class Each>
__device__ __forceinline__ void load_row(AlignedVector<T, N> (&v)[kVecs], const T* x, int hidden, bool live,
                                         Each&& each) {
#pragma unroll
  for (int k = 0; k < kVecs; ++k) {
    const int i = vec_offset(k, N);
    if (live && i < hidden) {
      v[k] = load_vec<N>(x + i);
#pragma unroll
      for (int n = 0; n < N; ++n) each(to_acc(v[k].val[n]));
    }
  }
}

// Calls each(element) again on every element load_row loaded.
template <int kVecs, int N, class T, class Each>
__device__ __forceinline__ void for_each_loaded(const AlignedVector<T, N> (&v)[kVecs], int hidden, bool live,
                                                Each&& each) {
#pragma unroll
  for (int k = 0; k < kVecs; ++k) {
    if (live && vec_offset(k, N) < hidden) {
#pragma unroll
      for (int n = 0; n < N; ++n) each(to_acc(v[k].val[n]));
    }
  }
}

// The shape for rows of `elements` elements in `vecs` vectors: vectors per thread, threads per row (whole
// warps), rows per block; all 0 where a row does not fit. By default as few vectors per thread as keep a row to
// kBlockThreads threads. With OPGEN_REGISTER_NORM_NARROW=1, the threads per row Quack's RMSNorm picks (32 up to
// 3K elements, 64 up to 6K, 128 beyond; where that needs more than kMaxVecs per thread, the default): more
// bytes in flight per thread, more rows per CTA. Both are timed until a device run decides.
struct Launch {
  int vecs_per_thread = 0;
  int threads_per_row = 0;
  int rows_per_block = 0;
};

inline Launch launch_for(int64_t vecs, int64_t elements) {
  if (vecs <= 0) return {};
  auto fitting = [&](int64_t max_threads) -> Launch {
    for (int k = 1; k <= kMaxVecs; k *= 2) {
      const int64_t threads = ceil_div<int64_t>(ceil_div<int64_t>(vecs, k), kWarpSize) * kWarpSize;
      if (threads <= max_threads) return {k, static_cast<int>(threads), kBlockThreads / static_cast<int>(threads)};
    }
    return {};
  };
  if (kernel_switch("OPGEN_REGISTER_NORM_NARROW", false)) {
    const Launch narrow = fitting(elements <= 3072 ? 32 : elements <= 6144 ? 64 : 128);
    if (narrow.vecs_per_thread > 0) return narrow;
  }
  return fitting(kBlockThreads);
}

// Launches `launch(grid, block, row_offset)` over `rows` rows, in several grids where they exceed gridDim.x's
// limit; the kernel handles rows row_offset + blockIdx.x * blockDim.y + threadIdx.y below `rows`.
template <class LaunchFn>
inline void launch_rows(int64_t rows, const Launch& shape, LaunchFn&& launch) {
  const dim3 block(shape.threads_per_row, shape.rows_per_block);
  const int64_t rows_per_grid = static_cast<int64_t>(0x7fffffff) * shape.rows_per_block;
  for (int64_t start = 0; start < rows; start += rows_per_grid) {
    const int64_t count = rows - start < rows_per_grid ? rows - start : rows_per_grid;
    launch(static_cast<unsigned int>(ceil_div<int64_t>(count, shape.rows_per_block)), block, start);
  }
}

}  // namespace opgen::kernels::cuda::regs
