// CUDA kernel for opgen::multi_tensor_adam_ (stable ABI): one Adam / AdamW
// step over lists of tensors, in place, apex FusedAdam-style: a depth-4
// multi-tensor apply (param, grad, exp_avg, exp_avg_sq walked together; one
// launch per (param dtype, moment dtype) group per table of 320 chunks of 64K
// elements), 128-bit vectorized with 2 independent vectors per tensor in
// flight per thread when all four chunks are 16-byte aligned, scalar otherwise. The step
// constants (bias corrections, step size) are computed once on the host in
// double; per element the math is float (double for float64 params), see
// common/adam.h. Tensors that share one dense layout are updated in their own
// buffers; others through contiguous copies that are copied back
// (stream-ordered).

#include "opgen/kernels/multi_tensor_adam_.h"

#include "common/adam.h"
#include "common/cuda_utils.cuh"
#include "common/multi_tensor_apply.cuh"
#include "common/stable_cuda_utils.h"
#include "common/stable_utils.h"

#include <torch/csrc/stable/accelerator.h>
#include <torch/csrc/stable/macros.h>
#include <torch/csrc/stable/tensor.h>

#include <array>
#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

namespace {

namespace oc = opgen::kernels::cuda;
using oc::acc_t;
using oc::AlignedVector;
using oc::to_acc;
using opgen::kernels::common::AdamCoefficients;
using torch::headeronly::ScalarType;

template <class A, class M>
__device__ __forceinline__ A moment_to_acc(M v) {
  return static_cast<A>(to_acc(v));
}

template <class T, class M>
__global__ void __launch_bounds__(oc::kMtaThreads)
    adam_kernel(const __grid_constant__ oc::TensorListMetaN<4> meta, const AdamCoefficients<acc_t<T>> coef) {
  using A = acc_t<T>;
  constexpr int N = oc::kVecSize<T>;
  // Two vectors of each of the four tensors in flight per thread: 4 would
  // need ~128 registers with float32 moments (spills at 512 threads).
  constexpr int kILP = 2;
  const oc::MtaChunkN chunk = oc::mta_chunk_n(meta);
  T* p = static_cast<T*>(meta.ptrs[0][chunk.tensor]) + chunk.start;
  const T* g = static_cast<const T*>(meta.ptrs[1][chunk.tensor]) + chunk.start;
  M* m = static_cast<M*>(meta.ptrs[2][chunk.tensor]) + chunk.start;
  M* v = static_cast<M*>(meta.ptrs[3][chunk.tensor]) + chunk.start;
  const int n = static_cast<int>(chunk.n);

  int scalar_begin = 0;
  if (oc::is_aligned<oc::kVecBytes>(p) && oc::is_aligned<oc::kVecBytes>(g) && oc::is_aligned<oc::kVecBytes>(m) &&
      oc::is_aligned<oc::kVecBytes>(v)) {
    const int num_vec = n / N;
    for (int base = 0; base < num_vec; base += kILP * blockDim.x) {
      AlignedVector<T, N> pv[kILP], gv[kILP];
      AlignedVector<M, N> mv[kILP], vv[kILP];
#pragma unroll
      for (int u = 0; u < kILP; ++u) {
        const int idx = base + u * blockDim.x + threadIdx.x;
        if (idx < num_vec) {
          pv[u] = oc::load_vec<N>(p + idx * N);
          gv[u] = oc::load_vec<N>(g + idx * N);
          mv[u] = oc::load_vec<N>(m + idx * N);
          vv[u] = oc::load_vec<N>(v + idx * N);
        }
      }
#pragma unroll
      for (int u = 0; u < kILP; ++u) {
        const int idx = base + u * blockDim.x + threadIdx.x;
        if (idx < num_vec) {
#pragma unroll
          for (int k = 0; k < N; ++k) {
            A pa = to_acc(pv[u].val[k]);
            A ma = moment_to_acc<A>(mv[u].val[k]);
            A va = moment_to_acc<A>(vv[u].val[k]);
            coef.update(pa, to_acc(gv[u].val[k]), ma, va);
            pv[u].val[k] = oc::from_acc<T>(pa);
            mv[u].val[k] = oc::from_acc<M>(ma);
            vv[u].val[k] = oc::from_acc<M>(va);
          }
          oc::store_vec<N>(p + idx * N, pv[u]);
          oc::store_vec<N>(m + idx * N, mv[u]);
          oc::store_vec<N>(v + idx * N, vv[u]);
        }
      }
    }
    scalar_begin = num_vec * N;
  }
  for (int i = scalar_begin + threadIdx.x; i < n; i += blockDim.x) {
    A pa = to_acc(p[i]);
    A ma = moment_to_acc<A>(m[i]);
    A va = moment_to_acc<A>(v[i]);
    coef.update(pa, to_acc(g[i]), ma, va);
    p[i] = oc::from_acc<T>(pa);
    m[i] = oc::from_acc<M>(ma);
    v[i] = oc::from_acc<M>(va);
  }
}

constexpr std::array<ScalarType, 4> kDtypes = {ScalarType::Float, ScalarType::Double, ScalarType::Half,
                                               ScalarType::BFloat16};

// Group of a (param dtype, moment dtype) pair: 2 * dtype index + (moments fp32
// with a non-fp32 param).
size_t group_of(ScalarType param, ScalarType moment) {
  size_t d = 0;
  while (kDtypes[d] != param) ++d;
  return 2 * d + (moment != param ? 1 : 0);
}

}  // namespace

void opgen::kernels::multi_tensor_adam__cuda(const std::vector<torch::stable::Tensor>& params,
                                             const std::vector<torch::stable::Tensor>& grads,
                                             const std::vector<torch::stable::Tensor>& exp_avgs,
                                             const std::vector<torch::stable::Tensor>& exp_avg_sqs, double lr,
                                             double beta1, double beta2, double eps, double weight_decay,
                                             int64_t step, bool adamw) {
  constexpr const char* kOp = "opgen::multi_tensor_adam_";
  common::check_adam_lists(params, grads, exp_avgs, exp_avg_sqs, step, kOp);
  if (params.empty()) {
    return;
  }
  const int32_t device = params[0].get_device_index();
  for (size_t i = 0; i < params.size(); ++i) {
    STD_TORCH_CHECK(params[i].is_cuda(), kOp, ": CUDA kernel called with a non-CUDA tensor at index ", i);
  }
  torch::stable::accelerator::DeviceGuard guard(device);
  const cudaStream_t stream = cuda::current_stream(device);
  const common::AdamParams hp{lr, beta1, beta2, eps, weight_decay, step, adamw};

  // deque: buffers stay put while the tables hold their pointers.
  std::deque<common::AdamTensorBuffers> buffers;
  std::array<std::vector<oc::MtaTensorTuple<4>>, 2 * kDtypes.size()> groups;
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i].numel() == 0) continue;
    auto& buf = buffers.emplace_back(params[i], grads[i], exp_avgs[i], exp_avg_sqs[i]);
    oc::MtaTensorTuple<4> t{{buf.param().mutable_data_ptr(), const_cast<void*>(buf.grad().const_data_ptr()),
                             buf.exp_avg().mutable_data_ptr(), buf.exp_avg_sq().mutable_data_ptr()},
                            params[i].numel()};
    groups[group_of(params[i].scalar_type(), exp_avgs[i].scalar_type())].push_back(t);
  }

  for (size_t gi = 0; gi < groups.size(); ++gi) {
    if (groups[gi].empty()) continue;
    const ScalarType param_type = kDtypes[gi / 2];
    const ScalarType moment_type = gi % 2 == 0 ? param_type : ScalarType::Float;
    common::dispatch_norm_types<cuda::CudaTypes>(param_type, moment_type, kOp, [&](auto t_tag, auto m_tag) {
      using T = typename decltype(t_tag)::type;
      using M = typename decltype(m_tag)::type;
      const AdamCoefficients<acc_t<T>> coef(hp);
      oc::multi_tensor_apply_n<4>(groups[gi], [&](const oc::TensorListMetaN<4>& meta, int num_blocks) {
        adam_kernel<T, M><<<num_blocks, oc::kMtaThreads, 0, stream>>>(meta, coef);
        STD_CUDA_KERNEL_LAUNCH_CHECK();
      });
    });
  }

  for (auto& buf : buffers) {
    buf.commit();
  }
}
