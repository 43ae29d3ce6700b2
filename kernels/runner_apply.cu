// CUDA kernel for opgen::runner_apply (unstable ABI / ATen): y = x * scale + shift
// with the scale and shift of the registry's runner `runner` (looked up on the
// host; the kernel takes them by value, so destroying the runner later cannot
// affect queued work). Grid-stride loop, 128-bit vectorized when both buffers
// are 16-byte aligned, scalar tail; math in float (double for float64).

// Per-operator ATen headers (ATen/ops/<op>.h), not ATen/ATen.h: a third of the
// compile time. The macro makes an all-operators header an error here.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS

#include "opgen/kernels/runner_apply.h"

#include "common/aten_cuda_utils.cuh"
#include "common/cuda_utils.cuh"
#include "common/runner_registry.h"

#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <ATen/Dispatch.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>

#include <algorithm>
#include <cstdint>

namespace {

namespace oc = opgen::kernels::cuda;
using oc::acc_t;
using oc::AlignedVector;
using oc::to_acc;

constexpr int kThreads = 256;

template <class T>
__global__ void __launch_bounds__(kThreads)
    affine_kernel(T* __restrict__ y, const T* __restrict__ x, int64_t n, acc_t<T> scale, acc_t<T> shift) {
  constexpr int N = oc::kVecSize<T>;
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  int64_t scalar_begin = 0;
  if (oc::is_aligned<oc::kVecBytes>(x) && oc::is_aligned<oc::kVecBytes>(y)) {
    const int64_t num_vec = n / N;
    for (int64_t v = tid; v < num_vec; v += stride) {
      auto xv = oc::load_vec<N>(x + v * N);
#pragma unroll
      for (int k = 0; k < N; ++k) {
        xv.val[k] = oc::from_acc<T>(to_acc(xv.val[k]) * scale + shift);
      }
      oc::store_vec<N>(y + v * N, xv);
    }
    scalar_begin = num_vec * N;
  }
  for (int64_t i = scalar_begin + tid; i < n; i += stride) {
    y[i] = oc::from_acc<T>(to_acc(x[i]) * scale + shift);
  }
}

}  // namespace

at::Tensor opgen::kernels::runner_apply_cuda(const at::Tensor& x, int64_t runner) {
  constexpr const char* kOp = "opgen::runner_apply";
  TORCH_CHECK(x.is_cuda(), kOp, ": CUDA kernel called with a non-CUDA input");
  const auto r = runners::Registry::instance().find(runner);
  TORCH_CHECK(r != nullptr, kOp, ": 'runner' ", runner, " is not a live runner id (see opgen::runner_create)");
  const c10::cuda::CUDAGuard guard(x.device());
  const at::Tensor xc = x.contiguous();
  at::Tensor y = at::empty(x.sizes(), x.options().memory_format(at::MemoryFormat::Contiguous));
  const int64_t n = xc.numel();
  if (n == 0) {
    return y;
  }
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  const int64_t sms = at::cuda::getCurrentDeviceProperties()->multiProcessorCount;
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, x.scalar_type(), "opgen::runner_apply", [&] {
    using T = oc::cuda_type_t<scalar_t>;
    using A = acc_t<T>;
    constexpr int N = oc::kVecSize<T>;
    const auto grid = static_cast<unsigned int>(
        std::clamp<int64_t>(oc::ceil_div<int64_t>(n, static_cast<int64_t>(kThreads) * N), 1, sms * 8));
    affine_kernel<T><<<grid, kThreads, 0, stream>>>(reinterpret_cast<T*>(y.mutable_data_ptr<scalar_t>()),
                                                    reinterpret_cast<const T*>(xc.const_data_ptr<scalar_t>()), n,
                                                    static_cast<A>(r->scale), static_cast<A>(r->shift));
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  });
  return y;
}
