// Device helpers shared by the CUDA kernels: type conversions, 128-bit vector
// types, warp/block reductions, launch-size helpers.
//
// Only CUDA headers are included, so both stable-ABI and ATen kernels may use
// it. Requires blockDim.x to be a multiple of 32 for the block reductions.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

namespace opgen::kernels::cuda {

// Type table for common::dispatch_floating / dispatch_norm_types.
struct CudaTypes {
  using Float = float;
  using Double = double;
  using Half = __half;
  using BFloat16 = __nv_bfloat16;
};

template <class T>
using acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

inline constexpr int kWarpSize = 32;
inline constexpr int kMaxThreads = 1024;

// ---------------------------------------------------------------------------
// Conversions
// ---------------------------------------------------------------------------
__device__ __forceinline__ float to_acc(float v) { return v; }
__device__ __forceinline__ double to_acc(double v) { return v; }
__device__ __forceinline__ float to_acc(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_acc(__nv_bfloat16 v) { return __bfloat162float(v); }

template <class T>
__device__ __forceinline__ T from_acc(acc_t<T> v);
template <>
__device__ __forceinline__ float from_acc<float>(float v) {
  return v;
}
template <>
__device__ __forceinline__ double from_acc<double>(double v) {
  return v;
}
template <>
__device__ __forceinline__ __half from_acc<__half>(float v) {
  return __float2half_rn(v);
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_acc<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}

// Rounds through T (e.g. the value a T tensor would store), back in acc precision.
template <class T>
__device__ __forceinline__ acc_t<T> round_to(acc_t<T> v) {
  return to_acc(from_acc<T>(v));
}

template <class A>
__device__ __forceinline__ A inv_sqrt(A v) {
  // Correctly rounded sqrt + division rather than the approximate rsqrtf:
  // once per row, so the cost is irrelevant.
  return A(1) / sqrt(v);
}

// ---------------------------------------------------------------------------
// Vector types
// ---------------------------------------------------------------------------
inline constexpr int kVecBytes = 16;  // 128-bit loads/stores

// Elements of T per 128-bit access.
template <class T>
inline constexpr int kVecSize = kVecBytes / static_cast<int>(sizeof(T));

template <class T, int N>
struct alignas(sizeof(T) * N) AlignedVector {
  T val[N];
};

template <int Bytes>
__host__ __device__ __forceinline__ bool is_aligned(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % Bytes == 0;
}

template <int N, class T>
__device__ __forceinline__ AlignedVector<T, N> load_vec(const T* p) {
  return *reinterpret_cast<const AlignedVector<T, N>*>(p);
}

template <int N, class T>
__device__ __forceinline__ void store_vec(T* p, const AlignedVector<T, N>& v) {
  *reinterpret_cast<AlignedVector<T, N>*>(p) = v;
}

// Loads N elements at p, as one vector access when p is suitably aligned
// (`vec_ok`, uniform across the block), else element by element.
template <int N, class T>
__device__ __forceinline__ AlignedVector<T, N> load_vec_or_scalar(const T* p, bool vec_ok) {
  if (vec_ok) {
    return load_vec<N>(p);
  }
  AlignedVector<T, N> v;
#pragma unroll
  for (int k = 0; k < N; ++k) {
    v.val[k] = p[k];
  }
  return v;
}

// Number of leading elements of p[0, n) to handle one by one before p + prefix
// is aligned to an N-element vector (n when p cannot be aligned at all).
template <int N, class T>
__device__ __forceinline__ int aligned_prefix(const T* p, int n) {
  constexpr int kBytes = static_cast<int>(sizeof(T)) * N;
  const auto addr = reinterpret_cast<uintptr_t>(p);
  if (addr % sizeof(T) != 0) {
    return n;
  }
  const int mis = static_cast<int>(addr % kBytes);
  const int prefix = mis == 0 ? 0 : (kBytes - mis) / static_cast<int>(sizeof(T));
  return prefix < n ? prefix : n;
}

// Block-cooperative walk over a row [0, n) anchored at `anchor`: the leading
// elements before `anchor` is 128-bit aligned and the tail are visited one by
// one (`scalar_fn(i)`), the aligned middle in N-element vectors
// (`vector_fn(i)`, `anchor + i` aligned). With `vec_ok == false` everything is
// scalar. Other pointers indexed by the same `i` must be congruent to `anchor`
// modulo the vector size for vector accesses to be legal (callers check).
template <int N, class T, class ScalarFn, class VectorFn>
__device__ __forceinline__ void for_each_in_row(const T* anchor, int n, bool vec_ok,
                                                ScalarFn&& scalar_fn, VectorFn&& vector_fn) {
  const int prefix = vec_ok ? aligned_prefix<N>(anchor, n) : n;
  for (int i = threadIdx.x; i < prefix; i += blockDim.x) {
    scalar_fn(i);
  }
  const int num_vec = (n - prefix) / N;
  for (int v = threadIdx.x; v < num_vec; v += blockDim.x) {
    vector_fn(prefix + v * N);
  }
  for (int i = prefix + num_vec * N + threadIdx.x; i < n; i += blockDim.x) {
    scalar_fn(i);
  }
}

// ---------------------------------------------------------------------------
// Reductions
// ---------------------------------------------------------------------------
struct SumOp {
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const {
    return a + b;
  }
};

// max that propagates NaN (like torch.amax), unlike fmaxf.
struct NanMaxOp {
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const {
    return (a != a || a > b) ? a : b;
  }
};

template <class T, class Op>
__device__ __forceinline__ T warp_reduce(T v, Op op) {
#pragma unroll
  for (int offset = kWarpSize / 2; offset > 0; offset >>= 1) {
    v = op(v, __shfl_xor_sync(0xffffffffu, v, offset));
  }
  return v;
}

// Reduces `v` over the block; every thread gets the result. blockDim.x must be
// a multiple of 32. Safe to call repeatedly in the same kernel.
template <class T, class Op>
__device__ __forceinline__ T block_reduce(T v, Op op, T identity) {
  __shared__ T shared[kMaxThreads / kWarpSize];
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
  const int num_warps = blockDim.x / kWarpSize;
  v = warp_reduce(v, op);
  __syncthreads();  // previous call's readers of shared[] are done
  if (lane == 0) {
    shared[warp] = v;
  }
  __syncthreads();
  if (warp == 0) {
    v = lane < num_warps ? shared[lane] : identity;
    v = warp_reduce(v, op);
    if (lane == 0) {
      shared[0] = v;
    }
  }
  __syncthreads();
  return shared[0];
}

template <class T>
__device__ __forceinline__ T block_reduce_sum(T v) {
  return block_reduce(v, SumOp{}, T(0));
}

// ---------------------------------------------------------------------------
// Launch helpers
// ---------------------------------------------------------------------------
template <class T>
__host__ __device__ constexpr T ceil_div(T a, T b) {
  return (a + b - 1) / b;
}

// Threads for a one-block-per-row kernel that processes `hidden` elements in
// `vec`-wide chunks: enough warps to give every thread one vector, capped at
// 1024 for few rows (latency bound) and 256 for many rows (more resident
// blocks per SM, a few vectors per thread).
inline int row_block_threads(int64_t rows, int64_t hidden, int vec) {
  const int64_t max_threads = rows < 256 ? kMaxThreads : 256;
  int64_t threads = ceil_div<int64_t>(ceil_div<int64_t>(hidden, vec), kWarpSize) * kWarpSize;
  threads = threads < kWarpSize ? kWarpSize : threads;
  threads = threads > max_threads ? max_threads : threads;
  return static_cast<int>(threads);
}

// Grid for a grid-stride loop over `rows` blocks.
inline unsigned int row_grid(int64_t rows) {
  constexpr int64_t kMaxGrid = 0x7fffffff;
  return static_cast<unsigned int>(rows < kMaxGrid ? rows : kMaxGrid);
}

}  // namespace opgen::kernels::cuda
