// opgen_ext::fwd: FlashAttention-3's stable-ABI forward interface (34
// arguments, a positional optional `out` that the first result aliases) with
// a stand-in body: out = q * softmax_scale, then the row sums of q, k and v.
// The arguments the stand-in does not read are left unnamed.

#include "opgen_ext/kernels/fwd.h"

#include <torch/csrc/stable/ops.h>

namespace {

torch::stable::Tensor row_sums(const torch::stable::Tensor& t) {
  torch::stable::Tensor sums = torch::stable::new_empty(t, {t.size(0)});
  const float* p = t.const_data_ptr<float>();
  float* s = sums.mutable_data_ptr<float>();
  for (int64_t r = 0; r < t.size(0); ++r) {
    s[r] = 0;
    for (int64_t c = 0; c < t.size(1); ++c) s[r] += p[r * t.size(1) + c];
  }
  return sums;
}

}  // namespace

std::tuple<torch::stable::Tensor, torch::stable::Tensor, torch::stable::Tensor, torch::stable::Tensor>
opgen_ext::kernels::fwd_cpu(
    const torch::stable::Tensor& q, const torch::stable::Tensor& k, const torch::stable::Tensor& v,
    const std::optional<torch::stable::Tensor>&, const std::optional<torch::stable::Tensor>&,
    const std::optional<torch::stable::Tensor>&, const std::optional<torch::stable::Tensor>& out,
    const std::optional<torch::stable::Tensor>&, const std::optional<torch::stable::Tensor>&,
    const std::optional<torch::stable::Tensor>&, const std::optional<torch::stable::Tensor>&,
    const std::optional<torch::stable::Tensor>&, std::optional<int64_t>, std::optional<int64_t>,
    const std::optional<torch::stable::Tensor>&, const std::optional<torch::stable::Tensor>&,
    const std::optional<torch::stable::Tensor>&, const std::optional<torch::stable::Tensor>&,
    const std::optional<torch::stable::Tensor>&, const std::optional<torch::stable::Tensor>&,
    const std::optional<torch::stable::Tensor>&, const std::optional<torch::stable::Tensor>&,
    const std::optional<torch::stable::Tensor>&, std::optional<double> softmax_scale, bool, int64_t, int64_t,
    int64_t, double, bool, const std::optional<torch::stable::Tensor>&, int64_t, std::optional<bool>, int64_t) {
  torch::stable::Tensor result = out ? *out : torch::stable::empty_like(q);
  const double scale = softmax_scale.value_or(1.0);
  const float* pq = q.const_data_ptr<float>();
  float* po = result.mutable_data_ptr<float>();
  for (int64_t i = 0; i < q.numel(); ++i) po[i] = static_cast<float>(scale * pq[i]);
  return {result, row_sums(q), row_sums(k), row_sums(v)};
}
