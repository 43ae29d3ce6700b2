// CUDA kernel for opgen::one_shot_all_reduce (unstable ABI / ATen + c10d
// symmetric memory), the algorithm of PyTorch's symm_mem one_shot_all_reduce.
//
// `input` lives in symmetric memory: every rank's buffer is mapped into every
// peer's address space, at the same offset on every rank. One kernel per rank:
//   1. a barrier between block b of every rank (through the signal pads) so
//      that every peer's input is written before anyone reads it;
//   2. each block reads its share of every peer's input (128-bit loads where
//      aligned), reduces in float32 and writes its own output;
//   3. a second barrier, so that no rank reuses its input buffer while a peer
//      may still read it.
// The barrier is the signal-pad handshake PyTorch's own symm_mem kernels use
// (one slot per (block, peer), set to 1 by the peer, reset to 0 by the
// waiter), so it composes with them on the same stream.

#include "opgen/kernels/one_shot_all_reduce.h"

#include "common/cuda_utils.cuh"
#include "common/reduce_op.h"

#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/csrc/distributed/c10d/symm_mem/SymmetricMemory.hpp>

#include <cuda/atomic>

#include <algorithm>
#include <cstdint>
#include <string>

namespace {

namespace oc = opgen::kernels::cuda;
using opgen::kernels::ReduceOp;

constexpr const char* kOp = "opgen::one_shot_all_reduce";
constexpr int kThreads = 512;
// Blocks per launch; each takes world_size signal slots. PyTorch's symm_mem
// kernels stay under the same bound.
constexpr int kMaxBlocks = 24;
constexpr int kMaxWorldSize = 8;  // NVLink domain of one node: at most 8 peers

template <cuda::std::memory_order kOrder>
__device__ __forceinline__ uint32_t compare_exchange(uint32_t* addr, uint32_t expected, uint32_t desired) {
  cuda::atomic_ref<uint32_t, cuda::thread_scope_system> ref(*addr);
  ref.compare_exchange_strong(expected, desired, kOrder);
  return expected;
}

// Block b of this rank meets block b of every peer: thread p raises slot
// [b][rank] in peer p's pad, then waits for p to raise slot [b][p] in ours and
// lowers it again. Release on the raise, acquire on the wait: what a rank
// wrote before the barrier is visible to its peers after it.
__device__ __forceinline__ void sync_remote_blocks(uint32_t** signal_pads, int rank, int world_size) {
  if (static_cast<int>(threadIdx.x) < world_size) {
    const int peer = static_cast<int>(threadIdx.x);
    uint32_t* raise = signal_pads[peer] + blockIdx.x * world_size + rank;
    uint32_t* wait = signal_pads[rank] + blockIdx.x * world_size + peer;
    while (compare_exchange<cuda::std::memory_order_release>(raise, 0, 1) != 0) {
    }
    while (compare_exchange<cuda::std::memory_order_acquire>(wait, 1, 0) != 1) {
    }
  }
  __syncthreads();
}

struct Reducer {
  ReduceOp op;
  __device__ __forceinline__ float operator()(float a, float b) const {
    switch (op) {
      case ReduceOp::kMin: return (a < b || isnan(a)) ? a : b;  // NaN propagates, like torch.minimum
      case ReduceOp::kMax: return (a > b || isnan(a)) ? a : b;
      default: return a + b;
    }
  }
  __device__ __forceinline__ float finish(float v, int world_size) const {
    return op == ReduceOp::kAvg ? v / static_cast<float>(world_size) : v;
  }
};

template <class T>
__global__ void __launch_bounds__(kThreads)
    one_shot_all_reduce_kernel(T** __restrict__ buffers, size_t offset_bytes, T* __restrict__ out, int64_t n,
                               uint32_t** __restrict__ signal_pads, int rank, int world_size, Reducer reduce,
                               bool vec_ok) {
  constexpr int N = oc::kVecSize<T>;
  sync_remote_blocks(signal_pads, rank, world_size);

  const T* inputs[kMaxWorldSize];
  for (int r = 0; r < world_size; ++r) {
    inputs[r] = reinterpret_cast<const T*>(reinterpret_cast<const char*>(buffers[r]) + offset_bytes);
  }
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  int64_t scalar_begin = 0;
  if (vec_ok) {
    const int64_t num_vec = n / N;
    for (int64_t v = tid; v < num_vec; v += stride) {
      float acc[N];
      const auto first = oc::load_vec<N>(inputs[0] + v * N);
#pragma unroll
      for (int k = 0; k < N; ++k) acc[k] = oc::to_acc(first.val[k]);
      for (int r = 1; r < world_size; ++r) {
        const auto x = oc::load_vec<N>(inputs[r] + v * N);
#pragma unroll
        for (int k = 0; k < N; ++k) acc[k] = reduce(acc[k], oc::to_acc(x.val[k]));
      }
      oc::AlignedVector<T, N> y;
#pragma unroll
      for (int k = 0; k < N; ++k) y.val[k] = oc::from_acc<T>(reduce.finish(acc[k], world_size));
      oc::store_vec<N>(out + v * N, y);
    }
    scalar_begin = num_vec * N;
  }
  for (int64_t i = scalar_begin + tid; i < n; i += stride) {
    float acc = oc::to_acc(inputs[0][i]);
    for (int r = 1; r < world_size; ++r) acc = reduce(acc, oc::to_acc(inputs[r][i]));
    out[i] = oc::from_acc<T>(reduce.finish(acc, world_size));
  }

  __syncthreads();
  sync_remote_blocks(signal_pads, rank, world_size);
}

}  // namespace

at::Tensor opgen::kernels::one_shot_all_reduce_cuda(const at::Tensor& input, std::string_view reduce_op,
                                                    std::string_view group_name) {
  TORCH_CHECK(input.is_cuda(), kOp, ": CUDA kernel called with a non-CUDA input");
  const Reducer reduce{parse_reduce_op(kOp, reduce_op)};
  const auto symm_mem = with_group(
      kOp, group_name, [&](const std::string& name) { return c10d::symmetric_memory::rendezvous(input, name); });
  TORCH_CHECK(symm_mem != nullptr, kOp, ": 'input' must be allocated in symmetric memory ",
              "(torch.distributed._symmetric_memory.empty) of group '", group_name, "'");
  const int rank = symm_mem->get_rank();
  const int world_size = symm_mem->get_world_size();
  TORCH_CHECK(world_size <= kMaxWorldSize, kOp, ": at most ", kMaxWorldSize, " ranks, the group has ", world_size);
  TORCH_CHECK(static_cast<size_t>(kMaxBlocks) * world_size * sizeof(uint32_t) <= c10d::symmetric_memory::get_signal_pad_size(),
              kOp, ": the symmetric-memory signal pad is too small for ", world_size, " ranks");

  // Where the input lies in this rank's buffer; the peers' inputs lie at the same offset in theirs.
  const auto* base = static_cast<const char*>(symm_mem->get_buffer_ptrs()[rank]);
  const auto* data = static_cast<const char*>(input.const_data_ptr());
  const size_t nbytes = input.nbytes();
  TORCH_CHECK(data >= base && static_cast<size_t>(data - base) + nbytes <= symm_mem->get_buffer_size(), kOp,
              ": 'input' does not lie inside its symmetric-memory buffer");
  const size_t offset_bytes = static_cast<size_t>(data - base);

  const c10::cuda::CUDAGuard guard(input.device());
  at::Tensor out = at::empty_like(input, at::MemoryFormat::Contiguous);
  const int64_t n = input.numel();
  if (n == 0) return out;
  const int64_t sms = at::cuda::getCurrentDeviceProperties()->multiProcessorCount;
  const auto stream = at::cuda::getCurrentCUDAStream();
  const auto launch = [&](auto tag) {
    using T = decltype(tag);
    constexpr int N = oc::kVecSize<T>;
    // Every rank's input sits at the same offset in a buffer of the same alignment.
    const bool vec_ok = offset_bytes % oc::kVecBytes == 0 && oc::is_aligned<oc::kVecBytes>(base) &&
                        oc::is_aligned<oc::kVecBytes>(out.const_data_ptr());
    const int64_t wanted = oc::ceil_div<int64_t>(n, static_cast<int64_t>(kThreads) * (vec_ok ? N : 1));
    const auto blocks = static_cast<unsigned int>(std::clamp<int64_t>(wanted, 1, std::min<int64_t>(sms, kMaxBlocks)));
    one_shot_all_reduce_kernel<T><<<blocks, kThreads, 0, stream>>>(
        reinterpret_cast<T**>(symm_mem->get_buffer_ptrs_dev()), offset_bytes,
        reinterpret_cast<T*>(out.mutable_data_ptr()), n, reinterpret_cast<uint32_t**>(symm_mem->get_signal_pad_ptrs_dev()),
        rank, world_size, reduce, vec_ok);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  };
  switch (input.scalar_type()) {  // the dtypes the spec's checks allow
    case at::kFloat: launch(float{}); break;
    case at::kHalf: launch(__half{}); break;
    case at::kBFloat16: launch(__nv_bfloat16{}); break;
    default: TORCH_CHECK(false, kOp, ": unsupported dtype ", input.scalar_type());
  }
  return out;
}
