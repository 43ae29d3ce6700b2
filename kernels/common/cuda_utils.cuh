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
#include <cstring>
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

// 1 / sqrt(v) from a correctly rounded sqrt and division (rather than the
// approximate rsqrtf), also under --use_fast_math: once per row, so the cost
// is irrelevant.
__device__ __forceinline__ float inv_sqrt(float v) { return __frcp_rn(__fsqrt_rn(v)); }
__device__ __forceinline__ double inv_sqrt(double v) { return 1.0 / sqrt(v); }

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

namespace detail {
// Raw word type for a vector access of `Bytes` (<= 16) bytes.
template <int Bytes>
struct VecWord;
template <>
struct VecWord<16> {
  using type = uint4;
};
template <>
struct VecWord<8> {
  using type = uint2;
};
template <>
struct VecWord<4> {
  using type = uint32_t;
};
template <>
struct VecWord<2> {
  using type = uint16_t;
};
template <>
struct VecWord<1> {
  using type = uint8_t;
};
template <int Bytes>
inline constexpr int kWordBytes = Bytes >= 16 ? 16 : Bytes;
}  // namespace detail

// Vector load/store through explicit 128-bit (or narrower) words: a plain
// struct copy lets the compiler split the access into scalar ones (it does for
// stores of element-wise built vectors).
template <int N, class T>
__device__ __forceinline__ AlignedVector<T, N> load_vec(const T* p) {
  constexpr int kBytes = static_cast<int>(sizeof(AlignedVector<T, N>));
  constexpr int kWord = detail::kWordBytes<kBytes>;
  using Word = typename detail::VecWord<kWord>::type;
  static_assert(kBytes % kWord == 0, "vector size must be a multiple of its word");
  Word words[kBytes / kWord];
  const Word* src = reinterpret_cast<const Word*>(p);
#pragma unroll
  for (int k = 0; k < kBytes / kWord; ++k) {
    words[k] = src[k];
  }
  AlignedVector<T, N> v;
  memcpy(&v, words, kBytes);
  return v;
}

template <int N, class T>
__device__ __forceinline__ void store_vec(T* p, const AlignedVector<T, N>& v) {
  constexpr int kBytes = static_cast<int>(sizeof(AlignedVector<T, N>));
  constexpr int kWord = detail::kWordBytes<kBytes>;
  using Word = typename detail::VecWord<kWord>::type;
  static_assert(kBytes % kWord == 0, "vector size must be a multiple of its word");
  Word words[kBytes / kWord];
  memcpy(words, &v, kBytes);
  Word* dst = reinterpret_cast<Word*>(p);
#pragma unroll
  for (int k = 0; k < kBytes / kWord; ++k) {
    dst[k] = words[k];
  }
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

// Launches a one-block-per-row kernel over `rows` rows as
// `launch(grid, row_offset)`, in several grids if rows exceed gridDim.x's
// limit; the kernel handles row `row_offset + blockIdx.x`. (One row per block
// rather than a grid-stride loop over rows: with the loop, nvcc splits the
// 128-bit stores into scalar ones.)
template <class Launch>
inline void launch_rows(int64_t rows, Launch&& launch) {
  constexpr int64_t kMaxGrid = 0x7fffffff;
  for (int64_t start = 0; start < rows; start += kMaxGrid) {
    const int64_t count = rows - start < kMaxGrid ? rows - start : kMaxGrid;
    launch(static_cast<unsigned int>(count), start);
  }
}

}  // namespace opgen::kernels::cuda
