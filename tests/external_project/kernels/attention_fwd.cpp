// opgen_ext::attention_fwd (stable ABI): FlashAttention-3's aliasing shape,
// a positional optional `out` that the first result is when given.

#include "opgen_ext/kernels/attention_fwd.h"

#include <torch/csrc/stable/ops.h>

std::tuple<torch::stable::Tensor, torch::stable::Tensor> opgen_ext::kernels::attention_fwd_cpu(
    const torch::stable::Tensor& q, const std::optional<torch::stable::Tensor>& out, double scale) {
  torch::stable::Tensor result = out ? *out : torch::stable::empty_like(q);
  STD_TORCH_CHECK(result.numel() == q.numel(), "opgen_ext::attention_fwd: 'out' must have q's shape");
  const int64_t rows = q.size(0), cols = q.size(1);
  torch::stable::Tensor sums = torch::stable::new_empty(q, {rows});
  const float* pq = q.const_data_ptr<float>();
  float* po = result.mutable_data_ptr<float>();
  float* ps = sums.mutable_data_ptr<float>();
  for (int64_t r = 0; r < rows; ++r) {
    float sum = 0;
    for (int64_t c = 0; c < cols; ++c) {
      sum += pq[r * cols + c];
      po[r * cols + c] = static_cast<float>(scale * pq[r * cols + c]);
    }
    ps[r] = sum;
  }
  return {result, sums};
}
