// apex-style multi-tensor apply: many tensors processed by one kernel launch.
//
// Tensors are cut into chunks of `chunk_size` elements; each block of a launch
// handles one (tensor, chunk). The table mapping blocks to chunks travels as a
// kernel parameter (TensorListMeta, < 4 KB), so no host-to-device copy or
// synchronization is needed. Lists larger than one table are split over
// several launches; a tensor whose chunks straddle two launches is carried
// over to the next table.
//
// CUDA + standard headers only: usable from stable-ABI and ATen kernels.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

namespace opgen::kernels::cuda {

inline constexpr int kMtaMaxTensors = 96;
inline constexpr int kMtaMaxBlocks = 320;
inline constexpr int64_t kMtaChunkSize = 65536;  // elements per block
inline constexpr int kMtaThreads = 512;

struct TensorListMeta {
  void* ptrs[kMtaMaxTensors];
  int64_t sizes[kMtaMaxTensors];
  // Caller-defined per-tensor value (e.g. an output slot); see MtaTensor::tag.
  int64_t tags[kMtaMaxTensors];
  unsigned char block_to_tensor[kMtaMaxBlocks];
  int32_t block_to_chunk[kMtaMaxBlocks];
};
static_assert(sizeof(TensorListMeta) <= 4096, "TensorListMeta must fit the 4 KB kernel parameter limit");
static_assert(kMtaMaxTensors <= 256, "block_to_tensor is a byte");

struct MtaTensor {
  void* ptr;
  int64_t numel;
  int64_t tag;
};

// What one block of a multi-tensor kernel works on.
struct MtaChunk {
  void* ptr;       // first element of the chunk
  int64_t n;       // elements in the chunk (<= kMtaChunkSize)
  int64_t tag;     // the tensor's tag
  int64_t chunk;   // chunk index within the tensor
};

__device__ __forceinline__ MtaChunk mta_chunk(const TensorListMeta& meta, int elem_size) {
  const int t = meta.block_to_tensor[blockIdx.x];
  const int64_t chunk = meta.block_to_chunk[blockIdx.x];
  const int64_t start = chunk * kMtaChunkSize;
  const int64_t remaining = meta.sizes[t] - start;
  MtaChunk c;
  c.ptr = static_cast<char*>(meta.ptrs[t]) + start * elem_size;
  c.n = remaining < kMtaChunkSize ? remaining : kMtaChunkSize;
  c.tag = meta.tags[t];
  c.chunk = chunk;
  return c;
}

// Number of chunks (= blocks) a tensor of `numel` elements needs.
inline int64_t mta_num_chunks(int64_t numel) { return (numel + kMtaChunkSize - 1) / kMtaChunkSize; }

// Builds the tables for `tensors` (all of one dtype; empty ones are skipped)
// and calls `launch(const TensorListMeta&, int num_blocks)` once per table.
template <class Launch>
void multi_tensor_apply(const std::vector<MtaTensor>& tensors, Launch&& launch) {
  TensorListMeta meta;
  int num_tensors = 0;
  int num_blocks = 0;
  for (const MtaTensor& t : tensors) {
    if (t.numel == 0) {
      continue;
    }
    meta.ptrs[num_tensors] = t.ptr;
    meta.sizes[num_tensors] = t.numel;
    meta.tags[num_tensors] = t.tag;
    ++num_tensors;
    const int64_t chunks = mta_num_chunks(t.numel);
    for (int64_t c = 0; c < chunks; ++c) {
      meta.block_to_tensor[num_blocks] = static_cast<unsigned char>(num_tensors - 1);
      meta.block_to_chunk[num_blocks] = static_cast<int32_t>(c);
      ++num_blocks;
      const bool last_chunk = c == chunks - 1;
      if (num_blocks == kMtaMaxBlocks || (last_chunk && num_tensors == kMtaMaxTensors)) {
        launch(static_cast<const TensorListMeta&>(meta), num_blocks);
        num_blocks = 0;
        if (last_chunk) {
          num_tensors = 0;
        } else {  // carry the current tensor over to the next table
          meta.ptrs[0] = meta.ptrs[num_tensors - 1];
          meta.sizes[0] = meta.sizes[num_tensors - 1];
          meta.tags[0] = meta.tags[num_tensors - 1];
          num_tensors = 1;
        }
      }
    }
  }
  if (num_blocks > 0) {
    launch(static_cast<const TensorListMeta&>(meta), num_blocks);
  }
}

// ---------------------------------------------------------------------------
// Several lists walked together (apex's depth > 1): tensor i of the launch is
// the tuple (lists[0][i], ..., lists[Depth-1][i]), all of the same numel and
// walked by the same element index (their dtypes may differ). Same chunking
// and carry-over as above, with fewer tensors per table so it still fits the
// 4 KB parameter limit.
// ---------------------------------------------------------------------------
template <int Depth>
inline constexpr int kMtaMaxTensorsN = Depth == 1 ? 110 : Depth == 2 ? 64 : Depth == 3 ? 48 : Depth == 4 ? 36 : 30;

template <int Depth>
struct TensorListMetaN {
  void* ptrs[Depth][kMtaMaxTensorsN<Depth>];
  int64_t sizes[kMtaMaxTensorsN<Depth>];
  unsigned char block_to_tensor[kMtaMaxBlocks];
  int32_t block_to_chunk[kMtaMaxBlocks];
};
static_assert(sizeof(TensorListMetaN<4>) <= 4096, "TensorListMetaN<4> must fit the 4 KB kernel parameter limit");
static_assert(sizeof(TensorListMetaN<5>) <= 4096, "TensorListMetaN<5> must fit the 4 KB kernel parameter limit");

template <int Depth>
struct MtaTensorTuple {
  void* ptrs[Depth];
  int64_t numel;
};

// What one block of a depth-N kernel works on: elements [start, start + n)
// of tensor `tensor` of every list.
struct MtaChunkN {
  int tensor;
  int64_t start;
  int64_t n;
};

template <int Depth>
__device__ __forceinline__ MtaChunkN mta_chunk_n(const TensorListMetaN<Depth>& meta) {
  MtaChunkN c;
  c.tensor = meta.block_to_tensor[blockIdx.x];
  c.start = static_cast<int64_t>(meta.block_to_chunk[blockIdx.x]) * kMtaChunkSize;
  const int64_t remaining = meta.sizes[c.tensor] - c.start;
  c.n = remaining < kMtaChunkSize ? remaining : kMtaChunkSize;
  return c;
}

// Builds the tables for `tensors` (empty ones skipped) and calls
// `launch(const TensorListMetaN<Depth>&, int num_blocks)` once per table.
template <int Depth, class Launch>
void multi_tensor_apply_n(const std::vector<MtaTensorTuple<Depth>>& tensors, Launch&& launch) {
  constexpr int kMaxTensors = kMtaMaxTensorsN<Depth>;
  TensorListMetaN<Depth> meta;
  int num_tensors = 0;
  int num_blocks = 0;
  auto set_tensor = [&](int slot, const void* const* ptrs, int64_t numel) {
    for (int d = 0; d < Depth; ++d) meta.ptrs[d][slot] = const_cast<void*>(ptrs[d]);
    meta.sizes[slot] = numel;
  };
  for (const auto& t : tensors) {
    if (t.numel == 0) {
      continue;
    }
    set_tensor(num_tensors, t.ptrs, t.numel);
    ++num_tensors;
    const int64_t chunks = mta_num_chunks(t.numel);
    for (int64_t c = 0; c < chunks; ++c) {
      meta.block_to_tensor[num_blocks] = static_cast<unsigned char>(num_tensors - 1);
      meta.block_to_chunk[num_blocks] = static_cast<int32_t>(c);
      ++num_blocks;
      const bool last_chunk = c == chunks - 1;
      if (num_blocks == kMtaMaxBlocks || (last_chunk && num_tensors == kMaxTensors)) {
        launch(static_cast<const TensorListMetaN<Depth>&>(meta), num_blocks);
        num_blocks = 0;
        if (last_chunk) {
          num_tensors = 0;
        } else {  // carry the current tensor over to the next table
          void* carried[Depth];
          for (int d = 0; d < Depth; ++d) carried[d] = meta.ptrs[d][num_tensors - 1];
          set_tensor(0, carried, meta.sizes[num_tensors - 1]);
          num_tensors = 1;
        }
      }
    }
  }
  if (num_blocks > 0) {
    launch(static_cast<const TensorListMetaN<Depth>&>(meta), num_blocks);
  }
}

}  // namespace opgen::kernels::cuda
