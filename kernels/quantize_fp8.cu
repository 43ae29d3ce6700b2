// CUDA kernel for opgen::quantize_fp8 (unstable ABI / ATen).
//
//   scale given:  q = saturate_e4m3(input / scale); the returned scale is a
//                 0-dim float32 copy written by the quantize kernel (no host
//                 sync: the scale is read on the device)
//   no scale:     amax kernel (block max + one atomicMax per block), then
//                 scale = max(amax, 1e-12) / 448 computed on the device by the
//                 quantize kernel
//
// saturate_e4m3 clamps to [-448, 448] (NaN passes through), then converts with
// round-to-nearest-even (__nv_cvt_float_to_fp8, hardware cvt on sm_89+). A NaN
// input makes the dynamic scale NaN (like torch.amax). An empty input without
// a scale gets scale = 1e-12 / 448. Same numerics as the CPU kernel: float32
// math with a correctly rounded division, bit-identical q.
// Grid-stride loops with 128-bit loads when the input is 16-byte aligned.

// Per-operator ATen headers (ATen/ops/<op>.h), not ATen/ATen.h: a third of the
// compile time. The macro makes an all-operators header an error here.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS

#include "opgen/kernels/quantize_fp8.h"

#include "common/aten_cuda_utils.cuh"
#include "common/cuda_utils.cuh"

#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <ATen/Dispatch.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>

#include <cuda_fp8.h>

#include <algorithm>
#include <cstdint>
#include <tuple>

namespace {

namespace oc = opgen::kernels::cuda;
using oc::AlignedVector;

constexpr const char* kOp = "opgen::quantize_fp8";
constexpr float kFp8Max = 448.0f;
constexpr float kMinAmax = 1e-12f;
constexpr int kThreads = 256;

template <class T>
__device__ __forceinline__ float load_float(T v) {
  return static_cast<float>(oc::to_acc(v));
}

__device__ __forceinline__ __nv_fp8_storage_t quantize_one(float x, float scale) {
  float v = __fdiv_rn(x, scale);
  v = v > kFp8Max ? kFp8Max : (v < -kFp8Max ? -kFp8Max : v);  // NaN passes through
  return __nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E4M3);
}

template <class T>
__global__ void __launch_bounds__(kThreads) amax_kernel(float* __restrict__ amax, const T* __restrict__ x, int64_t n) {
  constexpr int N = oc::kVecSize<T>;
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const oc::NanMaxOp max_op;
  float m = 0.0f;
  int64_t scalar_begin = 0;
  if (oc::is_aligned<oc::kVecBytes>(x)) {
    const int64_t num_vec = n / N;
    for (int64_t v = tid; v < num_vec; v += stride) {
      const auto xv = oc::load_vec<N>(x + v * N);
#pragma unroll
      for (int k = 0; k < N; ++k) {
        m = max_op(m, fabsf(load_float(xv.val[k])));
      }
    }
    scalar_begin = num_vec * N;
  }
  for (int64_t i = scalar_begin + tid; i < n; i += stride) {
    m = max_op(m, fabsf(load_float(x[i])));
  }
  m = oc::block_reduce(m, max_op, 0.0f);
  if (threadIdx.x == 0) {
    // m is +0, positive, +inf or a NaN with the sign cleared (fabsf): for such
    // values the int ordering of the bits matches the float ordering, NaN on top.
    atomicMax(reinterpret_cast<int*>(amax), __float_as_int(m));
  }
}

// kDynamic: `scale_src` holds amax, the scale is derived from it; otherwise it
// holds the scale itself.
template <class T, bool kDynamic>
__global__ void __launch_bounds__(kThreads)
    quantize_kernel(__nv_fp8_storage_t* __restrict__ q, float* __restrict__ scale_out,
                    const float* __restrict__ scale_src, const T* __restrict__ x, int64_t n) {
  constexpr int N = oc::kVecSize<T>;
  float scale = *scale_src;
  if constexpr (kDynamic) {
    scale = __fdiv_rn(oc::NanMaxOp{}(scale, kMinAmax), kFp8Max);
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    *scale_out = scale;
  }
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  int64_t scalar_begin = 0;
  if (oc::is_aligned<oc::kVecBytes>(x) && oc::is_aligned<N>(q)) {
    const int64_t num_vec = n / N;
    for (int64_t v = tid; v < num_vec; v += stride) {
      const auto xv = oc::load_vec<N>(x + v * N);
      AlignedVector<__nv_fp8_storage_t, N> qv;
#pragma unroll
      for (int k = 0; k < N; ++k) {
        qv.val[k] = quantize_one(load_float(xv.val[k]), scale);
      }
      oc::store_vec<N>(q + v * N, qv);
    }
    scalar_begin = num_vec * N;
  }
  for (int64_t i = scalar_begin + tid; i < n; i += stride) {
    q[i] = quantize_one(load_float(x[i]), scale);
  }
}

unsigned int grid_for(int64_t n, int vec) {
  const int64_t sms = at::cuda::getCurrentDeviceProperties()->multiProcessorCount;
  const int64_t wanted = oc::ceil_div<int64_t>(n, static_cast<int64_t>(kThreads) * vec);
  return static_cast<unsigned int>(std::clamp<int64_t>(wanted, 1, sms * 8));
}

}  // namespace

std::tuple<at::Tensor, at::Tensor> opgen::kernels::quantize_fp8_cuda(const at::Tensor& input,
                                                                     const std::optional<at::Tensor>& scale) {
  TORCH_CHECK(input.is_cuda(), kOp, ": CUDA kernel called with a non-CUDA input");
  const c10::cuda::CUDAGuard guard(input.device());
  const at::Tensor x = input.contiguous();
  at::Tensor q = at::empty(input.sizes(), input.options().dtype(at::kFloat8_e4m3fn));
  at::Tensor scale_out = at::empty({}, input.options().dtype(at::kFloat));
  const int64_t n = x.numel();
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream();

  at::Tensor scale_src;
  if (scale.has_value()) {
    TORCH_CHECK(scale->numel() == 1, kOp, ": scale must have exactly one element, got ", scale->numel());
    TORCH_CHECK(scale->scalar_type() == at::kFloat, kOp, ": scale must be float32, got ", scale->scalar_type());
    scale_src = scale->device() == input.device() ? *scale : scale->to(input.device());
  } else {
    scale_src = at::empty({}, input.options().dtype(at::kFloat));
    C10_CUDA_CHECK(cudaMemsetAsync(scale_src.mutable_data_ptr<float>(), 0, sizeof(float), stream));
  }

  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, x.scalar_type(), "opgen::quantize_fp8", [&] {
    using T = oc::cuda_type_t<scalar_t>;
    constexpr int N = oc::kVecSize<T>;
    const T* xp = reinterpret_cast<const T*>(x.const_data_ptr<scalar_t>());
    auto* qp = reinterpret_cast<__nv_fp8_storage_t*>(q.mutable_data_ptr());
    float* sp = scale_out.mutable_data_ptr<float>();
    const unsigned int grid = grid_for(n, N);
    if (scale.has_value()) {
      quantize_kernel<T, false><<<grid, kThreads, 0, stream>>>(qp, sp, scale_src.const_data_ptr<float>(), xp, n);
      C10_CUDA_KERNEL_LAUNCH_CHECK();
    } else {
      if (n > 0) {
        amax_kernel<T><<<grid, kThreads, 0, stream>>>(scale_src.mutable_data_ptr<float>(), xp, n);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
      }
      quantize_kernel<T, true><<<grid, kThreads, 0, stream>>>(qp, sp, scale_src.const_data_ptr<float>(), xp, n);
      C10_CUDA_KERNEL_LAUNCH_CHECK();
    }
  });
  return {q, scale_out};
}
