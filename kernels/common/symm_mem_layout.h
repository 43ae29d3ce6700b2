// The host-side decisions of opgen::one_shot_all_reduce
// (kernels/one_shot_all_reduce.cu) that every rank of the group must make
// alike: the launch shape, the channels of the c10d signal pad a call
// synchronizes on, and the word its signals carry.
//
// Every function here is pure and takes only values all ranks share: numel,
// element size, world size, reduce op, the input's offset in its symmetric
// buffer and the call's sequence number on its group. Never a pointer's
// alignment, an SM count or anything else one rank knows only of itself: ranks
// that launch different grids wait for signals that never come. Plain C++ (no
// CUDA or torch header), so tests/python/test_symm_mem.py compiles and checks
// it without a GPU.
//
// Signal-pad layout (c10d's, NOTE [symmetric memory synchronization channel]
// in torch/csrc/distributed/c10d/symm_mem/SymmetricMemory.hpp): the pad of
// each rank is an array of uint32_t slots, `world_size` per channel; slot
// `channel * world_size + peer` of a rank's pad is the one `peer` raises for
// it. c10d's own kernels synchronize block b on channel b (at most
// symm_max_nblocks = 32 blocks) and its host-side barrier() / put_signal() /
// wait_signal() default to channel 0 (torch.distributed._symmetric_memory
// uses channels 0 to 3), so channels [0, 32) are theirs. This op keeps to
// [kReservedChannels, kChannels): `kLanes` lanes of `kMaxBlocks` channels,
// call number `seq` on a group using lane `seq % kLanes` and block b of it
// channel `kReservedChannels + lane * kMaxBlocks + b`.
#pragma once

#include <cstdint>

#ifdef __CUDACC__
#define OPGEN_SYMM_MEM_HD __host__ __device__
#else
#define OPGEN_SYMM_MEM_HD
#endif

namespace opgen::kernels::symm_mem {

// Threads per block: 512, as PyTorch's one_shot_all_reduce (it stages every
// peer's values in registers).
inline constexpr int kThreads = 512;
// Most blocks a launch has (PyTorch's one_shot_all_reduce_max_num_blocks).
// 24 blocks of 512 threads fit at once on any GPU with 24 SMs or more, so
// (other kernels permitting) no block waits at a barrier for a peer block
// that cannot be scheduled.
inline constexpr int kMaxBlocks = 24;
// The grid is sized for one 128-bit access per thread and step, whether or
// not a rank's pointers allow 128-bit accesses (each rank decides that for
// itself, inside this grid).
inline constexpr int kVecBytes = 16;
// Peers a rank reads from: one node's NVLink domain.
inline constexpr int kMaxWorldSize = 8;

struct LaunchShape {
  int blocks;
  int threads;
};

// The launch shape for `numel` elements of `element_size` bytes (numel > 0):
// enough blocks of kThreads threads for one 16-byte vector per thread, at
// least 1 and at most kMaxBlocks. A function of numel and dtype only.
OPGEN_SYMM_MEM_HD constexpr LaunchShape one_shot_launch_shape(int64_t numel, int64_t element_size) {
  const int64_t per_thread = element_size >= kVecBytes ? 1 : kVecBytes / (element_size < 1 ? 1 : element_size);
  const int64_t per_block = per_thread * kThreads;
  const int64_t wanted = numel <= 0 ? 1 : (numel - 1) / per_block + 1;  // ceil_div without overflow
  return {static_cast<int>(wanted < kMaxBlocks ? wanted : kMaxBlocks), kThreads};
}

// Channels [0, kReservedChannels) belong to c10d (see above).
inline constexpr int kReservedChannels = 32;
// Lanes: calls of this op on one group that can be in flight at once without
// sharing a slot (any more only wait for each other: see signal_word()).
inline constexpr int kLanes = 8;
// One past the last channel this op uses.
inline constexpr int kChannels = kReservedChannels + kLanes * kMaxBlocks;

OPGEN_SYMM_MEM_HD constexpr int lane_of(uint64_t seq) { return static_cast<int>(seq % kLanes); }

// The channel block `block` of call number `seq` synchronizes on.
OPGEN_SYMM_MEM_HD constexpr int channel_of(uint64_t seq, int block) {
  return kReservedChannels + lane_of(seq) * kMaxBlocks + block;
}

// The slot of `channel` that `peer` raises in a rank's signal pad.
OPGEN_SYMM_MEM_HD constexpr int64_t signal_slot(int channel, int world_size, int peer) {
  return static_cast<int64_t>(channel) * world_size + peer;
}

// Bytes of every rank's signal pad the op needs: channels [0, kChannels).
constexpr int64_t signal_pad_bytes_needed(int world_size) {
  return static_cast<int64_t>(kChannels) * world_size * static_cast<int64_t>(sizeof(uint32_t));
}

namespace detail {
// splitmix64's finalizer.
constexpr uint64_t mix(uint64_t h, uint64_t v) {
  uint64_t z = h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
}  // namespace detail

// 16 bits, never 0, of what the ranks must agree on for one call: numel,
// dtype, reduce op and the input's byte offset in its symmetric buffer.
constexpr uint32_t call_checksum(int64_t numel, int dtype, int reduce_op, uint64_t offset_bytes) {
  uint64_t h = detail::mix(0, static_cast<uint64_t>(numel));
  h = detail::mix(h, static_cast<uint64_t>(static_cast<int64_t>(dtype)));
  h = detail::mix(h, static_cast<uint64_t>(static_cast<int64_t>(reduce_op)));
  h = detail::mix(h, offset_bytes);
  const auto folded = static_cast<uint32_t>((h ^ (h >> 16) ^ (h >> 32) ^ (h >> 48)) & 0xffffu);
  return folded == 0 ? 1u : folded;
}

// The word call number `seq` raises its peers' slots to (instead of c10d's 1;
// slots still return to 0 after every barrier, as c10d requires): 1 + seq
// modulo 65535 in the high 16 bits (never 0, so never c10d's 1 either), the
// call's checksum in the low 16. A waiter takes only its own word
// (compare-and-swap word -> 0), so a slot shared with another call (more than
// kLanes calls in flight, or a foreign signal in this op's channels) delays
// it, never releases it early; a word with its own sequence bits but another
// checksum means the ranks disagree on this call.
OPGEN_SYMM_MEM_HD constexpr uint32_t signal_word(uint64_t seq, uint32_t checksum) {
  return (static_cast<uint32_t>(1 + seq % 0xffffu) << 16) | (checksum & 0xffffu);
}

OPGEN_SYMM_MEM_HD constexpr uint32_t sequence_bits(uint32_t word) { return word >> 16; }

// What a waiter expecting `mine` makes of a nonzero word `seen` in its slot.
enum class Seen { kMine, kOtherCall, kMismatch };
OPGEN_SYMM_MEM_HD constexpr Seen classify(uint32_t seen, uint32_t mine) {
  if (seen == mine) return Seen::kMine;
  return sequence_bits(seen) == sequence_bits(mine) ? Seen::kMismatch : Seen::kOtherCall;
}

// The kernel's wait: c10d's default of no limit (timeout_ms = 0) would turn a
// peer that never comes into a hang; 10 minutes is c10d's default collective
// timeout (default_pg_timeout). OPGEN_SYMM_MEM_TIMEOUT_MS overrides it.
inline constexpr uint64_t kDefaultTimeoutMs = 10 * 60 * 1000;

// Nanoseconds for `timeout_ms` (0: no limit, as c10d's timeout_ms = 0),
// saturating rather than wrapping.
constexpr uint64_t timeout_ns(uint64_t timeout_ms) {
  constexpr uint64_t kNsPerMs = 1000 * 1000;
  return timeout_ms > UINT64_MAX / kNsPerMs ? UINT64_MAX : timeout_ms * kNsPerMs;
}

static_assert(one_shot_launch_shape(1, 4).blocks == 1);
static_assert(one_shot_launch_shape(int64_t{1} << 40, 2).blocks == kMaxBlocks);
static_assert(signal_word(0, 0) != 0 && signal_word(0xfffe, 0) != 0 && signal_word(0xffff, 0) == signal_word(0, 0));
static_assert(classify(1u, signal_word(0, 1)) == Seen::kOtherCall);  // c10d's own signal word

}  // namespace opgen::kernels::symm_mem
