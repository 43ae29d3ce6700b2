// CUDA kernel for opgen::multi_tensor_l2norm (unstable ABI / ATen).
//
// Returns (total, per_tensor): per_tensor[i] = ||tensors[i]||_2 (float32,
// shape [len(tensors)]), total = sqrt(sum_i per_tensor[i]^2) (0-dim float32).
//
// Deterministic three-stage reduction, no atomics and no host sync:
//   1. apex-style multi-tensor apply (one launch per dtype per table of 320
//      chunks of 64K elements): each block writes the sum of squares of its
//      chunk to partials[chunk_offset[tensor] + chunk] (float accumulation,
//      double for float64 tensors; 128-bit loads, 4 vectors in flight), as a
//      double.
//   2. one block per tensor sums its chunk partials (in double) -> per-tensor
//      sum of squares and norm.
//   3. one block sums the per-tensor sums of squares (in double) -> total
//      norm. Sums of squares never pass through float: float64 inputs keep
//      their range (1e-30 or 1e30 values give their norm, not 0 or inf).
// An empty list gives total = 0 and per_tensor of shape [0] on the current
// CUDA device.

// Per-operator ATen headers (ATen/ops/<op>.h), not ATen/ATen.h: a third of the
// compile time. The macro makes an all-operators header an error here.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS

#include "opgen/kernels/multi_tensor_l2norm.h"

#include "common/aten_cuda_utils.cuh"
#include "common/cuda_utils.cuh"
#include "common/multi_tensor_apply.cuh"

#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/zeros.h>
#include <ATen/Dispatch.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <tuple>
#include <vector>

namespace {

namespace oc = opgen::kernels::cuda;
using oc::acc_t;
using oc::AlignedVector;
using oc::to_acc;

constexpr const char* kOp = "opgen::multi_tensor_l2norm";

template <class T>
__global__ void __launch_bounds__(oc::kMtaThreads)
    l2norm_chunk_kernel(const __grid_constant__ oc::TensorListMeta meta, double* __restrict__ partials) {
  using A = acc_t<T>;
  constexpr int N = oc::kVecSize<T>;
  constexpr int kILP = 4;
  const oc::MtaChunk chunk = oc::mta_chunk(meta, sizeof(T));
  const T* p = static_cast<const T*>(chunk.ptr);
  const int n = static_cast<int>(chunk.n);

  A acc[kILP] = {};
  int scalar_begin = 0;
  if (oc::is_aligned<oc::kVecBytes>(p)) {
    const int num_vec = n / N;
    for (int base = 0; base < num_vec; base += kILP * blockDim.x) {
      AlignedVector<T, N> v[kILP];
#pragma unroll
      for (int u = 0; u < kILP; ++u) {
        const int idx = base + u * blockDim.x + threadIdx.x;
        if (idx < num_vec) {
          v[u] = oc::load_vec<N>(p + idx * N);
        }
      }
#pragma unroll
      for (int u = 0; u < kILP; ++u) {
        const int idx = base + u * blockDim.x + threadIdx.x;
        if (idx < num_vec) {
#pragma unroll
          for (int k = 0; k < N; ++k) {
            const A x = to_acc(v[u].val[k]);
            acc[u] += x * x;
          }
        }
      }
    }
    scalar_begin = num_vec * N;
  }
  for (int i = scalar_begin + threadIdx.x; i < n; i += blockDim.x) {
    const A x = to_acc(p[i]);
    acc[0] += x * x;
  }
  A s = 0;
#pragma unroll
  for (int u = 0; u < kILP; ++u) {
    s += acc[u];
  }
  s = oc::block_reduce_sum(s);
  if (threadIdx.x == 0) {
    // Partial sums are kept in double from here on: squares of float64 values
    // below ~1e-19 or above ~1.8e19 leave float's range (the CPU kernel's too).
    partials[chunk.tag + chunk.chunk] = static_cast<double>(s);
  }
}

// Chunk-partial ranges of up to kSegMax consecutive tensors: tensor
// `tensor_base + b` owns partials[offsets[b], offsets[b + 1]).
constexpr int kSegMax = 480;
struct SegmentTable {
  int64_t offsets[kSegMax + 1];
};
static_assert(sizeof(SegmentTable) <= 4096, "SegmentTable must fit the 4 KB kernel parameter limit");

constexpr int kSegThreads = 256;

__global__ void __launch_bounds__(kSegThreads)
    l2norm_tensor_kernel(const __grid_constant__ SegmentTable seg, int64_t tensor_base,
                         const double* __restrict__ partials, double* __restrict__ tensor_sq,
                         float* __restrict__ per_tensor) {
  const int64_t begin = seg.offsets[blockIdx.x];
  const int64_t end = seg.offsets[blockIdx.x + 1];
  double s = 0.0;
  for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
    s += partials[i];
  }
  s = oc::block_reduce_sum(s);
  if (threadIdx.x == 0) {
    tensor_sq[tensor_base + blockIdx.x] = s;
    per_tensor[tensor_base + blockIdx.x] = static_cast<float>(sqrt(s));
  }
}

constexpr int kTotalThreads = 1024;

__global__ void __launch_bounds__(kTotalThreads)
    l2norm_total_kernel(const double* __restrict__ tensor_sq, int64_t n, float* __restrict__ total) {
  double s = 0.0;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    s += tensor_sq[i];
  }
  s = oc::block_reduce_sum(s);
  if (threadIdx.x == 0) {
    *total = static_cast<float>(sqrt(s));
  }
}

constexpr std::array<at::ScalarType, 4> kDtypes = {at::kFloat, at::kDouble, at::kHalf, at::kBFloat16};

}  // namespace

std::tuple<at::Tensor, at::Tensor> opgen::kernels::multi_tensor_l2norm_cuda(at::TensorList tensors) {
  const auto n = static_cast<int64_t>(tensors.size());
  if (n == 0) {
    const auto opts = at::TensorOptions().dtype(at::kFloat).device(at::kCUDA, c10::cuda::current_device());
    return {at::zeros({}, opts), at::empty({0}, opts)};
  }
  const at::Device device = tensors[0].device();
  TORCH_CHECK(device.is_cuda(), kOp, ": CUDA kernel called with non-CUDA tensors");
  for (int64_t i = 0; i < n; ++i) {
    const at::Tensor& t = tensors[i];
    TORCH_CHECK(t.device() == device, kOp, ": all tensors must be on the same device; tensor 0 is on ", device,
                ", tensor ", i, " on ", t.device());
    TORCH_CHECK(std::find(kDtypes.begin(), kDtypes.end(), t.scalar_type()) != kDtypes.end(), kOp,
                ": unsupported dtype ", t.scalar_type(), " at index ", i,
                " (expected float32, float64, float16 or bfloat16)");
  }
  const c10::cuda::CUDAGuard guard(device);
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  const auto opts = at::TensorOptions().dtype(at::kFloat).device(device);

  // Stage 1: per-chunk sums of squares.
  std::vector<at::Tensor> dense;  // keeps contiguous copies alive until the launches are queued
  dense.reserve(tensors.size());
  std::vector<int64_t> offsets(static_cast<size_t>(n) + 1, 0);
  std::array<std::vector<oc::MtaTensor>, kDtypes.size()> groups;
  for (int64_t i = 0; i < n; ++i) {
    const at::Tensor& t = tensors[i];
    dense.push_back(t.is_non_overlapping_and_dense() ? t : t.contiguous());
    const at::Tensor& d = dense.back();
    offsets[i + 1] = offsets[i] + oc::mta_num_chunks(d.numel());
    if (d.numel() > 0) {
      const auto g = std::find(kDtypes.begin(), kDtypes.end(), d.scalar_type()) - kDtypes.begin();
      groups[g].push_back({const_cast<void*>(d.const_data_ptr()), d.numel(), offsets[i]});
    }
  }
  at::Tensor partials = at::empty({std::max<int64_t>(offsets[n], 1)}, opts.dtype(at::kDouble));
  double* partials_ptr = partials.mutable_data_ptr<double>();
  for (size_t g = 0; g < kDtypes.size(); ++g) {
    if (groups[g].empty()) {
      continue;
    }
    AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, kDtypes[g], "opgen::multi_tensor_l2norm", [&] {
      using T = oc::cuda_type_t<scalar_t>;
      oc::multi_tensor_apply(groups[g], [&](const oc::TensorListMeta& meta, int num_blocks) {
        l2norm_chunk_kernel<T><<<num_blocks, oc::kMtaThreads, 0, stream>>>(meta, partials_ptr);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
      });
    });
  }

  // Stage 2: per-tensor sums.
  at::Tensor tensor_sq = at::empty({n}, opts.dtype(at::kDouble));
  at::Tensor per_tensor = at::empty({n}, opts);
  for (int64_t base = 0; base < n; base += kSegMax) {
    const int count = static_cast<int>(std::min<int64_t>(kSegMax, n - base));
    SegmentTable seg;
    std::copy(offsets.begin() + base, offsets.begin() + base + count + 1, seg.offsets);
    l2norm_tensor_kernel<<<count, kSegThreads, 0, stream>>>(seg, base, partials_ptr,
                                                            tensor_sq.mutable_data_ptr<double>(),
                                                            per_tensor.mutable_data_ptr<float>());
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  }

  // Stage 3: total.
  at::Tensor total = at::empty({}, opts);
  l2norm_total_kernel<<<1, kTotalThreads, 0, stream>>>(tensor_sq.const_data_ptr<double>(), n,
                                                       total.mutable_data_ptr<float>());
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return {total, per_tensor};
}
