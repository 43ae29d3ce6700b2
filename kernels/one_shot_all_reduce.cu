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
// The barrier is the signal-pad handshake of c10d's put_signal/wait_signal
// (CUDASymmetricMemory-inl.h): a compare-and-swap 0 -> word into the peer's
// slot (release), then word -> 0 on one's own (acquire), every slot back at 0
// afterwards.
//
// Contract (the spec's doc: says the same, schemas/one_shot_all_reduce.yaml):
//
// - A collective. Every rank of `group_name` makes the same calls of this op on
//   that group in the same order (one host thread, or ordered threads), with
//   the same numel, dtype, reduce_op and offset of `input` in its symmetric
//   buffer.
//
// - Channels (kernels/common/symm_mem_layout.h). Call number k on a group
//   (counted per process, group and rank by next_call_number(), so the same on
//   every rank under the rule above) synchronizes its block b on channel
//   32 + 24 * (k % 8) + b of the signal pad: past c10d's channels [0, 32) (its
//   kernels' blocks, barrier()/put_signal() on channels 0-3), so it crosses
//   neither c10d's ops nor its barriers on the same buffer, and up to 8 calls
//   on a group (on different streams) have slots of their own. A slot shared
//   anyway (a 9th concurrent call, a foreign signal) delays, never releases
//   early: the word a call raises carries its number. Channels [32, 224) are
//   this op's: do not use them for barrier()/put_signal() on these buffers.
//   The pad must hold 224 * world_size uint32 slots (7168 bytes at 8 ranks;
//   c10d's default pad has 9216): checked on the host. A captured CUDA graph
//   keeps the numbers of its capture: do not replay one graph concurrently
//   with itself.
//
// - Launch shape: from numel and dtype only (one_shot_launch_shape()), never
//   from a pointer's alignment or the SM count, so every rank launches the same
//   blocks; whether a rank uses 128-bit accesses (every peer's input and its
//   own output 16-byte aligned) is its own choice inside that grid.
//
// - Bounded wait. Each spin gives up after OPGEN_SYMM_MEM_TIMEOUT_MS
//   milliseconds (default 10 minutes, c10d's default collective timeout; 0: no
//   limit, as c10d's timeout_ms = 0), timed with %globaltimer as c10d's
//   try_put_signal/try_wait_signal. The kernel then prints one
//   "[FATAL] opgen::one_shot_all_reduce: ..." line (rank, peer, call, block,
//   channel, barrier) and traps: the host sees a CUDA error (unspecified launch
//   failure) at its next synchronization, and the process's CUDA context is
//   unusable from then on: restart the job.
//
// - Mismatched inputs. A numel, dtype, reduce_op or input offset that differs
//   between ranks is caught at the first barrier (the word carries a 16-bit
//   checksum of them): both ranks print which call they disagree on and trap
//   at once. Ranks that make different calls (a missing call, another order,
//   another group) wait for each other until the timeout.

#include "opgen/kernels/one_shot_all_reduce.h"

#include "common/cuda_utils.cuh"
#include "common/reduce_op.h"
#include "common/symm_mem_layout.h"

#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/util/env.h>
#include <torch/csrc/distributed/c10d/symm_mem/SymmetricMemory.hpp>

#include <cuda/atomic>

#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

namespace oc = opgen::kernels::cuda;
namespace sm = opgen::kernels::symm_mem;
using opgen::kernels::ReduceOp;

constexpr const char* kOp = "opgen::one_shot_all_reduce";
constexpr const char* kTimeoutEnv = "OPGEN_SYMM_MEM_TIMEOUT_MS";

template <cuda::std::memory_order kOrder>
__device__ __forceinline__ uint32_t compare_exchange(uint32_t* addr, uint32_t expected, uint32_t desired) {
  cuda::atomic_ref<uint32_t, cuda::thread_scope_system> ref(*addr);
  ref.compare_exchange_strong(expected, desired, kOrder);
  return expected;
}

// c10d's global_timer_ns(): nanoseconds, the same clock on every SM.
__device__ __forceinline__ uint64_t global_timer_ns() {
  uint64_t ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns) : : "memory");
  return ns;
}

// What the barriers of a launch need (the same for all its blocks).
struct Sync {
  uint32_t** signal_pads;
  int rank;
  int world_size;
  unsigned long long call;        // the call's number on its group (next_call_number)
  uint32_t word;                  // sm::signal_word(call, checksum)
  unsigned long long timeout_ns;  // 0: no limit
  unsigned long long timeout_ms;  // for the message
};

enum class Failure { kSignalTimeout, kWaitTimeout, kMismatch };

// One message per process (the first thread to fail; the trap ends the grid
// and leaves the context unusable anyway), then the trap.
__device__ unsigned int reported = 0;

// Takes the fields it prints by value: a reference to the kernel's Sync would
// copy it to local memory in every launch.
__device__ __noinline__ void fail(Failure failure, int rank, int peer, unsigned long long call, int channel,
                                  int barrier, unsigned long long timeout_ms, uint32_t seen, uint32_t word) {
  if (atomicExch(&reported, 1u) == 0u) {
    const int block = static_cast<int>(blockIdx.x);
    switch (failure) {
      case Failure::kSignalTimeout:
        printf("[FATAL] opgen::one_shot_all_reduce: rank %d timed out after %llu ms signalling rank %d "
               "(call %llu, block %d, channel %d, barrier %d of 2): rank %d has not taken the previous signal "
               "of this slot; a rank is missing a call, or a foreign signal sits in this op's channels\n",
               rank, timeout_ms, peer, call, block, channel, barrier, peer);
        break;
      case Failure::kWaitTimeout:
        printf("[FATAL] opgen::one_shot_all_reduce: rank %d timed out after %llu ms waiting for rank %d "
               "(call %llu, block %d, channel %d, barrier %d of 2): rank %d did not make this call; the ranks "
               "disagree on the calls (their number, order or group) or a rank stopped\n",
               rank, timeout_ms, peer, call, block, channel, barrier, peer);
        break;
      case Failure::kMismatch:
        printf("[FATAL] opgen::one_shot_all_reduce: rank %d and rank %d disagree on call %llu (block %d, "
               "channel %d, barrier %d of 2, signal 0x%08x, expected 0x%08x): every rank must pass the same "
               "numel, dtype, reduce_op and offset of 'input' in its symmetric buffer\n",
               rank, peer, call, block, channel, barrier, seen, word);
        break;
    }
  }
  __trap();
}

// Block b of this rank meets block b of every peer on the call's channel:
// thread p raises slot (channel, rank) of peer p's pad to the call's word,
// then takes its own word from slot (channel, p) of this rank's pad. Release
// on the raise, acquire on the take: what a rank wrote before the barrier is
// visible to its peers after it. Each spin is bounded by s.timeout_ns.
__device__ __forceinline__ void sync_remote_blocks(const Sync& s, int barrier) {
  if (static_cast<int>(threadIdx.x) < s.world_size) {
    const int peer = static_cast<int>(threadIdx.x);
    const int channel = sm::channel_of(s.call, static_cast<int>(blockIdx.x));
    uint32_t* raise = s.signal_pads[peer] + sm::signal_slot(channel, s.world_size, s.rank);
    uint32_t* take = s.signal_pads[s.rank] + sm::signal_slot(channel, s.world_size, peer);
    uint64_t start = global_timer_ns();
    while (compare_exchange<cuda::std::memory_order_release>(raise, 0, s.word) != 0) {
      if (s.timeout_ns != 0 && global_timer_ns() - start > s.timeout_ns) {
        fail(Failure::kSignalTimeout, s.rank, peer, s.call, channel, barrier, s.timeout_ms, 0, s.word);
      }
    }
    start = global_timer_ns();
    for (;;) {
      const uint32_t seen = compare_exchange<cuda::std::memory_order_acquire>(take, s.word, 0);
      if (seen == s.word) break;
      if (seen != 0 && sm::classify(seen, s.word) == sm::Seen::kMismatch) {
        fail(Failure::kMismatch, s.rank, peer, s.call, channel, barrier, s.timeout_ms, seen, s.word);
      }
      if (s.timeout_ns != 0 && global_timer_ns() - start > s.timeout_ns) {
        fail(Failure::kWaitTimeout, s.rank, peer, s.call, channel, barrier, s.timeout_ms, seen, s.word);
      }
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

// The grid is the same on every rank (sm::one_shot_launch_shape); `vec_ok` is
// this rank's own: whether every input it reads and its output allow 128-bit
// accesses. Either way every block passes both barriers.
template <class T>
__global__ void __launch_bounds__(sm::kThreads)
    one_shot_all_reduce_kernel(T** __restrict__ buffers, size_t offset_bytes, T* __restrict__ out, int64_t n,
                               Sync sync, Reducer reduce, bool vec_ok) {
  constexpr int N = oc::kVecSize<T>;
  const int world_size = sync.world_size;
  sync_remote_blocks(sync, 1);

  const T* inputs[sm::kMaxWorldSize];
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
  sync_remote_blocks(sync, 2);
}

// OPGEN_SYMM_MEM_TIMEOUT_MS, or sm::kDefaultTimeoutMs.
uint64_t timeout_ms() {
  const auto text = c10::utils::get_env(kTimeoutEnv);
  if (!text.has_value()) return sm::kDefaultTimeoutMs;
  uint64_t ms = 0;
  bool ok = !text->empty() && text->size() <= 19;  // fits in uint64_t
  for (const char c : *text) {
    ok = ok && c >= '0' && c <= '9';
    if (ok) ms = ms * 10 + static_cast<uint64_t>(c - '0');
  }
  TORCH_CHECK(ok, kOp, ": ", kTimeoutEnv, " must be a whole number of milliseconds (0: no limit), got \"", *text,
              "\"");
  return ms;
}

// The number of earlier calls of this op on `group_name` by `rank` in this
// process. Every rank makes the same calls on a group in the same order (the
// contract above), so it is the same on every rank for the same call.
uint64_t next_call_number(std::string_view group_name, int rank) {
  static std::mutex mutex;
  static auto* const counts = new std::map<std::pair<std::string, int>, uint64_t>();  // never destroyed
  const std::lock_guard<std::mutex> lock(mutex);
  return (*counts)[{std::string(group_name), rank}]++;
}

}  // namespace

at::Tensor opgen::kernels::one_shot_all_reduce_cuda(const at::Tensor& input, std::string_view reduce_op,
                                                    std::string_view group_name) {
  TORCH_CHECK(input.is_cuda(), kOp, ": CUDA kernel called with a non-CUDA input");
  const Reducer reduce{parse_reduce_op(kOp, reduce_op)};
  const uint64_t wait_ms = timeout_ms();
  const auto symm_mem = with_group(
      kOp, group_name, [&](const std::string& name) { return c10d::symmetric_memory::rendezvous(input, name); });
  TORCH_CHECK(symm_mem != nullptr, kOp, ": 'input' must be allocated in symmetric memory ",
              "(torch.distributed._symmetric_memory.empty) of group '", group_name, "'");
  const int rank = symm_mem->get_rank();
  const int world_size = symm_mem->get_world_size();
  TORCH_CHECK(world_size <= sm::kMaxWorldSize, kOp, ": at most ", sm::kMaxWorldSize, " ranks, the group has ",
              world_size);
  const size_t pad_bytes = symm_mem->get_signal_pad_size();
  TORCH_CHECK(static_cast<int64_t>(pad_bytes) >= sm::signal_pad_bytes_needed(world_size), kOp,
              ": the symmetric-memory signal pad has ", pad_bytes, " bytes per rank, but this op needs ",
              sm::signal_pad_bytes_needed(world_size), " for ", world_size, " ranks (channels ",
              sm::kReservedChannels, " to ", sm::kChannels - 1, " of ", world_size,
              " uint32 slots each); raise it with torch.distributed._symmetric_memory.set_signal_pad_size() "
              "before allocating 'input'");

  // Where the input lies in every rank's buffer, as PyTorch's own symmetric-memory
  // ops address it: the allocation's offset in the rendezvoused block plus the
  // storage offset. Not the data pointer's distance from buffer_ptrs[rank]: on
  // torch 2.11 the buffers are mapped apart from the tensor's own address.
  const std::vector<void*> buffers = symm_mem->get_buffer_ptrs();
  const size_t nbytes = input.nbytes();
  const size_t offset_bytes =
      symm_mem->get_offset() + static_cast<size_t>(input.storage_offset()) * static_cast<size_t>(input.element_size());
  TORCH_CHECK(offset_bytes + nbytes <= symm_mem->get_buffer_size(), kOp,
              ": 'input' does not lie inside its symmetric-memory buffer (", nbytes, " bytes at offset ",
              offset_bytes, " of ", symm_mem->get_buffer_size(), ")");

  const c10::cuda::CUDAGuard guard(input.device());
  at::Tensor out = at::empty_like(input, at::MemoryFormat::Contiguous);
  const int64_t n = input.numel();
  if (n == 0) return out;  // on every rank alike: numel is the same everywhere

  // This rank's own choice, inside the shared grid: 128-bit accesses when every
  // input it reads (peer buffers as mapped here) and its output are aligned.
  bool vec_ok = oc::is_aligned<oc::kVecBytes>(out.const_data_ptr());
  for (const void* buffer : buffers) {
    vec_ok = vec_ok && oc::is_aligned<oc::kVecBytes>(static_cast<const char*>(buffer) + offset_bytes);
  }
  // The launch shape from numel and dtype only: the same on every rank.
  const sm::LaunchShape shape = sm::one_shot_launch_shape(n, static_cast<int64_t>(input.element_size()));
  const auto stream = at::cuda::getCurrentCUDAStream();
  const auto launch = [&](auto tag) {
    using T = decltype(tag);
    const uint64_t call = next_call_number(group_name, rank);
    const uint32_t checksum = sm::call_checksum(n, static_cast<int>(input.scalar_type()),
                                                static_cast<int>(reduce.op), static_cast<uint64_t>(offset_bytes));
    const Sync sync{reinterpret_cast<uint32_t**>(symm_mem->get_signal_pad_ptrs_dev()),
                    rank,
                    world_size,
                    static_cast<unsigned long long>(call),
                    sm::signal_word(call, checksum),
                    static_cast<unsigned long long>(sm::timeout_ns(wait_ms)),
                    static_cast<unsigned long long>(wait_ms)};
    one_shot_all_reduce_kernel<T><<<shape.blocks, shape.threads, 0, stream>>>(
        reinterpret_cast<T**>(symm_mem->get_buffer_ptrs_dev()), offset_bytes,
        reinterpret_cast<T*>(out.mutable_data_ptr()), n, sync, reduce, vec_ok);
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
