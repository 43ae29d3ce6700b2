// CUDA kernels for opgen::scaled_masked_softmax and its backward (stable ABI).
//
//   forward:  v = mask ? -10000 : input * scale;  y = softmax(v, -1)
//   backward: dx = mask ? 0 : scale * y * (g - sum(g * y, -1))
//
// mask (bool/uint8, nonzero = masked) is [B or 1, H or 1, Sq, Sk] for a
// [B, H, Sq, Sk] input (the broadcast dims get stride 0).
//
// Forward: one block per row, 128-bit vectorized loads (mask bytes loaded as
// one N-byte word alongside each input vector). Rows whose float32 values fit
// in shared memory are read from global memory once: pass 1 stages v and
// reduces the max, pass 2 turns the staged values into exp(v - max) and sums
// them, pass 3 writes. Longer rows use an online softmax (running max with a
// rescaled running sum) in one read pass, then a second read pass writes.
// Backward: one block per row, two vectorized passes (dot, then dx).
// Warp-shuffle + shared-memory block reductions; math in float (double for
// float64). Non-contiguous inputs are made contiguous; outputs have
// torch.empty_like's layout (the `like(...)` fakes).

#include "opgen/kernels/scaled_masked_softmax.h"
#include "opgen/kernels/scaled_masked_softmax_backward.h"

#include "common/cuda_utils.cuh"
#include "common/kernel_switch.h"
#include "common/stable_cuda_utils.h"
#include "common/stable_utils.h"

#include <torch/csrc/stable/accelerator.h>
#include <torch/csrc/stable/macros.h>
#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>

#include <climits>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <type_traits>

namespace {

namespace oc = opgen::kernels::cuda;
using oc::acc_t;
using oc::AlignedVector;
using oc::to_acc;
using torch::stable::Tensor;

constexpr float kMaskedValue = -10000.0f;
constexpr int kMaxCachedBytes = 46 * 1024;  // + static shared memory < 48 KiB without an opt-in

// Mask row of input row r (see the CPU kernel): [Bm, Hm, Sq, Sk] contiguous,
// Bm / Hm broadcast when 1. data == nullptr: no mask.
struct MaskRows {
  const uint8_t* data;
  int64_t heads, sq, batch_stride, head_stride, sk;

  __device__ __forceinline__ const uint8_t* row(int64_t r) const {
    if (data == nullptr) return nullptr;
    const int64_t s = r % sq;
    const int64_t h = (r / sq) % heads;
    const int64_t b = r / (sq * heads);
    return data + b * batch_stride + h * head_stride + s * sk;
  }
};

__device__ __forceinline__ bool congruent(const void* a, const void* b) {
  return (reinterpret_cast<uintptr_t>(a) - reinterpret_cast<uintptr_t>(b)) % oc::kVecBytes == 0;
}

// The mask bytes of the N elements at i (all zero without a mask).
template <int N>
__device__ __forceinline__ AlignedVector<uint8_t, N> load_mask(const uint8_t* m, bool vec_ok) {
  if (m == nullptr) {
    AlignedVector<uint8_t, N> z;
#pragma unroll
    for (int k = 0; k < N; ++k) z.val[k] = 0;
    return z;
  }
  return oc::load_vec_or_scalar<N>(m, vec_ok);
}

template <class A>
__device__ __forceinline__ A masked_value(A x, uint8_t masked, A scale) {
  return masked != 0 ? static_cast<A>(kMaskedValue) : x * scale;
}

// Accurate exp (not __expf: its error grows with |v|, and softmax arguments
// span [-88, 0]); the kernels are memory bound either way.
__device__ __forceinline__ float exp_acc(float v) { return expf(v); }
__device__ __forceinline__ double exp_acc(double v) { return exp(v); }

// ---------------------------------------------------------------------------
// Forward
// ---------------------------------------------------------------------------
template <class T, bool kCached>
__global__ void softmax_fwd_kernel(T* __restrict__ out, const T* __restrict__ in, MaskRows mask, int64_t row_offset,
                                   int cols, acc_t<T> scale) {
  using A = acc_t<T>;
  constexpr int N = oc::kVecSize<T>;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const int64_t row = row_offset + blockIdx.x;
  const T* x = in + row * cols;
  T* y = out + row * cols;
  const uint8_t* m = mask.row(row);
  const int prefix = oc::aligned_prefix<N>(x, cols);
  const bool mask_vec = m == nullptr || oc::is_aligned<N>(m + prefix);
  // Staged values at an offset that makes the vector positions 16-byte aligned.
  A* cache = reinterpret_cast<A*>(smem_raw) + (N - prefix % N) % N;
  const oc::NanMaxOp max_op;

  A mx = static_cast<A>(-INFINITY);
  A sum = 0;  // kCached == false: the running sum, relative to mx
  auto visit = [&](A v) {
    if constexpr (kCached) {
      mx = max_op(mx, v);
    } else {
      if (v > mx) {
        sum = sum * exp_acc(mx - v) + A(1);
        mx = v;
      } else if (!(v == mx && v == static_cast<A>(-INFINITY))) {
        sum += exp_acc(v - mx);  // a NaN v makes the sum NaN, as in torch.softmax
      }
    }
  };
  oc::for_each_in_row<N>(
      x, cols, true,
      [&](int i) {
        const A v = masked_value(to_acc(x[i]), m == nullptr ? uint8_t(0) : m[i], scale);
        if constexpr (kCached) cache[i] = v;
        visit(v);
      },
      [&](int i) {
        const auto xv = oc::load_vec<N>(x + i);
        const auto mv = load_mask<N>(m == nullptr ? nullptr : m + i, mask_vec);
        AlignedVector<A, N> vv;
#pragma unroll
        for (int k = 0; k < N; ++k) {
          vv.val[k] = masked_value(to_acc(xv.val[k]), mv.val[k], scale);
          visit(vv.val[k]);
        }
        if constexpr (kCached) oc::store_vec<N>(cache + i, vv);
      });

  const A row_max = oc::block_reduce(mx, max_op, static_cast<A>(-INFINITY));
  if constexpr (kCached) {
    // Pass 2 over the staged row (block_reduce synchronized the block).
    oc::for_each_in_row<N>(
        x, cols, true,
        [&](int i) {
          const A e = exp_acc(cache[i] - row_max);
          cache[i] = e;
          sum += e;
        },
        [&](int i) {
          auto vv = oc::load_vec<N>(cache + i);
#pragma unroll
          for (int k = 0; k < N; ++k) {
            vv.val[k] = exp_acc(vv.val[k] - row_max);
            sum += vv.val[k];
          }
          oc::store_vec<N>(cache + i, vv);
        });
  } else {
    // Rescale this thread's running sum to the row max (a thread that saw
    // nothing contributes 0).
    sum = sum == A(0) ? A(0) : sum * exp_acc(mx - row_max);
  }
  const A inv = A(1) / oc::block_reduce_sum(sum);

  oc::for_each_in_row<N>(
      x, cols, congruent(x, y),
      [&](int i) {
        A e;
        if constexpr (kCached) {
          e = cache[i];
        } else {
          e = exp_acc(masked_value(to_acc(x[i]), m == nullptr ? uint8_t(0) : m[i], scale) - row_max);
        }
        y[i] = oc::from_acc<T>(e * inv);
      },
      [&](int i) {
        AlignedVector<T, N> yv;
        if constexpr (kCached) {
          const auto ev = oc::load_vec<N>(cache + i);
#pragma unroll
          for (int k = 0; k < N; ++k) yv.val[k] = oc::from_acc<T>(ev.val[k] * inv);
        } else {
          const auto xv = oc::load_vec<N>(x + i);
          const auto mv = load_mask<N>(m == nullptr ? nullptr : m + i, mask_vec);
#pragma unroll
          for (int k = 0; k < N; ++k) {
            yv.val[k] = oc::from_acc<T>(exp_acc(masked_value(to_acc(xv.val[k]), mv.val[k], scale) - row_max) * inv);
          }
        }
        oc::store_vec<N>(y + i, yv);
      });
}

// ---------------------------------------------------------------------------
// Backward
// ---------------------------------------------------------------------------
template <class T>
__global__ void softmax_bwd_kernel(T* __restrict__ dx, const T* __restrict__ grad, const T* __restrict__ output,
                                   MaskRows mask, int64_t row_offset, int cols, acc_t<T> scale) {
  using A = acc_t<T>;
  constexpr int N = oc::kVecSize<T>;
  const int64_t row = row_offset + blockIdx.x;
  const T* g = grad + row * cols;
  const T* y = output + row * cols;
  T* d = dx + row * cols;
  const uint8_t* m = mask.row(row);
  const int prefix = oc::aligned_prefix<N>(y, cols);
  const bool mask_vec = m == nullptr || oc::is_aligned<N>(m + prefix);

  A dot = 0;
  oc::for_each_in_row<N>(
      y, cols, congruent(y, g), [&](int i) { dot += to_acc(g[i]) * to_acc(y[i]); },
      [&](int i) {
        const auto gv = oc::load_vec<N>(g + i);
        const auto yv = oc::load_vec<N>(y + i);
#pragma unroll
        for (int k = 0; k < N; ++k) dot += to_acc(gv.val[k]) * to_acc(yv.val[k]);
      });
  dot = oc::block_reduce_sum(dot);

  oc::for_each_in_row<N>(
      y, cols, congruent(y, g) && congruent(y, d),
      [&](int i) {
        const bool masked = m != nullptr && m[i] != 0;
        d[i] = oc::from_acc<T>(masked ? A(0) : scale * to_acc(y[i]) * (to_acc(g[i]) - dot));
      },
      [&](int i) {
        const auto gv = oc::load_vec<N>(g + i);
        const auto yv = oc::load_vec<N>(y + i);
        const auto mv = load_mask<N>(m == nullptr ? nullptr : m + i, mask_vec);
        AlignedVector<T, N> dv;
#pragma unroll
        for (int k = 0; k < N; ++k) {
          dv.val[k] = oc::from_acc<T>(mv.val[k] != 0 ? A(0)
                                                     : scale * to_acc(yv.val[k]) * (to_acc(gv.val[k]) - dot));
        }
        oc::store_vec<N>(d + i, dv);
      });
}

// ---------------------------------------------------------------------------
// One warp per row (issue 36; OPGEN_WARP_SOFTMAX=0 and
// OPGEN_WARP_SOFTMAX_BACKWARD=0 take the block kernels instead).
// The block-per-row kernels above spend 6
// barriers and three shared-memory passes per row, so at Sk = 2048 they are
// bound by per-row latency, not bytes (bfloat16 and float32 take nearly the
// same time). Here each lane holds VPL 16-byte vectors of its row in
// registers: the reductions are warp shuffles, nothing goes through shared
// memory, and there is no barrier; exp is exp2 with log2(e) folded into the
// scale. Rows of whole vectors up to kWarpMaxPerLane<T> elements per lane.
// ---------------------------------------------------------------------------
constexpr float kLog2e = 1.4426950408889634f;
constexpr int kWarpRowsPerBlock = 8;

// Elements per lane the warp kernels take (longer rows: the block kernels),
// as measured on an H200 (2026-11-27, docs/benchmarks.md) in bfloat16 with a
// causal mask: the forward 1.5-2.0x the block kernel at rows of 128-2048
// (up to 64 elements per lane, kept as floats), but 0.97x in float32 at 2048
// (64 per lane), so float32 stops at 32; the backward, which holds grad and
// output in T, 1.8x at 128 and 1.15x at 512 (16 per lane), even at 1024 (32)
// and 0.77x at 2048, where 64 per lane spilled.
template <class T>
inline constexpr int kWarpMaxPerLane = sizeof(T) <= 2 ? 64 : 32;
template <class T>
inline constexpr int kWarpBwdMaxPerLane = 16;

// The switches (common/kernel_switch.h): =0 takes the block kernels. On by
// default since those runs, where they also passed the CUDA-vs-CPU tests and
// memcheck, racecheck and synccheck.
constexpr bool kWarpForwardByDefault = true;
constexpr bool kWarpBackwardByDefault = true;

bool warp_forward_enabled() { return opgen::kernels::kernel_switch("OPGEN_WARP_SOFTMAX", kWarpForwardByDefault); }

bool warp_backward_enabled() {
  return opgen::kernels::kernel_switch("OPGEN_WARP_SOFTMAX_BACKWARD", kWarpBackwardByDefault);
}

// Three blocks (24 rows) per SM at least: at most 85 registers.
constexpr int kWarpMinBlocks = 3;

template <class T, int VPL>
__global__ void __launch_bounds__(kWarpRowsPerBlock* oc::kWarpSize, kWarpMinBlocks)
    softmax_fwd_warp_kernel(T* __restrict__ out, const T* __restrict__ in, MaskRows mask, int64_t rows, int cols,
                            float scale_log2) {
  constexpr int N = oc::kVecSize<T>;
  const int lane = threadIdx.x % oc::kWarpSize;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * kWarpRowsPerBlock + threadIdx.x / oc::kWarpSize;
  if (row >= rows) return;
  const int num_vec = cols / N;
  const T* x = in + row * cols;
  const uint8_t* m = mask.row(row);
  const oc::NanMaxOp max_op;

  float v[VPL][N];
  float mx = -INFINITY;
#pragma unroll
  for (int j = 0; j < VPL; ++j) {
    const int i = (lane + j * oc::kWarpSize) * N;
    if (i < cols) {
      const auto xv = oc::load_vec<N>(x + i);
      const auto mv = load_mask<N>(m == nullptr ? nullptr : m + i, true);
#pragma unroll
      for (int k = 0; k < N; ++k) {
        v[j][k] = mv.val[k] != 0 ? kMaskedValue * kLog2e : to_acc(xv.val[k]) * scale_log2;
        mx = max_op(mx, v[j][k]);
      }
    }
  }
  mx = oc::warp_reduce(mx, max_op);
  float sum = 0.0f;
#pragma unroll
  for (int j = 0; j < VPL; ++j) {
    if ((lane + j * oc::kWarpSize) < num_vec) {
#pragma unroll
      for (int k = 0; k < N; ++k) {
        v[j][k] = exp2f(v[j][k] - mx);
        sum += v[j][k];
      }
    }
  }
  const float inv = 1.0f / oc::warp_reduce(sum, oc::SumOp{});
  T* y = out + row * cols;
#pragma unroll
  for (int j = 0; j < VPL; ++j) {
    const int i = (lane + j * oc::kWarpSize) * N;
    if (i < cols) {
      AlignedVector<T, N> yv;
#pragma unroll
      for (int k = 0; k < N; ++k) yv.val[k] = oc::from_acc<T>(v[j][k] * inv);
      oc::store_vec<N>(y + i, yv);
    }
  }
}

template <class T, int VPL>
__global__ void __launch_bounds__(kWarpRowsPerBlock* oc::kWarpSize, kWarpMinBlocks)
    softmax_bwd_warp_kernel(T* __restrict__ dx, const T* __restrict__ grad, const T* __restrict__ output,
                            MaskRows mask, int64_t rows, int cols, float scale) {
  constexpr int N = oc::kVecSize<T>;
  const int lane = threadIdx.x % oc::kWarpSize;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * kWarpRowsPerBlock + threadIdx.x / oc::kWarpSize;
  if (row >= rows) return;
  const T* g = grad + row * cols;
  const T* y = output + row * cols;
  const uint8_t* m = mask.row(row);

  AlignedVector<T, N> gv[VPL];
  AlignedVector<T, N> yv[VPL];
  float dot = 0.0f;
#pragma unroll
  for (int j = 0; j < VPL; ++j) {
    const int i = (lane + j * oc::kWarpSize) * N;
    if (i < cols) {
      gv[j] = oc::load_vec<N>(g + i);
      yv[j] = oc::load_vec<N>(y + i);
#pragma unroll
      for (int k = 0; k < N; ++k) dot += to_acc(gv[j].val[k]) * to_acc(yv[j].val[k]);
    }
  }
  dot = oc::warp_reduce(dot, oc::SumOp{});
  T* d = dx + row * cols;
#pragma unroll
  for (int j = 0; j < VPL; ++j) {
    const int i = (lane + j * oc::kWarpSize) * N;
    if (i < cols) {
      const auto mv = load_mask<N>(m == nullptr ? nullptr : m + i, true);
      AlignedVector<T, N> dv;
#pragma unroll
      for (int k = 0; k < N; ++k) {
        dv.val[k] = oc::from_acc<T>(mv.val[k] != 0 ? 0.0f : scale * to_acc(yv[j].val[k]) * (to_acc(gv[j].val[k]) - dot));
      }
      oc::store_vec<N>(d + i, dv);
    }
  }
}

// Vectors per lane for a warp kernel over rows of `cols` elements (a power of
// two, at most max_per_lane elements), or 0 when the row is not whole
// 16-byte vectors in aligned memory (the tensors and the mask) or too long.
template <class T>
int warp_vectors_per_lane(int64_t cols, int max_per_lane, const MaskRows& m, std::initializer_list<const void*> ptrs) {
  constexpr int N = oc::kVecSize<T>;
  if constexpr (!std::is_same_v<acc_t<T>, float>) {
    return 0;  // float64: the block kernels
  } else {
    if (cols <= 0 || cols % N != 0 || (m.data != nullptr && !oc::is_aligned<N>(m.data))) {
      return 0;
    }
    for (const void* p : ptrs) {
      if (!oc::is_aligned<oc::kVecBytes>(p)) return 0;
    }
    for (int vpl = 1; vpl * N <= max_per_lane; vpl *= 2) {
      if (cols <= static_cast<int64_t>(vpl) * N * oc::kWarpSize) return vpl;
    }
    return 0;
  }
}

// Calls launch(std::integral_constant<int, VPL>) for the runtime vpl (a power
// of two up to MaxVPL; larger ones are not instantiated).
template <int MaxVPL, class Launch>
void with_vectors_per_lane(int vpl, Launch&& launch) {
  auto call = [&](auto tag) {
    if constexpr (decltype(tag)::value <= MaxVPL) launch(tag);
  };
  switch (vpl) {
    case 1: return call(std::integral_constant<int, 1>{});
    case 2: return call(std::integral_constant<int, 2>{});
    case 4: return call(std::integral_constant<int, 4>{});
    case 8: return call(std::integral_constant<int, 8>{});
    default: return call(std::integral_constant<int, 16>{});
  }
}

// Host side: checks the mask against the input and describes its rows.
MaskRows mask_rows(const Tensor& input, const std::optional<Tensor>& mask, const Tensor& mask_contig,
                   const char* op) {
  MaskRows m{nullptr, 1, 1, 0, 0, 0};
  if (!mask.has_value()) return m;
  STD_TORCH_CHECK(input.dim() == 4 && mask->dim() == 4, op, ": with a mask, input and mask must be 4-D");
  STD_TORCH_CHECK(mask->size(0) == 1 || mask->size(0) == input.size(0), op, ": mask.size(0) must be 1 or B");
  STD_TORCH_CHECK(mask->size(1) == 1 || mask->size(1) == input.size(1), op, ": mask.size(1) must be 1 or H");
  STD_TORCH_CHECK(mask->size(2) == input.size(2) && mask->size(3) == input.size(3), op,
                  ": mask must match the input in its last two dimensions");
  STD_TORCH_CHECK(mask->is_cuda() && mask->get_device_index() == input.get_device_index(), op,
                  ": mask must be on the input's device");
  m.data = static_cast<const uint8_t*>(mask_contig.const_data_ptr());
  m.heads = input.size(1);
  m.sq = input.size(2);
  m.sk = input.size(3);
  m.head_stride = mask->size(1) == 1 ? 0 : m.sq * m.sk;
  m.batch_stride = mask->size(0) == 1 ? 0 : mask->size(1) * m.sq * m.sk;
  return m;
}

void check_cols(int64_t cols, const char* op) {
  STD_TORCH_CHECK(cols <= INT_MAX, op, ": rows of ", cols, " elements exceed the CUDA kernel limit ", INT_MAX);
}

}  // namespace

torch::stable::Tensor opgen::kernels::scaled_masked_softmax_cuda(const torch::stable::Tensor& input,
                                                                 const std::optional<torch::stable::Tensor>& mask,
                                                                 double scale) {
  constexpr const char* kOp = "opgen::scaled_masked_softmax";
  STD_TORCH_CHECK(input.is_cuda(), kOp, ": CUDA kernel called with non-CUDA tensors");
  const auto shape = common::row_shape(input, kOp);
  check_cols(shape.hidden, kOp);
  const int32_t device = input.get_device_index();
  torch::stable::accelerator::DeviceGuard guard(device);
  const Tensor mask_c = mask.has_value() ? common::contiguous_or_self(*mask) : Tensor();
  const MaskRows m = mask_rows(input, mask, mask_c, kOp);
  common::OutputBuffer y(input);
  if (input.numel() == 0) return y.finish();
  const Tensor x = common::contiguous_or_self(input);
  const cudaStream_t stream = cuda::current_stream(device);
  common::dispatch_floating<cuda::CudaTypes>(x.scalar_type(), kOp, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = acc_t<T>;
    constexpr int N = oc::kVecSize<T>;
    T* yp = static_cast<T*>(y.work().mutable_data_ptr());
    const auto* xp = static_cast<const T*>(x.const_data_ptr());
    if (warp_forward_enabled()) {
      if (const int vpl = warp_vectors_per_lane<T>(shape.hidden, kWarpMaxPerLane<T>, m, {xp, yp})) {
        if constexpr (std::is_same_v<A, float>) {
          const auto blocks = static_cast<unsigned int>(oc::ceil_div<int64_t>(shape.rows, kWarpRowsPerBlock));
          with_vectors_per_lane<kWarpMaxPerLane<T> / N>(vpl, [&](auto tag) {
            softmax_fwd_warp_kernel<T, decltype(tag)::value><<<blocks, kWarpRowsPerBlock * oc::kWarpSize, 0, stream>>>(
                yp, xp, m, shape.rows, static_cast<int>(shape.hidden), static_cast<float>(scale) * kLog2e);
          });
          STD_CUDA_KERNEL_LAUNCH_CHECK();
          return;
        }
      }
    }
    const int threads = oc::row_block_threads(shape.rows, shape.hidden, N);
    const int64_t cache_bytes = (shape.hidden + N) * static_cast<int64_t>(sizeof(A));
    const bool cached = cache_bytes <= kMaxCachedBytes;
    oc::launch_rows(shape.rows, [&](unsigned int grid, int64_t row_offset) {
      if (cached) {
        softmax_fwd_kernel<T, true><<<grid, threads, static_cast<size_t>(cache_bytes), stream>>>(
            yp, xp, m, row_offset, static_cast<int>(shape.hidden), static_cast<A>(scale));
      } else {
        softmax_fwd_kernel<T, false><<<grid, threads, 0, stream>>>(yp, xp, m, row_offset,
                                                                   static_cast<int>(shape.hidden),
                                                                   static_cast<A>(scale));
      }
      STD_CUDA_KERNEL_LAUNCH_CHECK();
    });
  });
  return y.finish();
}

torch::stable::Tensor opgen::kernels::scaled_masked_softmax_backward_cuda(
    const torch::stable::Tensor& grad, const torch::stable::Tensor& output,
    const std::optional<torch::stable::Tensor>& mask, double scale) {
  constexpr const char* kOp = "opgen::scaled_masked_softmax_backward";
  STD_TORCH_CHECK(grad.is_cuda() && output.is_cuda(), kOp, ": CUDA kernel called with non-CUDA tensors");
  STD_TORCH_CHECK(common::same_sizes(grad, output), kOp, ": grad must have the output's shape");
  STD_TORCH_CHECK(grad.get_device_index() == output.get_device_index(), kOp,
                  ": grad must be on the output's device");
  const auto shape = common::row_shape(output, kOp);
  check_cols(shape.hidden, kOp);
  const int32_t device = output.get_device_index();
  torch::stable::accelerator::DeviceGuard guard(device);
  const Tensor mask_c = mask.has_value() ? common::contiguous_or_self(*mask) : Tensor();
  const MaskRows m = mask_rows(output, mask, mask_c, kOp);
  common::OutputBuffer dx(output);
  if (output.numel() == 0) return dx.finish();
  const Tensor g = common::contiguous_or_self(grad);
  const Tensor yc = common::contiguous_or_self(output);
  const cudaStream_t stream = cuda::current_stream(device);
  common::dispatch_floating<cuda::CudaTypes>(yc.scalar_type(), kOp, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = acc_t<T>;
    if (warp_backward_enabled()) {
      T* dp = static_cast<T*>(dx.work().mutable_data_ptr());
      const auto* gp = static_cast<const T*>(g.const_data_ptr());
      const auto* yp = static_cast<const T*>(yc.const_data_ptr());
      if (const int vpl = warp_vectors_per_lane<T>(shape.hidden, kWarpBwdMaxPerLane<T>, m, {dp, gp, yp})) {
        if constexpr (std::is_same_v<A, float>) {
          const auto blocks = static_cast<unsigned int>(oc::ceil_div<int64_t>(shape.rows, kWarpRowsPerBlock));
          with_vectors_per_lane<kWarpBwdMaxPerLane<T> / oc::kVecSize<T>>(vpl, [&](auto tag) {
            softmax_bwd_warp_kernel<T, decltype(tag)::value><<<blocks, kWarpRowsPerBlock * oc::kWarpSize, 0, stream>>>(
                dp, gp, yp, m, shape.rows, static_cast<int>(shape.hidden), static_cast<float>(scale));
          });
          STD_CUDA_KERNEL_LAUNCH_CHECK();
          return;
        }
      }
    }
    const int threads = oc::row_block_threads(shape.rows, shape.hidden, oc::kVecSize<T>);
    oc::launch_rows(shape.rows, [&](unsigned int grid, int64_t row_offset) {
      softmax_bwd_kernel<T><<<grid, threads, 0, stream>>>(
          static_cast<T*>(dx.work().mutable_data_ptr()), static_cast<const T*>(g.const_data_ptr()),
          static_cast<const T*>(yc.const_data_ptr()), m, row_offset, static_cast<int>(shape.hidden),
          static_cast<A>(scale));
      STD_CUDA_KERNEL_LAUNCH_CHECK();
    });
  });
  return dx.finish();
}
