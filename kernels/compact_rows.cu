// CUDA kernel for opgen::compact_rows (stable ABI): input[mask] for a bool mask
// over dim 0, as a new contiguous tensor [count(mask), *input.shape[1:]].
//
//   1. cub::DeviceSelect::Flagged over the row indices (what torch.nonzero
//      uses): the selected row ids and their count, on the device.
//   2. The count is copied to the host (one stream sync, unavoidable for a
//      data-dependent output size, as with torch.nonzero) and the output is
//      allocated.
//   3. A gather copies the selected rows as raw words: 16-byte words when the
//      row size and both buffers allow it, else 8/4/2/1-byte words, so any
//      dtype is handled. Long rows get one block per output row, short rows a
//      flat grid-stride loop over (row, word).

#include "opgen/kernels/compact_rows.h"

#include "common/cuda_utils.cuh"
#include "common/stable_cuda_utils.h"
#include "common/stable_utils.h"

#include <torch/csrc/stable/accelerator.h>
#include <torch/csrc/stable/macros.h>
#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>

#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace {

namespace oc = opgen::kernels::cuda;
using torch::headeronly::ScalarType;
using torch::stable::Tensor;

constexpr int kThreads = 256;

// One block per output row (rows of at least kThreads words).
template <class Word>
__global__ void __launch_bounds__(kThreads)
    gather_rows_kernel(Word* __restrict__ out, const Word* __restrict__ in, const int64_t* __restrict__ rows,
                       int64_t row_offset, int64_t words_per_row) {
  const int64_t r = row_offset + blockIdx.x;
  const Word* src = in + rows[r] * words_per_row;
  Word* dst = out + r * words_per_row;
  for (int64_t w = threadIdx.x; w < words_per_row; w += blockDim.x) {
    dst[w] = src[w];
  }
}

// Grid-stride over (row, word) for short rows.
template <class Word>
__global__ void __launch_bounds__(kThreads)
    gather_small_rows_kernel(Word* __restrict__ out, const Word* __restrict__ in, const int64_t* __restrict__ rows,
                             int64_t num_rows, int64_t words_per_row) {
  const int64_t total = num_rows * words_per_row;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < total;
       k += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t r = k / words_per_row;
    const int64_t w = k - r * words_per_row;
    out[k] = in[rows[r] * words_per_row + w];
  }
}

template <class Word>
void launch_gather(void* out, const void* in, const int64_t* rows, int64_t num_rows, int64_t row_bytes, int sms,
                   cudaStream_t stream) {
  const int64_t words = row_bytes / static_cast<int64_t>(sizeof(Word));
  auto* o = static_cast<Word*>(out);
  const auto* i = static_cast<const Word*>(in);
  if (words >= kThreads) {
    oc::launch_rows(num_rows, [&](unsigned int grid, int64_t row_offset) {
      gather_rows_kernel<Word><<<grid, kThreads, 0, stream>>>(o, i, rows, row_offset, words);
      STD_CUDA_KERNEL_LAUNCH_CHECK();
    });
  } else {
    const int64_t wanted = oc::ceil_div<int64_t>(num_rows * words, kThreads);
    const auto grid = static_cast<unsigned int>(std::clamp<int64_t>(wanted, 1, static_cast<int64_t>(sms) * 16));
    gather_small_rows_kernel<Word><<<grid, kThreads, 0, stream>>>(o, i, rows, num_rows, words);
    STD_CUDA_KERNEL_LAUNCH_CHECK();
  }
}

}  // namespace

torch::stable::Tensor opgen::kernels::compact_rows_cuda(const torch::stable::Tensor& input,
                                                        const torch::stable::Tensor& mask) {
  constexpr const char* kOp = "opgen::compact_rows";
  STD_TORCH_CHECK(input.is_cuda() && mask.is_cuda() && mask.get_device_index() == input.get_device_index(), kOp,
                  ": CUDA kernel called with tensors not on one CUDA device");
  STD_TORCH_CHECK(input.dim() >= 1, kOp, ": expected an input with at least 1 dimension");
  STD_TORCH_CHECK(mask.dim() == 1 && mask.size(0) == input.size(0), kOp, ": expected 'mask' of shape [",
                  input.size(0), "]");
  STD_TORCH_CHECK(mask.scalar_type() == ScalarType::Bool, kOp, ": 'mask' must be bool");

  const int32_t device = input.get_device_index();
  torch::stable::accelerator::DeviceGuard guard(device);
  const int64_t rows = input.size(0);
  const auto in_sizes = input.sizes();
  std::vector<int64_t> out_sizes(in_sizes.begin(), in_sizes.end());
  if (rows == 0) {
    return torch::stable::new_empty(input, out_sizes);
  }
  const cudaStream_t stream = cuda::current_stream(device);
  const Tensor m = common::contiguous_or_self(mask);

  // 1. Selected row ids and their count.
  Tensor ids = torch::stable::new_empty(m, {rows}, ScalarType::Long);
  Tensor count = torch::stable::new_empty(m, {1}, ScalarType::Long);
  const auto* flags = static_cast<const bool*>(m.const_data_ptr());
  auto* ids_ptr = static_cast<int64_t*>(ids.mutable_data_ptr());
  auto* count_ptr = static_cast<int64_t*>(count.mutable_data_ptr());
  size_t temp_bytes = 0;
  STD_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, temp_bytes, thrust::counting_iterator<int64_t>(0), flags,
                                            ids_ptr, count_ptr, rows, stream));
  Tensor temp = torch::stable::new_empty(m, {static_cast<int64_t>(std::max<size_t>(temp_bytes, 1))}, ScalarType::Byte);
  STD_CUDA_CHECK(cub::DeviceSelect::Flagged(temp.mutable_data_ptr(), temp_bytes,
                                            thrust::counting_iterator<int64_t>(0), flags, ids_ptr, count_ptr, rows,
                                            stream));

  // 2. The count on the host.
  int64_t selected = 0;
  STD_CUDA_CHECK(cudaMemcpyAsync(&selected, count_ptr, sizeof(int64_t), cudaMemcpyDeviceToHost, stream));
  STD_CUDA_CHECK(cudaStreamSynchronize(stream));
  out_sizes[0] = selected;
  Tensor out = torch::stable::new_empty(input, out_sizes);
  if (out.numel() == 0) {
    return out;
  }

  // 3. Gather.
  const Tensor x = common::contiguous_or_self(input);
  const int64_t row_bytes = input.numel() / rows * static_cast<int64_t>(input.element_size());
  const void* src = x.const_data_ptr();
  void* dst = out.mutable_data_ptr();
  auto fits = [&](int64_t word) {
    return row_bytes % word == 0 && reinterpret_cast<uintptr_t>(src) % word == 0 &&
           reinterpret_cast<uintptr_t>(dst) % word == 0;
  };
  const int sms = cuda::sm_count(device);
  if (fits(16)) {
    launch_gather<uint4>(dst, src, ids_ptr, selected, row_bytes, sms, stream);
  } else if (fits(8)) {
    launch_gather<uint2>(dst, src, ids_ptr, selected, row_bytes, sms, stream);
  } else if (fits(4)) {
    launch_gather<uint32_t>(dst, src, ids_ptr, selected, row_bytes, sms, stream);
  } else if (fits(2)) {
    launch_gather<uint16_t>(dst, src, ids_ptr, selected, row_bytes, sms, stream);
  } else {
    launch_gather<uint8_t>(dst, src, ids_ptr, selected, row_bytes, sms, stream);
  }
  return out;
}
