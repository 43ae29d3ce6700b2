// CPU kernel for opgen::compact_rows (stable ABI): input[mask] for a bool mask
// over dim 0, i.e. the selected rows, in order, as a new contiguous tensor of
// shape [count(mask), *input.shape[1:]]. Dtype-agnostic (rows are copied as
// bytes): a prefix count over the mask, then a parallel row copy.

#include "opgen/kernels/compact_rows.h"

#include "common/cpu_utils.h"
#include "common/stable_utils.h"

#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

torch::stable::Tensor opgen::kernels::compact_rows_cpu(const torch::stable::Tensor& input,
                                                       const torch::stable::Tensor& mask) {
  constexpr const char* kOp = "opgen::compact_rows";
  STD_TORCH_CHECK(input.is_cpu() && mask.is_cpu(), kOp, ": CPU kernel called with non-CPU tensors");
  STD_TORCH_CHECK(input.dim() >= 1, kOp, ": expected an input with at least 1 dimension");
  STD_TORCH_CHECK(mask.dim() == 1 && mask.size(0) == input.size(0), kOp, ": expected 'mask' of shape [",
                  input.size(0), "]");
  STD_TORCH_CHECK(mask.scalar_type() == torch::headeronly::ScalarType::Bool, kOp, ": 'mask' must be bool");

  const int64_t rows = input.size(0);
  const torch::stable::Tensor m = common::contiguous_or_self(mask);
  const auto* flags = static_cast<const uint8_t*>(m.const_data_ptr());
  std::vector<int64_t> selected;
  for (int64_t r = 0; r < rows; ++r) {
    if (flags[r] != 0) selected.push_back(r);
  }

  const auto in_sizes = input.sizes();
  std::vector<int64_t> out_sizes(in_sizes.begin(), in_sizes.end());
  out_sizes[0] = static_cast<int64_t>(selected.size());
  torch::stable::Tensor out = torch::stable::new_empty(input, out_sizes);
  if (out.numel() == 0) return out;

  const torch::stable::Tensor x = common::contiguous_or_self(input);
  const size_t row_bytes = static_cast<size_t>(input.numel() / rows) * input.element_size();
  const auto* src = static_cast<const char*>(x.const_data_ptr());
  auto* dst = static_cast<char*>(out.mutable_data_ptr());
  const auto n = static_cast<int64_t>(selected.size());
  const int64_t grain = std::max<int64_t>(1, static_cast<int64_t>(cpu::kElementwiseGrain * 4 / std::max<size_t>(row_bytes, 1)));
  torch::stable::parallel_for(0, n, grain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      std::memcpy(dst + static_cast<size_t>(i) * row_bytes, src + static_cast<size_t>(selected[i]) * row_bytes,
                  row_bytes);
    }
  });
  return out;
}
