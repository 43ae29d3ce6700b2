// opgen_ext::multi_scale_ (stable ABI): apex-style in-place scale of a list.

#include "opgen_ext/kernels/multi_scale_.h"

void opgen_ext::kernels::multi_scale__cpu(const std::vector<torch::stable::Tensor>& tensors, double scale) {
  for (const torch::stable::Tensor& t : tensors) {
    float* p = t.mutable_data_ptr<float>();
    for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<float>(p[i] * scale);
  }
}
