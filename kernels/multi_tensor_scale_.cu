// CUDA kernel for opgen::multi_tensor_scale_ (stable ABI): t *= scale for every
// tensor of the list, in place, apex-style: one launch per dtype (per 320
// chunks of 64K elements), 128-bit vectorized with 4 independent vectors in
// flight per thread when the tensor is 16-byte aligned, scalar otherwise.
// Products in float (double for float64), rounded once like torch's mul_.
// Dense tensors (any dim order) are scaled in their own buffer; others through
// a contiguous copy that is copied back (stream-ordered).

#include "opgen/kernels/multi_tensor_scale_.h"

#include "common/cuda_utils.cuh"
#include "common/multi_tensor_apply.cuh"
#include "common/stable_cuda_utils.h"
#include "common/stable_utils.h"

#include <torch/csrc/stable/accelerator.h>
#include <torch/csrc/stable/macros.h>
#include <torch/csrc/stable/tensor.h>

#include <array>
#include <cstdint>
#include <vector>

namespace {

namespace oc = opgen::kernels::cuda;
using oc::acc_t;
using oc::AlignedVector;
using oc::to_acc;
using torch::headeronly::ScalarType;

template <class T>
__global__ void __launch_bounds__(oc::kMtaThreads)
    multi_tensor_scale_kernel(const __grid_constant__ oc::TensorListMeta meta, acc_t<T> scale) {
  constexpr int N = oc::kVecSize<T>;
  constexpr int kILP = 4;
  const oc::MtaChunk chunk = oc::mta_chunk(meta, sizeof(T));
  T* p = static_cast<T*>(chunk.ptr);
  const int n = static_cast<int>(chunk.n);

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
            v[u].val[k] = oc::from_acc<T>(to_acc(v[u].val[k]) * scale);
          }
          oc::store_vec<N>(p + idx * N, v[u]);
        }
      }
    }
    scalar_begin = num_vec * N;
  }
  for (int i = scalar_begin + threadIdx.x; i < n; i += blockDim.x) {
    p[i] = oc::from_acc<T>(to_acc(p[i]) * scale);
  }
}

constexpr std::array<ScalarType, 4> kDtypes = {ScalarType::Float, ScalarType::Double, ScalarType::Half,
                                               ScalarType::BFloat16};

}  // namespace

void opgen::kernels::multi_tensor_scale__cuda(const std::vector<torch::stable::Tensor>& tensors, double scale) {
  constexpr const char* kOp = "opgen::multi_tensor_scale_";
  if (tensors.empty()) {
    return;
  }
  const int32_t device = tensors[0].get_device_index();
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto& t = tensors[i];
    STD_TORCH_CHECK(t.is_cuda(), kOp, ": CUDA kernel called with a non-CUDA tensor at index ", i);
    STD_TORCH_CHECK(t.get_device_index() == device, kOp,
                    ": all tensors must be on the same device; tensor 0 is on cuda:", device, ", tensor ", i,
                    " on cuda:", t.get_device_index());
    const ScalarType st = t.scalar_type();
    STD_TORCH_CHECK(st == ScalarType::Float || st == ScalarType::Double || st == ScalarType::Half ||
                        st == ScalarType::BFloat16,
                    kOp, ": unsupported dtype ", torch::headeronly::toString(st), " at index ", i,
                    " (expected float32, float64, float16 or bfloat16)");
  }

  torch::stable::accelerator::DeviceGuard guard(device);
  const cudaStream_t stream = cuda::current_stream(device);

  std::vector<common::InplaceBuffer> buffers;
  buffers.reserve(tensors.size());
  std::array<std::vector<oc::MtaTensor>, kDtypes.size()> groups;
  for (const auto& t : tensors) {
    if (t.numel() == 0) {
      continue;
    }
    auto& buf = buffers.emplace_back(t, common::is_non_overlapping_and_dense(t));
    for (size_t d = 0; d < kDtypes.size(); ++d) {
      if (t.scalar_type() == kDtypes[d]) {
        groups[d].push_back({buf.work().mutable_data_ptr(), t.numel(), 0});
      }
    }
  }

  for (size_t d = 0; d < kDtypes.size(); ++d) {
    if (groups[d].empty()) {
      continue;
    }
    common::dispatch_floating<cuda::CudaTypes>(kDtypes[d], kOp, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const auto s = static_cast<acc_t<T>>(scale);
      oc::multi_tensor_apply(groups[d], [&](const oc::TensorListMeta& meta, int num_blocks) {
        multi_tensor_scale_kernel<T><<<num_blocks, oc::kMtaThreads, 0, stream>>>(meta, s);
        STD_CUDA_KERNEL_LAUNCH_CHECK();
      });
    });
  }

  for (auto& buf : buffers) {
    buf.commit();
  }
}
